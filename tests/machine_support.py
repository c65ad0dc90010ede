"""What the stateful machines share: the disagreement they raise, and a log kept on both sides.

:class:`Twin` is a :class:`dsh_session.Session` and the spec's log of the same
events, appended to together: each offer goes to ``Session.append`` and to
``dsh_spec.validate_append``, and both must store the same event or refuse it
with the same code at the same seq. The machines for repair, tool pairing
and request headers build their logs through it and compare what they are
about on top.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import dsh_spec
from dsh_session import Event, InvalidEventError, Session
from dsh_spec import ABSENT, Draft, Rejection
from tests.support import json_diff


class Disagreement(AssertionError):
    """The implementation and the spec (or a promise of the API) disagree."""


def require(condition: bool, message: str | Callable[[], str]) -> None:
    if not condition:
        raise Disagreement(message() if callable(message) else message)


def fresh_int(number: int) -> int:
    """An ``int`` equal to ``number`` that is not the same object (past the small-int cache)."""
    return int(str(number))


def same_json(left: Any, right: Any, what: str) -> None:
    found = json_diff(left, right)
    require(found is None, lambda: f"{what}: {found}")


def plain(value: Any) -> Any:
    """A plain JSON value (``dict`` / ``list``) of whatever JSON the implementation returned."""
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def unguarded(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` without beartype's guard, so that an argument outside its annotation (a float
    where an ``int`` seq belongs) reaches the implementation's own check."""
    unwrapped: Callable[..., Any] = getattr(function, "__wrapped__", function)
    return unwrapped


def unguarded_method(owner: Any, name: str) -> Callable[..., Any]:
    """``owner.name`` (a method) without beartype's guard."""
    return functools.partial(unguarded(getattr(type(owner), name)), owner)


class Twin:
    """A session and the spec's log, kept equal append by append."""

    def __init__(self, session_id: str = "twin") -> None:
        self.clock = iter(range(1_767_225_600_000, 2**62, 7))
        self.session = Session(session_id, clock=lambda: next(self.clock))
        self.log: tuple[dsh_spec.Event, ...] = ()

    def offer(
        self,
        kind: str,
        data: Any,
        surface_op: Any = None,
        source_event_seqs: Any = None,
        *,
        spec_data: Any = ABSENT,
    ) -> Event | None:
        """``append`` on both sides (``None`` means absent); the event, or ``None`` if refused.
        ``spec_data`` is the plain value the spec gets when ``data`` is the implementation's own."""
        options: dict[str, Any] = {}
        if surface_op is not None:
            options["surface_op"] = surface_op
        if source_event_seqs is not None:
            options["source_event_seqs"] = list(source_event_seqs)
        outcome: Event | InvalidEventError
        try:
            outcome = self.session.append(kind, data, **options)
        except InvalidEventError as error:
            outcome = error
        time = self.log[-1].time + 7 if self.log else 1_767_225_600_000
        if isinstance(outcome, Event):
            time = outcome.time
        draft = Draft(
            kind,
            time,
            data if spec_data is ABSENT else spec_data,
            ABSENT if surface_op is None else surface_op,
            ABSENT if source_event_seqs is None else list(source_event_seqs),
        )
        expected = dsh_spec.validate_append(self.log, draft)
        if isinstance(outcome, InvalidEventError):
            require(isinstance(expected, Rejection), f"{kind} refused ({outcome.code}); the spec accepts it")
            assert isinstance(expected, Rejection)
            require(
                (outcome.code, outcome.seq) == (expected.code, expected.seq),
                f"{kind} refused with {outcome.code}@{outcome.seq}, "
                f"the spec with {expected.code}@{expected.seq}",
            )
            return None
        require(isinstance(expected, dsh_spec.Event), f"{kind} accepted; the spec refuses it: {expected}")
        assert isinstance(expected, dsh_spec.Event)
        same_json(outcome.to_json(), dsh_spec.event_json(expected), f"the {kind} at seq {expected.seq}")
        self.log = (*self.log, expected)
        return outcome

    def seed(self, records: list[dict[str, Any]]) -> None:
        """Start both sides again from ``records`` (a seed both must take)."""
        expected = dsh_spec.check_seed(records)
        require(not isinstance(expected, Rejection), lambda: f"the spec refuses the seed: {expected}")
        assert not isinstance(expected, Rejection)
        self.session = Session(self.session.id, records, clock=lambda: next(self.clock))
        same_json(self.session.events.to_json(), records, "the seeded log")
        self.log = expected

    def copy(self) -> Twin:
        """Another twin holding the same log (the session seeded with this one's events), to
        try appends on without changing this one."""
        twin = Twin(self.session.id)
        twin.session = Session(self.session.id, list(self.session.events), clock=lambda: next(twin.clock))
        twin.log = self.log
        return twin

    @property
    def order(self) -> tuple[int, ...]:
        surface = dsh_spec.fold_surface(self.log)
        assert isinstance(surface, dsh_spec.Surface)
        return surface.order

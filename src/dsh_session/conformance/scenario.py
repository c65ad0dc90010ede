"""Scenarios: how a case is written before the spec fills in what each step must give.

A :class:`Scenario` names its case (id, description, spec references,
profile) and lists its steps without expected values. A step that must fail
says so -- ``error=CODE`` -- and how many later steps an implementation may
take before raising it (``lazy=n``: the TypeScript reference refuses a bad
replace only when the surface is next read). ``want=`` pins a value taken from
the reference notes; the generator checks the spec agrees.

The step builders below (``new``, ``append``, ``surface``, ...) spell each
protocol operation with its usual arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, runtime_checkable

from dsh_session.conformance.cases import Heading
from dsh_spec.codes import Code

_UNSET: Final[Any] = object()


@dataclass(frozen=True)
class Act:
    """One step of a scenario: an operation, its arguments, and what the scenario insists on."""

    op: str
    args: dict[str, Any]
    error: Code | None = None
    lazy: int = 0
    want: Any = _UNSET

    def fails(self, code: Code, *, lazy: int = 0) -> Act:
        return Act(self.op, self.args, code, lazy, self.want)

    def gives(self, value: Any) -> Act:
        return Act(self.op, self.args, self.error, self.lazy, value)

    def ends(self, outcome: Any) -> Act:
        """:meth:`fails` with ``outcome`` when it is a :class:`Code`, else :meth:`gives` it."""
        return self.fails(outcome) if isinstance(outcome, Code) else self.gives(outcome)

    @property
    def has_want(self) -> bool:
        return self.want is not _UNSET


@dataclass(frozen=True)
class Scenario(Heading):
    steps: tuple[Act, ...]
    area: str = field(default="")

    def __post_init__(self) -> None:
        if not self.area:
            object.__setattr__(self, "area", self.id.split(".", 1)[0])


def scenario(
    id: str, description: str, spec: Sequence[str], profile: str, *steps: Act | Sequence[Act]
) -> Scenario:
    """A scenario; ``steps`` may nest lists of steps (flattened)."""
    flat: list[Act] = []
    for item in steps:
        if isinstance(item, Act):
            flat.append(item)
        else:
            flat.extend(item)
    return Scenario(id, description, tuple(spec), profile, tuple(flat))


# -- step builders -----------------------------------------------------------------------------


def args_with(args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """``args`` with each of ``extra`` added that is given (not ``None``, not left unset), in the
    order named: the arguments of a step whose optional ones are left out when not given."""
    for key, value in extra.items():
        if value is not _UNSET and value is not None:
            args[key] = value
    return args


def new(
    seed: Sequence[Any] = (),
    *,
    id: str = "s",
    session: str | None = None,
    invariants: bool = False,
    cwd: str | None = None,
) -> Act:
    args: dict[str, Any] = {"id": id, "seed": list(seed)}
    if invariants:
        args["invariants"] = True
    return Act("session.new", args_with(args, session=session, cwd=cwd))


def append(record: dict[str, Any], *, time: int = 5000, session: str | None = None) -> Act:
    """Append ``record`` (a notation record: its type, data and surface keys are used)."""
    args: dict[str, Any] = {"type": record.get("type"), "data": record.get("data"), "time": time}
    for key in ("surfaceOp", "sourceEventSeqs"):
        if key in record:
            args[key] = record[key]
    return Act("session.append", args_with(args, session=session))


@runtime_checkable
class Read(Protocol):
    """A read of a session: the default one when ``session`` is ``None``."""

    def __call__(self, session: str | None = None) -> Act: ...


def _reader(op: str) -> Read:
    """The act that reads ``op`` of a session."""

    def read(session: str | None = None) -> Act:
        return Act(op, args_with({}, session=session))

    read.__name__ = read.__qualname__ = op.removeprefix("session.")
    return read


events = _reader("session.events")
surface = _reader("session.surface")
generation = _reader("session.generation")
invalidate = _reader("session.invalidate")
messages = _reader("session.messages")
closers = _reader("session.closers")
request_header = _reader("session.request_header")


def event_message(seq: int, session: str | None = None) -> Act:
    return Act("session.event_message", args_with({"seq": seq}, session=session))


def balanced(before: Any, session: str | None = None) -> Act:
    return Act("session.balanced", args_with({"before": before}, session=session))


def region(start: Any, end: Any, session: str | None = None) -> Act:
    return Act("session.region_balanced", args_with({"start": start, "end": end}, session=session))


def check(records: Sequence[Any]) -> Act:
    return Act("log.check", {"records": list(records)})


def reads(session: str | None = None) -> list[Act]:
    """The usual reads after building a log: surface, generation, messages."""
    return [surface(session), generation(session), messages(session)]

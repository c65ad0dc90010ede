"""Deliberately broken variants of the implementation, for proving the machine can see bugs.

Each mutant is a scoped patch of the real classes and modules (nothing in
``src`` is edited): entering :meth:`Mutant.active` installs the bug, leaving
it restores the original. ``tests/test_mutants.py`` runs the state machine
against each one and demands that it fails.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from dsh_session import (
    Code,
    InvalidEventError,
    MessageList,
    Replace,
    Session,
    SurfaceManager,
    _admission,
)
from dsh_session import projection as projection_module
from dsh_session import session as session_module
from dsh_session.event import LoggedEvent
from dsh_session.json_value import decode, encode


@dataclass(frozen=True)
class Mutant:
    """A named bug and the patch that plants it."""

    name: str
    bug: str
    plant: Callable[[pytest.MonkeyPatch], None]

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        with pytest.MonkeyPatch.context() as patch:
            self.plant(patch)
            yield


def _replace_off_by_one(patch: pytest.MonkeyPatch) -> None:
    original = SurfaceManager._span

    def span(self: SurfaceManager, start: int, end: int) -> Any:
        out = original(self, start, end)
        return out[:-1] if isinstance(out, list) and len(out) > 1 else out

    patch.setattr(SurfaceManager, "_span", span)


def _stale_derive_cache(patch: pytest.MonkeyPatch) -> None:
    """Built from the public API only: messages are cached per node and never dropped."""
    caches: dict[int, tuple[Session, set[int], list[Any]]] = {}

    def derive_messages(self: Session) -> Any:
        owner, seen, messages = caches.setdefault(id(self), (self, set(), []))
        if owner is not self:
            owner, seen, messages = caches[id(self)] = (self, set(), [])
        for node in self.surface.nodes:
            if node.seq not in seen:
                seen.add(node.seq)
                message = self.derive_event_message(self.events[node.seq])
                if message is not None:
                    messages.append(encode(message))
        return MessageList(list(messages))

    patch.setattr(Session, "derive_messages", derive_messages)


def _fold_before_coverage_check(patch: pytest.MonkeyPatch) -> None:
    original = _admission.admit

    def admit(surface: SurfaceManager, seq: int, kind: object, *rest: Any, **options: Any) -> Any:
        try:
            return original(surface, seq, kind, *rest, **options)
        except InvalidEventError as error:
            if error.code is Code.REPLACE_PROVENANCE_INCOMPLETE:
                op = _admission._surface_op(rest[2])
                assert isinstance(op, Replace)
                span = surface._span(op.start, op.end)
                assert isinstance(span, list)
                surface._replace(seq, span)  # folded already: not atomic
            raise

    patch.setattr(_admission, "admit", admit)


def _skip_coverage_check(patch: pytest.MonkeyPatch) -> None:
    original = _admission.admit

    def admit(
        surface: SurfaceManager, seq: int, kind: Any, time: Any, data: Any, op: Any, refs: Any, **options: Any
    ) -> Any:
        try:
            return original(surface, seq, kind, time, data, op, refs, **options)
        except InvalidEventError as error:
            if error.code is not Code.REPLACE_PROVENANCE_INCOMPLETE:
                raise
        replace = _admission._surface_op(op)
        assert isinstance(replace, Replace)
        span = surface._span(replace.start, replace.end)
        assert isinstance(span, list)
        given = [] if refs is _admission.MISSING else list(refs)
        covering = [*given, *(seq for seq in span if seq not in given)]
        event, shadowed = original(surface, seq, kind, time, data, op, covering, **options)
        assert event.source_event_seqs is not None
        kept = None if refs is _admission.MISSING else event.source_event_seqs[: len(given)]
        return dataclasses.replace(event, source_event_seqs=kept), shadowed

    patch.setattr(_admission, "admit", admit)


def _aliased_data(patch: pytest.MonkeyPatch) -> None:
    """A logged event hands out one shared decoded object, so a change to it sticks."""
    shared: dict[bytes, Any] = {}

    def data(self: LoggedEvent) -> Any:
        text = self.text
        if text not in shared:
            shared[text] = decode(text)
        return shared[text]

    patch.setattr(LoggedEvent, "data", property(data))


def _live_event_list(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(Session, "events", property(lambda self: self._log))


class _LiveMessageList(MessageList[Any]):
    """A history view whose length follows the cache instead of being fixed."""

    __slots__ = ()

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._items))


def _live_history_view(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(session_module, "MessageList", _LiveMessageList)


def _invalidate_keeps_generation(patch: pytest.MonkeyPatch) -> None:
    """Built from the public API: the generation no longer counts the invalidations themselves."""
    invalidations: dict[int, int] = {}
    original_invalidate = SurfaceManager.invalidate
    original_generation = SurfaceManager.replace_generation

    def invalidate(self: SurfaceManager) -> None:
        invalidations[id(self)] = invalidations.get(id(self), 0) + 1
        original_invalidate(self)

    def generation(self: SurfaceManager) -> int:
        value: int = original_generation.fget(self)  # type: ignore[attr-defined]
        return value - invalidations.get(id(self), 0)

    patch.setattr(SurfaceManager, "invalidate", invalidate)
    patch.setattr(SurfaceManager, "replace_generation", property(generation))


def _empty_assistant_projected(patch: pytest.MonkeyPatch) -> None:
    original = projection_module.message_text

    def message_text(event: Any, data: Any = None) -> Any:
        if event.type == "assistant/message" and not (event.data if data is None else data)["content"]:
            return encode({"role": "assistant", "content": []})
        return original(event, data)

    patch.setattr(session_module, "message_text", message_text)


def _bool_is_int(patch: pytest.MonkeyPatch) -> None:
    original = _admission._exact_int

    def exact_int(value: object) -> int | None:
        return int(value) if isinstance(value, bool) else original(value)

    patch.setattr(_admission, "_exact_int", exact_int)


MUTANTS = (
    Mutant("replace-off-by-one", "a replace shadows one node too few", _replace_off_by_one),
    Mutant("stale-derive-cache", "derive_messages keeps its cache across a replace", _stale_derive_cache),
    Mutant(
        "non-atomic-fold",
        "the surface folds a replace before its coverage check fails",
        _fold_before_coverage_check,
    ),
    Mutant(
        "missed-coverage-check",
        "a replace missing shadowed nodes in its provenance is stored",
        _skip_coverage_check,
    ),
    Mutant("aliased-data", "a logged event hands out one shared, changeable data object", _aliased_data),
    Mutant("live-event-list", "events returns the live log list", _live_event_list),
    Mutant("live-history-view", "derive_messages returns a view that grows later", _live_history_view),
    Mutant(
        "invalidate-keeps-generation",
        "invalidate does not bump the replace generation",
        _invalidate_keeps_generation,
    ),
    Mutant(
        "empty-assistant-projected",
        "an empty assistant message projects to a message",
        _empty_assistant_projected,
    ),
    Mutant("bool-is-int", "True is taken as the integer 1 (endpoints, provenance, time)", _bool_is_int),
)

"""Deliberately broken variants of the implementation, for proving the machines can see bugs.

Each mutant is a scoped patch of the real classes and modules (nothing in
``src`` is edited): entering :meth:`Mutant.active` installs the bug, leaving
it restores the original. Each names the machine that must catch it
(``machine``: ``core``, a backend kind, ``repair``, ``pairing`` or
``headers``); ``tests/test_mutants.py`` runs that machine against the mutant
and demands that it fails, and runs the same search on the real
implementation, which must pass.

Where a patch can be built from the public API (a public method wrapped or
re-implemented with public reads) it is, so that it survives a rewrite of the
internals; ``docs/verification.md`` lists the ones that reach into internals.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest

import dsh_spec
from dsh_session import (
    EVENT_KEY_ORDER,
    Code,
    CorruptStoreError,
    DshSessionError,
    IncompatibleStoreError,
    InvalidEventError,
    JsonlBackend,
    MessageList,
    PostgresBackend,
    Replace,
    Session,
    SurfaceManager,
    ToolPairingError,
    _admission,
)
from dsh_session import projection as projection_module
from dsh_session import repair as repair_module
from dsh_session import request_header as request_header_module
from dsh_session import session as session_module
from dsh_session import tool_pairing as tool_pairing_module
from dsh_session.event import LoggedEvent
from dsh_session.json_value import decode, encode
from dsh_session.persistence import _rows as rows_module
from dsh_session.persistence import jsonl as jsonl_module
from tests.python_paths import python_paths


@dataclass(frozen=True)
class Mutant:
    """A named bug and the patch that plants it."""

    name: str
    bug: str
    plant: Callable[[pytest.MonkeyPatch], None]
    machine: str = "core"

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """The bug planted in the Python code, which then runs alone (the C fast paths off)."""
        with python_paths(), pytest.MonkeyPatch.context() as patch:
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
        return msgspec.structs.replace(event, source_event_seqs=kept), shadowed

    patch.setattr(_admission, "admit", admit)


def _aliased_data(patch: pytest.MonkeyPatch) -> None:
    """A logged event hands out one shared decoded object, so a change to it sticks. (One per
    event, the event kept alive with it: shared across examples, the bug would make the search
    itself flaky.)"""
    shared: dict[int, tuple[LoggedEvent, Any]] = {}

    def data(self: LoggedEvent) -> Any:
        if id(self) not in shared:
            shared[id(self)] = (self, decode(self.text))
        return shared[id(self)][1]

    patch.setattr(LoggedEvent, "data", property(data))


def _live_event_list(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(Session, "events", property(lambda self: self._log))


class _LiveMessageList(MessageList[Any]):
    """A history view whose length follows the cache instead of being fixed (each item still
    decoded afresh from its text, as the real view does)."""

    __slots__ = ()

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Any]:
        return iter([self._item(text) for text in self._items])


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
    original = _admission.exact_int

    def exact_int(value: object) -> int | None:
        return int(value) if isinstance(value, bool) else original(value)

    patch.setattr(_admission, "exact_int", exact_int)


# -- the blind spots of issue 13: one variant each --------------------------------------------


def _provenance_endpoints_only(patch: pytest.MonkeyPatch) -> None:
    """Reaches into ``_admission`` (admit, _surface_op, MISSING) and ``SurfaceManager._span``."""
    original = _admission.admit

    def admit(
        surface: SurfaceManager, seq: int, kind: Any, time: Any, data: Any, op: Any, refs: Any, **options: Any
    ) -> Any:
        try:
            return original(surface, seq, kind, time, data, op, refs, **options)
        except InvalidEventError as error:
            if error.code is not Code.REPLACE_PROVENANCE_INCOMPLETE or refs is _admission.MISSING:
                raise
            replace = _admission._surface_op(op)
            assert isinstance(replace, Replace)
            span = surface._span(replace.start, replace.end)
            assert isinstance(span, list)
            given = list(refs)
            if span[0] not in given or span[-1] not in given:
                raise  # the ends are checked; what lies between them is not
            covering = [*given, *(node for node in span if node not in given)]
            event, shadowed = original(surface, seq, kind, time, data, op, covering, **options)
        return msgspec.structs.replace(event, source_event_seqs=tuple(given)), shadowed

    patch.setattr(_admission, "admit", admit)


def _position_by_identity(patch: pytest.MonkeyPatch) -> None:
    """Public API only: ``position`` walks ``seqs()`` and compares with ``is``."""

    def position(self: SurfaceManager, seq: int) -> int:
        index = 0
        for node in self.seqs():
            if node is seq:
                return index
            index += 1
        return index

    patch.setattr(SurfaceManager, "position", position)


def _shadowed_takes_bools(patch: pytest.MonkeyPatch) -> None:
    """Public API only: ``shadowed`` reads ``True`` as seq 1 (``isinstance`` for ``type() is``)."""
    original = SurfaceManager.shadowed

    def shadowed(self: SurfaceManager, start: int, end: int) -> Any:
        return (
            original(self, int(start), int(end)) if isinstance(start, int) and isinstance(end, int) else None
        )

    patch.setattr(SurfaceManager, "shadowed", shadowed)


def _text(value: Any, number: Callable[[Any], str], keys: Callable[[list[str]], list[str]]) -> str:
    """JSON text of a plain value with the given number spelling and key order."""
    if value is None or value is True or value is False:
        return json.dumps(value)
    if isinstance(value, str):
        return dsh_spec.js_string(value)
    if isinstance(value, int | float):
        return number(value)
    if isinstance(value, list):
        return "[" + ",".join(_text(item, number, keys) for item in value) + "]"
    return (
        "{"
        + ",".join(dsh_spec.js_string(k) + ":" + _text(value[k], number, keys) for k in keys(list(value)))
        + "}"
    )


#: The private writers these variants replace, by name: the JSONL line, the database JSON column.
_LINE_WRITER = "event_line"
_COLUMN_WRITER = "payload_text"


def _named(module: Any, name: str) -> Callable[[Any], str]:
    """A module's private function, looked up by name (the patch fails loudly if it is gone)."""
    function: Callable[[Any], str] = getattr(module, name)
    return function


def _python_number(value: int | float) -> str:
    return repr(value) if type(value) is float else str(value)


def _index_keys_as_strings(keys: list[str]) -> list[str]:
    """Array-index keys first, but sorted as strings ("10" before "2")."""
    indices = [k for k in keys if dsh_spec.json_value.is_array_index(k)]
    return sorted(indices) + [k for k in keys if k not in indices]


def _python_number_spelling(patch: pytest.MonkeyPatch) -> None:
    """Patches ``persistence.jsonl.event_line`` (the JSONL line writer) by name."""
    original = _named(jsonl_module, _LINE_WRITER)

    def event_line(event: Any) -> str:
        return _text(json.loads(original(event)), _python_number, dsh_spec.json_value.ordered_keys)

    patch.setattr(jsonl_module, _LINE_WRITER, event_line)


def _index_keys_in_string_order(patch: pytest.MonkeyPatch) -> None:
    """Patches ``persistence._rows.payload_text`` (what fills the ``data`` column) by name."""
    original: Callable[[Any], bytes] = getattr(rows_module, _COLUMN_WRITER)

    def payload_text(event: Any) -> bytes:
        return _text(json.loads(original(event)), dsh_spec.js_number, _index_keys_as_strings).encode()

    patch.setattr(rows_module, _COLUMN_WRITER, payload_text)


def _escaped_non_ascii(patch: pytest.MonkeyPatch) -> None:
    """Patches ``persistence.jsonl.event_line`` by name: the same value, other bytes."""
    original = _named(jsonl_module, _LINE_WRITER)

    def escape(char: str) -> str:
        units = char.encode("utf-16-le", "surrogatepass")
        return "".join(
            f"\\u{int.from_bytes(units[i : i + 2], 'little'):04x}" for i in range(0, len(units), 2)
        )

    def event_line(event: Any) -> str:
        return "".join(char if char.isascii() else escape(char) for char in original(event))

    patch.setattr(jsonl_module, _LINE_WRITER, event_line)


def _refused_batch_keeps_a_prefix(patch: pytest.MonkeyPatch) -> None:
    """Public API only: a refused batch stores the longest prefix that would pass."""
    original = PostgresBackend.append

    def append(self: PostgresBackend, session_id: str, events: Iterable[Any]) -> None:
        batch = list(events)
        try:
            original(self, session_id, batch)
        except DshSessionError:
            for count in range(len(batch) - 1, 0, -1):
                with contextlib.suppress(DshSessionError):
                    original(self, session_id, batch[:count])
                    break
            raise

    patch.setattr(PostgresBackend, "append", append)


def _refused_load_cuts_the_file(patch: pytest.MonkeyPatch) -> None:
    """Public API only: a load refused for a bad line cuts the log there before it raises."""
    original = JsonlBackend.load

    def load(self: JsonlBackend, session_id: str, *, close_turn: bool = True) -> Any:
        try:
            return original(self, session_id, close_turn=close_turn)
        except (CorruptStoreError, IncompatibleStoreError) as error:
            if error.path and os.path.isfile(error.path):
                with open(error.path, "rb") as handle:
                    lines = handle.read().split(b"\n")
                keep = max((error.line or 1) - 1, 1)
                with open(error.path, "wb") as handle:
                    handle.write(b"".join(line + b"\n" for line in lines[:keep]))
            raise

    patch.setattr(JsonlBackend, "load", load)


def _closers_in_append_order(patch: pytest.MonkeyPatch) -> None:
    """Patches ``repair.CLOSER_KEY_ORDER`` by name: closers written ``sourceEventSeqs`` first."""
    patch.setattr(repair_module, "CLOSER_KEY_ORDER", EVENT_KEY_ORDER)


def _pairing_by_count(patch: pytest.MonkeyPatch) -> None:
    """Public API only: the reference's rule -- results counted against calls, ids ignored."""

    def tool_pairing_balanced(nodes: Iterable[Any], events: Any, before: Any = None) -> bool:
        target = before if type(before) is int else None
        open_calls = 0
        for node in nodes:
            if node.seq == target:
                break
            event = events[node.seq]
            if event.type == "assistant/message":
                open_calls += sum(1 for block in event.data["content"] if block.get("type") == "tool-call")
            elif event.type == "tool/result":
                if not open_calls:
                    raise ToolPairingError(Code.TOOL_PAIRING_CORRUPT, f"result at {node.seq}", seq=node.seq)
                open_calls -= 1
        return open_calls == 0

    patch.setattr(tool_pairing_module, "tool_pairing_balanced", tool_pairing_balanced)


def _lax_delta_counts(patch: pytest.MonkeyPatch) -> None:
    """Patches ``request_header._system_delta`` by name: ``true`` is 1, a negative count is 0."""
    original = request_header_module._system_delta

    def system_delta(raw: Any, seq: int | None) -> Any:
        if isinstance(raw, Mapping):
            raw = dict(raw)
            for key in ("keepStart", "keepEnd"):
                value = raw.get(key)
                if isinstance(value, int):
                    raw[key] = max(int(value), 0)
        return original(raw, seq)

    patch.setattr(request_header_module, "_system_delta", system_delta)


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
    Mutant(
        "provenance-endpoints-only",
        "the provenance check looks only at the ends of the shadowed range",
        _provenance_endpoints_only,
    ),
    Mutant("position-by-identity", "position() compares seqs with is, not ==", _position_by_identity),
    Mutant("shadowed-takes-bools", "shadowed(0, True) answers a span", _shadowed_takes_bools),
    Mutant(
        "python-number-spelling",
        "a JSONL line spells numbers as Python does (1e-07, 1e-06)",
        _python_number_spelling,
        "jsonl",
    ),
    Mutant(
        "index-keys-in-string-order",
        'a SQLite column puts array-index keys in string order ("10" before "2")',
        _index_keys_in_string_order,
        "sqlite",
    ),
    Mutant("escaped-non-ascii", "a JSONL line escapes non-ASCII characters", _escaped_non_ascii, "jsonl"),
    Mutant(
        "refused-batch-keeps-a-prefix",
        "a refused PostgreSQL batch leaves its valid prefix stored",
        _refused_batch_keeps_a_prefix,
        "postgres",
    ),
    Mutant(
        "refused-load-cuts-the-file",
        "a JSONL load refused for a bad line cuts the log there",
        _refused_load_cuts_the_file,
        "jsonl",
    ),
    Mutant(
        "closers-in-append-order",
        "crash closers put sourceEventSeqs before surfaceOp",
        _closers_in_append_order,
        "repair",
    ),
    Mutant("pairing-by-count", "tool results pair with calls by count, not id", _pairing_by_count, "pairing"),
    Mutant(
        "lax-delta-counts",
        "a header delta's keepStart/keepEnd may be true or negative",
        _lax_delta_counts,
        "headers",
    ),
)

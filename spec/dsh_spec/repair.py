"""Crash repair: the synthetic events that close the turn a crash left open.

A log whose last turn has no ``turn/end`` (the process died mid-turn) is
closed on load by appending, in this order:

1. one error ``tool/result`` for every tool call of the open step still
   waiting for its result, in the order the calls were made;
2. a ``step/end`` if a step is open;
3. a ``turn/end`` with reason ``{"kind": "interrupted"}``.

Seqs continue the log; every closer reuses the last event's ``time``, so the
repair is deterministic. A balanced or empty log needs no closers.

What is "open" follows the reference exactly, JavaScript values included: a
turn is open from ``turn/start`` until ``turn/end`` unless the ``turn/start``
carried ``turn: null``; a step is open from ``step/start`` until ``step/end``
or the next turn boundary unless it carried ``step: null``. A field the event
lacks (JavaScript ``undefined``) is left out of the closer's data. A call is
registered by a ``tool-call`` block of an ``assistant/message`` and answered by
a ``tool/result`` with the same ``callId`` (calls pair by id); a ``tool/call``
event for a registered call is named as the result's provenance. Registering
an id again keeps its place and forgets the provenance. ``step/end`` and the
turn boundaries forget every pending call: a call left unanswered in a step
that closed stays unanswered (its tool pipeline failed before a result).

Where we differ from the reference (``docs/deviations.md``): a ``tool-call``
block whose ``id`` is not a string registers nothing (no ``tool/result`` could
answer it, and a closer for it would not be admissible), and an event whose
``data`` is not an object has none of the fields read here (the reference
crashes on ``data: null``).

Key order. Closers are written ``type, seq, time, data, surfaceOp,
sourceEventSeqs`` -- not the order ``append`` uses -- and their ``data`` keys
in the order shown by :func:`interrupted_turn_closers`. Persistence writes them
in that order so that our files are byte-for-byte the reference's
(:func:`closer_json`).
"""

from __future__ import annotations

from dataclasses import dataclass

from dsh_spec.events import APPEND, Event, event_json
from dsh_spec.json_value import Json

#: Top-level key order of a closer record (``surfaceOp`` before ``sourceEventSeqs``).
CLOSER_KEYS = ("type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs")

#: The text of a synthetic tool result.
INTERRUPTED_RESULT_TEXT = "Tool call interrupted by a crash; no result was recorded."


class _Undefined:
    """A field that is not there (JavaScript ``undefined``); JSON ``null`` is ``None``."""

    def __repr__(self) -> str:
        return "UNDEFINED"


UNDEFINED = _Undefined()


@dataclass(frozen=True)
class _Pending:
    """A tool call waiting for its result: the step it was made in, the seq of its ``tool/call``."""

    step: Json | _Undefined
    call_seq: int | None


def interrupted_turn_closers(events: tuple[Event, ...]) -> tuple[Event, ...]:
    """The events that close the log's open turn; ``()`` when no turn is open."""
    open_turn: Json | _Undefined = None  # None: no turn open (JavaScript null)
    open_step: Json | _Undefined = None
    pending: dict[str, _Pending] = {}
    for event in events:
        if event.type == "turn/start":
            open_turn, open_step = field(event.data, "turn"), None
            pending = {}
        elif event.type == "turn/end":
            open_turn, open_step = None, None
            pending = {}
        elif event.type == "step/start":
            open_step = field(event.data, "step")
        elif event.type == "step/end":
            open_step = None
            pending = {}
        elif event.type == "assistant/message":
            for call_id in tool_call_ids(event.data):
                pending[call_id] = _Pending(field(event.data, "step"), None)
        elif event.type == "tool/call":
            called = field(event.data, "callId")
            if isinstance(called, str) and called in pending:
                pending[called] = _Pending(pending[called].step, event.seq)
        elif event.type == "tool/result":
            answered = field(event.data, "callId")
            if isinstance(answered, str):
                pending.pop(answered, None)
    if open_turn is None or not events:
        return ()

    seq, time = events[-1].seq + 1, events[-1].time
    closers: list[Event] = []
    for call_id, call in pending.items():
        data = defined(
            ("turn", open_turn),
            ("step", call.step),
            ("callId", call_id),
            ("content", [{"type": "text", "text": INTERRUPTED_RESULT_TEXT}]),
            ("isError", True),
            ("error", {"name": "InterruptedError", "code": "interrupted"}),
        )
        provenance = None if call.call_seq is None else (call.call_seq,)
        closers.append(Event("tool/result", seq, time, data, provenance, APPEND))
        seq += 1
    if open_step is not None:
        closers.append(Event("step/end", seq, time, defined(("turn", open_turn), ("step", open_step))))
        seq += 1
    reason: Json = {"kind": "interrupted"}
    closers.append(Event("turn/end", seq, time, defined(("turn", open_turn), ("reason", reason))))
    return tuple(closers)


def repair(events: tuple[Event, ...]) -> tuple[Event, ...]:
    """The log with its open turn closed: ``events`` followed by their closers."""
    return events + interrupted_turn_closers(events)


def closer_json(event: Event) -> dict[str, Json]:
    """A closer as a JSON record, top-level keys in :data:`CLOSER_KEYS` order."""
    record = event_json(event)
    return {key: record[key] for key in CLOSER_KEYS if key in record}


def field(data: Json, key: str) -> Json | _Undefined:
    """``data[key]`` as JavaScript reads it: undefined unless ``data`` is an object holding ``key``."""
    if isinstance(data, dict) and key in data:
        return data[key]
    return UNDEFINED


def tool_call_ids(data: Json) -> list[str]:
    """The ids of the ``tool-call`` blocks of an assistant message, in order (string ids only)."""
    content = field(data, "content")
    ids: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool-call":
                call_id = block.get("id")
                if isinstance(call_id, str):
                    ids.append(call_id)
    return ids


def defined(*pairs: tuple[str, Json | _Undefined]) -> dict[str, Json]:
    """An object of the given entries, in order, leaving out the undefined ones."""
    return {key: value for key, value in pairs if not isinstance(value, _Undefined)}

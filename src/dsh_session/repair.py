"""Crash repair: the events that close a turn a crash left open.

When a session's process dies mid-turn, its stored log ends inside a turn.
Loading it appends synthetic *closers*, exactly as the TypeScript reference
does: an error ``tool/result`` for each call of the open step that has no
result yet (paired by ``callId``), then ``step/end`` if a step is open, then
``turn/end`` with reason ``interrupted``. Seqs continue the log and every
closer carries the last event's ``time``. See ``dsh_spec.repair`` for the rules
and ``docs/deviations.md`` (P1) for where we differ from the reference.

Closers are written with the reference's key order, ``type, seq, time, data,
surfaceOp, sourceEventSeqs`` (:data:`CLOSER_KEY_ORDER`), which differs from the
order ``append`` uses; each closer carries it as its ``key_order`` so that a
backend writes the same bytes as the reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from dsh_session.event import APPEND, Event
from dsh_session.json_value import freeze

__all__ = ["CLOSER_KEY_ORDER", "INTERRUPTED_RESULT_TEXT", "interrupted_turn_closers"]

#: Top-level key order of a synthetic closer.
CLOSER_KEY_ORDER: Final = ("type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs")

#: The text of a synthetic tool result.
INTERRUPTED_RESULT_TEXT: Final = "Tool call interrupted by a crash; no result was recorded."

#: A field the event does not have (JavaScript ``undefined``); ``None`` is JSON ``null``.
_ABSENT: Any = object()


def _get(data: Any, key: str) -> Any:
    if isinstance(data, dict):
        return data.get(key, _ABSENT)
    return _ABSENT


class _OpenTurn:
    """What the walk knows about the innermost open turn."""

    __slots__ = ("calls", "step", "turn")

    def __init__(self) -> None:
        self.turn: Any = None  # None: no open turn
        self.step: Any = None  # None: no open step
        # callId -> [step of the call, seq of its tool/call or None]; dicts keep insertion order.
        self.calls: dict[str, list[Any]] = {}

    def see(self, event: Event) -> None:
        kind = event.type
        if kind == "assistant/message":
            content = _get(event.data, "content")
            if isinstance(content, list):
                step = _get(event.data, "step")
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "tool-call":
                        call_id = block.get("id")
                        if type(call_id) is str:
                            self.calls[call_id] = [step, None]
        elif kind == "tool/result":
            call_id = _get(event.data, "callId")
            if type(call_id) is str:
                self.calls.pop(call_id, None)
        elif kind == "tool/call":
            call_id = _get(event.data, "callId")
            if type(call_id) is str:
                call = self.calls.get(call_id)
                if call is not None:
                    call[1] = event.seq
        elif kind == "turn/start":
            self.turn = _get(event.data, "turn")
            self.step = None
            self.calls = {}
        elif kind == "step/start":
            self.step = _get(event.data, "step")
        elif kind == "step/end":
            self.step = None
            self.calls = {}
        elif kind == "turn/end":
            self.turn = None
            self.step = None
            self.calls = {}


def _present(**fields: Any) -> Any:
    """The fields that are present, frozen (keyword order is kept)."""
    return freeze({key: value for key, value in fields.items() if value is not _ABSENT})


def interrupted_turn_closers(events: Sequence[Event]) -> tuple[Event, ...]:
    """The closers the log's open turn needs, in order; ``()`` for a balanced or empty log.

    ``events`` is an admitted log (seq equals index). The result is pure: it
    depends on ``events`` only and appends nothing.
    """
    state = _OpenTurn()
    start = len(events)
    while start and events[start - 1].type != "turn/end":
        start -= 1  # a turn/end closes everything before it: walk only what follows the last
    for index in range(start, len(events)):
        state.see(events[index])
    if state.turn is None or not events:
        return ()
    last = events[-1]
    seq, time, turn = last.seq + 1, last.time, state.turn
    closers: list[Event] = []
    for call_id, (step, call_seq) in state.calls.items():
        data = _present(
            turn=turn,
            step=step,
            callId=call_id,
            content=[{"type": "text", "text": INTERRUPTED_RESULT_TEXT}],
            isError=True,
            error={"name": "InterruptedError", "code": "interrupted"},
        )
        refs = None if call_seq is None else (call_seq,)
        closers.append(Event("tool/result", seq, time, data, refs, APPEND, CLOSER_KEY_ORDER))
        seq += 1
    if state.step is not None:
        closers.append(Event("step/end", seq, time, _present(turn=turn, step=state.step)))
        seq += 1
    closers.append(Event("turn/end", seq, time, _present(turn=turn, reason={"kind": "interrupted"})))
    return tuple(closers)

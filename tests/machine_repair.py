"""Crash repair, implementation against spec: the closers of every log a crash could leave.

The machine grows a log of turns, steps, assistant messages with tool-call
blocks, tool calls and results (answering a call, answering none, answering
twice), with the fields repair reads given every value JavaScript could see --
numbers, ``null``, a string, left out (``undefined``), or ``data`` that is not
an object at all. After every step a crash may strike, so the invariant asks
both sides for the closers of the log as it stands and demands the same
events -- values, top-level key order (``type, seq, time, data, surfaceOp,
sourceEventSeqs``) and the key order of their ``data`` -- and that the log
with its closers seeds a session on both sides (a repair must be admissible).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import dsh_spec
from dsh_session import InvalidEventError, Session, interrupted_turn_closers
from dsh_spec import Rejection
from tests.machine_support import Disagreement, Twin, require, same_json

#: What a turn or step field may hold: numbers, JSON null, a string -- or ``OMIT`` (left out).
OMIT: Any = object()
NUMBERS = st.sampled_from((1, 2, 3, 0, 2**53, 1.5, -1, None, "7", OMIT, True))
CALL_IDS = st.sampled_from(("c1", "c2", "c3", "c1"))
ODD_IDS = st.sampled_from((5, None, True, ["c1"]))
#: Types repair does not read, one in every gap between the ones it does when sorted
#: (``assistant/message``, ``step/end``, ``step/start``, ``tool/call``, ``tool/result``,
#: ``turn/end``, ``turn/start``), so that a test of the type turned into ``<=`` or ``>=``
#: takes one of them for a type it reads.
OTHER_TYPES = st.sampled_from(
    (
        "a/first",
        "assistant/chunk",
        "step/note",
        "step/zz",
        "tool/progress",
        "tool/zz",
        "turn/note",
        "turn/zz",
        "zz/last",
    )
)


def fields(**values: Any) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not OMIT}


class RepairMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.twin = Twin("repair")
        self.turn: Any = 1
        self.step: Any = 1

    @initialize(turn=NUMBERS, stray_end=st.booleans())
    def a_turn_is_open(self, turn: Any, stray_end: bool) -> None:
        """A turn is open; the log may begin with a ``turn/end`` that closes nothing (a walk
        that looks for the last ``turn/end`` must not take it for that one)."""
        if stray_end:
            self.turn_end(True)
        self.turn_start(turn, True)

    @invariant()
    def the_closers_agree(self) -> None:
        events = self.twin.session.events
        closers = interrupted_turn_closers(events)
        expected = dsh_spec.interrupted_turn_closers(self.twin.log)
        require(
            len(closers) == len(expected), lambda: f"{len(closers)} closers, the spec has {len(expected)}"
        )
        for closer, spec in zip(closers, expected, strict=True):
            same_json(closer.to_json(), dsh_spec.closer_json(spec), f"the closer at seq {spec.seq}")
        if closers:
            repaired = [e.to_json() for e in events] + [c.to_json() for c in closers]
            require(
                not isinstance(dsh_spec.check_seed(repaired), Rejection), "the spec refuses the repaired log"
            )
            try:
                Session("repaired", repaired)
            except InvalidEventError as error:
                raise Disagreement(f"the implementation refuses the repaired log: {error}") from error

    @rule(turn=NUMBERS, data_is_object=st.booleans())
    def turn_start(self, turn: Any, data_is_object: bool) -> None:
        self.turn = turn
        data: Any = fields(turn=turn, trigger={"kind": "message"}) if data_is_object else None
        self.twin.offer("turn/start", data)

    @rule(step=NUMBERS, data_is_object=st.booleans())
    def step_start(self, step: Any, data_is_object: bool) -> None:
        self.step = step
        self.twin.offer("step/start", fields(turn=self.turn, step=step) if data_is_object else [step])

    @rule(
        calls=st.lists(st.one_of(CALL_IDS, CALL_IDS, ODD_IDS), max_size=3),
        with_step=st.booleans(),
        decoys=st.lists(CALL_IDS, max_size=2),
    )
    def assistant_calls(self, calls: list[Any], with_step: bool, decoys: list[str] | None = None) -> None:
        """A reply with tool-call blocks, and maybe ``decoys``: blocks of other types that carry
        a string ``id`` too (only a ``tool-call`` block makes a call)."""
        content: list[Any] = [{"type": "text", "text": "thinking"}]
        content += [{"type": "tool-call", "id": call, "name": "t", "arguments": "{}"} for call in calls]
        for index, decoy in enumerate(decoys or ()):
            kind = "text" if index % 2 else "tool-result"
            content.insert(index, {"type": kind, "text": "a", "id": decoy})
        data = fields(turn=self.turn, step=self.step if with_step else OMIT, content=content)
        self.twin.offer("assistant/message", data, "append")

    @rule(calls=st.lists(CALL_IDS, min_size=1, max_size=3), started=st.lists(st.booleans(), min_size=3))
    def calls_in_flight(self, calls: list[str], started: list[bool]) -> None:
        self._calls_in_flight(calls, started)

    @rule(calls=st.lists(CALL_IDS, min_size=1, max_size=3), started=st.lists(st.booleans(), min_size=3))
    def more_calls_in_flight(self, calls: list[str], started: list[bool]) -> None:
        self._calls_in_flight(calls, started)

    def _calls_in_flight(self, calls: list[str], started: list[bool]) -> None:
        """A reply with calls, and the ``tool/call`` of some of them: where a crash mid-tool strikes
        (their closers name the ``tool/call`` as provenance)."""
        self.assistant_calls(calls, with_step=True)
        for call, made in zip(calls, started, strict=False):
            if made:
                self.tool_call(call)

    @rule(call=st.one_of(CALL_IDS, ODD_IDS))
    def tool_call(self, call: Any) -> None:
        self.twin.offer("tool/call", fields(turn=self.turn, step=self.step, callId=call, name="t"))

    @rule(call=CALL_IDS, provenance=st.booleans())
    def tool_result(self, call: str, provenance: bool) -> None:
        data = {"turn": 0, "step": 0, "callId": call, "content": [], "isError": False}
        refs = [len(self.twin.log) - 1] if provenance and self.twin.log else None
        self.twin.offer("tool/result", data, "append", refs)

    @rule(data_is_object=st.booleans())
    def step_end(self, data_is_object: bool) -> None:
        self.twin.offer("step/end", fields(turn=self.turn, step=self.step) if data_is_object else "end")

    @rule(data_is_object=st.booleans())
    def turn_end(self, data_is_object: bool) -> None:
        self.twin.offer(
            "turn/end", fields(turn=self.turn, reason={"kind": "completed"}) if data_is_object else 0
        )

    @rule(kind=OTHER_TYPES, call=CALL_IDS, data_is_object=st.booleans())
    def look_alike(self, kind: str, call: str, data_is_object: bool) -> None:
        """An event of a type repair does not read, carrying every field it reads (a turn, a
        step, a call id, a tool-call block): it must change no closer."""
        block = {"type": "tool-call", "id": call, "name": "t", "arguments": "{}"}
        data = {"turn": 9, "step": 9, "callId": call, "content": [block]}
        self.twin.offer(kind, data if data_is_object else [data])

    @rule()
    def something_else(self) -> None:
        self.twin.offer("user/message", {"content": [], "source": {"kind": "user"}}, "append")
        self.twin.offer("assistant/chunk", {"turn": self.turn})

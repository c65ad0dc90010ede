"""Crash repair: the closers of an open turn (the reference's repair cases, core.md §11 70-80,
and the edges where we had to decide, docs/deviations.md P1).

Every case checks the implementation against a hand-written expectation and
against the spec.
"""

from __future__ import annotations

from typing import Any

import dsh_spec
import dsh_spec.repair
from dsh_session import CLOSER_KEY_ORDER, Event, Replace, Session, interrupted_turn_closers, thaw
from dsh_session.js_json import dumps
from tests.logs import LogBuilder

TEXT = "Tool call interrupted by a crash; no result was recorded."
ERROR = {"name": "InterruptedError", "code": "interrupted"}


def to_spec(event: Event) -> dsh_spec.Event:
    op: Any = event.surface_op
    if isinstance(op, Replace):
        op = dsh_spec.Replace(op.start, op.end)
    return dsh_spec.Event(event.type, event.seq, event.time, thaw(event.data), event.source_event_seqs, op)


def closers(events: list[Event]) -> list[dict[str, Any]]:
    """The implementation's closers as JSON records, after checking the spec says the same, byte for byte."""
    mine = interrupted_turn_closers(events)
    spec = dsh_spec.interrupted_turn_closers(tuple(to_spec(event) for event in events))
    assert [dumps(event.to_json()) for event in mine] == [dumps(dsh_spec.closer_json(e)) for e in spec]
    return [event.to_json() for event in mine]


def kinds(records: list[dict[str, Any]]) -> list[str]:
    return [record["type"] for record in records]


def seqs(records: list[dict[str, Any]]) -> list[int]:
    return [record["seq"] for record in records]


# -- the reference's cases ------------------------------------------------------------------


def test_a_balanced_log_needs_nothing() -> None:
    log = LogBuilder()
    log.one_turn(1)
    log.one_turn(2)
    assert closers(log.events) == []


def test_an_empty_log_needs_nothing() -> None:
    assert closers([]) == []


def test_an_open_turn_without_a_step_gets_an_interrupted_turn_end() -> None:
    log = LogBuilder()
    log.turn_start(1)
    assert closers(log.events) == [
        {"type": "turn/end", "seq": 1, "time": 1, "data": {"turn": 1, "reason": {"kind": "interrupted"}}}
    ]


def test_an_open_step_is_closed_before_the_turn() -> None:
    log = LogBuilder()
    log.turn_start(1)
    log.step_start(1, 1)
    out = closers(log.events)
    assert kinds(out) == ["step/end", "turn/end"]
    assert seqs(out) == [2, 3]
    assert out[0]["data"] == {"turn": 1, "step": 1}


def test_an_unanswered_tool_call_gets_an_error_result() -> None:
    log = LogBuilder()
    log.turn_start(2)
    log.step_start(2, 1)
    log.assistant(2, 1, calls=["call-1"])
    out = closers(log.events)
    assert kinds(out) == ["tool/result", "step/end", "turn/end"]
    assert seqs(out) == [3, 4, 5]
    assert out[0] == {
        "type": "tool/result",
        "seq": 3,
        "time": 3,
        "data": {
            "turn": 2,
            "step": 1,
            "callId": "call-1",
            "content": [{"type": "text", "text": TEXT}],
            "isError": True,
            "error": ERROR,
        },
        "surfaceOp": "append",
    }


def test_an_answered_tool_call_gets_no_result() -> None:
    log = LogBuilder()
    log.turn_start(1)
    log.step_start()
    log.assistant(calls=["call-1"])
    log.tool_result("call-1")
    assert kinds(closers(log.events)) == ["step/end", "turn/end"]


def test_a_call_of_a_step_that_already_closed_gets_no_result() -> None:
    log = LogBuilder()
    log.turn_start(1)
    log.step_start()
    log.assistant(calls=["call-1"])
    log.step_end()
    out = closers(log.events)
    assert kinds(out) == ["turn/end"]
    assert seqs(out) == [4]


def test_only_the_open_turn_is_repaired() -> None:
    log = LogBuilder()
    log.turn_start(1)
    log.step_start(1)
    log.assistant(1, calls=["old-call"])
    log.turn_end(1, "error")
    log.turn_start(2)
    log.step_start(2)
    log.assistant(2, calls=["new-call"])
    out = closers(log.events)
    assert [record["data"].get("callId") for record in out] == ["new-call", None, None]
    assert out[0]["data"]["turn"] == 2


def test_each_unanswered_call_gets_a_result_in_call_order() -> None:
    log = LogBuilder()
    log.turn_start(1)
    log.step_start()
    log.assistant(calls=["call-a", "call-b", "call-c"])
    log.tool_result("call-b")
    out = closers(log.events)
    assert [record["data"].get("callId") for record in out] == ["call-a", "call-c", None, None]
    assert seqs(out) == [4, 5, 6, 7]


def test_a_logged_tool_call_becomes_the_results_provenance_in_closer_key_order() -> None:
    log = LogBuilder()
    log.turn_start(1)
    log.step_start()
    log.assistant(calls=["call-1"])
    log.tool_call("call-1")
    out = closers(log.events)
    assert out[0]["surfaceOp"] == "append"
    assert out[0]["sourceEventSeqs"] == [3]
    assert list(out[0]) == ["type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs"]
    line = dumps(interrupted_turn_closers(log.events)[0].to_json())
    assert line == (
        '{"type":"tool/result","seq":4,"time":4,"data":{"turn":1,"step":1,"callId":"call-1",'
        '"content":[{"type":"text","text":"Tool call interrupted by a crash; no result was recorded."}],'
        '"isError":true,"error":{"name":"InterruptedError","code":"interrupted"}},'
        '"surfaceOp":"append","sourceEventSeqs":[3]}'
    )


def test_a_tool_call_without_an_assistant_block_is_ignored() -> None:
    log = LogBuilder()
    log.turn_start(1)
    log.step_start()
    log.tool_call("stray")
    assert kinds(closers(log.events)) == ["step/end", "turn/end"]


# -- timing, key order and the exact JavaScript semantics ----------------------------------


def test_closers_reuse_the_last_time_and_continue_the_seqs() -> None:
    log = LogBuilder(start_time=1000)
    log.turn_start(1)
    log.step_start()
    log.assistant(calls=["a", "b"])
    out = closers(log.events)
    assert [record["time"] for record in out] == [1002] * 4
    assert seqs(out) == [3, 4, 5, 6]
    assert [event.key_order for event in interrupted_turn_closers(log.events)] == [
        CLOSER_KEY_ORDER,
        CLOSER_KEY_ORDER,
        None,
        None,
    ]


def test_a_turn_start_without_turn_leaves_turn_out_of_the_closers() -> None:
    log = LogBuilder()
    log.add("turn/start", {"trigger": {"kind": "message"}})
    log.add("step/start", {"step": 1})
    log.assistant(calls=["c"])
    out = closers(log.events)
    assert out[0]["data"] == {
        "step": 1,
        "callId": "c",
        "content": [{"type": "text", "text": TEXT}],
        "isError": True,
        "error": ERROR,
    }
    assert out[1]["data"] == {"step": 1}
    assert out[2]["data"] == {"reason": {"kind": "interrupted"}}


def test_turn_null_counts_as_no_open_turn_and_step_null_as_no_open_step() -> None:
    log = LogBuilder()
    log.add("turn/start", {"turn": None})
    assert closers(log.events) == []
    log = LogBuilder()
    log.turn_start(1)
    log.add("step/start", {"turn": 1, "step": None})
    assert kinds(closers(log.events)) == ["turn/end"]


def test_a_step_start_without_step_still_opens_a_step() -> None:
    log = LogBuilder()
    log.turn_start(3)
    log.add("step/start", {"turn": 3})
    out = closers(log.events)
    assert out[0] == {"type": "step/end", "seq": 2, "time": 2, "data": {"turn": 3}}


def test_data_that_is_not_an_object_has_no_fields() -> None:
    log = LogBuilder()
    log.add("turn/start", None)
    log.add("step/start", [1, 2])
    out = closers(log.events)
    assert out == [
        {"type": "step/end", "seq": 2, "time": 2, "data": {}},
        {"type": "turn/end", "seq": 3, "time": 2, "data": {"reason": {"kind": "interrupted"}}},
    ]


def test_a_tool_call_block_without_a_string_id_registers_nothing() -> None:
    log = LogBuilder()
    log.turn_start(1)
    log.step_start()
    log.add(
        "assistant/message",
        {
            "turn": 1,
            "step": 1,
            "content": [
                {"type": "tool-call", "id": 7},
                {"type": "tool-call"},
                {"type": "tool-call", "id": "ok"},
            ],
        },
        surface_op="append",
    )
    out = closers(log.events)
    assert [record["data"].get("callId") for record in out] == ["ok", None, None]


def test_a_call_id_registered_again_keeps_its_place_and_loses_its_tool_call() -> None:
    log = LogBuilder()
    log.turn_start(1)
    log.step_start()
    log.assistant(calls=["a", "b"])
    log.tool_call("a")
    log.assistant(calls=["a"])
    out = closers(log.events)
    assert [record["data"].get("callId") for record in out] == ["a", "b", None, None]
    assert "sourceEventSeqs" not in out[0]


def test_a_tool_call_logged_before_its_assistant_block_is_not_linked() -> None:
    log = LogBuilder()
    log.turn_start(1)
    log.step_start()
    log.tool_call("a")
    log.assistant(calls=["a"])
    out = closers(log.events)
    assert out[0]["data"]["callId"] == "a"
    assert "sourceEventSeqs" not in out[0]


def test_the_last_tool_call_for_an_id_is_the_provenance() -> None:
    log = LogBuilder()
    log.turn_start(1)
    log.step_start()
    log.assistant(calls=["a"])
    log.tool_call("a")
    log.tool_call("a")
    assert closers(log.events)[0]["sourceEventSeqs"] == [4]


def test_events_after_the_last_turn_need_nothing() -> None:
    log = LogBuilder()
    log.one_turn(1)
    log.user("between turns")
    log.add("todo/write", {"todos": []})
    assert closers(log.events) == []


def test_a_result_for_an_unknown_call_changes_nothing() -> None:
    log = LogBuilder()
    log.turn_start(1)
    log.step_start()
    log.assistant(calls=["a"])
    log.tool_result("zzz")
    assert [record["data"].get("callId") for record in closers(log.events)] == ["a", None, None]


def test_the_repaired_log_seeds_a_session() -> None:
    log = LogBuilder()
    log.turn_start(1)
    log.user()
    log.step_start()
    log.assistant(calls=["a", "b"])
    log.tool_call("b")
    repaired = log.events + list(interrupted_turn_closers(log.events))
    session = Session("s", seed=repaired)
    assert [message["role"] for message in session.derive_messages()] == ["user", "assistant", "user", "user"]
    assert interrupted_turn_closers(list(session.events)) == ()


def test_spec_repair_is_the_log_followed_by_its_closers() -> None:
    log = LogBuilder()
    log.turn_start(1)
    events = tuple(to_spec(event) for event in log.events)
    assert dsh_spec.repair.repair(events) == events + dsh_spec.interrupted_turn_closers(events)
    assert dsh_spec.repair.repair(events)[-1].type == "turn/end"

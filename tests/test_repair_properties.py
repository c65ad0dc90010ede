"""Crash repair on generated logs: the implementation equals the spec, byte for byte, and the
repaired log is admissible and balanced."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import dsh_spec
from dsh_session import Session, interrupted_turn_closers
from dsh_session.js_json import dumps
from tests.logs import LogBuilder
from tests.test_repair import to_spec

ABSENT = object()
value = st.one_of(st.integers(0, 3), st.none(), st.just(ABSENT))
call_id = st.sampled_from(["a", "b", "c", "d"])
block_id = st.one_of(call_id, call_id, call_id, st.just(ABSENT), st.integers(0, 2))

op = st.one_of(
    st.tuples(st.just("turn/start"), value),
    st.tuples(st.just("turn/end"), value),
    st.tuples(st.just("step/start"), value),
    st.tuples(st.just("step/end"), value),
    st.tuples(st.just("assistant"), value, st.lists(block_id, max_size=3)),
    st.tuples(st.just("tool/call"), call_id),
    st.tuples(st.just("tool/call"), call_id),
    st.tuples(st.just("tool/result"), call_id),
    st.tuples(st.just("user"), st.none()),
    st.tuples(st.just("chunk"), st.none()),
    st.tuples(st.just("odd"), st.sampled_from([None, 5, [1], "x", True])),
)
open_value = st.one_of(st.integers(0, 3), value)
near_id = st.sampled_from(["a", "b"])
assistant = st.tuples(st.just("assistant"), open_value, st.lists(near_id | block_id, min_size=1, max_size=3))
#: What happens inside the turn the crash interrupts: mostly calls, their tool/call events and results.
open_turn_op = st.one_of(
    assistant,
    assistant,
    st.tuples(st.just("tool/call"), near_id),
    st.tuples(st.just("tool/call"), call_id),
    st.tuples(st.just("tool/result"), near_id | call_id),
    st.tuples(st.just("step/start"), value),
    st.tuples(st.just("chunk"), st.none()),
)
logs = st.one_of(
    st.lists(op, max_size=14),
    st.tuples(st.lists(op, max_size=8), open_value, st.lists(open_turn_op, max_size=10)).map(
        lambda parts: [*parts[0], ("turn/start", parts[1]), ("step/start", 1), *parts[2]]
    ),
)


def fields(**pairs: Any) -> dict[str, Any]:
    return {key: item for key, item in pairs.items() if item is not ABSENT}


def build(ops: list[tuple[Any, ...]], start_time: int) -> LogBuilder:
    log = LogBuilder(start_time=start_time)
    for kind, arg, *rest in ops:
        if kind == "turn/start":
            log.add(kind, fields(turn=arg, trigger={"kind": "message"}))
        elif kind == "turn/end":
            log.add(kind, fields(turn=arg, reason={"kind": "completed"}))
        elif kind in ("step/start", "step/end"):
            log.add(kind, fields(turn=1, step=arg))
        elif kind == "assistant":
            blocks = [fields(type="tool-call", id=ident, name="bash") for ident in rest[0]]
            log.add("assistant/message", fields(step=arg, content=blocks), surface_op="append")
        elif kind == "tool/call":
            log.tool_call(arg)
        elif kind == "tool/result":
            log.tool_result(arg)
        elif kind == "user":
            log.user()
        elif kind == "chunk":
            log.chunk()
        else:
            log.add("turn/start" if arg is True else "step/start", arg)
    return log


@settings(max_examples=300, deadline=None)
@given(logs, st.integers(0, 2**40))
def test_closers_equal_the_spec_and_balance_the_log(ops: list[tuple[Any, ...]], start_time: int) -> None:
    events = build(ops, start_time).events
    closers = interrupted_turn_closers(events)
    spec = dsh_spec.interrupted_turn_closers(tuple(to_spec(event) for event in events))
    assert [dumps(c.to_json()) for c in closers] == [dumps(dsh_spec.closer_json(c)) for c in spec]

    repaired = events + list(closers)
    session = Session("p", seed=repaired)  # admissible: the seed's rules accept it
    assert len(session.events) == len(repaired)
    assert interrupted_turn_closers(repaired) == ()  # balanced: nothing left open
    if closers:
        assert [c.seq for c in closers] == list(range(len(events), len(repaired)))
        assert {c.time for c in closers} == {events[-1].time}
        assert closers[-1].type == "turn/end"
        assert closers[-1].data["reason"] == {"kind": "interrupted"}
        last_turn = max(e.seq for e in events if e.type == "turn/start")
        called = {
            block.get("id")
            for e in events[last_turn:]
            if e.type == "assistant/message"
            for block in e.data["content"]
        }
        results = [c for c in closers if c.type == "tool/result"]
        assert all(c.data["callId"] in called for c in results)
        assert len({c.data["callId"] for c in results}) == len(results)

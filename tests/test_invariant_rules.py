"""Unit tests of the log invariants, rule by rule, in the spec and the implementation.

Every rule has a case that breaks it and a near miss that does not; the
checks run ``check_log`` on both sides and insist they agree (codes, seqs,
and for the seq and structural rules the very message).
"""

from __future__ import annotations

from typing import Any

import pytest

import dsh_session
import dsh_spec
from dsh_session import (
    DshSessionError,
    Event,
    InvalidEventError,
    InvariantViolationError,
    Replace,
    Session,
    Violation,
)
from dsh_spec import Code, Rejection
from tests.fixture_notation import expand, expand_log

#: Codes whose messages the spec and the implementation spell the same way.
SAME_MESSAGE = {
    Code.SEQ_NOT_INCREASING,
    Code.SEQ_NOT_CONTIGUOUS,
    Code.MALFORMED_STRUCTURE_FIELD,
    Code.TURN_ALREADY_OPEN,
    Code.TURN_OUT_OF_ORDER,
    Code.TURN_END_MISMATCH,
    Code.TURN_END_STEP_OPEN,
    Code.STEP_TURN_MISMATCH,
    Code.STEP_ALREADY_OPEN,
    Code.STEP_OUT_OF_ORDER,
    Code.STEP_NOT_OPEN,
    Code.TOOL_RESULT_UNPAIRED,
    Code.EVENT_OUTSIDE_TURN,
}


def both(records: list[Any]) -> list[tuple[Code, int | None]]:
    """``check_log`` of the records on both sides, which must agree; as (code, seq) pairs."""
    spec = dsh_spec.check_log(records)
    impl = dsh_session.check_log(records)
    assert [(r.code, r.seq) for r in spec] == [(v.code, v.seq) for v in impl]
    for rejection, violation in zip(spec, impl, strict=True):
        assert isinstance(violation, Violation)
        if violation.code in SAME_MESSAGE:
            assert rejection.message == violation.message
    return [(v.code, v.seq) for v in impl]


def log(*events: list[Any]) -> list[dict[str, Any]]:
    return expand_log(list(events))


# -- R1 and contiguity ------------------------------------------------------------------


def test_seqs_running_from_zero_pass() -> None:
    assert both(log(["TS", 1], ["U", "a"], ["TE", 1])) == []


@pytest.mark.parametrize(
    ("seqs", "expected"),
    [
        ([0, 0], [(Code.SEQ_NOT_INCREASING, 0)]),
        ([0, 1, 1, 2], [(Code.SEQ_NOT_INCREASING, 1)]),
        ([-1, 0], [(Code.SEQ_NOT_INCREASING, -1)]),
        ([1, 2], [(Code.SEQ_NOT_CONTIGUOUS, 1)]),
        ([0, 2, 3], [(Code.SEQ_NOT_CONTIGUOUS, 2)]),
        # a record numbered too high: it, and what follows up to its number
        (
            [0, 1, 5, 3, 4, 6],
            [(Code.SEQ_NOT_CONTIGUOUS, 5), (Code.SEQ_NOT_INCREASING, 3), (Code.SEQ_NOT_INCREASING, 4)],
        ),
        # a swapped pair
        ([0, 2, 1, 3], [(Code.SEQ_NOT_CONTIGUOUS, 2), (Code.SEQ_NOT_INCREASING, 1)]),
    ],
)
def test_seq_order(seqs: list[int], expected: list[tuple[Code, int]]) -> None:
    # log-only events with no turn open: each one that passes the seq rules is EVENT_OUTSIDE_TURN
    records = [expand(seq, ["EV", "todo/write", {"todos": []}]) for seq in seqs]
    found = both(records)
    seq_codes = (Code.SEQ_NOT_INCREASING, Code.SEQ_NOT_CONTIGUOUS)
    assert [v for v in found if v[0] in seq_codes] == expected
    assert {v[0] for v in found if v[0] not in seq_codes} <= {Code.EVENT_OUTSIDE_TURN}
    assert len(found) == len(records)


def test_a_refused_seq_does_not_enter_the_trace() -> None:
    records = log(["TS", 1], ["TE", 1, {"seq": 5}], ["U", "a", {"seq": 6}])
    # the turn/end at seq 5 is a gap, so it never closed the turn: the user message is inside it
    assert both(records) == [(Code.SEQ_NOT_CONTIGUOUS, 5)]


def test_an_unreadable_seq_counts_as_the_next() -> None:
    records = log(["TS", 1], ["U", "a", {"seq": "1"}], ["U", "b"])
    assert both(records) == [(Code.MALFORMED_EVENT, None)]
    records = log(["TS", 1], ["U", "a", {"seq": True}], ["U", "b"], ["U", "c", {"seq": 1.5}], ["U", "d"])
    assert both(records) == [(Code.MALFORMED_EVENT, None), (Code.MALFORMED_EVENT, None)]


# -- record shape -------------------------------------------------------------------------


def test_record_shape() -> None:
    good = expand(0, ["TS", 1])
    missing = {key: value for key, value in expand(1, ["U", "a"]).items() if key != "time"}
    extra = {**expand(1, ["U", "a"]), "extra": 1}
    assert both([good, None, 42, "x", [1]]) == [(Code.MALFORMED_EVENT, None)] * 4
    assert both([good, missing]) == [(Code.MALFORMED_EVENT, 1)]
    assert both([good, extra]) == [(Code.MALFORMED_EVENT, 1)]
    assert both([good, {"seq": 1}]) == [(Code.MALFORMED_EVENT, 1)]
    assert both([good, {"type": "x"}]) == [(Code.MALFORMED_EVENT, None)]


def test_admission_rules_apply_as_in_a_seed() -> None:
    assert both(log(["TS", 1], ["EV", "", {}])) == [(Code.MALFORMED_EVENT, 1)]
    assert both(log(["TS", 1], ["U", "a", {"time": "now"}])) == [(Code.MALFORMED_EVENT, 1)]
    assert both(log(["TS", 1], ["U", "a", {"data": None}])) == [(Code.INVALID_PAYLOAD, 1)]
    assert both(log(["TS", 1], ["U", "a", {"surfaceOp": {"op": "delete", "start": 1, "end": 1}}])) == [
        (Code.MALFORMED_SURFACE_OP, 1)
    ]


# -- provenance names only accepted events ----------------------------------------------------


def test_provenance_may_name_any_accepted_event() -> None:
    records = log(["TS", 1], ["SS", 1, 1], ["CH", 1, 1], ["A", 1, 1, {"sourceEventSeqs": [0, 1, 2]}])
    assert both(records) == []


def test_provenance_naming_a_refused_event_is_unknown() -> None:
    records = log(
        ["TS", 1], ["SS", 1, 2], ["U", "a", {"sourceEventSeqs": [1]}], ["U", "b", {"sourceEventSeqs": [0]}]
    )
    assert both(records) == [(Code.STEP_OUT_OF_ORDER, 1), (Code.PROVENANCE_UNKNOWN_SEQ, 2)]


def test_provenance_order_per_entry() -> None:
    # entries are checked in order: an unknown entry before a future one reports unknown
    refused_first = log(["TS", 1], ["SS", 1, 9], ["U", "a", {"sourceEventSeqs": [1, 7]}])
    assert both(refused_first) == [(Code.STEP_OUT_OF_ORDER, 1), (Code.PROVENANCE_UNKNOWN_SEQ, 2)]
    future_first = log(["TS", 1], ["SS", 1, 9], ["U", "a", {"sourceEventSeqs": [7, 1]}])
    assert both(future_first) == [(Code.STEP_OUT_OF_ORDER, 1), (Code.PROVENANCE_NOT_EARLIER, 2)]


# -- structural fields ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "field"),
    [
        (["EV", "turn/start", {}], "turn"),
        (["EV", "turn/start", None], "turn"),
        (["EV", "turn/start", {"turn": 1.5}], "turn"),
        (["EV", "turn/start", {"turn": False}], "turn"),
        (["EV", "turn/end", {"turn": [1]}], "turn"),
        (["EV", "step/start", {"step": 1}], "turn"),
        (["EV", "step/start", {"turn": 1}], "step"),
        (["EV", "step/end", {"turn": 1, "step": "1"}], "step"),
        (["EV", "assistant/chunk", {"turn": 1, "step": None}], "step"),
        (["A", 1, 1, {"drop": ["data.step"]}], "step"),
        (["EV", "tool/call", {"turn": 1, "step": 1}], "callId"),
        (["EV", "tool/call", {"turn": 1, "step": 1, "callId": 7}], "callId"),
    ],
)
def test_malformed_structure_field(event: list[Any], field: str) -> None:
    records = [expand(0, event)]
    assert both(records) == [(Code.MALFORMED_STRUCTURE_FIELD, 0)]
    assert f"data.{field} " in dsh_session.check_log(records)[0].message


def test_structure_fields_of_other_types_are_not_read() -> None:
    records = log(
        ["TS", 1],
        ["ST", "seven"],
        ["EV", "compact/start", {"turn": None}],
        ["U", "a", {"set": {"turn": "x"}}],
    )
    assert both(records) == []


# -- turns ------------------------------------------------------------------------------------


def test_turns_run_one_two_three() -> None:
    assert both(log(["TS", 1], ["TE", 1], ["TS", 2], ["TE", 2], ["TS", 3])) == []
    assert both(log(["TS", 0])) == [(Code.TURN_OUT_OF_ORDER, 0)]
    assert both(log(["TS", 1], ["TS", 1])) == [(Code.TURN_ALREADY_OPEN, 1)]  # R11 before R12


def test_turn_end() -> None:
    assert both(log(["TS", 1], ["TE", 1], ["TE", 1])) == [(Code.TURN_END_MISMATCH, 2)]
    # R13 before R14
    assert both(log(["TS", 1], ["SS", 1, 1], ["TE", 2])) == [(Code.TURN_END_MISMATCH, 2)]
    assert both(log(["TS", 1], ["SS", 1, 1], ["SE", 1, 1], ["TE", 1])) == []


# -- steps ------------------------------------------------------------------------------------


def test_steps_restart_in_every_turn() -> None:
    records = log(
        ["TS", 1], ["SS", 1, 1], ["SE", 1, 1], ["SS", 1, 2], ["SE", 1, 2], ["TE", 1], ["TS", 2], ["SS", 2, 1]
    )
    assert both(records) == []


def test_step_start_precedence() -> None:
    # R15 before R16 before R17
    assert both(log(["TS", 1], ["SS", 1, 1], ["SS", 2, 5])) == [(Code.STEP_TURN_MISMATCH, 2)]
    assert both(log(["TS", 1], ["SS", 1, 1], ["SS", 1, 5])) == [(Code.STEP_ALREADY_OPEN, 2)]


@pytest.mark.parametrize("tag", ["SE", "CH", "A", "TC", "TR"])
def test_step_scoped_events_name_the_open_step(tag: str) -> None:
    args: list[Any] = [1, 1] if tag in ("SE", "CH", "A") else [1, 1, "c1"]
    opened = [["TS", 1], ["SS", 1, 1]]
    if tag == "TR":
        opened.append(["TC", 1, 1, "c1"])
    assert both(expand_log([*opened, [tag, *args]])) == []
    for wrong in ([2, 1], [1, 2]):
        bad = expand_log([*opened, [tag, *wrong, *args[2:]]])
        assert both(bad) == [(Code.STEP_NOT_OPEN, len(opened))]
    between = expand_log([["TS", 1], ["SS", 1, 1], ["SE", 1, 1], [tag, 1, 1, *args[2:]]])
    assert both(between) == [(Code.STEP_NOT_OPEN, 3)]


# -- tool results -----------------------------------------------------------------------------


def test_tool_result_pairs_by_call_id_within_the_step() -> None:
    records = log(
        ["TS", 1], ["SS", 1, 1], ["TC", 1, 1, "a"], ["TC", 1, 1, "b"], ["TR", 1, 1, "b"], ["TR", 1, 1, "a"]
    )
    assert both(records) == []
    wrong_id = log(["TS", 1], ["SS", 1, 1], ["TC", 1, 1, "a"], ["TR", 1, 1, "b"])
    assert both(wrong_id) == [(Code.TOOL_RESULT_UNPAIRED, 3)]


def test_the_interrupted_exemption_is_exact() -> None:
    def result(**changes: Any) -> list[Any]:
        return ["TRI", 1, 1, "ghost", {"set": changes}] if changes else ["TRI", 1, 1, "ghost"]

    opened: list[list[Any]] = [["TS", 1], ["SS", 1, 1]]
    assert both(expand_log([*opened, result()])) == []
    for changes in (
        {"isError": False},
        {"error": {"code": "Interrupted"}},
        {"error": "interrupted"},
        {"error": {"name": "InterruptedError"}},
    ):
        assert both(expand_log([*opened, result(**changes)])) == [(Code.TOOL_RESULT_UNPAIRED, 2)]


def test_pending_calls_end_with_their_step() -> None:
    records = log(
        ["TS", 1], ["SS", 1, 1], ["TC", 1, 1, "a"], ["SE", 1, 1], ["TE", 1],
        ["TS", 2], ["SS", 2, 1], ["TR", 2, 1, "a"],
    )  # fmt: skip
    assert both(records) == [(Code.TOOL_RESULT_UNPAIRED, 7)]


# -- turn enclosure ---------------------------------------------------------------------------


def test_other_events_need_a_turn_not_a_step() -> None:
    inside = log(
        ["TS", 1], ["EV", "foo/bar", 1], ["SS", 1, 1], ["EV", "hook/x", {}], ["SE", 1, 1], ["U", "a"]
    )
    assert both(inside) == []
    assert both(log(["EV", "request/header-delta", {}])) == [(Code.EVENT_OUTSIDE_TURN, 0)]


# -- check_log over Event objects ----------------------------------------------------------------


def test_check_log_reads_event_objects() -> None:
    events = [
        Event("turn/start", 0, 0, {"turn": 1}),
        Event("user/message", 1, 0, {"content": []}, surface_op="append"),
        Event("user/message", 2, 0, {"content": []}, (1,), Replace(1, 1)),
        Event("turn/end", 3, 0, {"turn": 1}, source_event_seqs=(0,)),
        Event("step/start", 4, 0, {"turn": 1, "step": 1}),  # turn 1 is still open
        Event("turn/start", 5, 0, {"turn": 2}),
    ]
    assert [(v.code, v.seq) for v in dsh_session.check_log(events)] == [
        (Code.PROVENANCE_ON_LOG_ONLY_TYPE, 3),
        (Code.TURN_ALREADY_OPEN, 5),
    ]
    spec_events = [
        dsh_spec.Event("turn/start", 0, 0, {"turn": 1}),
        dsh_spec.Event("user/message", 1, 0, {"content": []}, surface_op="append"),
        dsh_spec.Event("user/message", 2, 0, {"content": []}, (1,), dsh_spec.Replace(1, 1)),
        dsh_spec.Event("turn/end", 3, 0, {"turn": 1}, source_event_seqs=(0,)),
        dsh_spec.Event("step/start", 4, 0, {"turn": 1, "step": 1}),  # turn 1 is still open
        dsh_spec.Event("turn/start", 5, 0, {"turn": 2}),
    ]
    assert [(r.code, r.seq) for r in dsh_spec.check_log(spec_events)] == [
        (Code.PROVENANCE_ON_LOG_ONLY_TYPE, 3),
        (Code.TURN_ALREADY_OPEN, 5),
    ]


def test_the_spec_is_total_over_ill_typed_events() -> None:
    odd = [
        dsh_spec.Event("turn/start", "0", 0, {"turn": 1}),  # type: ignore[arg-type]
        dsh_spec.Event("turn/start", 1, 0, {"turn": 1}, source_event_seqs=7),  # type: ignore[arg-type]
        dsh_spec.Event(3, 2, 0, None),  # type: ignore[arg-type]
        dsh_spec.Event("user/message", 3, 0, {"content": []}, surface_op="sideways"),  # type: ignore[arg-type]
    ]
    found = dsh_spec.check_log(odd)
    assert [(r.code, r.seq) for r in found] == [
        (Code.MALFORMED_EVENT, None),
        (Code.PROVENANCE_ON_LOG_ONLY_TYPE, 1),
        (Code.MALFORMED_EVENT, 2),
        (Code.MALFORMED_SURFACE_OP, 3),
    ]


def test_violation_is_a_frozen_value() -> None:
    violation = dsh_session.check_log(log(["TE", 1]))[0]
    assert violation == Violation(Code.TURN_END_MISMATCH, 0, violation.message, "turn/end")
    assert "turn/end 1 at seq 0" in violation.message
    with pytest.raises(AttributeError):
        violation.code = Code.MALFORMED_EVENT  # type: ignore[misc]
    assert hash(violation) == hash(Violation(Code.TURN_END_MISMATCH, 0, violation.message, "turn/end"))


# -- live invariants --------------------------------------------------------------------------


def user(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "source": {"kind": "user"}}


def test_live_invariants_refuse_before_the_log() -> None:
    session = Session("s", invariants=True, clock=lambda: 7)
    assert session.invariants
    session.append("turn/start", {"turn": 1})
    session.append("user/message", user("a"), surface_op="append")
    messages = session.derive_messages().to_json()
    nodes = session.surface.nodes
    generation = session.surface.replace_generation
    with pytest.raises(InvariantViolationError) as caught:
        session.append("assistant/message", {"turn": 1, "step": 1, "content": []}, surface_op="append")
    error = caught.value
    assert isinstance(error, InvalidEventError)
    assert isinstance(error, DshSessionError)
    assert error.code is Code.STEP_NOT_OPEN
    assert error.seq == 2
    assert error.event_type == "assistant/message"
    assert "[STEP_NOT_OPEN]" in str(error)
    assert "assistant/message at seq 2" in error.message
    assert session.seq == 2
    assert session.derive_messages().to_json() == messages
    assert session.surface.nodes == nodes
    assert session.surface.replace_generation == generation
    # still usable, and the refused event left no trace
    session.append("step/start", {"turn": 1, "step": 1})
    event = session.append("assistant/message", {"turn": 1, "step": 1, "content": []}, surface_op="append")
    assert event.seq == 3
    assert dsh_session.check_log(session.events) == []


def test_admission_still_comes_first_in_a_live_session() -> None:
    session = Session("s", invariants=True)
    with pytest.raises(InvalidEventError) as caught:
        session.append("user/message", user("a"), surface_op="append", source_event_seqs=[])
    assert caught.value.code is Code.PROVENANCE_EMPTY
    assert not isinstance(caught.value, InvariantViolationError)


def test_plain_sessions_do_not_check_structure() -> None:
    session = Session("s")
    assert not session.invariants
    session.append("turn/end", {"turn": 9})
    assert [(v.code, v.seq) for v in dsh_session.check_log(session.events)] == [(Code.TURN_END_MISMATCH, 0)]


def test_seeding_a_live_session_checks_the_seed() -> None:
    records = log(["TS", 1], ["U", "a"], ["TE", 2], ["TS", 3])
    Session("plain", seed=records)
    with pytest.raises(InvariantViolationError) as caught:
        Session("live", seed=records, invariants=True)
    assert (caught.value.code, caught.value.seq) == (Code.TURN_END_MISMATCH, 2)
    rejection = dsh_spec.check_seed_with_invariants(records)
    assert isinstance(rejection, Rejection)
    assert (rejection.code, rejection.seq) == (Code.TURN_END_MISMATCH, 2)


def test_a_live_session_can_be_reseeded_from_its_own_log() -> None:
    session = Session("s", invariants=True)
    session.append("turn/start", {"turn": 1})
    session.append("step/start", {"turn": 1, "step": 1})
    session.append("tool/call", {"turn": 1, "step": 1, "callId": "c", "name": "x", "arguments": "{}"})
    copy = Session("t", seed=session.events, invariants=True)
    assert copy.events == session.events
    with pytest.raises(InvariantViolationError) as caught:
        copy.append("turn/end", {"turn": 1})
    assert caught.value.code is Code.TURN_END_STEP_OPEN


def test_the_spec_live_model_agrees_with_trace_of() -> None:
    events = dsh_spec.check_seed(log(["TS", 1], ["SS", 1, 1], ["TC", 1, 1, "c"]))
    assert not isinstance(events, Rejection)
    trace = dsh_spec.trace_of(events)
    assert isinstance(trace, dsh_spec.Trace)
    assert (trace.open_turn, trace.open_step, trace.next_turn, trace.next_step) == (1, 1, 1, 1)
    assert trace.pending_calls == frozenset({"c"})
    assert trace.known == frozenset({0, 1, 2})
    draft = dsh_spec.Draft("turn/end", 0, {"turn": 1})
    refused = dsh_spec.validate_append_with_invariants(events, draft)
    assert isinstance(refused, Rejection) and refused.code is Code.TURN_END_STEP_OPEN
    broken = dsh_spec.check_seed(log(["TS", 2]))
    assert not isinstance(broken, Rejection)
    assert isinstance(dsh_spec.trace_of(broken), Rejection)

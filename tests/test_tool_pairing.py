"""Tool pairing by id: the reference's cut-point cases (core notes §11, cases 98-117),
adapted to pairing by ``callId`` (Decision 5), and the cases where ids matter (B15).

Every question is asked of the spec and of the implementation, which must
give the same answer: ``True`` / ``False``, or the code and seq of the error.
"""

from __future__ import annotations

from typing import Any

import pytest

import dsh_session
import dsh_spec
from dsh_session import Session, ToolPairingError
from dsh_spec import Code, Rejection
from tests.fixture_notation import expand_log

Answer = bool | tuple[Code, int | None]
Log = list[list[Any]]


def seeded(shorthand: list[list[Any]]) -> tuple[tuple[dsh_spec.Event, ...], Session]:
    records = expand_log(shorthand)
    events = dsh_spec.check_seed_with_invariants(records)
    assert not isinstance(events, Rejection), events
    return events, Session("pairing", seed=records, invariants=True)


def spec_answer(result: bool | Rejection) -> Answer:
    return (result.code, result.seq) if isinstance(result, Rejection) else result


def balanced(shorthand: list[list[Any]], before: int | None) -> Answer:
    events, session = seeded(shorthand)
    expected = spec_answer(dsh_spec.tool_pairing_balanced(events, before))
    try:
        got: Answer = dsh_session.tool_pairing_balanced(session.surface, session.events, before)
    except ToolPairingError as error:
        got = (error.code, error.seq)
    assert got == expected
    # the snapshot tuple and the live manager answer alike
    try:
        again: Answer = dsh_session.tool_pairing_balanced(session.surface.nodes, session.events, before)
    except ToolPairingError as error:
        again = (error.code, error.seq)
    assert again == got
    return got


def region(shorthand: list[list[Any]], start: int, end: int) -> Answer:
    events, session = seeded(shorthand)
    expected = spec_answer(dsh_spec.region_balanced(events, start, end))
    try:
        got: Answer = dsh_session.region_balanced(session.surface, session.events, start, end)
    except ToolPairingError as error:
        got = (error.code, error.seq)
    assert got == expected
    return got


def end_cut(shorthand: list[list[Any]], seq: int) -> Answer:
    """The cut after surface node ``seq``: before the node after it, or after the tail."""
    _events, session = seeded(shorthand)
    node = session.surface.node(seq)
    assert node is not None
    return balanced(shorthand, node.next)


# A closed turn: U, step, A(text + call c1), tool/call, TR c1. Surface [1, 3, 5].
CLOSED: Log = [
    ["TS", 1], ["U", "hello"], ["SS", 1, 1], ["A", 1, 1, "c1"], ["TC", 1, 1, "c1"], ["TR", 1, 1, "c1"],
    ["SE", 1, 1], ["TE", 1],
]  # fmt: skip


def test_98_start_true_for_a_pre_step_user_message() -> None:
    assert balanced(CLOSED, 1) is True


def test_99_start_true_for_the_first_surface_node_of_a_step() -> None:
    assert balanced(CLOSED, 3) is True


def test_100_start_false_for_a_result_whose_call_precedes_it() -> None:
    assert balanced(CLOSED, 5) is False


def test_101_start_true_at_the_surface_head() -> None:
    headless: Log = [["TS", 1], ["SS", 1, 1], ["A", 1, 1, "c1"], ["TC", 1, 1, "c1"]]
    _events, session = seeded(headless)
    assert session.surface.nodes[0].seq == 2
    assert balanced(headless, 2) is True


def test_102_end_true_for_the_last_node_of_a_closed_step() -> None:
    assert end_cut(CLOSED, 5) is True


def test_103_end_false_for_an_assistant_message_with_a_later_result() -> None:
    assert end_cut(CLOSED, 3) is False


def test_104_end_true_for_a_pre_step_user_message() -> None:
    assert end_cut(CLOSED, 1) is True


def test_105_end_false_at_the_tail_inside_an_open_step() -> None:
    assert end_cut([["TS", 1], ["U", "a"], ["SS", 1, 1], ["A", 1, 1, "c1"]], 3) is False


def test_106_end_true_at_the_tail_after_a_trailing_steering_node() -> None:
    log: Log = [*CLOSED[:7], ["ST", 1]]
    assert end_cut(log, 7) is True


def test_107_end_true_at_the_tail_when_no_step_ever_opened() -> None:
    assert end_cut([["TS", 1], ["U", "a"]], 1) is True


TWO_CALLS: Log = [
    ["TS", 1], ["U", "a"], ["SS", 1, 1], ["A", 1, 1, "c1", "c2"], ["TC", 1, 1, "c1"], ["TC", 1, 1, "c2"],
    ["TR", 1, 1, "c1"], ["TR", 1, 1, "c2"],
]  # fmt: skip


def test_108_two_calls_unbalanced_after_the_first_result() -> None:
    assert end_cut(TWO_CALLS, 6) is False


def test_109_two_calls_balanced_after_the_second_result() -> None:
    assert end_cut(TWO_CALLS, 7) is True


MID_STEP_CONTEXT: Log = [
    ["TS", 1], ["U", "a"], ["SS", 1, 1], ["A", 1, 1, "c1"], ["TC", 1, 1, "c1"], ["CTX", "note"],
    ["TR", 1, 1, "c1"], ["SE", 1, 1], ["TE", 1],
]  # fmt: skip


def test_110_mid_step_context_start_cut_unbalanced() -> None:
    assert balanced(MID_STEP_CONTEXT, 5) is False


def test_111_mid_step_context_end_cut_unbalanced() -> None:
    assert end_cut(MID_STEP_CONTEXT, 5) is False


INJECTION: Log = [
    ["TS", 1, {"set": {"trigger": {"kind": "injection", "source": {"kind": "user"}}}}],
    ["CTX", "injected"],
    ["TE", 1],
]


def test_112_injection_turn_start_balanced() -> None:
    assert balanced(INJECTION, 1) is True


def test_113_injection_turn_end_balanced() -> None:
    assert end_cut(INJECTION, 1) is True


# Turn 1 compacted in turn 2: the checkpoint (seq 12) heads the surface, followed by
# seq 9, which is earlier in the log. Surface [12, 9].
CHECKPOINT: Log = [
    *CLOSED,
    ["TS", 2],
    ["U", "b"],
    ["EV", "compact/start", {"turn": 2}],
    ["EV", "compact/summary", {"summary": [], "shadowedSeqs": [1, 3, 5]}],
    ["U", "checkpoint", {"replace": [1, 5], "sourceEventSeqs": [10, 11, 1, 3, 5]}],
    ["EV", "compact/end", {"turn": 2}],
]


def test_114_the_head_checkpoint_sits_before_an_earlier_seq() -> None:
    _events, session = seeded(CHECKPOINT)
    assert session.surface.seqs() == [12, 9]
    # the reference also accepts this replace with no sourceEventSeqs at all; we refuse it (D1)
    bare = expand_log(CHECKPOINT)
    del bare[12]["sourceEventSeqs"]
    found = [(v.code, v.seq) for v in dsh_session.check_log(bare)]
    assert found == [(Code.REPLACE_PROVENANCE_INCOMPLETE, 12)]


def test_115_start_cut_before_the_head_checkpoint_is_balanced() -> None:
    assert balanced(CHECKPOINT, 12) is True


def test_116_end_cut_after_the_head_checkpoint_is_balanced() -> None:
    assert end_cut(CHECKPOINT, 12) is True


def test_117_corrupt_surface_a_result_with_no_call_before_it() -> None:
    log: Log = [["TS", 1], ["SS", 1, 1], ["TC", 1, 1, "c1"], ["TR", 1, 1, "c1"], ["SE", 1, 1]]
    assert balanced(log, None) == (Code.TOOL_PAIRING_CORRUPT, 3)
    _events, session = seeded(log)
    with pytest.raises(ToolPairingError, match="corrupt surface") as caught:
        dsh_session.tool_pairing_balanced(session.surface, session.events)
    assert isinstance(caught.value, ValueError)
    assert "surface seq 3" in caught.value.message
    # reported only when the bad result lies before the cut
    assert balanced(log, 3) is True


# -- ids, not counts (B15) ----------------------------------------------------------------------

MISMATCHED: Log = [["TS", 1], ["SS", 1, 1], ["ATC", 1, 1, "c1"], ["TC", 1, 1, "c2"], ["TR", 1, 1, "c2"]]


def test_b15_a_call_and_a_result_of_different_ids_are_not_balanced() -> None:
    # the reference counts one call and one result and calls this balanced
    assert balanced(MISMATCHED, None) == (Code.TOOL_PAIRING_CORRUPT, 4)
    assert balanced(MISMATCHED, 4) is False
    assert region(MISMATCHED, 2, 4) == (Code.TOOL_PAIRING_CORRUPT, 4)


def test_results_may_answer_calls_in_any_order() -> None:
    log: Log = [
        ["TS", 1], ["SS", 1, 1], ["ATC", 1, 1, "a", "b"], ["TC", 1, 1, "a"], ["TC", 1, 1, "b"],
        ["TR", 1, 1, "b"], ["TR", 1, 1, "a"],
    ]  # fmt: skip
    assert balanced(log, 6) is False
    assert balanced(log, None) is True


def test_a_call_is_answered_once() -> None:
    twice: Log = [["TS", 1], ["SS", 1, 1], ["ATC", 1, 1, "c"], ["TRI", 1, 1, "c"]]
    twice.append(["TRI", 1, 1, "c"])
    assert balanced(twice, 4) is True
    assert balanced(twice, None) == (Code.TOOL_PAIRING_CORRUPT, 4)
    repeated_call: Log = [["TS", 1], ["SS", 1, 1], ["ATC", 1, 1, "c"], ["ATC", 1, 1, "c"]]
    repeated_call.append(["TRI", 1, 1, "c"])
    assert balanced(repeated_call, None) is False


def test_a_result_before_its_call_is_corrupt() -> None:
    log: Log = [["TS", 1], ["SS", 1, 1], ["TC", 1, 1, "c"], ["TR", 1, 1, "c"], ["ATC", 1, 1, "c"]]
    assert balanced(log, None) == (Code.TOOL_PAIRING_CORRUPT, 3)


def test_a_call_block_without_a_string_id_is_never_answered() -> None:
    for odd_id in (None, 7, ["c"]):
        block = {"type": "tool-call", "id": odd_id, "name": "x", "arguments": "{}"}
        log = [["TS", 1], ["SS", 1, 1], ["A", 1, 1, {"set": {"content": [block]}}]]
        assert balanced(log, None) is False


def test_blocks_of_other_types_and_other_nodes_are_neutral() -> None:
    content = [{"type": "text", "text": "x"}, {"type": "tool-result", "id": "c"}]
    log: Log = [
        ["TS", 1],
        ["U", "a", {"set": {"content": [{"type": "tool-call", "id": "u"}]}}],
        ["SS", 1, 1],
        ["A", 1, 1, {"set": {"content": content}}],
    ]
    assert balanced(log, None) is True


def test_a_cut_off_the_surface_is_the_cut_after_the_tail() -> None:
    # seq 4 is a tool/call (log-only), seq 99 is not in the log, True is not a seq
    assert balanced(CLOSED, 4) is True
    assert balanced(CLOSED, 99) is True
    open_step: Log = [["TS", 1], ["U", "a"], ["SS", 1, 1], ["A", 1, 1, "c1"]]
    assert balanced(open_step, 2) is False
    assert balanced(open_step, True) is False  # not seq 1
    assert balanced(open_step, 1) is True
    # a shadowed seq is off the surface too
    assert balanced(CHECKPOINT, 3) is True


def test_the_empty_surface_is_balanced() -> None:
    assert balanced([], None) is True
    assert balanced([["TS", 1]], 0) is True


# -- regions --------------------------------------------------------------------------------------


def test_region_rule() -> None:
    assert region(CLOSED, 1, 5) is True
    assert region(CLOSED, 1, 1) is True
    assert region(CLOSED, 3, 5) is True
    assert region(CLOSED, 3, 3) is False  # splits the call from its result
    assert region(CLOSED, 1, 3) is False
    assert region(CLOSED, 5, 5) is False


def test_region_start_is_judged_first() -> None:
    # start unbalanced: the corrupt result after the end is never reached
    assert region(MISMATCHED, 4, 4) is False
    assert region(MISMATCHED, 2, 2) is False


def test_region_follows_surface_positions() -> None:
    assert region(CHECKPOINT, 12, 9) is True
    assert region(CHECKPOINT, 12, 12) is True
    assert region(CHECKPOINT, 9, 12) == (Code.REPLACE_RANGE_REVERSED, None)


def test_region_endpoints_must_be_on_the_surface() -> None:
    assert region(CLOSED, 4, 5) == (Code.REPLACE_START_NOT_ON_SURFACE, None)
    assert region(CLOSED, 1, 6) == (Code.REPLACE_END_NOT_ON_SURFACE, None)
    assert region(CHECKPOINT, 1, 9) == (Code.REPLACE_START_NOT_ON_SURFACE, None)

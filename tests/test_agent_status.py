"""Agent status transitions (invariants.md §1.4) in the spec and the implementation.

Every branch of the reference's check with the statuses it names, the rule
that a refused status leaves the status in force, then spec and
implementation compared on random sequences.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dsh_session
import dsh_spec
from dsh_session import AgentStatusError, AgentStatusMonitor
from dsh_spec import Code
from tests.support import property_settings

STATUSES = ("idle", "running", "disposed")


def spec_refusals(statuses: list[str]) -> list[tuple[str, int | None]]:
    return [(r.code.value, r.seq) for r in dsh_spec.check_status_transitions(statuses)]


def impl_refusals(statuses: list[str]) -> list[tuple[str, int | None]]:
    return [(v.code.value, v.seq) for v in dsh_session.check_status_transitions(statuses)]


def both(statuses: list[str]) -> list[tuple[str, int | None]]:
    found = spec_refusals(statuses)
    assert impl_refusals(statuses) == found
    return found


@pytest.mark.parametrize("first", [*STATUSES, "bogus"])
def test_the_first_observation_is_always_accepted(first: str) -> None:
    assert both([first]) == []
    assert dsh_spec.status_transition(None, first) is None


@pytest.mark.parametrize(
    ("before", "after"),
    [("idle", "running"), ("running", "idle"), ("idle", "disposed"), ("running", "disposed")],
)
def test_the_legal_transitions(before: str, after: str) -> None:
    assert both([before, after]) == []


@pytest.mark.parametrize("status", STATUSES)
def test_a_repeated_status_is_a_no_op_transition(status: str) -> None:
    assert both([status, status]) == [("STATUS_REPEATED", 1)]
    rejection = dsh_spec.status_transition(status, status, 7)
    assert rejection is not None
    assert rejection.message == f"agent/status repeated {status} (no-op transition)"
    assert rejection.seq == 7


@pytest.mark.parametrize("after", ["idle", "running", "bogus"])
def test_nothing_follows_disposed(after: str) -> None:
    assert both(["disposed", after]) == [("STATUS_LEFT_DISPOSED", 1)]
    rejection = dsh_spec.status_transition("disposed", after)
    assert rejection is not None
    assert rejection.message == f"agent/status left terminal state disposed \u2192 {after}"


def test_disposed_twice_is_a_repeat_not_a_departure() -> None:
    # The reference checks ``from === to`` first.
    assert both(["disposed", "disposed"]) == [("STATUS_REPEATED", 1)]


def test_a_refused_status_leaves_the_status_in_force() -> None:
    assert both(["idle", "idle", "running"]) == [("STATUS_REPEATED", 1)]
    assert both(["running", "idle", "idle", "idle"]) == [("STATUS_REPEATED", 2), ("STATUS_REPEATED", 3)]
    assert both(["disposed", "idle", "idle"]) == [("STATUS_LEFT_DISPOSED", 1), ("STATUS_LEFT_DISPOSED", 2)]
    assert both(["idle", "running", "running", "idle", "disposed"]) == [("STATUS_REPEATED", 2)]


def test_unknown_statuses_are_not_refused_but_still_repeat() -> None:
    assert both(["idle", "paused", "running"]) == []
    assert both(["paused", "paused"]) == [("STATUS_REPEATED", 1)]


def test_the_monitor_raises_a_typed_error_and_keeps_its_status() -> None:
    monitor = AgentStatusMonitor("worker-1")
    assert monitor.status is None and monitor.agent == "worker-1"
    monitor.observe("running")
    with pytest.raises(AgentStatusError) as raised:
        monitor.observe("running")
    error = raised.value
    assert isinstance(error, dsh_session.DshSessionError) and isinstance(error, ValueError)
    assert error.code is Code.STATUS_REPEATED
    assert (error.status, error.previous, error.agent) == ("running", "running", "worker-1")
    assert "'worker-1'" in error.message and "repeated running" in error.message
    assert monitor.status == "running"
    monitor.observe("disposed")
    with pytest.raises(AgentStatusError) as raised:
        monitor.observe("idle")
    assert raised.value.code is Code.STATUS_LEFT_DISPOSED
    assert "disposed \u2192 idle" in raised.value.message
    assert str(raised.value).startswith("[STATUS_LEFT_DISPOSED] ")
    assert monitor.status == "disposed"
    assert repr(monitor) == "AgentStatusMonitor(agent='worker-1', status='disposed')"


def test_monitors_are_independent() -> None:
    a, b = AgentStatusMonitor(), AgentStatusMonitor()
    a.observe("running")
    b.observe("running")  # b's first observation knows nothing of a
    with pytest.raises(AgentStatusError):
        a.observe("running")


@property_settings(300)
@given(st.lists(st.sampled_from([*STATUSES, "other"]), max_size=12))
def test_spec_and_implementation_agree(statuses: list[str]) -> None:
    refused = both(statuses)
    # What is accepted is a legal walk: no repeats, nothing after disposed.
    refused_at = {seq for _code, seq in refused}
    accepted = [status for index, status in enumerate(statuses) if index not in refused_at]
    for before, after in itertools.pairwise(accepted):
        assert before != after and before != "disposed"
    assert (statuses[:1] == []) or 0 not in refused_at

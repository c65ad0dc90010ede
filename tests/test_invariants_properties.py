"""Implementation against spec on generated logs: ``check_log`` and tool pairing.

The logs are agent-shaped and mostly valid, with one to three faults of
every kind (see ``tests/invariant_logs.py``), so both long valid prefixes and
every rule's failure are exercised.
"""

from __future__ import annotations

import contextlib
import copy
from functools import partial
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dsh_session
import dsh_spec
from dsh_session import InvalidEventError, InvariantViolationError, Session, ToolPairingError
from dsh_spec import Code, Rejection
from tests.invariant_logs import Log, agent_logs, faulty_logs, mostly_valid_logs, renumber
from tests.test_invariant_rules import SAME_MESSAGE

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MANY = settings(SETTINGS, max_examples=300)


@MANY
@given(mostly_valid_logs())
def test_check_log_matches_the_spec(records: Log) -> None:
    spec = dsh_spec.check_log(copy.deepcopy(records))
    impl = dsh_session.check_log(copy.deepcopy(records))
    assert [(v.code, v.seq) for v in impl] == [(r.code, r.seq) for r in spec]
    for violation, rejection in zip(impl, spec, strict=True):
        if violation.code in SAME_MESSAGE:
            assert violation.message == rejection.message


@SETTINGS
@given(agent_logs())
def test_agent_logs_keep_every_invariant(records: Log) -> None:
    assert dsh_spec.check_log(records) == ()
    assert dsh_session.check_log(records) == []
    session = Session("s", seed=records, invariants=True)
    assert dsh_session.check_log(session.events) == []


@SETTINGS
@given(faulty_logs())
def test_check_log_agrees_with_seeding(records: Log) -> None:
    """For a log of records numbered 0, 1, 2, ...: ``check_log`` is empty exactly when a
    live-invariants session takes it as a seed, and its first violation is the seed's error."""
    records = renumber([record for record in records if isinstance(record, dict)])
    found = dsh_session.check_log(copy.deepcopy(records))
    try:
        Session("s", seed=copy.deepcopy(records), invariants=True)
    except InvalidEventError as error:
        assert found, "a seed was refused but check_log found nothing"
        assert (found[0].code, found[0].seq) == (error.code, error.seq)
        assert isinstance(error, InvariantViolationError) == (error.code in SAME_MESSAGE)
    else:
        assert found == []
    seeded = dsh_spec.check_seed_with_invariants(copy.deepcopy(records))
    spec_found = dsh_spec.check_log(records)
    if isinstance(seeded, Rejection):
        assert (spec_found[0].code, spec_found[0].seq) == (seeded.code, seeded.seq)
    else:
        assert spec_found == ()


@SETTINGS
@given(faulty_logs())
def test_event_objects_and_records_are_checked_alike(records: Log) -> None:
    """A log that a plain session admits, read as Event objects or as JSON records."""
    session = _admitted(records)
    as_events = dsh_session.check_log(session.events)
    as_records = dsh_session.check_log(session.events.to_json())
    assert as_events == as_records
    spec_events = dsh_spec.check_seed(session.events.to_json())
    assert not isinstance(spec_events, Rejection)
    assert [(v.code, v.seq) for v in as_events] == [(r.code, r.seq) for r in dsh_spec.check_log(spec_events)]


def _op(value: Any) -> Any:
    return value if isinstance(value, str | dict) else None


def _refs(value: Any) -> list[int] | None:
    if isinstance(value, list) and all(type(item) is int for item in value):
        return value
    return None


# -- tool pairing -------------------------------------------------------------------------------


def _admitted(records: Log) -> Session:
    """The records a plain session admits, appended in order (the others skipped)."""
    session = Session("plain", clock=lambda: 0)
    for record in records:
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            continue
        with contextlib.suppress(InvalidEventError):
            session.append(
                record["type"],
                record.get("data"),
                surface_op=_op(record.get("surfaceOp")),
                source_event_seqs=_refs(record.get("sourceEventSeqs")),
            )
    return session


def _impl(call: Any) -> bool | tuple[Code, int | None]:
    try:
        answer: bool = call()
    except ToolPairingError as error:
        return error.code, error.seq
    return answer


def _spec(answer: bool | Rejection) -> bool | tuple[Code, int | None]:
    return (answer.code, answer.seq) if isinstance(answer, Rejection) else answer


def _counting(session: Session, before: int | None) -> bool | None:
    """The reference's answer (a pure counter); ``None`` where it reports a corrupt surface."""
    depth = 0
    for node in session.surface.nodes:
        if node.seq == before:
            break
        event = session.events[node.seq]
        if event.type == "assistant/message":
            depth += sum(1 for block in event.data["content"] if block.get("type") == "tool-call")
        elif event.type == "tool/result":
            depth -= 1
        if depth < 0:
            return None
    return depth == 0


@SETTINGS
@given(mostly_valid_logs(), st.data())
def test_tool_pairing_matches_the_spec(records: Log, data: st.DataObject) -> None:
    session = _admitted(records)
    events = dsh_spec.check_seed(session.events.to_json())
    assert not isinstance(events, Rejection)
    seqs = session.surface.seqs()
    cuts: list[int | None] = [*seqs, None, len(session.events) + 5]
    for before in cuts:
        impl = _impl(partial(dsh_session.tool_pairing_balanced, session.surface, session.events, before))
        assert impl == _spec(dsh_spec.tool_pairing_balanced(events, before))
        # pairing by id is stricter than counting, never looser
        counted = _counting(session, before)
        if impl is True:
            assert counted is True
        if counted is None:
            assert isinstance(impl, tuple) and impl[0] is Code.TOOL_PAIRING_CORRUPT
    if seqs:
        start = data.draw(st.sampled_from([*seqs, -1]))
        end = data.draw(st.sampled_from([*seqs, -1]))
        impl_region = _impl(partial(dsh_session.region_balanced, session.surface, session.events, start, end))
        assert impl_region == _spec(dsh_spec.region_balanced(events, start, end))

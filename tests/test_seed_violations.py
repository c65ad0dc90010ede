"""``seed_violations``: every rule a would-be seed breaks, spec and implementation alike.

Hand-made logs with two or three violations pin the recovery rule (a refused
record keeps its seq and is left out of the surface and of what provenance may
name); generated logs -- agent-shaped with faults, and records drawn from the
payload strategies with random surface operations -- check that the
implementation reports what the spec reports, that the list is empty exactly
when a seed is accepted, and that its first item is the seed's rejection.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dsh_spec
from dsh_session import Code, InvalidEventError, Session, seed_violations
from tests import builders as B
from tests.invariant_logs import mostly_valid_logs
from tests.strategies import LOG_ONLY_KINDS, SURFACE_KINDS, broken_payloads, payloads

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def both(records: list[Any]) -> list[tuple[Code, int | None]]:
    """``(code, seq)`` of each violation; the spec and the implementation must agree."""
    spec = dsh_spec.seed_violations(copy.deepcopy(records))
    impl = seed_violations(copy.deepcopy(records))
    assert [(v.code, v.seq) for v in impl] == [(r.code, r.seq) for r in spec]
    return [(r.code, r.seq) for r in spec]


# -- hand-made logs ----------------------------------------------------------------------------------


def test_a_valid_log_has_none() -> None:
    records = [
        B.record("user/message", 0, B.user("a"), op="append"),
        B.record("turn/start", 1, B.turn_start()),
        B.record("user/message", 2, B.user("sum"), op=B.replace(0, 0), refs=[0]),
    ]
    assert both(records) == []


def test_each_bad_record_is_reported_once_and_keeps_its_seq() -> None:
    records = [
        B.record("user/message", 0, B.user("a"), op="append"),
        B.record("user/message", 1, B.user("b")),  # no surfaceOp
        {"type": "turn/start", "seq": 2, "data": {}},  # no time
        B.record("user/message", 3, {"content": "x"}, op="append"),  # payload
        B.record("turn/start", 4, B.turn_start()),  # fine: its seq is its place
    ]
    assert both(records) == [
        (Code.MISSING_SURFACE_OP, 1),
        (Code.MALFORMED_EVENT, 2),
        (Code.INVALID_PAYLOAD, 3),
    ]


def test_a_refused_event_is_not_on_the_surface_nor_known() -> None:
    records = [
        B.record("user/message", 0, B.user("a"), op="append"),
        B.record("user/message", 1, {"content": 5}, op="append"),  # refused: never on the surface
        B.record("user/message", 2, B.user("sum"), op=B.replace(0, 1), refs=[0]),  # end not there
        B.record("user/message", 3, B.user("c"), op="append", refs=[1]),  # names the refused event
        B.record("user/message", 4, B.user("d"), op=B.replace(0, 0), refs=[0]),  # a sound replace
    ]
    assert both(records) == [
        (Code.INVALID_PAYLOAD, 1),
        (Code.REPLACE_END_NOT_ON_SURFACE, 2),
        (Code.PROVENANCE_UNKNOWN_SEQ, 3),
    ]


def test_a_record_out_of_place_and_garbage() -> None:
    records = [
        "not an event",
        B.record("turn/start", 5, B.turn_start()),  # seq 5 at index 1
        B.record("turn/end", 2, B.turn_end()),
    ]
    assert both(records) == [(Code.MALFORMED_EVENT, 0), (Code.SEQ_NOT_CONTIGUOUS, 1)]


def test_the_first_is_the_seeds_rejection_and_the_messages_say_where() -> None:
    records = [
        B.record("turn/start", 0, B.turn_start(), op="append"),
        B.record("user/message", 1, B.user("a"), op="append", refs=[]),
    ]
    spec = dsh_spec.seed_violations(records)
    assert spec[0] == dsh_spec.check_seed(records)
    impl = seed_violations(records)
    assert [(v.code, v.seq) for v in impl] == [
        (Code.SURFACE_OP_ON_LOG_ONLY_TYPE, 0),
        (Code.PROVENANCE_EMPTY, 1),
    ]
    assert all(f"seq {v.seq}" in v.message for v in impl)


# -- generated logs -------------------------------------------------------------------------------------


@st.composite
def random_records(draw: st.DrawFn) -> list[Any]:
    """Records of every type with payloads that read or not, surface operations and provenance
    that may or may not fit the log, and now and then a bad seq, time or shape."""
    count = draw(st.integers(0, 8))
    records: list[Any] = []
    seqs = st.integers(-1, count)
    for index in range(count):
        kind = draw(st.sampled_from(SURFACE_KINDS + LOG_ONLY_KINDS[:6]))
        surface = kind in SURFACE_KINDS
        data = draw(
            payloads(kind) | broken_payloads(kind) if surface else st.just({}) | payloads("user/message")
        )
        record: dict[str, Any] = {"type": kind, "seq": index, "time": 100 + index, "data": data}
        op = draw(st.sampled_from(["append", "append", "absent", "bogus"]) | st.builds(B.replace, seqs, seqs))
        if op != "absent" and (surface or draw(st.booleans())):
            record["surfaceOp"] = op
        if draw(st.booleans()):
            record["sourceEventSeqs"] = draw(st.lists(seqs, max_size=4) | st.just("x"))
        fault = draw(st.sampled_from(["none"] * 6 + ["seq", "time", "key", "garbage"]))
        if fault == "seq":
            record["seq"] = draw(seqs)
        elif fault == "time":
            record["time"] = draw(st.sampled_from([None, "1", 1.5]))
        elif fault == "key":
            record["extra"] = 1
        records.append(record if fault != "garbage" else draw(st.sampled_from([None, 3, [], "event"])))
    return records


def _agrees_with_seeding(records: list[Any]) -> None:
    found = both(records)
    spec_seed = dsh_spec.check_seed(copy.deepcopy(records))
    if isinstance(spec_seed, dsh_spec.Rejection):
        assert found and dsh_spec.seed_violations(copy.deepcopy(records))[0] == spec_seed
    else:
        assert found == []
    try:
        Session("s", seed=iter(copy.deepcopy(records)))  # an iterator: beartype leaves its items alone
    except InvalidEventError as error:
        assert found and found[0] == (error.code, error.seq)
    else:
        assert found == []


@SETTINGS
@given(random_records())
def test_random_records(records: list[Any]) -> None:
    _agrees_with_seeding(records)


@SETTINGS
@given(mostly_valid_logs())
def test_agent_logs_with_faults(records: list[Any]) -> None:
    _agrees_with_seeding(records)

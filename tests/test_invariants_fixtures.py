"""The reference's invariant fixture catalogue (tests/data/invariants_fixtures.json).

Each invalid log is refused with the expected codes and seqs by ``check_log``
(spec and implementation), by seeding a session with live invariants, by
seeding a plain session where admission alone catches it, and event by event
by live appends. Each valid log is accepted everywhere. The pairing fixtures
pin the answers of the tool-pairing questions.
"""

from __future__ import annotations

from typing import Any

import pytest

import dsh_session
import dsh_spec
from dsh_session import InvalidEventError, InvariantViolationError, Session, ToolPairingError
from dsh_spec import ABSENT, Draft, Rejection
from tests.fixture_notation import expand_log, load_fixtures

CATALOGUE = load_fixtures()
INVALID = CATALOGUE["invalid"]
VALID = CATALOGUE["valid"]
PAIRING = CATALOGUE["pairing"]

Outcome = tuple[str, int | None] | None

#: Codes only a session with live invariants raises (admission does not know them).
STRUCTURAL = {
    "MALFORMED_STRUCTURE_FIELD",
    "TURN_ALREADY_OPEN",
    "TURN_OUT_OF_ORDER",
    "TURN_END_MISMATCH",
    "TURN_END_STEP_OPEN",
    "STEP_TURN_MISMATCH",
    "STEP_ALREADY_OPEN",
    "STEP_OUT_OF_ORDER",
    "STEP_NOT_OPEN",
    "TOOL_RESULT_UNPAIRED",
    "EVENT_OUTSIDE_TURN",
}


def ids(fixtures: list[dict[str, Any]]) -> list[str]:
    return [fixture["id"] for fixture in fixtures]


def pairs(entries: list[list[Any]]) -> list[tuple[str, int | None]]:
    return [(code, seq) for code, seq in entries]


def outcome(entry: list[Any] | None) -> Outcome:
    return None if entry is None else (entry[0], entry[1])


def seed_expectation(fixture: dict[str, Any]) -> Outcome:
    if "seed" in fixture:
        return outcome(fixture["seed"])
    return outcome(fixture["expect"][0]) if fixture["expect"] else None


def plain_expectation(fixture: dict[str, Any]) -> Outcome:
    plain = fixture["plain"]
    if plain == "same":
        return seed_expectation(fixture)
    if plain == "accepted":
        return None
    return outcome(plain)


def live_expectation(fixture: dict[str, Any], length: int) -> list[Outcome] | None:
    live = fixture.get("live")
    if live is False:
        return None
    if live is not None:
        return [outcome(entry) for entry in live]
    expect = fixture["expect"]
    assert len(expect) <= 1, "a fixture with several violations spells out its live outcomes"
    out: list[Outcome] = [None] * length
    if expect:
        assert expect[0][1] == length - 1, "the default live outcome puts the violation last"
        out[-1] = outcome(expect[0])
    return out


def impl_seed(records: list[dict[str, Any]], *, invariants: bool) -> Outcome:
    try:
        Session("fixture", seed=records, invariants=invariants, clock=lambda: 0)
    except InvalidEventError as error:
        if error.code in STRUCTURAL:
            assert isinstance(error, InvariantViolationError)
        else:
            assert not isinstance(error, InvariantViolationError)
        return error.code.value, error.seq
    return None


def spec_outcome(result: object) -> Outcome:
    return (result.code.value, result.seq) if isinstance(result, Rejection) else None


def live_draft(record: dict[str, Any]) -> Draft:
    return Draft(
        type=record["type"],
        time=0,
        data=record["data"],
        surface_op=record.get("surfaceOp", ABSENT),
        source_event_seqs=record.get("sourceEventSeqs", ABSENT),
    )


def run_live(records: list[dict[str, Any]]) -> tuple[list[Outcome], list[Outcome]]:
    """Append each record to a live-invariants session and to the spec's model of one."""
    session = Session("live", invariants=True, clock=lambda: 0)
    log: tuple[dsh_spec.Event, ...] = ()
    impl_out: list[Outcome] = []
    spec_out: list[Outcome] = []
    for record in records:
        before = session.events.to_json()
        try:
            event = session.append(
                record["type"],
                record["data"],
                surface_op=record.get("surfaceOp"),
                source_event_seqs=record.get("sourceEventSeqs"),
            )
        except InvalidEventError as error:
            impl_out.append((error.code.value, error.seq))
            assert session.events.to_json() == before, "a refused append changed the log"
        else:
            impl_out.append(None)
            assert event.seq == len(before)
        verdict = dsh_spec.validate_append_with_invariants(log, live_draft(record))
        if isinstance(verdict, Rejection):
            spec_out.append(spec_outcome(verdict))
        else:
            spec_out.append(None)
            log = (*log, verdict)
    assert session.events.to_json() == [dsh_spec.event_json(event) for event in log]
    return impl_out, spec_out


@pytest.mark.parametrize("fixture", INVALID, ids=ids(INVALID))
def test_invalid_log_check_log(fixture: dict[str, Any]) -> None:
    records = expand_log(fixture["log"])
    expected = pairs(fixture["expect"])
    assert expected, "an invalid fixture names its violations"
    assert [(r.code.value, r.seq) for r in dsh_spec.check_log(records)] == expected
    assert [(v.code.value, v.seq) for v in dsh_session.check_log(records)] == expected


@pytest.mark.parametrize("fixture", INVALID, ids=ids(INVALID))
def test_invalid_log_seeding(fixture: dict[str, Any]) -> None:
    records = expand_log(fixture["log"])
    expected = seed_expectation(fixture)
    assert expected is not None
    assert impl_seed(records, invariants=True) == expected
    assert spec_outcome(dsh_spec.check_seed_with_invariants(records)) == expected
    plain = plain_expectation(fixture)
    assert impl_seed(records, invariants=False) == plain
    assert spec_outcome(dsh_spec.check_seed(records)) == plain


@pytest.mark.parametrize("fixture", INVALID, ids=ids(INVALID))
def test_invalid_log_live(fixture: dict[str, Any]) -> None:
    records = expand_log(fixture["log"])
    expected = live_expectation(fixture, len(records))
    if expected is None:
        assert any(record["seq"] != index for index, record in enumerate(records)) or fixture["note"]
        return
    impl_out, spec_out = run_live(records)
    assert impl_out == expected
    assert spec_out == expected


@pytest.mark.parametrize("fixture", VALID, ids=ids(VALID))
def test_valid_log_accepted_everywhere(fixture: dict[str, Any]) -> None:
    records = expand_log(fixture["log"])
    assert dsh_spec.check_log(records) == ()
    assert dsh_session.check_log(records) == []
    assert impl_seed(records, invariants=True) is None
    assert impl_seed(records, invariants=False) is None
    seeded = dsh_spec.check_seed_with_invariants(records)
    assert not isinstance(seeded, Rejection)
    assert seeded == dsh_spec.check_seed(records)
    impl_out, spec_out = run_live(records)
    assert impl_out == spec_out == [None] * len(records)
    session = Session("again", seed=records, invariants=True)
    assert dsh_session.check_log(session.events) == []
    assert dsh_spec.check_log(seeded) == ()


@pytest.mark.parametrize("fixture", PAIRING, ids=ids(PAIRING))
def test_pairing_fixture(fixture: dict[str, Any]) -> None:
    records = expand_log(fixture["log"])
    assert dsh_session.check_log(records) == [], "the pairing fixtures keep the log invariants"
    events = dsh_spec.check_seed_with_invariants(records)
    assert not isinstance(events, Rejection)
    session = Session("pairing", seed=records, invariants=True)
    for before, expected in fixture["cuts"]:
        spec_answer = dsh_spec.tool_pairing_balanced(events, before)
        try:
            impl_answer: object = dsh_session.tool_pairing_balanced(session.surface, session.events, before)
        except ToolPairingError as error:
            impl_answer = (error.code.value, error.seq)
        if isinstance(expected, bool):
            assert spec_answer is expected
            assert impl_answer is expected
        else:
            assert spec_outcome(spec_answer) == outcome(expected)
            assert impl_answer == outcome(expected)


def test_catalogue_covers_every_reference_rule() -> None:
    rules = " ".join(fixture["rule"] for fixture in INVALID)
    for number in range(1, 21):
        assert f"R{number}" in rules, f"no fixture for R{number}"
    codes = {code for fixture in INVALID for code, _seq in fixture["expect"]}
    assert codes >= STRUCTURAL
    assert {"SEQ_NOT_INCREASING", "SEQ_NOT_CONTIGUOUS"} <= codes


def test_catalogue_accounts_for_every_reference_fixture() -> None:
    """Every row of the reference catalogue (invariants notes §3.2-§3.5) is here, or says why not."""
    present = {fixture["id"] for fixture in [*INVALID, *VALID, *PAIRING, *CATALOGUE["elsewhere"]]}
    reference = {f"S{n}" for n in range(1, 11)} | {"G1", "G2"} | {f"V{n}" for n in range(1, 14)}
    reference |= {"I2a", "I2b", "I2c", "I3", "I4", "I5a", "I5b", "I6a", "I6b", "I6c", "I7a", "I7b", "I7c"}
    reference |= {"I8a", "I8b", "I9a", "I9b", "I10a", "I10b", "I10c", "I11", "I12a", "I12b", "I12c"}
    reference |= {"I13a", "I13b", "I14", "I15a", "I15b", "I16", "I17a", "I17b", "I17c", "I-prec"}
    reference |= {f"I18{x}" for x in "abcdefghi"} | {f"I19{x}" for x in "abcd"} | {"I20a", "I20b", "I20c"}
    reference |= {f"I20d{n}" for n in range(1, 6)}
    missing = {name for name in reference if name not in present and f"{name}a" not in present}
    assert missing == set()

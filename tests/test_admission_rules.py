"""The admission rules: each code's documented example, and the order in which rules are checked.

``docs/errors.md`` promises an example per code and a fixed order ("the first
rule broken is reported"). Both are checked on the spec (``check_seed`` /
``validate_append``) and on the implementation (seeding and ``append``): an
event breaking two rules must report the one that comes first.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

import dsh_spec
from dsh_session import Code, InvalidEventError, Session
from tests import builders as B

#: The event rules in the order docs/errors.md gives them (record-level rules first).
ORDER = [
    Code.MALFORMED_EVENT,
    Code.NON_JSON_DATA,
    Code.MISSING_SURFACE_OP,
    Code.MALFORMED_SURFACE_OP,
    Code.MALFORMED_PROVENANCE,
    Code.PROVENANCE_EMPTY,
    Code.PROVENANCE_DUPLICATE,
    Code.PROVENANCE_NOT_EARLIER,
    Code.PROVENANCE_UNKNOWN_SEQ,
    Code.INVALID_PAYLOAD,
    Code.REPLACE_START_NOT_ON_SURFACE,
    Code.REPLACE_END_NOT_ON_SURFACE,
    Code.REPLACE_RANGE_REVERSED,
    Code.REPLACE_PROVENANCE_INCOMPLETE,
]

#: The log every case starts from: U(a)@0, U(b)@1, turn/start@2.
BASE = [
    B.record("user/message", 0, B.user("a"), op="append"),
    B.record("user/message", 1, B.user("b"), op="append"),
    B.record("turn/start", 2, B.turn_start()),
]


def seed_outcome(records: list[Any]) -> tuple[Code, int | None] | None:
    """What the spec and the implementation say about a seed (they must say the same)."""
    spec = dsh_spec.check_seed(records)
    try:
        Session("rules", iter(records))
    except InvalidEventError as error:
        assert isinstance(spec, dsh_spec.Rejection), f"only the implementation refuses: {error}"
        assert (error.code, error.seq) == (spec.code, spec.seq), (error, spec)
        assert str(error.seq) in error.message
        return error.code, error.seq
    assert not isinstance(spec, dsh_spec.Rejection), f"only the spec refuses: {spec}"
    return None


# -- each code's example from docs/errors.md ---------------------------------------------------

EXAMPLES: dict[Code, list[Any]] = {
    Code.MALFORMED_EVENT: [{"type": "turn/start", "seq": 0, "data": {}}],
    Code.SEQ_NOT_CONTIGUOUS: [B.record("turn/start", 0, {}), B.record("turn/end", 5, {})],
    Code.NON_JSON_DATA: [B.record("todo/write", 0, {"todos": (1, 2)})],
    Code.INVALID_PAYLOAD: [B.record("user/message", 0, None, op="append")],
    Code.PROVENANCE_ON_LOG_ONLY_TYPE: [*BASE, B.record("turn/end", 3, B.turn_end(), refs=[0])],
    Code.SURFACE_OP_ON_LOG_ONLY_TYPE: [B.record("compact/start", 0, {"turn": 1}, op="append")],
    Code.MISSING_SURFACE_OP: [B.record("user/message", 0, B.user())],
    Code.MALFORMED_SURFACE_OP: [
        *BASE[:1],
        B.record("user/message", 1, B.user(), op={"op": "delete", "start": 0, "end": 0}),
    ],
    Code.MALFORMED_PROVENANCE: [*BASE[:1], B.record("user/message", 1, B.user(), op="append", refs=[0.5])],
    Code.PROVENANCE_EMPTY: [B.record("user/message", 0, B.user(), op="append", refs=[])],
    Code.PROVENANCE_DUPLICATE: [*BASE, B.record("user/message", 3, B.user(), op="append", refs=[1, 1])],
    Code.PROVENANCE_NOT_EARLIER: [*BASE, B.record("user/message", 3, B.user(), op="append", refs=[3])],
    Code.PROVENANCE_UNKNOWN_SEQ: [*BASE, B.record("user/message", 3, B.user(), op="append", refs=[-1])],
    Code.REPLACE_START_NOT_ON_SURFACE: [
        *BASE[:2],
        B.record("user/message", 2, B.user(), op=B.replace(7, 1), refs=[1]),
    ],
    Code.REPLACE_END_NOT_ON_SURFACE: [
        *BASE[:1],
        B.record("user/message", 1, B.user(), op=B.replace(0, 1), refs=[0]),
    ],
    Code.REPLACE_RANGE_REVERSED: [
        *BASE[:2],
        B.record("user/message", 2, B.user(), op=B.replace(1, 0), refs=[0, 1]),
    ],
    Code.REPLACE_PROVENANCE_INCOMPLETE: [
        *BASE[:2],
        B.record("user/message", 2, B.user(), op=B.replace(0, 1), refs=[0]),
    ],
}


@pytest.mark.parametrize("code", list(EXAMPLES), ids=str)
def test_each_documented_example_raises_its_code(code: Code) -> None:
    records = EXAMPLES[code]
    assert seed_outcome(records) == (code, len(records) - 1)


def test_every_event_rule_has_an_example() -> None:
    assert set(ORDER) | {
        Code.SEQ_NOT_CONTIGUOUS,
        Code.PROVENANCE_ON_LOG_ONLY_TYPE,
        Code.SURFACE_OP_ON_LOG_ONLY_TYPE,
    } <= set(EXAMPLES)


# -- the order of the rules ----------------------------------------------------------------------

Breaker = Callable[[dict[str, Any]], None]


def _put(key: str, value: Any) -> Breaker:
    def apply(record: dict[str, Any]) -> None:
        record[key] = value

    return apply


def _drop(key: str) -> Breaker:
    return lambda record: record.pop(key, None)


def _op(**fields: Any) -> Breaker:
    return lambda record: record.__setitem__("surfaceOp", {"op": "replace", "start": 0, "end": 1, **fields})


#: One way to break each rule, and the record field it touches (rules on one field exclude each other).
BREAKERS: list[tuple[Code, str, Breaker]] = [
    (Code.MALFORMED_EVENT, "type", _put("type", "")),
    (Code.MALFORMED_EVENT, "time", _put("time", 1.5)),
    (Code.NON_JSON_DATA, "data", _put("data", {**B.user(), "x": (1,)})),
    (Code.MISSING_SURFACE_OP, "op", _drop("surfaceOp")),
    (Code.MALFORMED_SURFACE_OP, "op", _op(op="delete")),
    (Code.MALFORMED_PROVENANCE, "refs", _put("sourceEventSeqs", [0, 1, 0.5])),
    (Code.PROVENANCE_EMPTY, "refs", _put("sourceEventSeqs", [])),
    (Code.PROVENANCE_DUPLICATE, "refs", _put("sourceEventSeqs", [0, 1, 1])),
    (Code.PROVENANCE_NOT_EARLIER, "refs", _put("sourceEventSeqs", [0, 1, 3])),
    (Code.PROVENANCE_UNKNOWN_SEQ, "refs", _put("sourceEventSeqs", [0, 1, -1])),
    (Code.INVALID_PAYLOAD, "data", _put("data", {"content": None, "source": B.USER})),
    (Code.REPLACE_START_NOT_ON_SURFACE, "op", _op(start=9)),
    (Code.REPLACE_END_NOT_ON_SURFACE, "op", _op(end=9)),
    (Code.REPLACE_RANGE_REVERSED, "op", _op(start=1, end=0)),
    (Code.REPLACE_PROVENANCE_INCOMPLETE, "refs", _put("sourceEventSeqs", [0])),
]


def _valid_replace() -> dict[str, Any]:
    return B.record("user/message", 3, B.user("sum"), op=B.replace(0, 1), refs=[0, 1])


def test_the_base_replace_is_valid() -> None:
    assert seed_outcome([*BASE, _valid_replace()]) is None


@pytest.mark.parametrize(("code", "field", "breaker"), BREAKERS, ids=[f"{c}-{f}" for c, f, _ in BREAKERS])
def test_each_breaker_breaks_its_rule(code: Code, field: str, breaker: Breaker) -> None:
    record = _valid_replace()
    breaker(record)
    assert seed_outcome([*BASE, record]) == (code, 3)


PAIRS = [(a, b) for a, b in itertools.permutations(BREAKERS, 2) if a[1] != b[1]]


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=[f"{a[0]}+{b[0]}" for a, b in PAIRS])
def test_the_earlier_rule_is_reported(
    first: tuple[Code, str, Breaker], second: tuple[Code, str, Breaker]
) -> None:
    record = _valid_replace()
    first[2](record)
    second[2](record)
    expected = min(first[0], second[0], key=ORDER.index)
    assert seed_outcome([*BASE, record]) == (expected, 3)


def test_append_reports_the_same_rule_as_seeding() -> None:
    """The pairs that append can express (no time field), through append itself."""
    for first, second in PAIRS:
        if "time" in (first[1], second[1]):
            continue
        record = _valid_replace()
        first[2](record)
        second[2](record)
        expected = seed_outcome([*BASE, record])
        session = Session("append", BASE)
        kwargs: dict[str, Any] = {}
        if "surfaceOp" in record:
            kwargs["surface_op"] = record["surfaceOp"]
        if "sourceEventSeqs" in record:
            kwargs["source_event_seqs"] = iter(record["sourceEventSeqs"])
        with pytest.raises(InvalidEventError) as caught:
            session.append(record["type"], record["data"], **kwargs)
        assert (caught.value.code, caught.value.seq) == expected, (first[0], second[0])
        assert session.seq == 3


def test_provenance_entries_are_checked_in_order() -> None:
    early = B.record("user/message", 3, B.user(), op="append", refs=[-1, 7])
    late = B.record("user/message", 3, B.user(), op="append", refs=[7, -1])
    assert seed_outcome([*BASE, early]) == (Code.PROVENANCE_UNKNOWN_SEQ, 3)
    assert seed_outcome([*BASE, late]) == (Code.PROVENANCE_NOT_EARLIER, 3)


def test_log_only_rules_come_after_the_json_rule() -> None:
    both = B.record("turn/end", 3, {}, op="append", refs=[0])
    assert seed_outcome([*BASE, both]) == (Code.PROVENANCE_ON_LOG_ONLY_TYPE, 3)
    assert seed_outcome([*BASE, {**both, "data": {"x": {1}}}]) == (Code.NON_JSON_DATA, 3)
    assert seed_outcome([*BASE, {**both, "time": None}]) == (Code.MALFORMED_EVENT, 3)
    assert seed_outcome([*BASE, {**both, "data": None}]) == (Code.PROVENANCE_ON_LOG_ONLY_TYPE, 3)


def test_record_rules_come_first() -> None:
    """Shape before seq before everything else; an unknown key is a shape error."""
    bad_everything = {"type": "", "seq": 9, "time": None, "data": {1, 2}}
    assert seed_outcome([*BASE, bad_everything]) == (Code.SEQ_NOT_CONTIGUOUS, 3)
    assert seed_outcome([*BASE, {**bad_everything, "surface_op": "append"}]) == (Code.MALFORMED_EVENT, 3)
    assert seed_outcome([*BASE, {k: v for k, v in bad_everything.items() if k != "time"}]) == (
        Code.MALFORMED_EVENT,
        3,
    )
    assert seed_outcome([*BASE, {**bad_everything, "seq": 3}]) == (Code.MALFORMED_EVENT, 3)
    assert seed_outcome([*BASE, {**bad_everything, "seq": 3, "type": "x", "time": 0}]) == (
        Code.NON_JSON_DATA,
        3,
    )


def test_only_the_first_bad_event_of_a_seed_is_reported() -> None:
    records = [*BASE, B.record("user/message", 3, B.user()), B.record("x", 9, (1,))]
    assert seed_outcome(records) == (Code.MISSING_SURFACE_OP, 3)

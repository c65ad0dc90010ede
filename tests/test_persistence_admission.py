"""A backend admits a stored log exactly as ``Session(seed=...)`` does: same events, or the
same code at the same seq."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_session import Code, InvalidEventError, Session
from dsh_session.persistence._admit import LogAdmitter
from dsh_session.persistence._base import Where, admit_stored
from dsh_session.persistence.errors import CorruptStoreError
from tests.logs import LogBuilder


def valid_records() -> list[dict[str, Any]]:
    log = LogBuilder()
    log.turn_start()
    log.user("a")
    log.user("b")
    log.step_start()
    log.assistant(calls=["c"], source_event_seqs=[1])
    log.tool_call("c")
    log.tool_result("c", source_event_seqs=[5])
    log.add(
        "user/message",
        {"content": [{"type": "text", "text": "sum"}]},
        surface_op={"op": "replace", "start": 1, "end": 2},
        source_event_seqs=[1, 2],
    )
    log.step_end()
    log.turn_end()
    return [event.to_json() for event in log.events]


MUTATIONS: list[tuple[str, Any]] = [
    ("drop", "surfaceOp"),
    ("drop", "time"),
    ("set", ("surfaceOp", None)),
    ("set", ("surfaceOp", "Append")),
    ("set", ("surfaceOp", {"op": "replace", "start": 9, "end": 1})),
    ("set", ("surfaceOp", {"op": "replace", "start": 2, "end": 1})),
    ("set", ("sourceEventSeqs", [])),
    ("set", ("sourceEventSeqs", [0, 0])),
    ("set", ("sourceEventSeqs", [99])),
    ("set", ("sourceEventSeqs", [-1])),
    ("set", ("sourceEventSeqs", None)),
    ("set", ("time", 1.5)),
    ("set", ("time", 2.0)),
    ("set", ("seq", 1.0)),
    ("set", ("seq", True)),
    ("set", ("type", "")),
    ("set", ("data", None)),
    ("set", ("data", {"content": "x"})),
    ("set", ("extra", 1)),
]


@settings(max_examples=300)
@given(st.lists(st.tuples(st.integers(0, 9), st.sampled_from(MUTATIONS)), max_size=3))
def test_stored_logs_are_admitted_as_seeds(mutations: list[tuple[int, tuple[str, Any]]]) -> None:
    records: list[Any] = valid_records()
    for index, (action, argument) in mutations:
        record = records[index]
        if action == "drop":
            record.pop(argument, None)
        else:
            key, value = argument
            record[key] = value if key != "seq" or value != 1.0 else float(index)
    try:
        seeded: Any = list(Session("s", seed=records).events)
    except InvalidEventError as error:
        seeded = (error.code, error.seq)
    try:
        admitted: Any = admit_stored(records, lambda i: Where("p", None, f"row {i}"))[0]
    except CorruptStoreError as error:
        admitted = (error.code, error.seq)
    assert admitted == seeded


def test_a_stored_record_that_is_not_an_object_is_malformed() -> None:
    records: list[Any] = valid_records()
    records[4] = None
    try:
        admit_stored(records, lambda i: Where("p", i + 3, f"line {i + 3}"))
    except CorruptStoreError as error:
        assert (error.code, error.seq, error.line) == (Code.MALFORMED_EVENT, 4, 7)
    else:
        raise AssertionError("a null record was admitted")


def test_an_admitter_counts_what_it_admitted() -> None:
    admitter = LogAdmitter()
    records = valid_records()
    assert [admitter.admit(record).seq for record in records] == list(range(10))
    later = {"type": "turn/end", "seq": 10, "time": 2000, "data": {"turn": 1}}
    assert admitter.admit(later).seq == 10
    with pytest.raises(InvalidEventError) as caught:
        admitter.admit({**later, "seq": 10})  # the seq is taken now
    assert caught.value.code is Code.SEQ_NOT_CONTIGUOUS

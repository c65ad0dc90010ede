"""Session: append (core.md §3), seeding (§4), the accessors, and test cases 1-15 and 26-29.

Where the reference accepts something that our decision 1 refuses, the test
pins our refusal and its code (docs/deviations.md D1, D2).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import pytest

import dsh_session
import dsh_spec
from dsh_session import (
    SESSION_FORMAT_VERSION,
    Code,
    DshSessionError,
    Event,
    InvalidEventError,
    InvariantViolationError,
    JsonlBackend,
    LoggedEvent,
    Replace,
    Session,
    SessionHeader,
    now_ms,
)
from tests import builders as B
from tests.support import assert_same_json, is_fresh_copy


def refused(code: Code, seq: int, call: Any, *args: Any, **kwargs: Any) -> InvalidEventError:
    """Run ``call``; it must raise InvalidEventError with ``code`` at ``seq``."""
    with pytest.raises(InvalidEventError) as caught:
        call(*args, **kwargs)
    error = caught.value
    assert (error.code, error.seq) == (code, seq), error
    return error


# -- append: the event it makes --------------------------------------------------------------


def test_append_numbers_events_from_zero_and_stamps_them_with_the_clock() -> None:
    s = B.session()
    first = s.append("turn/start", B.turn_start())
    second = s.append("user/message", B.user(), surface_op="append")
    assert (first.seq, second.seq, s.seq) == (0, 1, 2)
    assert s.header.created_at == 1000  # the header took the first reading
    assert (first.time, second.time) == (1001, 1002)
    assert s.events[0] is first and s.events[1] is second
    assert s.id == "s"


def test_an_event_record_has_the_reference_key_order_and_no_absent_fields() -> None:
    s = B.users(2)
    plain = s.append("turn/end", B.turn_end())
    assert list(plain.to_json()) == ["type", "seq", "time", "data"]
    marked = s.append(
        "assistant/message", B.assistant(B.text("hi")), surface_op="append", source_event_seqs=[1]
    )
    assert list(marked.to_json()) == ["type", "seq", "time", "data", "sourceEventSeqs", "surfaceOp"]
    assert marked.to_json()["sourceEventSeqs"] == [1] and marked.to_json()["surfaceOp"] == "append"
    replaced = s.append("user/message", B.user("sum"), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    assert replaced.to_json()["surfaceOp"] == {"op": "replace", "start": 0, "end": 1}
    assert replaced.surface_op == Replace(0, 1) and type(replaced.surface_op) is Replace


def test_to_json_is_a_plain_mutable_copy() -> None:
    s = B.session()
    event = s.append("todo/write", {"todos": [{"content": "a", "status": "pending"}]})
    record = event.to_json()
    assert type(record["data"]) is dict and type(record["data"]["todos"]) is list
    record["data"]["todos"].append("changed")
    assert len(event.data["todos"]) == 1


def test_case_15_append_snapshots_the_callers_data() -> None:
    s = B.session()
    data = B.user("orig")
    event = s.append("user/message", data, surface_op="append")
    data["content"][0]["text"] = "HACKED"
    data["content"].append(B.text("more"))
    assert event.data["content"] == [B.text("orig")]
    assert s.events[0].data["content"] == [B.text("orig")]


def test_case_41_and_43_surface_fields_are_snapshots() -> None:
    s = B.users(21)
    refs = [10, 20]
    op = {"op": "replace", "start": 20, "end": 20}
    event = s.append("user/message", B.user("x"), surface_op=op, source_event_seqs=refs)
    refs.append(3)
    op["start"] = 0
    assert event.source_event_seqs == (10, 20) and event.surface_op == Replace(20, 20)
    assert s.events[21].to_json()["sourceEventSeqs"] == [10, 20]


def test_provenance_may_be_any_iterable_of_ints() -> None:
    s = B.users(3)
    for refs in ([0], (0, 1), {2}, iter([1, 0]), range(2)):
        event = s.append("context/message", B.context(), surface_op="append", source_event_seqs=refs)
        assert type(event.source_event_seqs) is tuple
    assert [e.source_event_seqs for e in s.events[3:]] == [(0,), (0, 1), (2,), (1, 0), (0, 1)]


def test_case_48_and_51_surface_fields_are_recorded() -> None:
    s = B.users(8)
    event = s.append(
        "assistant/message", B.assistant(B.text("a")), surface_op="append", source_event_seqs=[3, 5, 7]
    )
    assert event.source_event_seqs == (3, 5, 7) and event.surface_op == "append"
    assert s.events[8].to_json()["sourceEventSeqs"] == [3, 5, 7]


def test_case_50_a_log_only_event_carries_no_surface_fields() -> None:
    event = B.session().append("turn/start", B.turn_start())
    assert event.surface_op is None and event.source_event_seqs is None
    assert "surfaceOp" not in event.to_json() and "sourceEventSeqs" not in event.to_json()


def test_any_type_string_is_fine_for_a_log_only_event() -> None:
    s = B.session()
    for kind in ("compact/start", "hook/x", "User/Message", "x", "ünïcode"):
        assert s.append(kind, {"any": ["json", 1.5, None]}).type == kind
    assert s.append("turn/start", None).data is None


def test_case_2_a_max_tokens_reason_round_trips() -> None:
    s = B.session()
    s.append("turn/start", B.turn_start())
    event = s.append("turn/end", B.turn_end(kind="max-tokens"))
    assert event.data == {"turn": 1, "reason": {"kind": "max-tokens"}}
    assert Session("copy", [e.to_json() for e in s.events]).events[1].to_json() == event.to_json()


def test_case_9_dense_arrays_and_nested_objects_are_accepted() -> None:
    s = B.session()
    event = s.append(
        "user/message", {**B.user(), "extra": [1, 2, [3, {"a": None, "b": True}]]}, surface_op="append"
    )
    assert event.data["extra"] == [1, 2, [3, {"a": None, "b": True}]]


def test_logged_data_is_a_fresh_canonical_copy() -> None:
    s = B.session()
    event = s.append("todo/write", {"todos": [], "n": 1.0, "z": -0.0, "2": 0, "1": 0})
    assert is_fresh_copy(lambda: event.data)
    assert_same_json(event.data, {"1": 0, "2": 0, "todos": [], "n": 1, "z": 0})
    assert list(event.data) == ["1", "2", "todos", "n", "z"]
    assert type(event.data["n"]) is int


# -- append: refusals -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(lambda: 2**70 + 1, id="bigint"),
        pytest.param(lambda: len, id="function"),
        pytest.param(lambda: {1: 2}, id="map-like (non-str key)"),
        pytest.param(lambda: float("inf"), id="Infinity"),
        pytest.param(lambda: [1, (2,), 3], id="tuple in array"),
        pytest.param(lambda: {"deep": {"fn": print}}, id="nested function"),
        pytest.param(lambda: {1, 2}, id="set"),
        pytest.param(lambda: {"self": None}, id="cycle"),
    ],
)
def test_case_7_non_json_data_is_refused_and_nothing_is_logged(bad: Any) -> None:
    s = B.session()
    value = bad()
    if value == {"self": None}:
        value["self"] = value
    error = refused(
        Code.NON_JSON_DATA, 0, s.append, "user/message", {**B.user(), "extra": value}, surface_op="append"
    )
    assert "user/message" in error.message and "seq 0" in error.message
    assert s.seq == 0 and len(s.events) == 0


def test_the_json_check_comes_before_the_marker_check() -> None:
    s = B.session()
    refused(Code.NON_JSON_DATA, 0, s.append, "user/message", {"bad": (1,)})


def test_case_8_a_surface_event_without_a_marker_is_refused() -> None:
    s = B.session()
    s.append("turn/start", B.turn_start())
    error = refused(Code.MISSING_SURFACE_OP, 1, s.append, "user/message", B.user())
    assert error.event_type == "user/message"
    assert s.seq == 1
    s.append("user/message", B.user(), surface_op="append")  # still usable
    assert s.seq == 2


def test_an_empty_type_is_refused() -> None:
    refused(Code.MALFORMED_EVENT, 0, B.session().append, "", {})


@pytest.mark.parametrize(
    ("kind", "data", "code"),
    [
        ("user/message", None, Code.INVALID_PAYLOAD),
        ("user/message", {}, Code.INVALID_PAYLOAD),
        ("assistant/message", {"turn": 1, "step": 1}, Code.INVALID_PAYLOAD),
        ("tool/result", {**B.tool_result(), "isError": 1}, Code.INVALID_PAYLOAD),
        ("tool/result", {k: v for k, v in B.tool_result().items() if k != "isError"}, Code.INVALID_PAYLOAD),
        ("steering/message", B.steering(source={}), Code.INVALID_PAYLOAD),
        ("context/message", B.context(envelope="RAW"), Code.INVALID_PAYLOAD),
    ],
)
def test_b6_payloads_the_projection_cannot_read_are_refused(kind: str, data: Any, code: Code) -> None:
    """The reference accepts these and then fails or derives nonsense (B6, B20); we refuse (D2)."""
    s = B.session()
    refused(code, 0, s.append, kind, data, surface_op="append")
    assert s.seq == 0 and s.derive_messages().to_json() == []


def test_b5_surface_fields_on_a_log_only_type_are_refused() -> None:
    s = B.users(1)
    refused(Code.SURFACE_OP_ON_LOG_ONLY_TYPE, 1, s.append, "turn/start", B.turn_start(), surface_op="append")
    refused(
        Code.PROVENANCE_ON_LOG_ONLY_TYPE, 1, s.append, "turn/start", B.turn_start(), source_event_seqs=[0]
    )
    refused(
        Code.PROVENANCE_ON_LOG_ONLY_TYPE,
        1,
        s.append,
        "compact/start",
        {},
        surface_op="append",
        source_event_seqs=[0],
    )
    assert s.seq == 1


# -- seeding -------------------------------------------------------------------------------------------


def test_case_13_a_well_formed_seed_is_accepted() -> None:
    seed = [
        B.record("turn/start", 0, B.turn_start()),
        B.record("user/message", 1, B.user(), op="append"),
        B.record("turn/end", 2, B.turn_end()),
    ]
    s = Session("seeded", seed)
    assert s.seq == 3 and [e.seq for e in s.events] == [0, 1, 2]
    assert s.events[1].time == 1001


def test_an_empty_or_absent_seed_is_an_empty_session() -> None:
    assert Session("a", []).seq == 0 and Session("b", None).seq == 0 and Session("c").seq == 0


def test_case_10_a_non_json_seed_is_refused() -> None:
    seed = [B.record("turn/start", 0, {"big": 2**70 + 1})]
    refused(Code.NON_JSON_DATA, 0, Session, "x", seed)


@pytest.mark.parametrize("seq", [5, "1", True, None, 1.5, 2**53 + 1])
def test_case_11_seeds_must_be_contiguous(seq: object) -> None:
    seed = [B.record("turn/start", 0, {}), {**B.record("turn/end", 1, {}), "seq": seq}]
    error = refused(Code.SEQ_NOT_CONTIGUOUS, 1, Session, "x", iter(seed))
    assert "index 1" in error.message and "turn/end" in error.message


def test_an_integral_float_seq_counts() -> None:
    seed = [{**B.record("turn/start", 0, {}), "seq": 0.0}, {**B.record("turn/end", 1, {}), "time": 5.0}]
    s = Session("x", seed)
    assert_same_json([e.seq for e in s.events], [0, 1])
    assert_same_json(s.events[1].time, 5)


def test_case_12_a_seeded_surface_event_needs_a_marker() -> None:
    refused(Code.MISSING_SURFACE_OP, 0, Session, "x", [B.record("user/message", 0, B.user())])


@pytest.mark.parametrize(
    ("mutation", "code"),
    [
        ({"time": "yesterday"}, Code.MALFORMED_EVENT),
        ({"time": 1.5}, Code.MALFORMED_EVENT),
        ({"time": True}, Code.MALFORMED_EVENT),
        ({"extra": 1}, Code.MALFORMED_EVENT),
        ({"type": 5}, Code.MALFORMED_EVENT),
        ({"surfaceOp": None}, Code.SURFACE_OP_ON_LOG_ONLY_TYPE),
        ({"sourceEventSeqs": None}, Code.PROVENANCE_ON_LOG_ONLY_TYPE),
    ],
)
def test_b12_seed_records_are_checked_whole(mutation: dict[str, Any], code: Code) -> None:
    """The reference never checks a seed's time, extra keys or type; we do (same rules as append)."""
    refused(code, 0, Session, "x", [{**B.record("turn/start", 0, {}), **mutation}])


@pytest.mark.parametrize("missing", ["type", "seq", "time", "data"])
def test_a_seed_record_lacking_a_key_is_malformed(missing: str) -> None:
    record = B.record("turn/start", 0, {})
    del record[missing]
    refused(Code.MALFORMED_EVENT, 0, Session, "x", [record])


@pytest.mark.parametrize("record", [None, 5, "event", ["turn/start", 0, 0, {}]])
def test_a_seed_record_that_is_not_an_object_is_malformed(record: object) -> None:
    error = refused(Code.MALFORMED_EVENT, 0, Session, "x", iter([record]))
    assert error.event_type is None


def test_b1_a_poison_replace_in_a_seed_is_refused_at_construction() -> None:
    seed = [
        B.record("user/message", 0, B.user("a"), op="append"),
        B.record("user/message", 1, B.user("b"), op="append"),
        B.record("assistant/message", 2, B.assistant(B.text("x")), op=B.replace(99, 0), refs=[0]),
    ]
    refused(Code.REPLACE_START_NOT_ON_SURFACE, 2, Session, "x", seed)


def test_seeds_may_be_events_or_records_or_both() -> None:
    s = B.users(3)
    s.append("user/message", B.user("sum"), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    seeds: tuple[list[Any], ...] = (
        list(s.events),
        [e.to_json() for e in s.events],
        [s.events[0], *[e.to_json() for e in s.events[1:]]],
    )
    for seed in seeds:
        copy = Session("copy", seed)
        assert [e.to_json() for e in copy.events] == [e.to_json() for e in s.events]
        assert copy.surface.nodes == s.surface.nodes


def test_a_session_seeded_with_logged_events_keeps_those_events(tmp_path: Any) -> None:
    # One object serves the load and the session (memory: docs/performance.md); events are
    # immutable, so sharing them changes nothing anyone can see.
    s = B.users(3)
    s.append("user/message", B.user("sum"), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    s.append("note/x", {"n": 1.5e300})
    backend = JsonlBackend(tmp_path)
    backend.create(SessionHeader("w", 0))
    backend.append("w", list(s.events))
    loaded = JsonlBackend(tmp_path).load("w")
    for seed in (list(s.events), list(loaded.events)):
        copy = Session("copy", seed)
        assert all(mine is given for mine, given in zip(copy.events, seed, strict=True))
        assert [e.to_json() for e in copy.events] == [e.to_json() for e in s.events]
        texts = [e.text for e in copy.events if isinstance(e, LoggedEvent)]
        assert texts == [e.text for e in s.events if isinstance(e, LoggedEvent)] and len(texts) == 5


def test_a_logged_event_whose_fields_admission_would_change_is_not_kept() -> None:
    # Admission reads 1.0 as the seq 1 and a float time as its int: the event it makes differs
    # in type from what it was given, so the log holds the one admission made.
    given = [LoggedEvent("turn/end", 0, 5.0, b"{}"), LoggedEvent("turn/end", 1, 6, b"{}")]  # type: ignore[arg-type]
    copy = Session("copy", given)
    assert [e is g for e, g in zip(copy.events, given, strict=True)] == [False, True]
    assert copy.events[0].time.__class__ is int and copy.events[0].time == 5
    ordered = LoggedEvent("turn/end", 0, 1, b"{}", key_order=("seq", "type", "time", "data"))
    assert Session("o", [ordered]).events[0] is not ordered


def test_case_14_the_seed_is_snapshotted() -> None:
    seed = [B.record("user/message", 0, B.user("orig"), op="append", refs=[])]
    seed[0].pop("sourceEventSeqs")
    s = Session("x", seed)
    seed[0]["data"]["content"][0]["text"] = "HACKED"
    seed[0]["data"]["big"] = 2**70 + 1
    seed.append(B.record("turn/end", 1, {}))
    assert s.seq == 1 and s.events[0].data["content"][0]["text"] == "orig"


def test_case_5_a_session_seeded_with_its_events_replays_identically() -> None:
    s = B.session()
    s.append("turn/start", B.turn_start())
    s.append("user/message", B.user(), surface_op="append")
    s.append("assistant/message", B.assistant(B.text("hi"), B.tool_call()), surface_op="append")
    s.append("tool/result", B.tool_result(), surface_op="append")
    replay = Session("replay", s.events)
    assert replay.seq == s.seq
    assert replay.derive_messages() == s.derive_messages()


# -- the header and the accessors --------------------------------------------------------------------


def test_case_23_a_bare_session_has_a_current_version_header() -> None:
    s = Session("bare", clock=lambda: 42)
    assert s.header == SessionHeader(id="bare", created_at=42)
    assert s.header.version == SESSION_FORMAT_VERSION == 0
    assert s.header.to_json() == {"version": 0, "id": "bare", "createdAt": 42}


def test_a_given_header_is_kept() -> None:
    header = SessionHeader(id="h", created_at=5, cwd="/w", parent_session="p", seed_length=3)
    s = Session("h", header=header)
    assert s.header is header
    assert list(header.to_json()) == ["version", "id", "createdAt", "cwd", "parentSession", "seedLength"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        header.cwd = "/other"  # type: ignore[misc]


def test_now_ms_is_milliseconds_since_the_epoch() -> None:
    before = time.time_ns() // 1_000_000
    value = now_ms()
    after = time.time_ns() // 1_000_000
    assert type(value) is int and before <= value <= after


def test_the_default_clock_is_now_ms() -> None:
    before = now_ms()
    event = Session("x").append("turn/start", {})
    assert before <= event.time <= now_ms()


def test_events_is_a_view_that_later_appends_do_not_change() -> None:
    s = B.users(2)
    view = s.events
    s.append("turn/end", {})
    assert len(view) == 2 and len(s.events) == 3
    assert list(view) == list(s.events[:2])
    assert view[-1] is s.events[1] and view[0:1] == (s.events[0],)
    with pytest.raises(IndexError):
        view[2]
    assert view == list(s.events)[:2] and view == tuple(s.events)[:2]
    assert view.to_json() == [e.to_json() for e in s.events[:2]]


def test_repr_names_the_session() -> None:
    assert repr(B.users(2)) == "<Session 's' events=2>"


# -- errors ------------------------------------------------------------------------------------------


def test_errors_carry_code_seq_type_and_say_where() -> None:
    s = B.users(1)
    error = refused(Code.MISSING_SURFACE_OP, 1, s.append, "tool/result", B.tool_result())
    assert isinstance(error, DshSessionError) and isinstance(error, ValueError)
    assert error.event_type == "tool/result"
    assert str(error) == f"[MISSING_SURFACE_OP] session 's': {error.message}"
    assert "tool/result" in error.message and "seq 1" in error.message
    assert dsh_session.Code is Code


# -- todo/write (cases 26-29) --------------------------------------------------------------------


def test_case_26_todo_write_is_a_snapshot_isolated_from_the_caller() -> None:
    s = B.session()
    todos = [{"content": "a", "status": "pending"}]
    event = s.append("todo/write", {"todos": todos})
    todos[0]["status"] = "completed"
    todos.append({"content": "b", "status": "pending"})
    assert event.data["todos"] == [{"content": "a", "status": "pending"}]


def test_case_27_the_latest_todo_write_holds_the_current_list() -> None:
    s = B.session()
    s.append("todo/write", {"todos": [{"content": "a", "status": "pending"}]})
    s.append("todo/write", {"todos": [{"content": "a", "status": "completed"}]})
    latest = [e for e in s.events if e.type == "todo/write"][-1]
    assert latest.data["todos"][0]["status"] == "completed"


def test_case_28_todo_write_is_not_a_surface_event() -> None:
    s = B.users(1)
    before = s.derive_messages()
    event = s.append("todo/write", {"todos": []})
    assert s.derive_messages() == before
    assert s.surface.node(event.seq) is None and event.seq not in s.surface


def test_case_29_todo_write_replays_from_a_seed_without_a_marker() -> None:
    s = B.session()
    s.append("todo/write", {"todos": [{"content": "a", "status": "pending"}]})
    s.append("user/message", B.user(), surface_op="append")
    replay = Session("r", [e.to_json() for e in s.events])
    assert [e.to_json() for e in replay.events] == [e.to_json() for e in s.events]
    assert replay.derive_messages() == s.derive_messages()


def test_event_records_cannot_be_changed() -> None:
    event = B.users(1).events[0]
    with pytest.raises(AttributeError):
        event.seq = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        event.data = {}  # type: ignore[misc]
    assert isinstance(event, Event)


def test_a_json_record_holds_json_so_a_tuple_is_no_array() -> None:
    """In a JSON record a tuple is not JSON (the spec refuses it too); an Event's tuple is its own type."""
    users = [B.record("user/message", 0, B.user(), op="append")]
    refused(
        Code.MALFORMED_PROVENANCE,
        1,
        Session,
        "x",
        [*users, B.record("user/message", 1, B.user(), op="append", refs=(0,))],
    )
    refused(
        Code.MALFORMED_SURFACE_OP,
        1,
        Session,
        "x",
        [*users, B.record("user/message", 1, B.user(), op=Replace(0, 0), refs=[0])],
    )
    s = Session("x", users)
    s.append("user/message", B.user(), surface_op=Replace(0, 0), source_event_seqs=(0,))
    assert Session("copy", list(s.events)).events[1].source_event_seqs == (0,)
    spec = dsh_spec.check_seed([*users, B.record("user/message", 1, B.user(), op="append", refs=(0,))])
    assert isinstance(spec, dsh_spec.Rejection) and spec.code is Code.MALFORMED_PROVENANCE


def test_a_refusal_names_the_session_the_seq_and_the_rule() -> None:
    s = Session("sess-A")
    s.append("user/message", B.user(), surface_op="append")
    with pytest.raises(InvalidEventError) as refused:
        s.append("user/message", B.user())  # no surface_op
    error = refused.value
    assert (error.session_id, error.seq, error.code) == ("sess-A", 1, Code.MISSING_SURFACE_OP)
    assert str(error).startswith("[MISSING_SURFACE_OP] session 'sess-A': ") and "seq 1" in str(error)
    with pytest.raises(InvariantViolationError) as violated:
        Session("sess-B", invariants=True).append("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
    assert violated.value.session_id == "sess-B" and "session 'sess-B'" in str(violated.value)
    with pytest.raises(InvalidEventError) as seeded:
        Session("sess-C", seed=[{"type": "user/message", "seq": 0, "time": 1, "data": B.user()}])
    assert seeded.value.session_id == "sess-C" and str(seeded.value).startswith(
        "[MISSING_SURFACE_OP] session 'sess-C': "
    )

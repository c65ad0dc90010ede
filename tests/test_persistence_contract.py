"""The backend contract: what every backend must do, whatever it stores in.

Covers the reference's contract cases (persistence.md §6.1), its backend-
independent backend cases (§6.4 and §6.5 marked B→C) and our own for the weak
spots of §7 that we fix. Each test runs once per backend (``tests/backends.py``);
the crash-tail tests run for the durable backends only.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_session import (
    Code,
    CorruptStoreError,
    Event,
    IncompatibleStoreError,
    InvalidEventError,
    InvalidHeaderError,
    Replace,
    Session,
    SessionBackend,
    SessionExistsError,
    SessionHeader,
    SessionNotFoundError,
    StoreClosedError,
    StoreConflictError,
)
from tests.backends import DURABLE, ENVS, Env, lines_of
from tests.logs import CREATED_AT, LogBuilder, header, one_turn_log


@pytest.fixture(params=sorted(ENVS))
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    made = ENVS[request.param](tmp_path)
    yield made
    made.close_all()


@pytest.fixture(params=DURABLE)
def durable(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    made = ENVS[request.param](tmp_path)
    yield made
    made.close_all()


def stored(env: Env, session_id: str, events: list[Event], **fields: object) -> SessionBackend:
    backend = env.backend()
    backend.create(header(session_id, **fields))
    backend.append(session_id, events)
    return backend


def open_turn_log(session_id: str = "s") -> list[Event]:
    """One finished turn, then turn 2 with an open step: 8 events."""
    log = LogBuilder(session_id)
    log.one_turn(1)
    log.turn_start(2)
    log.step_start(2, 1)
    return log.events


# -- §6.1: the reference's contract ---------------------------------------------------------


def test_round_trip_keeps_header_and_events(env: Env) -> None:
    events = one_turn_log()
    stored(env, "s", events, cwd="/home/u/ws")
    loaded = env.backend().load("s")
    assert loaded.header == SessionHeader(id="s", created_at=CREATED_AT, cwd="/home/u/ws")
    assert list(loaded.events) == events
    assert lines_of(list(loaded.events)) == lines_of(events)


def test_an_open_turn_is_closed_on_load_and_the_log_goes_on(env: Env) -> None:
    stored(env, "s", open_turn_log())
    loaded = env.backend().load("s")
    assert [e.seq for e in loaded.events] == list(range(10))
    assert [e.type for e in loaded.events[-2:]] == ["step/end", "turn/end"]
    assert loaded.events[-1].data == {"turn": 2, "reason": {"kind": "interrupted"}}

    backend = env.backend()
    backend.load("s")
    log = LogBuilder("s", start_time=100)
    resumed = Session("s", seed=loaded.events, clock=log._tick)
    more = [resumed.append("turn/start", {"turn": 3}), resumed.append("turn/end", {"turn": 3})]
    backend.append("s", more)
    again = env.backend().load("s")
    assert [e.seq for e in again.events] == list(range(12))
    assert list(again.events) == [*loaded.events, *more]


def test_an_interrupted_tool_call_gets_an_error_result(env: Env) -> None:
    log = LogBuilder()
    log.one_turn(1)
    log.turn_start(2)
    log.step_start(2)
    log.assistant(2, calls=["call-x"])
    stored(env, "s", log.events)
    events = env.backend().load("s").events
    assert [e.type for e in events[-3:]] == ["tool/result", "step/end", "turn/end"]
    result = events[-3]
    assert result.data["callId"] == "call-x"
    assert result.data["isError"] is True
    assert result.data["error"]["code"] == "interrupted"
    Session("s", seed=events)  # the repaired log seeds a session


def test_list_leaves_out_a_session_without_events(env: Env) -> None:
    backend = env.backend()
    backend.create(header("lazy"))
    assert backend.list() == ()
    assert env.backend().list() == ()


def test_list_shows_sessions_with_events_sorted_by_id(env: Env) -> None:
    backend = env.backend()
    for session_id, cwd in (("b", "/projB"), ("a", "/projA"), ("c", None)):
        backend.create(header(session_id, cwd=cwd))
        backend.append(session_id, one_turn_log(session_id))
    assert [h.id for h in env.backend().list()] == ["a", "b", "c"]
    assert [h.cwd for h in backend.list()] == ["/projA", "/projB", None]


def test_append_refuses_a_batch_that_does_not_continue_the_log(env: Env) -> None:
    events = one_turn_log()
    backend = stored(env, "s", events)
    with pytest.raises(InvalidEventError) as raised:
        backend.append("s", events)
    assert raised.value.code is Code.SEQ_NOT_CONTIGUOUS
    assert raised.value.seq == 6
    assert env.tamper.stored_count("s") == 6


def test_append_refuses_a_gap_inside_a_batch(env: Env) -> None:
    events = one_turn_log()
    backend = env.backend()
    backend.create(header("s"))
    with pytest.raises(InvalidEventError) as raised:
        backend.append("s", [events[0], events[2]])
    assert raised.value.code is Code.SEQ_NOT_CONTIGUOUS
    assert backend.list() == ()


@pytest.mark.parametrize(
    "bad",
    [float("inf"), float("nan"), (1, 2), {1, 2}, b"x", object(), {1: "x"}, 2**53 + 1],
    ids=["inf", "nan", "tuple", "set", "bytes", "object", "int-key", "big-int"],
)
def test_append_refuses_data_that_is_not_json_naming_the_type(env: Env, bad: object) -> None:
    backend = env.backend()
    backend.create(header("s"))
    event = Event("user/message", 0, 1, {"content": [], "extra": bad}, None, "append")
    with pytest.raises(InvalidEventError) as raised:
        backend.append("s", [event])
    assert raised.value.code is Code.NON_JSON_DATA
    assert "user/message" in str(raised.value)
    assert backend.list() == ()
    with pytest.raises(SessionNotFoundError):
        env.backend().load("s")


# -- backend-independent cases of the backends' own suites (B→C) ----------------------------


def test_chunks_and_surface_fields_round_trip(env: Env) -> None:
    log = LogBuilder()
    log.turn_start()
    log.user("a")
    log.user("b")
    log.step_start()
    chunks = [log.chunk(text=t).seq for t in ("x", "y")]
    log.assistant(source_event_seqs=chunks)
    log.add(
        "user/message",
        {"content": [{"type": "text", "text": "summary"}], "source": {"kind": "plugin"}},
        surface_op=Replace(1, 2),
        source_event_seqs=[1, 2],
    )
    log.step_end()
    log.turn_end()
    stored(env, "s", log.events)
    loaded = env.backend().load("s").events
    assert list(loaded) == log.events
    assert loaded[6].source_event_seqs == (4, 5)
    assert loaded[7].surface_op == Replace(1, 2)
    assert loaded[1].source_event_seqs is None


def test_a_forked_header_round_trips(env: Env) -> None:
    events = one_turn_log("child")
    stored(env, "child", events, cwd="/srv/repo", parent_session="parent", seed_length=6)
    stored(env, "zero", one_turn_log("zero"), seed_length=0)
    backend = env.backend()
    assert backend.load("child").header == SessionHeader(
        "child", CREATED_AT, cwd="/srv/repo", parent_session="parent", seed_length=6
    )
    assert backend.load("zero").header.seed_length == 0
    assert {h.id: h.seed_length for h in backend.list()} == {"child": 6, "zero": 0}


def test_sessions_written_in_turns_do_not_mix(env: Env) -> None:
    a, b = one_turn_log("a", turns=2), one_turn_log("b", turns=2)
    backend = env.backend()
    backend.create(header("a"))
    backend.create(header("b", cwd="/w"))
    for start in range(0, 12, 3):
        backend.append("a", a[start : start + 3])
        backend.append("b", b[start : start + 3])
    reopened = env.backend()
    assert list(reopened.load("a").events) == a
    assert list(reopened.load("b").events) == b


def test_a_new_instance_appends_to_a_stored_session(env: Env) -> None:
    events = one_turn_log(turns=2)
    stored(env, "s", events[:6])
    backend = env.backend()
    backend.append("s", events[6:8])
    assert list(env.backend().load("s").events) == events[:8] + [
        Event("turn/end", 8, 8, {"turn": 2, "reason": {"kind": "interrupted"}})
    ]


def test_an_empty_batch_writes_nothing(env: Env) -> None:
    backend = env.backend()
    backend.create(header("s"))
    backend.append("s", [])
    assert backend.list() == ()
    stored(env, "t", one_turn_log("t"))
    before = env.tamper.snapshot()
    env.backend().append("t", [])
    assert env.tamper.snapshot() == before


def test_an_empty_batch_for_an_unknown_session_is_refused(env: Env) -> None:
    with pytest.raises(SessionNotFoundError) as raised:
        env.backend().append("nobody", [])
    assert raised.value.code is Code.SESSION_NOT_FOUND


def test_load_refuses_an_unknown_session(env: Env) -> None:
    backend = env.backend()
    backend.create(header("created-only"))
    for session_id in ("nobody", "created-only", ""):
        with pytest.raises(SessionNotFoundError) as raised:
            backend.load(session_id)
        assert raised.value.code is Code.SESSION_NOT_FOUND


def test_create_refuses_an_id_known_or_stored(env: Env) -> None:
    backend = env.backend()
    backend.create(header("s"))
    with pytest.raises(SessionExistsError) as raised:
        backend.create(header("s"))
    assert raised.value.code is Code.SESSION_ALREADY_EXISTS
    backend.append("s", one_turn_log())
    with pytest.raises(SessionExistsError):
        env.backend().create(header("s", cwd="/elsewhere"))


def test_create_refuses_a_header_it_could_not_read_back(env: Env) -> None:
    backend = env.backend()
    with pytest.raises(IncompatibleStoreError) as version:
        backend.create(header("s", version=99))
    assert version.value.code is Code.STORE_VERSION_UNSUPPORTED
    for bad in (header(""), header("s", seed_length=-1)):
        with pytest.raises(InvalidHeaderError) as raised:
            backend.create(bad)
        assert raised.value.code is Code.INVALID_HEADER
    assert backend.list() == ()


def test_a_header_only_session_is_closed_on_load(env: Env) -> None:
    log = LogBuilder()
    log.turn_start(1)
    stored(env, "s", log.events)
    events = env.backend().load("s").events
    assert [(e.type, e.seq) for e in events] == [("turn/start", 0), ("turn/end", 1)]


def test_a_repaired_load_is_durable_and_loads_the_same_again(env: Env) -> None:
    stored(env, "s", open_turn_log())
    first = env.backend().load("s").events
    after_repair = env.tamper.snapshot()
    second = env.backend().load("s").events
    assert lines_of(list(second)) == lines_of(list(first))
    assert env.tamper.snapshot() == after_repair
    assert env.tamper.stored_count("s") == 10


def test_a_clean_load_changes_nothing(env: Env) -> None:
    stored(env, "s", one_turn_log(turns=3))
    before = env.tamper.snapshot()
    env.backend().load("s")
    assert env.tamper.snapshot() == before


def test_json_values_of_every_kind_round_trip(env: Env) -> None:
    values: list[object] = [
        None,
        True,
        False,
        0,
        -1,
        2**53,
        0.1,
        1e21,
        5e-324,
        -1.5e300,
        "",
        'quote " backslash \\ nul \x00 \u2028 \x7f é 😀 \ud800 \udc00x',
        [],
        {},
        {"2": "a", "1": "b", "x": [1, [2, {"y": None}]]},
    ]
    log = LogBuilder()
    for value in values:
        log.add("todo/write", {"value": value})
    stored(env, "s", log.events)
    loaded = env.backend().load("s").events
    assert list(loaded) == log.events
    assert lines_of(list(loaded)) == lines_of(log.events)


def test_every_surface_type_round_trips(env: Env) -> None:
    log = LogBuilder()
    log.turn_start()
    log.user()
    log.add(
        "context/message",
        {"content": [{"type": "text", "text": "ctx"}], "source": {"kind": "plugin"}, "envelope": "raw"},
        surface_op="append",
    )
    log.add(
        "steering/message",
        {"content": [{"type": "text", "text": "steer"}], "source": {"kind": "user"}},
        surface_op="append",
    )
    log.step_start()
    log.assistant(calls=["c"])
    log.tool_result("c", source_event_seqs=[5])
    log.step_end()
    log.turn_end()
    stored(env, "s", log.events)
    loaded = env.backend().load("s")
    session = Session("s", seed=loaded.events, header=loaded.header)
    expected = Session("s", seed=log.events)
    assert list(session.derive_messages()) == list(expected.derive_messages())
    assert session.surface.nodes == expected.surface.nodes


def test_backends_implement_the_protocol(env: Env) -> None:
    assert isinstance(env.backend(), SessionBackend)


# -- weak spots of the reference we fix (persistence.md §7) ---------------------------------


def test_a_marker_less_event_is_refused_before_it_is_stored(env: Env) -> None:
    backend = env.backend()
    backend.create(header("s"))
    bare = Event("user/message", 0, 1, {"content": [{"type": "text", "text": "x"}]})
    with pytest.raises(InvalidEventError) as raised:
        backend.append("s", [bare])
    assert raised.value.code is Code.MISSING_SURFACE_OP
    assert backend.list() == ()


def test_a_stored_marker_less_event_is_refused_on_load_naming_where(env: Env) -> None:
    stored(env, "s", one_turn_log())
    env.tamper.strip_surface_op("s", 1)
    before = env.tamper.snapshot()
    with pytest.raises(CorruptStoreError) as raised:
        env.backend().load("s")
    assert raised.value.code is Code.MISSING_SURFACE_OP
    assert raised.value.seq == 1
    assert raised.value.path is not None and raised.value.path in str(raised.value)
    assert env.tamper.snapshot() == before


def test_an_unsupported_stored_version_is_refused_and_not_touched(env: Env) -> None:
    stored(env, "s", open_turn_log())
    env.tamper.set_version("s", 1)
    before = env.tamper.snapshot()
    with pytest.raises(IncompatibleStoreError) as raised:
        env.backend().load("s")
    assert raised.value.code is Code.STORE_VERSION_UNSUPPORTED
    with pytest.raises(IncompatibleStoreError):
        env.backend().append("s", [Event("turn/end", 8, 9, {})])
    assert env.tamper.snapshot() == before
    assert env.backend().list() == ()


def test_a_refused_batch_stores_nothing_and_the_session_goes_on(env: Env) -> None:
    events = one_turn_log(turns=2)
    backend = stored(env, "s", events[:6])
    bad = Event("user/message", 7, 7, {"content": "not a list"}, None, "append")
    with pytest.raises(InvalidEventError) as raised:
        backend.append("s", [events[6], bad])
    assert raised.value.code is Code.INVALID_PAYLOAD
    assert env.tamper.stored_count("s") == 6
    backend.append("s", events[6:])
    assert list(env.backend().load("s").events) == events


def test_a_replace_in_a_later_batch_is_checked_against_the_stored_surface(env: Env) -> None:
    log = LogBuilder()
    log.user("a")
    log.user("b")
    backend = stored(env, "s", log.events)
    log.add(
        "user/message",
        {"content": [{"type": "text", "text": "sum"}]},
        surface_op=Replace(0, 1),
        source_event_seqs=[0, 1],
    )
    bad = Event("user/message", 3, 9, {"content": []}, (0,), Replace(0, 0))
    with pytest.raises(InvalidEventError) as raised:
        env.backend().append("s", [log.events[2], bad])
    assert raised.value.code is Code.REPLACE_START_NOT_ON_SURFACE
    backend.append("s", [log.events[2]])
    assert len(env.backend().load("s").events) == 3


def test_a_stale_writer_is_refused_instead_of_duplicating_seqs(env: Env) -> None:
    events = one_turn_log(turns=3)
    stored(env, "s", events[:6])
    first, second = env.backend(), env.backend()
    first.load("s")
    second.load("s")
    first.append("s", events[6:12])
    with pytest.raises(StoreConflictError) as raised:
        second.append("s", events[6:12])
    assert raised.value.code is Code.STORE_CONFLICT
    assert list(env.backend().load("s").events) == events[:12]


def test_two_writers_creating_the_same_session_cannot_both_publish(env: Env) -> None:
    events = one_turn_log()
    first, second = env.backend(), env.backend()
    first.create(header("s"))
    second.create(header("s", cwd="/w"))
    first.append("s", events)
    with pytest.raises(StoreConflictError):
        second.append("s", events)
    assert env.backend().load("s").header.cwd is None


def test_a_closed_backend_refuses_everything(env: Env) -> None:
    backend = stored(env, "s", one_turn_log())
    backend.close()
    backend.close()
    for call in (
        lambda: backend.load("s"),
        lambda: backend.list(),
        lambda: backend.append("s", []),
        lambda: backend.create(header("t")),
    ):
        with pytest.raises(StoreClosedError) as raised:
            call()
        assert raised.value.code is Code.STORE_CLOSED


def test_events_outside_any_turn_get_no_closers(env: Env) -> None:
    log = LogBuilder()
    log.one_turn()
    log.user("after the turn")
    stored(env, "s", log.events)
    assert list(env.backend().load("s").events) == log.events


# -- crash tails (durable backends) ---------------------------------------------------------


def test_a_torn_tail_is_cut_and_the_open_turn_closed(durable: Env) -> None:
    stored(durable, "s", open_turn_log())
    if durable.tamper.tears:
        durable.tamper.tear_tail("s")
    loaded = durable.backend().load("s").events
    assert [e.seq for e in loaded] == list(range(10))
    assert [e.type for e in loaded[8:]] == ["step/end", "turn/end"]
    assert durable.tamper.stored_count("s") == 10

    backend = durable.backend()
    more = [Event("turn/start", 10, 50, {"turn": 3}), Event("turn/end", 11, 51, {"turn": 3})]
    backend.append("s", more)
    assert list(durable.backend().load("s").events) == [*loaded, *more]


def test_an_append_to_a_stored_torn_session_repairs_it_first(durable: Env) -> None:
    events = one_turn_log(turns=2)
    stored(durable, "s", events[:8])
    if durable.tamper.tears:
        durable.tamper.tear_tail("s")
    backend = durable.backend()
    with pytest.raises(InvalidEventError) as raised:
        backend.append("s", events[8:])  # the load closed turn 2 at seq 8
    assert raised.value.code is Code.SEQ_NOT_CONTIGUOUS
    assert [e.type for e in durable.backend().load("s").events[8:]] == ["turn/end"]


def test_a_load_leaves_the_garbage_collector_as_it_found_it(env: Env) -> None:
    import gc

    stored(env, "s", one_turn_log())
    assert gc.isenabled()
    env.backend().load("s")
    assert gc.isenabled()
    gc.disable()
    try:
        env.backend().load("s")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_append_takes_events_only(env: Env) -> None:
    backend = env.backend()
    backend.create(header("s"))
    record: object = one_turn_log()[0].to_json()
    with pytest.raises(TypeError, match="dict"):  # a generator: beartype does not look inside
        backend.append("s", (item for item in [record]))  # type: ignore[misc]
    assert backend.list() == ()

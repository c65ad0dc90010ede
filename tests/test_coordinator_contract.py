"""The write coordinator's contract, against every backend (``tests/backends.py``).

Part 1 is the reference's coordinator contract (persistence.md §6.2, its 29
cases, numbered in the test names), in our words and adapted to our design:
the store announces sessions synchronously, so binding ("init") happens when a
session is created and a refusal fails the creation; the stored log is the
authority instead of per-instance state; the log itself is the write-behind
buffer. Part 2 pins each reference weak spot the coordinator fixes (B1, B2,
B6, B14, B15, B16, B30; ``docs/deviations.md``, C1-C7), part 3 the rest of
our own guarantees (failures, close, release, threads).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh_session import (
    DEFAULT_FLUSH_ON,
    DEFAULT_MAX_PENDING,
    Code,
    DrainError,
    Event,
    IncompatibleStoreError,
    ObserverError,
    PersistenceCoordinator,
    PersistenceError,
    Session,
    SessionBackend,
    SessionCollisionError,
    SessionHeader,
    SessionMeta,
    SessionNotFoundError,
    SessionStore,
    SessionStoreError,
    StoreClosedError,
    StoreConflictError,
    StoreIOError,
    UnboundSessionError,
)
from tests.backends import ENVS, Env, lines_of
from tests.coordinator_support import (
    MANUAL,
    Clock,
    RecordingBackend,
    assistant,
    one_turn,
    refusal,
    step_end,
    step_start,
    turn_end,
    turn_start,
    user,
)


class Harness:
    """One backend environment; stores and coordinators attached to it, closed at the end."""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.coordinators: list[PersistenceCoordinator] = []

    def store(self) -> SessionStore:
        return SessionStore(clock=Clock())

    def attach(
        self, store: SessionStore | None = None, **options: Any
    ) -> tuple[SessionStore, PersistenceCoordinator, RecordingBackend]:
        """A coordinator over a fresh backend instance (and a new store unless given)."""
        store = store if store is not None else self.store()
        backend = RecordingBackend(self.env.backend())
        coordinator = PersistenceCoordinator(store, backend, **{**MANUAL, **options})
        self.coordinators.append(coordinator)
        return store, coordinator, backend

    def stored(self, session_id: str) -> list[Event]:
        return list(self.env.backend().load(session_id).events)

    def persist(self, session_id: str, build: Callable[[Session], object], **meta: Any) -> list[Event]:
        """Store a session built by ``build`` through a coordinator of its own; return its events."""
        store, coordinator, _ = self.attach()
        session = store.create(session_id, meta=SessionMeta(**meta))
        build(session)
        coordinator.close()
        return list(session.events)


@pytest.fixture(params=sorted(ENVS))
def harness(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Harness]:
    made = Harness(ENVS[request.param](tmp_path))
    yield made
    for coordinator in made.coordinators:
        coordinator.close()
    made.env.close_all()


@pytest.fixture(params=("jsonl", "sqlite"))
def durable(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Harness]:
    made = Harness(ENVS[request.param](tmp_path))
    yield made
    for coordinator in made.coordinators:
        coordinator.close()
    made.env.close_all()


def seqs(events: list[Event]) -> list[int]:
    return [event.seq for event in events]


# == Part 1: the reference's coordinator contract (§6.2) =====================================


def test_01_a_live_session_driven_through_the_store_survives_a_reload(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    session = store.create("s1", meta=SessionMeta(cwd="/w"))
    one_turn(session)
    coordinator.flush(session)
    loaded = harness.env.backend().load("s1")
    assert loaded.header == session.header
    assert loaded.header.cwd == "/w"
    assert list(loaded.events) == list(session.events)
    assert lines_of(list(loaded.events)) == lines_of(list(session.events))


def test_02_the_seed_boundary_round_trips(harness: Harness) -> None:
    parent = harness.persist("parent", one_turn)
    store, coordinator, _ = harness.attach()
    child = store.create("child", seed=parent[:6], meta=SessionMeta(parent_session="parent", seed_length=3))
    coordinator.flush(child)
    header = harness.env.backend().load("child").header
    assert (header.seed_length, header.parent_session) == (3, "parent")


def test_03_changing_appended_data_afterwards_does_not_reach_the_store(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    session = store.create("s")
    data: dict[str, Any] = {"content": [{"type": "text", "text": "original"}], "source": {"kind": "user"}}
    session.append("user/message", data, surface_op="append")
    data["content"][0]["text"] = "MUTATED"
    data["extra"] = 1
    coordinator.flush(session)
    (event,) = harness.stored("s")
    assert event.data == {"content": [{"type": "text", "text": "original"}], "source": {"kind": "user"}}
    assert "MUTATED" not in repr(harness.env.tamper.snapshot())


def test_04_changing_the_provenance_list_afterwards_does_not_reach_the_store(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    session = store.create("s")
    user(session, "a")
    refs = [0]
    session.append(
        "user/message",
        {"content": [{"type": "text", "text": "b"}], "source": {"kind": "user"}},
        surface_op="append",
        source_event_seqs=refs,
    )
    refs[0] = 5
    refs.append(6)
    coordinator.flush(session)
    assert harness.stored("s")[1].source_event_seqs == (0,)
    assert seqs(harness.stored("s")) == [0, 1]


def test_05_a_fork_persists_its_seed_once(harness: Harness) -> None:
    store, coordinator, backend = harness.attach()
    parent = store.create("parent", meta=SessionMeta(cwd="/w"))
    one_turn(parent)
    coordinator.flush(parent)
    child = store.fork(parent, child_id="child")
    coordinator.flush(child)
    coordinator.flush(child)  # nothing new: no second write
    assert backend.appends("child") == [(0, 1, 2, 3, 4, 5)]
    assert harness.stored("child") == list(parent.events)
    assert harness.env.tamper.stored_count("child") == 6


def test_06_a_resumed_session_goes_on_without_rewriting_its_past(harness: Harness) -> None:
    past = harness.persist("s", one_turn)
    _, coordinator, backend = harness.attach()
    resumed = coordinator.resume("s")
    assert list(resumed.events) == past
    assert coordinator.flushed(resumed) == 6
    turn_start(resumed, 2)
    user(resumed, "again")
    coordinator.flush(resumed)
    assert backend.appends("s") == [(6, 7)]
    assert harness.env.tamper.stored_count("s") == 8
    assert harness.stored("s")[:8] == list(resumed.events)


def test_07_attaching_binds_the_sessions_already_live(harness: Harness) -> None:
    store = harness.store()
    session = store.create("early")
    turn_start(session)
    user(session)
    _, coordinator, _ = harness.attach(store)
    coordinator.flush(session)
    assert harness.stored("early")[:2] == list(session.events)


def test_08_close_drains_what_was_not_flushed(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    session = store.create("s")
    turn_start(session)
    user(session)
    coordinator.close()
    assert harness.stored("s")[:2] == list(session.events)


def test_09_a_new_coordinator_takes_over_a_live_stored_session(harness: Harness) -> None:
    store, first, _ = harness.attach()
    session = store.create("s")
    one_turn(session)
    first.flush(session)
    first.close()
    _, second, _ = harness.attach(store)
    one_turn(session, 2)
    second.flush(session)
    stored = harness.stored("s")
    assert stored == list(session.events)
    assert [e.type for e in stored].count("turn/start") == 2


def test_10_taking_over_writes_what_the_live_session_did_meanwhile(harness: Harness) -> None:
    store, first, _ = harness.attach()
    session = store.create("s")
    turn_start(session)
    user(session)
    first.close()
    step_start(session)
    assistant(session)  # appended while no coordinator was attached
    _, second, _ = harness.attach(store)
    second.flush(session)
    assert harness.env.tamper.stored_count("s") == 4
    assert seqs(harness.stored("s"))[:4] == [0, 1, 2, 3]


def test_11_taking_over_does_not_close_the_live_sessions_turn(harness: Harness) -> None:
    store, first, _ = harness.attach()
    session = store.create("s")
    turn_start(session)
    step_start(session)
    first.close()
    if harness.env.tamper.tears:
        harness.env.tamper.tear_tail("s")  # and a torn tail from a crashed writer
    step_end(session)
    turn_end(session)
    _, second, _ = harness.attach(store)
    second.flush(session)
    stored = harness.stored("s")
    assert [e.type for e in stored] == ["turn/start", "step/start", "step/end", "turn/end"]
    assert stored[-1].data["reason"] == {"kind": "completed"}


def test_12_a_new_session_colliding_with_a_stored_one_is_refused(harness: Harness) -> None:
    harness.persist("x", one_turn, created_at=500)
    before = harness.env.tamper.snapshot()
    store, coordinator, _ = harness.attach()
    with pytest.raises(ObserverError) as raised:
        store.create("x", meta=SessionMeta(created_at=500))
    error = refusal(raised.value)
    assert isinstance(error, SessionCollisionError)
    assert (error.code, error.seq) == (Code.ID_COLLISION_LOG, 0)
    with pytest.raises(ObserverError) as other:
        store.create("x")  # created now: another createdAt
    assert refusal(other.value).code is Code.ID_COLLISION_HEADER
    assert "x" not in store
    assert coordinator.refused == {}  # rolled back: nothing live was refused
    assert harness.env.tamper.snapshot() == before


def test_13_an_abandoned_session_that_never_wrote_releases_its_id(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    abandoned = store.create("x")
    store.remove(abandoned)
    reuse = store.create("x")
    turn_start(reuse)
    user(reuse)
    coordinator.flush(reuse)
    assert seqs(harness.stored("x"))[:2] == [0, 1]


def test_14_an_id_whose_abandoned_session_has_unwritten_events_is_not_taken(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    abandoned = store.create("x")
    turn_start(abandoned)
    user(abandoned)
    store.remove(abandoned)
    with pytest.raises(ObserverError) as raised:
        store.create("x")
    assert refusal(raised.value).code is Code.SESSION_ALREADY_BOUND
    assert "x" not in store
    coordinator.release(abandoned, discard=True)
    reuse = store.create("x")
    one_turn(reuse)
    coordinator.flush(reuse)
    assert harness.stored("x") == list(reuse.events)


def test_15_announcing_a_session_again_binds_it_once(harness: Harness) -> None:
    store, coordinator, backend = harness.attach()
    session = store.create("s")
    turn_start(session)
    store.announce(session)
    user(session)
    coordinator.flush(session)
    assert backend.probes("s") == 1
    assert backend.appends("s") == [(0, 1)]


def test_16_a_live_session_takes_over_a_stored_header_without_events(harness: Harness) -> None:
    past = harness.persist("x", one_turn, cwd="/w", created_at=500)
    harness.env.tamper.keep_events("x", 0)
    store, coordinator, _ = harness.attach()
    session = store.create("x", seed=past, meta=SessionMeta(cwd="/w", created_at=500))
    coordinator.flush(session)
    assert harness.stored("x") == past


def test_17_a_fresh_session_cannot_take_an_id_just_loaded(harness: Harness) -> None:
    harness.persist("x", one_turn, created_at=500)
    store, coordinator, _ = harness.attach()
    loaded = coordinator.load("x")
    assert len(loaded.events) == 6
    other = Session("other", clock=Clock())
    one_turn(other, text="something else")
    with pytest.raises(ObserverError) as raised:
        store.create("x", seed=other.events, meta=SessionMeta(created_at=500))
    error = refusal(raised.value)
    assert (error.code, error.seq) == (Code.ID_COLLISION_LOG, 0)


def test_18_a_session_seeded_with_the_loaded_log_continues_it(harness: Harness) -> None:
    harness.persist("x", one_turn, cwd="/w", created_at=500)
    store, coordinator, backend = harness.attach()
    loaded = coordinator.load("x")
    session = store.create("x", seed=loaded.events, meta=SessionMeta(cwd="/w", created_at=500))
    turn_start(session, 2)
    user(session, "more")
    coordinator.flush(session)
    assert backend.appends("x") == [(6, 7)]
    assert harness.env.tamper.stored_count("x") == 8
    assert harness.stored("x")[:8] == list(session.events)


def test_19_another_cwd_cannot_take_a_stored_header_without_events(harness: Harness) -> None:
    past = harness.persist("x", one_turn, cwd="/w", created_at=500)
    harness.env.tamper.keep_events("x", 0)
    store, _, _ = harness.attach()
    with pytest.raises(ObserverError) as raised:
        store.create("x", seed=past, meta=SessionMeta(cwd="/elsewhere", created_at=500))
    assert refusal(raised.value).code is Code.ID_COLLISION_CWD


def test_20_another_cwd_cannot_take_a_stored_log(harness: Harness) -> None:
    past = harness.persist("x", one_turn, cwd="/w", created_at=500)
    before = harness.env.tamper.snapshot()
    store, _, _ = harness.attach()
    with pytest.raises(ObserverError) as raised:
        store.create("x", seed=past, meta=SessionMeta(cwd="/elsewhere", created_at=500))
    assert refusal(raised.value).code is Code.ID_COLLISION_CWD
    assert harness.env.tamper.snapshot() == before


@pytest.mark.parametrize(("stored_cwd", "live_cwd"), [(None, "/w"), ("/w", None)])
def test_21_a_missing_cwd_differs_from_every_cwd(
    harness: Harness, stored_cwd: str | None, live_cwd: str | None
) -> None:
    past = harness.persist("x", one_turn, cwd=stored_cwd, created_at=500)
    store, _, _ = harness.attach()
    with pytest.raises(ObserverError) as raised:
        store.create("x", seed=past, meta=SessionMeta(cwd=live_cwd, created_at=500))
    assert refusal(raised.value).code is Code.ID_COLLISION_CWD


def test_22_a_session_seeded_with_a_stored_log_continues_it_from_another_instance(harness: Harness) -> None:
    past = harness.persist("x", one_turn, created_at=500)
    store, coordinator, backend = harness.attach()
    session = store.create("x", seed=past, meta=SessionMeta(created_at=500))
    turn_start(session, 2)
    user(session, "more")
    coordinator.flush(session)
    assert backend.appends("x") == [(6, 7)]
    assert harness.stored("x")[:8] == list(session.events)


def test_23_a_session_without_events_leaves_no_trace(harness: Harness) -> None:
    store, coordinator, backend = harness.attach()
    session = store.create("lazy")
    coordinator.flush(session)
    coordinator.flush_all()
    coordinator.close()
    assert harness.env.backend().list() == ()
    assert [call.op for call in backend.calls if call.op in ("create", "append")] == []
    with pytest.raises(SessionNotFoundError):
        harness.env.backend().load("lazy")


def test_24_loading_or_resuming_a_missing_session_is_refused(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    for call in (coordinator.load, coordinator.resume):
        with pytest.raises(SessionNotFoundError) as raised:
            call("nobody")
        assert raised.value.code is Code.SESSION_NOT_FOUND
    assert len(store) == 0


def test_25_a_live_id_is_taken(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    session = store.create("x")
    one_turn(session)
    coordinator.flush(session)
    with pytest.raises(SessionStoreError) as raised:
        store.create("x")
    assert raised.value.code is Code.SESSION_ALREADY_EXISTS
    before = harness.env.tamper.snapshot()
    with pytest.raises(SessionCollisionError) as resumed:
        coordinator.resume("x")
    assert resumed.value.code is Code.SESSION_ALREADY_BOUND
    assert harness.env.tamper.snapshot() == before


def test_26_an_unknown_stored_format_version_is_refused_everywhere(harness: Harness) -> None:
    past = harness.persist("x", one_turn, created_at=500)
    harness.env.tamper.set_version("x", 99)
    before = harness.env.tamper.snapshot()
    store, coordinator, _ = harness.attach()
    for call in (coordinator.load, coordinator.resume):
        with pytest.raises(IncompatibleStoreError) as raised:
            call("x")
        assert raised.value.code is Code.STORE_VERSION_UNSUPPORTED
    with pytest.raises(ObserverError) as created:
        store.create("x", seed=past, meta=SessionMeta(created_at=500))
    assert refusal(created.value).code is Code.STORE_VERSION_UNSUPPORTED
    assert harness.env.tamper.snapshot() == before


def test_27_fork_lineage_round_trips(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    parent = store.create("parent", meta=SessionMeta(cwd="/srv/app"))
    one_turn(parent)
    child = store.fork(parent, child_id="child")
    turn_start(child, 2)
    coordinator.flush_all()
    header = harness.env.backend().load("child").header
    assert (header.parent_session, header.seed_length, header.cwd) == ("parent", 6, "/srv/app")


def test_28_a_session_entered_without_being_announced_is_bound_from_seq_0(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    session = store.prepare("quiet")
    store.enter(session)
    turn_start(session)
    user(session)
    coordinator.flush(session)
    assert harness.stored("quiet")[:2] == list(session.events)


def test_29_a_torn_tail_is_cut_and_the_open_turn_closed_on_load(durable: Harness) -> None:
    def open_turn(session: Session) -> None:
        one_turn(session)
        turn_start(session, 2)
        step_start(session, 2)

    durable.persist("s", open_turn)
    if durable.env.tamper.tears:
        durable.env.tamper.tear_tail("s")
    _, coordinator, _ = durable.attach()
    loaded = coordinator.load("s")
    assert seqs(list(loaded.events)) == list(range(10))
    assert [e.type for e in loaded.events[8:]] == ["step/end", "turn/end"]
    resumed = coordinator.resume("s")
    assert list(resumed.events) == list(loaded.events)
    turn_start(resumed, 3)
    turn_end(resumed, 3)
    coordinator.flush(resumed)
    assert seqs(durable.stored("s")) == list(range(12))


# == Part 2: the reference's weak spots, fixed ================================================


def test_b1_resume_right_after_a_repair_that_closed_a_logged_tool_call(harness: Harness) -> None:
    """The closer for a logged call carries provenance; SQLite reads it back in another key order."""

    def crashed(session: Session) -> None:
        one_turn(session)
        turn_start(session, 2)
        step_start(session, 2)
        assistant(session, 2, calls=["call-x"])
        session.append("tool/call", {"turn": 2, "step": 1, "callId": "call-x", "name": "bash"})

    harness.persist("s", crashed)
    _, coordinator, _ = harness.attach()
    loaded = coordinator.load("s")  # the repair: tool/result (with provenance), step/end, turn/end
    assert loaded.events[10].source_event_seqs == (9,)
    resumed = coordinator.resume("s")
    one_turn(resumed, 3)
    coordinator.flush(resumed)
    assert harness.stored("s") == list(resumed.events)


def test_b1_a_seed_read_back_with_other_key_orders_is_the_same_log(harness: Harness) -> None:
    past = harness.persist("s", one_turn, created_at=500)
    reordered = [
        Event(
            e.type,
            e.seq,
            e.time,
            {key: e.data[key] for key in reversed(list(e.data))},
            e.source_event_seqs,
            e.surface_op,
            key_order=("data", "time", "seq", "type", "surfaceOp"),
        )
        for e in past
    ]
    store, coordinator, backend = harness.attach()
    session = store.create("s", seed=reordered, meta=SessionMeta(created_at=500))
    turn_start(session, 2)
    coordinator.flush(session)
    assert backend.appends("s") == [(6,)]


def test_b1_true_is_not_1(harness: Harness) -> None:
    def flagged(session: Session) -> None:
        session.append("todo/write", {"done": 1})

    harness.persist("s", flagged, created_at=500)
    store, _, _ = harness.attach()
    with pytest.raises(ObserverError) as raised:
        store.create(
            "s", seed=[Event("todo/write", 0, 1000, {"done": True})], meta=SessionMeta(created_at=500)
        )
    assert (refusal(raised.value).code, refusal(raised.value).seq) == (Code.ID_COLLISION_LOG, 0)


def test_b6_by_default_a_finished_step_is_durable_without_an_explicit_flush(harness: Harness) -> None:
    store, _, _ = harness.attach(flush_on=DEFAULT_FLUSH_ON, max_pending=DEFAULT_MAX_PENDING)
    session = store.create("s")
    turn_start(session)
    user(session)
    step_start(session)
    session.append("assistant/chunk", {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "text": "x"}})
    assert harness.env.backend().list() == ()  # mid-step: still pending
    step_end(session)
    assert harness.env.tamper.stored_count("s") == 5  # the step is durable: no flush was called
    user(session, "steer")
    assert harness.env.tamper.stored_count("s") == 5
    session.append(
        "tool/result",
        {"turn": 1, "step": 2, "callId": "c", "content": [], "isError": False},
        surface_op="append",
    )
    assert harness.env.tamper.stored_count("s") == 7
    turn_end(session)
    assert harness.env.tamper.stored_count("s") == 8


def test_b6_max_pending_bounds_what_a_crash_can_lose(harness: Harness) -> None:
    store, coordinator, _ = harness.attach(max_pending=3)
    session = store.create("s")
    for text in "ab":
        user(session, text)
    assert coordinator.flushed(session) == 0
    user(session, "c")
    assert coordinator.flushed(session) == 3
    assert harness.env.tamper.stored_count("s") == 3
    with pytest.raises(ValueError, match="max_pending"):
        PersistenceCoordinator(store, harness.env.backend(), max_pending=0)


def test_b14_a_live_session_cannot_be_loaded_and_its_turn_closed_under_it(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    session = store.create("s")
    turn_start(session)
    step_start(session)
    coordinator.flush(session)  # stored mid-turn
    before = harness.env.tamper.snapshot()
    for call in (coordinator.load, coordinator.resume):
        with pytest.raises(SessionCollisionError) as raised:
            call("s")
        assert raised.value.code is Code.SESSION_ALREADY_BOUND
    assert harness.env.tamper.snapshot() == before
    step_end(session)
    turn_end(session)
    coordinator.flush(session)
    assert harness.stored("s") == list(session.events)  # no interrupted closers in between
    store.remove(session)
    assert list(coordinator.load("s").events) == list(session.events)


@pytest.mark.parametrize(
    ("meta", "field"),
    [
        (SessionMeta(created_at=501), "createdAt"),
        (SessionMeta(created_at=500, parent_session="p"), "parentSession"),
        (SessionMeta(created_at=500, seed_length=0), "seedLength"),  # 0 is not absent
    ],
    ids=["createdAt", "parentSession", "seedLength"],
)
def test_b15_a_live_header_that_differs_from_the_stored_one_is_refused(
    harness: Harness, meta: SessionMeta, field: str
) -> None:
    past = harness.persist("x", one_turn, created_at=500)
    store, _, _ = harness.attach()
    with pytest.raises(ObserverError) as raised:
        store.create("x", seed=past, meta=meta)
    error = refusal(raised.value)
    assert error.code is Code.ID_COLLISION_HEADER
    assert field in str(error)


def test_b16_a_write_by_another_instance_after_binding_is_a_conflict_not_a_duplicate(
    harness: Harness,
) -> None:
    store, coordinator, _ = harness.attach()
    session = store.create("s")
    one_turn(session)
    coordinator.flush(session)
    other = harness.env.backend()
    intruder = Session("s", seed=other.load("s").events, clock=Clock(5000))
    other.append("s", [turn_start(intruder, 2)])
    turn_start(session, 2)
    with pytest.raises(PersistenceError) as raised:
        coordinator.flush(session)
    assert raised.value.code is Code.STORE_CONFLICT
    assert isinstance(raised.value, StoreConflictError)
    stored = harness.stored("s")
    assert seqs(stored) == list(range(len(stored)))  # no duplicated seq
    assert stored[6].time >= 5000  # the intruder's event, not ours
    with pytest.raises(DrainError) as drained:
        coordinator.close()  # the conflict stays: ours can no longer be written
    assert drained.value.failures[0][1].code is Code.STORE_CONFLICT  # type: ignore[attr-defined]


def test_b16_binding_reads_and_decides_under_one_lock(harness: Harness) -> None:
    """A load racing the binding of the same id waits for it: it never sees half a decision."""
    past = harness.persist("x", one_turn, created_at=500)
    store, coordinator, backend = harness.attach()
    entered = threading.Event()
    release = threading.Event()
    inner_load = backend.load

    def slow_load(session_id: str, *, close_turn: bool = True) -> Any:
        if not close_turn:
            entered.set()
            release.wait(5)
        return inner_load(session_id, close_turn=close_turn)

    backend.load = slow_load  # type: ignore[method-assign]
    results: list[object] = []

    def racer() -> None:
        entered.wait(5)
        try:
            results.append(coordinator.load("x"))
        except PersistenceError as error:
            results.append(error)

    thread = threading.Thread(target=racer)
    thread.start()
    creator = threading.Timer(0.05, release.set)
    creator.start()
    session = store.create("x", seed=past, meta=SessionMeta(created_at=500))
    thread.join(5)
    creator.join()
    (result,) = results
    assert isinstance(result, SessionCollisionError) and result.code is Code.SESSION_ALREADY_BOUND
    assert coordinator.flushed(session) == 6


def test_b30_a_session_that_left_the_store_is_released_after_its_last_flush(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    session = store.create("s")
    one_turn(session)
    store.remove(session)
    turn_start(session, 2)  # appended after leaving the store: still written by the last flush
    coordinator.flush(session)
    assert harness.env.tamper.stored_count("s") == 7
    with pytest.raises(UnboundSessionError) as raised:
        coordinator.flushed(session)
    assert raised.value.code is Code.SESSION_NOT_LIVE
    with pytest.raises(UnboundSessionError):
        coordinator.flush(session)
    resumed = coordinator.resume("s")  # the id is free again; the stored log comes back
    assert list(resumed.events)[:7] == list(session.events)


def test_b30_close_reports_each_failing_session_once_and_writes_the_others(harness: Harness) -> None:
    harness.persist("taken", one_turn, created_at=500)
    store = harness.store()
    colliding = store.create("taken", meta=SessionMeta(created_at=500))
    turn_start(colliding)
    fine = store.create("fine")
    one_turn(fine)
    _, coordinator, _ = harness.attach(store)
    assert set(coordinator.refused) == {"taken"}
    assert coordinator.refused["taken"].code is Code.ID_COLLISION_LOG  # type: ignore[attr-defined]
    with pytest.raises(SessionCollisionError):
        coordinator.flush(colliding)  # every flush of it says why
    with pytest.raises(DrainError) as raised:
        coordinator.close()
    assert raised.value.code is Code.DRAIN_FAILED
    assert [sid for sid, _ in raised.value.failures] == ["taken"]
    assert harness.stored("fine") == list(fine.events)
    with pytest.raises(StoreClosedError):
        coordinator.flush(fine)


# == Part 3: our own guarantees ==============================================================


def test_a_failed_flush_keeps_the_events_pending_and_the_next_flush_writes_them(harness: Harness) -> None:
    store, coordinator, backend = harness.attach()
    session = store.create("s")
    turn_start(session)
    user(session)
    backend.fail_appends = 1
    with pytest.raises(StoreIOError) as raised:
        coordinator.flush(session)
    assert raised.value.code is Code.STORE_IO
    assert coordinator.flushed(session) == 0
    assert harness.env.backend().list() == ()
    step_start(session)
    coordinator.flush(session)
    assert backend.appends("s") == [(0, 1, 2)]
    assert harness.stored("s")[:3] == list(session.events)


def test_a_failed_automatic_flush_is_reported_not_raised_and_retried(harness: Harness) -> None:
    reported: list[ObserverError] = []
    store = SessionStore(clock=Clock(), on_observer_error=reported.append)
    _, coordinator, backend = harness.attach(store, flush_on=("turn/end",))
    session = store.create("s")
    backend.fail_appends = 1
    one_turn(session)  # the automatic flush at turn/end fails; append does not raise
    assert len(reported) == 1
    assert isinstance(reported[0].__cause__, StoreIOError)
    assert coordinator.flushed(session) == 0
    coordinator.flush(session)
    assert harness.stored("s") == list(session.events)


def test_after_a_failed_write_max_pending_waits_before_retrying(harness: Harness) -> None:
    reported: list[ObserverError] = []
    store = SessionStore(clock=Clock(), on_observer_error=reported.append)
    _, coordinator, backend = harness.attach(store, max_pending=4)
    session = store.create("s")
    backend.fail_appends = 100  # the disk stays full
    for n in range(12):
        user(session, str(n))
    assert backend.failed == 3  # at 4, 8 and 12 pending events: not at every event past 4
    assert len(reported) == 3
    backend.fail_appends = 0
    coordinator.flush(session)
    assert harness.env.tamper.stored_count("s") == 12


def test_a_session_whose_header_names_another_id_is_refused(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    impostor = Session("a", header=SessionHeader("b", 1))
    store.enter(impostor)
    with pytest.raises(ObserverError) as raised:
        store.announce(impostor)
    assert refusal(raised.value).code is Code.INVALID_HEADER
    user(impostor)
    with pytest.raises(DrainError) as drained:
        coordinator.close()
    assert [(sid, error.code) for sid, error in drained.value.failures] == [  # type: ignore[attr-defined]
        ("a", Code.INVALID_HEADER)
    ]
    assert harness.env.backend().list() == ()


def test_batches_land_in_seq_order_when_threads_flush_at_once(harness: Harness) -> None:
    store, coordinator, backend = harness.attach()
    session = store.create("s")
    stop = threading.Event()
    errors: list[BaseException] = []

    def flusher() -> None:
        while not stop.is_set():
            try:
                coordinator.flush(session)
            except BaseException as error:  # pragma: no cover - reported below
                errors.append(error)
                return

    threads = [threading.Thread(target=flusher) for _ in range(3)]
    for thread in threads:
        thread.start()
    for turn in range(1, 21):
        one_turn(session, turn)
    stop.set()
    for thread in threads:
        thread.join(10)
    coordinator.flush(session)
    assert errors == []
    batches = backend.appends("s")
    assert [seq for batch in batches for seq in batch] == list(range(120))
    assert harness.stored("s") == list(session.events)


def test_close_is_idempotent_detaches_and_can_close_the_backend(harness: Harness) -> None:
    store = harness.store()
    inner = RecordingBackend(harness.env.backend())
    coordinator = PersistenceCoordinator(store, inner, close_backend=True)
    session = store.create("s")
    turn_start(session)
    coordinator.close()
    coordinator.close()
    assert [call.op for call in inner.calls].count("close") == 1
    user(session)  # no longer observed: nothing happens, nothing fails
    for call in (lambda: coordinator.flush(session), lambda: coordinator.load("s"), coordinator.flush_all):
        with pytest.raises(StoreClosedError) as raised:
            call()
        assert raised.value.code is Code.STORE_CLOSED
    assert harness.env.tamper.stored_count("s") == 1


def test_the_context_manager_drains(harness: Harness) -> None:
    store = harness.store()
    with PersistenceCoordinator(store, harness.env.backend(), **MANUAL) as coordinator:
        session = store.create("s")
        one_turn(session)
        assert coordinator.flushed(session) == 0
    assert harness.stored("s") == list(session.events)


def test_release_refuses_a_live_session_and_flushes_a_departed_one(harness: Harness) -> None:
    store, coordinator, _ = harness.attach()
    session = store.create("s")
    one_turn(session)
    with pytest.raises(SessionCollisionError) as raised:
        coordinator.release(session)
    assert raised.value.code is Code.SESSION_ALREADY_BOUND
    store.remove(session)
    coordinator.release(session)
    assert harness.stored("s") == list(session.events)
    with pytest.raises(UnboundSessionError):
        coordinator.release(session)


def test_flush_of_a_foreign_session_is_refused(harness: Harness) -> None:
    _, coordinator, _ = harness.attach()
    stranger = Session("stranger")
    with pytest.raises(UnboundSessionError) as raised:
        coordinator.flush(stranger)
    assert raised.value.code is Code.SESSION_NOT_LIVE
    assert raised.value.session_id == "stranger"


def test_a_resumed_open_turn_comes_back_closed_and_the_repair_is_durable(harness: Harness) -> None:
    def open_turn(session: Session) -> None:
        turn_start(session)
        step_start(session)
        assistant(session, calls=["c1"])

    harness.persist("s", open_turn)
    _, coordinator, _ = harness.attach()
    resumed = coordinator.resume("s")
    assert [e.type for e in resumed.events] == [
        "turn/start",
        "step/start",
        "assistant/message",
        "tool/result",
        "step/end",
        "turn/end",
    ]
    assert coordinator.flushed(resumed) == 6
    assert harness.env.tamper.stored_count("s") == 6
    (block,) = resumed.derive_messages()[-1]["content"]
    assert (block["type"], block["toolCallId"], block["isError"]) == ("tool-result", "c1", True)


def test_fork_of_a_colliding_child_id_is_rolled_back(harness: Harness) -> None:
    harness.persist("child", one_turn, created_at=500)
    store, _, _ = harness.attach()
    parent = store.create("parent")
    one_turn(parent)
    with pytest.raises(ObserverError) as raised:
        store.fork(parent, child_id="child")
    assert refusal(raised.value).code is Code.ID_COLLISION_HEADER
    assert "child" not in store


def test_the_coordinator_accepts_every_backend(harness: Harness) -> None:
    backend = harness.env.backend()
    assert isinstance(backend, SessionBackend)
    store = harness.store()
    with PersistenceCoordinator(store, backend) as coordinator:
        assert coordinator.backend is backend and coordinator.store is store

"""SessionStore: ids, headers, entering and detaching, observers.

Reference cases: core.md §11, session.spec.ts "SessionStore" (16-25) and
"todo/write" (26-29), in our words and adapted to our decisions
(docs/deviations.md D-S1..D-S4).
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from dsh_session import (
    Code,
    Event,
    ObserverError,
    Session,
    SessionForkError,
    SessionHeader,
    SessionMeta,
    SessionStore,
    SessionStoreError,
    StoreObserver,
    thaw,
)
from tests.store_support import FIXED_TIME, closed_turn, fixed_clock, user_data


class Recorder(StoreObserver):
    """Writes down every notification as ``("created", id)`` / ``("event", id, seq, type)``."""

    def __init__(self, journal: list[tuple[Any, ...]] | None = None, tag: str = "") -> None:
        self.seen: list[tuple[Any, ...]] = []
        self.journal = journal
        self.tag = tag

    def session_created(self, session: Session) -> None:
        self._note(("created", session.id))

    def session_event(self, session: Session, event: Event) -> None:
        self._note(("event", session.id, event.seq, event.type))

    def _note(self, entry: tuple[Any, ...]) -> None:
        self.seen.append(entry)
        if self.journal is not None:
            self.journal.append((self.tag, *entry))


class Boom(StoreObserver):
    def __init__(self, on_created: bool = True, on_event: bool = True) -> None:
        self.on_created = on_created
        self.on_event = on_event

    def session_created(self, session: Session) -> None:
        if self.on_created:
            raise RuntimeError(f"created boom {session.id}")

    def session_event(self, session: Session, event: Event) -> None:
        if self.on_event:
            raise RuntimeError(f"event boom {event.seq}")


def new_store(errors: list[ObserverError] | None = None) -> SessionStore:
    return SessionStore(clock=fixed_clock, on_observer_error=None if errors is None else errors.append)


def expect(code: Code, error: BaseException) -> None:
    assert getattr(error, "code", None) is code, error


# -- create, get, list (16, 17) ------------------------------------------------------------------


def test_create_registers_announces_and_feeds_events() -> None:
    store = new_store()
    recorder = Recorder()
    store.subscribe(recorder)
    session = store.create()
    assert recorder.seen == [("created", session.id)]
    session.append("user/message", user_data("hi"), surface_op="append")
    assert recorder.seen[1:] == [("event", session.id, 0, "user/message")]
    assert store.get(session.id) is session
    assert store.list() == [session] and store.list() is not store.list()
    assert session.id in store and len(store) == 1


def test_duplicate_ids_are_refused_and_seeds_replay() -> None:
    store = new_store()
    fixed = store.create("fixed")
    closed_turn(fixed, 1, "hello")
    with pytest.raises(SessionStoreError) as caught:
        store.create("fixed")
    expect(Code.SESSION_ALREADY_EXISTS, caught.value)
    assert caught.value.session_id == "fixed" and '"fixed"' in caught.value.message
    assert store.get("fixed") is fixed
    replay = store.create("replay", seed=fixed.events)
    assert replay.derive_messages() == fixed.derive_messages()
    assert replay.events == fixed.events


# -- prepare / enter / announce (18, 19) ---------------------------------------------------------


def test_enter_refuses_a_stale_prepared_session_whose_id_went_live() -> None:
    store = new_store()
    stale = store.prepare("racy")
    live = store.create("racy")
    with pytest.raises(SessionStoreError) as caught:
        store.enter(stale)
    expect(Code.SESSION_ALREADY_EXISTS, caught.value)
    assert store.get("racy") is live


def test_prepare_enter_announce_are_separate_steps() -> None:
    store = new_store()
    recorder = Recorder()
    store.subscribe(recorder)
    session = store.prepare("p")
    assert store.get("p") is None and recorder.seen == []
    detach = store.enter(session)
    assert store.get("p") is session and recorder.seen == []
    store.announce(session)
    assert recorder.seen == [("created", "p")]
    detach()
    assert store.get("p") is None and store.list() == []


# -- headers (20-23) -----------------------------------------------------------------------------


def test_a_bare_created_session_gets_a_minimal_header() -> None:
    session = new_store().create("plain")
    assert session.header == SessionHeader(id="plain", created_at=FIXED_TIME)
    assert session.header.to_json() == {"version": 0, "id": "plain", "createdAt": FIXED_TIME}


def test_meta_goes_into_the_header_in_reference_key_order() -> None:
    meta = SessionMeta(cwd="/work/repo", parent_session="parent", created_at=0, seed_length=7)
    session = new_store().create("child", meta=meta)
    assert session.header.to_json() == {
        "version": 0,
        "id": "child",
        "createdAt": 0,
        "cwd": "/work/repo",
        "parentSession": "parent",
        "seedLength": 7,
    }
    assert list(session.header.to_json()) == [
        "version",
        "id",
        "createdAt",
        "cwd",
        "parentSession",
        "seedLength",
    ]


def test_seed_length_is_recorded_not_inferred() -> None:
    store = new_store()
    source = store.create("s")
    closed_turn(source, 1, "x")
    assert store.create("a", seed=source.events).header.seed_length is None
    assert store.create("b", seed=source.events, meta=SessionMeta(seed_length=0)).header.seed_length == 0


@pytest.mark.parametrize("cwd", ["relative/dir", "", "./x", "~/x"])
def test_a_relative_cwd_is_refused_and_nothing_is_registered(cwd: str) -> None:
    store = new_store()
    with pytest.raises(SessionStoreError) as caught:
        store.create(meta=SessionMeta(cwd=cwd))
    expect(Code.CWD_NOT_ABSOLUTE, caught.value)
    assert store.list() == []
    assert store.create().id == "session-1"  # the refused create minted nothing


def test_enter_rechecks_the_cwd() -> None:
    store = new_store()
    session = Session("s", header=SessionHeader(id="s", created_at=1, cwd="rel"))
    with pytest.raises(SessionStoreError) as caught:
        store.enter(session)
    expect(Code.CWD_NOT_ABSOLUTE, caught.value)
    assert store.get("s") is None


def test_a_session_built_without_a_store_has_a_header() -> None:
    session = Session("bare", clock=lambda: 42)
    assert session.header.to_json() == {"version": 0, "id": "bare", "createdAt": 42}


# -- minted ids (D-S1) ---------------------------------------------------------------------------


def test_minted_ids_count_up_and_skip_live_ids() -> None:
    store = new_store()
    assert store.create().id == "session-1"
    store.create("session-2")
    store.create("session-3")
    assert store.create().id == "session-4"
    assert store.prepare().id == "session-5"  # a prepared id is handed out
    assert store.create().id == "session-6"


def test_an_empty_id_is_an_id() -> None:
    store = new_store()
    assert store.create("").id == ""
    assert store.get("") is not None


def test_a_failed_prepare_mints_nothing() -> None:
    store = new_store()
    with pytest.raises(Exception) as caught:
        store.prepare(seed=[{"type": "turn/start", "seq": 5, "time": 0, "data": {}}])
    expect(Code.SEQ_NOT_CONTIGUOUS, caught.value)
    assert store.prepare().id == "session-1"


def test_an_id_announced_to_observers_stays_used_when_one_of_them_refuses() -> None:
    """D-S1: observers heard of ``session-1`` before one refused it; minting it again would
    announce a second, different ``session-1`` to them. Refusals before the announcement mint
    nothing (above)."""
    store = new_store()
    recorder, boom = Recorder(), Boom(on_event=False)
    store.subscribe(recorder)
    unsubscribe = store.subscribe(boom)
    for _ in range(2):
        with pytest.raises(ObserverError) as caught:
            store.create()
        expect(Code.OBSERVER_FAILED, caught.value)
    assert store.list() == []
    assert recorder.seen == [("created", "session-1"), ("created", "session-2")]
    unsubscribe()
    assert store.create().id == "session-3"
    with pytest.raises(SessionForkError):
        store.fork("session-3", boundary=0)  # refused before any announcement: nothing minted
    assert store.create().id == "session-4"


# -- detach and remove (24, B18) -----------------------------------------------------------------


def test_a_removed_session_is_gone_and_no_longer_observed() -> None:
    store = new_store()
    recorder = Recorder()
    store.subscribe(recorder)
    session = store.create("gone")
    assert store.remove(session) is True
    assert store.get("gone") is None
    session.append("todo/write", {"todos": []})
    assert recorder.seen == [("created", "gone")]
    assert store.remove(session) is False and store.remove("gone") is False


def test_remove_by_id_and_remove_of_a_stale_object() -> None:
    store = new_store()
    first = store.create("x")
    store.remove("x")
    second = store.create("x")
    assert store.remove(first) is False
    assert store.get("x") is second
    assert store.remove("x") is True


def test_a_stale_detach_never_removes_a_newer_session() -> None:
    store = new_store()
    recorder = Recorder()
    store.subscribe(recorder)
    first = store.prepare("same")
    detach_first = store.enter(first)
    detach_first()
    second = store.prepare("same")
    store.enter(second)
    detach_first()  # stale: must do nothing
    assert store.get("same") is second
    second.append("todo/write", {"todos": []})
    assert recorder.seen == [("event", "same", 0, "todo/write")]


def test_detach_after_reentering_the_same_object_is_stale_too() -> None:
    store = new_store()
    session = store.prepare("again")
    old = store.enter(session)
    old()
    store.enter(session)
    old()
    assert store.get("again") is session
    recorder = Recorder()
    store.subscribe(recorder)
    session.append("todo/write", {"todos": []})
    assert recorder.seen == [("event", "again", 0, "todo/write")]


def test_a_session_feeds_one_store_at_a_time() -> None:
    a, b = new_store(), new_store()
    session = a.prepare("s")
    detach = a.enter(session)
    with pytest.raises(SessionStoreError) as caught:
        b.enter(session)
    expect(Code.SESSION_ALREADY_ENTERED, caught.value)
    assert b.get("s") is None
    detach()
    b.enter(session)
    assert b.get("s") is session


# -- observers and rollback (25, B11) ------------------------------------------------------------


def test_create_rolls_back_when_an_observer_refuses_the_session() -> None:
    store = new_store()
    boom = Boom(on_event=False)
    after = Recorder()
    store.subscribe(boom)
    store.subscribe(after)
    with pytest.raises(ObserverError) as caught:
        store.create("rollback")
    error = caught.value
    expect(Code.OBSERVER_FAILED, error)
    assert error.session_id == "rollback" and error.seq is None
    assert [o for o, _ in error.failures] == [boom]
    assert isinstance(error.__cause__, RuntimeError)
    assert after.seen == [("created", "rollback")]  # every observer is told
    assert store.get("rollback") is None
    store.unsubscribe(boom)
    again = store.create("rollback")
    again.append("todo/write", {"todos": []})
    assert after.seen[-1] == ("event", "rollback", 0, "todo/write")


def test_an_observer_failure_never_undoes_or_escapes_an_append() -> None:
    errors: list[ObserverError] = []
    store = new_store(errors)
    before, after = Recorder(), Recorder()
    store.subscribe(before)
    store.subscribe(Boom(on_created=False))
    store.subscribe(after)
    session = store.create("s")
    event = session.append("todo/write", {"todos": []})
    assert session.events == [event]
    assert before.seen[-1] == after.seen[-1] == ("event", "s", 0, "todo/write")
    assert len(errors) == 1
    expect(Code.OBSERVER_FAILED, errors[0])
    assert (errors[0].session_id, errors[0].seq) == ("s", 0)
    assert isinstance(errors[0].__cause__, RuntimeError)


def test_observer_failures_are_logged_by_default(caplog: pytest.LogCaptureFixture) -> None:
    store = SessionStore(clock=fixed_clock)
    store.subscribe(Boom(on_created=False))
    session = store.create("logged")
    with caplog.at_level(logging.ERROR, logger="dsh_session.store"):
        session.append("todo/write", {"todos": []})
    assert len(session.events) == 1
    assert any("OBSERVER_FAILED" in record.getMessage() for record in caplog.records)


def test_a_failing_error_handler_does_not_escape_either(caplog: pytest.LogCaptureFixture) -> None:
    def handler(error: ObserverError) -> None:
        raise ValueError("handler broke")

    store = SessionStore(clock=fixed_clock, on_observer_error=handler)
    store.subscribe(Boom(on_created=False))
    session = store.create("s")
    with caplog.at_level(logging.ERROR, logger="dsh_session.store"):
        session.append("todo/write", {"todos": []})
    assert len(session.events) == 1 and caplog.records


class Injector(StoreObserver):
    """Appends a context message whenever it hears of a ``step/start`` (like a plugin would)."""

    def session_event(self, session: Session, event: Event) -> None:
        if event.type == "step/start":
            session.append(
                "context/message",
                {"content": [{"type": "text", "text": "ctx"}], "source": {"kind": "plugin", "plugin": "p"}},
                surface_op="append",
            )


def test_reentrant_appends_reach_every_observer_in_seq_order() -> None:
    store = new_store()
    journal: list[tuple[Any, ...]] = []
    first, later = Recorder(journal, "first"), Recorder(journal, "later")
    store.subscribe(first)
    store.subscribe(Injector())
    store.subscribe(later)
    session = store.create("s")
    session.append("turn/start", {"turn": 1})
    session.append("step/start", {"turn": 1, "step": 1})
    session.append("step/end", {"turn": 1, "step": 1})
    for recorder in (first, later):
        assert [entry[2] for entry in recorder.seen[1:]] == [0, 1, 2, 3]
    # one notification at a time: everyone hears of seq 1 before anyone hears of seq 2
    order = [(tag, entry[2]) for tag, *entry in journal if entry[0] == "event"]
    assert order == [(t, n) for n in range(4) for t in ("first", "later")]


def test_an_observer_unsubscribed_mid_notification_hears_nothing_more() -> None:
    store = new_store()
    victim = Recorder()

    class Remover(StoreObserver):
        def session_event(self, session: Session, event: Event) -> None:
            store.unsubscribe(victim)

    store.subscribe(Remover())
    store.subscribe(victim)
    session = store.create("s")
    session.append("todo/write", {"todos": []})
    assert victim.seen == [("created", "s")]


def test_subscribe_is_idempotent_and_returns_unsubscribe() -> None:
    store = new_store()
    recorder = Recorder()
    unsubscribe = store.subscribe(recorder)
    store.subscribe(recorder)
    store.create("a")
    assert recorder.seen == [("created", "a")]
    unsubscribe()
    unsubscribe()
    store.unsubscribe(Recorder())  # never subscribed: ignored
    store.create("b")
    assert recorder.seen == [("created", "a")]


def test_events_appended_during_session_created_follow_the_announcement() -> None:
    store = new_store()

    class Greeter(StoreObserver):
        def session_created(self, session: Session) -> None:
            session.append("todo/write", {"todos": []})

    journal: list[tuple[Any, ...]] = []
    store.subscribe(Greeter())
    store.subscribe(Recorder(journal, "a"))
    store.subscribe(Recorder(journal, "b"))
    store.create("s")
    assert journal == [
        ("a", "created", "s"),
        ("b", "created", "s"),
        ("a", "event", "s", 0, "todo/write"),
        ("b", "event", "s", 0, "todo/write"),
    ]


def test_a_session_created_inside_a_notification_is_announced_at_once() -> None:
    store = new_store()
    journal: list[tuple[Any, ...]] = []

    class Spawner(StoreObserver):
        def session_event(self, session: Session, event: Event) -> None:
            if session.id == "parent":
                store.create("spawned").append("todo/write", {"todos": []})

    store.subscribe(Spawner())
    recorder = Recorder(journal, "r")
    store.subscribe(recorder)
    store.create("parent").append("todo/write", {"todos": []})
    assert recorder.seen == [
        ("created", "parent"),
        ("created", "spawned"),
        ("event", "parent", 0, "todo/write"),
        ("event", "spawned", 0, "todo/write"),
    ]


def test_announce_tells_everyone_then_reports_every_failure() -> None:
    store = new_store()
    one, two = Boom(on_event=False), Boom(on_event=False)
    recorder = Recorder()
    for observer in (one, recorder, two):
        store.subscribe(observer)
    session = store.prepare("s")
    with pytest.raises(ObserverError) as caught:
        store.announce(session)
    assert [o for o, _ in caught.value.failures] == [one, two]
    assert recorder.seen == [("created", "s")]
    assert "2 observer(s)" in caught.value.message


# -- todo/write (26-29) --------------------------------------------------------------------------


def todos(*items: tuple[str, str]) -> dict[str, Any]:
    return {"todos": [{"content": content, "status": status} for content, status in items]}


def test_todo_write_logs_the_whole_list_and_is_isolated_from_the_caller() -> None:
    session = new_store().create("t")
    data = todos(("a", "pending"), ("b", "in_progress"))
    event = session.append("todo/write", data)
    data["todos"][0]["status"] = "completed"
    data["todos"].append({"content": "c", "status": "pending"})
    assert thaw(session.events[0].data) == todos(("a", "pending"), ("b", "in_progress"))
    assert event.data == session.events[0].data


def test_todo_write_last_write_wins() -> None:
    session = new_store().create("t")
    session.append("todo/write", todos(("a", "pending")))
    session.append("todo/write", todos(("a", "completed"), ("b", "pending")))
    latest = [event for event in session.events if event.type == "todo/write"][-1]
    assert thaw(latest.data) == todos(("a", "completed"), ("b", "pending"))


def test_todo_write_is_not_on_the_surface() -> None:
    session = new_store().create("t")
    session.append("user/message", user_data("hi"), surface_op="append")
    before = len(session.derive_messages())
    event = session.append("todo/write", todos(("a", "pending")))
    assert len(session.derive_messages()) == before
    assert event.seq not in [node.seq for node in session.surface.nodes]


def test_todo_write_replays_from_a_seed_without_a_marker() -> None:
    store = new_store()
    source = store.create("t")
    source.append("todo/write", todos(("a", "pending")))
    assert "surfaceOp" not in source.events[0].to_json()
    replay = store.create("replay", seed=[event.to_json() for event in source.events])
    assert replay.events == source.events and replay.seq == source.seq

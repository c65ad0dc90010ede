"""The write coordinator: a store's live sessions kept in a backend (``persistence.md`` §4, §6.2).

``coord.attach`` puts a coordinator between a store and a backend; sessions
are then written by ``coord.flush`` (and, where a case names a flush policy,
by themselves after a checkpoint event). What reached the backend is read through a second backend on the same
JSONL root (``check``), so a case sees the store on disk, not the coordinator's
own account. The reference's coordinator contract (tests 1-29 of §6.2) is
``core`` where our behaviour is the reference's -- sessions written on flush,
adoption of a stored prefix, resume, collisions of sessions live before the
coordinator was attached, refused at their flush; where we differ
(``docs/deviations.md`` C1-C8) the case is ``strict``. Without ``flushOn`` and
``maxPending`` only explicit flushes write (the reference flushes when its
loop says so), so core cases name neither.
"""

from __future__ import annotations

from typing import Any

from dsh_session.conformance.notation import *
from dsh_session.conformance.scenario import Act, Scenario, append, args_with, events, scenario
from dsh_session.conformance.scenarios.persistence import (
    CREATED,
    close,
    load,
    log_file,
    open_,
    read,
    stored_session,
)
from dsh_session.conformance.scenarios.store import create, fork, listing, remove
from dsh_spec.codes import Code
from dsh_spec.coordinator import DEFAULT_FLUSH_ON, DEFAULT_MAX_PENDING

COORD = "docs/persistence.md (The write coordinator)"
ADOPTION = "dsh_spec.adoption.adoption"
ROOT: dict[str, Any] = {"$scratch": "root"}
DATABASE: dict[str, Any] = {"$scratch": "db", "file": "sessions.db"}

#: A finished turn, and the first half of the next one.
TURN = [TS(1), U("a"), SS(1, 1), A(1, 1), SE(1, 1), TE(1)]
OPEN = [TS(2), U("b"), SS(2, 1)]


# -- step builders ---------------------------------------------------------------------------


def attach(
    backend: str = "db",
    *,
    flush_on: list[str] | None = None,
    max_pending: int | None = None,
    coordinator: str | None = None,
    store: str | None = None,
) -> Act:
    """``coord.attach``. Without ``flush_on`` and ``max_pending`` only explicit flushes write (the
    protocol's default, which every coordinator has); naming either is the ``coordinator.flush-policy``
    feature."""
    args = args_with(
        {"backend": backend},
        flushOn=flush_on or None,
        maxPending=max_pending,
        coordinator=coordinator,
        store=store,
    )
    return Act("coord.attach", args)


def attached(kind: str = "jsonl") -> list[Act]:
    """A ``kind`` store (JSONL at :data:`ROOT`, SQLite at :data:`DATABASE`, or memory) with a
    coordinator attached that writes only when flushed."""
    path = {"jsonl": ROOT, "sqlite": DATABASE}.get(kind)
    return [open_(kind, path), attach()]


def _coord(op: str, coordinator: str | None, **args: Any) -> Act:
    return Act(op, args_with(args, coordinator=coordinator))


def flush(session: str = "s", coordinator: str | None = None) -> Act:
    return _coord("coord.flush", coordinator, session=session)


def flushed(session: str = "s", coordinator: str | None = None) -> Act:
    return _coord("coord.flushed", coordinator, session=session)


def flush_all(coordinator: str | None = None) -> Act:
    return _coord("coord.flush_all", coordinator)


def refused(coordinator: str | None = None) -> Act:
    return _coord("coord.refused", coordinator)


def coord_load(session_id: str, coordinator: str | None = None) -> Act:
    return _coord("coord.load", coordinator, id=session_id)


def resume(session_id: str, session: str = "s", coordinator: str | None = None) -> Act:
    return _coord("coord.resume", coordinator, id=session_id, session=session)


def release(session: str = "s", *, discard: bool = False, coordinator: str | None = None) -> Act:
    act = _coord("coord.release", coordinator, session=session)
    if discard:
        act.args["discard"] = True
    return act


def shut(coordinator: str | None = None) -> Act:
    return _coord("coord.close", coordinator)


def appends(records: list[Record], session: str = "s", start: int = 0) -> list[Act]:
    """``session.append`` of each record, at times 2000 + seq (seqs from ``start``)."""
    return [
        append(record, time=2000 + start + index, session=session) for index, record in enumerate(records)
    ]


def on_disk(session_id: str, kind: str = "jsonl") -> list[Act]:
    """What a second backend on the same store loads (it closes an open turn, durably)."""
    path = ROOT if kind == "jsonl" else DATABASE
    return [open_(kind, path, backend="check"), load(session_id, backend="check", session=None)]


def writing(records: list[Record], kind: str = "jsonl") -> list[Act]:
    """A ``kind`` store with a coordinator attached (:func:`attached`), and session ``s`` at ``/w``
    created in its store with ``records`` appended (:func:`appends`)."""
    return [*attached(kind), create("s", cwd="/w"), *appends(records)]


def earlier(session_id: str, records: list[Record], *, kind: str = "jsonl", **fields: Any) -> list[Act]:
    """What an earlier process left: a ``kind`` store (JSONL at :data:`ROOT`, SQLite at
    :data:`DATABASE`), opened as backend ``earlier``, holding ``records`` under ``session_id``
    (:func:`stored_session`)."""
    stored = stored_session(session_id, records, "earlier", **fields)
    return [open_(kind, ROOT if kind == "jsonl" else DATABASE, backend="earlier"), *stored]


# -- the reference's coordinator contract ----------------------------------------------------


def contract() -> list[Scenario]:
    ref = (COORD, "docs/dialect-3fe196a751.md §P4")
    return [
        scenario(
            "coordinator.persists-a-live-session",
            "A session driven through the store is on disk after a flush (contract 1)",
            (*ref, "docs/dialect-3fe196a751.md §P6.2 #1"),
            "core",
            writing(TURN),
            flushed().gives(0),
            flush(),
            flushed().gives(6),
            on_disk("s"),
            read(ROOT, log_file("s", "/w")),
        ),
        scenario(
            "coordinator.seed-length-round-trip",
            "A seeded session's seedLength and parentSession survive persistence (contract 2, 27)",
            (*ref, "docs/dialect-3fe196a751.md §P6.2 #2", "docs/dialect-3fe196a751.md §P6.2 #27"),
            "core",
            attached(),
            Act(
                "store.create",
                {"session": "s", "id": "kid", "seed": log(*TURN), "cwd": "/w", "parentSession": "p"}
                | {"seedLength": 6, "time": CREATED},
            ),
            flush(),
            on_disk("kid"),
        ),
        scenario(
            "coordinator.fork-persists-its-seed-once",
            "A forked child's seed is written by its first flush, once (contract 5)",
            (*ref, "dsh_spec.fork.fork_seed", "docs/dialect-3fe196a751.md §P6.2 #5"),
            "core",
            attached(),
            create("p", seed=log(*TURN), cwd="/w"),
            fork("p", child="kid", session="kid"),
            flush("kid"),
            flush("kid"),
            flushed("kid").gives(6),
            on_disk("kid"),
        ),
        scenario(
            "coordinator.resume-continues-the-log",
            "A later process resumes a stored session and goes on at the next seq (contract 6)",
            (*ref, "docs/dialect-3fe196a751.md §P6.2 #6"),
            "core",
            writing(TURN),
            shut(),
            open_("jsonl", ROOT, backend="later"),
            attach("later", flush_on=[], coordinator="c2", store="second"),
            resume("s", session="r", coordinator="c2").gives(
                {"version": 0, "id": "s", "createdAt": CREATED, "cwd": "/w"}
            ),
            flushed("r", coordinator="c2").gives(6),
            appends(OPEN[:2], session="r", start=6),
            flush("r", coordinator="c2"),
            on_disk("s"),
        ),
        scenario(
            "coordinator.binds-sessions-live-before-it",
            "Sessions live before the coordinator was attached are persisted too (contract 7)",
            (*ref, "docs/dialect-3fe196a751.md §P4.3", "docs/dialect-3fe196a751.md §P6.2 #7"),
            "core",
            open_("jsonl", ROOT),
            create("s", cwd="/w"),
            appends(TURN[:3]),
            attach(),
            refused().gives([]),
            flush(),
            on_disk("s"),
        ),
        scenario(
            "coordinator.close-writes-what-waits",
            "Closing the coordinator writes every session's waiting events (contract 8)",
            (*ref, "docs/dialect-3fe196a751.md §P4.3", "docs/dialect-3fe196a751.md §P6.2 #8"),
            "core",
            writing(TURN),
            create("t", session="t"),
            appends(TURN[:2], session="t"),
            shut(),
            on_disk("s"),
            load("t", backend="check", session=None),
        ),
        scenario(
            "coordinator.adopts-its-own-stored-prefix",
            "A new coordinator takes a live session over from what an earlier one wrote (contract 9)",
            (*ref, ADOPTION, "docs/dialect-3fe196a751.md §P6.2 #9"),
            "core",
            writing(TURN),
            shut(),
            open_("jsonl", ROOT, backend="again"),
            attach("again", flush_on=[], coordinator="c2"),
            refused("c2").gives([]),
            appends(OPEN, start=6),
            flush(coordinator="c2"),
            flushed(coordinator="c2").gives(9),
            on_disk("s"),
        ),
        scenario(
            "coordinator.adoption-writes-the-live-suffix",
            "A live session ahead of its stored prefix gets only the rest written (contract 10)",
            (*ref, ADOPTION, "docs/dialect-3fe196a751.md §P6.2 #10"),
            "core",
            earlier("s", log(*TURN)[:2]),
            create("s", seed=log(*TURN), cwd="/w"),
            attached(),
            flush(),
            flushed().gives(6),
            on_disk("s"),
        ),
        scenario(
            "coordinator.adoption-leaves-the-turn-open",
            "Taking over a stored open turn cuts its torn tail but writes no closers: the live "
            "session ends the turn (contract 11)",
            (*ref, ADOPTION, "docs/dialect-3fe196a751.md §P4.5", "docs/dialect-3fe196a751.md §P6.2 #11"),
            "core",
            earlier("s", log(*TURN, *OPEN)),
            Act(
                "runner.write",
                {"path": ROOT, "file": log_file("s", "/w"), "text": '{"type":"assistant/ch', "append": True},
            ),
            create("s", seed=log(*TURN, *OPEN), cwd="/w"),
            attached(),
            appends([A(2, 1), SE(2, 1), TE(2)], start=9),
            flush(),
            on_disk("s"),
        ),
        scenario(
            "coordinator.live-session-colliding-with-a-stored-log",
            "A session live before the coordinator whose id holds another log is refused at its flush "
            "(contract 12)",
            (*ref, ADOPTION, "docs/errors.md ID_COLLISION_LOG", "docs/dialect-3fe196a751.md §P6.2 #12"),
            "core",
            earlier("s", log(*TURN)),
            create("s", seed=log(TS(1), U("another")), cwd="/w"),
            attached(),
            flush().fails(Code.ID_COLLISION_LOG),
            flush().fails(Code.ID_COLLISION_LOG),
            on_disk("s"),
        ),
        scenario(
            "coordinator.abandoned-session-frees-its-id",
            "A session removed before it wrote anything leaves its id free for a new one (contract 13)",
            (*ref, "docs/dialect-3fe196a751.md §P6.2 #13"),
            "core",
            attached(),
            create("x", cwd="/w", session="old"),
            remove("old"),
            create("x", cwd="/w", session="new"),
            appends(TURN[:2], session="new"),
            flush("new"),
            on_disk("x"),
        ),
        scenario(
            "coordinator.live-session-at-another-cwd",
            "A session live before the coordinator whose id is stored for another cwd is refused at "
            "its flush (contract 19-21)",
            (*ref, ADOPTION, "docs/errors.md ID_COLLISION_CWD", "docs/dialect-3fe196a751.md §P6.2 #19-21"),
            "core",
            earlier("s", log(*TURN), cwd="/a"),
            stored_session("t", log(*TURN), "earlier", cwd=None),
            create("s", seed=log(*TURN), cwd="/b"),
            create("t", seed=log(*TURN), cwd="/a", session="t"),
            attached(),
            flush().fails(Code.ID_COLLISION_CWD),
            flush("t").fails(Code.ID_COLLISION_CWD),
        ),
        scenario(
            "coordinator.load-missing",
            "Loading through the coordinator an id nothing is stored under is refused (contract 24)",
            (*ref, "docs/errors.md SESSION_NOT_FOUND", "docs/dialect-3fe196a751.md §P6.2 #24"),
            "core",
            attached(),
            coord_load("nobody").fails(Code.SESSION_NOT_FOUND),
            resume("nobody").fails(Code.SESSION_NOT_FOUND),
        ),
    ]


# -- where we differ (docs/deviations.md C1-C8) ----------------------------------------------


def deviations() -> list[Scenario]:
    dev = (COORD, ADOPTION)
    # "x" stored at another cwd than its live session's (so writing it fails), "y" writable; a
    # coordinator attached, a turn appended to "y", and flush_all failing for "x".
    draining = (
        earlier("x", log(*TURN), cwd="/a"),
        create("x", seed=log(*TURN), cwd="/b", session="x"),
        create("y", cwd="/w", session="y"),
        open_("jsonl", ROOT),
        attach(),
        appends(TURN, session="y"),
        flush_all().fails(Code.DRAIN_FAILED),
    )
    # "s" stored with another createdAt, "t" with a seedLength its live session lacks: both refused.
    other_headers = (
        stored_session("s", log(*TURN), createdAt=CREATED - 1),
        stored_session("t", log(*TURN), seedLength=0),
        create("s", seed=log(*TURN), cwd="/w"),
        create("t", seed=log(*TURN), cwd="/w", session="t"),
        attach(),
        flush().fails(Code.ID_COLLISION_HEADER),
        flush("t").fails(Code.ID_COLLISION_HEADER),
    )
    cwd_checked = (
        *dev,
        "docs/deviations.md C2",
        "docs/errors.md ID_COLLISION_CWD",
        "docs/dialect-3fe196a751.md §P7 B2",
    )
    header_checked = (
        *dev,
        "docs/deviations.md C5",
        "docs/errors.md ID_COLLISION_HEADER",
        "docs/dialect-3fe196a751.md §P7 B15",
    )
    drain_failed = (
        *dev,
        "docs/deviations.md C7",
        "docs/errors.md DRAIN_FAILED",
        "docs/dialect-3fe196a751.md §P7 B30",
    )
    left_released = (
        *dev,
        "docs/deviations.md C7",
        "docs/errors.md SESSION_NOT_LIVE",
        "docs/dialect-3fe196a751.md §P7 B30",
    )
    # Session "s" leaves the store, is written once more, then no longer bound.
    leaving = (remove(), flush(), flush().fails(Code.SESSION_NOT_LIVE))
    todo_true = EV("todo/write", {"todos": [], "merge": True})
    todo_one = EV("todo/write", {"todos": [], "merge": 1})
    reordered = [{key: record[key] for key in reversed(list(record))} for record in log(*TURN)]
    return [
        scenario(
            "coordinator.adoption-ignores-key-order",
            "Adoption compares events as JSON values: a stored log whose keys are in another order "
            "is the live session's own past",
            (*dev, "docs/deviations.md C1", "docs/dialect-3fe196a751.md §P7 B1"),
            "strict",
            earlier("s", reordered),
            read(ROOT, log_file("s", "/w")),
            create("s", seed=log(*TURN), cwd="/w"),
            attached(),
            refused().gives([]),
            appends(OPEN, start=6),
            flush(),
            flushed().gives(9),
        ),
        scenario(
            "coordinator.adoption-true-is-not-1",
            "Adoption compares events as JSON values: a stored true is not the live session's 1",
            (*dev, "docs/deviations.md C1", "docs/errors.md ID_COLLISION_LOG"),
            "strict",
            open_("memory"),
            stored_session("s", log(TS(1), todo_true)),
            create("s", seed=log(TS(1), todo_one), cwd="/w"),
            attach(),
            refused().gives([{"id": "s", "code": "ID_COLLISION_LOG"}]),
            flush().fails(Code.ID_COLLISION_LOG),
        ),
        scenario(
            "coordinator.resume-right-after-a-repair",
            "Resuming a crashed session whose repair closed a tool call goes on writing (SQLite)",
            (
                *dev,
                "dsh_spec.repair.interrupted_turn_closers",
                "docs/deviations.md C1",
                "docs/dialect-3fe196a751.md §P7 B1",
            ),
            "strict",
            earlier("s", log(TS(1), U("a"), SS(1, 1), ATC(1, 1, "c1"), TC(1, 1, "c1")), kind="sqlite"),
            close("earlier"),
            attached("sqlite"),
            resume("s"),
            events(),
            appends([TS(2), U("b")], start=8),
            flush(),
            shut(),
            on_disk("s", "sqlite"),
        ),
        scenario(
            "coordinator.cwd-checked-on-sqlite",
            "The stored cwd is checked on SQLite too, and an absent cwd differs from any",
            cwd_checked,
            "strict",
            earlier("s", log(*TURN), kind="sqlite", cwd="/a"),
            stored_session("t", log(*TURN), "earlier", cwd=None),
            close("earlier"),
            create("s", seed=log(*TURN), cwd="/b"),
            create("t", seed=log(*TURN), cwd="/a", session="t"),
            attached("sqlite"),
            refused().gives(
                [{"id": "s", "code": "ID_COLLISION_CWD"}, {"id": "t", "code": "ID_COLLISION_CWD"}]
            ),
            flush().fails(Code.ID_COLLISION_CWD),
            flush("t").fails(Code.ID_COLLISION_CWD),
        ),
        scenario(
            "coordinator.cwd-checked-on-sqlite-at-flush",
            "A live session whose cwd is not the stored log's is refused at its flush on SQLite too",
            cwd_checked,
            "strict",
            earlier("s", log(*TURN), kind="sqlite", cwd="/a"),
            close("earlier"),
            create("s", seed=log(*TURN), cwd="/b"),
            attached("sqlite"),
            flush().fails(Code.ID_COLLISION_CWD),
        ),
        scenario(
            "coordinator.checkpoints-by-default",
            "By default a session is written after each step/end, tool/result and turn/end",
            (*dev, "docs/deviations.md C3", "docs/dialect-3fe196a751.md §P7 B6"),
            "strict",
            open_("jsonl", ROOT),
            attach(flush_on=sorted(DEFAULT_FLUSH_ON), max_pending=DEFAULT_MAX_PENDING),
            create("s", cwd="/w"),
            appends([TS(1), U("a"), SS(1, 1)]),
            flushed().gives(0),
            appends([ATC(1, 1, "c1"), TC(1, 1, "c1")], start=3),
            flushed().gives(0),
            appends([TR(1, 1, "c1")], start=5),
            flushed().gives(6),
            appends([SE(1, 1)], start=6),
            flushed().gives(7),
            on_disk("s"),
        ),
        scenario(
            "coordinator.max-pending-bounds-the-wait",
            "A session is written by itself once maxPending events wait",
            (*dev, "docs/deviations.md C3", "docs/dialect-3fe196a751.md §P7 B6"),
            "strict",
            open_("memory"),
            attach(flush_on=[], max_pending=3),
            create("s", cwd="/w"),
            appends(TURN[:2]),
            flushed().gives(0),
            appends(TURN[2:5], start=2),
            flushed().gives(3),
        ),
        scenario(
            "coordinator.live-turn-is-not-closed-under-it",
            "load and resume refuse an id that is live, so a live session's open turn is never closed "
            "by a repair",
            (
                *dev,
                "docs/deviations.md C4",
                "docs/errors.md SESSION_ALREADY_BOUND",
                "docs/dialect-3fe196a751.md §P7 B14",
            ),
            "strict",
            writing([TS(1), U("a"), SS(1, 1)]),
            flush(),
            coord_load("s").fails(Code.SESSION_ALREADY_BOUND),
            resume("s", session="r").fails(Code.SESSION_ALREADY_BOUND),
            appends([A(1, 1), SE(1, 1), TE(1)], start=3),
            shut(),
            on_disk("s"),
        ),
        scenario(
            "coordinator.header-must-match",
            "A stored header that differs in createdAt, or has a seedLength the live one lacks, "
            "belongs to another session",
            header_checked,
            "strict",
            open_("memory"),
            *other_headers,
        ),
        scenario(
            "coordinator.header-must-match-on-jsonl",
            "On a JSONL store too, a stored header that differs in createdAt, or has a seedLength the "
            "live one lacks, belongs to another session",
            header_checked,
            "strict",
            open_("jsonl", ROOT),
            *other_headers,
        ),
        scenario(
            "coordinator.writer-outside-is-a-conflict",
            "A write to the stored log by another backend is caught at the next flush: nothing is "
            "written twice",
            (
                *dev,
                "docs/deviations.md C6",
                "docs/errors.md STORE_CONFLICT",
                "docs/dialect-3fe196a751.md §P7 B16",
            ),
            "strict",
            writing([TS(1), U("a")]),
            flush(),
            open_("jsonl", ROOT, backend="outside"),
            load("s", backend="outside", session=None),
            appends([SS(1, 1)], start=2),
            flush().fails(Code.STORE_CONFLICT),
            read(ROOT, log_file("s", "/w")),
        ),
        scenario(
            "coordinator.close-reports-failures-and-writes-the-rest",
            "close writes every session it can and then reports the ones it could not (DRAIN_FAILED)",
            drain_failed,
            "strict",
            *draining,
            flushed("y").gives(6),
            shut().fails(Code.DRAIN_FAILED),
            flush("y").fails(Code.STORE_CLOSED),
            on_disk("y"),
        ),
        scenario(
            "coordinator.drain-failure-writes-the-rest",
            "flush_all and close write every session they can, then name the one they could not "
            "(DRAIN_FAILED)",
            drain_failed,
            "strict",
            *draining,
            shut().fails(Code.DRAIN_FAILED),
            on_disk("y"),
        ),
        scenario(
            "coordinator.left-session-released-after-last-flush",
            "A session that left the store is written once more and then released",
            left_released,
            "strict",
            writing(TURN[:2], kind="memory"),
            *leaving,
            flushed().fails(Code.SESSION_NOT_LIVE),
            coord_load("s"),
        ),
        scenario(
            "coordinator.left-session-released-on-jsonl",
            "A session that left the store is written once more and then released (a JSONL store)",
            left_released,
            "strict",
            writing(TURN[:2]),
            *leaving,
            coord_load("s"),
        ),
        scenario(
            "coordinator.colliding-create-is-rolled-back",
            "A session created while its id holds another session's log is refused by the store "
            "and rolled back; so is a fork to such an id",
            (
                *dev,
                "docs/deviations.md C8",
                "docs/errors.md OBSERVER_FAILED",
                "docs/dialect-3fe196a751.md §P6.2 #12",
            ),
            "strict",
            open_("memory"),
            stored_session("x", log(*TURN), cwd=None),
            attach(),
            create("x").fails(Code.OBSERVER_FAILED),
            create("p", seed=log(*TURN), session="p"),
            fork("p", child="x").fails(Code.OBSERVER_FAILED),
            listing().gives(["p"]),
            refused().gives([]),
            flush("p"),
        ),
        scenario(
            "coordinator.unwritten-session-keeps-its-id",
            "An id whose session left the store with events not yet written is bound until they are "
            "flushed or released",
            (
                *dev,
                "docs/deviations.md C8",
                "docs/errors.md SESSION_ALREADY_BOUND",
                "docs/dialect-3fe196a751.md §P6.2 #14",
            ),
            "strict",
            attached("memory"),
            create("x", cwd="/w", session="old"),
            appends(TURN[:2], session="old"),
            remove("old"),
            create("x", cwd="/w", session="new").fails(Code.OBSERVER_FAILED),
            coord_load("x").fails(Code.SESSION_ALREADY_BOUND),
            release("old"),
            coord_load("x"),
            resume("x", session="new"),
            appends(OPEN, session="new", start=3),
            flush("new"),
            flushed("new").gives(6),
        ),
        scenario(
            "coordinator.release",
            "release refuses a session still in the store, and drops or writes one that left it",
            (*dev, "docs/deviations.md C8", "docs/errors.md SESSION_ALREADY_BOUND"),
            "strict",
            writing(TURN[:2], kind="memory"),
            release().fails(Code.SESSION_ALREADY_BOUND),
            remove(),
            release(discard=True),
            flushed().fails(Code.SESSION_NOT_LIVE),
            coord_load("s").fails(Code.SESSION_NOT_FOUND),
        ),
        scenario(
            "coordinator.written-session-frees-its-id",
            "Once a session that left the store is written, its id can be resumed",
            (*dev, "docs/deviations.md C8"),
            "strict",
            attached("memory"),
            create("x", cwd="/w", session="old"),
            appends(TURN, session="old"),
            flush("old"),
            remove("old"),
            resume("x", session="new"),
            events("new"),
        ),
        scenario(
            "coordinator.closed",
            "A closed coordinator refuses every call, and writes nothing more",
            (COORD, "docs/errors.md STORE_CLOSED"),
            "strict",
            attached("memory"),
            create("s", cwd="/w"),
            shut(),
            shut(),
            flush().fails(Code.STORE_CLOSED),
            flush_all().fails(Code.STORE_CLOSED),
            coord_load("s").fails(Code.STORE_CLOSED),
            appends(TURN[:2]),
            Act("persist.list", {"backend": "db"}).gives([]),
        ),
    ]


def scenarios() -> list[Scenario]:
    return contract() + deviations()

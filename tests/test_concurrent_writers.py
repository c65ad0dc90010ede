"""Writers in several processes on one durable store, for every durable backend.

Three promises, checked with real processes (``fork``), not threads: writers of
different sessions run side by side; writers racing on the SAME session each
round (all loaded the same log, then all append at once) end with exactly one
winner and a typed ``STORE_CONFLICT`` for every other; and writers that retry
after a conflict never lose, duplicate or interleave an event.
"""

from __future__ import annotations

import multiprocessing
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dsh_session import (
    Event,
    JsonlBackend,
    PostgresBackend,
    Session,
    SessionBackend,
    SqliteBackend,
    StoreConflictError,
)
from tests.logs import header
from tests.pg_server import PgServer

CTX = multiprocessing.get_context("fork")
TURN = 3  # events per tagged turn


@dataclass(frozen=True)
class Store:
    """Where a store lives, in a form a child process can open again."""

    kind: str
    where: str
    dsn: str = ""

    def open(self) -> SessionBackend:
        if self.kind == "jsonl":
            return JsonlBackend(self.where, lock_timeout=30.0)
        if self.kind == "sqlite":
            return SqliteBackend(self.where, busy_timeout=30.0)
        return PostgresBackend(self.dsn, schema=self.where, lock_timeout=30.0)


@pytest.fixture(params=["jsonl", "sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    kind: str = request.param
    if kind == "jsonl":
        yield Store(kind, str(tmp_path / "root"))
    elif kind == "sqlite":
        yield Store(kind, str(tmp_path / "store.db"))
    else:
        server: PgServer = request.getfixturevalue("postgres_server")
        yield Store(kind, "c_" + secrets.token_hex(8), server.dsn())


def tagged_turn(session: Session, tag: str) -> list[Event]:
    """One complete turn whose user message carries ``tag``: whose turn it was, readable back."""
    turn = 1 + sum(1 for e in session.events if e.type == "turn/start")
    return [
        session.append(
            "turn/start", {"turn": turn, "trigger": {"kind": "message", "source": {"kind": "user"}}}
        ),
        session.append(
            "user/message",
            {"content": [{"type": "text", "text": tag}], "source": {"kind": "user"}},
            surface_op="append",
        ),
        session.append("turn/end", {"turn": turn, "reason": {"kind": "completed"}}),
    ]


def turns_of(events: tuple[Event, ...]) -> list[str]:
    """The tag of each turn, checking that every turn is the three events of one writer."""
    tags = []
    for start in range(0, len(events), TURN):
        kinds = [e.type for e in events[start : start + TURN]]
        assert kinds == ["turn/start", "user/message", "turn/end"]
        tags.append(events[start + 1].data["content"][0]["text"])
    return tags


def run_processes(target: Callable[..., None], argsets: list[tuple[Any, ...]]) -> None:
    processes = [CTX.Process(target=target, args=args) for args in argsets]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
    assert [process.exitcode for process in processes] == [0] * len(processes)


def seeded(store: Store, session_id: str) -> SessionBackend:
    backend = store.open()
    seed = Session(session_id, header=header(session_id))
    backend.create(seed.header)
    backend.append(session_id, tagged_turn(seed, "seed"))
    return backend


# -- different sessions ------------------------------------------------------------------------


def own_session_writer(store: Store, session_id: str, turns: int) -> None:
    backend = store.open()
    session = Session(session_id, header=header(session_id))
    backend.create(session.header)
    for n in range(turns):
        backend.append(session_id, tagged_turn(session, f"{session_id}/{n}"))
    backend.close()


def test_writers_of_different_sessions_in_parallel(store: Store) -> None:
    store.open().close()  # the store exists before the writers race to make it
    run_processes(own_session_writer, [(store, f"w{n}", 15) for n in range(4)])
    backend = store.open()
    assert sorted(h.id for h in backend.list()) == ["w0", "w1", "w2", "w3"]
    for n in range(4):
        assert turns_of(backend.load(f"w{n}").events) == [f"w{n}/{k}" for k in range(15)]
    backend.close()


# -- one session, racing -----------------------------------------------------------------------


def racing_writer(store: Store, worker: int, rounds: int, barrier: Any, results: Any) -> None:
    backend = store.open()
    for round_ in range(rounds):
        session = Session("race", seed=backend.load("race").events)
        batch = tagged_turn(session, f"{worker}/{round_}")
        barrier.wait()
        try:
            backend.append("race", batch)
            results.put((round_, worker, "won"))
        except StoreConflictError as error:
            results.put((round_, worker, error.code.value))
        barrier.wait()
    backend.close()


def test_writers_racing_on_one_session_one_wins_the_others_get_a_conflict(store: Store) -> None:
    """Each round every writer loads the same log, then all append at once."""
    seeded(store, "race").close()
    writers, rounds = 3, 6
    barrier = CTX.Barrier(writers)
    results = CTX.Queue()
    run_processes(racing_writer, [(store, w, rounds, barrier, results) for w in range(writers)])
    outcomes = [results.get(timeout=10) for _ in range(writers * rounds)]
    winners = {}
    for round_ in range(rounds):
        this_round = sorted(o for r, _w, o in outcomes if r == round_)
        assert this_round == ["STORE_CONFLICT"] * (writers - 1) + ["won"]
        winners[round_] = next(w for r, w, o in outcomes if r == round_ and o == "won")
    backend = store.open()
    assert turns_of(backend.load("race").events) == ["seed"] + [f"{winners[r]}/{r}" for r in range(rounds)]
    backend.close()


def retrying_writer(store: Store, worker: int, turns: int) -> None:
    backend = store.open()
    done = 0
    while done < turns:
        session = Session("shared", seed=backend.load("shared").events)
        try:
            backend.append("shared", tagged_turn(session, f"{worker}/{done}"))
        except StoreConflictError:
            continue  # someone else got there first: load again and retry
        done += 1
    backend.close()


def test_retrying_writers_on_one_session_never_lose_duplicate_or_interleave(store: Store) -> None:
    seeded(store, "shared").close()
    writers, turns = 4, 10
    run_processes(retrying_writer, [(store, w, turns) for w in range(writers)])
    backend = store.open()
    loaded = backend.load("shared").events
    backend.close()
    assert [e.seq for e in loaded] == list(range(TURN * (1 + writers * turns)))
    tags = turns_of(loaded)
    assert sorted(tags) == sorted(["seed"] + [f"{w}/{n}" for w in range(writers) for n in range(turns)])
    for w in range(writers):  # each writer's turns in its own order
        mine = [t for t in tags if t.startswith(f"{w}/")]
        assert mine == [f"{w}/{n}" for n in range(turns)]

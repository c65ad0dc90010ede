"""Writers for the crash tests, killed (SIGKILL) while they write.

    python -m tests.crash_writer jsonl|sqlite <path> <seed>
    python -m tests.crash_writer coordinator jsonl|sqlite <path> <seed>

The first appends the W1 workload straight to a backend in random-sized
batches and says ``acked <n>`` after each append returns (the durability
point). The second drives a live session of a ``SessionStore`` persisted by a
``PersistenceCoordinator`` (default automatic flushes, plus explicit flushes
at random points): it resumes the stored session if there is one, appends
:data:`COORDINATOR_TURNS` W1 turns (``bench.w1_log.append_w1_turn``), and says
``flushing`` before each explicit flush, ``flushed <n>`` when a flush of the
first ``n`` events returned, and ``durable <n>`` whenever the coordinator's
durable count grows (an automatic flush).
    python -m tests.crash_writer postgres <schema> <seed>     (the DSN in $DSH_TEST_PG_DSN)
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Iterable
from typing import Any

from bench.w1_log import W1_TIME_BASE, append_w1_turn, w1_log
from dsh_session import (
    Event,
    JsonlBackend,
    PersistenceCoordinator,
    Session,
    SessionBackend,
    SessionMeta,
    SessionNotFoundError,
    SessionStore,
    SqliteBackend,
    StoreObserver,
)
from tests.logs import CREATED_AT, header

TURNS = 80
SESSION = "w1"
COORDINATOR_TURNS = 30
FLUSH_CHANCE = 0.08
TIME_BASE = W1_TIME_BASE


def open_backend(kind: str, path: str) -> SessionBackend:
    if kind == "postgres":
        from dsh_session import PostgresBackend

        return PostgresBackend(os.environ["DSH_TEST_PG_DSN"], schema=path)
    return JsonlBackend(path) if kind == "jsonl" else SqliteBackend(path)


class SeqClock:
    """Event time = a fixed base + the event's seq: the same log whoever appends it."""

    def __init__(self) -> None:
        self.session: Session | None = None

    def __call__(self) -> int:
        return TIME_BASE + (self.session.seq if self.session is not None else 0)


def turns_started(events: Iterable[Event]) -> int:
    return sum(1 for event in events if event.type == "turn/start")


def expected_log(prefix: list[Event]) -> list[Event]:
    """What a coordinator writer starting from the stored ``prefix`` appends, in full."""
    clock = SeqClock()
    session = Session(SESSION, seed=prefix, clock=clock)
    clock.session = session
    first = turns_started(prefix) + 1
    for t in range(first, first + COORDINATOR_TURNS):
        append_w1_turn(session.append, t)
    return list(session.events)


class _Reporter(StoreObserver):
    """Says ``durable <n>`` whenever an automatic flush moved the durable count."""

    def __init__(self) -> None:
        self.coordinator: PersistenceCoordinator | None = None
        self.durable = 0

    def session_event(self, session: Session, event: Event) -> None:
        if self.coordinator is None:
            return
        durable = self.coordinator.flushed(session)
        if durable > self.durable:
            self.durable = durable
            print(f"durable {durable}", flush=True)


def coordinator_main(kind: str, path: str, seed: int) -> None:
    rng = random.Random(seed)
    clock = SeqClock()
    store = SessionStore(clock=clock)
    coordinator = PersistenceCoordinator(store, open_backend(kind, path))
    reporter = _Reporter()
    store.subscribe(reporter)  # after the coordinator: hears of each event once it is handled
    try:
        session = coordinator.resume(SESSION)
    except SessionNotFoundError:
        session = store.create(SESSION, meta=SessionMeta(cwd="/w", created_at=CREATED_AT))
    clock.session = session
    reporter.coordinator = coordinator
    reporter.durable = coordinator.flushed(session)
    print(f"ready {session.seq}", flush=True)
    first = turns_started(session.events) + 1

    def append(*args: Any, **kwargs: Any) -> Event:
        event = session.append(*args, **kwargs)
        if rng.random() < FLUSH_CHANCE:
            covered = session.seq
            print("flushing", flush=True)
            coordinator.flush(session)
            print(f"flushed {covered}", flush=True)
        return event

    for t in range(first, first + COORDINATOR_TURNS):
        append_w1_turn(append, t)
    coordinator.close()
    print("finished", flush=True)


def main() -> None:
    if sys.argv[1] == "coordinator":
        coordinator_main(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    kind, path, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    events = w1_log(TURNS, SESSION)
    rng = random.Random(seed)
    backend = open_backend(kind, path)
    backend.create(header(SESSION))
    print("ready", flush=True)
    done = 0
    while done < len(events):
        size = rng.randint(1, 30)
        backend.append(SESSION, events[done : done + size])
        done = min(done + size, len(events))
        print(f"acked {done}", flush=True)
    print("finished", flush=True)


if __name__ == "__main__":
    main()

"""A writer for the crash tests: appends the W1 workload in random-sized batches and says
``acked <n>`` after each append returns (the durability point), until it is killed.

    python -m tests.crash_writer jsonl|sqlite <path> <seed>
    python -m tests.crash_writer postgres <schema> <seed>     (the DSN in $DSH_TEST_PG_DSN)
"""

from __future__ import annotations

import os
import random
import sys

from dsh_session import JsonlBackend, SessionBackend, SqliteBackend
from tests.logs import header, w1_events

TURNS = 80
SESSION = "w1"


def open_backend(kind: str, path: str) -> SessionBackend:
    if kind == "postgres":
        from dsh_session import PostgresBackend

        return PostgresBackend(os.environ["DSH_TEST_PG_DSN"], schema=path)
    return JsonlBackend(path) if kind == "jsonl" else SqliteBackend(path)


def main() -> None:
    kind, path, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    events = w1_events(TURNS, SESSION)
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

"""PostgreSQL against SQLite on the same sessions: append and load throughput, a store
with many sessions (listing, loading one), and writers in parallel processes.

    python bench/postgres.py                                  # throwaway local server
    python bench/postgres.py --dsn "host=db user=dsh dbname=bench" --sizes 10000 --json out.json

Without ``--dsn`` a throwaway PostgreSQL server is started on loopback (as the
tests do, ``tests/pg_server.py``) but with PostgreSQL's default durability --
every commit fsynced -- as SQLite's ``synchronous = FULL`` fsyncs its commits;
it is removed afterwards. With ``--dsn`` a fresh schema is used and dropped.

1. **Append and load**: the W1 workload (``bench/w1_log.py``, 13 events per
   turn) appended in batches of one turn (one transaction each), then loaded in
   a fresh backend instance.
2. **Many sessions**: ``--sessions`` sessions of one W1 turn each in one store;
   how long ``list()`` takes and a load of one session (median of 200).
3. **Parallel writers**: ``--writers`` processes each appending ``--turns`` turns
   to a session of its own, at once; events per second across all of them.

Figures are wall-clock on whatever machine runs this (CPU time of this process
beside it: the server's own CPU time is not in it); compare ratios.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.w1_log import w1_log
from dsh_session import Event, PostgresBackend, SessionBackend, SessionHeader, SqliteBackend

CREATED = 1767225600000


class Stores:
    """Opens backends of one kind over one store; ``size()`` is what the store takes on disk."""

    def __init__(self, kind: str, dsn: str | None, where: Path) -> None:
        self.kind = kind
        self.dsn = dsn
        self.where = where
        self.schema = "bench_" + secrets.token_hex(6)

    def open(self) -> SessionBackend:
        if self.kind == "sqlite":
            return SqliteBackend(self.where / "sessions.db")
        assert self.dsn is not None
        return PostgresBackend(self.dsn, schema=self.schema)

    def size(self) -> int:
        if self.kind == "sqlite":
            return sum(p.stat().st_size for p in self.where.glob("sessions.db*"))
        import psycopg

        assert self.dsn is not None
        with psycopg.connect(self.dsn) as conn:
            row = conn.execute(
                "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n "
                "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r'",
                (self.schema,),
            ).fetchone()
            return int(row[0]) if row and row[0] is not None else 0

    def drop(self) -> None:
        if self.kind == "postgres":
            import psycopg

            assert self.dsn is not None
            with psycopg.connect(self.dsn, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')


def timed(action: Callable[[], Any]) -> tuple[Any, float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    result = action()
    return result, time.perf_counter() - started, time.process_time() - cpu


def append_and_load(stores: Stores, events: list[Event], batch: int) -> dict[str, Any]:
    backend = stores.open()
    backend.create(SessionHeader("w1", CREATED))

    def write() -> None:
        for start in range(0, len(events), batch):
            backend.append("w1", events[start : start + batch])

    _, write_s, write_cpu = timed(write)
    backend.close()
    loading = stores.open()
    loaded, load_s, load_cpu = timed(lambda: loading.load("w1"))
    assert len(loaded.events) == len(events)
    loading.close()
    return {
        "test": "append+load",
        "backend": stores.kind,
        "events": len(events),
        "bytes": stores.size(),
        "write_s": round(write_s, 3),
        "write_cpu_s": round(write_cpu, 3),
        "write_events_per_s": round(len(events) / write_s),
        "load_s": round(load_s, 3),
        "load_cpu_s": round(load_cpu, 3),
        "load_events_per_s": round(len(events) / load_s),
    }


def many_sessions(stores: Stores, count: int, turn: list[Event]) -> dict[str, Any]:
    backend = stores.open()

    def fill() -> None:
        for n in range(count):
            session_id = f"s{n:07d}"
            backend.create(SessionHeader(session_id, CREATED, cwd=f"/work/{n % 50}"))
            backend.append(session_id, turn)

    _, fill_s, _ = timed(fill)
    backend.close()
    fresh = stores.open()
    listed, list_s, list_cpu = timed(fresh.list)
    assert len(listed) == count
    picks = random.Random(7).sample(range(count), min(200, count))
    loads = []
    for n in picks:
        _, seconds, _ = timed(lambda n=n: fresh.load(f"s{n:07d}"))
        loads.append(seconds)
    fresh.close()
    return {
        "test": "many-sessions",
        "backend": stores.kind,
        "sessions": count,
        "bytes": stores.size(),
        "fill_sessions_per_s": round(count / fill_s),
        "list_s": round(list_s, 3),
        "list_cpu_s": round(list_cpu, 3),
        "load_one_median_ms": round(statistics.median(loads) * 1000, 2),
    }


def _writer(stores: Stores, worker: int, events: list[Event], start: Any, done: Any) -> None:
    backend = stores.open()
    session_id = f"writer-{worker}"
    backend.create(SessionHeader(session_id, CREATED))
    start.wait()
    for first in range(0, len(events), 13):
        backend.append(session_id, events[first : first + 13])
    backend.close()
    done.put(worker)


def parallel_writers(stores: Stores, writers: int, events: list[Event]) -> dict[str, Any]:
    ctx = multiprocessing.get_context("fork")
    start, done = ctx.Barrier(writers + 1), ctx.Queue()
    stores.open().close()  # the schema or file exists before the writers race to it
    processes = [ctx.Process(target=_writer, args=(stores, w, events, start, done)) for w in range(writers)]
    for process in processes:
        process.start()
    started = time.perf_counter()
    start.wait()
    for _ in processes:
        done.get(timeout=600)
    seconds = time.perf_counter() - started
    for process in processes:
        process.join()
    total = writers * len(events)
    return {
        "test": "parallel-writers",
        "backend": stores.kind,
        "writers": writers,
        "events": total,
        "seconds": round(seconds, 3),
        "events_per_s": round(total / seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dsn", help="an existing server (a fresh schema is used, then dropped)")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--sessions", type=int, default=10000)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--turns", type=int, default=300, help="turns per parallel writer")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    server = None
    dsn = args.dsn
    if dsn is None and "postgres" in args.backends:
        from tests import pg_server

        server = pg_server.start(durable=True)
        dsn = server.dsn()
    kinds = args.backends.split(",")
    results: list[dict[str, Any]] = []

    def record(result: dict[str, Any]) -> None:
        results.append(result)
        print(json.dumps(result), flush=True)

    try:
        for size in (int(s) for s in args.sizes.split(",")):
            events = w1_log(max(size // 13, 1))
            for kind in kinds:
                with_store(
                    kind, dsn, lambda stores, events=events: record(append_and_load(stores, events, 13))
                )
        turn = w1_log(1)
        for kind in kinds:
            with_store(kind, dsn, lambda stores: record(many_sessions(stores, args.sessions, turn)))
        events = w1_log(args.turns)
        for kind in kinds:
            with_store(kind, dsn, lambda stores: record(parallel_writers(stores, args.writers, events)))
    finally:
        if server is not None:
            from tests import pg_server

            pg_server.stop(server)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


def with_store(kind: str, dsn: str | None, body: Callable[[Stores], None]) -> None:
    where = Path(tempfile.mkdtemp(prefix=f"bench-{kind}-"))
    stores = Stores(kind, dsn, where)
    try:
        body(stores)
    finally:
        stores.drop()
        shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

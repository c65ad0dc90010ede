"""Persistence benchmark: write and load throughput of each backend, peak memory of a load.

    python bench/persistence.py                       # 10k, 100k, 1M events, every backend
    python bench/persistence.py --sizes 10000,100000 --backends jsonl --json out.json

The log is the W1 workload (``bench-workload.md``, plain mode: 13 events per
turn, a tool call per turn; ``bench/w1_log.py``), built once per size.
Writes go in batches of ``--batch`` events (default: one turn, 13 events; each
batch is one fsync or one transaction, as a flush per turn would be). A load is
timed in a fresh backend instance; its peak memory is measured separately with
``tracemalloc`` (which slows the load it measures). Figures are wall-clock on
whatever machine runs this (CPU time beside it: less disturbed by other
processes); compare ratios, not absolutes.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import shutil
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.w1_log import w1_log
from dsh_session import (
    Event,
    JsonlBackend,
    MemoryBackend,
    MemoryStore,
    SessionBackend,
    SessionHeader,
)


def opener(kind: str, where: Path) -> Callable[[], SessionBackend]:
    if kind == "memory":
        store = MemoryStore()
        return lambda: MemoryBackend(store)
    if kind == "jsonl":
        return lambda: JsonlBackend(where / "root")
    from dsh_session import SqliteBackend

    return lambda: SqliteBackend(where / "sessions.db")


def stored_bytes(where: Path) -> int:
    return sum(p.stat().st_size for p in where.rglob("*") if p.is_file())


def run(kind: str, events: list[Event], batch: int, memory: bool) -> dict[str, Any]:
    where = Path(tempfile.mkdtemp(prefix=f"bench-{kind}-"))
    try:
        open_backend = opener(kind, where)
        backend = open_backend()
        backend.create(SessionHeader("w1", 1767225600000))
        started, cpu = time.perf_counter(), time.process_time()
        for start in range(0, len(events), batch):
            backend.append("w1", events[start : start + batch])
        write, write_cpu = time.perf_counter() - started, time.process_time() - cpu
        backend.close()
        size = stored_bytes(where)

        gc.collect()
        started, cpu = time.perf_counter(), time.process_time()
        loading = open_backend()
        loaded = loading.load("w1")
        load, load_cpu = time.perf_counter() - started, time.process_time() - cpu
        assert len(loaded.events) == len(events)
        loading.close()
        del loaded, loading
        gc.collect()

        peak = None
        if memory:
            tracemalloc.start()
            measuring = open_backend()
            kept = measuring.load("w1")
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            measuring.close()
            del kept, measuring
            gc.collect()
        return {
            "backend": kind,
            "events": len(events),
            "batch": batch,
            "bytes": size,
            "write_s": round(write, 3),
            "write_cpu_s": round(write_cpu, 3),
            "write_events_per_s": round(len(events) / write),
            "load_s": round(load, 3),
            "load_cpu_s": round(load_cpu, 3),
            "load_events_per_s": round(len(events) / load),
            "load_us_per_event_cpu": round(load_cpu / len(events) * 1e6, 1),
            "load_peak_mib": None if peak is None else round(peak / 2**20, 1),
        }
    finally:
        shutil.rmtree(where, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--backends", default="memory,jsonl,sqlite")
    parser.add_argument("--batch", type=int, default=13, help="events per append (default: one turn)")
    parser.add_argument("--no-memory", action="store_true", help="skip the tracemalloc load")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        events = w1_log(max(size // 13, 1))  # whole turns: 9997 events for 10k
        for kind in args.backends.split(","):
            result = run(kind, events, args.batch, not args.no_memory)
            results.append(result)
            print(json.dumps(result), flush=True)
        del events
        gc.collect()
    by = {(r["backend"], r["events"]): r for r in results}
    for kind in args.backends.split(","):
        sizes = sorted(n for b, n in by if b == kind)
        for small, large in itertools.pairwise(sizes):
            wall = by[(kind, large)]["load_s"] / max(by[(kind, small)]["load_s"], 1e-9)
            cpu = by[(kind, large)]["load_cpu_s"] / max(by[(kind, small)]["load_cpu_s"], 1e-9)
            growth = large / small
            print(f"{kind}: load {large} / {small}: wall x{wall:.2f}, cpu x{cpu:.2f} (x{growth:g} events)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    sys.exit(main())

"""Persistence benchmark: write and load of our backends, side by side with the TypeScript
original's own JSONL and SQLite backends, on the same W1 log with the same batching.

    python bench/persistence.py --reference "$ORIGINAL"      # 10k and 100k events, jsonl and sqlite, 3 rounds
    python bench/persistence.py --reference "$ORIGINAL" --sizes 1000000 --rounds 1
    python bench/persistence.py --no-reference --backends memory,jsonl,sqlite

with ``ORIGINAL="node --experimental-transform-types --no-warnings
bench/reference/persistence.ts CHECKOUT DEPS"`` (Node 22: the original's SQLite
backend needs ``node:sqlite``; see docs/performance.md, "Reproduce").
``--reference`` is that command prefix: each run appends ``BACKEND INPUT
WORKDIR BATCH`` and reads the JSON line it prints.

The log is the W1 workload (``bench/workload-w1.md``, plain mode: 13 events per
turn, a tool call per turn; ``bench/w1_log.py``), whole turns up to each size
(9 997 events for 10k). It is built once per size and written to a JSONL file
(a header line, then one record per event, as ``JSON.stringify`` writes it);
the original's driver reads its events from that file (and checks that they
are byte for byte what ``JSON.stringify`` gives back), ours rebuilds them with
``w1_log``. Every run is a fresh process, and every round runs each
configuration once, in turn, so a load that comes and goes on a shared machine
falls on all of them alike. In a run, the events are written to an empty store
in batches of ``--batch`` events (default: one turn, 13 events; each batch one
fsync or one transaction, as a flush per turn would be), then loaded by a fresh
backend instance. Every load's digest (SHA-256 of the loaded events' JSONL) must
equal the input file's, on both sides; the exit status is 1 if one does not.

CPU time is the process's (every thread), so it leaves out the waits for fsync;
it is the steadier figure on a shared machine. Memory is measured once per size
and backend, in a process of its own (``tracemalloc`` slows what it measures):
the bytes still allocated after a load, holding what it returned, per event;
also with a ``Session`` built on that log (the issue 12 target, 400 bytes per
event, is for the loaded session).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the ``bench`` package importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.w1_log import W1_CREATED_AT, w1_log
from dsh_session import (
    Event,
    JsonlBackend,
    MemoryBackend,
    MemoryStore,
    Session,
    SessionBackend,
    SessionHeader,
)

SESSION = "w1"
HEADER = SessionHeader(SESSION, W1_CREATED_AT)
#: The original has no memory backend: ``memory`` runs ours only.
ORIGINAL_BACKENDS = ("jsonl", "sqlite")

# Issue 12's targets.
LOAD_SPEEDUP = 3.0  # the original's load CPU / ours, at least
LOAD_US_PER_EVENT = 3.3  # ours, CPU, at most
LOAD_EVENTS_PER_S = 300_000  # ours, wall, at least
WRITE_RATIO = 1.0  # ours / the original's write CPU per event, at most
BYTES_PER_EVENT = 400  # a loaded session, at most


class RunFailed(Exception):
    """A benchmark process exited abnormally or printed no result."""


# -- the log, as a file both sides read ---------------------------------------------------


def record_line(record: dict[str, Any]) -> str:
    """``JSON.stringify(record)`` for the records of W1 (ASCII text, integers)."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def events_sha256(events: Iterable[Event]) -> str:
    """SHA-256 of the events' JSONL (each record's ``JSON.stringify`` text and a newline)."""
    digest = hashlib.sha256()
    for event in events:
        digest.update((record_line(event.to_json()) + "\n").encode())
    return digest.hexdigest()


def write_input(path: Path, events: Sequence[Event]) -> str:
    """Write the log to ``path`` as JSONL (header line first); the events' digest."""
    digest = hashlib.sha256()
    with path.open("w", encoding="utf-8") as out:
        out.write(record_line({"type": "session"} | HEADER.to_json()) + "\n")
        for event in events:
            line = record_line(event.to_json()) + "\n"
            digest.update(line.encode())
            out.write(line)
    return digest.hexdigest()


def input_events(path: Path) -> int:
    with path.open("rb") as lines:
        return sum(1 for _ in lines) - 1


# -- one run of ours (in a process of its own) ---------------------------------------------


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


def run_ours_here(kind: str, turns: int, where: Path, batch: int) -> dict[str, Any]:
    """Write W1's log of ``turns`` turns to an empty store in ``where``, then load it."""
    events = w1_log(turns, SESSION)
    open_backend = opener(kind, where)
    backend = open_backend()
    backend.create(HEADER)
    gc.collect()
    started, cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(events), batch):
        backend.append(SESSION, events[start : start + batch])
    write, write_cpu = time.perf_counter() - started, time.process_time() - cpu
    if kind != "memory":
        backend.close()
    count = len(events)
    del events
    gc.collect()

    started, cpu = time.perf_counter(), time.process_time()
    loading = open_backend()
    loaded = loading.load(SESSION)
    load, load_cpu = time.perf_counter() - started, time.process_time() - cpu
    if len(loaded.events) != count:
        raise AssertionError(f"loaded {len(loaded.events)} events of {count}")
    row = {
        "target": "ours",
        "backend": kind,
        "events": count,
        "batch": batch,
        "bytes": stored_bytes(where),
        "write_s": write,
        "write_cpu_s": write_cpu,
        "load_s": load,
        "load_cpu_s": load_cpu,
        "loaded_sha256": events_sha256(loaded.events),
    }
    loading.close()
    return row


def memory_here(kind: str, turns: int, where: Path) -> dict[str, Any]:
    """Bytes allocated (tracemalloc) that a load leaves behind, and with a Session on top."""
    events = w1_log(turns, SESSION)
    open_backend = opener(kind, where)
    backend = open_backend()
    backend.create(HEADER)
    for start in range(0, len(events), 13):
        backend.append(SESSION, events[start : start + 13])
    backend.close()
    count = len(events)
    del events, backend
    gc.collect()
    tracemalloc.start()
    loading = open_backend()
    loaded = loading.load(SESSION)
    gc.collect()
    held, peak = tracemalloc.get_traced_memory()
    session = Session(SESSION, seed=loaded.events, header=loaded.header)
    gc.collect()
    with_session = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(session.events) == count
    loading.close()
    return {
        "target": "ours",
        "backend": kind,
        "events": count,
        "load_held_bytes_per_event": round(held / count),
        "load_peak_bytes_per_event": round(peak / count),
        "session_bytes_per_event": round(with_session / count),
    }


# -- the runs, each in a fresh process ----------------------------------------------------


def _last_json_line(command: list[str], timeout: float) -> dict[str, Any]:
    try:
        out = subprocess.run(command, check=False, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        raise RunFailed(f"{shlex.join(command)} took more than {timeout:.0f} s") from expired
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        raise RunFailed(f"{shlex.join(command)} exited with {out.returncode}:\n{out.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def in_workdir(run: Callable[[Path], dict[str, Any]]) -> dict[str, Any]:
    where = Path(tempfile.mkdtemp(prefix="bench-persistence-"))
    try:
        return run(where)
    finally:
        shutil.rmtree(where, ignore_errors=True)


def run_ours(kind: str, source: Path, batch: int, timeout: float, memory: bool = False) -> dict[str, Any]:
    turns = input_events(source) // 13
    child = [sys.executable, os.path.abspath(__file__), "--child", kind, "--turns", str(turns)]
    child += ["--batch", str(batch)] + (["--memory"] if memory else [])
    return in_workdir(lambda where: _last_json_line([*child, "--workdir", str(where)], timeout))


def run_original(
    prefix: Sequence[str], kind: str, source: Path, batch: int, timeout: float
) -> dict[str, Any]:
    def one(where: Path) -> dict[str, Any]:
        row = _last_json_line([*prefix, kind, str(source), str(where), str(batch)], timeout)
        if row.get("input_identical") is not True:
            raise RunFailed(
                "the original's driver read events that JSON.stringify does not write back as read"
            )
        return row

    return in_workdir(one)


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


# -- the report ---------------------------------------------------------------------------


def _median(rows: list[dict[str, Any]], key: str) -> float:
    return float(statistics.median(row[key] for row in rows))


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians (and minima) over a configuration's rounds, per-event figures from the medians."""
    events = rows[0]["events"]
    out: dict[str, Any] = {"events": events, "bytes": rows[0]["bytes"], "rounds": len(rows)}
    for key in ("write_s", "write_cpu_s", "load_s", "load_cpu_s"):
        out[key] = _median(rows, key)
        out[key.replace("_s", "_min_s")] = min(row[key] for row in rows)
    out["write_events_per_s"] = events / out["write_s"]
    out["write_us_per_event_cpu"] = out["write_cpu_s"] / events * 1e6
    out["load_events_per_s"] = events / out["load_s"]
    out["load_us_per_event_cpu"] = out["load_cpu_s"] / events * 1e6
    return out


Key = tuple[int, str, str]


def print_report(
    runs: dict[Key, list[dict[str, Any]]], memory: dict[tuple[int, str], dict[str, Any]], loads: list[str]
) -> None:
    rounds = max(len(rows) for rows in runs.values())
    print(f"\nPersistence, W1 log, {rounds} round(s); medians over the rounds (min in brackets)")
    print(f"load average (1, 5, 15 min) at the start and after each round: {' | '.join(loads)}\n")
    head = (
        f"{'events':>8} {'backend':7} {'target':8} {'MB':>6} {'write s':>8} {'cpu s':>7} {'us/ev cpu':>9}"
        f" {'load s':>7} {'cpu s':>15} {'us/ev cpu':>9} {'events/s':>9}"
    )
    print(head)
    print("-" * len(head))
    for (events, kind, target), rows in sorted(runs.items()):
        s = summary(rows)
        print(
            f"{events:>8} {kind:7} {target:8} {s['bytes'] / 1e6:6.1f}"
            f" {s['write_s']:8.3f} {s['write_cpu_s']:7.3f} {s['write_us_per_event_cpu']:9.1f}"
            f" {s['load_s']:7.3f} {s['load_cpu_s']:7.3f} ({s['load_cpu_min_s']:5.3f})"
            f" {s['load_us_per_event_cpu']:9.2f} {s['load_events_per_s']:9.0f}"
        )
    print("\nAgainst issue 12's targets (ours; ratios from the medians):")
    for (events, kind, target), rows in sorted(runs.items()):
        if target != "ours":
            continue
        s = summary(rows)
        checks = [
            _check("load cpu per event, us", s["load_us_per_event_cpu"], LOAD_US_PER_EVENT, at_most=True),
            _check("load, events per second", s["load_events_per_s"], LOAD_EVENTS_PER_S, at_most=False),
        ]
        original = runs.get((events, kind, "original"))
        if original is not None:
            o = summary(original)
            speedup = o["load_cpu_s"] / s["load_cpu_s"]
            checks.append(_check("load cpu, original / ours", speedup, LOAD_SPEEDUP, at_most=False))
            ratio = s["write_us_per_event_cpu"] / o["write_us_per_event_cpu"]
            checks.append(_check("write cpu per event, ours / original", ratio, WRITE_RATIO, at_most=True))
        mem = memory.get((events, kind))
        if mem is not None:
            checks.append(
                _check(
                    "loaded session, bytes per event", mem["session_bytes_per_event"], BYTES_PER_EVENT, True
                )
                + f"; the load's result alone {mem['load_held_bytes_per_event']},"
                f" peak during the load {mem['load_peak_bytes_per_event']}"
            )
        if original is not None:
            heap = statistics.median(row["load_heap_bytes_per_event"] for row in original)
            checks.append(f"(the original: V8 heap held after its load, {heap:.0f} bytes per event)")
        print(f"{events:>8} {kind}:")
        for line in checks:
            print(f"    {line}")


def _check(what: str, value: float, target: float, at_most: bool) -> str:
    met = value <= target if at_most else value >= target
    shown = f"{value:,.0f}" if value >= 100 else f"{value:.2f}"
    return f"{what}: {shown} (target {'<=' if at_most else '>='} {target:,g}: {'met' if met else 'NOT met'})"


# -- main ---------------------------------------------------------------------------------


def child(args: argparse.Namespace) -> int:
    where = Path(args.workdir)
    if args.memory:
        row = memory_here(args.child, args.turns, where)
    else:
        row = run_ours_here(args.child, args.turns, where, args.batch)
    print(json.dumps(row))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python bench/persistence.py",
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--sizes", default="10000,100000", help="events, comma-separated (default 10000,100000)"
    )
    parser.add_argument(
        "--backends", default="jsonl,sqlite", help="memory, jsonl, sqlite (default jsonl,sqlite)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="runs of each configuration (default 3)")
    parser.add_argument("--batch", type=int, default=13, help="events per append (default: one turn)")
    parser.add_argument("--reference", metavar="COMMAND", help="command prefix running the original's driver")
    parser.add_argument(
        "--no-reference", action="store_true", help="ours only (also the default without --reference)"
    )
    parser.add_argument("--no-memory", action="store_true", help="skip the tracemalloc runs")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds one run may take (default 1800)")
    parser.add_argument("--json", metavar="FILE", help="also write every run to this file")
    parser.add_argument("--child", choices=("memory", "jsonl", "sqlite"), help=argparse.SUPPRESS)
    parser.add_argument("--turns", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    parser.add_argument("--memory", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)

    sizes = [int(s) for s in args.sizes.split(",")]
    backends = args.backends.split(",")
    if not set(backends) <= {"memory", "jsonl", "sqlite"} or min(sizes) < 13 or args.batch < 1:
        parser.error("backends are memory, jsonl, sqlite; sizes at least 13 events; batch at least 1")
    prefix = None if args.no_reference or not args.reference else shlex.split(args.reference)

    scratch = Path(tempfile.mkdtemp(prefix="bench-persistence-input-"))
    try:
        inputs: dict[int, tuple[Path, str]] = {}
        for size in sizes:
            print(f"building the W1 log of {size // 13 * 13} events ...", file=sys.stderr, flush=True)
            events = w1_log(size // 13, SESSION)
            path = scratch / f"w1-{len(events)}.jsonl"
            inputs[size] = (path, write_input(path, events))
            del events
            gc.collect()
        return measure(args, sizes, backends, prefix, inputs)
    except RunFailed as failure:
        print(failure, file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def measure(
    args: argparse.Namespace,
    sizes: list[int],
    backends: list[str],
    prefix: list[str] | None,
    inputs: dict[int, tuple[Path, str]],
) -> int:
    runs: dict[Key, list[dict[str, Any]]] = {}
    every: list[dict[str, Any]] = []
    loads = [load_average()]
    bad = False
    for round_ in range(args.rounds):
        for size in sizes:
            source, want = inputs[size]
            for kind in backends:
                targets = ["ours"] + (["original"] if prefix and kind in ORIGINAL_BACKENDS else [])
                for target in targets:
                    print(f"round {round_ + 1}: {target} {kind} {size} ...", file=sys.stderr, flush=True)
                    if target == "ours":
                        row = run_ours(kind, source, args.batch, args.timeout)
                    else:
                        assert prefix is not None
                        row = run_original(prefix, kind, source, args.batch, args.timeout)
                    row["digest_ok"] = row["loaded_sha256"] == want
                    row["load_average"] = load_average()
                    bad = bad or not row["digest_ok"]
                    if not row["digest_ok"]:
                        print(f"DIGEST MISMATCH: {target} {kind} {size}", file=sys.stderr)
                    runs.setdefault((row["events"], kind, target), []).append(row)
                    every.append(row)
        loads.append(load_average())
    memory: dict[tuple[int, str], dict[str, Any]] = {}
    if not args.no_memory:
        for size in sizes:
            for kind in backends:
                print(f"memory: ours {kind} {size} ...", file=sys.stderr, flush=True)
                row = run_ours(kind, inputs[size][0], args.batch, args.timeout, memory=True)
                memory[(row["events"], kind)] = row
                every.append(row | {"load_average": load_average()})
        loads.append(load_average())
    print_report(runs, memory, loads)
    if args.json:
        Path(args.json).write_text(json.dumps(every, indent=1))
    if bad:
        print("\nSome load did not give back the written log (see DIGEST MISMATCH above).")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

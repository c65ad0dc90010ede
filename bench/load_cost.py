"""What one load of the W1 log costs, per event: CPU time, and instructions counted by callgrind.

    python bench/load_cost.py --backend sqlite               # best CPU of 5 loads in one process
    python bench/load_cost.py --backend jsonl --callgrind    # instructions per event (valgrind)

The store is the W1 log of ``--turns`` turns (default 10 000: 130 000 events, plain
mode, one append), written once into ``--store`` and read by a read-only backend. CPU
time is the best of ``--loads`` loads in one process (a later load finds the allocator
warm, so it is below a fresh process's first load, which ``bench/persistence.py``
reports). ``--callgrind`` runs this script twice under ``valgrind --tool=callgrind``,
opening the store and loading it once and opening it only, and divides the difference
by the events: repeatable on a shared machine, where CPU time is not.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.w1_log import W1_CREATED_AT, w1_log
from dsh_session import JsonlBackend, SessionBackend, SessionHeader, SqliteBackend

SESSION = "w1"


def backend(kind: str, store: Path, turns: int, read_only: bool) -> SessionBackend:
    if kind == "sqlite":
        return SqliteBackend(store / f"sqlite-{turns}.db", read_only=read_only)
    return JsonlBackend(store / f"jsonl-{turns}", read_only=read_only)


def ensure_store(kind: str, store: Path, turns: int) -> None:
    marker = store / f"{kind}-{turns}.done"
    if marker.exists():
        return
    store.mkdir(parents=True, exist_ok=True)
    writer = backend(kind, store, turns, read_only=False)
    writer.create(SessionHeader(SESSION, W1_CREATED_AT))
    writer.append(SESSION, w1_log(turns, SESSION))
    writer.close()
    marker.write_text("")


def callgrind(args: argparse.Namespace) -> int:
    counts = []
    for loads in (0, 1):
        command = [
            "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
            "--backend", args.backend, "--store", str(args.store), "--turns", str(args.turns),
            "--loads", str(loads),
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        found = re.search(r"Collected : (\d+)", done.stderr)
        if found is None:
            raise SystemExit(f"no callgrind total in: {done.stderr[-400:]}")
        counts.append(int(found.group(1)))
    events = 13 * args.turns
    print(f"{args.backend}: {(counts[1] - counts[0]) / events:,.0f} instructions per event "
          f"({counts[1] - counts[0]:,} for one load of {events:,} events)")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backend", choices=("jsonl", "sqlite"), default="sqlite")
    parser.add_argument("--store", type=Path, default=Path("/tmp/dsh-load-cost"), help="where the store is")
    parser.add_argument("--turns", type=int, default=10_000, help="W1 turns (13 events each)")
    parser.add_argument("--loads", type=int, default=5, help="loads in this process (0: only open the store)")
    parser.add_argument("--callgrind", action="store_true", help="count instructions per event with valgrind")
    args = parser.parse_args(argv)
    ensure_store(args.backend, args.store, args.turns)
    if args.callgrind:
        return callgrind(args)
    reader = backend(args.backend, args.store, args.turns, read_only=True)
    best = None
    for _ in range(args.loads):
        started = time.process_time()
        loaded = reader.load(SESSION)
        spent = time.process_time() - started
        best = spent if best is None else min(best, spent)
        if len(loaded.events) != 13 * args.turns:
            raise AssertionError(f"loaded {len(loaded.events)} events")
        del loaded
    if best is not None:
        print(f"{args.backend}: best of {args.loads} loads {best:.3f} s CPU, "
              f"{best / (13 * args.turns) * 1e6:.2f} us/event")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

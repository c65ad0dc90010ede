"""W1 on this machine, side by side: the implementation (collector at its defaults) against the
TypeScript original, interleaved, each run in a fresh process.

    python bench/vs_reference.py --reference "$ORIGINAL"                    # T = 1 000 and 10 000, 5 rounds
    python bench/vs_reference.py --reference "$ORIGINAL" --turns 100000 --rounds 2
    python bench/vs_reference.py --turns 10000                              # ours only

with ``ORIGINAL="node --experimental-transform-types --no-warnings bench/reference/w1.ts CHECKOUT DEPS"``
(Node 22; CHECKOUT a work tree of the original at 3fe196a751, DEPS a directory
whose ``node_modules`` holds cordis and schemastery; see docs/performance.md,
"Reproduce"). ``--reference`` is that command prefix: each run appends
``T MODE`` and reads the one JSON line the driver prints.

Every round runs each configuration once, in turn, so a load that comes and
goes on a shared machine falls on all of them alike; the table gives the
minimum and the median over the rounds of the wall time of the turns' work
(``total``: appends, derives, compactions, not the building of each turn's
input) and of the process's CPU time over the whole run (input building
included, on both sides). Every run's digests are checked against the
original's known ones; the exit status is 1 if one disagrees. The ratios are
ours / original (below 1: ours is faster) against the targets of issue 12.
``--gc-freeze`` adds a configuration with an application's collector policy
(``gc.freeze()`` after every turn, timed) for diagnosis; the library itself
never touches the collector, and the targets are for the defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

if __package__ in (None, ""):  # run as a script: make the ``bench`` package importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.workload import MODES, REFERENCE

HERE = os.path.dirname(os.path.abspath(__file__))

#: Issue 12's targets for ours / original, CPU time, by T (both modes).
TARGETS: dict[int, float] = {10000: 0.5, 100000: 0.2}

Runs = dict[tuple[int, str, str], list[dict[str, Any]]]


class RunFailed(Exception):
    """A benchmark process exited abnormally or printed no result."""


def run_ours(turns: int, mode: str, freeze: bool) -> dict[str, Any]:
    command = [sys.executable, os.path.join(HERE, "w1.py"), "--turns", str(turns), "--modes", mode]
    command += ["--spec-turns", "--json"] + (["--gc-freeze"] if freeze else [])
    out = subprocess.run(command, check=False, capture_output=True, text=True)
    if out.returncode not in (0, 1):  # 1: a digest disagrees, checked below
        raise RunFailed(f"{shlex.join(command)} exited with {out.returncode}:\n{out.stderr[-2000:]}")
    row = json.loads(out.stdout)["runs"][0]
    return {
        "total_s": row["total_ns"] / 1e9,
        "cpu_s": row["cpu_ns"] / 1e9,
        "digests": (row["messages_sha256"], row["surface_sha256"]),
    }


def run_original(prefix: Sequence[str], turns: int, mode: str) -> dict[str, Any]:
    command = [*prefix, str(turns), mode]
    out = subprocess.run(command, check=False, capture_output=True, text=True)
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        raise RunFailed(f"{shlex.join(command)} exited with {out.returncode}:\n{out.stderr[-2000:]}")
    row = json.loads(lines[-1])
    return {
        "total_s": row["total_s"],
        "cpu_s": row["cpu_s"],
        "digests": (row["messagesSha256"], row["surfaceSha256"]),
    }


def digests_ok(turns: int, mode: str, digests: tuple[str, str]) -> bool | None:
    want = REFERENCE.get((turns, mode))  # type: ignore[arg-type]
    return None if want is None else digests == (want.messages_sha256, want.surface_sha256)


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def main(argv: Sequence[str] | None = None) -> int:
    summary = __doc__.split("\n\n")[0]
    parser = argparse.ArgumentParser(prog="python bench/vs_reference.py", description=summary)
    parser.add_argument("--turns", type=int, nargs="+", default=[1000, 10000], metavar="T")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--rounds", type=int, default=5, help="runs of each configuration (default 5)")
    parser.add_argument(
        "--reference",
        metavar="COMMAND",
        help="command prefix that runs the original's W1 driver (T and MODE are appended)",
    )
    parser.add_argument(
        "--gc-freeze",
        action="store_true",
        help="also run ours with gc.freeze() after every turn (diagnostic)",
    )
    parser.add_argument("--json", action="store_true", help="print every run as JSON lines instead")
    args = parser.parse_args(argv)
    prefix = shlex.split(args.reference) if args.reference else None

    configs = ["ours"] + (["ours+gc-freeze"] if args.gc_freeze else []) + (["original"] if prefix else [])
    runs: Runs = {}
    bad = False
    loads = [load_average()]
    for round_ in range(args.rounds):
        for turns in args.turns:
            for mode in args.modes:
                for config in configs:
                    if not args.json:
                        print(
                            f"round {round_ + 1}: {config} T={turns} {mode} ...", file=sys.stderr, flush=True
                        )
                    try:
                        if config == "original":
                            assert prefix is not None
                            row = run_original(prefix, turns, mode)
                        else:
                            row = run_ours(turns, mode, freeze=config.endswith("freeze"))
                    except RunFailed as failure:
                        print(failure, file=sys.stderr)
                        return 2
                    row["ok"] = digests_ok(turns, mode, row.pop("digests"))
                    row["load_average"] = load_average()
                    bad = bad or row["ok"] is False
                    runs.setdefault((turns, mode, config), []).append(row)
                    if args.json:
                        print(json.dumps({"turns": turns, "mode": mode, "config": config} | row), flush=True)
        loads.append(load_average())
    if not args.json:
        print_table(runs, args.rounds, loads)
    return 1 if bad else 0


def print_table(runs: Runs, rounds: int, loads: list[str]) -> None:
    print(f"W1, {rounds} round(s); seconds; min / median over the rounds")
    print(f"load average (1, 5, 15 min) at the start and after each round: {' | '.join(loads)}\n")
    head = f"{'T':>7} {'mode':7} {'config':15} {'total min':>9} {'median':>8} {'cpu min':>8} {'median':>8}"
    head += "  digests"
    print(head)
    print("-" * len(head))
    for (turns, mode, config), rows in sorted(runs.items()):
        total = [r["total_s"] for r in rows]
        cpu = [r["cpu_s"] for r in rows]
        oks = {r["ok"] for r in rows}
        verdict = "= original's" if oks == {True} else "MISMATCH" if False in oks else "(none known)"
        print(
            f"{turns:>7} {mode:7} {config:15} {min(total):9.3f} {statistics.median(total):8.3f} "
            f"{min(cpu):8.3f} {statistics.median(cpu):8.3f}  {verdict}"
        )
    if not any(config == "original" for _, _, config in runs):
        return
    print("\nours / original (below 1: ours is faster); cpu from the medians (and from the minima)")
    for (turns, mode, config), rows in sorted(runs.items()):
        original = runs.get((turns, mode, "original"))
        if config == "original" or original is None:
            continue
        wall = _median(rows, "total_s") / _median(original, "total_s")
        ratio = _median(rows, "cpu_s") / _median(original, "cpu_s")
        cpu_min = min(r["cpu_s"] for r in rows) / min(r["cpu_s"] for r in original)
        target = TARGETS.get(turns)
        goal = "" if target is None else f"  target <= {target}: {'met' if ratio <= target else 'NOT met'}"
        print(f"{turns:>7} {mode:7} {config:15} wall x{wall:.2f}  cpu x{ratio:.2f} (x{cpu_min:.2f}){goal}")


def _median(rows: list[dict[str, Any]], key: str) -> float:
    return float(statistics.median(row[key] for row in rows))


if __name__ == "__main__":
    sys.exit(main())

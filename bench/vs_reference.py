"""W1 on this machine: the implementation (collector defaults, and with ``--gc-freeze``) against
the TypeScript reference, interleaved, each run in a fresh process.

    python bench/vs_reference.py --reference /tmp/ref/w1.mjs                 # T = 1 000 and 10 000, 5 rounds
    python bench/vs_reference.py --reference /tmp/ref/w1.mjs --turns 100000 --rounds 2
    python bench/vs_reference.py --turns 10000                               # ours only

``--reference`` is the bundled driver that ``bench/reference/setup.sh`` builds
outside this repository (``node`` must be on the PATH). Every round runs each
configuration once, in turn, so a load that comes and goes on a shared machine
falls on all of them alike; the table gives the minimum and the median over the
rounds of the wall time of the turns' work (``total``: appends, derives,
compactions, not the building of each turn's input) and of the process's CPU
time over the whole run (input building included, on both sides). Every run's
digests are checked against the reference's known ones; the exit status is 1 if
one disagrees. ``gc-freeze`` is an application's policy (``gc.freeze()`` after
every turn, timed), not something the library does.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

if __package__ in (None, ""):  # run as a script: make the ``bench`` package importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.workload import MODES, REFERENCE

HERE = os.path.dirname(os.path.abspath(__file__))


def run_ours(turns: int, mode: str, freeze: bool) -> dict[str, Any]:
    command = [sys.executable, os.path.join(HERE, "w1.py"), "--turns", str(turns), "--modes", mode]
    command += ["--spec-turns", "--json"] + (["--gc-freeze"] if freeze else [])
    out = subprocess.run(command, check=False, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} failed:\n{out.stderr}")
    row = json.loads(out.stdout)["runs"][0]
    return {
        "total_s": row["total_ns"] / 1e9,
        "cpu_s": row["cpu_ns"] / 1e9,
        "gc_s": row["gc_ns"] / 1e9,
        "digests": (row["messages_sha256"], row["surface_sha256"]),
    }


def run_reference(driver: str, turns: int, mode: str) -> dict[str, Any]:
    out = subprocess.run(["node", driver, str(turns), mode], check=True, capture_output=True, text=True)
    row = json.loads(out.stdout)
    return {
        "total_s": row["total_s"],
        "cpu_s": row["cpu_s"],
        "gc_s": None,
        "digests": (row["messagesSha256"], row["surfaceSha256"]),
    }


def digests_ok(turns: int, mode: str, digests: tuple[str, str]) -> bool | None:
    want = REFERENCE.get((turns, mode))  # type: ignore[arg-type]
    return None if want is None else digests == (want.messages_sha256, want.surface_sha256)


def main(argv: Sequence[str] | None = None) -> int:
    summary = __doc__.split("\n\n")[0]
    parser = argparse.ArgumentParser(prog="python bench/vs_reference.py", description=summary)
    parser.add_argument("--turns", type=int, nargs="+", default=[1000, 10000], metavar="T")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--rounds", type=int, default=5, help="runs of each configuration (default 5)")
    parser.add_argument("--reference", metavar="W1_MJS", help="the reference's bundled W1 driver")
    parser.add_argument("--json", action="store_true", help="print every run as JSON lines instead")
    args = parser.parse_args(argv)

    configs = ["ours", "ours+gc-freeze"] + (["reference"] if args.reference else [])
    runs: dict[tuple[int, str, str], list[dict[str, Any]]] = {}
    bad = False
    for _ in range(args.rounds):
        for turns in args.turns:
            for mode in args.modes:
                for config in configs:
                    if config == "reference":
                        row = run_reference(args.reference, turns, mode)
                    else:
                        row = run_ours(turns, mode, freeze=config.endswith("freeze"))
                    row["ok"] = digests_ok(turns, mode, row.pop("digests"))
                    bad = bad or row["ok"] is False
                    runs.setdefault((turns, mode, config), []).append(row)
                    if args.json:
                        print(json.dumps({"turns": turns, "mode": mode, "config": config} | row), flush=True)
    if not args.json:
        print_table(runs, args.rounds)
    return 1 if bad else 0


def print_table(runs: dict[tuple[int, str, str], list[dict[str, Any]]], rounds: int) -> None:
    print(f"W1, {rounds} round(s); seconds; min / median over the rounds\n")
    head = f"{'T':>7} {'mode':7} {'config':15} {'total min':>9} {'median':>8} {'cpu min':>8} {'median':>8}"
    head += "  digests"
    print(head)
    print("-" * len(head))
    for (turns, mode, config), rows in sorted(runs.items()):
        total = [r["total_s"] for r in rows]
        cpu = [r["cpu_s"] for r in rows]
        oks = {r["ok"] for r in rows}
        verdict = "= reference" if oks == {True} else "MISMATCH" if False in oks else "(none known)"
        print(
            f"{turns:>7} {mode:7} {config:15} {min(total):9.3f} {statistics.median(total):8.3f} "
            f"{min(cpu):8.3f} {statistics.median(cpu):8.3f}  {verdict}"
        )
    if not any(config == "reference" for _, _, config in runs):
        return
    print("\nreference / ours (above 1: ours is faster), from the medians:")
    for (turns, mode, config), rows in sorted(runs.items()):
        reference = runs.get((turns, mode, "reference"))
        if config == "reference" or reference is None:
            continue
        wall = _median(reference, "total_s") / _median(rows, "total_s")
        cpu = _median(reference, "cpu_s") / _median(rows, "cpu_s")
        print(f"{turns:>7} {mode:7} {config:15} wall x{wall:.2f}  cpu x{cpu:.2f}")


def _median(rows: list[dict[str, Any]], key: str) -> float:
    return statistics.median(row[key] for row in rows)


if __name__ == "__main__":
    sys.exit(main())

"""Run benchmark workload W1 and print its report (see ``bench/workload-w1.md``).

    python bench/w1.py                      # T = 1 000, 10 000, 100 000, both modes, + spec at small T
    python bench/w1.py --turns 1000 10000   # choose the sizes
    python bench/w1.py --json               # machine-readable report

The implementation (``dsh_session.Session``) runs at every ``--turns`` size;
the specification (``dsh_spec``, quadratic) at the ``--spec-turns`` sizes,
where the implementation runs too so the two can be compared. The end state's
digests are checked against the TypeScript reference's where they are known
(published for T = 1 000 and 10 000; for T = 100 000 from running the reference
on this project's machine) and against the implementation's for spec runs; the
exit status is 1 if any digest disagrees. ``--gc-freeze`` adds an application's
collector policy (``gc.freeze()`` once per turn); the library itself never
touches the collector.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from typing import Any

if __package__ in (None, ""):  # run as a script: make the ``bench`` package importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.workload import MODES, REFERENCE_SECONDS, TARGETS, Mode, run_w1


class GcMeter:
    """Sums the time the cyclic garbage collector runs (it runs inside timed calls)."""

    def __init__(self) -> None:
        self.ns = 0
        self.collections = 0
        self._started = 0

    def __call__(self, phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter_ns()
        else:
            self.ns += time.perf_counter_ns() - self._started
            self.collections += 1

    def __enter__(self) -> GcMeter:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *_exc: object) -> None:
        gc.callbacks.remove(self)


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "gc": gc.isenabled(),
        "gc_threshold": list(gc.get_threshold()),
    }


def run_one(target: str, turns: int, mode: Mode, repeat: int, freeze: bool = False) -> dict[str, Any]:
    """The fastest of ``repeat`` runs (by total time), with its GC time.

    With ``freeze``, ``gc.freeze()`` runs at the end of every turn (timed with
    the turn), as an application may choose to do; the objects it froze are
    released again after the run.
    """
    best: dict[str, Any] | None = None
    for _ in range(repeat):
        gc.collect()
        with GcMeter() as meter:
            report = run_w1(TARGETS[target](), turns, mode, after_turn=gc.freeze if freeze else None)
        if freeze:
            gc.unfreeze()
        row = report.as_json()
        row["gc_ns"] = meter.ns
        row["gc_collections"] = meter.collections
        row["reference_match"] = report.matches_reference() if target == "impl" else None
        if best is None or row["total_ns"] < best["total_ns"]:
            best = row
    assert best is not None
    return best


def compare(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Digest checks and the ratios the report prints."""
    impl = {(r["turns"], r["mode"]): r for r in rows if r["target"] == "impl"}
    spec = {(r["turns"], r["mode"]): r for r in rows if r["target"] == "spec"}
    for key, row in spec.items():
        twin = impl.get(key)
        digests = ("messages_sha256", "surface_sha256")
        row["impl_match"] = None if twin is None else all(row[d] == twin[d] for d in digests)
    spec_ratio = [
        {"turns": t, "mode": m, "spec_over_impl": spec[t, m]["total_ns"] / impl[t, m]["total_ns"]}
        for (t, m) in sorted(spec)
        if (t, m) in impl
    ]
    reference = [
        {
            "turns": t,
            "mode": m,
            "reference_s": seconds,
            "impl_s": impl[t, m]["total_ns"] / 1e9,
            "reference_over_impl": seconds / (impl[t, m]["total_ns"] / 1e9),
        }
        for (t, m), seconds in sorted(REFERENCE_SECONDS.items())
        if (t, m) in impl
    ]
    sizes = []
    for mode in MODES:
        runs = sorted((t, r) for (t, m), r in impl.items() if m == mode)
        for (t0, r0), (t1, r1) in itertools.pairwise(runs):
            sizes.append(
                {
                    "mode": mode,
                    "from": t0,
                    "to": t1,
                    "turns_ratio": t1 / t0,
                    "time_ratio": r1["total_ns"] / r0["total_ns"],
                    "per_event_ratio": (r1["total_ns"] / r1["events"]) / (r0["total_ns"] / r0["events"]),
                }
            )
    return {"impl_vs_spec": spec_ratio, "impl_vs_reference": reference, "across_sizes": sizes}


def faster(ratio: float) -> str:
    return f"{ratio:.2f}x faster" if ratio >= 1 else f"{1 / ratio:.2f}x slower"


def seconds(ns: int) -> str:
    return f"{ns / 1e9:.3f}"


def verdict(row: dict[str, Any]) -> str:
    checks = []
    if row.get("reference_match") is not None:
        checks.append("ref ok" if row["reference_match"] else "REF MISMATCH")
    if row.get("impl_match") is not None:
        checks.append("=impl" if row["impl_match"] else "IMPL MISMATCH")
    return ", ".join(checks) or "-"


def print_table(info: dict[str, Any], rows: list[dict[str, Any]], ratios: dict[str, Any]) -> None:
    print(f"W1 on Python {info['python']} ({info['implementation']}), {info['cpus']} CPUs")
    print(info["platform"])
    collector = f"on, thresholds {tuple(info['gc_threshold'])}" if info["gc"] else "off"
    if info.get("gc_freeze"):
        collector += ", gc.freeze() after every turn"
    print(f"garbage collector {collector}; times in seconds; best of {info['repeat']}\n")
    head = (
        f"{'target':6} {'mode':7} {'T':>7} {'events':>8} {'cmp':>4} {'append':>8} {'derive':>7} {'(n)':>7} "
        f"{'compact':>7} {'total':>8} {'gc':>7} {'cpu':>7} {'us/ev':>6} {'surface':>7} {'msgs':>6} {'gen':>4}"
        "  digests"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['target']:6} {r['mode']:7} {r['turns']:>7} {r['events']:>8} {r['compactions']:>4} "
            f"{seconds(r['append_ns']):>8} {seconds(r['derive_ns']):>7} {r['derives']:>7} "
            f"{seconds(r['compaction_ns']):>7} {seconds(r['total_ns']):>8} {seconds(r['gc_ns']):>7} "
            f"{seconds(r['cpu_ns']):>7} "
            f"{r['total_ns'] / r['events'] / 1000:>6.2f} {r['surface_length']:>7} {r['message_count']:>6} "
            f"{r['generation']:>4}  {verdict(r)}"
        )
    print("\nDigests (messagesSha256 / surfaceSha256):")
    for r in rows:
        where = f"{r['target']:4} {r['mode']:7} T={r['turns']:<7}"
        print(f"  {where} {r['messages_sha256']}  {r['surface_sha256']}")
    if ratios["impl_vs_spec"]:
        print("\nImplementation vs specification (same T; spec time / impl time):")
        for x in ratios["impl_vs_spec"]:
            print(f"  {x['mode']:7} T={x['turns']:<7} {x['spec_over_impl']:8.1f}x")
    if ratios["impl_vs_reference"]:
        print("\nImplementation vs the TypeScript reference's published times (reference / impl):")
        for x in ratios["impl_vs_reference"]:
            print(
                f"  {x['mode']:7} T={x['turns']:<7} reference {x['reference_s']:.2f} s, "
                f"impl {x['impl_s']:.3f} s: {faster(x['reference_over_impl'])}"
            )
    if ratios["across_sizes"]:
        print("\nAcross sizes (implementation; per-event ratio 1.0 = linear):")
        for x in ratios["across_sizes"]:
            print(
                f"  {x['mode']:7} T {x['from']:>7} -> {x['to']:<7} turns x{x['turns_ratio']:.0f}, "
                f"time x{x['time_ratio']:.1f}, per event x{x['per_event_ratio']:.2f}"
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python bench/w1.py",
        description="Run workload W1 against the implementation and the specification and print its report.",
    )
    parser.add_argument(
        "--turns",
        type=int,
        nargs="+",
        default=[1000, 10000, 100000],
        metavar="T",
        help="turn counts for the implementation (default: 1000 10000 100000)",
    )
    parser.add_argument(
        "--spec-turns",
        type=int,
        nargs="*",
        default=[50, 200],
        metavar="T",
        help="turn counts for the quadratic specification; the implementation runs them too "
        "(default: 50 200; none to skip the spec)",
    )
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES), help="default: both")
    parser.add_argument("--repeat", type=int, default=1, help="runs per configuration; the fastest is kept")
    parser.add_argument(
        "--no-gc", action="store_true", help="turn the cyclic garbage collector off (diagnostic)"
    )
    parser.add_argument(
        "--gc-threshold",
        type=int,
        nargs=3,
        metavar=("G0", "G1", "G2"),
        help="run with gc.set_threshold(G0, G1, G2) instead of the interpreter's default (e.g. 700 10 100)",
    )
    parser.add_argument(
        "--gc-freeze",
        action="store_true",
        help="call gc.freeze() at the end of every turn, timed with it (an application's choice: "
        "the collector then no longer rescans the log it has already seen)",
    )
    parser.add_argument(
        "--driver",
        action="store_true",
        help="also run the driver alone (a target that keeps nothing) at each --turns: what W1's own "
        "input building, loop and timers cost",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    args = parser.parse_args(argv)

    if args.no_gc:
        gc.disable()
    if args.gc_threshold:
        gc.set_threshold(*args.gc_threshold)
    plan = [("impl", t) for t in sorted(set(args.turns) | set(args.spec_turns))]
    plan += [("spec", t) for t in sorted(set(args.spec_turns))]
    if args.driver:
        plan += [("driver", t) for t in sorted(set(args.turns))]
    rows = []
    for target, turns in plan:
        for mode in args.modes:
            if not args.json:
                print(f"running {target} {mode} T={turns} ...", file=sys.stderr, flush=True)
            rows.append(run_one(target, turns, mode, args.repeat, freeze=args.gc_freeze))
    ratios = compare(rows)
    info = machine() | {"repeat": args.repeat, "gc_freeze": args.gc_freeze}
    if args.json:
        json.dump({"machine": info, "runs": rows, "ratios": ratios}, sys.stdout, indent=2)
        print()
    else:
        print_table(info, rows, ratios)
    bad = [r for r in rows if r.get("reference_match") is False or r.get("impl_match") is False]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""How the implementation's costs scale with the length of the history.

    python bench/scaling.py                   # history lengths 1 000, 10 000, 100 000
    python bench/scaling.py --sizes 1000 10000 --json
    python bench/scaling.py --sizes 300 3000 30000 300000   # about 1.3k to 1.3M events (~1 GB resident)

For each history length L (the number of surface nodes, so of messages; the log
behind it is W1 plain turns, 13 events per 3 nodes) it measures, as medians of
repeated ``time.perf_counter_ns`` samples:

- **append**: the cost per event of appending one more W1 turn (13 events);
- **derive**: one ``derive_messages()`` call after one more surface append;
- **replace k**: one append whose ``surfaceOp`` replaces k = 1, 10, 100 nodes in
  the middle of the surface (the surface is refilled between samples so its
  length stays L);
- **derive after replace k**: the ``derive_messages()`` call right after it.

The cost model says the first three are flat in L: append O(1) amortized,
derive O(new nodes), replace O(k). The ratios cost(L) / cost(smallest L) make
that visible; 1.0 is flat. Derive after a replace re-links every cached message
(no event is projected again), so it is O(L) by design and reported for
information. The resident memory after each build and the run's peak are
reported beside the figures (one history is kept at a time).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

if __package__ in (None, ""):  # run as a script: make the ``bench`` package importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.workload import turn_steps
from dsh_session import Replace, Session

clock = time.perf_counter_ns


def append_turn(session: Session, t: int) -> None:
    """Append W1 turn ``t`` (its 13 events, no derive, no compaction)."""
    seqs: list[int] = []
    for kind, data, op, positions in turn_steps(t):
        refs = [seqs[i] for i in positions] if positions else None
        seqs.append(session.append(kind, data, surface_op=op, source_event_seqs=refs).seq)


def build(length: int) -> tuple[Session, int]:
    """A session whose surface has ``length`` nodes (W1 plain turns, 3 nodes each)
    and its derived history cached; also the next turn number."""
    session = Session("scaling")
    turns = -(-length // 3)
    for t in range(1, turns + 1):
        append_turn(session, t)
    session.derive_messages()
    return session, turns + 1


def user(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "source": {"kind": "user"}}


def rss_mib() -> float | None:
    """The process's resident set size now, in MiB (Linux; ``None`` elsewhere)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return None


def peak_rss_mib() -> float:
    """The process's peak resident set size so far, in MiB (``ru_maxrss`` is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def median_ns(samples: list[int]) -> float:
    return float(statistics.median(samples))


def measure_append(session: Session, next_turn: int, repeat: int) -> tuple[float, int]:
    """Median cost per event of appending one W1 turn, and the next turn number."""
    samples = []
    for t in range(next_turn, next_turn + repeat):
        steps = turn_steps(t)
        seqs: list[int] = []
        started = clock()
        for kind, data, op, positions in steps:
            refs = [seqs[i] for i in positions] if positions else None
            seqs.append(session.append(kind, data, surface_op=op, source_event_seqs=refs).seq)
        samples.append((clock() - started) // len(steps))
    session.derive_messages()
    return median_ns(samples), next_turn + repeat


def measure_derive(session: Session, repeat: int) -> float:
    """Median cost of one derive after one more surface append."""
    samples = []
    for i in range(repeat):
        session.append("user/message", user(f"more {i}"), surface_op="append")
        started = clock()
        session.derive_messages()
        samples.append(clock() - started)
    return median_ns(samples)


def measure_replace(session: Session, k: int, repeat: int) -> tuple[float, float]:
    """Median cost of a replace of ``k`` nodes in the middle of the surface, and of
    the derive right after one.

    The span is found by following links from a cursor (O(k)), never by listing
    the surface: walking all L nodes between samples would flush the CPU caches
    and charge the replace for it. Replaces and derives are sampled in separate
    rounds for the same reason (a derive after a replace walks every node).
    """
    surface = session.surface
    seqs = surface.seqs()
    cursor = seqs[len(seqs) // 2]
    del seqs

    def refill_tail(k: int, i: int) -> None:
        """Append k - 1 nodes, so the surface keeps its length."""
        for j in range(k - 1):
            session.append("user/message", user(f"refill {k}/{i}/{j}"), surface_op="append")

    def replace_at_cursor(i: int, refill: bool) -> int:
        nonlocal cursor
        span = [cursor]
        while len(span) < k:
            follower = surface.node(span[-1])
            assert follower is not None and follower.next is not None
            span.append(follower.next)
        data = user(f"summary {k}/{i}")
        op = Replace(span[0], span[-1])
        started = clock()
        event = session.append("user/message", data, surface_op=op, source_event_seqs=span)
        elapsed = clock() - started
        placed = surface.node(event.seq)
        assert placed is not None and placed.next is not None
        cursor = placed.next
        if refill:
            refill_tail(k, i)
        return elapsed

    replace_samples = [replace_at_cursor(i, refill=True) for i in range(repeat)]
    session.derive_messages()
    derive_samples = []
    for i in range(repeat):
        replace_at_cursor(repeat + i, refill=False)
        started = clock()
        session.derive_messages()
        derive_samples.append(clock() - started)
        refill_tail(k, i)
        session.derive_messages()  # projects the k - 1 new nodes, outside the sample
    return median_ns(replace_samples), median_ns(derive_samples)


def run(sizes: Sequence[int], ks: Sequence[int], repeat: int, log: Callable[[str], None]) -> dict[str, Any]:
    rows = []
    for length in sizes:
        log(f"building a history of {length} messages ...")
        session, next_turn = build(length)
        gc.collect()
        row: dict[str, Any] = {"history": length, "events": session.seq, "rss_built_mib": rss_mib()}
        row["append_ns"], next_turn = measure_append(session, next_turn, repeat)
        row["derive_ns"] = measure_derive(session, repeat)
        for k in ks:
            row[f"replace_{k}_ns"], row[f"derive_after_replace_{k}_ns"] = measure_replace(session, k, repeat)
        row["peak_rss_mib"] = peak_rss_mib()
        rows.append(row)
        del session
        gc.collect()
    base = rows[0]
    metrics = [key for key in base if key.endswith("_ns")]
    ratios = [
        {"history": row["history"], **{key: row[key] / base[key] for key in metrics}} for row in rows[1:]
    ]
    return {"rows": rows, "ratios_to_smallest": ratios}


FLAT = ("append_ns", "derive_ns")


def label(key: str) -> str:
    return key.removesuffix("_ns").replace("_", " ")


def print_table(info: dict[str, Any], result: dict[str, Any]) -> None:
    rows, ratios = result["rows"], result["ratios_to_smallest"]
    print(
        f"Scaling on Python {info['python']}, {info['cpus']} CPUs; medians of {info['repeat']} samples, in us"
    )
    metrics = [key for key in rows[0] if key.endswith("_ns")]
    head = f"{'':32}" + "".join(f"{row['history']:>12}" for row in rows)
    head += "".join(f"{'x' + str(r['history']) + '/' + str(rows[0]['history']):>14}" for r in ratios)
    print(head)
    print("-" * len(head))
    for key in metrics:
        model = "O(L)" if key.startswith("derive_after") else "flat"
        line = f"{label(key) + ' (' + model + ')':32}" + "".join(f"{row[key] / 1000:>12.2f}" for row in rows)
        line += "".join(f"{r[key]:>14.2f}" for r in ratios)
        print(line)
    print(f"\n(events in the log at each length: {', '.join(str(row['events']) for row in rows)})")
    rss = ", ".join("?" if row["rss_built_mib"] is None else f"{row['rss_built_mib']:.0f}" for row in rows)
    print(
        f"(resident memory after building each history, MiB: {rss}; peak {rows[-1]['peak_rss_mib']:.0f} MiB)"
    )
    derive = [row["derive_ns"] for row in rows]
    print(
        f"derive per step, largest / smallest over the lengths: x{max(derive) / min(derive):.2f}"
        f" (flat: near 1; the cost model says O(new nodes))"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python bench/scaling.py",
        description="Append, derive and replace costs of the implementation at growing history lengths.",
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000], metavar="L")
    parser.add_argument("--ks", type=int, nargs="+", default=[1, 10, 100], metavar="K", help="replace widths")
    parser.add_argument("--repeat", type=int, default=51, help="samples per figure (median taken)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of a table")
    args = parser.parse_args(argv)
    if any(k > length // 2 for k in args.ks for length in args.sizes):
        parser.error("every replace width must be at most half the smallest history length")
    result = run(args.sizes, args.ks, args.repeat, lambda text: print(text, file=sys.stderr, flush=True))
    info = {"python": platform.python_version(), "cpus": os.cpu_count(), "repeat": args.repeat}
    if args.json:
        json.dump({"machine": info} | result, sys.stdout, indent=2)
        print()
    else:
        print_table(info, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())

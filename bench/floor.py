"""The raw floor under W1: what the events cost with nothing but a typed decode and a list append.

    nice python bench/floor.py                     # T = 1 000, 10 000, 100 000 (plain), 3 rounds
    nice python bench/floor.py --turns 10000 --rounds 5

W1's plain log of T turns (``bench/w1_log.py``) is written as JSONL, one record per line, as
``JSON.stringify`` writes it. Then, in this process, CPU time (``time.process_time``), the best
of the rounds, for each of:

- ``msgspec Raw``: each line decoded by ``msgspec.json.Decoder`` into a typed record
  (``type``, ``seq``, ``time``, ``sourceEventSeqs``, ``surfaceOp``) whose ``data`` stays its JSON
  text (``msgspec.Raw``: the shape of our data model), and appended to a list;
- ``msgspec Any``: the same with ``data`` decoded into Python values;
- ``json``: each line parsed by the standard library's ``json.loads`` and appended;
- ``encode``: every payload encoded back to JSON text by msgspec.

No rule is checked, no surface is folded, nothing is derived: this is the part of a session's
cost that no implementation in Python avoids, the bar our append and load are read against
(docs/performance.md).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

if __package__ in (None, ""):  # run as a script: make the ``bench`` package importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.w1_log import w1_log


class RawRecord(msgspec.Struct, gc=False):
    type: str
    seq: int
    time: int
    data: msgspec.Raw
    sourceEventSeqs: list[int] | None = None
    surfaceOp: Any = None


class AnyRecord(msgspec.Struct):
    type: str
    seq: int
    time: int
    data: Any
    sourceEventSeqs: list[int] | None = None
    surfaceOp: Any = None


def lines_of(turns: int) -> list[bytes]:
    """W1's plain log of ``turns`` turns, one JSON line per event."""
    return [
        json.dumps(event.to_json(), separators=(",", ":"), ensure_ascii=False).encode()
        for event in w1_log(turns)
    ]


def cpu(work: Callable[[], object], rounds: int) -> float:
    """The least CPU seconds ``work`` took over ``rounds`` runs (a collection first, each time)."""
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def measure(turns: int, rounds: int) -> dict[str, Any]:
    lines = lines_of(turns)
    raw = msgspec.json.Decoder(RawRecord)
    typed = msgspec.json.Decoder(AnyRecord)
    payloads = [msgspec.json.decode(line)["data"] for line in lines]
    encode = msgspec.json.Encoder().encode

    def decode_raw() -> list[RawRecord]:
        out: list[RawRecord] = []
        keep = out.append
        for line in lines:
            keep(raw.decode(line))
        return out

    def decode_any() -> list[AnyRecord]:
        out: list[AnyRecord] = []
        keep = out.append
        for line in lines:
            keep(typed.decode(line))
        return out

    def stdlib() -> list[Any]:
        out: list[Any] = []
        keep = out.append
        for line in lines:
            keep(json.loads(line))
        return out

    def encode_all() -> list[bytes]:
        return [encode(payload) for payload in payloads]

    events = len(lines)
    figures = {
        "msgspec Raw": cpu(decode_raw, rounds),
        "msgspec Any": cpu(decode_any, rounds),
        "json": cpu(stdlib, rounds),
        "encode": cpu(encode_all, rounds),
    }
    return {"turns": turns, "events": events, "cpu_s": figures}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--rounds", type=int, default=3, help="runs of each figure (default 3; the least)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON lines too")
    args = parser.parse_args(argv)
    print(
        f"{'T':>7} {'events':>9}  "
        + "  ".join(f"{name:>20}" for name in ("msgspec Raw", "msgspec Any", "json", "encode"))
    )
    for turns in args.turns:
        result = measure(turns, args.rounds)
        cells = [
            f"{seconds:8.3f} s {seconds / result['events'] * 1e6:5.2f} µs"
            for seconds in result["cpu_s"].values()
        ]
        print(f"{turns:>7} {result['events']:>9}  " + "  ".join(f"{cell:>20}" for cell in cells))
        if args.json:
            print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

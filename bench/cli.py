"""Command-line benchmark: the read commands on the W1 log, each as a ratio to parsing the file with
the standard library's ``json``.

    nice python bench/cli.py                      # W1 T = 10 000 (130 000 events), 3 rounds
    nice python bench/cli.py --turns 1000 --rounds 1

The log is the W1 workload in plain mode (``bench/workload-w1.md``; ``bench/w1_log.py``), T turns
of 13 events, written once to a JSONL root (``JsonlBackend``, one session). Every command is then
run in a fresh process, as a user runs it -- ``python -m dsh_session <command> ROOT ...`` with its
output piped into this script and thrown away -- and so is the floor: a process that reads the
session's file and parses each of its lines with ``json.loads``, dropping each record (a second
figure, "kept", holds them all, which brings the cyclic collector's passes over them in). Each
run's time is the CPU time of that child process (user + system,
``resource.getrusage(RUSAGE_CHILDREN)`` before and after), which a shared machine disturbs far
less than wall time; interpreter start-up and imports are in every figure, the floor's included.
Every round runs each command once, in turn, so a load that comes and goes falls on all of them
alike; the report gives each command's median, its ratio to the floor's median (issue 12's
target: at most 3 for ``validate``, ``inspect``, ``derive --json`` and ``surface --json``) and
its ratio to the "kept" figure. The human-readable ``derive`` and ``surface`` are timed too (no
target). The exit status is 1 when a command fails or a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the ``bench`` package importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.w1_log import W1_CREATED_AT, w1_log
from dsh_session import JsonlBackend, SessionHeader

SESSION = "w1"

#: Issue 12's target: each of these commands at most this many times the floor.
TARGET = 3.0

#: name, arguments after PATH, held to the target.
COMMANDS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("validate", (), True),
    ("inspect", (), True),
    ("derive --json", ("--json",), True),
    ("surface --json", ("--json",), True),
    ("inspect --json", ("--json",), False),
    ("validate --json", ("--json",), False),
    ("derive", (), False),
    ("surface", (), False),
)

#: The floor: the session's file read and every line parsed by the standard library (each record
#: dropped once parsed, so that no collection over the records held is in it).
FLOOR = "import json, sys\nwith open(sys.argv[1], 'rb') as f:\n    for line in f:\n        json.loads(line)\n"
#: Also reported: the same, keeping every record (as a reader that uses them must; the cyclic
#: collector then walks the records held, again and again).
KEPT = "import json, sys\nwith open(sys.argv[1], 'rb') as f:\n    kept = [json.loads(line) for line in f]\n"


def build(root: Path, turns: int) -> Path:
    """Write W1's plain log of ``turns`` turns to a JSONL root at ``root``; its session file."""
    events = w1_log(turns, SESSION)
    with JsonlBackend(root) as backend:
        backend.create(SessionHeader(SESSION, W1_CREATED_AT))
        backend.append(SESSION, events)
    (found,) = root.glob(f"*/{SESSION}.jsonl")
    return found


def child_cpu(command: Sequence[str]) -> float:
    """Run ``command`` (output thrown away); the CPU seconds (user + system) it took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(command)} exited with {done.returncode}:\n{done.stderr.decode()[-2000:]}"
        )
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=10_000, help="W1 turns (13 events each; default 10 000)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each command (default 3; median)")
    parser.add_argument("--only", action="append", default=[], help="time only this command (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON line too")
    args = parser.parse_args(argv)
    python = sys.executable
    commands = [item for item in COMMANDS if not args.only or item[0] in args.only]
    where = Path(tempfile.mkdtemp(prefix="bench-cli-"))
    try:
        root = where / "root"
        log = build(root, args.turns)
        events = 13 * args.turns
        runs: dict[str, list[float]] = {"json": [], "json kept": []}
        runs.update({name: [] for name, _, _ in commands})
        for _ in range(args.rounds):
            runs["json"].append(child_cpu([python, "-c", FLOOR, str(log)]))
            runs["json kept"].append(child_cpu([python, "-c", KEPT, str(log)]))
            for name, extra, _ in commands:
                command = name.split()[0]
                runs[name].append(child_cpu([python, "-m", "dsh_session", command, str(root), *extra]))
        floor = statistics.median(runs["json"])
        print(
            f"W1 plain, T = {args.turns} ({events} events, {log.stat().st_size / 1e6:.1f} MB JSONL), "
            f"{args.rounds} round(s), CPU time of each child process, median; "
            f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f}"
        )
        kept = statistics.median(runs["json kept"])
        print(f"{'command':<16} {'CPU s':>7} {'ratio':>6} {'/ kept':>6}  target (ratio)")
        print(f"{'json (floor)':<16} {floor:7.2f} {1:6.2f} {floor / kept:6.2f}")
        print(f"{'json, kept':<16} {kept:7.2f} {kept / floor:6.2f} {1:6.2f}")
        missed = False
        rows = []
        for name, _, held in commands:
            cpu = statistics.median(runs[name])
            ratio = cpu / floor
            verdict = ""
            if held:
                verdict = f"<= {TARGET:g}: " + ("ok" if ratio <= TARGET else "MISSED")
                missed |= ratio > TARGET
            print(f"{name:<16} {cpu:7.2f} {ratio:6.2f} {cpu / kept:6.2f}  {verdict}")
            rows.append({"command": name, "cpu_s": cpu, "ratio": ratio, "runs": runs[name], "target": held})
        if args.json:
            summary = {"turns": args.turns, "events": events, "floor_s": floor, "kept_s": kept}
            print(json.dumps({**summary, "commands": rows}))
        return 1 if missed else 0
    finally:
        shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

"""Crash safety of the write coordinator: ``flush`` is the durability point.

A writer process (``python -m tests.crash_writer coordinator ...``) drives a
live session persisted by a ``PersistenceCoordinator`` -- automatic flushes
at step and turn ends, explicit flushes at random points -- and is killed with
SIGKILL at a random moment: right after it announced a flush, after an
automatic flush, or soon after it started. Each chain of rounds reuses one
store: the next writer resumes what the previous one left.

After every kill the stored session must load, repaired, as a prefix of what
the writer was appending followed only by the crash closers, never shorter
than what a completed flush covered (``flushed <n>`` / ``durable <n>``) or
than the log the writer resumed; the repair must be durable; the next writer
must resume exactly that log. A writer that prints anything to stderr (a stack
trace) fails the test.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from dsh_session import Event, SessionNotFoundError, interrupted_turn_closers
from tests.crash_writer import SESSION, expected_log, open_backend
from tests.support import THOROUGH

ROOT = Path(__file__).resolve().parent.parent
#: Chains of killed writers per backend (more with ``DSH_HYPOTHESIS_PROFILE=thorough``).
CHAINS = 8 if THOROUGH else 2
ROUNDS = 3


@dataclass
class Run:
    ready: int | None  # how many events the writer started from (resumed), if it got that far
    acked: int  # the most events a completed flush covered
    finished: bool
    stderr: str


def run_and_kill(kind: str, path: Path, seed: int, rng: random.Random) -> Run:
    """Start a coordinator writer and kill it at a moment drawn from ``rng``."""
    trigger, count, pause = rng.choice(
        [
            ("flushing", rng.randint(1, 10), rng.uniform(0, 0.003)),  # during an explicit flush
            ("durable", rng.randint(1, 60), rng.uniform(0, 0.002)),  # around automatic flushes
            ("ready", 1, rng.uniform(0, 0.05)),  # anywhere early on
        ]
    )
    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.crash_writer", "coordinator", kind, str(path), str(seed)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert writer.stdout is not None
    run = Run(None, 0, False, "")
    seen = 0
    deadline = time.monotonic() + 30

    def note(line: str) -> None:
        word, _, number = line.partition(" ")
        if word in ("flushed", "durable"):
            run.acked = max(run.acked, int(number))
        elif word == "ready":
            run.ready = int(number)
        elif word == "finished":
            run.finished = True

    while time.monotonic() < deadline:
        line = writer.stdout.readline().strip()
        if not line:
            break
        note(line)
        if line.startswith(trigger):
            seen += 1
            if seen >= count:
                break
    time.sleep(pause)
    writer.send_signal(signal.SIGKILL)
    rest, run.stderr = writer.communicate(timeout=30)
    for line in rest.splitlines():  # written before the kill landed
        note(line.strip())
    return run


def prefix_length(loaded: list[Event], events: list[Event]) -> int:
    """``k`` such that ``loaded`` is ``events[:k]`` followed by their crash closers."""
    for k in range(len(loaded), max(len(loaded) - 4, 0) - 1, -1):
        if loaded == events[:k] + list(interrupted_turn_closers(events[:k])):
            return k
    raise AssertionError("the stored log is not a prefix of what the writer appended, plus its closers")


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
def test_a_killed_writer_loses_nothing_a_completed_flush_covered(kind: str, tmp_path: Path) -> None:
    rng = random.Random(f"coordinator-crash-{kind}")
    for chain in range(CHAINS):
        path = tmp_path / f"chain-{chain}" / ("root" if kind == "jsonl" else "sessions.db")
        prefix: list[Event] = []  # what the store held (repaired) before this round
        for round_ in range(ROUNDS):
            run = run_and_kill(kind, path, rng.randint(0, 10**6), rng)
            where = f"chain {chain}, round {round_}: {run}"
            assert run.stderr == "", where
            assert run.ready in (None, len(prefix)), where  # it resumed exactly the stored log
            expected = expected_log(prefix)
            backend = open_backend(kind, str(path))
            try:
                loaded = list(backend.load(SESSION).events)
            except SessionNotFoundError:
                assert prefix == [] and run.acked == 0, where
                continue
            finally:
                backend.close()
            k = prefix_length(loaded, expected)
            assert k >= max(run.acked, len(prefix)), where
            if run.finished:
                assert loaded == expected, where
            again = open_backend(kind, str(path))
            assert list(again.load(SESSION).events) == loaded, where  # the repair was durable
            again.close()
            prefix = loaded

"""Crash safety: a writer process killed (SIGKILL) at random points while appending.

After every kill the log must load -- repaired -- and hold every event whose
append had returned, followed by nothing but further events the writer sent and
the crash closers. Never a stack trace, never a history shorter than the last
acknowledged append.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.w1_log import w1_log
from dsh_session import Event, SessionNotFoundError, interrupted_turn_closers
from tests.crash_writer import SESSION, TURNS, open_backend
from tests.support import THOROUGH

ROOT = Path(__file__).resolve().parent.parent
#: Kills per backend (many more with ``DSH_HYPOTHESIS_PROFILE=thorough``).
ROUNDS = 40 if THOROUGH else 5


def run_and_kill(kind: str, path: Path, seed: int, acks: int, pause: float) -> int:
    """Start a writer, kill it after ``acks`` acknowledged appends and ``pause`` seconds;
    return the number of events it had acknowledged."""
    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.crash_writer", kind, str(path), str(seed)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert writer.stdout is not None
    acked = 0
    seen = 0
    deadline = time.monotonic() + 30
    while seen < acks and time.monotonic() < deadline:
        line = writer.stdout.readline()
        if not line or line.startswith("finished"):
            break
        if line.startswith("acked "):
            acked = int(line.split()[1])
            seen += 1
    time.sleep(pause)
    writer.send_signal(signal.SIGKILL)
    rest, _ = writer.communicate(timeout=30)
    for line in rest.splitlines():  # acknowledged before the kill landed
        if line.startswith("acked "):
            acked = int(line.split()[1])
    return acked


def prefix_length(loaded: list[Event], events: list[Event]) -> int:
    """``k`` such that ``loaded`` is ``events[:k]`` followed by their closers."""
    for k in range(len(loaded), max(len(loaded) - 8, 0) - 1, -1):
        if loaded == events[:k] + list(interrupted_turn_closers(events[:k])):
            return k
    raise AssertionError("the loaded log is not a prefix of what was written plus its closers")


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
def test_a_killed_writer_loses_no_acknowledged_event(kind: str, tmp_path: Path) -> None:
    events = w1_log(TURNS, SESSION)
    rng = random.Random(f"crash-{kind}")
    for round_ in range(ROUNDS):
        path = tmp_path / f"round-{round_}" / ("root" if kind == "jsonl" else "sessions.db")
        acked = run_and_kill(kind, path, rng.randint(0, 10**6), rng.randint(0, 25), rng.uniform(0, 0.004))
        backend = open_backend(kind, str(path))
        try:
            loaded = list(backend.load(SESSION).events)
        except SessionNotFoundError:
            assert acked == 0  # killed before the first batch was published
            continue
        finally:
            backend.close()
        k = prefix_length(loaded, events)
        assert k >= acked
        again = open_backend(kind, str(path))
        assert list(again.load(SESSION).events) == loaded  # the repair was durable
        again.close()

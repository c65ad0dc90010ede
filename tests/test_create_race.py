"""Two creators of one id in a JSONL root (issue 11, item 7): exactly one wins, always.

Creators with different working directories publish into different bucket
directories, so no file name stops the second one. First publishes of one
root take turns (an ``flock`` on the root directory): the first stores the
session, every later one finds it and gets ``STORE_CONFLICT`` with a message
that is true -- it names the log the winner stored, which loads. Real
processes, released together by a barrier, many rounds; each round must end
with exactly one winner (before the fix about one round in ten had none).
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

from dsh_session import Code, JsonlBackend, PersistenceError, SessionHeader
from dsh_session.persistence import cwd_bucket, encode_segment
from tests.logs import one_turn_log

CTX = multiprocessing.get_context("fork")
WRITERS = 3
ROUNDS = 30


def creator(root: str, worker: int, barrier: Any, results: Any) -> None:
    for round_ in range(ROUNDS):
        session_id = f"race-{round_}"
        backend = JsonlBackend(root, lock_timeout=30.0)
        backend.create(SessionHeader(session_id, worker, cwd=f"/w{worker}"))
        events = one_turn_log(session_id)
        barrier.wait()
        try:
            backend.append(session_id, events)
            results.put((round_, worker, "won", ""))
        except PersistenceError as error:
            results.put((round_, worker, error.code.name, error.message))
        backend.close()


def test_two_creators_of_one_id_with_different_cwds_exactly_one_wins(tmp_path: Path) -> None:
    root = tmp_path / "root"
    barrier = CTX.Barrier(WRITERS)
    results = CTX.Queue()
    processes = [CTX.Process(target=creator, args=(str(root), w, barrier, results)) for w in range(WRITERS)]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=120) for _ in range(WRITERS * ROUNDS)]
    for process in processes:
        process.join(120)
    assert [process.exitcode for process in processes] == [0] * WRITERS
    reader = JsonlBackend(root, read_only=True)
    for round_ in range(ROUNDS):
        session_id = f"race-{round_}"
        this_round = [(w, code, message) for r, w, code, message in outcomes if r == round_]
        winners = [w for w, code, _ in this_round if code == "won"]
        assert len(winners) == 1, this_round
        (winner,) = winners
        log = root / cwd_bucket(f"/w{winner}") / f"{encode_segment(session_id)}.jsonl"
        for worker, code, message in this_round:
            if worker != winner:
                assert code == Code.STORE_CONFLICT.name, message
                assert str(log) in message and "load the session" in message, message
        loaded = reader.load(session_id)
        assert loaded.header.cwd == f"/w{winner}" and loaded.header.created_at == winner
        assert len(loaded.events) == len(one_turn_log(session_id))
    # Nothing else was left behind: one log per id, no temporary file.
    assert sorted(p.name for p in root.rglob("*") if p.is_file()) == sorted(
        f"{encode_segment(f'race-{r}')}.jsonl" for r in range(ROUNDS)
    )

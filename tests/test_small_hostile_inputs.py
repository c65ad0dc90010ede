"""The smaller defects of issue 11: what the command line prints of a hostile id, how a failed
automatic flush is reported, a publish killed before its link, ``fork --child`` with a lone
surrogate."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from dsh_session import (
    JsonlBackend,
    PersistenceCoordinator,
    SessionHeader,
    SessionMeta,
    SessionStore,
)
from dsh_session.persistence import cwd_bucket, encode_segment
from tests.cli_support import run
from tests.logs import one_turn_log

EVIL = "evil\x1b[2J\x1b]0;owned\x07\nFAKE: all sessions valid\r\u2028x"


def store_with(root: Path, session_id: str) -> None:
    backend = JsonlBackend(root)
    backend.create(SessionHeader(session_id, 1, cwd="/w"))
    backend.append(session_id, one_turn_log())


@pytest.mark.parametrize("command", ["validate", "inspect", "derive", "surface", "repair"])
def test_a_session_id_with_control_characters_is_printed_escaped(tmp_path: Path, command: str) -> None:
    root = tmp_path / "root"
    store_with(root, EVIL)
    args = [command, str(root)] + ([] if command in ("validate", "repair") else ["--id", EVIL])
    ran = run(*args)
    assert ran.status == 0, ran.stderr
    printed = ran.stdout + ran.stderr
    for raw in ("\x1b", "\x07", "\r", "\u2028", "\nFAKE"):
        assert raw not in printed, (command, printed)
    if command in ("validate", "inspect"):
        assert "\\x1b" in printed  # shown, escaped


def test_a_failed_automatic_flush_is_one_line_with_its_code(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = SessionStore()
    backend = JsonlBackend(tmp_path / "root")
    coordinator = PersistenceCoordinator(store, backend)
    session = store.create("s", meta=SessionMeta(cwd="/w", created_at=1))
    backend.close()  # every write fails from now on: STORE_CLOSED
    with caplog.at_level(logging.ERROR, logger="dsh_session"):
        session.append("turn/start", {"turn": 1})
        session.append("turn/end", {"turn": 1, "reason": {"kind": "completed"}})  # flushes by itself
    (record,) = [r for r in caplog.records if r.name == "dsh_session.store"]
    assert "[STORE_CLOSED]" in record.getMessage() and "\n" not in record.getMessage()
    assert record.exc_info is None  # no traceback by default
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="dsh_session"):
        session.append("turn/start", {"turn": 2})
        session.append("turn/end", {"turn": 2, "reason": {"kind": "completed"}})
    (record,) = [r for r in caplog.records if r.name == "dsh_session.store"]
    assert record.exc_info is not None  # the debug level shows the traceback
    with pytest.raises(Exception):  # noqa: B017 - the drain reports the same failure
        coordinator.close()


def test_a_temporary_file_left_by_a_killed_publish_is_ignored(tmp_path: Path) -> None:
    root = tmp_path / "root"
    store_with(root, "kept")
    bucket = root / cwd_bucket("/w")
    name = f"{encode_segment('lost')}.jsonl"
    leftover = bucket / f"{name}.0123456789ab.tmp"  # killed after writing, before the link
    leftover.write_bytes(b'{"type":"session","version":0,"id":"lost","createdAt":1,"cwd":"/w"}\n')
    backend = JsonlBackend(root)
    assert [h.id for h in backend.list()] == ["kept"]
    backend.create(SessionHeader("lost", 2, cwd="/w"))  # the id is free: nothing was published
    backend.append("lost", one_turn_log())
    assert JsonlBackend(root).load("lost").header.created_at == 2
    ran = run("validate", str(root))
    assert ran.status == 0, ran.stderr
    assert ".tmp" not in ran.stdout


def test_fork_refuses_a_child_id_with_a_lone_surrogate(tmp_path: Path) -> None:
    root = tmp_path / "root"
    store_with(root, "parent")
    before = sorted(p.name for p in root.rglob("*"))
    ran = run("fork", str(root), "--id", "parent", "--child", "kid\udcff")
    assert ran.status == 2
    assert "[INVALID_HEADER]" in ran.stderr and "surrogate" in ran.stderr
    assert sorted(p.name for p in root.rglob("*")) == before
    assert os.listdir(root / cwd_bucket("/w")) == [f"{encode_segment('parent')}.jsonl"]

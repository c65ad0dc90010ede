"""Reads and refused opens change no byte and no file (issue 11, item 5).

Every byte of every file of the store -- and the directory listing, ``-wal``
and ``-shm`` included -- is compared before and after: the command line's
read paths (``validate``, ``inspect``, ``derive``, ``surface``, ``repair
--dry-run``, the source of ``convert``), the backends' ``read_only=True``
mode, and opens that are refused (another application's database, another
schema version) -- on stores a crash of our own writer left behind too.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from dsh_session import (
    Code,
    Event,
    JsonlBackend,
    PersistenceError,
    SessionHeader,
    SqliteBackend,
    StoreIOError,
)
from tests.cli_support import run
from tests.logs import LogBuilder, one_turn_log
from tests.test_crash import ROOT, run_and_kill


def tree(directory: Path) -> dict[str, bytes | None]:
    """Every entry under ``directory``: a file's bytes, ``None`` for a directory."""
    out: dict[str, bytes | None] = {}
    for path in sorted(directory.rglob("*")):
        out[str(path.relative_to(directory))] = None if path.is_dir() else path.read_bytes()
    return out


def open_turn_log() -> list[object]:
    log = LogBuilder()
    log.one_turn()
    log.turn_start()
    log.user("still typing")
    return list(log.events)


def crashed_jsonl(root: Path) -> None:
    backend = JsonlBackend(root)
    backend.create(SessionHeader("open", 1, cwd="/w"))
    backend.append("open", open_turn_log())  # type: ignore[arg-type]
    backend.create(SessionHeader("whole", 1, cwd="/w"))
    backend.append("whole", one_turn_log())
    (log,) = root.glob("*/open.jsonl")
    with open(log, "ab") as file:
        file.write(b'{"type":"assistant/chunk","seq":9')  # torn


PENDING_WAL = """
import os, sys, sqlite3
from dsh_session import SessionHeader, SqliteBackend
from tests.logs import one_turn_log
path = sys.argv[1]
backend = SqliteBackend(path)
backend._conn.execute("PRAGMA wal_autocheckpoint = 0")
backend.create(SessionHeader("s", 1))
backend.append("s", one_turn_log())
os._exit(0)  # killed: the WAL is never checkpointed
"""


def sqlite_with_pending_wal(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-c", PENDING_WAL, str(path)],
        cwd=ROOT,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert Path(str(path) + "-wal").stat().st_size > 0


FOREIGN = """
import os, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode = wal")
conn.execute("PRAGMA wal_autocheckpoint = 0")
conn.execute("PRAGMA user_version = %s")
conn.execute("CREATE TABLE notes (body TEXT)")
conn.execute("INSERT INTO notes VALUES ('theirs')")
os._exit(0)
"""


def foreign_with_pending_wal(path: Path, user_version: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-c", FOREIGN % user_version, str(path)], check=True)
    assert Path(str(path) + "-wal").stat().st_size > 0


def reading_commands(store: Path, session_id: str, out: Path) -> list[list[str]]:
    return [
        ["validate", str(store)],
        ["inspect", str(store), "--id", session_id],
        ["derive", str(store), "--id", session_id],
        ["surface", str(store), "--id", session_id],
        ["repair", str(store), "--dry-run"],
        ["convert", str(store), str(out / "copy.db")],
    ]


def test_cli_reads_of_a_crashed_jsonl_root_change_nothing(tmp_path: Path) -> None:
    root = tmp_path / "store" / "root"
    crashed_jsonl(root)
    before = tree(tmp_path / "store")
    for args in reading_commands(root, "open", tmp_path):
        ran = run(*args)
        assert ran.status in (0, 1), (args, ran.stderr)
        assert tree(tmp_path / "store") == before, args


def test_cli_reads_of_a_sqlite_store_with_a_pending_wal_change_nothing(tmp_path: Path) -> None:
    db = tmp_path / "store" / "sessions.db"
    sqlite_with_pending_wal(db)
    before = tree(tmp_path / "store")
    for args in reading_commands(db, "s", tmp_path):
        ran = run(*args)
        assert ran.status in (0, 1), (args, ran.stderr)
        assert tree(tmp_path / "store") == before, args
    with SqliteBackend(tmp_path / "copy.db") as copy:
        assert [h.id for h in copy.list()] == ["s"]  # what the WAL held was read


@pytest.mark.parametrize("round_", range(3))
def test_reads_after_a_crash_of_our_writer_change_nothing(tmp_path: Path, round_: int) -> None:
    db = tmp_path / "store" / "sessions.db"
    acked = run_and_kill("sqlite", db, 1000 + round_, 3 + round_ * 5, 0.001)
    before = tree(tmp_path / "store")
    for args in reading_commands(db, "w1", tmp_path / f"out-{round_}"):
        (tmp_path / f"out-{round_}").mkdir(exist_ok=True)
        ran = run(*args)
        assert ran.status in (0, 1, 2), (args, ran.stderr)
        assert "internal error" not in ran.stderr
        assert tree(tmp_path / "store") == before, args
    with SqliteBackend(db, read_only=True) as reader:
        if acked:
            assert len(reader.load("w1").events) >= acked
    assert tree(tmp_path / "store") == before


def test_the_read_only_backends_load_repaired_and_store_nothing(tmp_path: Path) -> None:
    root = tmp_path / "root"
    crashed_jsonl(root)
    db = tmp_path / "db" / "sessions.db"
    sqlite_with_pending_wal(db)
    before = (tree(root), tree(db.parent))
    with JsonlBackend(root, read_only=True) as jsonl, SqliteBackend(db, read_only=True) as sqlite:
        loaded = jsonl.load("open")
        assert loaded.events[-1].type == "turn/end"  # closed, as a load returns it
        assert [h.id for h in jsonl.list()] == ["open", "whole"]
        assert [h.id for h in sqlite.list()] == ["s"]
        assert len(sqlite.load("s").events) == len(one_turn_log())
        more = [Event("turn/start", len(one_turn_log()), 99, {"turn": 2})]
        for backend, session_id in ((jsonl, "whole"), (sqlite, "s")):
            with pytest.raises(StoreIOError) as raised:
                backend.append(session_id, more)
            assert raised.value.errno == errno.EROFS
    assert (tree(root), tree(db.parent)) == before


def test_a_read_only_sqlite_backend_does_not_create_a_missing_database(tmp_path: Path) -> None:
    with SqliteBackend(tmp_path / "none" / "sessions.db", read_only=True) as backend:
        assert backend.list() == ()
    assert not (tmp_path / "none").exists()


@pytest.mark.parametrize("user_version", [0, 5, 7])
def test_a_refused_open_leaves_another_database_and_its_wal_as_they_were(
    tmp_path: Path, user_version: int
) -> None:
    db = tmp_path / "theirs" / "app.db"
    foreign_with_pending_wal(db, user_version)
    before = tree(db.parent)
    for read_only in (False, True):
        with pytest.raises(PersistenceError) as raised:
            SqliteBackend(db, read_only=read_only)
        assert raised.value.code in (Code.STORE_SCHEMA_MISMATCH, Code.STORE_VERSION_UNSUPPORTED)
        assert tree(db.parent) == before
    ran = run("validate", str(db))
    assert ran.status == 2
    assert tree(db.parent) == before
    conn = sqlite3.connect(db)  # and the data is still theirs
    assert conn.execute("SELECT body FROM notes").fetchall() == [("theirs",)]
    conn.close()

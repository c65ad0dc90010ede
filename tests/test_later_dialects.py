"""Stores written by later versions of the TypeScript harness (issue 11, item 8).

The harness kept ``SESSION_FORMAT_VERSION`` at 0 while it changed its files, so
only names, bytes and database metadata tell a later store from a damaged one.
Each is refused with ``STORE_VERSION_UNSUPPORTED`` naming what was found, and
nothing is touched: zstd-framed JSONL logs (``*.jsonl.zstd``, or a ``*.jsonl``
holding Zstandard frames), the one-directory-per-session layout, format v3, and
SQLite databases with ``application_id`` "DSHP" or ``user_version`` above 4.
``list()`` passes such entries over (as it passes over every file that is not a
readable session of our format), never hangs and never fails; a first publish
into a root holding them is refused.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dsh_session import Code, IncompatibleStoreError, JsonlBackend, SessionHeader, SqliteBackend
from dsh_session.persistence import cwd_bucket, encode_segment
from tests.cli_support import run
from tests.later_dialects import (
    write_directory_layout,
    write_later_sqlite,
    write_zstd_flat,
    zstd_log,
)
from tests.logs import one_turn_log
from tests.test_symlinks import tree

HEADER = SessionHeader("later", 1, cwd="/w")


def later_root(root: Path, kind: str) -> Path:
    """A root holding session ``later`` as a later harness wrote it; the file's path."""
    events = one_turn_log("later")
    if kind == "zstd":
        return write_zstd_flat(root, HEADER, events)
    if kind == "zstd-named-jsonl":
        path = root / cwd_bucket("/w") / f"{encode_segment('later')}.jsonl"
        path.parent.mkdir(parents=True)
        path.write_bytes(zstd_log(HEADER, events))
        return path
    return write_directory_layout(root, HEADER, events, kind)


KINDS = ["zstd", "zstd-named-jsonl", "session.jsonl", "session.jsonl.zstd", "session.v3.jsonl.zstd"]
WHAT = {
    "zstd": "Zstandard",
    "zstd-named-jsonl": "Zstandard",
    "session.jsonl": "one-directory-per-session",
    "session.jsonl.zstd": "one-directory-per-session",
    "session.v3.jsonl.zstd": "format-v3",
}


def unsupported(raised: pytest.ExceptionInfo[IncompatibleStoreError], path: Path, what: str) -> None:
    assert raised.value.code is Code.STORE_VERSION_UNSUPPORTED
    assert str(path) in raised.value.message and what in raised.value.message
    assert "later version of the TypeScript harness" in raised.value.message


@pytest.mark.parametrize("kind", KINDS)
def test_a_later_jsonl_store_is_refused_untouched(tmp_path: Path, kind: str) -> None:
    root = tmp_path / "root"
    path = later_root(root, kind)
    before = tree(root)
    backend = JsonlBackend(root)
    assert backend.list() == ()  # passed over, like any file that is not a session of our format
    with pytest.raises(IncompatibleStoreError) as raised:
        backend.load("later")
    unsupported(raised, path, WHAT[kind])
    with pytest.raises(IncompatibleStoreError) as raised:
        JsonlBackend(root, read_only=True).load("later")
    unsupported(raised, path, WHAT[kind])
    assert tree(root) == before


@pytest.mark.parametrize("kind", ["zstd", "session.jsonl", "session.v3.jsonl.zstd"])
@pytest.mark.parametrize("session_id", ["later", "another"])
def test_nothing_is_published_into_a_later_root(tmp_path: Path, kind: str, session_id: str) -> None:
    root = tmp_path / "root"
    later_root(root, kind)
    before = tree(root)
    backend = JsonlBackend(root)
    backend.create(SessionHeader(session_id, 2, cwd="/w"))
    with pytest.raises(IncompatibleStoreError) as raised:
        backend.append(session_id, one_turn_log(session_id))
    assert raised.value.code is Code.STORE_VERSION_UNSUPPORTED
    assert "nothing was written" in raised.value.message
    assert tree(root) == before


def test_our_sessions_beside_a_later_file_still_read(tmp_path: Path) -> None:
    root = tmp_path / "root"
    ours = JsonlBackend(root)
    ours.create(SessionHeader("ours", 1, cwd="/w"))
    ours.append("ours", one_turn_log("ours"))
    write_zstd_flat(root, HEADER, one_turn_log("later"))
    backend = JsonlBackend(root)
    assert [h.id for h in backend.list()] == ["ours"]
    assert len(backend.load("ours").events) == len(one_turn_log("ours"))


@pytest.mark.parametrize(
    ("user_version", "application_id", "found"),
    [
        (10, 0x44534850, 'application_id 0x44534850 ("DSHP") and schema version 10'),
        (17, 0x44534850, 'application_id 0x44534850 ("DSHP") and schema version 17'),
        (4, 0x44534850, 'application_id 0x44534850 ("DSHP") and schema version 4'),
        (5, None, "schema version 5"),
        (8, None, "schema version 8"),
    ],
)
@pytest.mark.parametrize("read_only", [False, True])
def test_a_later_sqlite_database_is_refused_untouched(
    tmp_path: Path, user_version: int, application_id: int | None, found: str, read_only: bool
) -> None:
    db = write_later_sqlite(tmp_path / "sessions.db", user_version, application_id)
    before = tree(tmp_path)
    with pytest.raises(IncompatibleStoreError) as raised:
        SqliteBackend(db, read_only=read_only)
    unsupported(raised, db, found)
    assert tree(tmp_path) == before


def test_a_later_database_with_a_pending_wal_is_refused_untouched(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    script = (
        "import os, sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "conn.execute('PRAGMA journal_mode = wal')\n"
        "conn.execute('PRAGMA wal_autocheckpoint = 0')\n"
        "conn.execute('CREATE TABLE persistence_state (store_id TEXT)')\n"
        f"conn.execute('PRAGMA application_id = {0x44534850}')\n"
        "conn.execute('PRAGMA user_version = 12')\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(db)], check=True)
    assert os.path.getsize(str(db) + "-wal") > 0
    before = tree(tmp_path)
    for read_only in (True, False):
        with pytest.raises(IncompatibleStoreError) as raised:
            SqliteBackend(db, read_only=read_only)
        unsupported(raised, db, '"DSHP"')
        assert tree(tmp_path) == before


@pytest.mark.parametrize("kind", ["zstd", "session.jsonl"])
def test_the_command_line_names_a_later_jsonl_session(tmp_path: Path, kind: str) -> None:
    root = tmp_path / "root"
    later_root(root, kind)
    before = tree(root)
    ran = run("inspect", str(root), "--id", "later")
    assert ran.status == 2 and "[STORE_VERSION_UNSUPPORTED]" in ran.stderr, (ran.stdout, ran.stderr)
    assert tree(root) == before


def test_the_command_line_refuses_a_later_database(tmp_path: Path) -> None:
    db = write_later_sqlite(tmp_path / "sessions.db", 13, 0x44534850)
    before = tree(tmp_path)
    for args in (["validate", str(db)], ["inspect", str(db), "--id", "later"], ["repair", str(db)]):
        ran = run(*args)
        printed = ran.stderr + ran.stdout
        assert ran.status == 2 and "[STORE_VERSION_UNSUPPORTED]" in printed, (args, ran.stderr)
        assert "DSHP" in printed
    assert tree(tmp_path) == before


def test_the_conformance_artifacts_are_what_the_builder_makes(tmp_path: Path) -> None:
    from tests.later_dialects import later_artifacts

    later_artifacts(tmp_path / "later")
    stored = Path(__file__).resolve().parent.parent / "conformance" / "artifacts" / "later"
    assert tree(tmp_path / "later") == tree(stored)

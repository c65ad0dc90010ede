"""Hostile and damaged stores (issue 11, items 3 and 4): never a hang, never unbounded
memory, never an uncaught exception -- a coded error, or the file passed over.

- A FIFO, a device or anything else that is not a regular file, named like a
  session log, is never opened for reading: ``list()``, ``load``, ``fork`` and
  ``convert`` pass it over (a FIFO would block the read forever, a symlink to
  ``/dev/zero`` would fill memory).
- A header line is read with a size bound.
- A damaged SQLite database -- a ``data`` column that reads back NULL or an
  integer, schema text that is not UTF-8 -- is ``STORE_CORRUPT``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from dsh_session import (
    Code,
    CorruptStoreError,
    JsonlBackend,
    PersistenceError,
    SessionHeader,
    SqliteBackend,
)
from dsh_session.persistence import cwd_bucket
from tests.cli_support import run
from tests.logs import one_turn_log

T = TypeVar("T")

#: How long a call may take before the test calls it a hang (it returns in milliseconds).
HANG = 60.0


def returns(call: Callable[[], T]) -> T:
    """``call()``, which must return (or raise) rather than block forever."""
    box: list[tuple[bool, Any]] = []

    def work() -> None:
        try:
            box.append((True, call()))
        except BaseException as error:
            box.append((False, error))

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(HANG)
    assert box, "the call blocked (a hang)"
    ok, value = box[0]
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]


def stored_root(root: Path) -> JsonlBackend:
    backend = JsonlBackend(root)
    backend.create(SessionHeader("real", 1, cwd="/w"))
    backend.append("real", one_turn_log())
    return backend


def bucket(root: Path) -> Path:
    return root / cwd_bucket("/w")


# -- item 3: only regular files are read ----------------------------------------------------


def test_a_fifo_named_like_a_log_does_not_block_list_load_or_create(tmp_path: Path) -> None:
    root = tmp_path / "root"
    stored_root(root)
    fifo = bucket(root) / "trap.jsonl"
    os.mkfifo(fifo)
    backend = JsonlBackend(root)
    assert [h.id for h in returns(backend.list)] == ["real"]
    with pytest.raises(PersistenceError) as raised:
        returns(lambda: backend.load("trap"))
    assert raised.value.code is Code.SESSION_NOT_FOUND
    returns(lambda: backend.create(SessionHeader("fresh", 1, cwd="/w")))
    with pytest.raises(OSError):  # nobody holds it open for reading: it was never opened
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def test_a_symlink_to_dev_zero_named_like_a_log_is_passed_over(tmp_path: Path) -> None:
    root = tmp_path / "root"
    stored_root(root)
    (bucket(root) / "zero.jsonl").symlink_to("/dev/zero")
    backend = JsonlBackend(root)
    assert [h.id for h in returns(backend.list)] == ["real"]
    with pytest.raises(PersistenceError) as raised:
        returns(lambda: backend.load("zero"))
    assert raised.value.code is Code.SESSION_NOT_FOUND


def test_a_header_line_is_read_with_a_bound(tmp_path: Path) -> None:
    root = tmp_path / "root"
    stored_root(root)
    huge = bucket(root) / "huge.jsonl"
    with open(huge, "wb") as file:  # 64 MiB of a first line that never ends
        chunk = b'{"type":"session","version":0,"id":"huge","createdAt":1,"cwd":"/w","x":"' + b"a" * (1 << 20)
        for _ in range(64):
            file.write(chunk)
    assert [h.id for h in returns(JsonlBackend(root).list)] == ["real"]


@pytest.mark.parametrize("command", ["fork", "convert"])
def test_fork_and_convert_into_a_root_with_a_fifo_do_not_hang(tmp_path: Path, command: str) -> None:
    root = tmp_path / "root"
    stored_root(root)
    os.mkfifo(bucket(root) / "trap.jsonl")
    (bucket(root) / "zero.jsonl").symlink_to("/dev/zero")
    src = tmp_path / "src"
    source = JsonlBackend(src)
    source.create(SessionHeader("other", 1, cwd="/w"))
    source.append("other", one_turn_log())
    if command == "fork":
        ran = returns(lambda: run("fork", str(src), "--id", "other", "--to", str(root), "--child", "kid"))
    else:
        ran = returns(lambda: run("convert", str(src), str(root)))
    assert ran.status == 0, ran.stderr
    listed = [h.id for h in JsonlBackend(root).list()]
    assert ("kid" if command == "fork" else "other") in listed


# -- item 4: a damaged SQLite database is STORE_CORRUPT -------------------------------------------


def sqlite_store(path: Path) -> None:
    with SqliteBackend(path, journal_mode="delete") as backend:
        backend.create(SessionHeader("s", 1))
        backend.append("s", one_turn_log())


def rewrite_schema(path: Path, edit: Callable[[sqlite3.Connection], object]) -> None:
    """Change rows behind the STRICT layout's back, as damage to the file would."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        (ddl,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'events'").fetchone()
        loose = ddl.replace(") STRICT", ")").replace("data              TEXT NOT NULL", "data")
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'events'", (loose,))
        conn.close()
        conn = sqlite3.connect(path, isolation_level=None)
        edit(conn)
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'events'", (ddl,))
    finally:
        conn.close()


@pytest.mark.parametrize("value", [None, 42, b"\x01\x02"])
@pytest.mark.parametrize("seq", [2, 5])  # inside the committed turn, and its turn/end
def test_a_data_column_that_is_not_text_is_store_corrupt(tmp_path: Path, value: object, seq: int) -> None:
    path = tmp_path / "s.db"
    sqlite_store(path)
    rewrite_schema(path, lambda conn: conn.execute("UPDATE events SET data = ? WHERE seq = ?", (value, seq)))
    before = path.read_bytes()
    with SqliteBackend(path, journal_mode="delete") as backend, pytest.raises(CorruptStoreError) as raised:
        backend.load("s")
    assert raised.value.code is Code.STORE_CORRUPT
    assert path.read_bytes() == before


def test_a_data_column_that_is_not_text_after_the_last_turn_end_is_not_cut(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    sqlite_store(path)
    rewrite_schema(
        path,
        lambda conn: conn.execute(
            "INSERT INTO events (session_id, seq, type, time, data) VALUES ('s', 6, 'turn/start', 1, NULL)"
        ),
    )
    with SqliteBackend(path, journal_mode="delete") as backend, pytest.raises(CorruptStoreError) as raised:
        backend.load("s")
    assert raised.value.code is Code.STORE_CORRUPT
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM events").fetchone() == (7,)  # nothing deleted
    conn.close()


def test_schema_text_that_is_not_utf8_is_store_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    sqlite_store(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE extra (x)")
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute("UPDATE sqlite_master SET name = CAST(X'FF' AS TEXT) WHERE name = 'extra'")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(PersistenceError) as raised:
        SqliteBackend(path)
    assert raised.value.code in (Code.STORE_CORRUPT, Code.STORE_SCHEMA_MISMATCH)
    assert path.read_bytes() == before
    ran = run("validate", str(path))
    assert ran.status == 2, ran.stderr
    assert "internal error" not in ran.stderr and "Traceback" not in ran.stderr


def test_truncated_databases_give_coded_errors(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    sqlite_store(path)
    whole = path.read_bytes()
    for size in range(100, len(whole), max(1, len(whole) // 40)):
        cut = tmp_path / f"cut-{size}.db"
        cut.write_bytes(whole[:size])
        try:
            with SqliteBackend(cut) as backend:
                backend.load("s")
        except PersistenceError as error:
            assert error.code in (Code.STORE_CORRUPT, Code.SESSION_NOT_FOUND), (size, error)
        ran = run("validate", str(cut))
        assert ran.status in (0, 1, 2), (size, ran.stderr)
        assert "internal error" not in ran.stderr, (size, ran.stderr)

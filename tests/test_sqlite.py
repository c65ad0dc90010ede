"""The SQLite backend's own mechanics: the schema, opening safely, rows, damage, locking
(persistence.md §3 and the SQLite cases of §6.5 and §7)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dsh_spec
from dsh_session import (
    Code,
    CorruptStoreError,
    Event,
    IncompatibleStoreError,
    Replace,
    SqliteBackend,
    StoreLockedError,
    UnrepresentableError,
)
from dsh_session.persistence import SCHEMA_VERSION
from dsh_session.persistence._rows import row_record, scan_rows
from tests.backends import file_mode
from tests.logs import LogBuilder, header, one_turn_log
from tests.reference import database

REFERENCE_DB = database("single-turn-text-cwd")


def query(path: Path, sql: str, *args: object) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def reference_query(sql: str, *args: object) -> list[tuple[object, ...]]:
    """Read the reference's database without touching it (no -wal / -shm files either)."""
    conn = sqlite3.connect(f"{REFERENCE_DB.as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def siblings(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sessions.db"
    backend = SqliteBackend(path)
    backend.create(header("s", cwd="/w"))
    backend.append("s", one_turn_log(turns=2))
    backend.close()
    yield path


# -- the schema -------------------------------------------------------------------------------


def test_a_new_database_has_the_references_schema(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dirs" / "new.db"
    SqliteBackend(path).close()
    schema = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
    assert query(path, schema) == reference_query(schema)
    assert query(path, "PRAGMA user_version") == [(4,)] == [(SCHEMA_VERSION,)]
    assert query(path, "PRAGMA journal_mode") == [("wal",)]
    assert siblings(path) == ["new.db"]  # no -wal / -shm left behind
    assert file_mode(path.parent) == 0o700


def test_an_empty_file_is_initialised(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    backend = SqliteBackend(path)
    backend.create(header("s"))
    backend.append("s", one_turn_log())
    backend.close()
    assert query(path, "SELECT count(*) FROM events") == [(6,)]


def test_rows_are_the_references_text(tmp_path: Path) -> None:
    log = LogBuilder()
    log.user("a")
    log.user("b")
    log.add(
        "user/message",
        {"content": [{"type": "text", "text": "sum"}], "n": 1e21},
        surface_op=Replace(0, 1),
        source_event_seqs=[0, 1],
    )
    log.add("todo/write", {"todos": [], "x": -0.0, "y": 0.1})
    path = tmp_path / "s.db"
    with SqliteBackend(path) as backend:
        backend.create(header("s", seed_length=0))
        backend.append("s", log.events)
    assert query(path, "SELECT * FROM sessions") == [("s", 0, 1767225600000, None, None, 0)]
    assert query(path, "SELECT * FROM events ORDER BY seq") == [
        (
            "s",
            0,
            "user/message",
            1,
            '{"content":[{"type":"text","text":"a"}],"source":{"kind":"user"}}',
            None,
            '"append"',
        ),
        (
            "s",
            1,
            "user/message",
            2,
            '{"content":[{"type":"text","text":"b"}],"source":{"kind":"user"}}',
            None,
            '"append"',
        ),
        (
            "s",
            2,
            "user/message",
            3,
            '{"content":[{"type":"text","text":"sum"}],"n":1e+21}',
            "[0,1]",
            '{"op":"replace","start":0,"end":1}',
        ),
        ("s", 3, "todo/write", 4, '{"todos":[],"x":0,"y":0.1}', None, None),
    ]


@pytest.mark.parametrize("journal_mode", ["delete", "truncate", "persist"])
def test_a_rollback_journal_mode_can_be_chosen(tmp_path: Path, journal_mode: str) -> None:
    path = tmp_path / "s.db"
    with SqliteBackend(path, journal_mode=journal_mode) as backend:
        backend.create(header("s"))
        backend.append("s", one_turn_log())
        assert backend._conn.execute("PRAGMA journal_mode").fetchall() == [(journal_mode,)]
        assert siblings(path) in (["s.db"], ["s.db", "s.db-journal"])  # no -wal file
    assert query(path, "PRAGMA journal_mode") == [("delete",)]  # a rollback mode is not stored in the file
    with pytest.raises(ValueError, match="journal_mode"):
        SqliteBackend(tmp_path / "x.db", journal_mode="off")


def test_an_in_memory_database_works(tmp_path: Path) -> None:
    with SqliteBackend(":memory:") as backend:
        backend.create(header("s"))
        backend.append("s", one_turn_log())
        assert list(backend.load("s").events) == one_turn_log()
    assert os.listdir(tmp_path) == []


# -- refusing a database, untouched -----------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2, 3, 5, -1])
@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_another_schema_version_is_refused_untouched(db: Path, version: int, journal: str) -> None:
    query(db, f"PRAGMA journal_mode = {journal}")
    query(db, f"PRAGMA user_version = {version}")
    before = digest(db)
    with pytest.raises(IncompatibleStoreError) as raised:
        SqliteBackend(db)
    # A later schema is a later harness's (its own code); an earlier or odd one is another layout.
    expected = Code.STORE_VERSION_UNSUPPORTED if version > 4 else Code.STORE_SCHEMA_MISMATCH
    assert raised.value.code is expected
    assert f"schema version {version}" in str(raised.value) and str(db) in str(raised.value)
    assert digest(db) == before
    assert siblings(db) == ["sessions.db"]


@pytest.mark.parametrize(
    "change",
    [
        "CREATE TABLE extra (x TEXT)",
        "CREATE INDEX events_by_type ON events(type)",
        "CREATE VIEW v AS SELECT * FROM sessions",
        "CREATE TRIGGER t AFTER INSERT ON events BEGIN SELECT 1; END",
        "ALTER TABLE sessions ADD COLUMN note TEXT",
    ],
)
def test_a_schema_of_another_layout_is_refused_untouched(db: Path, change: str) -> None:
    query(db, change)
    query(db, "PRAGMA journal_mode = delete")
    before = digest(db)
    with pytest.raises(IncompatibleStoreError) as raised:
        SqliteBackend(db)
    assert raised.value.code is Code.STORE_SCHEMA_MISMATCH
    assert digest(db) == before


def test_a_table_that_is_not_strict_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "loose.db"
    conn = sqlite3.connect(path)
    for table in ("sessions", "events"):
        ddl = reference_query("SELECT sql FROM sqlite_master WHERE name = ?", table)[0][0]
        assert isinstance(ddl, str)
        conn.execute(ddl.replace(") STRICT", ")"))
    conn.execute("PRAGMA user_version = 4")
    conn.close()
    with pytest.raises(IncompatibleStoreError, match="STRICT"):
        SqliteBackend(path)


def test_a_foreign_database_at_version_zero_is_refused_not_adopted(tmp_path: Path) -> None:
    path = tmp_path / "other-app.db"
    query(path, "CREATE TABLE sessions (id TEXT, data BLOB)")
    before = digest(path)
    with pytest.raises(IncompatibleStoreError, match="schema version 0 and holds other tables"):
        SqliteBackend(path)
    assert digest(path) == before
    assert query(path, "PRAGMA user_version") == [(0,)]


@pytest.mark.parametrize("content", [b"hello, not a database at all" * 10, b"SQLite format 3\x00short"])
def test_a_file_that_is_not_a_database_is_refused_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.db"
    path.write_bytes(content)
    with pytest.raises(CorruptStoreError) as raised:
        SqliteBackend(path)
    assert raised.value.code is Code.STORE_CORRUPT
    assert path.read_bytes() == content
    assert siblings(path) == ["x.db"]


# -- damaged rows ---------------------------------------------------------------------------


def open_turn(path: Path) -> list[Event]:
    events = one_turn_log(turns=2)[:9]
    with SqliteBackend(path) as backend:
        backend.create(header("s"))
        backend.append("s", events)
    return events


@pytest.mark.parametrize(
    "column",
    ["data = '{not valid json'", "surface_op = 'append'", "source_event_seqs = '[1,'"],
)
def test_a_row_that_does_not_parse_after_the_last_turn_end_is_refused_not_cut(
    tmp_path: Path, column: str
) -> None:
    path = tmp_path / "s.db"
    open_turn(path)
    query(path, f"UPDATE events SET {column} WHERE seq = 7")
    before = query(path, "SELECT * FROM events ORDER BY seq")
    with SqliteBackend(path) as backend, pytest.raises(CorruptStoreError) as raised:
        backend.load("s")
    assert raised.value.code is Code.STORE_CORRUPT and raised.value.seq == 7
    assert query(path, "SELECT * FROM events ORDER BY seq") == before  # nothing deleted


def test_a_row_that_does_not_parse_before_the_last_turn_end_is_damage(db: Path) -> None:
    query(db, "UPDATE events SET surface_op = 'append' WHERE seq = 1")
    before = query(db, "SELECT * FROM events")
    with pytest.raises(CorruptStoreError) as raised:
        SqliteBackend(db).load("s")
    assert raised.value.code is Code.STORE_CORRUPT and raised.value.seq == 1
    assert "row seq 1" in str(raised.value)
    assert query(db, "SELECT * FROM events") == before


def test_a_seq_gap_before_the_last_turn_end_is_damage(db: Path) -> None:
    query(db, "DELETE FROM events WHERE seq = 3")
    with pytest.raises(CorruptStoreError, match="has seq 4 where 3 was expected"):
        SqliteBackend(db).load("s")


def test_a_negative_seq_is_damage_and_deletes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    open_turn(path)
    query(path, "INSERT INTO events (session_id, seq, type, time, data) VALUES ('s', -1, 'x', 1, '{}')")
    with pytest.raises(CorruptStoreError, match="negative seq"):
        SqliteBackend(path).load("s")
    assert query(path, "SELECT count(*) FROM events") == [(10,)]


def test_a_null_surface_op_is_refused_by_the_seed_rules(db: Path) -> None:
    query(db, "UPDATE events SET surface_op = 'null' WHERE seq = 1")
    with pytest.raises(CorruptStoreError) as raised:
        SqliteBackend(db).load("s")
    assert raised.value.code is Code.MALFORMED_SURFACE_OP and raised.value.seq == 1


def test_a_stored_version_other_than_zero_is_not_listed(db: Path) -> None:
    query(db, "UPDATE sessions SET version = 2")
    assert SqliteBackend(db).list() == ()


# -- other processes and what SQLite cannot hold ----------------------------------------------


def test_a_write_waits_then_fails_while_another_connection_writes(db: Path) -> None:
    events = one_turn_log(turns=3)
    backend = SqliteBackend(db, busy_timeout=0.05)
    backend.load("s")
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    with pytest.raises(StoreLockedError) as raised:
        backend.append("s", events[12:])
    assert raised.value.code is Code.STORE_LOCKED
    other.execute("ROLLBACK")
    other.close()
    backend.append("s", events[12:])
    assert list(SqliteBackend(db).load("s").events) == events


def test_a_lone_surrogate_a_text_column_cannot_hold_is_refused(tmp_path: Path) -> None:
    backend = SqliteBackend(tmp_path / "s.db")
    for bad in (header("a\ud800"), header("s", cwd="/x\udc00"), header("s", parent_session="\ud800")):
        with pytest.raises(UnrepresentableError) as raised:
            backend.create(bad)
        assert raised.value.code is Code.STORE_UNREPRESENTABLE
    backend.create(header("s"))
    with pytest.raises(UnrepresentableError):
        backend.append("s", [Event("odd\ud800", 0, 1, {})])
    backend.append("s", [Event("odd", 0, 1, {"text": "\ud800 is fine inside JSON"})])
    assert backend.load("s").events[0].data == {"text": "\ud800 is fine inside JSON"}
    assert backend.list()[0].id == "s"


# -- the row scan (the SQLite and PostgreSQL backends') equals the spec's rule -----------------


@settings(max_examples=300)
@given(
    st.lists(
        st.tuples(st.integers(1, 2), st.sampled_from(["todo/write", "turn/end"]), st.booleans()),
        max_size=12,
    )
)
def test_the_row_scan_keeps_what_the_spec_keeps(shape: list[tuple[int, str, bool]]) -> None:
    """Rows come sorted by seq, unique: a step of 2 leaves a gap; a flag marks a row that does not parse."""
    rows: list[tuple[Any, ...]] = []
    records: list[object] = []
    seq = -1
    for step, kind, broken in shape:
        seq += step
        rows.append((seq, kind, 1, "{" if broken else "{}", None, None))
        records.append(dsh_spec.HOLE if broken else {"type": kind, "seq": seq, "time": 1, "data": {}})
    expected = dsh_spec.preserved_prefix(records, tearable=False)  # a database row is never torn
    parsed = [row_record(row) for row in rows]
    if isinstance(expected, dsh_spec.Rejection):
        with pytest.raises(CorruptStoreError) as raised:
            scan_rows(rows, parsed, "db")
        assert raised.value.code is expected.code
        assert raised.value.seq == rows[expected.seq or 0][0]
    else:
        assert scan_rows(rows, parsed, "db") == expected

"""The backends under test, each with what the contract suite needs to drive it.

Adding a backend to the contract suite means adding one ``Env`` factory here.
An ``Env`` opens backend instances over one storage (a new instance is "the
same store, opened again") and can reach into that storage the way damage or
a foreign writer would (``Tamper``).
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import msgspec

from dsh_session import (
    Event,
    JsonlBackend,
    MemoryBackend,
    MemoryStore,
    PostgresBackend,
    SessionBackend,
    SessionHeader,
    SqliteBackend,
)
from dsh_session.persistence._codec import parse_bytes
from dsh_session.persistence.postgres_schema import quote_ident
from tests import pg_server


class Tamper:
    """Direct access to a backend's storage, bypassing the backend."""

    durable = True
    #: Whether a crash can tear the store's last record (a JSONL line; never a database row).
    tears = False

    def tear_tail(self, session_id: str) -> None:
        """Leave what a crash mid-write leaves: a partial record after the last one."""
        raise NotImplementedError

    def set_version(self, session_id: str, version: int) -> None:
        raise NotImplementedError

    def strip_surface_op(self, session_id: str, seq: int) -> None:
        """Drop the stored event's surfaceOp (as the reference's loaders allow)."""
        raise NotImplementedError

    def stored_count(self, session_id: str) -> int:
        raise NotImplementedError

    def snapshot(self) -> object:
        """Everything stored, to check that an operation changed nothing."""
        raise NotImplementedError

    def keep_events(self, session_id: str, count: int) -> None:
        """Drop every stored event from seq ``count`` on (``0``: a header-only session)."""
        raise NotImplementedError


@dataclass
class Env:
    name: str
    open: Callable[[], SessionBackend]
    tamper: Tamper
    opened: list[SessionBackend] = field(default_factory=list)

    def backend(self) -> SessionBackend:
        backend = self.open()
        self.opened.append(backend)
        return backend

    def close_all(self) -> None:
        for backend in self.opened:
            backend.close()


# -- memory --------------------------------------------------------------------------------


class MemoryTamper(Tamper):
    durable = False

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def set_version(self, session_id: str, version: int) -> None:
        header, log = self.store.sessions[session_id]
        self.store.sessions[session_id] = (replace(header, version=version), log)

    def strip_surface_op(self, session_id: str, seq: int) -> None:
        log = self.store.sessions[session_id][1]
        log[seq] = msgspec.structs.replace(log[seq], surface_op=None)

    def stored_count(self, session_id: str) -> int:
        return len(self.store.sessions[session_id][1])

    def snapshot(self) -> object:
        return {key: (header, list(log)) for key, (header, log) in self.store.sessions.items()}

    def keep_events(self, session_id: str, count: int) -> None:
        del self.store.sessions[session_id][1][count:]


def memory_env(_tmp: Path) -> Env:
    store = MemoryStore()
    return Env("memory", lambda: MemoryBackend(store), MemoryTamper(store))


# -- JSONL ---------------------------------------------------------------------------------


class JsonlTamper(Tamper):
    tears = True

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, session_id: str) -> Path:
        (found,) = [p for p in self.root.glob("*/*.jsonl") if self._id(p) == session_id]
        return found

    @staticmethod
    def _id(path: Path) -> object:
        first = path.read_bytes().split(b"\n", 1)[0]
        record = parse_bytes(first)
        return record.get("id") if isinstance(record, dict) else None

    def lines(self, session_id: str) -> list[bytes]:
        return self.path(session_id).read_bytes().split(b"\n")

    def write_lines(self, session_id: str, lines: list[bytes]) -> None:
        self.path(session_id).write_bytes(b"\n".join(lines))

    def tear_tail(self, session_id: str) -> None:
        with open(self.path(session_id), "ab") as file:
            file.write(b'{"type":"assistant/chunk","seq":99,"ti')

    def set_version(self, session_id: str, version: int) -> None:
        lines = self.lines(session_id)
        lines[0] = lines[0].replace(b'"version":0', f'"version":{version}'.encode())
        self.write_lines(session_id, lines)

    def strip_surface_op(self, session_id: str, seq: int) -> None:
        lines = self.lines(session_id)
        lines[seq + 1] = lines[seq + 1].replace(b',"surfaceOp":"append"', b"")
        self.write_lines(session_id, lines)

    def stored_count(self, session_id: str) -> int:
        return len(self.lines(session_id)) - 2

    def snapshot(self) -> object:
        return {
            str(p.relative_to(self.root)): p.read_bytes() for p in sorted(self.root.rglob("*")) if p.is_file()
        }

    def keep_events(self, session_id: str, count: int) -> None:
        self.write_lines(session_id, [*self.lines(session_id)[: count + 1], b""])


def jsonl_env(tmp: Path) -> Env:
    root = tmp / "jsonl-root"
    return Env("jsonl", lambda: JsonlBackend(root, lock_timeout=1.0), JsonlTamper(root))


# -- SQLite --------------------------------------------------------------------------------


class SqliteTamper(Tamper):
    def __init__(self, path: Path) -> None:
        self.path = path

    def execute(self, sql: str, *args: object) -> list[tuple[object, ...]]:
        conn = sqlite3.connect(self.path, isolation_level=None)
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()

    def tear_tail(self, session_id: str) -> None:
        (last,) = self.execute("SELECT max(seq) FROM events WHERE session_id = ?", session_id)[0]
        assert isinstance(last, int)
        self.execute(
            "INSERT INTO events (session_id, seq, type, time, data) VALUES (?, ?, 'assistant/chunk', 99, ?)",
            session_id,
            last + 1,
            "{not valid json",
        )

    def set_version(self, session_id: str, version: int) -> None:
        self.execute("UPDATE sessions SET version = ? WHERE id = ?", version, session_id)

    def strip_surface_op(self, session_id: str, seq: int) -> None:
        self.execute("UPDATE events SET surface_op = NULL WHERE session_id = ? AND seq = ?", session_id, seq)

    def stored_count(self, session_id: str) -> int:
        (count,) = self.execute("SELECT count(*) FROM events WHERE session_id = ?", session_id)[0]
        assert isinstance(count, int)
        return count

    def snapshot(self) -> object:
        return (
            self.execute("SELECT * FROM sessions ORDER BY id"),
            self.execute("SELECT * FROM events ORDER BY session_id, seq"),
        )

    def keep_events(self, session_id: str, count: int) -> None:
        self.execute("DELETE FROM events WHERE session_id = ? AND seq >= ?", session_id, count)


def sqlite_env(tmp: Path) -> Env:
    path = tmp / "store" / "sessions.db"
    return Env("sqlite", lambda: SqliteBackend(path, busy_timeout=1.0), SqliteTamper(path))


# -- PostgreSQL (postgres block) -------------------------------------------------------------


class PostgresTamper(Tamper):
    """SQL on the test server's schema, outside the backend."""

    def __init__(self, dsn: str, schema: str) -> None:
        self.dsn = dsn
        self.schema = schema
        self.s = quote_ident(schema)

    def execute(self, sql: str, *args: object) -> list[tuple[object, ...]]:
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as conn, conn.cursor() as cursor:
            cursor.execute(sql.replace("{s}", self.s), args)
            return list(cursor.fetchall()) if cursor.description else []

    def sid(self, session_id: str) -> int:
        (sid,) = self.execute("SELECT sid FROM {s}.sessions WHERE id = %s", session_id)[0]
        assert isinstance(sid, int)
        return sid

    def tear_tail(self, session_id: str) -> None:
        sid = self.sid(session_id)
        (last,) = self.execute("SELECT max(seq) FROM {s}.events WHERE sid = %s", sid)[0]
        assert isinstance(last, int)
        self.execute(
            "INSERT INTO {s}.events (sid, seq, type, time, data) VALUES (%s, %s, 'assistant/chunk', 99, %s)",
            sid,
            last + 1,
            "{not valid json",
        )

    def set_version(self, session_id: str, version: int) -> None:
        self.execute("UPDATE {s}.sessions SET version = %s WHERE id = %s", version, session_id)

    def strip_surface_op(self, session_id: str, seq: int) -> None:
        self.execute(
            "UPDATE {s}.events SET surface_op = NULL WHERE sid = %s AND seq = %s", self.sid(session_id), seq
        )

    def stored_count(self, session_id: str) -> int:
        (count,) = self.execute("SELECT count(*) FROM {s}.events WHERE sid = %s", self.sid(session_id))[0]
        assert isinstance(count, int)
        return count

    def snapshot(self) -> object:
        return (
            self.execute("SELECT * FROM {s}.sessions ORDER BY id"),
            self.execute("SELECT * FROM {s}.events ORDER BY sid, seq"),
            self.execute("SELECT * FROM {s}.meta"),
        )

    def keep_events(self, session_id: str, count: int) -> None:
        """Drop every stored event from seq ``count`` on (``0``: a header-only session)."""
        self.execute("DELETE FROM {s}.events WHERE sid = %s AND seq >= %s", self.sid(session_id), count)


def postgres_env(tmp: Path) -> Env:
    """A fresh schema on the test run's throwaway server (started on first use)."""
    dsn = pg_server.shared().dsn()
    schema = "t_" + secrets.token_hex(8)
    return Env(
        "postgres",
        lambda: PostgresBackend(dsn, schema=schema, lock_timeout=1.0),
        PostgresTamper(dsn, schema),
    )


ENVS: dict[str, Callable[[Path], Env]] = {
    "memory": memory_env,
    "jsonl": jsonl_env,
    "sqlite": sqlite_env,
    "postgres": postgres_env,
}
DURABLE = ("jsonl", "sqlite", "postgres")


def lines_of(events: list[Event]) -> list[str]:
    from dsh_session.persistence._codec import event_line

    return [event_line(event) for event in events]


def headers_of(backend: SessionBackend) -> list[SessionHeader]:
    return list(backend.list())


def file_mode(path: Path) -> int:
    return os.stat(path).st_mode & 0o777

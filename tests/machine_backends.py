"""Every persistence backend against the spec's storage model, one Hypothesis state machine.

The machine keeps two stores of one kind side by side -- the implementation's
backend (JSONL, SQLite, PostgreSQL or memory) and the spec's model of it
(``tests/spec_models.py``: a plain second reading of ``docs/persistence.md``
that writes real files and rows of its own) -- and does the same to both:
create sessions (odd ids, cwds and header fields included), append batches
(whole W1-like turns, bulk runs, turns a crash cut short, batches that skip or
repeat a seq, and batches refused half-way because they diverge from the
stored log), load them back (repairing, or ``close_turn=False``), list them,
close and reopen, tear the tail of a log as a crash would, and damage copies
of a store that an open must then refuse.

After every step the two stores must hold the same thing *as bytes*: the
same files with the same contents (JSONL), the same rows with the same
column text (SQLite, PostgreSQL). Every JSON text the implementation wrote
must also be exactly what JavaScript's ``JSON.stringify`` writes for its value
-- checked against ``dsh_spec.ecma_text``, a writer that shares nothing with
either side -- so a number spelling or a key order that both sides got wrong
the same way is still caught. Two more promises are checked directly: a read
(``list``, a load that has nothing to repair) changes no byte and no file name
of the store, and neither does an open or a load that is refused.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import secrets
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

from hypothesis import event as note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import dsh_spec
from dsh_session import (
    EVENT_KEY_ORDER,
    DshSessionError,
    Event,
    JsonlBackend,
    MemoryBackend,
    MemoryStore,
    PostgresBackend,
    Session,
    SessionBackend,
    SessionHeader,
    SqliteBackend,
)
from dsh_session.event import payload_text
from dsh_spec import ecma_text
from dsh_spec.codes import Code
from tests import foreign_text, pg_server
from tests.machine_logs import TurnWriter
from tests.machine_support import require
from tests.spec_models import MemoryModel, ModelBackend, Refused, SqliteModel
from tests.support import json_diff

#: Session ids: plain, needing escapes in a file name, the names ``.`` and ``..``, a lone
#: surrogate (no SQLite or PostgreSQL text holds one), NUL (PostgreSQL's text cannot), empty
#: (refused), and one too long for a file name.
IDS = ("s1", "s2", "a/b", "~x", ".", "..", "é ü", "\ud800", "nul\x00", "", "L" * 250, "s1")
CWDS: tuple[str | None, ...] = (None, None, "/w", "/w/ü", "/\ud800")
CREATED = (1_767_225_600_000, 0, -5, 2**53, 2**53 + 1)
#: Batch shapes: whole turns (one, or many at once), a turn a crash cut short, bulk runs, a few
#: events, a batch with a seq missing or repeated, one that diverges from the log, none at all.
#: A log this long is long enough: batches on it stay small.
LONG = 600
SHAPES = (
    "turn",
    "turns",
    "turns",
    "crashed turn",
    "bulk",
    "bulk",
    "small",
    "gap",
    "repeat",
    "diverging",
    "edges",
    "empty",
)


def outcome_code(call: Callable[[], Any]) -> tuple[str | None, Any]:
    """``(None, result)``, or ``(code, None)`` when ``call`` refused with a coded error."""
    try:
        return None, call()
    except Refused as error:
        return error.code.value, None
    except DshSessionError as error:
        return str(error.code), None


def _oracle_check(text: str, where: str) -> None:
    """``text`` is what ``JSON.stringify`` writes for the value it holds."""
    try:
        value = json.loads(text)
    except ValueError:
        return  # not JSON at all (a torn line): compared as bytes with the model's only
    again = ecma_text.stringify(value)
    require(again == text, lambda: f"{where}: wrote {text[:300]!r}, JSON.stringify writes {again[:300]!r}")


class Storage:
    """One kind of store twice over: the implementation's and the model's."""

    kind: ClassVar[str]
    durable: ClassVar[bool] = True

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp

    def open_impl(self) -> SessionBackend:
        raise NotImplementedError

    def open_model(self) -> ModelBackend:
        raise NotImplementedError

    def snapshots(self) -> tuple[Any, Any]:
        """The implementation's storage and the model's, in forms that must be equal."""
        raise NotImplementedError

    def impl_texts(self) -> Iterator[tuple[str, str]]:
        """Every JSON text the implementation stored, with where it is."""
        raise NotImplementedError

    def impl_state(self) -> Any:
        """Everything the implementation's store holds (bytes, names), for "nothing changed"."""
        raise NotImplementedError

    def tear(self, session_id: str, how: int) -> bool:
        """Leave in both stores what a crash in the middle of a write leaves; False if it cannot."""
        return False

    def damaged_copies(self, session_id: str, how: int) -> tuple[Any, Any, Callable[[], Any]] | None:
        """Copies of both stores with ``session_id`` damaged, or ``None``: ``(open impl, open model,
        state of the impl copy)``; the opens are callables so that refusing an open is seen."""
        return None

    def respell(self, session_id: str, rng: random.Random, foreign: tuple[str, ...]) -> list[str] | None:
        """Rewrite the session's stored records in both stores as another writer might spell
        them (``tests.foreign_text``: the same values to ``JSON.parse``), then add after the last
        one log-only record for each text in ``foreign``, that text its payload. The texts
        written, or ``None`` when there is nothing to rewrite."""
        return None

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


# -- JSONL -------------------------------------------------------------------------------------


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every name under ``root`` with a file's bytes (``None`` for a directory)."""
    if not root.exists():
        return {}
    return {
        str(path.relative_to(root)): (path.read_bytes() if path.is_file() else None)
        for path in sorted(root.rglob("*"))
    }


class JsonlStorage(Storage):
    kind = "jsonl"

    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp)
        self.impl_root, self.model_root = tmp / "impl", tmp / "model"

    def open_impl(self) -> SessionBackend:
        return JsonlBackend(self.impl_root, lock_timeout=1.0)

    def open_model(self) -> ModelBackend:
        return ModelBackend.open("jsonl", str(self.model_root), 1.0)

    def snapshots(self) -> tuple[Any, Any]:
        return _tree(self.impl_root), _tree(self.model_root)

    def impl_state(self) -> Any:
        return _tree(self.impl_root)

    def impl_texts(self) -> Iterator[tuple[str, str]]:
        for name, content in _tree(self.impl_root).items():
            if content is None:
                continue
            for number, line in enumerate(content.split(b"\n")[:-1], 1):
                with contextlib.suppress(UnicodeDecodeError):
                    yield f"{name} line {number}", line.decode("utf-8")

    def log_paths(self, session_id: str) -> tuple[Path, Path] | None:
        """The session's log in both roots (the model's layout names it)."""
        for path in sorted(self.model_root.glob("*/*.jsonl")):
            first = path.read_bytes().split(b"\n", 1)[0]
            try:
                header = json.loads(first)
            except ValueError:
                continue
            if isinstance(header, dict) and header.get("id") == session_id:
                return self.impl_root / path.relative_to(self.model_root), path
        return None

    def tear(self, session_id: str, how: int) -> bool:
        paths = self.log_paths(session_id)
        if paths is None:
            return False
        content = paths[1].read_bytes()
        lines = content.split(b"\n")
        if how == 0:
            torn = content + b'{"type":"assistant/chunk","seq":'
        elif how == 1 and len(lines) > 2:
            torn = content[: len(content) - 1 - len(lines[-2]) // 2]  # half of the last line is gone
        elif how == 2:
            torn = content + b'{"type":"x","seq":99999,"time":0,"data":{}}\n'  # a record out of place
        else:
            torn = content + b'{"type":"x","seq":\xff}\n'  # a damaged byte
        for path in paths:
            path.write_bytes(torn)
        return True

    def damaged_copies(self, session_id: str, how: int) -> tuple[Any, Any, Callable[[], Any]] | None:
        paths = self.log_paths(session_id)
        if paths is None:
            return None
        impl_root, model_root = self.tmp / f"copy-{how}-impl", self.tmp / f"copy-{how}-model"
        for source, target in ((self.impl_root, impl_root), (self.model_root, model_root)):
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target)
        for copy in (
            impl_root / paths[0].relative_to(self.impl_root),
            model_root / paths[1].relative_to(self.model_root),
        ):
            lines = copy.read_bytes().split(b"\n")
            if how == 0:
                lines[0] = lines[0].replace(b'"version":0', b'"version":1')  # a later format
            elif how == 1:
                lines[0] = b'{"type":"session"'  # a header that does not parse
            elif len(lines) > 3:
                lines[1] = b"{damaged"  # a committed record (if a turn/end follows) gone bad
            copy.write_bytes(b"\n".join(lines))
        return (
            lambda: JsonlBackend(impl_root, lock_timeout=1.0),
            lambda: ModelBackend.open("jsonl", str(model_root), 1.0),
            lambda: _tree(impl_root),
        )

    def respell(self, session_id: str, rng: random.Random, foreign: tuple[str, ...]) -> list[str] | None:
        paths = self.log_paths(session_id)
        if paths is None:
            return None
        lines = paths[1].read_bytes().split(b"\n")
        written: list[str] = []
        records: list[Any] = []
        for number, line in enumerate(lines[:-1]):
            try:
                record = json.loads(line)
            except ValueError:
                records.append(None)
                continue  # a torn or damaged line stays as it is
            records.append(record)
            if number == 0 and rng.random() < 0.5:
                continue  # the header as it was, now and then
            text = foreign_text.respell(record, rng, index_keys_last=number > 0, line=True)
            lines[number] = text.encode()
            written.append(text)
        last = records[-1] if records else None
        if foreign and lines[-1] == b"" and len(records) > 1 and isinstance(last, dict):
            for number, payload in enumerate(foreign):
                seq, time = len(records) - 1 + number, last.get("time")
                text = f'{{"type":"x/foreign","seq":{seq},"time":{time},"data":{payload}}}'
                lines.insert(-1, text.encode())
                written.append(text)
        for path in paths:
            path.write_bytes(b"\n".join(lines))
        return written


# -- SQLite ------------------------------------------------------------------------------------


def _sqlite_rows(path: Path) -> Any:
    """The rows of a v4 database: sessions and events, sorted (``None`` when there is no file)."""
    if not path.exists():
        return None
    conn = sqlite3.connect(path)
    try:
        sessions = conn.execute("SELECT * FROM sessions").fetchall()
        events = conn.execute("SELECT * FROM events").fetchall()
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.OperationalError:
        return "unreadable"
    finally:
        conn.close()
    return version, sorted(sessions), sorted(events)


#: A row a crash could leave after the last one (SQLite's columns; the model's PostgreSQL too).
_TORN_ROW = "INSERT INTO events (session_id, seq, type, time, data) VALUES (?, ?, 'assistant/chunk', 0, ?)"


def _files(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir()) if path.is_file()}


#: A session's event row: seq, type, time and its three JSON columns.
_Row = tuple[int, str, int, str, str | None, str | None]


def _respelled_rows(
    path: Path, session_id: str, rng: random.Random, foreign: tuple[str, ...]
) -> tuple[list[_Row], list[str]]:
    """The session's event rows in a v4 database with their JSON columns respelled (and one
    log-only row for each text in ``foreign`` after the last), and the texts that now stand in them."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT seq, type, time, data, source_event_seqs, surface_op FROM events "
            "WHERE session_id = ? ORDER BY seq",
            (session_id,),
        ).fetchall()
    except sqlite3.OperationalError:
        return [], []
    finally:
        conn.close()
    out: list[_Row] = []
    texts: list[str] = []
    for seq, kind, time, *columns in rows:
        spelled: list[str | None] = []
        for column in columns:
            try:
                spelled.append(None if column is None else foreign_text.respell(json.loads(column), rng))
            except ValueError:
                spelled.append(column)  # a torn row's column stays as it is
        texts += [text for text in spelled if text is not None]
        out.append((seq, kind, time, *spelled))
    if out:
        seq, time = out[-1][0], out[-1][2]
        out += [
            (seq + 1 + number, "x/foreign", time, payload, None, None)
            for number, payload in enumerate(foreign)
        ]
        texts += foreign
    return out, texts


def _rewrite_rows(path: Path, session_id: str, rows: list[_Row]) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("DELETE FROM events WHERE session_id = ?", (session_id,))
        conn.executemany(
            "INSERT INTO events (session_id, seq, type, time, data, source_event_seqs, surface_op) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(session_id, *row) for row in rows],
        )
    finally:
        conn.close()


class SqliteStorage(Storage):
    kind = "sqlite"

    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp)
        (tmp / "impl").mkdir()
        (tmp / "model").mkdir()
        self.impl_path, self.model_path = tmp / "impl" / "sessions.db", tmp / "model" / "sessions.db"

    def open_impl(self) -> SessionBackend:
        return SqliteBackend(self.impl_path, busy_timeout=1.0)

    def open_model(self) -> ModelBackend:
        return SqliteModel(str(self.model_path), 1.0)

    def snapshots(self) -> tuple[Any, Any]:
        return _sqlite_rows(self.impl_path), _sqlite_rows(self.model_path)

    def impl_state(self) -> Any:
        return _files(self.impl_path.parent)

    def impl_texts(self) -> Iterator[tuple[str, str]]:
        conn = sqlite3.connect(self.impl_path)
        try:
            rows = conn.execute(
                "SELECT session_id, seq, data, source_event_seqs, surface_op FROM events"
            ).fetchall()
        finally:
            conn.close()
        for session_id, seq, *texts in rows:
            for column, text in zip(("data", "source_event_seqs", "surface_op"), texts, strict=True):
                if text is not None:
                    yield f"{session_id!r} seq {seq} {column}", text

    def tear(self, session_id: str, how: int) -> bool:
        for path in (self.impl_path, self.model_path):
            conn = sqlite3.connect(path, isolation_level=None)
            try:
                last = conn.execute(
                    "SELECT max(seq) FROM events WHERE session_id = ?", (session_id,)
                ).fetchone()[0]
                if last is None:
                    return False
                seq = last + (2 if how == 2 else 1)
                data = '{"chunk":' if how != 2 else "{}"
                conn.execute(
                    _TORN_ROW,
                    (session_id, seq, data),
                )
            finally:
                conn.close()
        return True

    def damaged_copies(self, session_id: str, how: int) -> tuple[Any, Any, Callable[[], Any]] | None:
        copies = self.tmp / f"copy-{how}"
        shutil.rmtree(copies, ignore_errors=True)
        copies.mkdir()
        impl_copy, model_copy = copies / "impl.db", copies / "model.db"
        for source, target in ((self.impl_path, impl_copy), (self.model_path, model_copy)):
            if not source.exists():
                return None
            shutil.copyfile(source, target)
            conn = sqlite3.connect(target, isolation_level=None)
            try:
                if how == 0:
                    conn.execute("PRAGMA user_version = 5")  # a later layout
                elif how == 1:
                    conn.execute("CREATE TABLE foreign_table (x)")  # not the reference's layout
                else:
                    conn.execute("UPDATE sessions SET version = 1 WHERE id = ?", (session_id,))
            finally:
                conn.close()
        return (
            lambda: SqliteBackend(impl_copy, busy_timeout=1.0),
            lambda: SqliteModel(str(model_copy), 1.0),
            lambda: {name: data for name, data in _files(copies).items() if name.startswith("impl.db")},
        )

    def respell(self, session_id: str, rng: random.Random, foreign: tuple[str, ...]) -> list[str] | None:
        if not self.model_path.exists():
            return None
        rows, texts = _respelled_rows(self.model_path, session_id, rng, foreign)
        if not rows:
            return None
        _rewrite_rows(self.model_path, session_id, rows)
        _rewrite_rows(self.impl_path, session_id, rows)
        return texts


# -- PostgreSQL --------------------------------------------------------------------------------

_PG_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class PostgresModel(SqliteModel):
    """PostgreSQL's storage, as the spec reads ``docs/persistence.md``: the SQLite layout's rows --
    the same columns holding the same ``JSON.stringify`` text -- in a text type that holds
    neither NUL nor a lone surrogate (``STORE_UNREPRESENTABLE``). Kept in a SQLite file."""

    def check_storable(self, header: dict[str, Any]) -> None:
        for key in ("id", "cwd", "parentSession"):
            value = header.get(key)
            if type(value) is str and _PG_UNSTORABLE.search(value):
                raise Refused(Code.STORE_UNREPRESENTABLE, f"the header's {key} cannot be a PostgreSQL text")

    def check_events_storable(self, events: tuple[dsh_spec.Event, ...]) -> None:
        for event in events:
            if _PG_UNSTORABLE.search(event.type):
                raise Refused(Code.STORE_UNREPRESENTABLE, "an event type cannot be a PostgreSQL text")

    def exists(self, session_id: str) -> bool:
        return not _PG_UNSTORABLE.search(session_id) and super().exists(session_id)

    def read(self, session_id: str, close_turn: bool) -> Any:
        if _PG_UNSTORABLE.search(session_id):
            raise Refused(Code.SESSION_NOT_FOUND, f"session {session_id!r} not found")
        return super().read(session_id, close_turn)


class PostgresStorage(Storage):
    kind = "postgres"

    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp)
        self.dsn = pg_server.shared().dsn()
        self.schema = "m_" + secrets.token_hex(6)
        self.model_path = tmp / "model.db"

    def sql(self, statement: str, *args: object) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as conn, conn.cursor() as cursor:
            cursor.execute(statement.replace("{s}", f'"{self.schema}"'), args)
            return list(cursor.fetchall()) if cursor.description else []

    def open_impl(self) -> SessionBackend:
        return PostgresBackend(self.dsn, schema=self.schema, lock_timeout=1.0)

    def open_model(self) -> ModelBackend:
        return PostgresModel(str(self.model_path), 1.0)

    def impl_rows(self) -> Any:
        if not self.sql("SELECT 1 FROM pg_namespace WHERE nspname = %s", self.schema):
            return None
        sessions = self.sql(
            "SELECT id, version, created_at, cwd, parent_session, seed_length FROM {s}.sessions"
        )
        events = self.sql(
            "SELECT s.id, e.seq, e.type, e.time, e.data, e.source_event_seqs, e.surface_op "
            "FROM {s}.events e JOIN {s}.sessions s USING (sid)"
        )
        return sorted(sessions), sorted(events)

    def snapshots(self) -> tuple[Any, Any]:
        model = _sqlite_rows(self.model_path)
        impl = self.impl_rows()
        if impl is None or model is None:
            return impl, model
        return impl, (model[1], model[2])

    def impl_state(self) -> Any:
        return self.impl_rows(), self.sql("SELECT * FROM {s}.meta") if self.impl_rows() is not None else None

    def impl_texts(self) -> Iterator[tuple[str, str]]:
        rows = self.impl_rows()
        for session_id, seq, _kind, _time, *texts in rows[1] if rows else ():
            for column, text in zip(("data", "source_event_seqs", "surface_op"), texts, strict=True):
                if text is not None:
                    yield f"{session_id!r} seq {seq} {column}", text

    def tear(self, session_id: str, how: int) -> bool:
        found = self.sql("SELECT sid FROM {s}.sessions WHERE id = %s", session_id) if self.impl_rows() else []
        if not found:
            return False
        (sid,) = found[0]
        (last,) = self.sql("SELECT max(seq) FROM {s}.events WHERE sid = %s", sid)[0]
        if last is None:
            return False
        seq = last + (2 if how == 2 else 1)
        data = '{"chunk":' if how != 2 else "{}"
        self.sql(
            "INSERT INTO {s}.events (sid, seq, type, time, data) VALUES (%s, %s, 'assistant/chunk', 0, %s)",
            sid,
            seq,
            data,
        )
        conn = sqlite3.connect(self.model_path, isolation_level=None)
        try:
            conn.execute(
                _TORN_ROW,
                (session_id, seq, data),
            )
        finally:
            conn.close()
        return True

    def respell(self, session_id: str, rng: random.Random, foreign: tuple[str, ...]) -> list[str] | None:
        found = self.sql("SELECT sid FROM {s}.sessions WHERE id = %s", session_id) if self.impl_rows() else []
        if not found or not self.model_path.exists():
            return None
        rows, texts = _respelled_rows(self.model_path, session_id, rng, foreign)
        if not rows:
            return None
        _rewrite_rows(self.model_path, session_id, rows)
        (sid,) = found[0]
        import psycopg

        with psycopg.connect(self.dsn) as conn, conn.cursor() as cursor:  # one transaction
            cursor.execute(f'DELETE FROM "{self.schema}".events WHERE sid = %s', (sid,))
            cursor.executemany(
                f'INSERT INTO "{self.schema}".events (sid, seq, type, time, data, source_event_seqs, '
                "surface_op) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                [(sid, *row) for row in rows],
            )
        return texts

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.sql('DROP SCHEMA IF EXISTS "%s" CASCADE' % self.schema)  # noqa: UP031 (a name, not a value)
        super().close()


# -- memory --------------------------------------------------------------------------------------


class MemoryStorage(Storage):
    kind = "memory"
    durable = False

    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp)
        self.store = MemoryStore()
        self.model = MemoryModel()

    def open_impl(self) -> SessionBackend:
        return MemoryBackend(self.store)

    def open_model(self) -> ModelBackend:
        self.model.tracked.clear()  # the same memory, opened again
        self.model.closed = False
        return self.model

    def snapshots(self) -> tuple[Any, Any]:
        impl = {
            sid: (header.to_json(), [e.to_json() for e in log])
            for sid, (header, log) in self.store.sessions.items()
        }
        model = {
            sid: (header, [dsh_spec.event_json(e) for e in log])
            for sid, (header, log) in self.model.stored.items()
        }
        return impl, model

    def impl_state(self) -> Any:
        return self.snapshots()[0]

    def impl_texts(self) -> Iterator[tuple[str, str]]:
        return iter(())


STORAGES: dict[str, type[Storage]] = {
    "jsonl": JsonlStorage,
    "sqlite": SqliteStorage,
    "postgres": PostgresStorage,
    "memory": MemoryStorage,
}


# -- the machine -----------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1_767_225_646_500

    def __call__(self) -> int:
        self.now += 3
        return self.now


class BackendMachine(RuleBasedStateMachine):
    """A backend of kind ``kind`` against the spec's model of it (set ``kind`` in a subclass)."""

    kind: ClassVar[str] = "jsonl"

    def __init__(self) -> None:
        super().__init__()
        self.storage = STORAGES[self.kind](Path(tempfile.mkdtemp(prefix=f"mbt-{self.kind}-")))
        self.impl = self.storage.open_impl()
        self.model = self.storage.open_model()
        self.clock = Clock()
        #: What the machine knows each session's stored log to be (``None``: unknown until loaded).
        self.logs: dict[str, list[Event] | None] = {}
        #: Sessions whose stored log ends at a complete record (no torn tail since it was written).
        self.clean: set[str] = set()
        self.checked_texts: set[str] = set()

    def teardown(self) -> None:
        with contextlib.suppress(Exception):
            self.impl.close()
        with contextlib.suppress(Exception):
            self.model.close()
        self.storage.close()

    # -- comparing ---------------------------------------------------------------------------

    @invariant()
    def the_stores_hold_the_same_bytes(self) -> None:
        impl, model = self.storage.snapshots()
        require(impl == model, lambda: f"the stores differ:\n  impl  {_short(impl)}\n  model {_short(model)}")
        for where, text in self.storage.impl_texts():
            if text not in self.checked_texts:
                _oracle_check(text, where)
                self.checked_texts.add(text)

    def same_outcome(
        self,
        what: str,
        impl_call: Callable[[], Any],
        model_call: Callable[[], Any],
        also: tuple[str, None] | None = None,
    ) -> tuple[Any, Any]:
        """Run both; they must accept alike or refuse with the same code. ``also`` names an
        implementation code that may stand for any refusal of the model's."""
        impl_code, impl_result = outcome_code(impl_call)
        model_code, model_result = outcome_code(model_call)
        excused = also is not None and impl_code == also[0] and model_code is not None
        require(
            impl_code == model_code or excused,
            lambda: f"{what}: the implementation {_said(impl_code)}, the model {_said(model_code)}",
        )
        note(f"{what}: {impl_code or 'ok'}")
        return impl_result, model_result

    def same_events(
        self, what: str, impl_events: Any, model_events: Any, orders: dict[int, tuple[str, ...]]
    ) -> None:
        """The loaded events, values and key orders. The top-level key order is compared where
        the store keeps it, a JSONL line; a database row keeps none (the model reads every row
        back in append order; the implementation hands a closer just made back in the closers'
        order) and the model's memory keeps none either, so there only the values and the
        order of ``data`` count."""
        impl = [e.to_json() for e in impl_events]
        model = [_ordered(dsh_spec.event_json(e), orders.get(e.seq)) for e in model_events]
        if self.kind != "jsonl":
            impl, model = [_ordered(r, None) for r in impl], [_ordered(r, None) for r in model]
        found = json_diff(impl, model)
        require(found is None, lambda: f"{what}: the events differ: {found}")
        texts = (
            (event.seq, payload_text(event), dsh_spec.js_stringify(model_event.data).encode())
            for event, model_event in zip(impl_events, model_events, strict=True)
        )
        wrong = next((found for found in texts if found[1] != found[2]), None)
        if wrong is not None:
            seq, text, spelled = wrong
            require(
                False,
                f"{what}: seq {seq}'s payload text is {text[:200]!r}, "
                f"JSON.stringify writes {spelled[:200]!r}",
            )

    # -- sessions ----------------------------------------------------------------------------

    @initialize(data=st.data(), stored=st.booleans(), respelled=st.booleans())
    def first_session(self, data: st.DataObject, stored: bool, respelled: bool) -> None:
        """Session ``s1``, maybe stored already with a few turns (so every example has a log),
        and then maybe spelled by another writer (so that even a short search reads such text)
        -- or else loaded at once when its turns are plain, as W1's are (so that a search
        loads logs the bulk paths take whole)."""
        self.create_session("s1", None, CREATED[0], None, None)
        if stored:
            self._append_batch(data, "turns" if respelled else "plain turns")
            if respelled and self.storage.durable:
                self.respell_and_load("s1", data)
            elif not respelled:
                self.load_both("s1", close_turn=True)

    @rule(
        session_id=st.sampled_from(IDS),
        cwd=st.sampled_from(CWDS),
        created=st.sampled_from(CREATED),
        parent=st.sampled_from((None, None, "s1", "\ud800")),
        seed_length=st.sampled_from((None, None, 0, 7, -1)),
    )
    def create(
        self, session_id: str, cwd: str | None, created: int, parent: str | None, seed_length: int | None
    ) -> None:
        self.create_session(session_id, cwd, created, parent, seed_length)

    def create_session(
        self, session_id: str, cwd: str | None, created: int, parent: str | None, seed_length: int | None
    ) -> None:
        header = SessionHeader(session_id, created, cwd=cwd, parent_session=parent, seed_length=seed_length)
        raw: dict[str, Any] = {"version": 0, "id": session_id, "createdAt": created}
        for key, value in (("cwd", cwd), ("parentSession", parent), ("seedLength", seed_length)):
            if value is not None:
                raw[key] = value
        self.same_outcome(
            f"create {session_id!r}", lambda: self.impl.create(header), lambda: self.model.create(raw)
        )
        if session_id not in self.logs and session_id in self.model.tracked:
            self.logs[session_id] = []
            self.clean.add(session_id)

    def known(self) -> list[str]:
        return sorted(self.logs)

    # -- appending ---------------------------------------------------------------------------

    @precondition(lambda self: bool(self.logs))
    @rule(data=st.data())
    def append_batch(self, data: st.DataObject) -> None:
        self._append_batch(data)

    @precondition(lambda self: bool(self.logs))
    @rule(data=st.data())
    def append_more(self, data: st.DataObject) -> None:
        self._append_batch(data)

    @precondition(lambda self: bool(self.logs))
    @rule(data=st.data())
    def append_again(self, data: st.DataObject) -> None:
        self._append_batch(data)

    def _append_batch(self, data: st.DataObject, shape: str | None = None) -> None:
        session_id = "s1" if shape else data.draw(st.sampled_from(self.known()))
        if self.logs[session_id] is None and data.draw(st.integers(0, 3)):
            self.load_both(session_id, close_turn=data.draw(st.booleans()))
        log = self.logs[session_id]
        if log is None:
            log = []  # a blind guess at an unknown log: the batch is most likely out of place
        shape = shape or data.draw(st.sampled_from(SHAPES))
        rng = random.Random(data.draw(st.integers(0, 2**32 - 1)))
        batch = self.batch(session_id, log, shape, rng)
        what = f"append {shape} of {len(batch)} to {session_id!r} ({len(log)} stored)"
        # A log torn under this instance after it refused a batch: the implementation re-reads
        # the log to check the next batch and finds it changed (STORE_CONFLICT), where the model
        # judges the batch against what it last saw first. Either refusal is right there.
        stale = session_id not in self.clean
        self.same_outcome(
            what,
            lambda: self.impl.append(session_id, batch),
            lambda: self.model.append(session_id, [event.to_json() for event in batch]),
            also=("STORE_CONFLICT", None) if stale else None,
        )
        stored = self.model.tracked.get(session_id)
        if stored is None:
            self.logs[session_id] = None
        else:  # what the model now holds (a refused batch on an untracked log may have repaired it)
            self.logs[session_id] = _impl_events(stored.events, session_id)
            if batch and stored.events[-1:] and stored.events[-1].seq == batch[-1].seq:
                self.clean.add(session_id)

    def batch(self, session_id: str, log: list[Event], shape: str, rng: random.Random) -> list[Event]:
        """New events continuing ``log``, in the given shape (built through ``Session.append``)."""
        writer = self.writer(session_id, log)
        if writer is None:
            return []
        start = writer.seq
        turns = TurnWriter(writer.append, writer.surface.seqs, rng, traps=shape != "plain turns")
        scale = 1 if start < LONG else 10  # past several hundred events, grow slowly
        if shape in ("turn", "gap", "repeat"):
            turns.turn(rng.randint(1, 9))
        elif shape in ("turns", "plain turns"):
            for number in range(rng.randint(3, 12) // scale + 1):
                turns.turn(number)
        elif shape == "crashed turn":
            turns.turn(rng.randint(1, 9), finish=False)
        elif shape == "bulk":
            turns.bulk(rng.randint(20, 250) // scale)
        elif shape == "small":
            turns.bulk(rng.randint(1, 3))
        elif shape == "edges":  # payloads at the edges of the JSON-value rule, deep ones too
            turns.edges()
        elif shape == "diverging":
            return self.diverging(session_id, log, rng)
        events = list(writer.events)[start:]
        if shape == "gap" and events:
            del events[rng.randrange(len(events))]
        if shape == "repeat" and start > 0:
            events = list(writer.events)[start - 1 : start] + events
        return events

    def writer(self, session_id: str, log: list[Event]) -> Session | None:
        try:
            return Session(session_id, log, clock=self.clock)
        except DshSessionError:
            return None  # a log the implementation cannot seed: it could not have stored it

    def diverging(self, session_id: str, log: list[Event], rng: random.Random) -> list[Event]:
        """A batch whose seqs continue the log but whose events follow two different pasts: the
        first part from one continuation, the rest from another that took a different turn at
        the seam -- so an event after the seam may name a node this log does not have."""
        first, second = self.writer(session_id, log), self.writer(session_id, log)
        if first is None or second is None:
            return []
        for writer in (first, second):
            TurnWriter(writer.append, writer.surface.seqs, random.Random(rng.random())).bulk(
                rng.randint(0, 4)
            )
        while first.seq != second.seq:
            (first if first.seq < second.seq else second).append("assistant/chunk", {"pad": True})
        seam = first.seq
        first.append("todo/write", {"todos": []})  # off the surface here ...
        second.append(
            "user/message", {"content": [], "source": {"kind": "user"}}, surface_op="append"
        )  # ... on it there
        second.append(
            "user/message",
            {"content": [{"type": "text", "text": "replaces the seam"}], "source": {"kind": "user"}},
            surface_op={"op": "replace", "start": seam, "end": seam},
            source_event_seqs=[seam],
        )
        TurnWriter(second.append, second.surface.seqs, rng).bulk(rng.randint(0, 3))
        return list(first.events)[len(log) : seam + 1] + list(second.events)[seam + 1 :]

    # -- reading -----------------------------------------------------------------------------

    def load_both(self, session_id: str, close_turn: bool) -> None:
        impl, model = self.same_outcome(
            f"load {session_id!r} (close_turn={close_turn})",
            lambda: self.impl.load(session_id, close_turn=close_turn),
            lambda: self.model.load(session_id, close_turn),
        )
        if impl is None:
            return
        header, events, orders = model
        found = json_diff(impl.header.to_json(), header)
        require(found is None, lambda: f"load {session_id!r}: the header differs: {found}")
        self.same_events(f"load {session_id!r}", impl.events, events, orders)
        self.logs[session_id] = list(impl.events)
        self.clean.add(session_id)

    @precondition(lambda self: bool(self.logs))
    @rule(data=st.data(), close_turn=st.booleans())
    def load(self, data: st.DataObject, close_turn: bool) -> None:
        self.load_both(data.draw(st.sampled_from(self.known())), close_turn)

    @rule()
    def list_sessions(self) -> None:
        impl, model = self.same_outcome("list", lambda: self.impl.list(), lambda: self.model.list_headers())
        if impl is not None:
            found = json_diff([header.to_json() for header in impl], model)
            require(found is None, lambda: f"list: the headers differ: {found}")

    @rule(use_after_close=st.booleans())
    def reopen(self, use_after_close: bool) -> None:
        """Close both and open the stores again; the new instances know nothing yet."""
        self.close_and_open(use_after_close)
        self.logs = {sid: log for sid, log in self.logs.items() if self.impl_knows(sid)}

    def close_and_open(self, use_after_close: bool = False) -> None:
        """Close both backends (maybe using them once after) and open fresh ones."""
        self.impl.close()
        self.model.close()
        if use_after_close:
            self.same_outcome("list after close", lambda: self.impl.list(), lambda: self.model.list_headers())
        self.impl, self.model = self.storage.open_impl(), self.storage.open_model()

    def impl_knows(self, session_id: str) -> bool:
        return any(header.id == session_id for header in self.impl.list())

    # -- damage ------------------------------------------------------------------------------

    @precondition(lambda self: self.storage.durable and bool(self.logs))
    @rule(data=st.data(), how=st.sampled_from((0, 1, 2, 3)))
    def tear_tail(self, data: st.DataObject, how: int) -> None:
        """A crash mid-write: the same torn tail in both stores; the next load must cut it."""
        session_id = data.draw(st.sampled_from(self.known()))
        if self.storage.tear(session_id, how):
            self.clean.discard(session_id)
            note(f"torn tail ({how})")

    @precondition(lambda self: self.storage.durable and bool(self.logs))
    @rule(data=st.data())
    def respelled_by_another_writer(self, data: st.DataObject) -> None:
        """The same records in both stores as another writer spells them (and one more for each
        payload only another writer would spell so); opened afresh, both must load them alike, and
        every payload's canonical text must be ``JSON.stringify``'s again."""
        self.respell_and_load(data.draw(st.sampled_from(self.known())), data)

    def respell_and_load(self, session_id: str, data: st.DataObject) -> None:
        rng = random.Random(data.draw(st.integers(0, 2**32 - 1)))
        written = self.storage.respell(session_id, rng, foreign_text.FOREIGN_PAYLOADS)
        if written is None:
            return
        self.checked_texts.update(written)  # not JSON.stringify's spelling: on purpose
        note("respelled, foreign records added")
        self.close_and_open()
        self.logs = {sid: None if sid == session_id else log for sid, log in self.logs.items()}
        self.load_both(session_id, close_turn=data.draw(st.booleans()))

    @precondition(lambda self: self.storage.durable)
    @rule()
    def reads_change_nothing(self) -> None:
        """With both closed: open, list and load what needs no repair; not a byte or a name moves."""
        self.impl.close()
        self.model.close()
        before = self.storage.impl_state()
        reader = self.storage.open_impl()
        try:
            for header in reader.list():
                if header.id in self.clean:
                    reader.load(header.id, close_turn=False)
        finally:
            reader.close()
        after = self.storage.impl_state()
        require(
            before == after,
            lambda: f"a read changed the store:\n  before {_short(before)}\n  after  {_short(after)}",
        )
        self.impl, self.model = self.storage.open_impl(), self.storage.open_model()
        self.logs = (
            {sid: self.logs[sid] for sid in self.logs if self.impl_knows(sid)}
            if self.storage.durable
            else self.logs
        )

    @precondition(lambda self: self.storage.durable and bool(self.logs))
    @rule(data=st.data(), how=st.sampled_from((0, 1, 2)))
    def a_refused_open_changes_nothing(self, data: st.DataObject, how: int) -> None:
        """Damage copies of both stores; opening and loading the copy is refused alike, and the
        refused copy is left exactly as it was."""
        session_id = data.draw(st.sampled_from(self.known()))
        self.impl.close()
        self.model.close()
        try:
            copies = self.storage.damaged_copies(session_id, how)
            if copies is None:
                return
            open_impl, open_model, state = copies
            before = state()
            opened = self.same_outcome("open a damaged copy", open_impl, open_model)
            impl, model = opened
            if impl is not None:
                try:
                    loaded = self.same_outcome(
                        f"load {session_id!r} from a damaged copy",
                        lambda: impl.load(session_id),
                        lambda: model.load(session_id),
                    )
                finally:
                    impl.close()
                    model.close()
                if loaded[0] is not None:
                    return  # the damage was a torn tail after all: repaired, as a load may
            after = state()
            require(
                before == after,
                lambda: (
                    f"a refused open changed the copy:\n  before {_short(before)}\n  after  {_short(after)}"
                ),
            )
        finally:
            self.impl, self.model = self.storage.open_impl(), self.storage.open_model()
            self.logs = {sid: self.logs[sid] for sid in self.logs if self.impl_knows(sid)}


def _impl_events(events: list[dsh_spec.Event], session_id: str) -> list[Event] | None:
    """The implementation's events for the model's log (seeded through a session)."""
    try:
        return list(Session(session_id, [dsh_spec.event_json(e) for e in events]).events)
    except DshSessionError:
        return None


def _ordered(record: dict[str, Any], order: tuple[str, ...] | None) -> dict[str, Any]:
    """``record`` with its top-level keys in ``order`` (``None``: the order ``append`` writes)."""
    keys = order or EVENT_KEY_ORDER
    return {key: record[key] for key in keys if key in record}


def _said(code: str | None) -> str:
    return "accepted" if code is None else f"refused with {code}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 2000 else text[:2000] + " ..."

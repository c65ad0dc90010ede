"""The stores on disk, modelled: JSONL trees, SQLite databases, memory.

The rules come from :mod:`dsh_spec.storage` (the committed region:
:func:`~dsh_spec.storage.preserved_prefix`; the layout:
:func:`~dsh_spec.storage.cwd_bucket`, :func:`~dsh_spec.storage.encode_segment`),
the seed's rules (:func:`~dsh_spec.validation.check_seed`), crash repair
(:func:`~dsh_spec.repair.interrupted_turn_closers`,
:func:`~dsh_spec.repair.closer_json`) and JavaScript's JSON text
(:func:`~dsh_spec.json_value.js_stringify`). The file formats and the error
codes of each situation are those of ``docs/persistence.md`` and
``docs/errors.md`` (persistence). Nothing here is shared with the
implementation's backends: this is a second, plain reading of the same
documents, used to write the suite's expected values.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from dsh_spec.adoption import same_event, same_json
from dsh_spec.codes import Code
from dsh_spec.events import Event, event_json
from dsh_spec.json_value import EXACT_INT_LIMIT, MAX_DEPTH, js_stringify, text_depth
from dsh_spec.projection import derive_messages
from dsh_spec.refusal import Refused, Unmodelled, checked, refuse
from dsh_spec.rejection import Rejection
from dsh_spec.repair import closer_json, interrupted_turn_closers
from dsh_spec.storage import (
    HOLE,
    RECORD_DEPTH,
    TOO_DEEP,
    ZSTD_MAGIC,
    cwd_bucket,
    encode_segment,
    later_database,
    later_jsonl_entry,
    preserved_prefix,
)
from dsh_spec.store import ordered_record
from dsh_spec.validation import check_seed

_EXACT = EXACT_INT_LIMIT
_HEADER_KEYS = frozenset({"type", "version", "id", "createdAt", "cwd", "parentSession", "seedLength"})
_NAME_MAX = 255
_TMP_SUFFIX = 17  # ".<12 hex>.tmp"

#: The reference's v4 tables, as ``PRAGMA table_info`` rows ``(cid, name, type, notnull, default, pk)``.
SQLITE_COLUMNS: Final = {
    "sessions": [
        [0, "id", "TEXT", 1, None, 1],
        [1, "version", "INTEGER", 1, None, 0],
        [2, "created_at", "INTEGER", 1, None, 0],
        [3, "cwd", "TEXT", 0, None, 0],
        [4, "parent_session", "TEXT", 0, None, 0],
        [5, "seed_length", "INTEGER", 0, None, 0],
    ],
    "events": [
        [0, "session_id", "TEXT", 1, None, 1],
        [1, "seq", "INTEGER", 1, None, 2],
        [2, "type", "TEXT", 1, None, 0],
        [3, "time", "INTEGER", 1, None, 0],
        [4, "data", "TEXT", 1, None, 0],
        [5, "source_event_seqs", "TEXT", 0, None, 0],
        [6, "surface_op", "TEXT", 0, None, 0],
    ],
}

#: The reference's DDL (``persistence.md`` §3.3), what a fresh database is given.
SQLITE_DDL: Final = (
    """CREATE TABLE IF NOT EXISTS sessions (
      id             TEXT PRIMARY KEY,
      version        INTEGER NOT NULL,
      created_at     INTEGER NOT NULL,
      cwd            TEXT,
      parent_session TEXT,
      seed_length    INTEGER
    ) STRICT
  """,
    """CREATE TABLE IF NOT EXISTS events (
      session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      seq               INTEGER NOT NULL,
      type              TEXT NOT NULL,
      time              INTEGER NOT NULL,
      data              TEXT NOT NULL,
      source_event_seqs TEXT,
      surface_op        TEXT,
      PRIMARY KEY (session_id, seq)
    ) STRICT
  """,
)


# -- JSON text as JavaScript reads it ---------------------------------------------------------


def _number(text: str) -> int | float:
    # JavaScript reads every number as a double: an int token past 2**53 comes back rounded, one
    # past a double's range as +-Infinity; only the exact range keeps Python's int. The double is
    # read from the text first, so a token of thousands of digits costs no int conversion.
    double = float(text)
    if abs(double) > _EXACT:
        return double
    value = int(text)
    return value if abs(value) <= _EXACT else double


def _refuse_constant(token: str) -> Any:
    raise ValueError(token)


_DECODER = json.JSONDecoder(parse_int=_number, parse_constant=_refuse_constant)


def js_parse(raw: bytes | str, limit: int = RECORD_DEPTH) -> Any:
    """``JSON.parse`` of stored text (invalid UTF-8 read as U+FFFD); :data:`HOLE` if it does not
    parse, :data:`TOO_DEEP` if it nests deeper than ``limit`` (``dsh_spec.storage``)."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if text_depth(text) > limit:
        return TOO_DEEP
    try:
        return _DECODER.decode(text)
    except ValueError:
        return HOLE


# -- headers --------------------------------------------------------------------------------


def _exact_int(value: Any) -> int | None:
    if type(value) is int and abs(value) <= _EXACT:
        return value
    if type(value) is float and value.is_integer() and abs(value) <= _EXACT:
        return int(value)
    return None


def header_problem(header: dict[str, Any]) -> str | None:
    """Why no load could read this header back, or ``None``."""
    session_id = header.get("id")
    if type(session_id) is not str or not session_id:
        return "id must be a non-empty string"
    if _exact_int(header.get("createdAt")) is None:
        return "createdAt must be an integer"
    for key in ("cwd", "parentSession"):
        if header.get(key) is not None and type(header.get(key)) is not str:
            return f"{key} must be a string"
    if header.get("seedLength") is not None:
        length = _exact_int(header.get("seedLength"))
        if length is None or length < 0:
            return "seedLength must be a non-negative integer"
    return None


def check_new_header(header: dict[str, Any]) -> dict[str, Any]:
    """The header ``create`` registers: version 0, fields that a load reads back."""
    version = header.get("version", 0)
    if version != 0 or type(version) is not int:
        raise refuse(Code.STORE_VERSION_UNSUPPORTED, f"format version {version!r} cannot be written")
    problem = header_problem(header)
    if problem is not None:
        raise refuse(Code.INVALID_HEADER, problem)
    out: dict[str, Any] = {"version": 0, "id": header["id"], "createdAt": _exact_int(header["createdAt"])}
    for key in ("cwd", "parentSession"):
        if header.get(key) is not None:
            out[key] = header[key]
    if header.get("seedLength") is not None:  # a number, as JavaScript reads it: 0.0 is 0
        out["seedLength"] = _exact_int(header["seedLength"])
    return out


def stored_header(value: Any) -> dict[str, Any]:
    """The header a JSONL header line spells, or the load's refusal."""
    if value is HOLE or type(value) is not dict or value.get("type") != "session":
        raise refuse(Code.STORE_CORRUPT, "the first line is not a session header")
    version = value.get("version")
    if type(version) not in (int, float):
        raise refuse(Code.STORE_CORRUPT, "the session header has no numeric version")
    if version != 0:
        raise refuse(Code.STORE_VERSION_UNSUPPORTED, f"session format version {version!r} is not 0")
    problem = header_problem(value)
    if problem is None and any(key not in _HEADER_KEYS for key in value):
        problem = "unknown keys"
    if problem is None and any(
        key in value and value[key] is None for key in ("cwd", "parentSession", "seedLength")
    ):
        problem = "a null optional field"
    if problem is not None:
        raise refuse(Code.STORE_CORRUPT, f"bad session header: {problem}")
    out = {
        key: value[key] for key in ("id", "createdAt", "cwd", "parentSession", "seedLength") if key in value
    }
    return check_new_header(out)


def header_line(header: dict[str, Any]) -> str:
    return js_stringify({"type": "session", **header})


def event_line(event: Event, order: tuple[str, ...] | None) -> str:
    return js_stringify(ordered_record(event, order))


def events_of(records: list[Any]) -> tuple[Event, ...]:
    """The events of stored records (the seed's rules), or the refusal with the rule's code."""
    events: tuple[Event, ...] = checked(check_seed(records))
    return events


def record_order(record: Any) -> tuple[str, ...] | None:
    return tuple(record) if type(record) is dict else None


# -- the backends ---------------------------------------------------------------------------


@dataclass
class Tracked:
    header: dict[str, Any]
    events: list[Event]
    orders: dict[int, tuple[str, ...]] = field(default_factory=dict)
    materialized: bool = False
    token: Any = None


Loaded = tuple[dict[str, Any], tuple[Event, ...], dict[int, tuple[str, ...]]]


class ModelBackend:
    """The rules every backend shares; the storage itself in the subclasses."""

    def __init__(self) -> None:
        self.tracked: dict[str, Tracked] = {}
        self.closed = False

    @staticmethod
    def open(kind: Any, path: Any, lock_timeout: Any) -> ModelBackend:
        timeout = float(lock_timeout) if type(lock_timeout) in (int, float) else 5.0
        if kind == "jsonl" and type(path) is str:
            return JsonlModel(path, timeout)
        if kind == "sqlite" and type(path) is str:
            return SqliteModel(path, timeout)
        if kind == "memory":
            return MemoryModel()
        raise Unmodelled(f"no backend kind {kind!r} at {path!r}")

    # -- the interface ---------------------------------------------------------------------

    def create(self, raw: Any) -> None:
        self._check_open()
        header = check_new_header(raw if type(raw) is dict else {})
        self.check_storable(header)
        if header["id"] in self.tracked or self.exists(header["id"]):
            raise refuse(Code.SESSION_ALREADY_EXISTS, f"session {header['id']!r} already exists")
        self.tracked[header["id"]] = Tracked(header, [])

    def append(self, session_id: str, records: list[Any]) -> None:
        self._check_open()
        state = self.tracked.get(session_id)
        if not records:
            if state is None and not self.exists(session_id):
                raise refuse(Code.SESSION_NOT_FOUND, f"session {session_id!r} not found")
            return
        if state is None:
            state = self.adopt(session_id)
        cursor = len(state.events)
        for index, record in enumerate(records):
            seq = record.get("seq") if type(record) is dict else None
            if type(seq) is not int or seq != cursor + index:
                raise refuse(Code.SEQ_NOT_CONTIGUOUS, f"expected seq {cursor + index} at index {index}")
        stored = [event_json(event) for event in state.events]
        events = events_of(stored + records)[cursor:]
        self.check_events_storable(events)
        orders = {event.seq: order for event, r in zip(events, records, strict=True) if (order := _order(r))}
        state.token = self.write(state, events, orders)
        state.events.extend(events)
        state.orders.update(orders)
        state.materialized = True

    def load(self, session_id: str, close_turn: bool = True) -> Loaded:
        """The stored log, a torn tail cut and -- unless ``close_turn`` is false -- an open
        turn closed, the repair durable."""
        self._check_open()
        state = self.adopt(session_id, close_turn)
        return state.header, tuple(state.events), dict(state.orders)

    def list_headers(self) -> list[dict[str, Any]]:
        self._check_open()
        return sorted(self.headers(), key=lambda header: str(header["id"]))

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.tracked.clear()
            self.release()

    def adopt(self, session_id: str, close_turn: bool = True) -> Tracked:
        header, events, orders, token = self.read(session_id, close_turn)
        state = Tracked(header, list(events), orders, True, token)
        self.tracked[session_id] = state
        return state

    def _check_open(self) -> None:
        if self.closed:
            raise refuse(Code.STORE_CLOSED, "the backend is closed")

    # -- storage ---------------------------------------------------------------------------

    def check_storable(self, header: dict[str, Any]) -> None:
        return None

    def check_events_storable(self, events: tuple[Event, ...]) -> None:
        return None

    def exists(self, session_id: str) -> bool:
        raise NotImplementedError

    def read(
        self, session_id: str, close_turn: bool
    ) -> tuple[dict[str, Any], tuple[Event, ...], dict[int, tuple[str, ...]], Any]:
        """Read, admit and repair the stored log: header, events (closers included unless
        ``close_turn`` is false), key orders, token."""
        raise NotImplementedError

    def write(self, state: Tracked, events: tuple[Event, ...], orders: dict[int, tuple[str, ...]]) -> Any:
        raise NotImplementedError

    def headers(self) -> Iterator[dict[str, Any]]:
        raise NotImplementedError

    def release(self) -> None:
        return None


def _order(record: Any) -> tuple[str, ...] | None:
    order = record_order(record)
    standard = ("type", "seq", "time", "data", "sourceEventSeqs", "surfaceOp")
    if order is None or order == tuple(key for key in standard if key in order):
        return None
    return order


def repair(
    events: tuple[Event, ...], close_turn: bool = True
) -> tuple[tuple[Event, ...], dict[int, tuple[str, ...]]]:
    """The closers an open turn needs (none when ``close_turn`` is false), with their key order."""
    closers = interrupted_turn_closers(events) if close_turn else ()
    return closers, {event.seq: tuple(closer_json(event)) for event in closers if event.type == "tool/result"}


class MemoryModel(ModelBackend):
    def __init__(self) -> None:
        super().__init__()
        self.stored: dict[str, tuple[dict[str, Any], list[Event]]] = {}

    def exists(self, session_id: str) -> bool:
        return session_id in self.stored

    def read(
        self, session_id: str, close_turn: bool
    ) -> tuple[dict[str, Any], tuple[Event, ...], dict[int, tuple[str, ...]], Any]:
        if session_id not in self.stored:
            raise refuse(Code.SESSION_NOT_FOUND, f"session {session_id!r} not found")
        header, log = self.stored[session_id]
        events = events_of([event_json(event) for event in log])
        closers, orders = repair(events, close_turn)
        log.extend(closers)
        return header, events + closers, orders, None

    def write(self, state: Tracked, events: tuple[Event, ...], orders: dict[int, tuple[str, ...]]) -> Any:
        session_id = state.header["id"]
        if not state.materialized:
            self.stored[session_id] = (state.header, list(events))
        else:
            self.stored[session_id][1].extend(events)
        return None

    def headers(self) -> Iterator[dict[str, Any]]:
        for header, _log in self.stored.values():
            yield header


class JsonlModel(ModelBackend):
    """``<root>/<cwd_bucket(cwd)>/<encode_segment(id)>.jsonl``: a header line, then one line per event."""

    def __init__(self, root: str, lock_timeout: float) -> None:
        super().__init__()
        self.root = os.path.abspath(root)
        self.lock_timeout = lock_timeout

    def path_of(self, header: dict[str, Any]) -> str:
        return os.path.join(self.root, cwd_bucket(header.get("cwd")), _file_name(header["id"]))

    def check_storable(self, header: dict[str, Any]) -> None:
        if len(_file_name(header["id"]).encode("utf-8", "surrogatepass")) + _TMP_SUFFIX > _NAME_MAX:
            raise refuse(Code.STORE_UNREPRESENTABLE, "the id is too long for a file name")

    def buckets(self) -> list[str]:
        try:
            entries = sorted(os.scandir(self.root), key=lambda entry: entry.name)
        except FileNotFoundError:
            return []
        except OSError as error:
            raise refuse(Code.STORE_IO, f"listing {self.root}: {error}") from None
        return [entry.path for entry in entries if entry.is_dir()]

    def candidates(self, session_id: str) -> list[str]:
        if not session_id:
            return []
        name = _file_name(session_id)
        return [path for bucket in self.buckets() if os.path.isfile(path := os.path.join(bucket, name))]

    def exists(self, session_id: str) -> bool:
        return bool(self.candidates(session_id))

    @contextlib.contextmanager
    def locked(self, path: str, flags: int) -> Iterator[int]:
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            raise refuse(Code.STORE_CONFLICT, f"{path} vanished") from None
        try:
            deadline = time.monotonic() + self.lock_timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise refuse(Code.STORE_LOCKED, f"{path} is locked by another process") from None
                    time.sleep(0.01)
            yield fd
        finally:
            os.close(fd)

    def read(
        self, session_id: str, close_turn: bool
    ) -> tuple[dict[str, Any], tuple[Event, ...], dict[int, tuple[str, ...]], Any]:
        found = self.candidates(session_id)
        if not found:
            later = self.later_entries(session_id)
            if later:
                raise refuse(Code.STORE_VERSION_UNSUPPORTED, f"a later harness's store: {later[0]}")
            raise refuse(Code.SESSION_NOT_FOUND, f"session {session_id!r} not found")
        if len(found) > 1:
            raise refuse(Code.STORE_CORRUPT, f"session {session_id!r} has logs in more than one directory")
        path = found[0]
        with self.locked(path, os.O_RDWR) as fd:
            data = b""
            while chunk := os.read(fd, 1 << 20):
                data += chunk
            what = later_jsonl_entry(os.path.relpath(path, self.root).split(os.sep), data[:4])
            if what is not None:
                raise refuse(Code.STORE_VERSION_UNSUPPORTED, f"a later harness's store: {path}: {what}")
            header_end = data.find(b"\n")
            if header_end < 0:
                raise refuse(Code.STORE_CORRUPT, "empty or header-less session log")
            header = stored_header(js_parse(data[:header_end]))
            records: list[Any] = []
            ends: list[int] = []
            start = header_end + 1
            while (end := data.find(b"\n", start)) >= 0:
                records.append(js_parse(data[start:end]))
                ends.append(end + 1)
                start = end + 1
            keep = preserved_prefix(records)
            if isinstance(keep, Rejection):
                raise refuse(keep.code, keep.message)
            committed = ends[keep - 1] if keep else header_end + 1
            if header["id"] != session_id or self.path_of(header) != path:
                raise refuse(Code.STORE_CORRUPT, f"{path} is not where its header says it belongs")
            kept = records[:keep]
            events = events_of(kept)
            orders = {index: order for index, record in enumerate(kept) if (order := _order(record))}
            closers, closer_orders = repair(events, close_turn)
            orders.update(closer_orders)
            size = committed
            if committed != len(data):
                os.ftruncate(fd, committed)
            if closers:
                payload = "".join(event_line(e, closer_orders.get(e.seq)) + "\n" for e in closers)
                os.lseek(fd, committed, os.SEEK_SET)
                os.write(fd, payload.encode("utf-8"))
                size += len(payload.encode("utf-8"))
            return header, events + closers, orders, (path, size)

    def write(self, state: Tracked, events: tuple[Event, ...], orders: dict[int, tuple[str, ...]]) -> Any:
        payload = "".join(event_line(event, orders.get(event.seq)) + "\n" for event in events).encode("utf-8")
        if not state.materialized:
            path = self.path_of(state.header)
            if os.path.lexists(path) or self.candidates(state.header["id"]):
                raise refuse(Code.STORE_CONFLICT, f"{path} was published by another writer")
            later = self.later_entries(None)
            if later:
                raise refuse(Code.STORE_VERSION_UNSUPPORTED, f"a later harness's store: {later[0]}")
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
            except OSError as error:
                raise refuse(Code.STORE_IO, f"creating {path}: {error}") from None
            content = (header_line(state.header) + "\n").encode("utf-8") + payload
            with open(path, "xb") as handle:
                handle.write(content)
            os.chmod(path, 0o600)
            return (path, len(content))
        path, size = state.token
        with self.locked(path, os.O_WRONLY | os.O_APPEND) as fd:
            if os.fstat(fd).st_size != size:
                raise refuse(Code.STORE_CONFLICT, f"{path} changed since this backend wrote it")
            os.write(fd, payload)
        return (path, size + len(payload))

    def later_entries(self, session_id: str | None) -> list[str]:
        """A later harness's files in the root (``session_id``'s, or any when it is None)."""
        segment = None if session_id is None else _file_name(session_id)[: -len(".jsonl")]
        found = []
        for bucket in self.buckets():
            for directory, _dirs, names in os.walk(bucket):
                for name in sorted(names):
                    path = os.path.join(directory, name)
                    parts = os.path.relpath(path, self.root).split(os.sep)
                    if segment is not None and segment not in (parts[1], parts[1].split(".jsonl")[0]):
                        continue
                    head = b""
                    if session_id is not None and os.path.isfile(path):  # a publish looks at names only
                        with open(path, "rb") as handle:
                            head = handle.read(4)
                    what = later_jsonl_entry(parts, head)
                    if what is not None:
                        found.append(f"{path}: {what}")
        return found

    def headers(self) -> Iterator[dict[str, Any]]:
        for bucket in self.buckets():
            for name in sorted(os.listdir(bucket)):
                path = os.path.join(bucket, name)
                if not name.endswith(".jsonl") or not os.path.isfile(path):
                    continue
                with open(path, "rb") as handle:
                    first = handle.readline()
                if first.startswith(ZSTD_MAGIC):
                    continue
                if not first.endswith(b"\n"):
                    continue
                try:
                    header = stored_header(js_parse(first[:-1]))
                except Refused:
                    continue
                if self.path_of(header) == path:
                    yield header


def _file_name(session_id: str) -> str:
    segment = encode_segment(session_id)
    if isinstance(segment, Rejection):
        raise refuse(Code.INVALID_HEADER, segment.message)
    return segment + ".jsonl"


class SqliteModel(ModelBackend):
    """One database in the reference's v4 layout (``PRAGMA user_version = 4``)."""

    def __init__(self, path: str, lock_timeout: float) -> None:
        super().__init__()
        self.path = os.path.abspath(path)
        self._check_file()
        self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=lock_timeout)
        try:
            if self._check_layout():
                self._initialise()
        except BaseException:
            self.conn.close()
            raise

    def _check_file(self) -> None:
        try:
            size = os.path.getsize(self.path)
        except FileNotFoundError:
            return
        if size == 0:
            return
        with open(self.path, "rb") as handle:
            head = handle.read(100)
        if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
            raise refuse(Code.STORE_CORRUPT, f"{self.path} is not a SQLite database")

    def _check_layout(self) -> bool:
        """True for an empty database (to initialise); refuses any other layout than v4."""
        conn = self.conn
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        later = later_database(version, conn.execute("PRAGMA application_id").fetchone()[0])
        if later is not None:
            raise refuse(Code.STORE_VERSION_UNSUPPORTED, f"a later harness's database: {later}")
        objects = conn.execute(
            "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
        ).fetchall()
        if version == 0 and not objects:
            return True
        if version != 4:
            raise refuse(Code.STORE_SCHEMA_MISMATCH, f"schema version {version}, not 4")
        if [tuple(row) for row in objects] != [("table", "events"), ("table", "sessions")]:
            raise refuse(Code.STORE_SCHEMA_MISMATCH, f"other schema objects: {objects}")
        strict = dict(conn.execute("SELECT name, strict FROM pragma_table_list WHERE schema = 'main'"))
        for table, columns in SQLITE_COLUMNS.items():
            if strict.get(table) != 1:
                raise refuse(Code.STORE_SCHEMA_MISMATCH, f"table {table} is not STRICT")
            if [list(row) for row in conn.execute(f"PRAGMA table_info({table})")] != columns:
                raise refuse(Code.STORE_SCHEMA_MISMATCH, f"table {table} has other columns")
        keys = [list(row) for row in conn.execute("PRAGMA foreign_key_list(events)")]
        if keys != [[0, 0, "sessions", "session_id", "id", "NO ACTION", "CASCADE", "NONE"]]:
            raise refuse(Code.STORE_SCHEMA_MISMATCH, "another foreign key on events")
        return False

    def _initialise(self) -> None:
        with self.transaction():
            for ddl in SQLITE_DDL:
                self.conn.execute(ddl)
            self.conn.execute("PRAGMA user_version = 4")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            raise refuse(Code.STORE_LOCKED, f"{self.path} is locked: {error}") from None
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def check_storable(self, header: dict[str, Any]) -> None:
        for key in ("id", "cwd", "parentSession"):
            if _has_surrogate(header.get(key)):
                raise refuse(Code.STORE_UNREPRESENTABLE, f"the header's {key} holds a lone surrogate")

    def check_events_storable(self, events: tuple[Event, ...]) -> None:
        for event in events:
            if _has_surrogate(event.type):
                raise refuse(Code.STORE_UNREPRESENTABLE, "an event type holds a lone surrogate")

    def exists(self, session_id: str) -> bool:
        if _has_surrogate(session_id):
            return False
        return self.conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is not None

    def read(
        self, session_id: str, close_turn: bool
    ) -> tuple[dict[str, Any], tuple[Event, ...], dict[int, tuple[str, ...]], Any]:
        row = (
            None
            if _has_surrogate(session_id)
            else self.conn.execute(
                "SELECT id, version, created_at, cwd, parent_session, seed_length FROM sessions WHERE id = ?",
                (session_id,),
            ).fetchone()
        )
        if row is None:
            raise refuse(Code.SESSION_NOT_FOUND, f"session {session_id!r} not found")
        sid, version, created_at, cwd, parent, seed_length = row
        if version != 0:
            raise refuse(Code.STORE_VERSION_UNSUPPORTED, f"session format version {version}")
        if seed_length is not None and seed_length < 0:
            raise refuse(Code.STORE_CORRUPT, "a negative seed_length")
        header = check_new_header(
            {
                "id": sid,
                "createdAt": created_at,
                "cwd": cwd,
                "parentSession": parent,
                "seedLength": seed_length,
            }
        )
        rows = self.conn.execute(
            "SELECT seq, type, time, data, source_event_seqs, surface_op FROM events "
            "WHERE session_id = ? ORDER BY seq",
            (session_id,),
        ).fetchall()
        if rows and rows[0][0] < 0:
            raise refuse(Code.STORE_CORRUPT, "a row with a negative seq")
        records = [_row_record(row) for row in rows]
        keep = preserved_prefix(records, tearable=False)
        if isinstance(keep, Rejection):
            raise refuse(keep.code, keep.message)
        events = events_of(records[:keep])
        closers, _orders = repair(events, close_turn)
        if keep != len(rows) or closers:
            with self.transaction():
                self.conn.execute("DELETE FROM events WHERE session_id = ? AND seq >= ?", (session_id, keep))
                self._insert(session_id, closers)
        # SQLite rebuilds every record in the append order: a closer reads back in that order too.
        return header, events + closers, {}, None

    def _insert(self, session_id: str, events: tuple[Event, ...]) -> None:
        self.conn.executemany(
            "INSERT INTO events (session_id, seq, type, time, data, source_event_seqs, surface_op) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    session_id,
                    event.seq,
                    event.type,
                    event.time,
                    js_stringify(event.data),
                    None if event.source_event_seqs is None else js_stringify(list(event.source_event_seqs)),
                    None if event.surface_op is None else js_stringify(event_json(event)["surfaceOp"]),
                )
                for event in events
            ],
        )

    def write(self, state: Tracked, events: tuple[Event, ...], orders: dict[int, tuple[str, ...]]) -> Any:
        header = state.header
        try:
            with self.transaction():
                exists = self.exists(header["id"])
                last = self.conn.execute(
                    "SELECT max(seq) FROM events WHERE session_id = ?", (header["id"],)
                ).fetchone()[0]
                cursor = len(state.events)
                if exists != state.materialized or last != (cursor - 1 if cursor else None):
                    raise refuse(Code.STORE_CONFLICT, f"session {header['id']!r} changed under this backend")
                if not state.materialized:
                    self.conn.execute(
                        "INSERT INTO sessions (id, version, created_at, cwd, parent_session, seed_length) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (
                            header["id"],
                            0,
                            header["createdAt"],
                            header.get("cwd"),
                            header.get("parentSession"),
                            header.get("seedLength"),
                        ),
                    )
                self._insert(header["id"], events)
        except sqlite3.IntegrityError as error:
            raise refuse(Code.STORE_CONFLICT, str(error)) from None
        except sqlite3.OperationalError as error:
            raise refuse(Code.STORE_LOCKED, str(error)) from None
        return None

    def headers(self) -> Iterator[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT id, version, created_at, cwd, parent_session, seed_length FROM sessions"
        ).fetchall()
        for sid, version, created_at, cwd, parent, seed_length in rows:
            if version != 0 or (seed_length is not None and seed_length < 0):
                continue
            yield check_new_header(
                {
                    "id": sid,
                    "createdAt": created_at,
                    "cwd": cwd,
                    "parentSession": parent,
                    "seedLength": seed_length,
                }
            )

    def release(self) -> None:
        self.conn.close()


def _has_surrogate(value: Any) -> bool:
    return type(value) is str and any(0xD800 <= ord(char) <= 0xDFFF for char in value)


def _row_record(row: tuple[Any, ...]) -> Any:
    seq, kind, stamp, data_text, refs_text, op_text = row
    data = js_parse(data_text, MAX_DEPTH)
    if data is HOLE or data is TOO_DEEP:
        return data
    record: dict[str, Any] = {"type": kind, "seq": seq, "time": stamp, "data": data}
    for key, text in (("sourceEventSeqs", refs_text), ("surfaceOp", op_text)):
        if text is not None:
            value = js_parse(text, MAX_DEPTH)
            if value is HOLE or value is TOO_DEEP:
                return value
            record[key] = value
    return record


# -- copying between stores ------------------------------------------------------------------
#
# ``docs/errors.md`` COPY_MISMATCH and ``dsh_session.persistence.convert``'s documentation: a
# copy is each session loaded from the source and stored in the destination as one batch; a
# verification loads it back from the destination and compares the header, the events (as
# JSON values: key order aside, 1 equals 1.0, true is not 1) and the derived messages.


def _wanted(src: ModelBackend, ids: Any) -> list[str]:
    if ids is None:
        return [str(header["id"]) for header in src.list_headers()]
    if type(ids) is not list or not all(type(item) is str for item in ids):
        raise Unmodelled("ids must be a list of session ids")
    return list(dict.fromkeys(ids))


def copy_sessions(src: ModelBackend, dst: ModelBackend, ids: Any, verify: bool) -> list[str]:
    """Copy the sessions; nothing at all when the destination holds any of them already."""
    wanted = _wanted(src, ids)
    present = sorted({header["id"] for header in dst.list_headers()}.intersection(wanted))
    if present:
        raise refuse(Code.SESSION_ALREADY_EXISTS, f"the destination already holds {present}")
    for session_id in wanted:
        header, events, orders = src.load(session_id)
        dst.create(header)
        if events:
            dst.append(session_id, [ordered_record(event, orders.get(event.seq)) for event in events])
            if verify:
                check_copy(session_id, (header, events, orders), dst.load(session_id))
    return wanted


def verify_copy(src: ModelBackend, dst: ModelBackend, ids: Any) -> list[str]:
    """Compare each session as the two stores load it (a source session without events is skipped)."""
    wanted = _wanted(src, ids)
    for session_id in wanted:
        original = src.load(session_id)
        if original[1]:
            check_copy(session_id, original, dst.load(session_id))
    return wanted


def _messages(events: tuple[Event, ...]) -> Any:
    messages = derive_messages(events)
    return None if isinstance(messages, Rejection) else list(messages)


def check_copy(session_id: str, original: Loaded, copy: Loaded) -> None:
    (header, events, _), (copy_header, copy_events, _) = original, copy
    problem = None
    if not same_json(header, copy_header):
        problem = "the header differs"
    elif len(events) != len(copy_events) or not all(map(same_event, events, copy_events)):
        problem = "the events differ"
    elif not same_json(_messages(events), _messages(copy_events)):
        problem = "the derived messages differ"
    if problem is not None:
        raise refuse(Code.COPY_MISMATCH, f"session {session_id!r} does not load back equal: {problem}")

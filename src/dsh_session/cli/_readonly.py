"""Reading a stored session without changing its store.

A backend's ``load`` repairs what it reads (it cuts a torn tail and writes the
crash closers), which is right for a process resuming a session and wrong for
a person looking at one -- the session may be live in another process. The
readers here apply the backends' own reading rules (their scanners, header
checks and admission) to files opened for reading only, and report what a
load *would* repair instead of doing it:

- :class:`Reading` -- one session's stored log, before admission: header, the
  records a load keeps, and what it would cut;
- :func:`admit` -- the reading held to the seed's rules, with the closers a
  load would append: a :class:`Snapshot`.

Both are built on the backends' public read-only mode (``read_only=True``):
JSONL files are read under a shared ``flock`` (so never halfway through a
write of this library); a SQLite database is opened ``immutable``, or -- when
it has a pending WAL or journal -- read from a private copy, so that no byte
and no file of the store changes (``sqlite_schema.connect_read_only``).
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dsh_session.errors import Code
from dsh_session.event import Event, SessionHeader
from dsh_session.persistence import JsonlBackend, SqliteBackend
from dsh_session.persistence._base import Where, admit_stored, close_open_turn
from dsh_session.persistence._codec import HOLE, header_from_json, parse_bytes
from dsh_session.persistence._fast_freeze import Unusual, freeze_parsed
from dsh_session.persistence._files import io_error, locked, read_all
from dsh_session.persistence._rows import header_row, kept_records
from dsh_session.persistence.errors import (
    CorruptStoreError,
    PersistenceError,
    SessionNotFoundError,
    StoreIOError,
)
from dsh_session.persistence.jsonl_layout import SUFFIX
from dsh_session.persistence.jsonl_scan import scan_log
from dsh_session.persistence.sqlite import _SELECT_HEADER

__all__ = [
    "JsonlReader",
    "Reading",
    "Snapshot",
    "SqliteReader",
    "admit",
    "as_parsed",
    "checked_header_rows",
    "read_event_list",
    "read_jsonl_file",
]

#: How long a read waits for a writer's lock on a JSONL log (seconds).
LOCK_TIMEOUT = 5.0


@dataclass(frozen=True)
class Reading:
    """One session's stored log as read, before any rule has looked at its events.

    ``records`` are the records a load keeps (seq 0, 1, 2, ...: raw JSON
    objects); ``cut_records`` / ``cut_bytes`` what it would cut as a torn tail
    (``cut_bytes`` is ``None`` for a database); ``stored_bytes`` the size of the
    session's file, when it has one of its own.
    """

    where: str
    header: SessionHeader
    records: list[Any]
    cut_records: int
    cut_bytes: int | None
    stored_bytes: int | None
    locate: Callable[[int], Where]


@dataclass(frozen=True)
class Snapshot:
    """A stored session as a load would return it, without the load's writes.

    ``events`` is the stored log (admitted); ``closers`` the events a load
    would append to close a turn a crash left open.
    """

    reading: Reading
    events: tuple[Event, ...]
    closers: tuple[Event, ...]

    @property
    def header(self) -> SessionHeader:
        return self.reading.header

    @property
    def needs_repair(self) -> bool:
        return bool(self.closers) or self.reading.cut_records > 0

    def log(self, repaired: bool) -> tuple[Event, ...]:
        """The stored events, with the closers when ``repaired``."""
        return self.events + self.closers if repaired else self.events


def admit(reading: Reading) -> Snapshot:
    """Hold ``reading`` to the seed's rules (``CorruptStoreError`` naming the record if it breaks
    one) and work out the closers a load would append."""
    events, admitter = admit_stored(reading.records, reading.locate)
    stored = len(events)
    close_open_turn(events, admitter)
    return Snapshot(reading, tuple(events[:stored]), tuple(events[stored:]))


def as_parsed(records: list[Any]) -> list[Any]:
    """Copies of raw records whose ``data`` reads as JavaScript's ``JSON.parse`` reads it (integers
    beyond 2**53 become the double JavaScript makes of them), as a load admits them -- for rules
    that look at records rather than loaded events (``check_log``)."""
    out = []
    for record in records:
        if type(record) is dict and "data" in record:
            with contextlib.suppress(Unusual):  # else left to the rules, whose freeze names the problem
                record = {**record, "data": freeze_parsed(record["data"])}
        out.append(record)
    return out


# -- JSONL ---------------------------------------------------------------------------------------


def read_jsonl_file(path: str, *, root: JsonlBackend | None = None, session_id: str | None = None) -> Reading:
    """Read the session log file at ``path``.

    With ``root``, the file must sit where that root keeps its header's session
    (as ``load`` demands); ``session_id``, when given, must be the header's id.
    """
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise SessionNotFoundError(
            Code.SESSION_NOT_FOUND, f"{path}: no such session log", path=path
        ) from None
    except OSError as error:
        raise io_error(error, "opening", path) from None
    try:
        with locked(fd, exclusive=False, timeout=LOCK_TIMEOUT, path=path):
            data = read_all(fd)
    except OSError as error:
        raise io_error(error, "reading", path) from None
    finally:
        os.close(fd)
    scan = scan_log(data, path)
    header = scan.header
    if root is not None:
        root._check_location(header, header.id if session_id is None else session_id, path)
    elif session_id is not None and header.id != session_id:
        raise SessionNotFoundError(
            Code.SESSION_NOT_FOUND,
            f"{path} holds session {header.id!r}, not {session_id!r}; check the id",
            path=path,
        )
    tail = data[scan.committed :]
    cut_records = tail.count(b"\n") + (1 if tail and not tail.endswith(b"\n") else 0)
    return Reading(
        path,
        header,
        scan.records,
        cut_records,
        len(tail),
        scan.size,
        lambda index: Where(path, index + 2, f"line {index + 2}"),
    )


class JsonlReader:
    """The sessions of a JSONL root, read without changing it."""

    def __init__(self, root: str) -> None:
        self.backend = JsonlBackend(root, read_only=True)
        self.root = self.backend.root

    def read(self, session_id: str) -> Reading:
        path = self.backend._locate(session_id)
        return read_jsonl_file(path, root=self.backend, session_id=session_id)

    def files(self) -> Iterator[str]:
        """Every log file under the root (``<root>/<dir>/*.jsonl``), sorted."""
        try:
            buckets = sorted(entry.path for entry in os.scandir(self.root) if entry.is_dir())
        except OSError as error:
            raise io_error(error, "listing", self.root) from None
        for bucket in buckets:
            try:
                names = sorted(name for name in os.listdir(bucket) if name.endswith(SUFFIX))
            except OSError as error:
                raise io_error(error, "listing", bucket) from None
            for name in names:
                path = os.path.join(bucket, name)
                if os.path.isfile(path):
                    yield path

    def loose_files(self) -> list[str]:
        """``*.jsonl`` files directly in the root (a sign that a bucket was given as the root)."""
        try:
            return sorted(name for name in os.listdir(self.root) if name.endswith(SUFFIX))
        except OSError:
            return []


# -- SQLite --------------------------------------------------------------------------------------


def checked_header_rows(
    rows: Iterable[Sequence[Any]], where: str
) -> list[tuple[str, PersistenceError | None]]:
    """Each ``sessions`` row's id with what keeps its header from being read (another format
    version, a damaged row) or None, sorted by id; for the database stores' listings."""
    found: list[tuple[str, PersistenceError | None]] = []
    for row in sorted(rows, key=lambda row: str(row[0])):
        try:
            header_row(row, where)
            found.append((row[0], None))
        except PersistenceError as error:
            found.append((row[0], error))
    return found


class SqliteReader(SqliteBackend):
    """The sessions of a SQLite database, read through a connection that cannot write.

    It borrows the backend's reading (one snapshot of the header row and the
    event rows, their checks and decoding, the torn-row scan) and never runs
    its writes: the connection has ``query_only`` set, and a database that
    needs initialising is simply empty.
    """

    def __init__(self, path: str) -> None:
        full = os.path.abspath(path)
        if not os.path.isfile(full):
            raise StoreIOError(f"{full}: no such database file", path=full, errno=errno.ENOENT)
        super().__init__(full, read_only=True)

    def header_rows(self) -> list[tuple[str, PersistenceError | None]]:
        """Every session row's id, with what keeps its header from being read (another format
        version, a damaged row) or None; sorted by id."""
        if self._empty:
            return []
        with self._errors("listing"):
            rows = self._conn.execute(_SELECT_HEADER + " ORDER BY id").fetchall()
        return checked_header_rows(rows, self.path)

    def read(self, session_id: str) -> Reading:
        header, rows = self._read_session(session_id)
        records = kept_records(rows, self.path)
        path = self.path
        return Reading(
            path,
            header,
            records,
            len(rows) - len(records),
            None,
            None,
            lambda index: Where(path, None, f"row seq {rows[index][0]}"),
        )


# -- event lists ------------------------------------------------------------------------------------


def read_event_list(path: str, *, session_id: str | None = None) -> Reading:
    """Read a JSON or JSONL list of event records (with or without a session header).

    Forms: a JSON array of records; a JSON object with the records under
    ``events`` or ``seed`` (and the header under ``meta`` / ``header``, or as
    top-level ``id``, ``cwd``, ... keys); or one record per line (blank lines
    skipped). A first record with ``"type": "session"`` is the header. Without
    a header, the session is ``session_id`` or the file's name without its
    suffix, created at its first event's time.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise io_error(error, "reading", path) from None
    stripped = data.strip()
    if not stripped:
        raise CorruptStoreError(Code.STORE_CORRUPT, f"{path}: the file is empty", path=path)
    whole = parse_bytes(stripped) if stripped[:1] in (b"[", b"{") else HOLE
    header_value: Any = None
    lines: list[int] | None = None
    records: list[Any]
    wrapped = whole.get("events", whole.get("seed")) if isinstance(whole, dict) else None
    if isinstance(whole, list):
        records = whole
    elif isinstance(wrapped, list):
        records = wrapped
        header_value = _wrapper_header(whole)
    else:
        records, lines = _lines(data, path)
    if (
        header_value is None
        and records
        and isinstance(records[0], dict)
        and records[0].get("type") == "session"
    ):
        header_value = records[0]
        records = records[1:]
        if lines is not None:
            lines = lines[1:]
    header = _header(header_value, records, path, session_id)
    if session_id is not None and header.id != session_id:
        raise SessionNotFoundError(
            Code.SESSION_NOT_FOUND, f"{path} holds session {header.id!r}, not {session_id!r}", path=path
        )

    def locate(index: int) -> Where:
        if lines is not None:
            return Where(path, lines[index], f"line {lines[index]}")
        return Where(path, None, f"record {index}")

    return Reading(path, header, records, 0, None, len(data), locate)


def _lines(data: bytes, path: str) -> tuple[list[Any], list[int]]:
    records: list[Any] = []
    numbers: list[int] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        record = parse_bytes(raw)
        if record is HOLE:
            raise CorruptStoreError(
                Code.STORE_CORRUPT,
                f"{path}:{number}: the line is not JSON; expected one event record per line "
                "(or a JSON array of records)",
                path=path,
                line=number,
            )
        records.append(record)
        numbers.append(number)
    return records, numbers


def _wrapper_header(whole: dict[str, Any]) -> Any:
    meta = whole.get("meta", whole.get("header"))
    if isinstance(meta, dict):
        return {"type": "session", "version": 0, **meta}
    if "id" in whole:
        keys = ("version", "id", "createdAt", "cwd", "parentSession", "seedLength")
        return {"type": "session", "version": 0, **{key: whole[key] for key in keys if key in whole}}
    return None


def _header(value: Any, records: list[Any], path: str, session_id: str | None) -> SessionHeader:
    first_time = 0
    if records and isinstance(records[0], dict):
        time = records[0].get("time")
        if type(time) is int:
            first_time = time
    if value is None:
        name = Path(path).name
        stem = name.split(".", 1)[0] or name
        return SessionHeader(id=session_id or stem, created_at=first_time)
    if isinstance(value, dict) and "createdAt" not in value:
        value = {**value, "createdAt": first_time}
    return header_from_json(value, path=path)

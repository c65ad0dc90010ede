"""A stored session read without changing its store, and what a load's repair would do.

A backend's ``load`` repairs what it reads: it cuts a torn tail and appends the
crash closers. A reader that must not write -- a person looking at a session
that may be live in another process, a validator, the source of a copy --
asks instead for the stored log as it is and for a *report* of that repair:

- :class:`StoredLog` -- one session's stored log before admission: its
  header, the records a load keeps (JSON objects, as stored) and what it would
  cut (``JsonlBackend.read_log`` / ``read_log_file``, ``SqliteBackend.read_log``,
  :func:`read_jsonl_log`);
- :func:`repair_report` -- that log held to the seed's rules, with the
  closers a load would append: a :class:`RepairReport`.

Reading never writes, whatever mode the backend was opened in: JSONL files are
opened for reading under a shared ``flock`` (so never read halfway through a
write of this library); a read-only SQLite backend reads a database ``immutable``
or a private copy of it.
"""


import contextlib
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dsh_session.errors import Code
from dsh_session.event import Event, SessionHeader
from dsh_session.persistence._base import Where, admit_stored, close_open_turn
from dsh_session.persistence._codec import HOLE, header_from_json, js_envelope, parse_bytes
from dsh_session.persistence._fast_freeze import Unusual, freeze_parsed
from dsh_session.persistence._files import io_error, locked, read_all
from dsh_session.persistence._rows import header_row
from dsh_session.persistence.errors import CorruptStoreError, PersistenceError, SessionNotFoundError
from dsh_session.persistence.jsonl_layout import ZSTD_MAGIC, later_refusal
from dsh_session.persistence.jsonl_scan import scan_log

__all__ = [
    "Catalog",
    "RepairReport",
    "StoredLog",
    "catalog_rows",
    "js_records",
    "read_event_list",
    "read_jsonl_log",
    "repair_report",
]


@dataclass(frozen=True)
class StoredLog:
    """One session's stored log as read, before any rule has looked at its events.

    ``records`` are the records a load keeps (seq 0, 1, 2, ...: JSON objects as
    stored); ``cut_records`` / ``cut_bytes`` what a load would cut as a torn
    tail (``cut_bytes`` is ``None`` for a database); ``stored_bytes`` the size of
    the session's file, when it has one of its own. ``lines`` gives the
    physical line of each record (JSONL), else a record is named
    ``"<unit> <index>"`` (``row seq 5`` for a database).
    """

    where: str
    header: SessionHeader
    records: tuple[Any, ...]
    cut_records: int
    cut_bytes: int | None
    stored_bytes: int | None
    lines: Sequence[int] | None = None
    unit: str = "row seq"

    def place(self, index: int) -> tuple[int | None, str]:
        """Where record ``index`` sits: its line (or None) and a label such as ``line 7``."""
        if self.lines is not None:
            line = self.lines[index]
            return line, f"line {line}"
        return None, f"{self.unit} {index}"

    def js_records(self) -> list[Any]:
        """:func:`js_records` of the records."""
        return js_records(self.records)


def js_records(records: Iterable[Any]) -> list[Any]:
    """Copies of stored records that read as JavaScript's ``JSON.parse`` reads them (integers
    beyond 2**53, in ``data`` or the envelope, become the double JavaScript makes of them), as a
    load admits them -- for rules that look at records rather than loaded events (``check_log``)."""
    out = []
    for record in records:
        if type(record) is dict:
            record = js_envelope(record) or record
        if type(record) is dict and "data" in record:
            with contextlib.suppress(Unusual):  # else left to the rules, which name the problem
                record = {**record, "data": freeze_parsed(record["data"])}
        out.append(record)
    return out


@dataclass(frozen=True)
class RepairReport:
    """A stored session as a load would return it, without the load's writes.

    ``events`` is the stored log (admitted); ``closers`` the events a load would
    append to close a turn a crash left open; ``needs_repair`` whether a load
    would change the store at all (closers to append or a torn tail to cut).
    """

    log: StoredLog
    events: tuple[Event, ...]
    closers: tuple[Event, ...]

    @property
    def header(self) -> SessionHeader:
        return self.log.header

    @property
    def needs_repair(self) -> bool:
        return bool(self.closers) or self.log.cut_records > 0

    def repaired(self) -> tuple[Event, ...]:
        """The log a load returns: the stored events and the closers."""
        return self.events + self.closers


def repair_report(log: StoredLog) -> RepairReport:
    """Hold ``log`` to the seed's rules -- ``CorruptStoreError`` naming the record that breaks
    one, as a load raises it -- and work out the closers a load would append."""
    path = log.where

    def where(index: int) -> Where:
        line, label = log.place(index)
        return Where(path, line, label)

    events, admitter = admit_stored(log.records, where)
    stored = len(events)
    close_open_turn(events, admitter)
    return RepairReport(log, tuple(events[:stored]), tuple(events[stored:]))


#: How long a read waits for a writer's lock on a JSONL log (seconds).
LOCK_TIMEOUT = 5.0


def read_jsonl_log(path: str | os.PathLike[str], *, session_id: str | None = None) -> StoredLog:
    """Read the JSONL session log file at ``path`` (anywhere; a regular file), changing nothing.

    ``session_id``, when given, must be the header's id (else ``SESSION_NOT_FOUND``).
    ``JsonlBackend.read_log_file`` also checks that the file sits where its root keeps
    its header's session.
    """
    log = read_log_at(os.fspath(path), LOCK_TIMEOUT)
    if session_id is not None and log.header.id != session_id:
        raise SessionNotFoundError(
            Code.SESSION_NOT_FOUND,
            f"{log.where} holds session {log.header.id!r}, not {session_id!r}; check the id",
            path=log.where,
        )
    return log


def read_log_at(path: str, lock_timeout: float) -> StoredLog:
    """The JSONL log file at ``path``, read under a shared lock (``lock_timeout`` s at most)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise SessionNotFoundError(
            Code.SESSION_NOT_FOUND, f"{path}: no such session log", path=path
        ) from None
    except OSError as error:
        raise io_error(error, "opening", path) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SessionNotFoundError(
                Code.SESSION_NOT_FOUND, f"{path}: not a regular file, so not a session log", path=path
            )
        with locked(fd, exclusive=False, timeout=lock_timeout, path=path):
            data = read_all(fd)
    except OSError as error:
        raise io_error(error, "reading", path) from None
    finally:
        os.close(fd)
    if data.startswith(ZSTD_MAGIC):
        raise later_refusal(path, "a log of Zstandard frames (magic 28 B5 2F FD)")
    scan = scan_log(data, path)
    tail = data[scan.committed :]
    cut_records = tail.count(b"\n") + (1 if tail and not tail.endswith(b"\n") else 0)
    return StoredLog(
        path,
        scan.header,
        tuple(scan.records),
        cut_records,
        len(tail),
        scan.size,
        range(2, 2 + len(scan.records)),
        "line",
    )


#: Each stored session's id, with what keeps its header from being read or None.
Catalog = tuple[tuple[str, PersistenceError | None], ...]


def catalog_rows(rows: Sequence[Sequence[Any]], where: str) -> Catalog:
    """Each ``sessions`` row's id with what keeps its header from being read (another format
    version, a damaged row) or None, sorted by id: a database backend's ``catalog()``."""
    found: list[tuple[str, PersistenceError | None]] = []
    for row in sorted(rows, key=lambda row: str(row[0])):
        try:
            header_row(row, where)
            found.append((str(row[0]), None))
        except PersistenceError as error:
            found.append((str(row[0]), error))
    return tuple(found)


# -- event lists (the command line's other inputs) -------------------------------------------


def read_event_list(path: str | os.PathLike[str], *, session_id: str | None = None) -> StoredLog:
    """Read a JSON or JSONL list of event records (with or without a session header).

    Forms: a JSON array of records; a JSON object with the records under
    ``events`` or ``seed`` (and the header under ``meta`` / ``header``, or as
    top-level ``id``, ``cwd``, ... keys); or one record per line (blank lines
    skipped). A first record with ``"type": "session"`` is the header. Without
    a header, the session is ``session_id`` or the file's name without its
    suffix, created at its first event's time.
    """
    path = os.fspath(path)
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

    return StoredLog(path, header, tuple(records), 0, None, len(data), lines, "record")


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

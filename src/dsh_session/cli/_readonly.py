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
  load would append: a :class:`~dsh_session.persistence.RepairReport`.

Both are built on the backends' public read-only mode (``read_only=True``):
JSONL files are read under a shared ``flock`` (so never halfway through a
write of this library); a SQLite database is opened ``immutable``, or -- when
it has a pending WAL or journal -- read from a private copy, so that no byte
and no file of the store changes (``sqlite_schema.connect_read_only``).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from dsh_session.event import Event
from dsh_session.persistence import (
    JsonlBackend,
    PersistenceError,
    RepairReport,
    SqliteBackend,
    StoredLog,
    StoreIOError,
    js_records,
    read_jsonl_log,
    repair_report,
)
from dsh_session.persistence import (
    read_event_list as read_events,
)

__all__ = [
    "JsonlReader",
    "Reading",
    "SqliteReader",
    "Where",
    "admit",
    "as_parsed",
    "events_of",
    "read_event_list",
    "read_jsonl_file",
]


class Where(NamedTuple):
    """Where a stored record sits, for messages: the file, its line (JSONL) and a label."""

    path: str
    line: int | None
    label: str


@dataclass(frozen=True)
class Reading(StoredLog):
    """One session's stored log as read (:class:`~dsh_session.persistence.StoredLog`), before
    any rule has looked at its events; :meth:`locate` says where a record sits."""

    @classmethod
    def of(cls, log: StoredLog) -> Reading:
        return cls(
            log.where,
            log.header,
            log.records,
            log.cut_records,
            log.cut_bytes,
            log.stored_bytes,
            log.lines,
            log.unit,
        )

    def locate(self, index: int) -> Where:
        line, label = self.place(index)
        return Where(self.where, line, label)


def admit(reading: Reading) -> RepairReport:
    """Hold ``reading`` to the seed's rules (``CorruptStoreError`` naming the record if it breaks
    one) and work out the closers a load would append: the stored session as a load would
    return it, without the load's writes (``log`` is ``reading``)."""
    return repair_report(reading)


def events_of(report: RepairReport, repaired: bool) -> tuple[Event, ...]:
    """The stored events of ``report``, with the closers when ``repaired``."""
    return report.repaired() if repaired else report.events


def as_parsed(records: Any) -> list[Any]:
    """Copies of raw records whose ``data`` reads as JavaScript's ``JSON.parse`` reads it, as a
    load admits them -- for rules that look at records rather than loaded events (``check_log``)."""
    return js_records(records)


# -- JSONL ---------------------------------------------------------------------------------------


def read_jsonl_file(path: str, *, root: JsonlBackend | None = None, session_id: str | None = None) -> Reading:
    """Read the session log file at ``path``.

    With ``root``, the file must sit where that root keeps its header's session
    (as ``load`` demands); ``session_id``, when given, must be the header's id.
    """
    if root is not None:
        return Reading.of(root.read_log_file(path, session_id=session_id))
    return Reading.of(read_jsonl_log(path, session_id=session_id))


class JsonlReader:
    """The sessions of a JSONL root, read without changing it."""

    def __init__(self, root: str) -> None:
        self.backend = JsonlBackend(root, read_only=True)
        self.root = self.backend.root

    def read(self, session_id: str) -> Reading:
        return Reading.of(self.backend.read_log(session_id))

    def files(self) -> Iterator[str]:
        """Every log file under the root (``<root>/<dir>/*.jsonl``), sorted."""
        yield from self.backend.log_files()

    def loose_files(self) -> list[str]:
        """``*.jsonl`` files directly in the root (a sign that a bucket was given as the root)."""
        try:
            return sorted(name for name in os.listdir(self.root) if name.endswith(".jsonl"))
        except OSError:
            return []


# -- SQLite --------------------------------------------------------------------------------------


class SqliteReader:
    """The sessions of a SQLite database, read through a backend opened ``read_only``."""

    def __init__(self, path: str) -> None:
        full = os.path.abspath(path)
        if not os.path.isfile(full):
            raise StoreIOError(f"{full}: no such database file", path=full, errno=errno.ENOENT)
        self.backend = SqliteBackend(full, read_only=True)
        self.path = self.backend.path
        #: The database holds no session tables (a read-only backend reads it as empty).
        self.empty = not self.backend.initialised

    def header_rows(self) -> list[tuple[str, PersistenceError | None]]:
        """Every session row's id, with what keeps its header from being read (another format
        version, a damaged row) or None; sorted by id."""
        return list(self.backend.catalog())

    def read(self, session_id: str) -> Reading:
        return Reading.of(self.backend.read_log(session_id))

    def close(self) -> None:
        self.backend.close()


# -- event lists ------------------------------------------------------------------------------------


def read_event_list(path: str, *, session_id: str | None = None) -> Reading:
    """Read a JSON or JSONL list of event records (``dsh_session.persistence.read_event_list``)."""
    return Reading.of(read_events(path, session_id=session_id))

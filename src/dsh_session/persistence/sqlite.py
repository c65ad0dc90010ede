"""The SQLite backend: every session of a store in one database, the reference's v4 layout.

Rows are what the reference writes for the same events: ``data`` and the two
surface columns hold ``JSON.stringify`` text (``surface_op`` the quoted
``"append"`` or the replace object), absent surface fields are NULL, and a
``sessions`` row exists once a session has events. A batch is one transaction,
so a crash loses it whole or keeps it whole. A load reads in one snapshot;
if it must repair (rows after the last ``turn/end`` that do not continue the
log, or an open turn), it deletes the torn rows and inserts the closers in one
write transaction, after checking that nobody changed the rows meanwhile.

What we add to the reference: the database is checked before it is touched
(``sqlite_schema``), writes wait up to ``busy_timeout`` seconds for another
process (then ``STORE_LOCKED``) and check that the session still ends where
this backend left it (``STORE_CONFLICT``), and a row with a negative seq is
refused as damage instead of making the load delete every row.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from functools import partial

from dsh_session.errors import Code, InvalidEventError
from dsh_session.event import Event, SessionHeader
from dsh_session.persistence._admit import LogAdmitter
from dsh_session.persistence._base import BackendBase, Loaded, Tracked, Where, refusal, settle_load
from dsh_session.persistence._bulk import rows_run
from dsh_session.persistence._rows import (
    Row,
    event_row,
    header_row,
    kept_records,
    readable_headers,
    session_row,
)
from dsh_session.persistence.errors import (
    CorruptStoreError,
    PersistenceError,
    StoreConflictError,
    StoreIOError,
    StoreLockedError,
    UnrepresentableError,
)
from dsh_session.persistence.sqlite_schema import (
    JOURNAL_MODES,
    check_schema,
    connect_read_only,
    corrupt,
    is_damage,
    open_database,
    precheck,
    refuse_symlinks,
)
from dsh_session.persistence.stored_log import Catalog, StoredLog, catalog_rows

__all__ = ["SqliteBackend"]

_SURROGATE = re.compile("[\ud800-\udfff]")
#: Whether the session has a row, and its last stored seq (a write checks both first).
_WHERE_IT_ENDS = (
    "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?), "
    "(SELECT max(seq) FROM events WHERE session_id = ?)"
)
#: How many event rows a plain load fetches at a time (:meth:`SqliteBackend._stream_plain`).
_STREAM_ROWS = 512
_SELECT_HEADER = "SELECT id, version, created_at, cwd, parent_session, seed_length FROM sessions"
_SELECT_EVENTS = (
    "SELECT seq, type, time, data, source_event_seqs, surface_op FROM events "
    "WHERE session_id = ? ORDER BY seq"
)
_INSERT_EVENT = (
    "INSERT INTO events (session_id, seq, type, time, data, source_event_seqs, surface_op) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)


class SqliteBackend(BackendBase):
    """Sessions in the SQLite database at ``path`` (``":memory:"`` for a private one).

    ``journal_mode`` is one of ``wal`` (the default), ``delete``, ``truncate``,
    ``persist``; ``busy_timeout`` is how long (seconds) a write waits for
    another connection's lock before failing with ``STORE_LOCKED``. The
    database is opened and checked here: a foreign or other-version database
    raises at once (``STORE_SCHEMA_MISMATCH``) and is left untouched.

    ``read_only=True`` makes a backend that changes no byte and no file of the
    store (``sqlite_schema.connect_read_only``): a missing or empty database
    reads as an empty store and is not created, a load returns the repaired log
    without storing the repair, ``append`` raises ``STORE_IO``.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        journal_mode: str = "wal",
        busy_timeout: float = 5.0,
        read_only: bool = False,
    ) -> None:
        super().__init__()
        if journal_mode not in JOURNAL_MODES:
            raise ValueError(f"journal_mode must be one of {', '.join(JOURNAL_MODES)}, got {journal_mode!r}")
        raw = os.fspath(path)
        self.path = raw if raw == ":memory:" else os.path.abspath(raw)
        self.read_only = read_only
        #: Read-only and there is no database (or an empty one) to read.
        self._empty = False
        self._release_read: Callable[[], None] | None = None
        #: True once a write has committed in WAL mode. SQLite then holds the ``-wal`` and
        #: ``-shm`` files open and writes through those descriptors, whatever is planted at
        #: their paths later, and keeps no rollback journal: a transaction need not look
        #: for planted links any more (four ``lstat`` calls, a sixth of a batch's CPU).
        self._companions_held = False
        if read_only and self.path != ":memory:":
            self._conn = self._open_read_only()
        else:
            self._conn = open_database(self.path, journal_mode=journal_mode, busy_timeout=busy_timeout)

    def _open_read_only(self) -> sqlite3.Connection:
        path = self.path
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            self._empty = True
            return sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        precheck(path, create_dirs=False)
        conn, self._release_read = connect_read_only(path)
        try:
            self._empty = check_schema(conn, path)
        except BaseException:
            self._release_read()
            raise
        return conn

    # -- reading without writing ----------------------------------------------------------

    def read_log(self, session_id: str) -> StoredLog:
        """The session's stored rows as they are (one snapshot), and how many a load would
        cut -- read without writing (:mod:`dsh_session.persistence.stored_log`); raises what
        ``load`` raises for a session that is not there or damaged committed rows."""
        with self._lock:
            self._check_open()
            header, rows = self._read_session(session_id)
            records = kept_records(rows, self.path)
            return StoredLog(self.path, header, tuple(records), len(rows) - len(records), None, None)

    @property
    def initialised(self) -> bool:
        """Whether the database holds the session tables: False only for a ``read_only``
        backend on a missing, empty or table-less database (which it reads as an empty store)."""
        return not self._empty

    def catalog(self) -> Catalog:
        """Every stored session's id with what keeps its header from being read (another format
        version, a damaged row) or None, sorted by id -- what ``list()`` passes over, named."""
        with self._lock:
            self._check_open()
            if self._empty:
                return ()
            with self._errors("listing"):
                rows = self._conn.execute(_SELECT_HEADER).fetchall()
            return catalog_rows(rows, self.path)

    # -- hooks ----------------------------------------------------------------------------

    def _check_storable(self, header: SessionHeader) -> None:
        for name, value in (("id", header.id), ("cwd", header.cwd), ("parentSession", header.parent_session)):
            if value is not None and _SURROGATE.search(value):
                raise self._unrepresentable(f"the header's {name} {value!r}")

    def _check_events_storable(self, events: Sequence[Event]) -> None:
        for event in events:
            if _SURROGATE.search(event.type):
                raise self._unrepresentable(f"the event type {event.type!r} (seq {event.seq})")

    def _exists(self, session_id: str) -> bool:
        if not self._may_hold(session_id):
            return False  # such an id can never have been stored
        with self._errors("looking up a session in"):
            return (
                self._conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone()
                is not None
            )

    def _load(self, session_id: str, expect: int | None, close_turn: bool = True) -> Loaded:
        streamed = self._stream_plain(session_id)
        if streamed is not None:
            header, events, admitter = streamed  # every row kept: seqs 0 to len - 1
            stored = len(events)
            last = stored - 1 if stored else None
        else:
            header, rows = self._read_session(session_id)
            admitter = LogAdmitter()
            try:
                # Plain runs of rows in bulk, the rest row by row (persistence._bulk): the same events.
                bulk = partial(rows_run, admitter)
                events = kept_records(rows, self.path, admitter.admit_parsed, bulk)
            except InvalidEventError as error:
                raise refusal(error, self._row_at(rows)) from None
            except CorruptStoreError:
                if expect is not None and len(rows) != expect:
                    raise self._conflict(session_id, expect, len(rows)) from None  # changed under us
                raise
            stored, last = len(rows), rows[-1][0] if rows else None
        preserved = len(events)
        return settle_load(
            Loaded(header, events, admitter, None),
            stored,
            expect,
            close_turn,
            lambda: self._conflict(session_id, expect or 0, stored),
            None
            if self.read_only
            else lambda closers: self._repair(session_id, stored, last, preserved, closers),
        )

    def _row_at(self, rows: list[Row]) -> Callable[[int], Where]:
        """Where the row at an index of ``rows`` is, for a refusal's message."""
        return lambda index: Where(self.path, None, f"row seq {rows[index][0]}")

    def _write(self, state: Tracked, events: Sequence[Event]) -> None:
        if self.read_only:
            raise self._read_only_refusal(state.header.id, f"in {self.path}", self.path)
        header = state.header
        session_id = header.id
        rows = [(session_id, *event_row(event)) for event in events]
        with self._transaction("appending to"):
            conn = self._conn
            # Where the session stands now, in one statement (a batch pays for each).
            found, last = conn.execute(_WHERE_IT_ENDS, (session_id, session_id)).fetchone()
            exists = found == 1
            if exists != state.materialized or last != (state.cursor - 1 if state.cursor else None):
                raise self._conflict(session_id, state.cursor, None if last is None else last + 1)
            if not state.materialized:
                conn.execute(
                    "INSERT INTO sessions (id, version, created_at, cwd, parent_session, seed_length) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    session_row(header),
                )
            conn.executemany(_INSERT_EVENT, rows)
        if not self._companions_held:
            self._companions_held = self._in_wal_mode()

    def _headers(self) -> Iterator[SessionHeader]:
        if self._empty:
            return
        with self._errors("listing"):
            rows = self._conn.execute(_SELECT_HEADER).fetchall()
        yield from readable_headers(rows, self.path)

    def _release(self) -> None:
        if self._release_read is not None:
            self._release_read()
        else:
            self._conn.close()

    # -- reading ---------------------------------------------------------------------------

    def _may_hold(self, session_id: str) -> bool:
        """Whether the database can hold a session of this id at all (else it is not looked up)."""
        return not self._empty and not _SURROGATE.search(session_id)

    def _stream_plain(self, session_id: str) -> tuple[SessionHeader, list[Event], LogAdmitter] | None:
        """The session's header and events when every row is plain (``persistence._bulk``), read
        in one snapshot a run of rows at a time, so no run outlives its own use (a whole
        session's rows fetched at once cost more per row as they grow); ``None`` for anything
        else -- another row, an error, no such session -- which the row-by-row load then
        reads and judges from the start."""
        if not self._may_hold(session_id):
            return None
        conn = self._conn
        admitter = LogAdmitter()
        events: list[Event] = []
        try:
            conn.execute("BEGIN")
            try:
                row = conn.execute(_SELECT_HEADER + " WHERE id = ?", (session_id,)).fetchone()
                if row is None:
                    return None
                header = header_row(row, self.path)
                cursor = conn.execute(_SELECT_EVENTS, (session_id,))
                while run := cursor.fetchmany(_STREAM_ROWS):
                    taken = rows_run(admitter, run)
                    if taken is None:
                        return None
                    events.extend(taken)
            finally:
                conn.execute("COMMIT")
        except (sqlite3.Error, UnicodeDecodeError, PersistenceError):
            return None  # the row-by-row load meets it again and says what it is
        return header, events, admitter

    def _read_session(self, session_id: str) -> tuple[SessionHeader, list[Row]]:
        """The session's header and its event rows (by seq), read in one snapshot; raises
        ``SESSION_NOT_FOUND`` for a session the database does not hold."""
        row = None
        rows: list[Row] = []
        if self._may_hold(session_id):
            with self._errors("reading"):
                conn = self._conn
                conn.execute("BEGIN")
                try:
                    row = conn.execute(_SELECT_HEADER + " WHERE id = ?", (session_id,)).fetchone()
                    if row is not None:
                        rows = conn.execute(_SELECT_EVENTS, (session_id,)).fetchall()
                finally:
                    conn.execute("COMMIT")
        if row is None:
            raise self._not_found(session_id, self.path)
        return header_row(row, self.path), rows

    # -- writing ---------------------------------------------------------------------------

    def _repair(
        self, session_id: str, stored: int, last: int | None, preserved: int, closers: list[Event]
    ) -> None:
        """Cut the rows from seq ``preserved`` on and insert ``closers``, if the session still
        holds the ``stored`` rows, the last at seq ``last``, that the load read."""
        with self._transaction("repairing"):
            conn = self._conn
            count, found_last = conn.execute(
                "SELECT count(*), max(seq) FROM events WHERE session_id = ?", (session_id,)
            ).fetchone()
            if count != stored or found_last != last:
                raise self._conflict(session_id, stored, count)
            # A damaged file can read back short without an error: never write into one.
            checked = conn.execute("PRAGMA integrity_check").fetchall()
            if checked != [("ok",)]:
                raise corrupt(self.path, RuntimeError(f"integrity_check: {str(checked[0][0])[:120]}"))
            if preserved != stored:
                conn.execute("DELETE FROM events WHERE session_id = ? AND seq >= ?", (session_id, preserved))
            conn.executemany(_INSERT_EVENT, [(session_id, *event_row(event)) for event in closers])

    # -- errors ----------------------------------------------------------------------------

    def _errors(self, action: str) -> _SqliteErrors:
        return _SqliteErrors(self.path, action)

    def _transaction(self, action: str) -> _Transaction:
        if self.path != ":memory:" and not self._companions_held:
            refuse_symlinks(self.path, action)  # a journal planted as a link since the open
        return _Transaction(self._conn, self.path, action)

    def _in_wal_mode(self) -> bool:
        """True when the database is in WAL mode (what ``PRAGMA journal_mode`` set may not
        hold: SQLite keeps the mode it had where WAL cannot work)."""
        if self.path == ":memory:":
            return False
        with self._errors("reading the journal mode of"):
            row = self._conn.execute("PRAGMA journal_mode").fetchone()
        return row is not None and str(row[0]).lower() == "wal"

    def _conflict(self, session_id: str, expected: int, found: int | None) -> StoreConflictError:
        found_text = "no rows" if found is None else f"{found} event(s)"
        return StoreConflictError(
            Code.STORE_CONFLICT,
            f"{self.path}: session {session_id!r} holds {found_text}, this backend expected {expected}; "
            "another writer changed it -- nothing was written; load the session again",
            path=self.path,
        )

    def _unrepresentable(self, what: str) -> UnrepresentableError:
        return UnrepresentableError(
            Code.STORE_UNREPRESENTABLE,
            f"{what} holds a lone surrogate, which a SQLite text column cannot store; "
            "use the JSONL backend or a well-formed string",
            path=self.path,
        )


class _SqliteErrors:
    """Turn SQLite's exceptions into typed ones."""

    def __init__(self, path: str, action: str) -> None:
        self.path = path
        self.action = action

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, _tb: object) -> None:
        if not isinstance(error, sqlite3.Error | UnicodeDecodeError):
            return
        if is_damage(error):
            raise corrupt(self.path, error) from None
        message = str(error)
        if isinstance(error, sqlite3.OperationalError) and ("locked" in message or "busy" in message):
            raise StoreLockedError(
                Code.STORE_LOCKED,
                f"{self.path} is locked by another connection ({message}); retry later, "
                "or raise busy_timeout",
                path=self.path,
            ) from None
        if isinstance(error, sqlite3.IntegrityError):
            raise StoreConflictError(
                Code.STORE_CONFLICT,
                f"{self.action} {self.path}: {message}; another writer stored these seqs -- nothing was "
                "written; load the session again",
                path=self.path,
            ) from None
        raise StoreIOError(
            f"{self.action} {self.path} failed: {message}", path=self.path, errno=None
        ) from None


class _Transaction(_SqliteErrors):
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any error; SQLite errors typed."""

    def __init__(self, conn: sqlite3.Connection, path: str, action: str) -> None:
        super().__init__(path, action)
        self.conn = conn

    def __enter__(self) -> None:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            super().__exit__(type(error), error, None)
            raise
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, _tb: object) -> None:
        if error is None:
            try:
                self.conn.execute("COMMIT")
                return
            except sqlite3.Error as commit_error:
                error = commit_error
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")
        super().__exit__(type(error), error, _tb)

"""The PostgreSQL backend: every session of a store in one schema of a PostgreSQL database.

For a fleet of harness processes on many hosts sharing one store. Rows hold
what the SQLite backend's rows hold (``JSON.stringify`` text in the JSON
columns, NULL for an absent surface field), so a load returns exactly what the
other backends return for the same events. The layout and its version marker
are in :mod:`postgres_schema`.

Concurrency. Every write is one transaction: an ``append`` batch is visible
whole or not at all, whatever happens to the connection. A writer first locks
the session's ``sessions`` row (``FOR NO KEY UPDATE``), so writers of one
session take turns, then checks that the session still ends where this backend
left it -- otherwise ``STORE_CONFLICT`` and nothing is written. The first batch
publishes the header with ``INSERT ... ON CONFLICT DO NOTHING``: of two writers
creating one id, one wins and the other gets ``STORE_CONFLICT``. The primary
key ``(sid, seq)`` makes a duplicate seq impossible even for a writer that
bypasses all this. Writers of different sessions never wait for each other.

Connections. One connection per backend instance, opened (and the schema
checked) by the constructor, re-opened by the next call after it drops. A drop
mid-append raises ``STORE_CONNECTION_LOST``; if the drop came with the commit,
the backend reconnects once and reads the rows back to tell whether the batch
made it (then ``append`` returns normally) or not. psycopg 3 is imported when
the first backend is made, so the rest of the library does not need it.

Reading only. ``read_only=True`` makes a backend that cannot change the store:
its connection runs every transaction ``READ ONLY`` (the server refuses any
write), a missing or empty schema is left alone (the store reads as empty), a
load returns the repaired log without storing the repair, and ``append``
raises ``STORE_IO``. :meth:`PostgresBackend._stored_rows` reads one session as
stored, in one read-only transaction, for readers that report what a load
would repair instead of doing it (the command line).
"""

from __future__ import annotations

import contextlib
import getpass
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

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
    ConnectionLostError,
    CorruptStoreError,
    PersistenceError,
    StoreAuthError,
    StoreConflictError,
    StoreIOError,
    StoreLockedError,
    StoreUnreachableError,
    UnrepresentableError,
)
from dsh_session.persistence.postgres_schema import DEFAULT_SCHEMA, check_schema, initialise, quote_ident
from dsh_session.persistence.stored_log import Catalog, StoredLog, catalog_rows

__all__ = ["PostgresBackend"]

T = TypeVar("T")
#: A psycopg connection (psycopg is imported lazily, so it is not named in annotations).
Conn = Any

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_AUTH_HINTS = (
    "password authentication failed",
    "authentication failed",
    "no pg_hba.conf entry",
    "role ",
    "password must be",
    "fe_sendauth: no password supplied",
    "server requested a password",
)


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError("PostgresBackend needs psycopg 3: pip install 'dsh-session[postgres]'") from None
    return psycopg


class _InDoubt(Exception):
    """The connection dropped while the commit was under way: the batch may or may not be stored."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass(frozen=True)
class _StoredRows:
    """One session as its rows hold it, decoded as a load decodes them but not yet admitted.

    ``records`` are the event records of the rows a load keeps (seq order);
    ``seqs`` the stored seq of every row, kept or not (for naming a row);
    ``cut`` how many rows after them a load would cut as a torn tail.
    """

    header: SessionHeader
    records: list[Any]
    seqs: list[int]
    cut: int


class PostgresBackend(BackendBase):
    """Sessions in the PostgreSQL database that ``dsn`` names, in schema ``schema``.

    ``dsn`` is a libpq connection string or URI (``"host=db port=5432
    dbname=sessions user=dsh"``, ``"postgresql://dsh@db/sessions"``); libpq's
    ``PG*`` environment variables and password file apply. ``connect_timeout``
    bounds each connection attempt (seconds; a ``connect_timeout`` in the DSN
    wins), ``lock_timeout`` how long a write waits for another writer of the same
    session before ``STORE_LOCKED``. The schema is checked here, and created
    when missing or empty: a schema of another layout or version raises
    ``STORE_SCHEMA_MISMATCH`` at once and is left untouched. With ``read_only``
    nothing is ever written (see the module's docstring): a missing or empty
    schema is not created but read as an empty store.
    """

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = DEFAULT_SCHEMA,
        connect_timeout: float = 10.0,
        lock_timeout: float = 5.0,
        read_only: bool = False,
    ) -> None:
        super().__init__()
        if not schema or "\x00" in schema or len(schema.encode("utf-8", "surrogatepass")) > 63:
            raise ValueError(f"schema must be a PostgreSQL name of 1 to 63 bytes without NUL, got {schema!r}")
        if connect_timeout <= 0 or lock_timeout <= 0:
            raise ValueError("connect_timeout and lock_timeout must be positive (seconds)")
        self._pg = _psycopg()
        try:
            params = self._pg.conninfo.conninfo_to_dict(dsn)
        except self._pg.Error:
            # psycopg's message may quote the DSN, password and all: say nothing more.
            raise ValueError("dsn does not parse as a libpq connection string or URI") from None
        self._dsn = dsn
        self._connect_args: dict[str, Any] = {"autocommit": True, "client_encoding": "utf8"}
        if "connect_timeout" not in params:
            self._connect_args["connect_timeout"] = max(1, round(connect_timeout))
        if "application_name" not in params:
            self._connect_args["application_name"] = "dsh-session"
        self._lock_timeout_ms = max(1, round(lock_timeout * 1000))
        self.schema = schema
        self.server = _server_label(params)
        #: Where the store is, for messages and errors: the server and the schema.
        self.path = f"{self.server} (schema {schema})"
        self._q = _Queries(quote_ident(schema))
        self.read_only = read_only
        #: Read-only and the schema is missing or empty: there is nothing to read.
        self._empty = False
        self._conn: Conn | None = None
        with self._lock:
            self._connection(None)

    # -- hooks ----------------------------------------------------------------------------

    def _check_storable(self, header: SessionHeader) -> None:
        for name, value in (("id", header.id), ("cwd", header.cwd), ("parentSession", header.parent_session)):
            if value is not None and _UNSTORABLE.search(value):
                raise self._unrepresentable(f"the header's {name} {value!r}", header.id)

    def _check_events_storable(self, events: Sequence[Event]) -> None:
        for event in events:
            if _UNSTORABLE.search(event.type):
                raise self._unrepresentable(f"the event type {event.type!r} (seq {event.seq})", None)

    def _exists(self, session_id: str) -> bool:
        if not self._may_hold(session_id):
            return False
        return bool(
            self._read(
                session_id, "looking up", lambda c: c.execute(self._q.exists, (session_id,)).fetchone()
            )
        )

    def _load(self, session_id: str, expect: int | None, close_turn: bool = True) -> Loaded:
        admitter = LogAdmitter()
        try:
            # Plain runs of rows in bulk, the rest row by row (persistence._bulk): the same events.
            sid, header, rows, events = self._read_session(
                session_id,
                lambda conn: self._fetch(conn, session_id),
                admitter.admit_parsed,
                partial(rows_run, admitter),
            )
        except InvalidEventError as error:
            raise refusal(error, lambda seq: Where(self.path, None, f"row seq {seq}")) from None
        except CorruptStoreError:
            if expect is not None:
                raise self._conflict(session_id, expect, None) from None  # changed under us
            raise
        preserved = len(events)

        def repair(closers: list[Event]) -> None:
            self._repair(session_id, sid, rows, preserved, closers)

        return settle_load(
            Loaded(header, events, admitter, sid),
            len(rows),
            expect,
            close_turn,
            lambda: self._conflict(session_id, expect or 0, len(rows)),
            None if self.read_only else repair,
        )

    def _write(self, state: Tracked, events: Sequence[Event]) -> int:
        if self.read_only:
            raise self._read_only_refusal(state.header.id, f"on {self.path}", self.path)
        header = state.header
        session_id = header.id
        rows = [event_row(event) for event in events]
        q = self._q

        def body(conn: Conn) -> int:
            if not state.materialized:
                published = conn.execute(q.publish, session_row(header)).fetchone()
                if published is None:
                    raise self._conflict(session_id, 0, None, published=True)
                sid: int = published[0]
            else:
                locked = conn.execute(q.lock, (session_id,)).fetchone()
                if locked is None or locked[0] != state.token:
                    raise self._conflict(session_id, state.cursor, None, gone=True)
                sid = locked[0]
                last = conn.execute(q.last_seq, (sid,)).fetchone()[0]
                if last != (state.cursor - 1 if state.cursor else None):
                    raise self._conflict(session_id, state.cursor, None if last is None else last + 1)
            self._copy(conn, sid, rows)
            return sid

        try:
            return self._transaction(session_id, "appending to", body)
        except _InDoubt as doubt:
            return self._settle(header, state.cursor, rows, doubt.error)

    def _headers(self) -> Iterator[SessionHeader]:
        if self._nothing_stored():
            return
        rows = self._read(None, "listing", lambda conn: conn.execute(self._q.headers).fetchall())
        yield from readable_headers(rows, self.path)

    def _release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(self._pg.Error):
                conn.close()

    # -- reading ---------------------------------------------------------------------------

    def read_log(self, session_id: str) -> StoredLog:
        """The session's stored rows as they are (one read-only snapshot), and how many a load
        would cut -- read without writing (:mod:`dsh_session.persistence.stored_log`)."""
        stored = self._stored_rows(session_id)
        return StoredLog(self.path, stored.header, tuple(stored.records), stored.cut, None, None)

    def catalog(self) -> Catalog:
        """Every stored session's id with what keeps its header from being read (another format
        version, a damaged row) or None, sorted by id -- what ``list()`` passes over, named."""
        with self._lock:
            self._check_open()
            if self._nothing_stored():
                return ()
            rows = self._read(None, "listing", lambda conn: conn.execute(self._q.headers).fetchall())
            return catalog_rows(rows, self.path)

    def _stored_rows(self, session_id: str) -> _StoredRows:
        """The session as stored: its header row and event rows, read in one read-only
        transaction (one snapshot of both) and decoded as a load decodes them -- nothing is
        admitted, repaired or written. Raises what a load raises for an unknown session, a
        damaged header or damaged committed rows."""
        with self._lock:
            self._check_open()

            def query(conn: Conn) -> tuple[Any, list[Row]] | None:
                conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                try:
                    return self._fetch(conn, session_id)
                finally:
                    self._rollback(conn)  # read only: nothing to commit

            _, header, rows, records = self._read_session(session_id, query)
            return _StoredRows(header, records, [row[0] for row in rows], len(rows) - len(records))

    def _nothing_stored(self) -> bool:
        """Whether a read-only backend found no store in its schema (checked on each connect)."""
        if not self.read_only:
            return False
        self._connection(None)
        return self._empty

    def _may_hold(self, session_id: str) -> bool:
        """Whether the store can hold a session of this id at all (else it is not looked up):
        the database cannot store such an id, or a read-only backend found no store."""
        return not _UNSTORABLE.search(session_id) and not self._nothing_stored()

    def _read_session(
        self,
        session_id: str,
        fetch: Callable[[Conn], tuple[Any, list[Row]] | None],
        take: Callable[[dict[str, Any], bytes | None], Any] | None = None,
        bulk: Callable[[Sequence[Row]], list[Any] | None] | None = None,
    ) -> tuple[int, SessionHeader, list[Row], list[Any]]:
        """The session's ``sid``, header, event rows and the records of the rows a load keeps
        (or what ``take`` makes of each, ``bulk`` offered runs: :func:`kept_records`), read by ``fetch``
        (:meth:`_fetch` in some transaction); ``SESSION_NOT_FOUND`` when the store does not
        hold it."""
        found = self._read(session_id, "reading", fetch) if self._may_hold(session_id) else None
        if found is None:
            raise self._not_found(session_id, self.path)
        head, rows = found
        return head[0], header_row(head[1:], self.path), rows, kept_records(rows, self.path, take, bulk)

    def _fetch(self, conn: Conn, session_id: str) -> tuple[Any, list[Row]] | None:
        head = conn.execute(self._q.header, (session_id,)).fetchone()
        if head is None:
            return None
        return head, conn.execute(self._q.events, (head[0],)).fetchall()

    # -- writing ---------------------------------------------------------------------------

    def _copy(self, conn: Conn, sid: int, rows: list[Row]) -> None:
        with conn.cursor() as cursor, cursor.copy(self._q.copy) as copy:
            for row in rows:
                copy.write_row((sid, *row))

    def _repair(
        self, session_id: str, sid: int, rows: list[Row], preserved: int, closers: list[Event]
    ) -> None:
        q = self._q

        def body(conn: Conn) -> None:
            locked = conn.execute(q.lock, (session_id,)).fetchone()
            count, last = conn.execute(q.count_last, (sid,)).fetchone()
            if (
                locked is None
                or locked[0] != sid
                or count != len(rows)
                or last != (rows[-1][0] if rows else None)
            ):
                raise self._conflict(session_id, len(rows), count)
            if preserved != len(rows):
                conn.execute(q.cut, (sid, preserved))
            self._copy(conn, sid, [event_row(event) for event in closers])

        try:
            self._transaction(session_id, "repairing", body)
        except _InDoubt as doubt:
            raise self._lost(doubt.error, session_id, "repairing", committed=None) from None

    def _settle(self, header: SessionHeader, cursor: int, rows: list[Row], error: BaseException) -> int:
        """After a drop during the commit of a batch: reconnect once and read the rows back.

        Returns the session's ``sid`` when the batch is stored (with this header);
        raises ``STORE_CONNECTION_LOST`` (``committed`` False, or None when the
        server cannot be asked) or ``STORE_CONFLICT`` (another writer's rows are there).
        """
        session_id = header.id
        try:
            found = self._read(session_id, "checking", lambda conn: self._fetch(conn, session_id))
        except PersistenceError:
            raise self._lost(error, session_id, "appending to", committed=None) from None
        if found is not None:
            head, stored = found
            ours = (header.id, header.version, header.created_at, header.cwd, header.parent_session)
            if (
                tuple(head[1:6]) == ours
                and head[6] == header.seed_length
                and len(stored) == cursor + len(rows)
                and [tuple(row) for row in stored[cursor:]] == rows
            ):
                return int(head[0])  # the commit went through
            if len(stored) != cursor:
                raise self._conflict(session_id, cursor, len(stored))
        raise self._lost(error, session_id, "appending to", committed=False) from None

    # -- connections and transactions ------------------------------------------------------

    def _connection(self, session_id: str | None) -> Conn:
        """The open connection, or a new one (its schema checked again) after a drop."""
        conn = self._conn
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        self._conn = None
        pg = self._pg
        if conn is not None:
            with contextlib.suppress(pg.Error):
                conn.close()
        try:
            conn = pg.connect(self._dsn, **self._connect_args)
        except pg.Error as error:
            raise self._connect_error(error, session_id) from None
        try:
            encoding = conn.info.parameter_status("server_encoding")
            if encoding != "UTF8":
                raise UnrepresentableError(
                    Code.STORE_UNREPRESENTABLE,
                    f"{self.path}: the database's encoding is {encoding}, which cannot hold every "
                    "session string; use a database created with ENCODING 'UTF8'",
                    path=self.path,
                )
            if self.read_only:
                conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            conn.execute(self._q.set_lock_timeout, (f"{self._lock_timeout_ms}ms",))
            missing = check_schema(conn, self.schema, self.path)
            if missing and not self.read_only:
                initialise(conn, self.schema, self.path)
            self._empty = missing and self.read_only
        except pg.Error as error:
            self._conn = conn  # so that _typed sees whether it dropped
            try:
                raise self._typed(error, session_id, "opening the store") from None
            finally:
                self._conn = None
                conn.close()
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        return conn

    def _read(self, session_id: str | None, action: str, query: Callable[[Conn], T]) -> T:
        """Run a read; a connection found dropped is replaced once (reads can be repeated)."""
        for attempt in (1, 2):
            conn = self._connection(session_id)
            try:
                return query(conn)
            except self._pg.Error as error:
                if attempt == 1 and self._dropped(error):
                    continue
                raise self._typed(error, session_id, action) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _transaction(self, session_id: str, action: str, body: Callable[[Conn], T]) -> T:
        """``BEGIN``; body; ``COMMIT`` -- rolled back on any error, psycopg's errors typed.

        A connection found dropped at ``BEGIN`` (nothing sent yet) is replaced once.
        Raises :class:`_InDoubt` when the connection dropped during the commit.
        """
        pg = self._pg
        for attempt in (1, 2):
            conn = self._connection(session_id)
            try:
                conn.execute("BEGIN")
                break
            except pg.Error as error:
                if attempt == 1 and self._dropped(error):
                    continue
                raise self._typed(error, session_id, action) from None
        try:
            result = body(conn)
        except BaseException as error:
            self._rollback(conn)
            if isinstance(error, pg.Error):
                raise self._typed(error, session_id, action) from None
            raise
        try:
            self._commit(conn)
        except pg.Error as error:
            if self._dropped(error):
                raise _InDoubt(error) from None
            self._rollback(conn)
            raise self._typed(error, session_id, action) from None
        return result

    def _commit(self, conn: Conn) -> None:
        conn.execute("COMMIT")

    def _rollback(self, conn: Conn) -> None:
        if conn.closed or conn.broken:
            return  # the server rolls back what a dropped connection left open
        with contextlib.suppress(self._pg.Error):
            if conn.info.transaction_status != self._pg.pq.TransactionStatus.IDLE:
                conn.execute("ROLLBACK")

    def _dropped(self, error: Any) -> bool:
        """Whether ``error`` means the connection is gone (closed, broken, shut down by the server)."""
        state: str | None = getattr(error, "sqlstate", None)
        if state is not None and (state.startswith("08") or state.startswith("57P")):
            return True
        conn = self._conn
        return conn is None or conn.closed or conn.broken

    # -- errors ----------------------------------------------------------------------------

    def _typed(self, error: Any, session_id: str | None, action: str) -> PersistenceError:
        """The typed error for a psycopg error raised while ``action`` (a phrase) ran."""
        state: str | None = getattr(error, "sqlstate", None)
        if self._dropped(error):
            return self._lost(error, session_id, action, committed=False)
        what = _first_line(error)
        subject = f"{action} session {session_id!r} on" if session_id is not None else action
        where = self.path
        if state == "55P03":
            return StoreLockedError(
                Code.STORE_LOCKED,
                f"{subject} {where}: another writer held the session for longer than lock_timeout "
                f"({what}); retry later, or raise lock_timeout",
                path=where,
            )
        if state and (state.startswith("23") or state.startswith("40")):
            return StoreConflictError(
                Code.STORE_CONFLICT,
                f"{subject} {where}: {what} (SQLSTATE {state}); another writer stored these events -- "
                "nothing was written; load the session again",
                path=where,
            )
        if state in ("22021", "22P05"):
            return UnrepresentableError(
                Code.STORE_UNREPRESENTABLE,
                f"{subject} {where}: {what} (SQLSTATE {state}); the database cannot store this text",
                path=where,
            )
        hint = "fix the cause and retry the same call"
        if state == "42501":
            hint = "grant this role USAGE and CREATE on the schema (and CREATE on the database to make it)"
        return StoreIOError(
            f"{subject} {where} failed: {what}" + (f" (SQLSTATE {state})" if state else "") + f"; {hint}",
            path=where,
            errno=None,
        )

    def _lost(
        self, error: BaseException, session_id: str | None, action: str, *, committed: bool | None
    ) -> ConnectionLostError:
        if committed is None:
            outcome = (
                "the connection dropped while the commit was under way and the server could not be asked "
                "again, so the batch may or may not be stored: load the session to see before going on"
            )
        else:
            outcome = "nothing was written; retry once the server is back (the backend reconnects)"
        subject = f" session {session_id!r}" if session_id is not None else ""
        return ConnectionLostError(
            f"{action}{subject} on {self.path}: the connection to the server was lost "
            f"({_first_line(error)}); {outcome}",
            server=self.server,
            session_id=session_id,
            sqlstate=getattr(error, "sqlstate", None),
            committed=committed,
        )

    def _connect_error(self, error: Any, session_id: str | None) -> PersistenceError:
        text = _first_line(error, everything=True)
        lowered = text.lower()
        for_session = f" (for session {session_id!r})" if session_id is not None else ""
        pgconn = getattr(error, "pgconn", None)
        needs_password = bool(getattr(pgconn, "needs_password", False))
        if needs_password or any(hint in lowered for hint in _AUTH_HINTS):
            return StoreAuthError(
                Code.STORE_AUTH_FAILED,
                f"{self.server} refused the credentials{for_session}: {text}; check the user and password "
                "(DSN, PGPASSWORD or ~/.pgpass) and the server's pg_hba.conf",
                server=self.server,
                session_id=session_id,
            )
        return StoreUnreachableError(
            Code.STORE_UNREACHABLE,
            f"cannot connect to {self.server}{for_session}: {text}; check that the server runs and "
            "listens there, the host and port, and that the database exists",
            server=self.server,
            session_id=session_id,
        )

    def _conflict(
        self,
        session_id: str,
        expected: int,
        found: int | None,
        *,
        published: bool = False,
        gone: bool = False,
    ) -> StoreConflictError:
        if published:
            detail = "another writer published a session with this id first"
        elif gone:
            detail = "the session's row was removed or replaced"
        else:
            found_text = "no rows" if found is None else f"{found} event(s)"
            detail = f"the session holds {found_text}, this backend expected {expected}"
        return StoreConflictError(
            Code.STORE_CONFLICT,
            f"{self.path}: session {session_id!r}: {detail}; another writer changed it -- nothing was "
            "written; load the session again",
            path=self.path,
        )

    def _unrepresentable(self, what: str, session_id: str | None) -> UnrepresentableError:
        subject = f"session {session_id!r}: " if session_id is not None else ""
        return UnrepresentableError(
            Code.STORE_UNREPRESENTABLE,
            f"{self.path}: {subject}{what} holds a NUL or a lone surrogate, which a PostgreSQL text column "
            "cannot store; use the JSONL backend or a well-formed string",
            path=self.path,
        )


class _Queries:
    """The statements, with the schema's quoted name filled in once."""

    def __init__(self, s: str) -> None:
        self.set_lock_timeout = "SELECT pg_catalog.set_config('lock_timeout', %s, false)"
        self.exists = f"SELECT 1 FROM {s}.sessions WHERE id = %s"
        self.header = (
            f"SELECT sid, id, version, created_at, cwd, parent_session, seed_length FROM {s}.sessions "
            "WHERE id = %s"
        )
        self.headers = f"SELECT id, version, created_at, cwd, parent_session, seed_length FROM {s}.sessions"
        self.events = (
            f"SELECT seq, type, time, data, source_event_seqs, surface_op FROM {s}.events "
            "WHERE sid = %s ORDER BY seq"
        )
        self.publish = (
            f"INSERT INTO {s}.sessions (id, version, created_at, cwd, parent_session, seed_length) "
            "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING RETURNING sid"
        )
        self.lock = f"SELECT sid FROM {s}.sessions WHERE id = %s FOR NO KEY UPDATE"
        self.last_seq = f"SELECT max(seq) FROM {s}.events WHERE sid = %s"
        self.count_last = f"SELECT count(*), max(seq) FROM {s}.events WHERE sid = %s"
        self.cut = f"DELETE FROM {s}.events WHERE sid = %s AND seq >= %s"
        self.copy = f"COPY {s}.events (sid, seq, type, time, data, source_event_seqs, surface_op) FROM STDIN"


def _first_line(error: Any, *, everything: bool = False) -> str:
    """psycopg's message, without the password it never holds, on one line."""
    text = str(error).strip()
    if text.startswith("connection failed: "):
        text = text[len("connection failed: ") :]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    return " ".join(lines) if everything else lines[0]


def _server_label(params: dict[str, Any]) -> str:
    """``postgresql://user@host:port/dbname`` from the DSN's parts and libpq's defaults (no password)."""
    env = os.environ
    host = (
        params.get("host")
        or params.get("hostaddr")
        or env.get("PGHOST")
        or env.get("PGHOSTADDR")
        or "localhost"
    )
    port = params.get("port") or env.get("PGPORT") or "5432"
    user = params.get("user") or env.get("PGUSER")
    if not user:
        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = "?"
    dbname = params.get("dbname") or env.get("PGDATABASE") or user
    return f"postgresql://{user}@{host}:{port}/{dbname}"

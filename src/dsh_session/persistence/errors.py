"""Typed errors of the persistence layer (exported by :mod:`dsh_session.persistence`, whose
``__all__`` lists them).

Every error carries a registry code (the contract), a message that says what
is wrong, where, and what to do, and -- where they apply -- the ``path`` of the
store file, the physical ``line`` of a JSONL file (1 is the header) and the
``seq`` of the event (a SQLite row is named by its seq).
"""

from __future__ import annotations

from dsh_session.errors import Code, DshSessionError


class PersistenceError(DshSessionError):
    """Base of the errors a persistence backend raises on purpose; nothing was written."""

    def __init__(
        self,
        code: Code,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        seq: int | None = None,
    ) -> None:
        super().__init__(code, message, seq=seq)
        self.path = path
        self.line = line


class SessionNotFoundError(PersistenceError, LookupError):
    """``SESSION_NOT_FOUND``: the backend has no stored log for the id."""


class SessionExistsError(PersistenceError):
    """``SESSION_ALREADY_EXISTS``: ``create`` for an id that is tracked or already stored."""


class InvalidHeaderError(PersistenceError, ValueError):
    """``INVALID_HEADER``: a header that no load could read back (empty id, bad field types)."""


class CorruptStoreError(PersistenceError):
    """The stored log cannot be read as it is: ``STORE_CORRUPT`` (unreadable header, damage
    before the last committed turn, a stray record), or the code of the seed rule a stored
    event breaks (for example ``MISSING_SURFACE_OP``)."""


class IncompatibleStoreError(PersistenceError):
    """``STORE_VERSION_UNSUPPORTED`` (a session format other than 0) or
    ``STORE_SCHEMA_MISMATCH`` (a SQLite database of another layout); never migrated,
    never modified."""


class UnrepresentableError(PersistenceError, ValueError):
    """``STORE_UNREPRESENTABLE``: this backend cannot store the value faithfully (an id too
    long for a file name, a lone surrogate in a SQLite text column)."""


class StoreLockedError(PersistenceError):
    """``STORE_LOCKED``: another process held the session (or database) past the timeout."""


class StoreConflictError(PersistenceError):
    """``STORE_CONFLICT``: the stored log changed under this backend (another writer, a
    deleted or replaced file); load the session again."""


class StoreIOError(PersistenceError):
    """``STORE_IO``: the operating system refused a read or write; ``errno`` is its code.
    Nothing was committed: the file or database is as it was before the call."""

    def __init__(self, message: str, *, path: str | None, errno: int | None) -> None:
        PersistenceError.__init__(self, Code.STORE_IO, message, path=path)
        self.errno = errno


class StoreClosedError(PersistenceError):
    """``STORE_CLOSED``: the backend was closed."""


# -- the write coordinator ------------------------------------------------------------------


class SessionCollisionError(PersistenceError):
    """A live session cannot be bound to its id: what is stored under it belongs to another
    session (``ID_COLLISION_CWD``, ``ID_COLLISION_HEADER``, ``ID_COLLISION_LOG``), or the id is
    bound to another live session (``SESSION_ALREADY_BOUND``). ``session_id`` names the id."""

    def __init__(self, code: Code, message: str, *, session_id: str, seq: int | None = None) -> None:
        super().__init__(code, message, seq=seq)
        self.session_id = session_id


class UnboundSessionError(PersistenceError, LookupError):
    """``SESSION_NOT_LIVE``: the write coordinator does not persist this session object (it is
    not in the coordinator's store, and nothing of it is waiting to be written)."""

    def __init__(self, message: str, *, session_id: str) -> None:
        super().__init__(Code.SESSION_NOT_LIVE, message)
        self.session_id = session_id


class DrainError(PersistenceError):
    """``DRAIN_FAILED``: ``flush_all`` or ``close`` could not write every session.

    ``failures`` pairs each session id with its error, once per session; the
    other sessions were written. Unwritten events are still in their sessions.
    """

    def __init__(self, failures: tuple[tuple[str, Exception], ...]) -> None:
        detail = "; ".join(f"{session_id!r}: {error}" for session_id, error in failures)
        super().__init__(Code.DRAIN_FAILED, f"{len(failures)} session(s) could not be written: {detail}")
        self.failures = failures


# -- database servers, copying stores -------------------------------------------------------


class ServerError(PersistenceError):
    """Base of the errors about reaching a database server.

    ``server`` names it (``postgresql://user@host:port/dbname``, schema) -- never
    the password -- and is also ``path``; ``session_id`` is the session the
    operation was for, if any; ``sqlstate`` the server's SQLSTATE where it sent one.
    """

    def __init__(
        self,
        code: Code,
        message: str,
        *,
        server: str,
        session_id: str | None = None,
        sqlstate: str | None = None,
    ) -> None:
        super().__init__(code, message, path=server)
        self.server = server
        self.session_id = session_id
        self.sqlstate = sqlstate


class StoreUnreachableError(ServerError):
    """``STORE_UNREACHABLE``: no connection to the server could be made (refused, timed out,
    unknown host, no such database); nothing was read or written."""


class StoreAuthError(ServerError):
    """``STORE_AUTH_FAILED``: the server refused the credentials (wrong password, unknown
    role, no ``pg_hba.conf`` entry)."""


class ConnectionLostError(ServerError):
    """``STORE_CONNECTION_LOST``: the connection dropped during an operation. ``committed``
    says what became of the batch an ``append`` was storing: False -- nothing was written,
    retry; None -- unknown (the drop came with the commit and the server could not be asked
    again): load the session to see."""

    def __init__(
        self,
        message: str,
        *,
        server: str,
        session_id: str | None = None,
        sqlstate: str | None = None,
        committed: bool | None = False,
    ) -> None:
        super().__init__(
            Code.STORE_CONNECTION_LOST, message, server=server, session_id=session_id, sqlstate=sqlstate
        )
        self.committed = committed


class CopyMismatchError(PersistenceError):
    """``COPY_MISMATCH``: a session copied between backends does not load back equal from the
    destination; ``session_id`` names it, ``seq`` the first event that differs (if one does)."""

    def __init__(self, session_id: str, message: str, *, seq: int | None = None) -> None:
        super().__init__(Code.COPY_MISMATCH, message, seq=seq)
        self.session_id = session_id

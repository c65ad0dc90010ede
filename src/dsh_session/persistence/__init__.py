"""Durable storage for session logs: one interface, three backends.

- :class:`SessionBackend` -- the interface (``create``, ``append``, ``load``,
  ``list``, ``close``) and :class:`StoredSession`, what ``load`` returns;
- :class:`MemoryBackend` -- in memory (a shareable :class:`MemoryStore`);
- :class:`JsonlBackend` -- one JSONL file per session, the reference's layout;
- :class:`SqliteBackend` -- one SQLite database, the reference's v4 schema;
- :class:`PersistenceCoordinator` -- keeps the sessions of a ``SessionStore`` in a
  backend (write-behind, ``flush`` as the durability point, adoption, resume).
- :class:`PostgresBackend` -- one PostgreSQL schema, for many hosts (needs psycopg 3);
- :func:`copy_sessions` -- copy sessions between any two backends, verified;
  :func:`verify_copy` -- check a copy made earlier.

Files and rows are byte-for-byte what the TypeScript reference writes, so each
side loads the other's. Errors are typed (:mod:`dsh_session.persistence.errors`)
and carry registry codes.
"""

from dsh_session.persistence.errors import (
    CorruptStoreError,
    IncompatibleStoreError,
    InvalidHeaderError,
    PersistenceError,
    SessionExistsError,
    SessionNotFoundError,
    StoreClosedError,
    StoreConflictError,
    StoreIOError,
    StoreLockedError,
    UnrepresentableError,
)
from dsh_session.persistence.jsonl import JsonlBackend
from dsh_session.persistence.jsonl_layout import cwd_bucket, encode_segment
from dsh_session.persistence.memory import MemoryBackend, MemoryStore
from dsh_session.persistence.protocol import SessionBackend, StoredSession
from dsh_session.persistence.sqlite import SqliteBackend
from dsh_session.persistence.sqlite_schema import SCHEMA_VERSION

# isort: split
# -- the write coordinator, copying, PostgreSQL ------------------------------------------
from dsh_session.persistence.convert import copy_sessions, verify_copy
from dsh_session.persistence.coordinator import DEFAULT_FLUSH_ON, DEFAULT_MAX_PENDING, PersistenceCoordinator
from dsh_session.persistence.errors import (
    ConnectionLostError,
    CopyMismatchError,
    DrainError,
    ServerError,
    SessionCollisionError,
    StoreAuthError,
    StoreUnreachableError,
    UnboundSessionError,
)
from dsh_session.persistence.postgres import PostgresBackend
from dsh_session.persistence.postgres_schema import POSTGRES_SCHEMA_VERSION

__all__ = [
    "SCHEMA_VERSION",
    "CorruptStoreError",
    "IncompatibleStoreError",
    "InvalidHeaderError",
    "JsonlBackend",
    "MemoryBackend",
    "MemoryStore",
    "PersistenceError",
    "SessionBackend",
    "SessionExistsError",
    "SessionNotFoundError",
    "SqliteBackend",
    "StoreClosedError",
    "StoreConflictError",
    "StoreIOError",
    "StoreLockedError",
    "StoredSession",
    "UnrepresentableError",
    "cwd_bucket",
    "encode_segment",
]

# -- coord block --
__all__ += [
    "DEFAULT_FLUSH_ON",
    "DEFAULT_MAX_PENDING",
    "DrainError",
    "PersistenceCoordinator",
    "SessionCollisionError",
    "UnboundSessionError",
]
# -- postgres block --
__all__ += [
    "POSTGRES_SCHEMA_VERSION",
    "ConnectionLostError",
    "CopyMismatchError",
    "PostgresBackend",
    "ServerError",
    "StoreAuthError",
    "StoreUnreachableError",
    "copy_sessions",
    "verify_copy",
]

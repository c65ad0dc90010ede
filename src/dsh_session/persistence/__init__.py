"""Durable storage for session logs: one interface, three backends.

- :class:`SessionBackend` -- the interface (``create``, ``append``, ``load``,
  ``list``, ``close``) and :class:`StoredSession`, what ``load`` returns;
- :class:`MemoryBackend` -- in memory (a shareable :class:`MemoryStore`);
- :class:`JsonlBackend` -- one JSONL file per session, the reference's layout;
- :class:`SqliteBackend` -- one SQLite database, the reference's v4 schema;
- :class:`PostgresBackend` -- one PostgreSQL schema, for many hosts (needs psycopg 3);
- :func:`copy_sessions` -- copy sessions between any two backends, verified.

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
# -- postgres block: the PostgreSQL backend, copying between backends --
from dsh_session.persistence.convert import copy_sessions
from dsh_session.persistence.errors import (
    ConnectionLostError,
    CopyMismatchError,
    ServerError,
    StoreAuthError,
    StoreUnreachableError,
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
]

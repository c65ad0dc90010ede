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

from dsh_session.persistence.convert import copy_sessions, verify_copy
from dsh_session.persistence.coordinator import DEFAULT_FLUSH_ON, DEFAULT_MAX_PENDING, PersistenceCoordinator
from dsh_session.persistence.errors import (
    ConnectionLostError,
    CopyMismatchError,
    CorruptStoreError,
    DrainError,
    IncompatibleStoreError,
    InvalidHeaderError,
    PersistenceError,
    ServerError,
    SessionCollisionError,
    SessionExistsError,
    SessionNotFoundError,
    StoreAuthError,
    StoreClosedError,
    StoreConflictError,
    StoreIOError,
    StoreLockedError,
    StoreUnreachableError,
    UnboundSessionError,
    UnrepresentableError,
)
from dsh_session.persistence.jsonl import JsonlBackend
from dsh_session.persistence.jsonl_layout import cwd_bucket, encode_segment
from dsh_session.persistence.memory import MemoryBackend, MemoryStore
from dsh_session.persistence.postgres import PostgresBackend
from dsh_session.persistence.postgres_schema import POSTGRES_SCHEMA_VERSION
from dsh_session.persistence.protocol import SessionBackend, StoredSession
from dsh_session.persistence.sqlite import SqliteBackend
from dsh_session.persistence.sqlite_schema import SCHEMA_VERSION
from dsh_session.persistence.stored_log import (
    RepairReport,
    StoredLog,
    js_records,
    read_event_list,
    read_jsonl_log,
    repair_report,
)

__all__ = [
    "DEFAULT_FLUSH_ON",
    "DEFAULT_MAX_PENDING",
    "POSTGRES_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "ConnectionLostError",
    "CopyMismatchError",
    "CorruptStoreError",
    "DrainError",
    "IncompatibleStoreError",
    "InvalidHeaderError",
    "JsonlBackend",
    "MemoryBackend",
    "MemoryStore",
    "PersistenceCoordinator",
    "PersistenceError",
    "PostgresBackend",
    "RepairReport",
    "ServerError",
    "SessionBackend",
    "SessionCollisionError",
    "SessionExistsError",
    "SessionNotFoundError",
    "SqliteBackend",
    "StoreAuthError",
    "StoreClosedError",
    "StoreConflictError",
    "StoreIOError",
    "StoreLockedError",
    "StoreUnreachableError",
    "StoredLog",
    "StoredSession",
    "UnboundSessionError",
    "UnrepresentableError",
    "copy_sessions",
    "cwd_bucket",
    "encode_segment",
    "js_records",
    "read_event_list",
    "read_jsonl_log",
    "repair_report",
    "verify_copy",
]

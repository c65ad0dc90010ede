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

The package loads lazily: each name below is imported from its module when
it is first asked for, so a program that uses one backend does not import
the others (PostgreSQL's needs psycopg).
"""

from typing import TYPE_CHECKING

from dsh_session._lazy import lazy_names

if TYPE_CHECKING:
    from dsh_session.persistence.convert import copy_sessions, verify_copy
    from dsh_session.persistence.coordinator import (
        DEFAULT_FLUSH_ON,
        DEFAULT_MAX_PENDING,
        PersistenceCoordinator,
    )
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

#: Where each exported name lives: imported from there when first asked for.
_MODULES: dict[str, str] = {
    "copy_sessions": "convert",
    "verify_copy": "convert",
    "DEFAULT_FLUSH_ON": "coordinator",
    "DEFAULT_MAX_PENDING": "coordinator",
    "PersistenceCoordinator": "coordinator",
    "ConnectionLostError": "errors",
    "CopyMismatchError": "errors",
    "CorruptStoreError": "errors",
    "DrainError": "errors",
    "IncompatibleStoreError": "errors",
    "InvalidHeaderError": "errors",
    "PersistenceError": "errors",
    "ServerError": "errors",
    "SessionCollisionError": "errors",
    "SessionExistsError": "errors",
    "SessionNotFoundError": "errors",
    "StoreAuthError": "errors",
    "StoreClosedError": "errors",
    "StoreConflictError": "errors",
    "StoreIOError": "errors",
    "StoreLockedError": "errors",
    "StoreUnreachableError": "errors",
    "UnboundSessionError": "errors",
    "UnrepresentableError": "errors",
    "JsonlBackend": "jsonl",
    "cwd_bucket": "jsonl_layout",
    "encode_segment": "jsonl_layout",
    "MemoryBackend": "memory",
    "MemoryStore": "memory",
    "PostgresBackend": "postgres",
    "POSTGRES_SCHEMA_VERSION": "postgres_schema",
    "SessionBackend": "protocol",
    "StoredSession": "protocol",
    "SqliteBackend": "sqlite",
    "SCHEMA_VERSION": "sqlite_schema",
    "RepairReport": "stored_log",
    "StoredLog": "stored_log",
    "js_records": "stored_log",
    "read_event_list": "stored_log",
    "read_jsonl_log": "stored_log",
    "repair_report": "stored_log",
}

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


__getattr__, __dir__ = lazy_names("dsh_session.persistence", _MODULES, globals(), __all__)

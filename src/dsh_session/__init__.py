"""dsh_session: the dsh session log, its surface and the derived message history.

The fast, mutable-inside implementation. Its observable behaviour is that of
the executable specification in :mod:`dsh_spec`, errors included.
"""

from dsh_session._frozen import FrozenDict, FrozenList, thaw
from dsh_session.errors import Code, DshSessionError, InvalidEventError
from dsh_session.event import (
    APPEND,
    EVENT_KEY_ORDER,
    SESSION_FORMAT_VERSION,
    SURFACE_TYPES,
    Event,
    Replace,
    SessionHeader,
    SurfaceNode,
    SurfaceOp,
)
from dsh_session.json_value import NotJsonError, freeze, is_json_value
from dsh_session.persistence import (
    CorruptStoreError,
    IncompatibleStoreError,
    InvalidHeaderError,
    JsonlBackend,
    MemoryBackend,
    MemoryStore,
    PersistenceError,
    SessionBackend,
    SessionExistsError,
    SessionNotFoundError,
    SqliteBackend,
    StoreClosedError,
    StoreConflictError,
    StoredSession,
    StoreIOError,
    StoreLockedError,
    UnrepresentableError,
)
from dsh_session.projection import Message, derive_event_message
from dsh_session.repair import CLOSER_KEY_ORDER, interrupted_turn_closers
from dsh_session.session import Session, now_ms
from dsh_session.surface import SurfaceManager
from dsh_session.views import EventLog, MessageList

__all__ = [
    "APPEND",
    "CLOSER_KEY_ORDER",
    "EVENT_KEY_ORDER",
    "SESSION_FORMAT_VERSION",
    "SURFACE_TYPES",
    "Code",
    "CorruptStoreError",
    "DshSessionError",
    "Event",
    "EventLog",
    "FrozenDict",
    "FrozenList",
    "IncompatibleStoreError",
    "InvalidEventError",
    "InvalidHeaderError",
    "JsonlBackend",
    "MemoryBackend",
    "MemoryStore",
    "Message",
    "MessageList",
    "NotJsonError",
    "PersistenceError",
    "Replace",
    "Session",
    "SessionBackend",
    "SessionExistsError",
    "SessionHeader",
    "SessionNotFoundError",
    "SqliteBackend",
    "StoreClosedError",
    "StoreConflictError",
    "StoreIOError",
    "StoreLockedError",
    "StoredSession",
    "SurfaceManager",
    "SurfaceNode",
    "SurfaceOp",
    "UnrepresentableError",
    "derive_event_message",
    "freeze",
    "interrupted_turn_closers",
    "is_json_value",
    "now_ms",
    "thaw",
]

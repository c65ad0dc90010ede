"""dsh_session: the dsh session log, its surface and the derived message history.

The fast, mutable-inside implementation. Its observable behaviour is that of
the executable specification in :mod:`dsh_spec`, errors included.
"""

#: The version of this distribution (pyproject.toml reads it from here).
__version__ = "0.1.0"

from dsh_session._frozen import FrozenDict, FrozenList, thaw
from dsh_session.errors import (
    Code,
    DshSessionError,
    InvalidEventError,
    InvariantViolationError,
    ToolPairingError,
)
from dsh_session.event import (
    APPEND,
    EVENT_KEY_ORDER,
    SESSION_FORMAT_VERSION,
    SURFACE_TYPES,
    Event,
    LoggedEvent,
    Replace,
    SessionHeader,
    SurfaceNode,
    SurfaceOp,
)
from dsh_session.invariants import Violation, check_log
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
from dsh_session.tool_pairing import region_balanced, tool_pairing_balanced
from dsh_session.views import EventLog, MessageList

# isort: split
# -- store block: session store, fork, request headers ------------------------------
from dsh_session.fork import SessionForkError
from dsh_session.request_header import (
    EpochHeader,
    HeaderDelta,
    HeaderFold,
    RequestHeaderError,
    SystemDelta,
    ToolsDelta,
    apply_header_delta,
    apply_system,
    apply_tools,
    canonical_header,
    diff_header,
    diff_system,
    diff_tools,
    fold_request_header,
    header_equals,
    next_header_event,
)
from dsh_session.store import ObserverError, SessionMeta, SessionStore, SessionStoreError, StoreObserver

# isort: split
# -- coord block: the write coordinator ------------------------------------------------
# -- postgres block: the PostgreSQL backend, copying between backends ---------------
from dsh_session.persistence import (
    DEFAULT_FLUSH_ON,
    DEFAULT_MAX_PENDING,
    ConnectionLostError,
    CopyMismatchError,
    DrainError,
    PersistenceCoordinator,
    PostgresBackend,
    ServerError,
    SessionCollisionError,
    StoreAuthError,
    StoreUnreachableError,
    UnboundSessionError,
    copy_sessions,
    verify_copy,
)

# isort: split
# -- clifix block: every violation of a would-be seed --------------------------------
from dsh_session.seed_check import seed_violations

# isort: split
# -- rules block: runtime checks (agent status, loop-built requests) -----------------
from dsh_session.agent_status import AgentStatusError, AgentStatusMonitor, check_status_transitions
from dsh_session.request_check import LoopRequestError, check_loop_request

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
    "InvariantViolationError",
    "JsonlBackend",
    "LoggedEvent",
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
    "ToolPairingError",
    "UnrepresentableError",
    "Violation",
    "check_log",
    "derive_event_message",
    "freeze",
    "interrupted_turn_closers",
    "is_json_value",
    "now_ms",
    "region_balanced",
    "thaw",
    "tool_pairing_balanced",
]

# -- store block --
__all__ += [
    "EpochHeader",
    "HeaderDelta",
    "HeaderFold",
    "ObserverError",
    "RequestHeaderError",
    "SessionForkError",
    "SessionMeta",
    "SessionStore",
    "SessionStoreError",
    "StoreObserver",
    "SystemDelta",
    "ToolsDelta",
    "apply_header_delta",
    "apply_system",
    "apply_tools",
    "canonical_header",
    "diff_header",
    "diff_system",
    "diff_tools",
    "fold_request_header",
    "header_equals",
    "next_header_event",
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
    "ConnectionLostError",
    "CopyMismatchError",
    "PostgresBackend",
    "ServerError",
    "StoreAuthError",
    "StoreUnreachableError",
    "copy_sessions",
]
# -- integrate block --
__all__ += ["verify_copy"]
# -- clifix block --
__all__ += ["seed_violations"]
# -- rules block --
__all__ += [
    "AgentStatusError",
    "AgentStatusMonitor",
    "LoopRequestError",
    "check_loop_request",
    "check_status_transitions",
]
__all__ += ["__version__"]

"""The spec's models of storage, the store and the coordinator, as the machines import them.

They live in ``dsh_session.conformance`` today (issue 14 moves them into
``spec/``); the stateful machines import them from here only, so that move
touches this one file.
"""

from __future__ import annotations

from dsh_session.conformance.adapter import CodedError, Unsupported
from dsh_session.conformance.spec_coordinator import SpecCoordinator
from dsh_session.conformance.spec_persistence import (
    JsonlModel,
    MemoryModel,
    ModelBackend,
    SqliteModel,
    js_parse,
)
from dsh_session.conformance.spec_store import SpecSession, SpecStore

__all__ = [
    "CodedError",
    "JsonlModel",
    "MemoryModel",
    "ModelBackend",
    "SpecCoordinator",
    "SpecSession",
    "SpecStore",
    "SqliteModel",
    "Unsupported",
    "js_parse",
]

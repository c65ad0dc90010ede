"""The spec's models of storage, the store and the coordinator, as the machines import them.

They live in ``spec/dsh_spec`` (``store``, ``persistence``, ``coordinator``); the
stateful machines import them from here only.
"""

from __future__ import annotations

from dsh_spec.coordinator import SpecCoordinator
from dsh_spec.persistence import JsonlModel, MemoryModel, ModelBackend, SqliteModel, js_parse
from dsh_spec.refusal import Refused, Unmodelled
from dsh_spec.store import SpecSession, SpecStore

__all__ = [
    "JsonlModel",
    "MemoryModel",
    "ModelBackend",
    "Refused",
    "SpecCoordinator",
    "SpecSession",
    "SpecStore",
    "SqliteModel",
    "Unmodelled",
    "js_parse",
]

"""The in-memory backend: the contract without the disk.

Sessions live in a :class:`MemoryStore`, which several backend instances may
share -- that is how tests stand in for "the same storage, opened again".
Stored events are the admitted, immutable events themselves, so nothing needs
copying. There is no crash to recover from, but ``load`` still validates the
stored log as a seed and closes an open turn, like every backend.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from dsh_session.errors import Code
from dsh_session.event import Event, SessionHeader
from dsh_session.persistence._base import BackendBase, Loaded, Tracked, Where, admit_stored, close_open_turn
from dsh_session.persistence._codec import check_version
from dsh_session.persistence.errors import StoreConflictError

__all__ = ["MemoryBackend", "MemoryStore"]

_PATH = "<memory>"


@dataclass
class MemoryStore:
    """The storage behind :class:`MemoryBackend`: each session's header and events."""

    sessions: dict[str, tuple[SessionHeader, list[Event]]] = field(default_factory=dict)


class MemoryBackend(BackendBase):
    """A backend that keeps sessions in memory (in ``store``, a new one by default)."""

    def __init__(self, store: MemoryStore | None = None) -> None:
        super().__init__()
        self.store = store if store is not None else MemoryStore()

    def _exists(self, session_id: str) -> bool:
        return session_id in self.store.sessions

    def _load(self, session_id: str, expect: int | None, close_turn: bool = True) -> Loaded:
        stored = self.store.sessions.get(session_id)
        if stored is None:
            raise self._not_found(session_id)
        header, log = stored
        check_version(header.version, header.id, path=_PATH)
        if expect is not None and len(log) != expect:
            raise self._conflict(session_id, expect, len(log))
        events, admitter = admit_stored(log, lambda index: Where(_PATH, None, f"seq {index}"))
        if expect is None:
            log.extend(close_open_turn(events, admitter, close_turn))
        return Loaded(header, events, admitter, len(log))

    def _write(self, state: Tracked, events: Sequence[Event]) -> int:
        sessions = self.store.sessions
        session_id = state.header.id
        if not state.materialized:
            if session_id in sessions:
                raise self._conflict(session_id, 0, len(sessions[session_id][1]))
            sessions[session_id] = (state.header, list(events))
            return len(events)
        stored = sessions.get(session_id)
        if stored is None or len(stored[1]) != state.cursor:
            raise self._conflict(session_id, state.cursor, None if stored is None else len(stored[1]))
        stored[1].extend(events)
        return len(stored[1])

    def _headers(self) -> Iterator[SessionHeader]:
        for header, _log in self.store.sessions.values():
            if header.version == 0:
                yield header

    def _conflict(self, session_id: str, expected: int, found: int | None) -> StoreConflictError:
        found_text = "no log" if found is None else f"{found} event(s)"
        return StoreConflictError(
            Code.STORE_CONFLICT,
            f"session {session_id!r}: the store holds {found_text}, this backend expected {expected}; "
            "another writer changed it -- load the session again",
            path=_PATH,
        )

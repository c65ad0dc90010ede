"""The one interface every persistence backend implements."""

from collections.abc import Iterable
from typing import NamedTuple, Protocol, runtime_checkable

from dsh_session.event import Event, SessionHeader

__all__ = ["SessionBackend", "StoredSession"]


class StoredSession(NamedTuple):
    """A loaded session: its header and its events (seq 0, 1, 2, ...), repaired."""

    header: SessionHeader
    events: tuple[Event, ...]


@runtime_checkable
class SessionBackend(Protocol):
    """Durable storage for session logs.

    - ``create(header)`` registers a new session; nothing is written until its
      first non-empty ``append`` (a session without events leaves no trace).
      Refused when the id is tracked or stored (``SESSION_ALREADY_EXISTS``) or the
      header could not be loaded back (``INVALID_HEADER``,
      ``STORE_VERSION_UNSUPPORTED``, ``STORE_UNREPRESENTABLE``).
    - ``append(id, events)`` stores one contiguous batch and returns once it is
      durable (that is the durability point). The batch must continue the
      stored log (``SEQ_NOT_CONTIGUOUS``) and every event must pass the rules of
      the log, as in ``Session.append``; a refused batch writes nothing. A
      session stored but not yet loaded by this backend is loaded (and repaired)
      first. An empty batch writes nothing.
    - ``load(id)`` reads the stored log, cuts a torn tail, closes an open turn
      with the crash closers (``dsh_session.interrupted_turn_closers``), makes
      that repair durable and returns the result. The log must pass the seed's
      rules; any failure names the file and line or the row. Nothing is changed
      on disk except that repair. ``load(id, close_turn=False)`` leaves an open
      turn open (for a live session that continues the log and will end the
      turn itself); a torn tail is still cut.
    - ``list()`` returns the headers of the stored sessions, sorted by id.
    - ``close()`` releases the backend; later calls raise ``STORE_CLOSED``.
    """

    def create(self, header: SessionHeader) -> None: ...

    def append(self, session_id: str, events: Iterable[Event]) -> None: ...

    def load(self, session_id: str, *, close_turn: bool = True) -> StoredSession: ...

    def list(self) -> tuple[SessionHeader, ...]: ...

    def close(self) -> None: ...

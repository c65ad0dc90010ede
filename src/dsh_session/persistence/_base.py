"""What every backend shares: the session bookkeeping and the load pipeline.

A backend keeps, for each session it has created, loaded or appended to, its
header, its *cursor* (the seq the next append must start at), whether it is
*materialized* (stored at all) and the surface admitted so far. Storage
specifics live in subclasses, behind a handful of hooks; the rules live here,
so every backend enforces the same ones:

- ``create`` writes nothing (lazy materialization);
- ``append`` checks contiguity and admits every event before anything is
  written; a failed write leaves the cursor where it was, so the batch can be
  retried;
- ``load`` validates the stored log as a seed, closes an open turn and has the
  backend make that repair durable.

One lock serializes the public operations of a backend instance, so it may be
shared between threads. Other processes are kept out by the backend (a file
lock for JSONL, SQLite's own locking), and a write is refused with
``STORE_CONFLICT`` when the stored log is not the one this instance last saw.
"""

import errno
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Self

from dsh_session._stack import with_headroom
from dsh_session.errors import Code, InvalidEventError
from dsh_session.event import Event, SessionHeader
from dsh_session.persistence._admit import LogAdmitter
from dsh_session.persistence._codec import check_header
from dsh_session.persistence.errors import (
    CorruptStoreError,
    SessionExistsError,
    SessionNotFoundError,
    StoreClosedError,
    StoreIOError,
)
from dsh_session.persistence.protocol import StoredSession
from dsh_session.repair import interrupted_turn_closers


@dataclass
class Tracked:
    """A session this backend instance knows about."""

    header: SessionHeader
    cursor: int
    materialized: bool
    admitter: LogAdmitter | None  # None: stale after a refused batch; rebuilt from storage
    token: Any = None  # the backend's note of what it last saw on disk


class Loaded(NamedTuple):
    """A stored log read and admitted by a backend (closers included, repair done)."""

    header: SessionHeader
    events: list[Event]
    admitter: LogAdmitter
    token: Any


class Where(NamedTuple):
    """Where a stored record sits, for error messages."""

    path: str
    line: int | None  # JSONL: physical line (1 is the header)
    label: str  # "line 7" or "row seq 5"


def refusal(error: Exception, where: Callable[[int], Where]) -> Exception:
    """A stored event's refusal by the seed's rules, as a load reports it: a
    :class:`CorruptStoreError` with the rule's code, naming the file and line or
    row (``where(seq)``). Anything else is returned as it is."""
    if not isinstance(error, InvalidEventError):
        return error
    assert error.seq is not None
    place = where(error.seq)
    return CorruptStoreError(
        error.code,
        f"{place.path}: {place.label}: the stored event breaks a rule of the log: {error.message}. "
        "The log cannot seed a session; repair or remove that event by hand",
        path=place.path,
        line=place.line,
        seq=error.seq,
    )


def admit_one(admitter: LogAdmitter, index: int, record: Any, where: Callable[[int], Where]) -> Event:
    """Admit the stored ``record`` at ``index`` (an event, or a JSON object from a parser)."""
    try:
        if type(record) is dict:
            return admitter.admit_parsed(record)
        if isinstance(record, Event):
            return admitter.admit(record)
    except InvalidEventError as error:
        raise refusal(error, where) from None
    place = where(index)
    raise CorruptStoreError(
        Code.MALFORMED_EVENT,
        f"{place.path}: {place.label}: the stored record is not an event object",
        path=place.path,
        line=place.line,
        seq=index,
    )


def admit_stored(
    records: Iterable[Any], where: Callable[[int], Where], admitter: LogAdmitter | None = None
) -> tuple[list[Event], LogAdmitter]:
    """Admit stored records as a seed; a refusal names the file and line or row (``where(index)``).

    ``records`` are events or JSON objects fresh from a loader's parser.
    """
    admitter = admitter or LogAdmitter()
    return [admit_one(admitter, index, record, where) for index, record in enumerate(records)], admitter


def close_open_turn(events: list[Event], admitter: LogAdmitter, close_turn: bool = True) -> list[Event]:
    """Append the crash closers to ``events`` (admitted, so the surface stays current); return them.

    With ``close_turn`` false (``load(..., close_turn=False)``: a live session
    taking its stored log over, which will end its turn itself) there are none,
    and the log is left open.
    """
    if not close_turn:
        return []
    closers = [admitter.admit(event) for event in interrupted_turn_closers(events)]
    events.extend(closers)
    return closers


def settle_load(
    loaded: Loaded,
    stored: int,
    expect: int | None,
    close_turn: bool,
    conflict: Callable[[], Exception],
    repair: Callable[[list[Event]], None] | None,
) -> Loaded:
    """The end of a database backend's load: ``loaded`` holds the events kept of ``stored`` rows.

    A re-read (``expect`` set) must find exactly that many events and no torn tail, else it raises
    ``conflict()``. A load closes an open turn (:func:`close_open_turn`) and hands the closers to
    ``repair`` (``None`` for a read-only backend) when there are any or a torn tail was cut.
    """
    events = loaded.events
    preserved = len(events)
    if expect is not None:
        if preserved != expect or preserved != stored:
            raise conflict()
        return loaded
    closers = close_open_turn(events, loaded.admitter, close_turn)
    if (preserved != stored or closers) and repair is not None:
        repair(closers)
    return loaded


class BackendBase:
    """The shared half of a backend; subclasses implement the storage hooks below."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._tracked: dict[str, Tracked] = {}
        self._closed = False

    # -- storage hooks --------------------------------------------------------------------

    def _check_storable(self, header: SessionHeader) -> None:
        """Refuse a header this backend cannot store faithfully."""

    def _check_events_storable(self, events: Sequence[Event]) -> None:
        """Refuse events this backend cannot store faithfully."""

    def _exists(self, session_id: str) -> bool:
        raise NotImplementedError

    def _load(self, session_id: str, expect: int | None, close_turn: bool = True) -> Loaded:
        """Read, admit and -- when ``expect`` is None -- repair durably the stored log
        (the closers come from :func:`close_open_turn`; none when ``close_turn`` is false).

        With ``expect`` set, only re-read: the stored log must hold exactly that
        many events and no torn tail, or the read fails with ``STORE_CONFLICT``.
        Raises ``SESSION_NOT_FOUND`` when nothing is stored.
        """
        raise NotImplementedError

    def _write(self, state: Tracked, events: Sequence[Event]) -> Any:
        """Store ``events`` durably after the ``state.cursor`` events stored so far, first
        publishing the header when ``state.materialized`` is false; return the new token."""
        raise NotImplementedError

    def _headers(self) -> Iterator[SessionHeader]:
        raise NotImplementedError

    def _release(self) -> None:
        """Free what the backend holds (called once, by ``close``)."""

    @staticmethod
    def _read_only_refusal(session_id: str, where: str, path: str) -> StoreIOError:
        """What a write to a backend opened ``read_only`` raises; ``where`` names the store."""
        return StoreIOError(
            f"appending to session {session_id!r} {where}: this backend was opened read_only; "
            "open another one to write",
            path=path,
            errno=errno.EROFS,
        )

    # -- the interface -------------------------------------------------------------------

    def create(self, header: SessionHeader) -> None:
        """Register a new session; nothing is stored before its first events."""
        with self._lock:
            self._check_open()
            check_header(header)
            self._check_storable(header)
            if header.id in self._tracked:
                raise SessionExistsError(
                    Code.SESSION_ALREADY_EXISTS,
                    f"session {header.id!r} already exists in this backend; pick another id",
                )
            if self._exists(header.id):
                raise SessionExistsError(
                    Code.SESSION_ALREADY_EXISTS,
                    f"session {header.id!r} already has a stored log; load it instead of creating it",
                )
            self._tracked[header.id] = Tracked(header, 0, False, LogAdmitter())

    def append(self, session_id: str, events: Iterable[Event]) -> None:
        """Store a batch that continues the session's log; returns once it is durable."""
        batch = list(events)
        strays = [type(event).__name__ for event in batch if not isinstance(event, Event)]
        if strays:
            raise TypeError(f"append takes dsh_session.Event objects, got {', '.join(sorted(set(strays)))}")
        with self._lock:
            self._check_open()
            state = self._tracked.get(session_id)
            if not batch:
                if state is None and not self._exists(session_id):
                    raise self._not_found(session_id)
                return
            if state is None:
                state, _ = self._adopt(session_id)
            for index, event in enumerate(batch):
                if event.seq != state.cursor + index:
                    raise InvalidEventError(
                        Code.SEQ_NOT_CONTIGUOUS,
                        f"append to {session_id!r}: expected seq {state.cursor + index} at index {index} "
                        f"of the batch, got {event.seq!r}; the stored log has {state.cursor} event(s)",
                        seq=state.cursor + index,
                        event_type=event.type,
                    )
            admitter = state.admitter
            if admitter is None:  # rebuild what a refused batch spoilt, from storage
                admitter = LogAdmitter()
                if state.materialized:
                    admitter = with_headroom(self._load, session_id, state.cursor).admitter
                state.admitter = admitter
            try:
                admitted = [admitter.admit(event) for event in batch]
                self._check_events_storable(admitted)
                state.token = self._write(state, admitted)
            except BaseException:
                state.admitter = None  # it has folded part of a batch that was not stored
                raise
            state.cursor += len(admitted)
            state.materialized = True

    def load(self, session_id: str, *, close_turn: bool = True) -> StoredSession:
        """Read the session's stored log, repaired (torn tail cut, open turn closed).

        With ``close_turn=False`` an open turn is left open (only a torn tail is
        cut): for a live session that continues the stored log and ends its turn
        itself (the write coordinator's adoption).
        """
        with self._lock:
            self._check_open()
            _, loaded = self._adopt(session_id, close_turn)
            return StoredSession(loaded.header, tuple(loaded.events))

    def list(self) -> tuple[SessionHeader, ...]:
        """The headers of the stored sessions, sorted by id."""
        with self._lock:
            self._check_open()
            return tuple(sorted(self._headers(), key=lambda header: header.id))

    def close(self) -> None:
        """Release the backend. Idempotent; every later call raises ``STORE_CLOSED``."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._tracked.clear()
                self._release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- helpers --------------------------------------------------------------------------

    def _adopt(self, session_id: str, close_turn: bool = True) -> tuple[Tracked, Loaded]:
        """Load (and repair) the stored session and track it as loaded."""
        loaded = with_headroom(self._load, session_id, None, close_turn)  # from any caller's stack
        state = Tracked(loaded.header, len(loaded.events), True, loaded.admitter, loaded.token)
        self._tracked[session_id] = state
        return state, loaded

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError(Code.STORE_CLOSED, f"{type(self).__name__} is closed; open a new one")

    def _not_found(self, session_id: str, where: str = "") -> SessionNotFoundError:
        suffix = f" in {where}" if where else ""
        return SessionNotFoundError(
            Code.SESSION_NOT_FOUND,
            f"session {session_id!r} not found{suffix}; create it first or check the id",
        )

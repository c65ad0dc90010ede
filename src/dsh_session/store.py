"""The session store: the live sessions of a process, their ids, forks and an event feed.

Sessions are built (:meth:`SessionStore.prepare`), entered (:meth:`~SessionStore.enter`,
which returns the detach function) and announced (:meth:`~SessionStore.announce`);
:meth:`~SessionStore.create` does all three and undoes the entry if the
announcement fails. Observers (:class:`StoreObserver`) hear of every
announced session and of every event appended to an entered one.

Delivery rules (the reference gets them wrong, ``core.md`` §12 B11):

- an append is committed before anyone hears of it, and nothing an observer
  does can undo it or make ``append`` raise: a failing ``session_event`` is
  reported to ``on_observer_error`` (default: logged) and the other observers
  still hear of the event;
- notifications go out one at a time: an event appended by an observer while
  it is being notified is queued and delivered after the current one, so every
  observer hears every session's events in seq order;
- ``announce`` notifies at once (even from inside a notification), then
  raises :class:`ObserverError` if any ``session_created`` failed.
"""

from __future__ import annotations

import builtins
import logging
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dsh_session.errors import Code, DshSessionError
from dsh_session.event import Event, SessionHeader
from dsh_session.fork import SessionForkError, fork_prefix
from dsh_session.session import Session, now_ms

__all__ = ["ObserverError", "SessionMeta", "SessionStore", "SessionStoreError", "StoreObserver"]

_log = logging.getLogger("dsh_session.store")

Seed = Iterable[Event | Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class SessionMeta:
    """What goes into a new session's header besides its id.

    ``cwd`` must be absolute (start with ``/``); ``created_at`` defaults to the
    store's clock; ``parent_session`` and ``seed_length`` are recorded as given.
    """

    cwd: str | None = None
    parent_session: str | None = None
    created_at: int | None = None
    seed_length: int | None = None


class StoreObserver:
    """Hears of the store's sessions. Subclass and override what you need."""

    def session_created(self, session: Session) -> None:
        """``session`` was announced (it is entered, unless its creator rolled back)."""

    def session_event(self, session: Session, event: Event) -> None:
        """``event`` was appended to ``session`` (already committed)."""


class SessionStoreError(DshSessionError):
    """The store refused a session; nothing was registered.

    Codes: ``SESSION_ALREADY_EXISTS``, ``SESSION_ALREADY_ENTERED``, ``CWD_NOT_ABSOLUTE``.
    """

    def __init__(self, code: Code, message: str, *, session_id: str) -> None:
        super().__init__(code, message)
        self.session_id = session_id


class ObserverError(DshSessionError):
    """One or more observers raised while being notified (code ``OBSERVER_FAILED``).

    ``failures`` pairs each failing observer with its exception (the first is
    also ``__cause__``); ``seq`` is the event's seq, ``None`` for ``session_created``.
    """

    def __init__(
        self,
        session_id: str,
        seq: int | None,
        failures: tuple[tuple[StoreObserver, Exception], ...],
    ) -> None:
        what = "session_created" if seq is None else f"session_event for seq {seq}"
        reasons = "; ".join(f"{type(o).__name__}: {e!r}" for o, e in failures)
        super().__init__(
            Code.OBSERVER_FAILED,
            f'{what} of session "{session_id}" failed in {len(failures)} observer(s): {reasons}',
            seq=seq,
        )
        self.session_id = session_id
        self.failures = failures


def _log_observer_error(error: ObserverError) -> None:
    """The default report of a failed notification (a failed automatic flush, say): one line with
    the code on the ``dsh_session.store`` logger; the traceback only when that logger is set to
    ``DEBUG`` (``logging.getLogger("dsh_session").setLevel(logging.DEBUG)``)."""
    cause = error.__cause__ if _log.isEnabledFor(logging.DEBUG) else None
    what = "session_created" if error.seq is None else f"session_event for seq {error.seq}"
    reasons = "; ".join(f"{type(observer).__name__}: {failure}" for observer, failure in error.failures)
    line = f'[{error.code}] {what} of session "{error.session_id}" failed: {reasons}'
    _log.error("%s", " ".join(line.split()), exc_info=cause)


def _check_cwd(sid: str, cwd: str | None) -> None:
    if cwd is not None and not cwd.startswith("/"):
        raise SessionStoreError(
            Code.CWD_NOT_ABSOLUTE,
            f'session "{sid}": cwd must be an absolute path, got {cwd!r}',
            session_id=sid,
        )


class SessionStore:
    """The live sessions, by id, in the order they were entered.

    ``clock`` (milliseconds) stamps ``createdAt`` and the events of the
    sessions the store builds. ``on_observer_error`` receives each
    :class:`ObserverError` from event delivery (default: logged to
    ``dsh_session.store``); it is never raised from ``append``.
    ``invariants`` is the default for the sessions the store builds: when
    true, each is held to the live invariants (``Session(invariants=True)``),
    and a fork's child inherits its parent's setting.
    """

    def __init__(
        self,
        *,
        clock: Callable[[], int] | None = None,
        on_observer_error: Callable[[ObserverError], None] | None = None,
        invariants: bool = False,
    ) -> None:
        self._clock = clock or now_ms
        self._invariants = bool(invariants)
        self._on_observer_error = on_observer_error or _log_observer_error
        self._sessions: dict[str, Session] = {}
        self._hooks: dict[str, Callable[[Session, Event], None]] = {}
        self._counter = 0
        self._observers: dict[int, StoreObserver] = {}
        self._queue: deque[tuple[Session, Event]] = deque()
        self._delivering = False

    # -- building and registering -----------------------------------------------------------------

    def _mint(self) -> tuple[str, int]:
        """The next free ``session-N`` (ids already live are skipped) and its N."""
        number = self._counter + 1
        while f"session-{number}" in self._sessions:
            number += 1
        return f"session-{number}", number

    @property
    def invariants(self) -> bool:
        """Whether the sessions this store builds check the log invariants by default."""
        return self._invariants

    def prepare(
        self,
        id: str | None = None,
        *,
        seed: Seed | None = None,
        meta: SessionMeta | None = None,
        invariants: bool | None = None,
    ) -> Session:
        """Build a session without registering it.

        ``id`` defaults to the next free ``session-N``; the counter moves only
        when the session is built. ``invariants`` (default: the store's) holds
        the session, its seed included, to the live invariants. Raises :class:`SessionStoreError`
        (``SESSION_ALREADY_EXISTS``, ``CWD_NOT_ABSOLUTE``) or
        :class:`~dsh_session.InvalidEventError` for a bad seed.
        """
        meta = meta or SessionMeta()
        minted = None
        if id is None:
            id, minted = self._mint()
        if id in self._sessions:
            raise SessionStoreError(
                Code.SESSION_ALREADY_EXISTS, f'session "{id}" already exists', session_id=id
            )
        _check_cwd(id, meta.cwd)
        header = SessionHeader(
            id=id,
            created_at=meta.created_at if meta.created_at is not None else self._clock(),
            cwd=meta.cwd,
            parent_session=meta.parent_session,
            seed_length=meta.seed_length,
        )
        checked = self._invariants if invariants is None else bool(invariants)
        session = Session(id, seed, header, clock=self._clock, invariants=checked)
        if minted is not None:
            self._counter = minted
        return session

    def enter(self, session: Session) -> Callable[[], None]:
        """Register ``session`` and feed its appends to observers; returns ``detach``.

        ``detach`` undoes exactly this entry: it is idempotent and does nothing
        once the session was detached, so it never removes a later session
        entered under the same id. Raises :class:`SessionStoreError`:
        ``SESSION_ALREADY_EXISTS`` (the id is live), ``SESSION_ALREADY_ENTERED``
        (the object is entered in a store), ``CWD_NOT_ABSOLUTE``.
        """
        sid = session.id
        if sid in self._sessions:
            raise SessionStoreError(
                Code.SESSION_ALREADY_EXISTS, f'session "{sid}" already exists', session_id=sid
            )
        if session._append_hook is not None:
            raise SessionStoreError(
                Code.SESSION_ALREADY_ENTERED,
                f'session "{sid}" is already entered in a store; detach it first',
                session_id=sid,
            )
        _check_cwd(sid, session.header.cwd)
        hook = self._on_append
        session._append_hook = hook
        self._sessions[sid] = session
        self._hooks[sid] = hook

        def detach() -> None:
            if session._append_hook is not hook:
                return
            session._append_hook = None
            if self._sessions.get(sid) is session:
                del self._sessions[sid]
                del self._hooks[sid]

        return detach

    def announce(self, session: Session) -> None:
        """Tell every observer about ``session``; :class:`ObserverError` if any failed.

        Every observer is told even when an earlier one fails.
        """
        outer = self._delivering
        self._delivering = True
        failures: list[tuple[StoreObserver, Exception]] = []
        try:
            for key, observer in tuple(self._observers.items()):
                if self._observers.get(key) is not observer:
                    continue  # unsubscribed meanwhile
                try:
                    observer.session_created(session)
                except Exception as error:
                    failures.append((observer, error))
        finally:
            self._delivering = outer
        if not outer:
            self._drain()
        if failures:
            raise ObserverError(session.id, None, tuple(failures)) from failures[0][1]

    def create(
        self,
        id: str | None = None,
        *,
        seed: Seed | None = None,
        meta: SessionMeta | None = None,
        invariants: bool | None = None,
    ) -> Session:
        """:meth:`prepare`, :meth:`enter` and :meth:`announce`; if announcing fails, detach and raise.

        A refusal by :meth:`prepare` mints nothing; a session rolled back after its
        announcement keeps a minted id used, since the observers have heard of it.
        """
        session = self.prepare(id, seed=seed, meta=meta, invariants=invariants)
        detach = self.enter(session)
        try:
            self.announce(session)
        except BaseException:
            detach()
            raise
        return session

    def remove(self, session: Session | str) -> bool:
        """Detach the live session (given by object or id); False if it was not live."""
        live = self._sessions.get(session if isinstance(session, str) else session.id)
        if live is None or (not isinstance(session, str) and live is not session):
            return False
        sid = live.id
        if live._append_hook is self._hooks[sid]:
            live._append_hook = None
        del self._sessions[sid]
        del self._hooks[sid]
        return True

    # -- reading ----------------------------------------------------------------------------------

    def get(self, id: str) -> Session | None:
        """The live session with this id, if any."""
        return self._sessions.get(id)

    def list(self) -> builtins.list[Session]:
        """The live sessions in the order they were entered (a new list)."""
        return list(self._sessions.values())

    def __contains__(self, id: object) -> bool:
        return id in self._sessions

    def __len__(self) -> int:
        return len(self._sessions)

    # -- fork -------------------------------------------------------------------------------------

    def fork(
        self,
        source: Session | str,
        boundary: int | float | None = None,
        child_id: str | None = None,
        *,
        invariants: bool | None = None,
    ) -> Session:
        """A new live session seeded with ``source``'s events ``0 .. boundary``.

        ``boundary`` must be a ``turn/end`` seq (default: the last event; an
        empty source gives an empty child). The child records
        ``parentSession``, ``seedLength = boundary + 1`` and the source's cwd,
        and checks the invariants when its parent does (unless ``invariants``
        says otherwise).
        Raises :class:`SessionForkError`, checking in this order: a taken
        ``child_id`` (``SESSION_ALREADY_EXISTS``), the source
        (``SESSION_NOT_FOUND``, ``SESSION_NOT_LIVE``), the boundary
        (``INVALID_BOUNDARY``, ``OPEN_TURN``). A fork refused by these checks
        creates nothing and mints no id; one whose child a ``session_created``
        observer refuses is rolled back (:class:`ObserverError`) and, like
        :meth:`create`, leaves a minted child id used.
        """
        if child_id is not None and child_id in self._sessions:
            raise SessionForkError(
                Code.SESSION_ALREADY_EXISTS, f'session "{child_id}" already exists', session_id=child_id
            )
        parent = self._fork_source(source)
        seed = fork_prefix(parent, boundary)
        meta = SessionMeta(cwd=parent.header.cwd, parent_session=parent.id, seed_length=len(seed))
        checked = parent.invariants if invariants is None else invariants
        return self.create(child_id, seed=seed, meta=meta, invariants=checked)

    def _fork_source(self, source: Session | str) -> Session:
        sid = source if isinstance(source, str) else source.id
        live = self._sessions.get(sid)
        if live is None:
            raise SessionForkError(Code.SESSION_NOT_FOUND, f'session "{sid}" not found', session_id=sid)
        if not isinstance(source, str) and live is not source:
            raise SessionForkError(
                Code.SESSION_NOT_LIVE, f'session "{sid}" is not the live store instance', session_id=sid
            )
        return live

    # -- observers --------------------------------------------------------------------------------

    def subscribe(self, observer: StoreObserver) -> Callable[[], None]:
        """Start notifying ``observer`` (once, however often subscribed); returns unsubscribe."""
        self._observers.setdefault(id(observer), observer)
        return lambda: self.unsubscribe(observer)

    def unsubscribe(self, observer: StoreObserver) -> None:
        """Stop notifying ``observer`` at once, even mid-notification; unknown observers are ignored."""
        if self._observers.get(id(observer)) is observer:
            del self._observers[id(observer)]

    def _on_append(self, session: Session, event: Event) -> None:
        self._queue.append((session, event))
        if not self._delivering:
            self._drain()

    def _drain(self) -> None:
        """Deliver queued events, oldest first, each to every observer before the next."""
        self._delivering = True
        try:
            queue = self._queue
            while queue:
                session, event = queue.popleft()
                failures: list[tuple[StoreObserver, Exception]] = []
                for key, observer in tuple(self._observers.items()):
                    if self._observers.get(key) is not observer:
                        continue  # unsubscribed meanwhile
                    try:
                        observer.session_event(session, event)
                    except Exception as error:
                        failures.append((observer, error))
                if failures:
                    self._report(ObserverError(session.id, event.seq, tuple(failures)), failures[0][1])
        finally:
            self._delivering = False

    def _report(self, error: ObserverError, cause: Exception) -> None:
        error.__cause__ = cause
        try:
            self._on_observer_error(error)
        except Exception:
            _log.exception("on_observer_error raised while reporting: %s", error)

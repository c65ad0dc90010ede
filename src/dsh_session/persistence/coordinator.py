"""The write coordinator: keeps the sessions of a :class:`~dsh_session.SessionStore` in a backend.

Attach one to a store and a backend; every session of the store (those already
live, and every one created, forked or resumed later) is then **bound** to the
backend under its id, and its events are written behind the session's back:

- **Write-behind.** An appended event is not written at once. The session's
  own log is the buffer: what the backend does not hold yet is the tail of
  ``session.events`` past the session's durable count (events are immutable,
  so nothing is copied and a caller changing its data afterwards changes
  nothing). A flush writes that tail as one batch -- one fsync, or one
  transaction.
- **Checkpoints.** ``flush(session)`` returns once every event appended before
  the call is durable: that is the durability point. Besides, a flush happens
  by itself after an event whose type is in ``flush_on`` (by default
  ``turn/end``, ``step/end`` and ``tool/result``, so a crash mid-turn loses at
  most the step in flight) and when ``max_pending`` events wait. A failed
  flush keeps everything pending and the next one retries the same events.
- **Order.** One lock serializes the coordinator: a session's batches land in
  seq order, each continuing the last, whichever threads flush.
- **Adoption.** Before its first write, a session is checked against what the
  backend stores under its id (read without closing an open turn: the live
  session will end it): nothing -- a new session; its own past (same header,
  stored events = its first events, compared as JSON values) -- it continues
  the stored log; anything else -- an id collision, refused. The rule is
  ``dsh_spec.adoption``. A refusal while a session is created makes the
  store's ``create`` (``fork``, ``resume``) fail and roll the session back.
- **Resume.** ``resume(id)`` loads the stored log -- repaired: a torn tail cut,
  an open turn closed, the repair made durable -- and creates the live session
  from it; it goes on where the log ends.
- **Close** (or leaving a ``with`` block) flushes every session, detaches
  from the store, and raises :class:`DrainError` if any session could not be
  written.

Thread safety: every method and both observer callbacks hold one re-entrant
lock, so ``flush`` / ``flush_all`` / ``close`` may run on another thread than
the one appending (an append waits while a flush of any session is writing).
The store and its sessions are not thread-safe themselves: create, fork,
resume and append from one thread at a time. While attached, write to the
backend only through the coordinator.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Self

from dsh_session.errors import Code
from dsh_session.event import Event
from dsh_session.persistence._adoption import durable_prefix
from dsh_session.persistence.errors import (
    DrainError,
    InvalidHeaderError,
    SessionCollisionError,
    SessionNotFoundError,
    StoreClosedError,
    UnboundSessionError,
)
from dsh_session.persistence.protocol import SessionBackend, StoredSession
from dsh_session.session import Session
from dsh_session.store import SessionMeta, SessionStore, StoreObserver

__all__ = ["DEFAULT_FLUSH_ON", "DEFAULT_MAX_PENDING", "PersistenceCoordinator"]

#: Event types after which a session is flushed by itself (see ``flush_on``).
DEFAULT_FLUSH_ON: frozenset[str] = frozenset({"turn/end", "step/end", "tool/result"})

#: How many events may wait before a session is flushed by itself.
DEFAULT_MAX_PENDING = 512


@dataclass
class _Binding:
    """A session this coordinator writes, and how far."""

    session: Session
    durable: int  # how many of its events the backend holds
    registered: bool  # the backend knows the id (stored already, or created by us)
    tried: int = 0  # the end of the last batch a write was attempted for


class PersistenceCoordinator(StoreObserver):
    """Persists every session of ``store`` in ``backend`` (write-behind; see the module docstring).

    ``flush_on``: event types after which the session is flushed by itself
    (``()`` for none: only explicit flushes). ``max_pending``: flush a session
    by itself once this many of its events wait (``None``: no limit).
    ``close_backend``: ``close()`` closes the backend too.

    Construction binds the sessions already live in the store; one that cannot
    be bound is listed in :attr:`refused` and retried by every flush of it.
    """

    def __init__(
        self,
        store: SessionStore,
        backend: SessionBackend,
        *,
        flush_on: Iterable[str] = DEFAULT_FLUSH_ON,
        max_pending: int | None = DEFAULT_MAX_PENDING,
        close_backend: bool = False,
    ) -> None:
        if max_pending is not None and max_pending < 1:
            raise ValueError(f"max_pending must be at least 1 (or None), got {max_pending!r}")
        self._store = store
        self._backend = backend
        self._flush_on = frozenset(flush_on)
        self._max_pending = max_pending
        self._close_backend = close_backend
        self._lock = threading.RLock()
        self._bindings: dict[str, _Binding] = {}
        self._refused: dict[str, tuple[Session, Exception]] = {}
        self._resuming: StoredSession | None = None
        self._closed = False
        with self._lock:
            self._unsubscribe = store.subscribe(self)
            for session in store.list():
                try:
                    self._bind(session)
                except Exception:  # recorded in refused; flush and close report it
                    continue

    @property
    def store(self) -> SessionStore:
        return self._store

    @property
    def backend(self) -> SessionBackend:
        return self._backend

    @property
    def refused(self) -> Mapping[str, Exception]:
        """Live sessions of the store that could not be bound, by id, with the reason (a copy)."""
        with self._lock:
            live = self._store.get
            return {sid: error for sid, (session, error) in self._refused.items() if live(sid) is session}

    # -- durability ------------------------------------------------------------------------

    def flush(self, session: Session) -> None:
        """Write every event of ``session`` not yet durable; returns once they are.

        A session of the store that is not bound yet is bound first (and the
        refusal raised if it cannot be). A session that left the store is
        written one last time and then released. Raises the backend's error
        (nothing of the batch is then durable, and the next flush retries it),
        :class:`SessionCollisionError`, or :class:`UnboundSessionError`
        (``SESSION_NOT_LIVE``) for a session this coordinator does not persist.
        """
        with self._lock:
            self._check_open()
            binding = self._binding_for(session)
            self._write(binding)
            self._prune(binding)

    def flush_all(self) -> None:
        """Flush every bound session and retry the refused ones; :class:`DrainError` lists the failures."""
        with self._lock:
            self._check_open()
            failures = self._drain()
        if failures:
            raise DrainError(tuple(failures))

    def flushed(self, session: Session) -> int:
        """How many of ``session``'s events are durable (the seq of the first one that is not)."""
        with self._lock:
            self._check_open()
            binding = self._bound(session)
            if binding is None:
                raise self._unbound(session)
            return binding.durable

    # -- reading and resuming --------------------------------------------------------------

    def load(self, session_id: str) -> StoredSession:
        """The stored session, repaired (a torn tail cut, an open turn closed; durable).

        Refused with ``SESSION_ALREADY_BOUND`` while the id belongs to a live
        session (read ``store.get(id).events`` instead): the repair would close
        the turn that session is still writing.
        """
        with self._lock:
            self._check_open()
            self._check_free(session_id)
            return self._backend.load(session_id)

    def resume(self, session_id: str) -> Session:
        """Load the stored session (repaired, as :meth:`load`) into the store as a live session.

        The new session holds the stored header and events, is bound with all of
        them durable, and goes on at the next seq. Raises what :meth:`load` and
        ``store.create`` raise.
        """
        with self._lock:
            self._check_open()
            self._check_free(session_id)
            stored = self._backend.load(session_id)
            header = stored.header
            meta = SessionMeta(
                cwd=header.cwd,
                parent_session=header.parent_session,
                created_at=header.created_at,
                seed_length=header.seed_length,
            )
            self._resuming = stored
            try:
                return self._store.create(session_id, seed=stored.events, meta=meta)
            finally:
                self._resuming = None

    # -- releasing and closing -------------------------------------------------------------

    def release(self, session: Session, *, discard: bool = False) -> None:
        """Stop persisting a session that left the store: flush it first, or with
        ``discard=True`` drop its pending events (they stay in the session)."""
        with self._lock:
            self._check_open()
            binding = self._bound(session)
            if binding is None:
                raise self._unbound(session)
            if self._store.get(session.id) is session:
                raise SessionCollisionError(
                    Code.SESSION_ALREADY_BOUND,
                    f"session {session.id!r} is still live in the store; remove it from the store "
                    "before releasing it",
                    session_id=session.id,
                )
            if not discard:
                self._write(binding)
            del self._bindings[session.id]

    def close(self) -> None:
        """Flush every session, detach from the store (and close the backend if asked to).

        Idempotent. Raises :class:`DrainError` if a session could not be
        written; the coordinator is detached all the same.
        """
        with self._lock:
            if self._closed:
                return
            self._unsubscribe()
            failures = self._drain()
            self._closed = True
            self._bindings.clear()
            self._refused.clear()
            try:
                if self._close_backend:
                    self._backend.close()
            finally:
                if failures:
                    raise DrainError(tuple(failures))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- the store's notifications ---------------------------------------------------------

    def session_created(self, session: Session) -> None:
        """Bind the new session; a refusal raises, so the store rolls the creation back."""
        with self._lock:
            if self._closed:
                return
            if self._bound(session) is not None:
                return  # announced again: nothing to do
            self._bind(session)

    def session_event(self, session: Session, event: Event) -> None:
        """Note the event (it waits in the session's log); flush when a checkpoint is reached."""
        with self._lock:
            if self._closed:
                return
            binding = self._bound(session)
            if binding is None:
                refused = self._refused.get(session.id)
                if refused is not None and refused[0] is session:
                    return  # waits for an explicit flush, which retries the binding
                binding = self._bind(session)
            limit = self._max_pending
            # After a failed write, max_pending waits for that many more events before retrying.
            waiting = session.seq - max(binding.durable, binding.tried)
            if event.type in self._flush_on or (limit is not None and waiting >= limit):
                self._write(binding)

    # -- internals -------------------------------------------------------------------------

    def _bind(self, session: Session) -> _Binding:
        """Bind ``session`` to its id after checking what is stored under it; a refusal is
        recorded in ``refused`` and raised."""
        sid = session.id
        try:
            old = self._bindings.get(sid)
            if old is not None:
                if old.session is session:
                    return old
                self._release_stale(old)
            if session.header.id != sid:
                raise InvalidHeaderError(
                    Code.INVALID_HEADER,
                    f"session {sid!r} carries a header for session {session.header.id!r}; "
                    "its events would be stored under another id",
                )
            stored = self._read(sid)
            durable = durable_prefix(stored, session.header, session.events)
        except Exception as error:
            self._refused[sid] = (session, error)
            raise
        self._refused.pop(sid, None)
        binding = _Binding(session, durable or 0, durable is not None)
        self._bindings[sid] = binding
        return binding

    def _read(self, session_id: str) -> StoredSession | None:
        """What the backend stores under the id, an open turn left open; None if nothing."""
        resuming = self._resuming
        if resuming is not None and resuming.header.id == session_id:
            return resuming  # just loaded (and repaired) under this lock by resume()
        try:
            return self._backend.load(session_id, close_turn=False)
        except SessionNotFoundError:
            return None

    def _write(self, binding: _Binding) -> None:
        session = binding.session
        events = session.events
        end = len(events)
        if end == binding.durable:
            return
        batch = events[binding.durable : end]
        binding.tried = end
        if not binding.registered:
            self._backend.create(session.header)
            binding.registered = True
        self._backend.append(session.id, batch)
        binding.durable = end

    def _bound(self, session: Session) -> _Binding | None:
        """The binding of this very session object; ``None`` when its id is unbound or bound to
        another object."""
        binding = self._bindings.get(session.id)
        return binding if binding is not None and binding.session is session else None

    def _binding_for(self, session: Session) -> _Binding:
        binding = self._bound(session)
        if binding is not None:
            return binding
        if self._store.get(session.id) is session:
            return self._bind(session)
        raise self._unbound(session)

    def _prune(self, binding: _Binding) -> None:
        """Release a session that left the store once everything of it is durable."""
        session = binding.session
        gone = self._store.get(session.id) is not session
        if gone and session.seq == binding.durable and self._bindings.get(session.id) is binding:
            del self._bindings[session.id]

    def _release_stale(self, old: _Binding) -> None:
        """Release the binding of a session that left the store with nothing pending;
        refuse (``SESSION_ALREADY_BOUND``) when it is live or has unwritten events."""
        session = old.session
        sid = session.id
        if self._store.get(sid) is session:
            raise SessionCollisionError(
                Code.SESSION_ALREADY_BOUND,
                f"session {sid!r} is bound to another live session of the store (id collision)",
                session_id=sid,
            )
        pending = session.seq - old.durable
        if pending:
            raise SessionCollisionError(
                Code.SESSION_ALREADY_BOUND,
                f"session {sid!r} is bound to an earlier session object that left the store with "
                f"{pending} unwritten event(s); flush or release it first (id collision)",
                session_id=sid,
            )
        del self._bindings[sid]

    def _check_free(self, session_id: str) -> None:
        """Refuse to load or resume an id that a live session is writing."""
        if self._store.get(session_id) is not None:
            raise SessionCollisionError(
                Code.SESSION_ALREADY_BOUND,
                f"session {session_id!r} is live in the store; read its events there (a load would "
                "close the turn it may still be writing)",
                session_id=session_id,
            )
        old = self._bindings.get(session_id)
        if old is not None:
            self._release_stale(old)

    def _drain(self) -> list[tuple[str, Exception]]:
        """Flush every bound session and retry every refused one still live; the failures."""
        failures: list[tuple[str, Exception]] = []
        for sid, binding in list(self._bindings.items()):
            try:
                self._write(binding)
                self._prune(binding)
            except Exception as error:
                failures.append((sid, error))
        for sid, (session, _error) in list(self._refused.items()):
            if self._store.get(sid) is not session:
                del self._refused[sid]  # rolled back or removed: its refusal was raised then
                continue
            try:
                self._write(self._bind(session))
            except Exception as error:
                failures.append((sid, error))
        return failures

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError(
                Code.STORE_CLOSED, "the persistence coordinator is closed; attach a new one"
            )

    def _unbound(self, session: Session) -> UnboundSessionError:
        return UnboundSessionError(
            f"session {session.id!r} is not persisted by this coordinator: it is not in the store "
            "and nothing of it waits to be written (a session that left the store is released "
            "after its last flush)",
            session_id=session.id,
        )

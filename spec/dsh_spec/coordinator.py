"""The write coordinator, modelled.

A plain reading of ``docs/persistence.md`` ("The write coordinator"),
``docs/errors.md`` (write coordinator) and ``docs/deviations.md`` C1-C8,
over the spec's store model (:class:`~dsh_spec.store.SpecStore`) and stores
(:mod:`dsh_spec.persistence`); whether a live session may take over what is stored
under its id is :mod:`dsh_spec.adoption`. Nothing is shared with the
implementation's coordinator.

- Attached to a store and a backend, the coordinator **binds** every live
  session (those live already, each one created later) to its id: it reads
  what is stored there (an open turn left open) and asks :func:`adoption`. A
  refusal while a session is created fails the creation (the store rolls it
  back); a session live already is listed as refused and every flush of it
  raises the refusal.
- A session's events wait in its own log; ``flush`` writes the ones not yet
  durable as one batch (publishing the header first for a new session), and a
  flush happens by itself after an event whose type is in ``flush_on`` or once
  ``max_pending`` events wait. A failed write keeps them waiting.
- ``load`` and ``resume`` refuse an id that is live (``SESSION_ALREADY_BOUND``);
  ``resume`` creates the live session from the repaired stored log.
- A session that left the store is released after its last flush; ``close``
  (and ``flush_all``) write every session and report the failures together
  (``DRAIN_FAILED``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from dsh_spec.adoption import Adopt, adoption
from dsh_spec.codes import Code
from dsh_spec.events import Event, event_json
from dsh_spec.persistence import Loaded, ModelBackend
from dsh_spec.refusal import Refused, refuse
from dsh_spec.rejection import Rejection
from dsh_spec.store import SpecSession, SpecStore

#: The library's defaults (``docs/persistence.md``): flush after these types, or once 512 wait.
DEFAULT_FLUSH_ON = ("turn/end", "step/end", "tool/result")
DEFAULT_MAX_PENDING = 512


@dataclass
class Binding:
    session: SpecSession
    durable: int  # how many of its events the backend holds
    registered: bool  # the backend knows the id
    tried: int = 0  # the end of the last batch a write was attempted for


class SpecCoordinator:
    """Persists the sessions of a :class:`SpecStore` in a :class:`ModelBackend`."""

    def __init__(
        self, store: SpecStore, backend: ModelBackend, flush_on: Iterable[str], max_pending: int | None
    ) -> None:
        self.store = store
        self.backend = backend
        self.flush_on = frozenset(flush_on)
        self.max_pending = max_pending
        self.bindings: dict[str, Binding] = {}
        self.refused: dict[str, tuple[SpecSession, Refused]] = {}
        self.resuming: Loaded | None = None
        self.closed = False
        store.observers.append(self)
        for session in list(store.live.values()):
            try:
                self.bind(session)
            except Refused:
                continue  # listed as refused

    # -- the store's notifications ---------------------------------------------------------

    def created(self, session: SpecSession) -> None:
        if self.closed:
            return
        if self.bound(session) is None:
            self.bind(session)

    def event(self, session: SpecSession, event: Event) -> None:
        if self.closed:
            return
        binding = self.bound(session)
        if binding is None:
            refused = self.refused.get(session.id)
            if refused is not None and refused[0] is session:
                return  # waits for a flush, which tries the binding again
            binding = self.bind(session)
        waiting = len(session.log) - max(binding.durable, binding.tried)
        limit = self.max_pending
        if event.type in self.flush_on or (limit is not None and waiting >= limit):
            self.write(binding)

    # -- operations ------------------------------------------------------------------------

    def flush(self, session: SpecSession) -> None:
        self.check_open()
        binding = self.bound(session)
        if binding is None:
            if self.store.live.get(session.id) is not session:
                raise self.unbound(session)
            binding = self.bind(session)
        self.write(binding)
        self.prune(binding)

    def flush_all(self) -> None:
        self.check_open()
        self.raise_failures(self.drain())

    def flushed(self, session: SpecSession) -> int:
        self.check_open()
        binding = self.bound(session)
        if binding is None:
            raise self.unbound(session)
        return binding.durable

    def refusals(self) -> list[dict[str, Any]]:
        live = self.store.live
        found = [
            {"id": sid, "code": error.code.value}
            for sid, (session, error) in self.refused.items()
            if live.get(sid) is session
        ]
        return sorted(found, key=lambda item: str(item["id"]))

    def load(self, session_id: str) -> Loaded:
        self.check_open()
        self.check_free(session_id)
        return self.backend.load(session_id)

    def resume(self, session_id: str) -> SpecSession:
        self.check_open()
        self.check_free(session_id)
        stored = self.backend.load(session_id)
        header, events, orders = stored
        meta = {key: header.get(key) for key in ("cwd", "parentSession", "seedLength")}
        self.resuming = stored
        try:
            seed = [event_json(event) for event in events]
            return self.store.create(session_id, seed, meta, header["createdAt"], orders)
        finally:
            self.resuming = None

    def release(self, session: SpecSession, discard: bool) -> None:
        self.check_open()
        binding = self.bound(session)
        if binding is None:
            raise self.unbound(session)
        if self.store.live.get(session.id) is session:
            raise refuse(Code.SESSION_ALREADY_BOUND, f"session {session.id!r} is still live in the store")
        if not discard:
            self.write(binding)
        del self.bindings[session.id]

    def close(self) -> None:
        if self.closed:
            return
        if self in self.store.observers:
            self.store.observers.remove(self)
        failures = self.drain()
        self.closed = True
        self.bindings.clear()
        self.refused.clear()
        self.raise_failures(failures)

    # -- binding and writing ---------------------------------------------------------------

    def bound(self, session: SpecSession) -> Binding | None:
        """The binding of this very session (not of another one with its id), or ``None``."""
        binding = self.bindings.get(session.id)
        return binding if binding is not None and binding.session is session else None

    def bind(self, session: SpecSession) -> Binding:
        sid = session.id
        try:
            old = self.bindings.get(sid)
            if old is not None:
                if old.session is session:
                    return old
                self.release_stale(old)
            decided = adoption(self.read(sid), session.header, session.log)
            if isinstance(decided, Rejection):
                raise refuse(decided.code, decided.message)
        except Refused as error:
            self.refused[sid] = (session, error)
            raise
        assert isinstance(decided, Adopt)
        self.refused.pop(sid, None)
        binding = Binding(session, decided.stored, not decided.create)
        self.bindings[sid] = binding
        return binding

    def read(self, session_id: str) -> tuple[dict[str, Any], tuple[Event, ...]] | None:
        """What is stored under the id (an open turn left open), or ``None``."""
        stored = self.resuming
        if stored is None or stored[0]["id"] != session_id:
            try:
                stored = self.backend.load(session_id, close_turn=False)
            except Refused as error:
                if error.code is Code.SESSION_NOT_FOUND:
                    return None
                raise
        return stored[0], stored[1]

    def write(self, binding: Binding) -> None:
        session = binding.session
        end = len(session.log)
        if end == binding.durable:
            return
        batch = session.log[binding.durable : end]
        binding.tried = end
        if not binding.registered:
            self.backend.create(session.header)
            binding.registered = True
        self.backend.append(session.id, [session.record(event) for event in batch])
        binding.durable = end

    def prune(self, binding: Binding) -> None:
        session = binding.session
        gone = self.store.live.get(session.id) is not session
        if gone and len(session.log) == binding.durable and self.bindings.get(session.id) is binding:
            del self.bindings[session.id]

    def release_stale(self, old: Binding) -> None:
        """Forget the binding of a session that left the store with nothing unwritten."""
        sid = old.session.id
        if self.store.live.get(sid) is old.session:
            raise refuse(Code.SESSION_ALREADY_BOUND, f"session {sid!r} is bound to another live session")
        if len(old.session.log) != old.durable:
            raise refuse(
                Code.SESSION_ALREADY_BOUND,
                f"session {sid!r} is bound to a session that left the store with unwritten events",
            )
        del self.bindings[sid]

    def check_free(self, session_id: str) -> None:
        if session_id in self.store.live:
            raise refuse(Code.SESSION_ALREADY_BOUND, f"session {session_id!r} is live in the store")
        old = self.bindings.get(session_id)
        if old is not None:
            self.release_stale(old)

    def drain(self) -> list[tuple[str, Refused]]:
        failures: list[tuple[str, Refused]] = []
        for sid, binding in list(self.bindings.items()):
            try:
                self.write(binding)
                self.prune(binding)
            except Refused as error:
                failures.append((sid, error))
        for sid, (session, _error) in list(self.refused.items()):
            if self.store.live.get(sid) is not session:
                del self.refused[sid]
                continue
            try:
                self.write(self.bind(session))
            except Refused as error:
                failures.append((sid, error))
        return failures

    @staticmethod
    def raise_failures(failures: list[tuple[str, Refused]]) -> None:
        if failures:
            detail = "; ".join(f"{sid!r}: {error.code.value}" for sid, error in failures)
            raise refuse(Code.DRAIN_FAILED, f"{len(failures)} session(s) could not be written: {detail}")

    def check_open(self) -> None:
        if self.closed:
            raise refuse(Code.STORE_CLOSED, "the coordinator is closed")

    @staticmethod
    def unbound(session: SpecSession) -> Refused:
        return refuse(Code.SESSION_NOT_LIVE, f"session {session.id!r} is not persisted by this coordinator")

"""The session store, modelled: sessions, ids, observers.

A session is a ``dsh_spec`` log with its header; the store's rules -- minted
ids, entering, removing, observers and forks -- come from ``docs/errors.md``
(session store) and ``docs/deviations.md`` D-S1..D-S5, each in a few lines. The
write coordinator's model (:mod:`dsh_spec.coordinator`) observes this store.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from dsh_spec.codes import Code
from dsh_spec.events import Event, event_json
from dsh_spec.fork import fork_seed
from dsh_spec.invariants import check_seed_with_invariants, validate_append_with_invariants
from dsh_spec.refusal import Refused, checked, refuse
from dsh_spec.validation import Draft, check_seed, validate_append


def ordered_record(event: Event, order: tuple[str, ...] | None) -> dict[str, Any]:
    """The event's record, its keys in ``order`` when one is given."""
    record = event_json(event)
    return record if order is None else {key: record[key] for key in order if key in record}


@dataclass
class SpecSession:
    """A session: its header, its log, and the ``invalidate`` offset of its generation."""

    id: str
    header: dict[str, Any]
    log: tuple[Event, ...] = ()
    invariants: bool = False
    offset: int = 0
    orders: dict[int, tuple[str, ...]] = field(default_factory=dict)
    store: SpecStore | None = None

    def record(self, event: Event) -> dict[str, Any]:
        """The event's JSON record, keys in the order it was written."""
        return ordered_record(event, self.orders.get(event.seq))

    def append(self, draft: Draft) -> Event:
        check = validate_append_with_invariants if self.invariants else validate_append
        event = checked(check(self.log, draft))
        assert isinstance(event, Event)
        self.log = (*self.log, event)
        if self.store is not None:
            self.store.heard_event(self, event)
        return event


class Recorder:
    """An observer: what it heard, and where it was told to fail."""

    def __init__(self, fail: Any) -> None:
        self.fail = fail
        self.heard: list[list[Any]] = []

    def created(self, session: SpecSession) -> None:
        self.heard.append(["created", session.id])
        if self.fail == "created":
            raise refuse(Code.OBSERVER_FAILED, "the observer was told to fail on session_created")

    def event(self, session: SpecSession, event: Event) -> None:
        self.heard.append(["event", session.id, event.seq])
        if self.fail == "event":
            raise refuse(Code.OBSERVER_FAILED, "the observer was told to fail on session_event")


@runtime_checkable
class Observer(Protocol):
    """What the store tells its observers; raising :class:`~dsh_spec.refusal.Refused` is failing."""

    def created(self, session: SpecSession) -> None: ...

    def event(self, session: SpecSession, event: Event) -> None: ...


class SpecStore:
    """The session store's rules (``docs/errors.md``: session store; ``docs/deviations.md`` D-S1..D-S5).

    Minting (D-S1): a refusal before the new session is announced -- a taken id, a
    bad cwd or seed, a refused fork -- leaves the counter alone; once observers have
    heard of a minted id it stays used, even when one of them makes ``create`` fail.
    """

    def __init__(self) -> None:
        self.live: dict[str, SpecSession] = {}
        self.counter = 0
        self.observers: list[Observer] = []
        self.errors: list[dict[str, Any]] = []

    def create(
        self,
        session_id: Any,
        seed: list[Any],
        meta: Mapping[str, Any],
        time: int,
        orders: dict[int, tuple[str, ...]] | None = None,
        invariants: bool = False,
    ) -> SpecSession:
        """A new live session; ``invariants`` holds it, its seed included, to the live invariants."""
        minted = None
        if session_id is None:
            minted = self.counter + 1
            while f"session-{minted}" in self.live:
                minted += 1
            session_id = f"session-{minted}"
        if session_id in self.live:
            raise refuse(Code.SESSION_ALREADY_EXISTS, f'session "{session_id}" already exists')
        check_cwd(session_id, meta.get("cwd"))
        events = checked((check_seed_with_invariants if invariants else check_seed)(seed))
        header = make_header(session_id, time, meta)
        session = SpecSession(session_id, header, events, invariants, orders=dict(orders or {}))
        if minted is not None:
            self.counter = minted
        self.enter(session)
        failed = self.announce(session)
        if failed:
            self.remove(session)
            raise refuse(Code.OBSERVER_FAILED, f'session_created of session "{session_id}" failed')
        return session

    def enter(self, session: SpecSession) -> None:
        if session.id in self.live:
            raise refuse(Code.SESSION_ALREADY_EXISTS, f'session "{session.id}" already exists')
        if session.store is not None:
            raise refuse(
                Code.SESSION_ALREADY_ENTERED, f'session "{session.id}" is already entered in a store'
            )
        check_cwd(session.id, session.header.get("cwd"))
        self.live[session.id] = session
        session.store = self

    def remove(self, session: SpecSession) -> bool:
        if self.live.get(session.id) is not session:
            return False
        del self.live[session.id]
        session.store = None
        return True

    def _tell(self, hear: Callable[[Observer], None]) -> bool:
        """Tell every observer (all of them, even after a failure); whether any failed."""
        failed = False
        for observer in list(self.observers):
            try:
                hear(observer)
            except Refused:
                failed = True
        return failed

    def announce(self, session: SpecSession) -> bool:
        """Tell every observer of the new session; whether any failed."""
        return self._tell(lambda observer: observer.created(session))

    def heard_event(self, session: SpecSession, event: Event) -> None:
        if self._tell(lambda observer: observer.event(session, event)):
            self.errors.append({"code": Code.OBSERVER_FAILED.value, "session": session.id, "seq": event.seq})

    def fork(
        self,
        source: str | SpecSession,
        boundary: Any,
        child_id: Any,
        time: int,
        invariants: bool | None = None,
    ) -> SpecSession:
        """A child seeded with the parent's log up to ``boundary``; it keeps the live
        invariants when its parent does, unless ``invariants`` says otherwise."""
        if child_id is not None and child_id in self.live:
            raise refuse(Code.SESSION_ALREADY_EXISTS, f'session "{child_id}" already exists')
        sid = source if isinstance(source, str) else source.id
        parent = self.live.get(sid)
        if parent is None:
            raise refuse(Code.SESSION_NOT_FOUND, f'session "{sid}" not found')
        if not isinstance(source, str) and parent is not source:
            raise refuse(Code.SESSION_NOT_LIVE, f'session "{sid}" is not the live store instance')
        seed = checked(fork_seed(parent.log, boundary, sid))
        meta: dict[str, Any] = {"parentSession": parent.id, "seedLength": len(seed)}
        if "cwd" in parent.header:
            meta["cwd"] = parent.header["cwd"]
        checks = parent.invariants if invariants is None else invariants
        return self.create(child_id, [event_json(event) for event in seed], meta, time, invariants=checks)


def check_cwd(session_id: str, cwd: Any) -> None:
    if cwd is not None and not (type(cwd) is str and cwd.startswith("/")):
        raise refuse(
            Code.CWD_NOT_ABSOLUTE, f'session "{session_id}": cwd must be an absolute path, got {cwd!r}'
        )


def make_header(session_id: str, created_at: int, meta: Mapping[str, Any]) -> dict[str, Any]:
    """A session header in the reference's key order; absent fields left out."""
    header: dict[str, Any] = {"version": 0, "id": session_id, "createdAt": created_at}
    for key in ("cwd", "parentSession", "seedLength"):
        if meta.get(key) is not None:
            header[key] = meta[key]
    return header

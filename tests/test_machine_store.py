"""The store as a state machine, against a simple model built on the spec.

Hypothesis drives a :class:`SessionStore` through random sequences of create,
prepare / enter / announce, append, fork at random boundaries, detach
(including stale detaches), remove and (un)subscribing observers -- recorders,
observers that raise, and observers that append re-entrantly. After every step
the store, every session's log, history and request header, every observer's
notifications and every reported observer failure must equal the model's.

The model keeps logs as spec events (``dsh_spec.validate_append``), forks with
``dsh_spec.fork_seed``, derives with ``dsh_spec.derive_messages`` and folds
headers with ``dsh_spec.fold_request_header``; its delivery rule is the
documented one: one notification at a time, to every observer in subscription
order, re-entrant appends queued behind it.

Four mutant stores (a detach that deletes by id, delivery that stops at the
first failing observer, delivery that does not queue re-entrant appends, a
fork whose child forgets its parent's invariants) must each be caught;
``test_the_machine_catches_each_mutant`` checks that they are.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import event as tally
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import dsh_spec as spec
from dsh_session import (
    Event,
    InvalidEventError,
    ObserverError,
    RequestHeaderError,
    Session,
    SessionForkError,
    SessionMeta,
    SessionStore,
    SessionStoreError,
    StoreObserver,
)
from dsh_session.js_json import dumps
from tests.machine_logs import TurnWriter
from tests.store_support import FIXED_TIME, assistant_data, fixed_clock, spec_events, user_data
from tests.support import machine_settings

#: A stateful machine, or a check that one finds planted bugs: ``pytest -m machine`` runs them all.
pytestmark = pytest.mark.machine

IDS = [None, None, "a", "b", "session-1", "session-2"]
#: ``invariants=`` for create and prepare: the store's default (``None``), on or off.
CHECKS = st.sampled_from([None, None, True, False])
CWDS = [None, "/w", "/w", "rel"]
#: Fork boundaries: seqs, and what a lax check takes for one (bools, integral floats, -0.0,
#: huge ints, NaN and infinities) -- ``INVALID_BOUNDARY`` unless the spec reads it as a seq.
BOUNDARIES = st.one_of(
    st.none(),
    st.integers(-1, 14),
    st.sampled_from(
        (
            0.5,
            True,
            False,
            1.0,
            3.0,
            -0.0,
            2**53 - 1,
            2**53,
            2**53 + 1,
            2**64,
            -(2**63),
            math.nan,
            math.inf,
            -math.inf,
        )
    ),
)

#: Boundaries every ``fork_at_the_edges`` tries on one live session, each just inside or outside a
#: bound of the rules, or rendered in the message as JavaScript writes it (``true``, ``NaN``,
#: ``-Infinity``, ``1e-7``, ``18446744073709552000``): all refused, each in its own words, but
#: ``0`` and ``-0.0`` (the lowest seq, taken when the log begins with a ``turn/end``).
EDGES: tuple[Any, ...] = (
    0,
    -0.0,
    2**53 - 1,
    2**53,
    2**53 + 1,
    2**64,
    -1,
    -2,
    True,
    False,
    math.nan,
    math.inf,
    -math.inf,
    1e-7,
    0.5,
    1e21 + 0.5,
)
#: ``grow`` makes a log at least this long: past 256, where ints are distinct objects.
LONG = 300

TOOL = {"name": "t", "description": "d", "parameters": {"type": "object"}}
STEPS: list[tuple[str, dict[str, Any], str | None]] = [
    ("turn/start", {"turn": 1, "trigger": {"kind": "message", "source": {"kind": "user"}}}, None),
    ("turn/end", {"turn": 1, "reason": {"kind": "completed"}}, None),
    ("turn/end", {"turn": 1, "reason": {"kind": "interrupted"}}, None),
    ("user/message", user_data("hello"), "append"),  # STEPS[3], see ``say``
    ("assistant/message", assistant_data("hi"), "append"),
    ("todo/write", {"todos": [{"content": "x", "status": "pending"}]}, None),
    ("request/header", {"header": {"config": {"model": "m1"}, "system": "a\nb"}, "reason": "initial"}, None),
    ("request/header", {"header": {"config": {"model": "m2"}, "tools": [TOOL]}, "reason": "fallback"}, None),
    ("request/header", {"header": {"system": "no config"}, "reason": "initial"}, None),
    ("request/header-delta", {"system": {"keepStart": 1, "keepEnd": 0, "insert": ["c"]}}, None),
    ("request/header-delta", {"config": {"model": "m3"}}, None),
]

#: The observers ``subscribe`` makes, by kind (recorders and echoes twice as often).
OBSERVERS = ["recorder", "recorder", "echo", "echo", "raiser", "refuser"]

#: What the re-entrant observer appends when it hears of a user message.
ECHO: tuple[str, dict[str, Any]] = ("todo/write", {"todos": []})


class Recorder(StoreObserver):
    """Writes down every notification with the session object itself."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, ...]] = []

    def session_created(self, session: Session) -> None:
        self.seen.append(("created", session))

    def session_event(self, session: Session, event: Event) -> None:
        self.seen.append(("event", session, event.seq, event.type))

    def journal(self, handles: dict[int, int]) -> list[tuple[Any, ...]]:
        """The notifications with sessions as model handles (-1: a session the model never adopted)."""
        return [(kind, handles.get(id(session), -1), *rest) for kind, session, *rest in self.seen]


class Raiser(StoreObserver):
    def __init__(self, on_created: bool) -> None:
        self.on_created = on_created

    def session_created(self, session: Session) -> None:
        if self.on_created:
            raise RuntimeError("refused")

    def session_event(self, session: Session, event: Event) -> None:
        raise RuntimeError("broken observer")


class Echo(StoreObserver):
    def session_event(self, session: Session, event: Event) -> None:
        if event.type == "user/message":
            session.append(*ECHO)


class Slot:
    """An observer and what the model expects it to have seen."""

    def __init__(self, observer: StoreObserver) -> None:
        self.observer = observer
        self.expected: list[tuple[Any, ...]] = []


def text(value: Any) -> str:
    return dumps(value)


class StoreMachine(RuleBasedStateMachine):
    store_factory: Callable[..., SessionStore] = SessionStore

    def __init__(self) -> None:
        super().__init__()
        self.reported: list[ObserverError] = []
        self.checking = False  # the store's default, drawn by ``start``
        self.store = type(self).store_factory(clock=fixed_clock, on_observer_error=self.reported.append)
        # the model
        self.sessions: list[Session] = []  # handle -> object (kept alive, so id() is stable)
        self.handles: dict[int, int] = {}  # id(object) -> handle
        self.logs: list[list[spec.Event]] = []
        self.cwds: list[str | None] = []
        self.checks: list[bool] = []  # handle -> whether the session keeps the live invariants
        self.live: dict[str, int] = {}  # id -> handle, in entry order
        self.tokens: dict[int, int] = {}  # handle -> token of its current entry
        self.detaches: list[tuple[int, int, Callable[[], None]]] = []
        self.counter = 0
        self.slots: list[Slot] = []
        self.expected_reports: list[tuple[str, int, int]] = []
        self.queue: deque[tuple[int, spec.Event]] = deque()
        self.delivering = False
        self.token_seq = 0
        self.checked: dict[int, int] = {}  # handle -> log length at its last full check
        self.grown = False  # ``grow`` runs once per example: a long log is costly to check

    # -- the model's rules -----------------------------------------------------------------------

    def mint(self) -> tuple[str, int]:
        number = self.counter + 1
        while f"session-{number}" in self.live:
            number += 1
        return f"session-{number}", number

    def expect_prepare(self, sid: str | None, cwd: str | None) -> tuple[str, int | None] | str:
        """The id a prepare gets (and the minted number), or the code it fails with."""
        minted = None
        if sid is None:
            sid, minted = self.mint()
        if sid in self.live:
            return "SESSION_ALREADY_EXISTS"
        if cwd is not None and not cwd.startswith("/"):
            return "CWD_NOT_ABSOLUTE"
        return sid, minted

    def adopt(
        self, session: Session, log: list[spec.Event], cwd: str | None, minted: int | None, checks: bool
    ) -> int:
        handle = len(self.sessions)
        assert session.invariants is checks
        self.sessions.append(session)
        self.handles[id(session)] = handle
        self.logs.append(log)
        self.cwds.append(cwd)
        self.checks.append(checks)
        if minted is not None:
            self.counter = minted
        return handle

    def model_enter(self, handle: int, detach: Callable[[], None] | None = None) -> None:
        self.token_seq += 1
        self.tokens[handle] = self.token_seq
        self.live[self.sessions[handle].id] = handle
        if detach is not None:
            self.detaches.append((handle, self.token_seq, detach))

    def model_detach(self, handle: int, token: int) -> None:
        if self.tokens.get(handle) != token:
            return
        del self.tokens[handle]
        sid = self.sessions[handle].id
        if self.live.get(sid) == handle:
            del self.live[sid]

    def model_announce(self, handle: int) -> int:
        outer, self.delivering = self.delivering, True
        failures = 0
        for slot in self.slots:
            if isinstance(slot.observer, Recorder):
                slot.expected.append(("created", handle))
            elif isinstance(slot.observer, Raiser) and slot.observer.on_created:
                failures += 1
        self.delivering = outer
        if not outer:
            self.model_drain()
        return failures

    def model_append(
        self, handle: int, kind: str, data: Any, op: Any, refs: list[int] | None = None
    ) -> spec.Event | spec.Rejection:
        """The event the spec appends (delivered as the store would), or its refusal."""
        draft = spec.Draft(
            kind, FIXED_TIME, data, spec.ABSENT if op is None else op, spec.ABSENT if refs is None else refs
        )
        check = spec.validate_append_with_invariants if self.checks[handle] else spec.validate_append
        event = check(tuple(self.logs[handle]), draft)
        if isinstance(event, spec.Rejection):
            return event
        self.logs[handle].append(event)
        if handle in self.tokens:
            self.queue.append((handle, event))
            if not self.delivering:
                self.model_drain()
        return event

    def model_drain(self) -> None:
        self.delivering = True
        while self.queue:
            handle, event = self.queue.popleft()
            failures = 0
            for slot in list(self.slots):
                observer = slot.observer
                if isinstance(observer, Recorder):
                    slot.expected.append(("event", handle, event.seq, event.type))
                elif isinstance(observer, Raiser):
                    failures += 1
                elif event.type == "user/message" and isinstance(
                    self.model_append(handle, ECHO[0], ECHO[1], None), spec.Rejection
                ):
                    failures += 1  # the echo's own append was refused: the observer raised
            if failures:
                self.expected_reports.append((self.sessions[handle].id, event.seq, failures))
            if len(self.queue):
                tally("re-entrant append queued")
        self.delivering = False

    # -- rules ---------------------------------------------------------------------------------------

    @initialize(
        turns=st.integers(0, 2),
        cwd=st.sampled_from([None, "/w"]),
        invariants=st.booleans(),
        observers=st.lists(st.sampled_from(OBSERVERS), max_size=3),
    )
    def start(self, turns: int, cwd: str | None, invariants: bool, observers: list[str]) -> None:
        """Begin with one live session holding some closed turns, so forks have material;
        the store holds its sessions to the live invariants or not (``invariants``). A few
        observers may listen from the start: the delivery bugs need two or three of them
        in the right order (an echo before a recorder), which subscribing one per step
        reaches only now and then."""
        self.checking = invariants
        factory = type(self).store_factory
        self.store = factory(clock=fixed_clock, on_observer_error=self.reported.append, invariants=invariants)
        self.create(None, cwd, None)
        for _ in range(turns):
            for step in (STEPS[0], STEPS[3], STEPS[4], STEPS[1]):
                self.append(0, True, step)
        for kind in observers:
            self.subscribe(kind)

    @rule(sid=st.sampled_from(IDS), cwd=st.sampled_from(CWDS), checks=CHECKS)
    def create(self, sid: str | None, cwd: str | None, checks: bool | None) -> None:
        expected = self.expect_prepare(sid, cwd)
        try:
            session = self.store.create(sid, meta=SessionMeta(cwd=cwd), invariants=checks)
        except SessionStoreError as error:
            assert error.code == expected
            return
        except ObserverError as error:
            assert not isinstance(expected, str), expected
            self.expect_refused_announcement(expected[1], error)
            return
        assert not isinstance(expected, str), expected
        tally("create: ok")
        assert session.id == expected[0]
        assert session.header.to_json() == header_json(expected[0], cwd)
        handle = self.adopt(session, [], cwd, expected[1], self.checking if checks is None else checks)
        self.model_enter(handle)
        assert self.model_announce(handle) == 0

    def expect_refused_announcement(self, minted: int | None, error: ObserverError) -> None:
        """A create whose announcement failed: every observer was told, then it was rolled
        back (the model never adopts it), but its id stays minted."""
        if minted is not None:
            self.counter = minted
        failures = sum(1 for s in self.slots if isinstance(s.observer, Raiser) and s.observer.on_created)
        assert len(error.failures) == failures > 0
        for slot in self.slots:
            if isinstance(slot.observer, Recorder):
                slot.expected.append(("created", -1))

    @rule(sid=st.sampled_from(IDS), cwd=st.sampled_from(CWDS), checks=CHECKS)
    def prepare(self, sid: str | None, cwd: str | None, checks: bool | None) -> None:
        expected = self.expect_prepare(sid, cwd)
        try:
            session = self.store.prepare(sid, meta=SessionMeta(cwd=cwd), invariants=checks)
        except SessionStoreError as error:
            assert error.code == expected
            return
        assert not isinstance(expected, str), expected
        assert session.id == expected[0]
        self.adopt(session, [], cwd, expected[1], self.checking if checks is None else checks)

    @precondition(lambda self: self.sessions)
    @rule(pick=st.integers(0, 50))
    def enter(self, pick: int) -> None:
        handle = pick % len(self.sessions)
        session = self.sessions[handle]
        try:
            detach = self.store.enter(session)
        except SessionStoreError as error:
            assert error.code == "SESSION_ALREADY_EXISTS" and session.id in self.live
            return
        assert session.id not in self.live
        self.model_enter(handle, detach)

    @precondition(lambda self: self.sessions)
    @rule(pick=st.integers(0, 50))
    def announce(self, pick: int) -> None:
        handle = pick % len(self.sessions)
        failures = self.model_announce(handle)
        try:
            self.store.announce(self.sessions[handle])
        except ObserverError as error:
            assert len(error.failures) == failures > 0
            return
        assert failures == 0

    def choose(self, pick: int, live_only: bool) -> int:
        """A session handle: among the live ones when asked and possible, else among all."""
        pool = list(self.live.values()) if live_only and self.live else range(len(self.sessions))
        return pool[pick % len(pool)]

    @precondition(lambda self: self.sessions)
    @rule(pick=st.integers(0, 50), live_only=st.booleans(), step=st.sampled_from(STEPS))
    def append(self, pick: int, live_only: bool, step: tuple[str, dict[str, Any], str | None]) -> None:
        kind, data, op = step
        self.append_to(self.choose(pick, live_only), kind, data, op)

    def append_to(self, handle: int, kind: str, data: Any, op: Any = None, refs: Any = None) -> Event | None:
        """An append to the session and the model alike: the event, or ``None`` when both refuse it."""
        options: dict[str, Any] = {"surface_op": op}
        if refs is not None:
            options["source_event_seqs"] = refs = list(refs)
        try:
            event = self.sessions[handle].append(kind, data, **options)
        except InvalidEventError as error:
            refused = self.model_append(handle, kind, data, op, refs)
            assert isinstance(refused, spec.Rejection), error
            assert (error.code, error.seq) == (refused.code, refused.seq)
            tally(f"append refused: {error.code}")
            return None
        expected = self.model_append(handle, kind, data, op, refs)
        assert not isinstance(expected, spec.Rejection), (event, expected)
        assert (event.seq, event.type) == (expected.seq, expected.type)
        return event

    def growable(self) -> list[int]:
        """The live sessions ``grow`` may lengthen (none once it ran in this example)."""
        if self.grown:
            return []
        return [h for h in self.live.values() if not self.checks[h] and len(self.logs[h]) < LONG]

    @precondition(lambda self: self.growable())
    @rule(pick=st.integers(0, 50), seed=st.integers(0, 2**32 - 1))
    def grow(self, pick: int, seed: int) -> None:
        """Whole W1-like turns (``tests/machine_logs.py``) on a live session without the live
        invariants (their model costs a fold of the log per event), until its log is past
        ``LONG`` events; then forks of it at seqs above 256 given as fresh ``int`` objects (an
        ``is`` where ``==`` belongs tells them from the log's own): the first and the last
        ``turn/end`` there (a seed shorter than the log, and the whole log) and an event that
        is no ``turn/end``."""
        pool = self.growable()
        handle = pool[pick % len(pool)]
        self.grown = True
        session = self.sessions[handle]

        def offer(kind: str, data: Any, surface_op: Any = None, source_event_seqs: Any = None) -> Any:
            return self.append_to(handle, kind, data, surface_op, source_event_seqs)

        writer = TurnWriter(offer, lambda: session.surface.seqs(), random.Random(seed))
        number = 1
        while len(self.logs[handle]) < LONG:
            writer.turn(number)
            number += 1
        tally("grow: a long log")
        log = self.logs[handle]
        ends = [e.seq for e in log if e.seq > 256 and e.type == "turn/end"]
        others = [e.seq for e in log if e.seq > 256 and e.type != "turn/end"]
        for seq in dict.fromkeys(ends[:1] + ends[-1:] + others[:1]):
            self.fork_at(handle, True, int(str(seq)), None)

    @precondition(lambda self: self.live)
    @rule(pick=st.integers(0, 50))
    def say(self, pick: int) -> None:
        """A user message to a live session: what the re-entrant observer reacts to."""
        self.append(pick, True, STEPS[3])

    @precondition(lambda self: self.sessions)
    @rule(
        pick=st.integers(0, 50),
        live_only=st.booleans(),
        by_id=st.booleans(),
        boundary=BOUNDARIES,
        child=st.sampled_from([None, None, "a", "b", "kid"]),
    )
    def fork(self, pick: int, live_only: bool, by_id: bool, boundary: Any, child: str | None) -> None:
        self.fork_at(self.choose(pick, live_only), by_id, boundary, child)

    @precondition(lambda self: self.live)
    @rule(pick=st.integers(0, 50), by_id=st.booleans())
    def fork_at_the_edges(self, pick: int, by_id: bool) -> None:
        """A live session forked at every one of ``EDGES``: 0 and the bounds of a safe integer,
        the bools, NaN and the infinities, just below 0, a float JavaScript spells its own way."""
        handle = self.choose(pick, True)
        for boundary in EDGES:
            self.fork_at(handle, by_id, boundary, None)

    def fork_at(self, handle: int, by_id: bool, boundary: Any, child: str | None) -> None:
        """Fork the session ``handle`` (by id, or by the object) at ``boundary``, both sides."""
        source = self.sessions[handle]
        sid = source.id
        prepared = self.expect_prepare(child, None)
        expected: str | spec.Rejection | tuple[spec.Event, ...]
        if child is not None and child in self.live:
            expected = "SESSION_ALREADY_EXISTS"
        elif sid not in self.live:
            expected = "SESSION_NOT_FOUND"
        elif not by_id and self.live[sid] != handle:
            expected = "SESSION_NOT_LIVE"
        else:
            parent = self.live[sid]
            seed = spec.fork_seed(tuple(self.logs[parent]), boundary, sid)
            expected = seed
        try:
            result = self.store.fork(sid if by_id else source, boundary, child)
        except SessionForkError as error:
            if isinstance(expected, spec.Rejection):
                # The boundary rules: the spec's code, seq and message, about the source.
                found = (error.code, error.seq, error.message, error.session_id)
                assert found == (expected.code.value, expected.seq, expected.message, sid), (error, expected)
                with pytest.raises(TypeError):  # the session id is keyword-only, as documented
                    SessionForkError(error.code, error.message, sid)  # type: ignore[call-arg]
            else:
                assert error.code == expected, (error, expected)
            tally(f"fork refused: {error.code}")
            return
        except ObserverError as error:
            assert isinstance(expected, tuple) and not isinstance(prepared, str), (expected, prepared)
            self.expect_refused_announcement(prepared[1], error)
            return
        assert isinstance(expected, tuple) and not isinstance(prepared, str), (expected, prepared)
        parent = self.live[sid]
        assert result.id == prepared[0]
        assert result.header.to_json() == header_json(
            prepared[0], self.cwds[parent], parent_session=sid, seed_length=len(expected)
        )
        tally("fork created a child")
        new = self.adopt(result, list(expected), self.cwds[parent], prepared[1], self.checks[parent])
        self.model_enter(new)
        assert self.model_announce(new) == 0

    @precondition(lambda self: self.detaches)
    @rule(pick=st.integers(0, 50))
    def detach(self, pick: int) -> None:
        """Call some detach: the current one, or a stale one (already called, or superseded)."""
        handle, token, detach = self.detaches[pick % len(self.detaches)]
        tally("detach: current" if self.tokens.get(handle) == token else "detach: stale")
        detach()
        self.model_detach(handle, token)

    @precondition(lambda self: self.sessions)
    @rule(pick=st.integers(0, 50), by_id=st.booleans())
    def remove(self, pick: int, by_id: bool) -> None:
        handle = pick % len(self.sessions)
        sid = self.sessions[handle].id
        live = self.live.get(sid)
        expected = live is not None and (by_id or live == handle)
        assert self.store.remove(sid if by_id else self.sessions[handle]) is expected
        if expected and live is not None:
            self.model_detach(live, self.tokens[live])

    @precondition(lambda self: self.live)
    @rule(pick=st.integers(0, 50), by_id=st.booleans())
    def reenter(self, pick: int, by_id: bool) -> None:
        """A live session removed and entered again, twice, then the first re-entry's detach
        called: a stale detach must leave the current entry (same id, same object) alone."""
        handle = self.choose(pick, True)
        for _ in range(2):
            self.remove(handle, by_id)
            self.enter(handle)
        current = self.tokens.get(handle)
        stale = [i for i, (h, token, _) in enumerate(self.detaches) if h == handle and token != current]
        if stale:
            self.detach(stale[-1])

    @precondition(lambda self: len(self.slots) < 5)
    @rule(kind=st.sampled_from(OBSERVERS))
    def subscribe(self, kind: str) -> None:
        observer: StoreObserver
        if kind == "recorder":
            observer = Recorder()
        elif kind == "echo":
            observer = Echo()
        else:
            observer = Raiser(on_created=kind == "refuser")
        self.store.subscribe(observer)
        self.slots.append(Slot(observer))

    @precondition(lambda self: self.slots)
    @rule(pick=st.integers(0, 10))
    def unsubscribe(self, pick: int) -> None:
        slot = self.slots.pop(pick % len(self.slots))
        self.store.unsubscribe(slot.observer)
        if isinstance(slot.observer, Recorder):
            assert slot.observer.journal(self.handles) == slot.expected

    # -- invariants ------------------------------------------------------------------------------------

    @invariant()
    def store_holds_the_live_sessions(self) -> None:
        assert [id(s) for s in self.store.list()] == [id(self.sessions[h]) for h in self.live.values()]
        for sid in ("a", "b", "kid", "session-1", "session-2", "session-3"):
            handle = self.live.get(sid)
            got = self.store.get(sid)
            assert (got is None) if handle is None else (got is self.sessions[handle])

    @invariant()
    def logs_histories_and_headers_match_the_spec(self) -> None:
        for handle, session in enumerate(self.sessions):
            log = tuple(self.logs[handle])
            if self.checked.get(handle) == len(session.events) == len(log):
                continue  # nothing new: the log is immutable, so nothing derived from it changed
            self.checked[handle] = len(log)
            assert spec_events(session.events) == log
            derived = spec.derive_messages(log)
            assert not isinstance(derived, spec.Rejection)
            assert text(session.derive_messages().to_json()) == text(list(derived))
            folded = spec.fold_request_header(log)
            try:
                header = session.request_header()
            except RequestHeaderError as error:
                assert isinstance(folded, spec.Rejection)
                assert (error.code, error.seq) == (folded.code, folded.seq)
            else:
                assert not isinstance(folded, spec.Rejection), folded
                assert text(None if header is None else header.to_json()) == text(
                    None if folded is None else spec.header_json(folded)
                )

    @invariant()
    def observers_hear_what_the_model_says(self) -> None:
        for slot in self.slots:
            if isinstance(slot.observer, Recorder):
                assert slot.observer.journal(self.handles) == slot.expected
        assert [(e.session_id, e.seq, len(e.failures)) for e in self.reported] == self.expected_reports

    @invariant()
    def every_observer_hears_each_session_in_seq_order(self) -> None:
        """B11 stated directly: per observer and session, event seqs strictly increase."""
        for slot in self.slots:
            if isinstance(slot.observer, Recorder):
                last: dict[int, int] = {}
                for kind, session, *rest in slot.observer.seen:
                    if kind == "event":
                        assert rest[0] > last.get(id(session), -1), slot.observer.journal(self.handles)
                        last[id(session)] = rest[0]


def header_json(
    sid: str, cwd: str | None, *, parent_session: str | None = None, seed_length: int | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"version": 0, "id": sid, "createdAt": FIXED_TIME}
    if cwd is not None:
        out["cwd"] = cwd
    if parent_session is not None:
        out["parentSession"] = parent_session
    if seed_length is not None:
        out["seedLength"] = seed_length
    return out


#: (examples, steps): default, thorough, mutation (the health checks this machine has always run with:
#: the derandomized hunts for its mutants below are tuned to them).
MACHINE_SETTINGS = settings(
    machine_settings((100, 30), (1000, 60), (25, 30)),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

TestStoreMachine = StoreMachine.TestCase
TestStoreMachine.settings = MACHINE_SETTINGS


# -- mutants ---------------------------------------------------------------------------------------------


class UnsafeDetachStore(SessionStore):
    """The reference's detach (B18): delete whatever is stored under the id."""

    def enter(self, session: Session) -> Callable[[], None]:
        super().enter(session)

        def detach() -> None:
            session._append_hook = None
            self._sessions.pop(session.id, None)
            self._hooks.pop(session.id, None)

        return detach


class StopOnErrorStore(SessionStore):
    """Delivery that gives up on an event at the first observer that raises."""

    def _drain(self) -> None:
        self._delivering = True
        try:
            while self._queue:
                session, event = self._queue.popleft()
                for observer in tuple(self._observers.values()):
                    try:
                        observer.session_event(session, event)
                    except Exception as error:
                        self._report(ObserverError(session.id, event.seq, ((observer, error),)), error)
                        break
        finally:
            self._delivering = False


class EagerDeliveryStore(SessionStore):
    """Delivery that does not queue re-entrant appends (B11: later observers see n+1 before n)."""

    def _on_append(self, session: Session, event: Event) -> None:
        self._queue.append((session, event))
        outer = self._delivering
        self._drain()
        self._delivering = outer


class UncheckedForkStore(SessionStore):
    """0.1's fork: the child of a checked session is silently unchecked."""

    def fork(
        self,
        source: Session | str,
        boundary: int | float | None = None,
        child_id: str | None = None,
        *,
        invariants: bool | None = None,
    ) -> Session:
        return super().fork(source, boundary, child_id, invariants=False)


MUTANTS = [UnsafeDetachStore, StopOnErrorStore, EagerDeliveryStore, UncheckedForkStore]


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.__name__)
def test_the_machine_catches_each_mutant(mutant: type[SessionStore]) -> None:
    machine = type(f"{mutant.__name__}Machine", (StoreMachine,), {"store_factory": mutant})
    hunt = settings(
        MACHINE_SETTINGS,
        max_examples=400,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        print_blob=False,
    )
    with pytest.raises(AssertionError):
        run_state_machine_as_test(machine, settings=hunt)

"""The implementation and the spec, driven side by side by one Hypothesis state machine.

Every rule does the same thing to a :class:`dsh_session.Session` and to the
spec's log (a tuple of ``dsh_spec.Event``): appends of every kind, valid and
not, replaces over every sort of range, ``surface.invalidate()``, derives at
random moments, re-seeding a new session from the log, seeding with broken
records, and attempts to change what the API handed out. After every step the
invariant demands that the two agree, type-strictly: the events, the surface
nodes with their links, the replace generation, the derived history, and that
every view handed out earlier still shows what it showed then.

How the two are fed the same input. The implementation takes a few things the
spec's JSON world does not have, and the machine translates them:

- its own value types: a ``Replace`` or a frozen mapping as ``surfaceOp`` is
  the JSON object ``{op, start, end}``; frozen data is the plain value;
- ``source_event_seqs`` may be any iterable (it is listed on the way in);
- ``None`` for ``surface_op`` / ``source_event_seqs`` means "absent".

Arguments that break ``append``'s annotations (a non-str type, a float in the
provenance) are passed to the undecorated method, so the implementation's own
checks answer rather than beartype's sampling. The clock is injected: the time
an append gets is the one the spec is given.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import random
import sys
import time as _wall
from collections.abc import Callable, Iterable
from typing import Any

import orjson
from hypothesis import event as note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import dsh_spec
from dsh_session import (
    Event,
    InvalidEventError,
    LoggedEvent,
    Replace,
    Session,
    SurfaceManager,
    freeze,
    seed_violations,
)
from dsh_session.event import payload_text
from dsh_session.js_json import dumps, js_number
from dsh_session.json_value import NotJsonError, TooDeepError, canonical, is_json_value
from dsh_spec import ABSENT, Draft, Rejection
from dsh_spec.ecma_text import number_to_string
from dsh_spec.persistence import js_parse
from tests import strategies as S
from tests.load_probes import run_load_probes
from tests.machine_logs import DEPTH_LIMIT, EDGE_PAYLOADS, TurnWriter, nested
from tests.machine_support import Disagreement, plain, require, same_json, unguarded, unguarded_method
from tests.machine_support import fresh_int as _fresh
from tests.seed_probes import run_seed_probes, seeded, seeded_alike
from tests.support import is_fresh_copy


class Clock:
    """A deterministic clock; a value can be queued for the next call (even a bad one)."""

    def __init__(self) -> None:
        self.now = 1_767_225_600_000
        self.last: object = None
        self.queued: list[object] = []

    def __call__(self) -> int:
        if self.queued:
            value = self.queued.pop(0)
        else:
            self.now += 7
            value = self.now
        self.last = value
        return value  # type: ignore[return-value]


#: Odd clock readings: integral floats are fine (canonical ints), the rest are not integers.
ODD_TIMES = (7.0, -3, 0, 2**53, 2**53 + 1, 2.0**60, 7.5, True, float("nan"), "7", None)
#: Clock readings at the edges of the exact range, each a step on either side of its end.
EDGE_TIMES = (-(2**53) - 1, -(2**53), -(2**53) + 1, 2**53 - 1, 2**53, 2**53 + 1, 2**54, 2.0**53, -7.0)


#: How a hand-built event may break its type or time (``seed_with_hand_built_events``).
HAND_BUILT_BREAKS: tuple[tuple[str, object], ...] = (
    ("type", ""),
    ("type", "user/message"),  # a surface type, with no surface operation
    ("type", 5),
    ("time", 2**53 + 1),
    ("time", -(2**53) - 1),
    ("time", True),
    ("time", 7.5),
    ("time", "7"),
    ("refs", (0,)),  # provenance on a log-only type
    ("op", "append"),  # a surface operation on a log-only type
)


#: A payload broken for the shape its type needs (``append_at_the_edges``).
SHAPE_BREAKS: tuple[tuple[str, Callable[[dict[str, Any]], dict[str, Any]]], ...] = (
    ("tool/result", lambda p: {k: v for k, v in p.items() if k != "callId"}),
    ("tool/result", lambda p: {**p, "isError": 0}),
    ("context/message", lambda p: {**p, "envelope": "bad"}),
    ("steering/message", lambda p: {**p, "source": "user"}),
    ("steering/message", lambda p: {**p, "source": {"kind": 5}}),
)


#: Numbers at the edges of what a double holds, for ``js_number`` against the spec's
#: ``Number::toString`` (integers beyond 2**53 are spelled as the double they round to).
EDGE_NUMBERS: tuple[int | float, ...] = (
    *(sign * (2**53 + delta) for sign in (1, -1) for delta in (-1, 0, 1, 2, 3)),
    2**64,
    -(2**64) - 1,
    2**1000,
    10**21,
    10**21 - 1,
    0,
    -0.0,
    1e-7,
    1.5e-7,
    1e-6,
    1e21,
    1e20,
    123e-20,
    5e-324,
)


class _Text(str):
    """A ``str`` subclass: no JSON value, so an ``"append"`` of this class is no surface operation."""


class _Equal(dict[str, int]):
    """Claims to equal anything (and to differ from nothing): no surface operation or
    provenance, and never "absent". A mapping, which ``append`` hands on as it is."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = None

    def __repr__(self) -> str:
        return "_Equal()"


#: A log this long is long enough: the bulk rules then add little at a time.
LONG = 500
#: What one ``append_many`` adds: a turn, several, a turn a crash cut short, a bulk run.
MANY = ("turn", "turns", "plain turns", "crashed turn", "bulk")


@dataclasses.dataclass
class Offer:
    """One append as offered to both sides: what the implementation gets, what the spec gets."""

    kind: object
    data: Any
    spec_data: Any
    op: Any = ABSENT
    spec_op: Any = ABSENT
    refs: Any = ABSENT
    spec_refs: Any = ABSENT
    bypass: bool = False
    label: str = ""
    #: Call the implementation with the interpreter's stack nearly full (``near_the_stack_limit``).
    deep_stack: bool = False
    #: Pass the type and the payload by keyword (``append(type=..., data=...)``).
    by_keyword: bool = False


_REPLACE_CODES = frozenset(
    {
        dsh_spec.Code.REPLACE_START_NOT_ON_SURFACE,
        dsh_spec.Code.REPLACE_END_NOT_ON_SURFACE,
        dsh_spec.Code.REPLACE_RANGE_REVERSED,
        dsh_spec.Code.REPLACE_PROVENANCE_INCOMPLETE,
    }
)


class CoreMachine(RuleBasedStateMachine):
    """Session (implementation) against dsh_spec (specification)."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = Clock()
        self.session = Session("machine", clock=self.clock)
        self.log: tuple[dsh_spec.Event, ...] = ()
        self.extra_generation = 0
        self.derive_every_step = True
        self.sessions_made = 0
        self.views: list[tuple[str, Any, list[Any]]] = []
        #: A surface of its own over a plain list the machine appends the log to (no session).
        self.standalone_log: list[Event] = []
        self.standalone = SurfaceManager(self.standalone_log)
        self._spec_cache: tuple[tuple[dsh_spec.Event, ...], dsh_spec.Surface, tuple[Any, ...]] | None = None

    # -- the spec's view of the current log ---------------------------------------------

    def spec_state(self) -> tuple[dsh_spec.Surface, tuple[Any, ...]]:
        cache = self._spec_cache
        if cache is None or cache[0] is not self.log:
            surface = dsh_spec.fold_surface(self.log)
            messages = dsh_spec.derive_messages(self.log)
            assert not isinstance(surface, Rejection) and not isinstance(messages, Rejection)
            cache = (self.log, surface, messages)
            self._spec_cache = cache
        return cache[1], cache[2]

    @property
    def order(self) -> tuple[int, ...]:
        return self.spec_state()[0].order

    def replaces_in_log(self) -> int:
        return self.spec_state()[0].generation

    def shadowed_seqs(self) -> list[int]:
        """Seqs that were on the surface once and are not any more."""
        on = set(self.order)
        return [e.seq for e in self.log if e.surface_op is not None and e.seq not in on]

    def log_only_seqs(self) -> list[int]:
        return [e.seq for e in self.log if e.surface_op is None]

    def records(self) -> list[dict[str, Any]]:
        return [dsh_spec.event_json(e) for e in self.log]

    # -- setup ---------------------------------------------------------------------------

    @initialize(derive_every_step=st.booleans(), data=st.data())
    def start(self, derive_every_step: bool, data: st.DataObject) -> None:
        """Derive in every invariant check or only when a rule says so; maybe start from a seed."""
        self.derive_every_step = derive_every_step
        note(f"derive every step: {derive_every_step}")
        run_seed_probes(self.clock)  # fixed, cheap, and otherwise rarely met (tests/seed_probes.py)
        run_load_probes()  # the surface a load folds, once a process (tests/load_probes.py)
        records = data.draw(initial_logs())
        if records:
            expected = dsh_spec.check_seed(records)
            require(not isinstance(expected, Rejection), lambda: f"the initial seed is refused: {expected}")
            try:
                seeded = Session("machine", records, clock=self.clock)
            except Exception as error:
                raise Disagreement(f"the initial seed, which the spec takes, raised {error!r}") from error
            self.adopt(seeded, expected)  # type: ignore[arg-type]

    # -- the invariant --------------------------------------------------------------------

    @invariant()
    def implementation_agrees_with_spec(self) -> None:
        session = self.session
        surface, messages = self.spec_state()
        require(session.seq == len(self.log), lambda: f"seq {session.seq} vs {len(self.log)}")
        events = session.events
        require(len(events) == len(self.log), "length of events")
        for impl_event, spec_event in zip(events, self.log, strict=True):
            same_json(impl_event.to_json(), dsh_spec.event_json(spec_event), f"event {spec_event.seq}")
        nodes = session.surface.nodes
        expected_nodes = tuple(tuple(node) for node in dsh_spec.surface_nodes(surface))
        same_json([list(n) for n in nodes], [list(n) for n in expected_nodes], "surface nodes")
        require(type(nodes) is tuple, "surface.nodes is a tuple")
        require(session.surface.seqs() == list(surface.order), "surface.seqs()")
        require(len(session.surface) == len(surface.order), "len(surface)")
        generation = session.surface.replace_generation
        expected_generation = surface.generation + self.extra_generation
        require(
            type(generation) is int and generation == expected_generation,
            lambda: f"replace generation {generation!r}, expected {expected_generation}",
        )
        if self.derive_every_step:
            derived = session.derive_messages()
            same_json(list(derived), list(messages), "derived messages")
            self.keep_view("messages", derived, plain(list(messages)))
        else:
            projected = [session.derive_event_message(events[seq]) for seq in surface.order]
            same_json([m for m in projected if m is not None], list(messages), "projected surface")
        for label, view, expected in self.views:
            same_json(list(view), expected, f"a {label} view taken earlier")

    def keep_view(self, label: str, view: Any, expected: list[Any]) -> None:
        self.views.append((label, view, expected))
        del self.views[:-6]

    # -- appending ------------------------------------------------------------------------

    def offer(self, offer: Offer) -> Event | None:
        """Append on both sides and demand the same outcome; ``None`` when refused."""
        session = self.session
        before = (session.seq, session.surface.nodes, session.surface.replace_generation)
        kwargs: dict[str, Any] = {}
        if offer.op is not ABSENT:
            kwargs["surface_op"] = offer.op
        if offer.refs is not ABSENT:
            kwargs["source_event_seqs"] = offer.refs
        method = type(session).append
        call: Any = getattr(method, "__wrapped__", method) if offer.bypass else method
        outcome: Event | InvalidEventError
        if offer.by_keyword:
            kwargs.update(type=offer.kind, data=offer.data)
            given: tuple[Any, ...] = ()
        else:
            given = (offer.kind, offer.data)
        try:
            if offer.deep_stack:
                outcome = near_the_stack_limit(lambda: call(session, *given, **kwargs))
            else:
                outcome = call(session, *given, **kwargs)
        except InvalidEventError as error:
            outcome = error
        except Exception as error:
            raise Disagreement(f"append raised {type(error).__name__}: {error}") from error
        draft = Draft(offer.kind, self.clock.last, offer.spec_data, offer.spec_op, offer.spec_refs)
        expected = dsh_spec.validate_append(self.log, draft)
        if isinstance(outcome, InvalidEventError):
            require(
                isinstance(expected, Rejection),
                lambda: f"implementation refused {offer.label} with {outcome.code}; the spec accepts it",
            )
            assert isinstance(expected, Rejection)
            self.check_refusal(outcome, expected, offer.kind)
            after = (session.seq, session.surface.nodes, session.surface.replace_generation)
            require(after == before, lambda: f"a refused append changed the session: {before} -> {after}")
            note(f"refused: {outcome.code}")
            return None
        require(
            isinstance(expected, dsh_spec.Event),
            lambda: f"implementation accepted {offer.label}; the spec refuses it: {expected}",
        )
        assert isinstance(expected, dsh_spec.Event)
        self.check_event(outcome, expected)
        self.log = (*self.log, expected)
        note(f"accepted: {offer.label}")
        return outcome

    def check_refusal(self, error: InvalidEventError, expected: Rejection, kind: object) -> None:
        require(
            error.code == expected.code and error.seq == expected.seq,
            lambda: f"refusal {error.code}@{error.seq}, spec {expected.code}@{expected.seq}: {error.message}",
        )
        require(error.event_type is kind, "the error carries the offered type")
        require(isinstance(error, ValueError), "InvalidEventError is a ValueError")
        require(str(expected.seq) in error.message, lambda: f"message names the seq: {error.message}")
        if isinstance(kind, str) and kind:
            require(kind in error.message, lambda: f"message names the type: {error.message}")

    def check_event(self, impl: Event, spec: dsh_spec.Event) -> None:
        same_json(impl.to_json(), dsh_spec.event_json(spec), "the returned event")
        text, spelled = payload_text(impl), dsh_spec.js_stringify(spec.data).encode()
        require(text == spelled, lambda: f"payload text {text[:200]!r}, the spec writes {spelled[:200]!r}")
        require(type(impl.type) is str and type(impl.seq) is int and type(impl.time) is int, "field types")
        require(is_fresh_copy(lambda: impl.data), "logged data is handed out as a fresh copy")
        refs = impl.source_event_seqs
        require(refs is None or type(refs) is tuple, "provenance is a tuple")
        op = impl.surface_op
        require(op is None or op == "append" or type(op) is Replace, "surface op is 'append' or a Replace")
        message = self.session.derive_event_message(impl)
        same_json(message, dsh_spec.derive_event_message(spec), "derive_event_message of the new event")

    @rule(data=st.data())
    def append_surface(self, data: st.DataObject) -> None:
        self._append_surface(data)

    @rule(data=st.data())
    def append_surface_more(self, data: st.DataObject) -> None:
        self._append_surface(data)

    def _append_surface(self, data: st.DataObject) -> None:
        kind = data.draw(st.sampled_from(S.SURFACE_KINDS))
        choice = data.draw(st.integers(0, 9))
        if choice <= 6:
            payload = data.draw(S.payloads(kind))
            label = "append"
        elif choice <= 8:
            payload = data.draw(S.broken_payloads(kind))
            label = "append with a broken payload"
        else:
            payload = data.draw(S.non_json_values())
            label = "append with non-JSON data"
        op: Any = data.draw(st.sampled_from(("append", "append", freeze("append"))))
        offer = Offer(kind, payload, payload, op, "append", label=f"{kind} {label}")
        if data.draw(st.integers(0, 4)) <= 1:  # as a harness's assistant messages and tool results do
            self.add_refs(offer, data, cover=[])
        self.offer(offer)

    @rule(data=st.data())
    def append_log_only(self, data: st.DataObject) -> None:
        self._append_log_only(data)

    @rule(data=st.data())
    def append_log_only_more(self, data: st.DataObject) -> None:
        self._append_log_only(data)

    def _append_log_only(self, data: st.DataObject) -> None:
        kind = data.draw(st.sampled_from(S.LOG_ONLY_KINDS))
        choice = data.draw(st.integers(0, 19))
        payload = data.draw(S.non_json_values()) if choice == 0 else data.draw(S.json_values)
        offer = Offer(kind, payload, payload, label=f"{kind}")
        if choice == 1:
            offer.op = offer.spec_op = data.draw(
                st.sampled_from(("append", {"op": "replace", "start": 0, "end": 0}))
            )
            offer.label += " with a surfaceOp"
        elif choice == 2:
            offer.refs = offer.spec_refs = data.draw(st.sampled_from(([0], [], [True])))
            offer.label += " with sourceEventSeqs"
        elif choice == 3:
            self.clock.queued = [data.draw(st.sampled_from(ODD_TIMES))]
            offer.label += f" at an odd time {self.clock.queued[0]!r}"
        elif choice == 4:
            offer.data, offer.spec_data = S.shared_reference_value(), S.shared_reference_value()
            offer.label += " with shared references"
        self.offer(offer)

    @rule(data=st.data())
    def append_at_the_edges(self, data: st.DataObject) -> None:
        """One offer for each edge in turn (a search seldom draws all of them at the right
        moment): a log-only event at each edge of the time range; a surface append whose
        ``surfaceOp`` is a ``str`` subclass equal to ``"append"`` or a string sorting next to
        it; a surface op and a provenance that claim to equal anything (on a surface and a
        log-only type); a surface append whose provenance names itself or the next seq alone,
        an int at or past either end of the exact range, or is bytes or a mapping of seqs, or
        (with a plain payload, which the C fast path admits itself) names a seq twice; a
        replace whose ``op`` sorts after ``"replace"`` or whose provenance misses only an inner
        node; replaces with an endpoint at either end of the exact range; and payloads of the
        wrong shape for the types that have one, each type also given as a string built at run
        time."""
        for time in EDGE_TIMES:
            self.clock.queued = [time]
            kind = data.draw(st.sampled_from(S.LOG_ONLY_KINDS))
            self.offer(Offer(kind, {"at": "edge"}, {"at": "edge"}, label=f"{kind} at the edge time {time}"))
        for times in ((1, True), (True, 1), (0, False), (False, 0), (7, 7.0), (7.0, 7)):  # equal, not alike
            for time in times:
                self.clock.queued = [time]
                kind = data.draw(st.sampled_from(S.LOG_ONLY_KINDS))
                self.offer(Offer(kind, {"at": time}, {"at": time}, label=f"{kind} at {time!r}, in {times}"))
        for bad_kind in (5, None, b"turn/start", True, ["turn/start"], 0.5):  # no surface field: no marker
            label = f"a log-only event of type {bad_kind!r}"
            self.offer(Offer(bad_kind, {"at": "edge"}, {"at": "edge"}, bypass=True, label=label))
        kind = data.draw(st.sampled_from(S.LOG_ONLY_KINDS))
        keyword = Offer(kind, {"by": "keyword"}, {"by": "keyword"}, label=f"{kind} by keyword")
        keyword.by_keyword = True
        self.offer(keyword)
        self.positional_marker_refused(data)
        kind = data.draw(st.sampled_from(S.SURFACE_KINDS))
        payload = data.draw(S.payloads(kind))
        odd = _Text("append")
        self.offer(Offer(kind, payload, payload, odd, odd, label=f"{kind} whose surfaceOp is a str subclass"))
        for name in ("appendix", "Append", ""):  # strings sorting after and before "append"
            payload = data.draw(S.payloads(kind))
            self.offer(Offer(kind, payload, payload, name, name, label=f"{kind} whose surfaceOp is {name!r}"))
        for target in (kind, data.draw(st.sampled_from(S.LOG_ONLY_KINDS))):
            op: Any = "append" if target == kind else ABSENT
            value = data.draw(S.payloads(kind)) if target == kind else {"at": "edge"}
            # (past the run-time type check of the tests, as a caller without one would)
            label = f"{target} whose surfaceOp claims to equal anything"
            self.offer(Offer(target, value, value, _Equal(), _Equal(), bypass=True, label=label))
            label = f"{target} whose sourceEventSeqs claim to equal anything"
            self.offer(Offer(target, value, value, op, op, _Equal(), _Equal(), bypass=True, label=label))
        payload = data.draw(S.payloads(kind))
        seq = len(self.log)
        for ahead in (0, 1):  # itself alone, the next seq alone
            label = f"{kind} whose provenance names seq {seq + ahead} alone, at seq {seq}"
            named = [seq + ahead]
            self.offer(Offer(kind, payload, payload, "append", "append", named, list(named), label=label))
            payload = data.draw(S.payloads(kind))
        if seq >= 2:  # plain payloads, so that the fast path answers: a seq named twice, and not
            for named in ([seq - 1, seq - 2, seq - 1], [seq - 2, seq - 1]):
                payload = S.plain_payload(kind, f"provenance {named}")
                label = f"{kind} with a plain payload whose provenance is {named}"
                self.offer(Offer(kind, payload, payload, "append", "append", named, list(named), label=label))
        if seq > 300:  # more distinct earlier seqs than CPython keeps one int object for
            payload = data.draw(S.payloads(kind))
            many = list(range(300))
            label = f"{kind} whose provenance names 300 earlier seqs"
            self.offer(Offer(kind, payload, payload, "append", "append", many, list(many), label=label))
        for edge in (2**53 + 1, -(2**53) - 1, 2**53, -(2**53)):  # past the exact ints, at their ends
            payload = data.draw(S.payloads(kind))
            label = f"{kind} whose provenance is [{edge}]"
            self.offer(Offer(kind, payload, payload, "append", "append", [edge], [edge], label=label))
        for refs in (b"\x00", {0: 0}, _NotAnIterator()):  # no list of seqs, or no iterator
            payload = data.draw(S.payloads(kind))
            label = f"{kind} whose provenance is {refs!r}"
            self.offer(Offer(kind, payload, payload, "append", "append", refs, refs, label=label))
        for kind, broken in SHAPE_BREAKS:
            # each with its type as written and as a string built at run time (not interned)
            for name in (kind, "/".join(kind.split("/"))):
                payload = broken(data.draw(S.payloads(kind)))
                label = f"{name} with a payload of the wrong shape"
                self.offer(Offer(name, payload, payload, "append", "append", label=label))
        order = self.order
        if order:
            start, end = order[0], order[-1]
            if len(order) >= 3:  # a provenance that misses only an inner node of the range
                payload = data.draw(S.payloads(kind))
                op = {"op": "replace", "start": order[0], "end": order[2]}
                ends = [order[0], order[2]]
                label = f"{kind} replace whose provenance misses its inner node"
                self.offer(Offer(kind, payload, payload, op, dict(op), ends, list(ends), label=label))
            ops = [
                ({"op": "replacement", "start": start, "end": end}, "whose op sorts after 'replace'"),
                ({"op": "replace", "start": 2**53, "end": end}, "from 2**53 (an int, not on the surface)"),
                ({"op": "replace", "start": start, "end": -(2**53)}, "to -(2**53) (an int, not on it)"),
            ]
            for op, how in ops:
                payload = data.draw(S.payloads(kind))
                label = f"{kind} replace {how}"
                self.offer(Offer(kind, payload, payload, op, dict(op), list(order), list(order), label=label))

    @rule(data=st.data(), deep_stack=st.booleans())
    def append_payload_edges(self, data: st.DataObject, deep_stack: bool) -> None:
        """Each payload at the edges of the JSON-value rule (``machine_logs.EDGE_PAYLOADS``:
        nesting at and next to the limit in every shape, lone surrogates, JavaScript's numbers
        and key order), and each shape one container past the limit, as a log-only event and
        inside a surface message; maybe with the interpreter's stack nearly full, where the
        result must not change (the text and the refusals are the spec's either way)."""
        kind = data.draw(st.sampled_from(S.LOG_ONLY_KINDS))
        too_deep: list[tuple[str, Callable[[], Any]]] = [
            (f"nested {DEPTH_LIMIT + 1} deep ({shape})", functools.partial(nested, DEPTH_LIMIT + 1, shape))
            for shape in ("lists", "objects", "alternating", "siblings")
        ]
        too_deep.append(("nested 1000 deep", lambda: nested(1000, "lists")))
        deep_after = ("too deep after a plain key", lambda: {"ok": 1, "deep": nested(DEPTH_LIMIT, "objects")})
        too_deep.append(deep_after)
        for value in (2**53 + 1, -(2**53) - 1, 2**1024, math.nan, math.inf, -math.inf):  # refused, whole
            too_deep.append((f"the scalar {value!r} as the whole payload", functools.partial(_same, value)))
        too_deep += [
            ("a str subclass as a key", lambda: {"a": 1, _Text("content"): 1}),
            ("a str subclass as the only key", lambda: {_Text("content"): 1}),
            ("a tuple inside", lambda: {"t": (1, 2)}),
            ("an inexact integer inside", lambda: {"n": [2**53 + 1]}),
            ("a float subclass inside", lambda: [1, _Float(0.5)]),
        ]
        for label, make in (*EDGE_PAYLOADS, *too_deep):  # the JSON-value rule's public checks
            expected = dsh_spec.canonical_json(make())
            refused = isinstance(expected, dsh_spec.NotJson)
            if is_json_value(make()) is refused:
                raise Disagreement(f"is_json_value of {label}: the spec says {expected!r:.120}")
            try:
                got: Any = canonical(make())
            except NotJsonError as error:
                deep = isinstance(expected, dsh_spec.TooDeep)
                if not refused or isinstance(error, TooDeepError) is not deep:
                    raise Disagreement(f"canonical of {label}: {error}; spec: {expected!r:.120}") from None
            else:
                if refused:
                    raise Disagreement(f"canonical of {label} took what the spec refuses: {expected}")
                same_json(got, expected, f"canonical of {label}")
        where = " from a nearly full stack" if deep_stack else ""
        for label, make in EDGE_PAYLOADS:  # JSON.stringify of each, as given and frozen
            value = make()
            spelled = dsh_spec.js_stringify(value)
            for given in (value, freeze(value)):
                text = dumps(given)
                if text != spelled:
                    raise Disagreement(f"js_json.dumps of {label}: {text[:120]!r}, JS {spelled[:120]!r}")
        for number in EDGE_NUMBERS:  # Number::toString, as fork messages and the CLI spell numbers
            if js_number(number) != number_to_string(number):
                raise Disagreement(
                    f"js_number({number!r}): {js_number(number)!r}, JS {number_to_string(number)!r}"
                )
        for index, (label, make) in enumerate((*EDGE_PAYLOADS, *too_deep)):
            offer = Offer(kind, make(), make(), label=f"{kind} with {label}{where}", deep_stack=deep_stack)
            self.offer(offer)
            if index % 4 == 0 or index >= len(EDGE_PAYLOADS):
                surface_kind = data.draw(st.sampled_from(S.SURFACE_KINDS))
                payload = data.draw(S.payloads(surface_kind))
                made, given = dict(payload), dict(payload)
                made["extra"], given["extra"] = make(), make()
                label = f"{surface_kind} carrying {label}{where}"
                offer = Offer(surface_kind, made, given, "append", "append", label=label)
                offer.deep_stack = deep_stack
                self.offer(offer)

    def positional_marker_refused(self, data: st.DataObject) -> None:
        """The surface fields are keyword-only: given by position, ``append`` raises
        ``TypeError`` and the session is as it was."""
        kind = data.draw(st.sampled_from(S.SURFACE_KINDS))
        payload = data.draw(S.payloads(kind))
        session = self.session
        before = (session.seq, session.surface.nodes)
        method = unguarded(type(session).append)
        for extra in (("append",), ("append", [0])):
            try:
                method(session, kind, payload, *extra)
            except TypeError:
                pass
            else:
                raise Disagreement(f"append took {len(extra)} surface field(s) by position")
            require((session.seq, session.surface.nodes) == before, "a refused call changed the session")

    @rule(data=st.data(), how=st.sampled_from(MANY))
    def append_many(self, data: st.DataObject, how: str) -> None:
        self._append_many(data, how)

    @rule(data=st.data(), how=st.sampled_from(MANY))
    def append_many_more(self, data: st.DataObject, how: str) -> None:
        self._append_many(data, how)

    def _append_many(self, data: st.DataObject, how: str) -> None:
        """Whole W1-like turns or a bulk run in one step (``tests/machine_logs.py``), each event
        offered to both sides: how the log reaches several hundred events at a bounded cost."""
        rng = random.Random(data.draw(st.integers(0, 2**32 - 1)))
        writer = TurnWriter(self.offer_plain, lambda: self.order, rng, traps=how != "plain turns")
        scale = 1 if len(self.log) < LONG else 8
        if how == "turn":
            writer.turn(rng.randint(0, 9))
        elif how in ("turns", "plain turns"):  # plain: W1's numbers and keys, the C paths' to take
            for number in range(rng.randint(2, 8) // scale + 1):
                writer.turn(number)
        elif how == "crashed turn":
            writer.turn(rng.randint(0, 9), finish=False)
        else:
            writer.bulk(rng.randint(10, 120) // scale)
        note(f"{how}: log now {len(self.log)}")
        self.surface_lookups(data)

    def offer_plain(
        self, kind: str, data: Any, surface_op: Any = None, source_event_seqs: Any = None
    ) -> Event | None:
        """``append``'s signature, offered to both sides (``None`` is "absent", as for append)."""
        offer = Offer(kind, data, data, label=f"{kind} (many)")
        if surface_op is not None:
            offer.op = offer.spec_op = surface_op
        if source_event_seqs is not None:
            offer.refs, offer.spec_refs = list(source_event_seqs), list(source_event_seqs)
        return self.offer(offer)

    @rule(data=st.data())
    def append_aliasing(self, data: st.DataObject) -> None:
        """Appends where the caller keeps or reuses references to the data."""
        if len(self.log) > 0 and data.draw(st.booleans()):
            self.append_reused_frozen_data(data)
        else:
            self.append_then_change_the_input(data)

    def append_reused_frozen_data(self, data: st.DataObject) -> None:
        """Data taken from what the implementation returned is frozen; it is accepted as JSON."""
        source = self.session.events[data.draw(st.integers(0, len(self.log) - 1))]
        reused = source.data
        wrapped = data.draw(st.booleans())
        payload: Any = {"reused": reused, "n": 1.0} if wrapped else reused
        spec_payload: Any = {"reused": plain(reused), "n": 1.0} if wrapped else plain(reused)
        kind = source.type if source.surface_op is None and not wrapped else "tool/call"
        self.offer(Offer(kind, payload, spec_payload, label="reused frozen data"))

    def append_then_change_the_input(self, data: st.DataObject) -> None:
        """Changing the caller's objects after append changes nothing logged."""
        payload: dict[str, Any] = {
            "content": [{"type": "text", "text": "original"}],
            "source": {"kind": "user"},
            "nested": {"list": [1, 2.5]},
        }
        refs = [seq for seq in range(len(self.log)) if data.draw(st.booleans())][:3]
        offer = Offer("user/message", payload, payload, "append", "append", label="input changed afterwards")
        if refs:
            offer.refs, offer.spec_refs = refs, list(refs)
        kept = self.offer(offer)
        payload["content"][0]["text"] = "HACKED"
        payload["content"].append({"type": "text", "text": "more"})
        payload["nested"]["list"].append(3)
        payload["source"]["kind"] = "plugin"
        refs.append(10**6)
        if kept is not None:
            require(kept.data["content"][0]["text"] == "original", "the caller's data is not aliased")

    # -- surface operations ------------------------------------------------------------------

    @rule(data=st.data())
    def replace(self, data: st.DataObject) -> None:
        self._replace(data)

    @rule(data=st.data())
    def replace_more(self, data: st.DataObject) -> None:
        self._replace(data)

    @rule(data=st.data())
    def replace_again(self, data: st.DataObject) -> None:
        self._replace(data)

    def _replace(self, data: st.DataObject) -> None:
        order = self.order
        seq = len(self.log)
        kind = data.draw(st.sampled_from(S.SURFACE_KINDS))
        roll = data.draw(st.integers(0, 15))
        if roll == 0:
            payload = data.draw(S.broken_payloads(kind))
        elif roll <= 5:  # plain, as a compaction's summary: the C fast path's to admit or refuse
            payload = S.plain_payload(kind, f"summary at {seq}")
        else:
            payload = data.draw(S.payloads(kind))
        shape = data.draw(st.integers(0, 11)) if order else data.draw(st.integers(6, 11))
        cover: list[int] = []
        start: Any
        end: Any
        if shape <= 5:
            first = data.draw(st.integers(0, len(order) - 1))
            if data.draw(st.integers(0, 3)) == 0:  # a long range, up to the tail
                last = data.draw(st.integers(first, len(order) - 1))
            else:
                last = data.draw(
                    st.integers(first, min(len(order) - 1, first + data.draw(st.integers(0, 4))))
                )
            start, end = order[first], order[last]
            cover = list(order[first : last + 1])
            label = "replace"
            if start > end:
                label += " (numerically reversed, positionally ordered)"
        else:
            start, end, label = self.bad_endpoints(data, order, seq)
            cover = _cover(order, seq, start, end)
        op, spec_op = self.replace_op(data, start, end)
        offer = Offer(kind, payload, payload, op, spec_op, label=f"{kind} {label}")
        if type(op) is dict and any(type(k) is not str for k in op):
            offer.bypass = True
        self.add_refs(offer, data, cover)
        self.offer(offer)

    def bad_endpoints(self, data: st.DataObject, order: tuple[int, ...], seq: int) -> tuple[Any, Any, str]:
        """Endpoints that must be refused (or, for integral floats, accepted as ints)."""
        on = list(order) or [0]
        candidates: dict[str, list[Any]] = {
            "stale": self.shadowed_seqs(),
            "log-only": self.log_only_seqs(),
            "self": [seq],
            "future": [seq + 1, seq + 5],
            "negative": [-1, -seq - 1],
            "non-int": [True, False, "0", None, 0.5, 2**53 + 1, float("nan"), [0]],
            "integral float": [float(s) for s in on],
        }
        if len(order) >= 2:
            first = data.draw(st.integers(1, len(order) - 1))
            second = data.draw(st.integers(0, first - 1))
            candidates["reversed"] = [(order[first], order[second])]
        name = data.draw(st.sampled_from(sorted(k for k, v in candidates.items() if v)))
        pick = data.draw(st.sampled_from(candidates[name]))
        if name == "reversed":
            return pick[0], pick[1], "replace with a reversed range"
        other = data.draw(st.sampled_from(on))
        if data.draw(st.booleans()):
            return pick, other, f"replace with a {name} start"
        return other, pick, f"replace with a {name} end"

    def replace_op(self, data: st.DataObject, start: Any, end: Any) -> tuple[Any, Any]:
        spec_op: Any = {"op": "replace", "start": start, "end": end}
        form = data.draw(st.integers(0, 9))
        if form <= 4:
            return dict(spec_op), spec_op
        if form <= 6 and type(start) is int and type(end) is int:
            return Replace(start, end), spec_op
        if form == 7:
            malformed = data.draw(
                st.sampled_from(
                    (
                        {"op": "delete", "start": start, "end": end},
                        {"op": "Replace", "start": start, "end": end},
                        {"op": "replace", "start": start},
                        {"op": "replace", "end": end},
                        {"op": "replace", "start": start, "end": end, "extra": 1},
                        {"start": start, "end": end},
                        {},
                        {"op": "replace", "start": start, "end": end, 3: 1},
                    )
                )
            )
            return malformed, malformed
        if form == 8:
            bad = data.draw(st.sampled_from(("Append", "", "replace", "append ", "APPEND")))
            return bad, bad
        try:
            return freeze(spec_op), spec_op
        except ValueError:
            return dict(spec_op), spec_op

    def add_refs(self, offer: Offer, data: st.DataObject, cover: list[int]) -> None:
        """Give the offer a ``sourceEventSeqs``: covering, a superset, or broken in one way."""
        seq = len(self.log)
        earlier = [s for s in range(seq) if s not in cover]
        extras = data.draw(st.lists(st.sampled_from(earlier), max_size=3, unique=True)) if earlier else []
        shuffled = data.draw(st.permutations(cover)) if cover else []
        if not cover:
            shuffled, extras = extras, []
        variant = data.draw(st.sampled_from(("exact", "superset", "tuple", "iterator", "set")))
        if not shuffled and variant != "superset":
            variant = "absent"
        roll = data.draw(st.integers(0, 19))
        if len(cover) >= 3 and roll in (10, 11):
            variant = "missing an inner one"  # neither endpoint: only a full check sees it
        elif cover and roll in (12, 13, 14):
            variant = "missing one"  # the coverage rule gets its own share
        elif cover and roll in (15, 16):
            variant = "absent"
        elif roll >= 17 or (not cover and roll >= 12):
            variant = data.draw(
                st.sampled_from(
                    (
                        "absent",
                        "missing one",
                        "empty",
                        "duplicate",
                        "self",
                        "future",
                        "negative",
                        "bool",
                        "integral float",
                        "fraction",
                        "string",
                        "tuple",
                        "iterator",
                        "set",
                    )
                )
            )
        refs: list[Any] = list(shuffled)
        if variant == "absent":
            offer.label += ", no provenance"
            return
        if variant == "superset":
            refs = shuffled + extras
        elif variant == "missing one" and refs:
            refs.pop(data.draw(st.integers(0, len(refs) - 1)))
            refs += extras
        elif variant == "missing an inner one":
            inner = data.draw(st.sampled_from(cover[1:-1]))
            refs = [r for r in refs if r != inner] + extras
        elif variant == "empty":
            refs = []
        elif variant == "duplicate":
            refs = [*refs, *extras, data.draw(st.sampled_from(refs + extras or [0]))]
        elif variant == "self":
            refs.append(seq)
        elif variant == "future":
            refs.append(seq + data.draw(st.integers(1, 3)))
        elif variant == "negative":
            refs.append(-data.draw(st.integers(1, 3)))
        elif variant == "bool":
            refs.append(True)
        elif variant == "integral float":
            refs = [float(s) for s in refs] or [0.0]
        elif variant == "fraction":
            refs.append(0.5)
        elif variant == "string":
            refs.append(str(seq - 1))
        offer.label += f", provenance {variant}"
        offer.spec_refs = list(refs)
        if variant == "tuple":
            offer.refs = tuple(refs)
        elif variant == "set":
            as_set = set(refs)
            offer.refs, offer.spec_refs = as_set, list(as_set)
        elif variant == "iterator" or any(type(r) not in (int, bool) for r in refs):
            offer.refs = iter(list(refs))
        else:
            offer.refs = refs

    @rule(data=st.data())
    def append_malformed(self, data: st.DataObject) -> None:
        """Bad markers and bad types on otherwise good events."""
        kind: object = data.draw(st.sampled_from(S.SURFACE_KINDS))
        payload = data.draw(S.payloads(str(kind)))
        offer = Offer(kind, payload, payload, label="malformed")
        what = data.draw(st.integers(0, 5))
        if what == 0:
            offer.label = f"{kind} without a surfaceOp"
        elif what == 1:
            bad_kind = data.draw(st.sampled_from(("", 5, None, b"user/message", ["user/message"], True)))
            offer.kind, offer.op, offer.spec_op = bad_kind, "append", "append"
            offer.bypass = type(bad_kind) is not str
            offer.label = f"type {bad_kind!r}"
        elif what == 2:
            bad: Any = data.draw(st.sampled_from((5, True, 0, ["append"], ("append",), 1.5, b"append")))
            offer.op = offer.spec_op = bad
            offer.bypass = True
            offer.label = f"surfaceOp {bad!r}"
        else:
            offer.op = offer.spec_op = "append"
            offer.label = f"{kind} append"
            self.add_refs(offer, data, cover=[])
        self.offer(offer)

    @rule(times=st.integers(1, 3))
    def invalidate(self, times: int) -> None:
        """The reference's invalidate: +1 each, then the refold counts every replace again."""
        for _ in range(times):
            self.session.surface.invalidate()
        self.extra_generation += times + self.replaces_in_log()
        note(f"invalidate x{times}")

    # -- reading ---------------------------------------------------------------------------

    @rule(times=st.integers(1, 3))
    def derive(self, times: int) -> None:
        """Derive (incrementally) now, maybe several times; repeated results share messages."""
        expected = list(self.spec_state()[1])
        previous = None
        for _ in range(times):
            derived = self.session.derive_messages()
            same_json(list(derived), expected, "derived messages")
            previous = derived
            self.keep_view("messages", derived, plain(expected))
        if previous:
            last = previous
            require(is_fresh_copy(lambda: last[0]), "a derived message is handed out as a fresh copy")

    @rule(data=st.data())
    def read(self, data: st.DataObject) -> None:
        """Keep an events view for later, and probe the surface's lookups."""
        self.keep_view("events", _EventsJson(self.session.events), self.records())
        self.surface_lookups(data)
        self.event_message_lookups(data)

    def event_message_lookups(self, data: st.DataObject) -> None:
        """``derive_event_message`` by seq, asked with every kind of seq: each end of the log and
        one past either end, a fresh ``int`` object, an ``int`` subclass, a bool, an integral
        float, a huge int. An int in the log (any subclass but ``bool``) gives the spec's
        projection of that event; another int ``IndexError``; anything else ``TypeError``."""
        length = len(self.log)
        probes: list[Any] = [-1, 0, length - 1, length, 2**64, True, False, 0.0, "0", None]
        probes += [data.draw(seq_probes(self.order, length)), _fresh(length - 1), _Int(length - 1)]
        lookup = unguarded_method(self.session, "derive_event_message")
        for probe in probes:
            if type(probe) is bool or not isinstance(probe, int):
                outcome: Any = TypeError
            elif 0 <= probe < length:
                outcome = dsh_spec.derive_event_message(self.log[probe])
            else:
                outcome = IndexError
            try:
                got = lookup(probe)
            except (TypeError, IndexError) as error:
                require(type(error) is outcome, f"derive_event_message({probe!r}) raised {error!r}")
                # the message names what was asked and what there is
                said = str(error)
                names = [type(probe).__name__]
                if outcome is IndexError:
                    names = [f"seq {int(probe)} ", f"0..{length - 1})"]
                require(all(name in said for name in names), f"derive_event_message({probe!r}) says {said!r}")
                continue
            require(not isinstance(outcome, type), f"derive_event_message({probe!r}) gave {got!r}")
            same_json(got, outcome, f"derive_event_message({probe!r})")

    @rule()
    def on_the_wall_clock(self) -> None:
        """A session with no clock stamps its header and its events with the milliseconds since
        the epoch, as an int, read between the calls around it."""
        before = _wall.time_ns() // 1_000_000
        session = Session(f"wall-{self.sessions_made}")
        events = [
            session.append("turn/start", {"turn": 1}),
            session.append("user/message", _USER, surface_op="append"),
        ]
        after = _wall.time_ns() // 1_000_000
        for stamp in (session.header.created_at, *(e.time for e in events)):
            require(
                type(stamp) is int and before <= stamp <= after,
                f"wall-clock stamp {stamp!r} not in [{before}, {after}]",
            )

    def surface_lookups(self, data: st.DataObject) -> None:
        """``node``, ``in``, ``shadowed`` and ``position``, asked with every kind of seq: one on the
        surface as a fresh ``int`` object (an ``is`` where ``==`` belongs fails past 256), and
        what only a lax lookup would take for one -- bools, integral floats, huge ints, seqs off
        the surface."""
        surface = self.session.surface
        order = self.order
        nodes = {node.seq: node for node in dsh_spec.surface_nodes(self.spec_state()[0])}
        probes = [data.draw(seq_probes(order, len(self.log))) for _ in range(3)]
        if order:  # and always the tail, the newest seq: past 256 as soon as the log is
            probes.append(_fresh(order[-1]))
        node, position, shadowed = (
            unguarded_method(surface, name) for name in ("node", "position", "shadowed")
        )
        for probe in probes:
            found = node(probe)
            inside = type(probe) is int and probe in nodes
            if inside:
                require(found is not None and tuple(found) == tuple(nodes[probe]), f"surface.node({probe!r})")
                where, expected = position(probe), dsh_spec.surface.position(order, probe)
                require(where == expected, f"surface.position({probe}) is {where}, expected {expected}")
            else:
                require(found is None, f"surface.node({probe!r}) should find nothing, found {found}")
            require((probe in surface) == inside, f"{probe!r} in surface should be {inside}")
        ends = [*order[:1], *order[-1:], 0, 1]
        pairs = [
            *itertools.pairwise(probes),
            *((b, e) for b in (True, False) for e in ends),
            *((e, True) for e in ends),
        ]
        for start, end in pairs:
            got = shadowed(start, end)
            span = (
                dsh_spec.shadowed(order, len(self.log), dsh_spec.Replace(start, end))
                if type(start) is int and type(end) is int
                else None
            )
            want = None if isinstance(span, Rejection) else span
            require(got == want, f"surface.shadowed({start!r}, {end!r}) is {got}, expected {want}")
        require([tuple(n) for n in surface] == [tuple(n) for n in nodes.values()], "iterating the surface")

    @rule(data=st.data())
    def standalone_surface(self, data: st.DataObject) -> None:
        """A ``SurfaceManager`` built over a list (not a session's) folds what is appended to the
        list after it was made, read between appends (at up to two random cuts): its nodes,
        seqs, length and generation are the spec's surface of the list. The list holds the
        session's events, or equal ones built by hand (fresh ``int`` and ``str`` objects, so a
        surface that compares them by identity fails). ``owned`` is a keyword only."""
        log, events = self.standalone_log, self.session.events
        if len(log) > len(events) or (log and log[-1].to_json() != events[len(log) - 1].to_json()):
            log.clear()  # the machine's log was seeded anew: start over
            self.standalone = SurfaceManager(log)
        surface = self.standalone
        cuts = sorted(data.draw(st.lists(st.integers(len(log), len(events)), max_size=2), label="cuts"))
        by_hand = data.draw(st.booleans(), label="events built by hand")
        for cut in [*cuts, len(events)]:
            log.extend(map(_by_hand, events[len(log) : cut]) if by_hand else events[len(log) : cut])
            require(len(surface) <= cut, "a standalone surface's length")  # read between appends
        spec = self.spec_state()[0]
        want = [list(node) for node in dsh_spec.surface_nodes(spec)]
        same_json([list(node) for node in surface.nodes], want, "a standalone surface's nodes")
        require(surface.seqs() == list(spec.order), "a standalone surface's seqs()")
        require(len(surface) == len(spec.order), "a standalone surface's length")
        require(surface.replace_generation == spec.generation, "a standalone surface's generation")
        try:
            SurfaceManager(log, True)  # type: ignore[call-arg]
        except TypeError:
            pass
        else:
            raise Disagreement("SurfaceManager took owned as a positional argument")

    @rule(data=st.data())
    def try_to_change_what_was_returned(self, data: st.DataObject) -> None:
        """Every attempt to change a returned value is refused, or changes only a fresh copy;
        the invariant then checks that nothing in the session moved."""
        targets = self.mutation_targets()
        name, attempt, expected_error = data.draw(st.sampled_from(targets))
        try:
            attempt()
        except expected_error:
            note(f"mutation refused: {name}")
            return
        except (KeyError, IndexError, ValueError, TypeError) as error:  # sorting dicts: TypeError
            if expected_error is not _COPY:
                got = type(error).__name__
                raise Disagreement(f"{name}: raised {got}, not {expected_error.__name__}") from error
            note(f"mutation of a copy failed as on any list or dict: {name}")
            return
        except Exception as error:
            raise Disagreement(
                f"{name}: raised {type(error).__name__}, not {expected_error.__name__}"
            ) from error
        if expected_error is not _COPY:
            raise Disagreement(f"{name}: the change was allowed")
        note(f"mutation of a fresh copy: {name}")

    def mutation_targets(self) -> list[tuple[str, Callable[[], object], type[Exception]]]:
        session = self.session
        events = session.events
        out: list[tuple[str, Callable[[], object], type[Exception]]] = [
            ("events[0] = ...", lambda: _set_item(events, 0, None), TypeError),
            ("del events[0]", lambda: _del_item(events, 0), TypeError),
            ("nodes[0] = ...", lambda: _set_item(session.surface.nodes, 0, None), TypeError),
            ("header.id = ...", lambda: setattr(session.header, "id", "other"), AttributeError),
        ]
        nodes = session.surface.nodes
        if nodes:
            out.append(("node.seq = ...", lambda: setattr(nodes[0], "seq", 99), AttributeError))
        if events:
            last = events[len(events) - 1]
            out.append(("event.data = ...", lambda: setattr(last, "data", {}), AttributeError))
            out.append(("event.seq = ...", lambda: setattr(last, "seq", 99), AttributeError))
            for holder in (last.data, *_containers_in(last.data)):
                out.extend(_container_attacks(holder))
        messages = session.derive_messages()
        if messages:
            out.append(("messages[0] = ...", lambda: _set_item(messages, 0, None), TypeError))
            message = messages[0]
            for holder in (message, *_containers_in(message)):
                out.extend(_container_attacks(holder))
        return out

    # -- seeding ---------------------------------------------------------------------------

    @rule(how=st.sampled_from(("events", "records", "mixed", "json text")))
    def reseed(self, how: str) -> None:
        """A new session seeded from this log is the same session; carry on with it."""
        events = list(self.session.events)
        seed: list[Any]
        if how == "events":
            seed = events
        elif how == "records":
            seed = [e.to_json() for e in events]
        elif how == "mixed":
            seed = [e if e.seq % 2 else e.to_json() for e in events]
        else:  # as JavaScript writes and reads each record (the spec's writer and parser)
            seed = [js_parse(dsh_spec.js_stringify(e.to_json())) for e in events]
        expected = dsh_spec.check_seed(self.records())
        require(not isinstance(expected, Rejection), lambda: f"the spec refuses its own log: {expected}")
        try:
            fresh = Session(f"reseeded-{self.sessions_made}", seed, clock=self.clock)
            violations = seed_violations(seed)
        except Exception as error:
            raise Disagreement(f"re-seeding from {how} raised {error!r}") from error
        require(violations == [], lambda: f"seed_violations of the machine's own log: {violations}")
        if how == "events":  # the memory promise: a session's own events serve the new one as they are
            made = [e.seq for e, given in zip(fresh.events, seed, strict=True) if e is not given]
            made = [seq for seq in made if _read_alike(seed[seq])]
            require(not made, lambda: f"re-seeding from events made new objects for seqs {made[:10]}")
        self.adopt(fresh, expected)  # type: ignore[arg-type]
        note(f"reseeded from {how}")

    def adopt(self, fresh: Session, events: tuple[dsh_spec.Event, ...]) -> None:
        same_json(
            [e.to_json() for e in fresh.events], [dsh_spec.event_json(e) for e in events], "the seeded log"
        )
        self.sessions_made += 1
        self.session = fresh
        self.log = events
        self.extra_generation = 0

    @rule(data=st.data())
    def seed_with_raw_records(self, data: st.DataObject) -> None:
        """Seed with one more raw record, or with one record broken; adopt the session if accepted."""
        if len(self.log) > 0 and data.draw(st.booleans()):
            self.seed_with_a_broken_record(data)
        else:
            record = data.draw(self.raw_records(len(self.log)))
            self.try_seed([*self.records(), record], "one more record")

    def seed_with_a_broken_record(self, data: st.DataObject) -> None:
        """Seed the log with one of its records broken."""
        records: list[Any] = self.records()
        index = data.draw(st.integers(0, len(records) - 1))
        records[index] = data.draw(self.perturbed(records[index], index))
        self.try_seed(records, "a broken record")

    @rule(data=st.data())
    def seed_with_hand_built_events(self, data: st.DataObject) -> None:
        """Seed with the session's own events, one log-only one rebuilt by hand as a
        ``LoggedEvent`` with its type, seq or time broken or a surface field added, each break
        in turn (a seed's events are taken as they are when they are plain, so the test of
        "plain" must see every break); the spec reads the same records."""
        events = list(self.session.events)
        plain = [i for i, e in enumerate(events) if e.surface_op is None and e.source_event_seqs is None]
        if not plain:
            return
        index = data.draw(st.sampled_from(plain))
        event = events[index]
        assert isinstance(event, LoggedEvent)
        fields = {"type": event.type, "seq": event.seq, "time": event.time, "refs": None, "op": None}
        seqs = [index + 1, index - 1, index + 0.5] if index else [1, 0.5]
        # and one that is no break: an integral float time, which admission makes an int
        same: tuple[tuple[str, float], ...] = ()
        if type(event.time) is int and abs(event.time) < 2**53:
            same = (("time", float(event.time)),)
        same += (("seq", float(index)),)  # an integral float seq, read as its int (as in a mapping)
        for field, value in (*HAND_BUILT_BREAKS, *(("seq", seq) for seq in seqs), *same):
            given = {**fields, field: value}
            g: dict[str, Any] = given
            built = LoggedEvent(g["type"], g["seq"], g["time"], event.text, g["refs"], g["op"])
            seed = [*events[:index], built, *events[index + 1 :]]
            records = self.records()
            key = {"refs": "sourceEventSeqs", "op": "surfaceOp"}.get(field, field)
            records[index] = {**records[index], key: list(g["refs"]) if field == "refs" else value}
            self.seed_alike(seed, records, f"a hand-built event whose {field} is {value!r}")

    @rule(data=st.data())
    def seed_with_a_hand_built_surface_event(self, data: st.DataObject) -> None:
        """Seed with the session's own events, one surface event rebuilt by hand as a
        ``LoggedEvent`` whose fields are equal but not the same: provenance as integral
        floats, ``"append"`` as a string built at run time, a replace's endpoints as
        integral floats. Admission makes ints and the very ``"append"`` of them; the seeded
        log must be the spec's, type-strictly."""
        events = list(self.session.events)
        surface = [i for i, e in enumerate(events) if e.surface_op is not None]
        if not surface:
            return
        index = data.draw(st.sampled_from(surface))
        event = events[index]
        assert isinstance(event, LoggedEvent)
        refs = event.source_event_seqs
        op = event.surface_op
        variants: list[tuple[str, Any, Any]] = []
        if refs:
            variants.append(("provenance as floats", tuple(float(r) for r in refs), op))
        if op == "append":
            variants.append(("'append' built at run time", refs, "".join(["app", "end"])))
        elif isinstance(op, Replace):
            floats = tuple.__new__(Replace, (float(op.start), float(op.end)))  # past the guard
            variants.append(("replace endpoints as floats", refs, floats))
        for how, given_refs, given_op in variants:
            built = LoggedEvent(event.type, event.seq, event.time, event.text, given_refs, given_op)
            seed = [*events[:index], built, *events[index + 1 :]]
            self.seed_alike(seed, self.records(), f"a hand-built surface event with {how}")

    def seeded(self, seed: list[Any], label: str) -> Session | InvalidEventError:
        """A session seeded with ``seed``, or the typed refusal; any other exception disagrees."""
        return seeded(seed, self.clock, label, f"seeded-{self.sessions_made}")

    def seed_alike(self, seed: list[Event], records: list[Any], label: str) -> None:
        """Seed a session with ``seed`` and the spec with ``records``: the same outcome."""
        seeded_alike(records, self.clock, label, seed)

    def try_seed(self, records: list[Any], label: str) -> None:
        expected = dsh_spec.check_seed(records)
        found = [(str(v.code), v.seq) for v in unguarded(seed_violations)(iter(records))]
        want = [(str(r.code), r.seq) for r in dsh_spec.validation.seed_violations(records)]
        require(found == want, lambda: f"seed_violations of a seed with {label}: {found}, the spec: {want}")
        outcome = self.seeded(records, label)
        if isinstance(outcome, InvalidEventError):
            require(
                isinstance(expected, Rejection),
                lambda: f"seed with {label} refused ({outcome.code}); the spec accepts it",
            )
            assert isinstance(expected, Rejection)
            kind = records[expected.seq].get("type") if type(records[expected.seq]) is dict else None  # type: ignore[index]
            self.check_refusal(outcome, expected, outcome.event_type)
            require(outcome.event_type is kind, "the seed error carries the record's type")
            note(f"seed refused: {outcome.code}")
            return
        require(
            not isinstance(expected, Rejection),
            lambda: f"seed with {label} accepted; the spec refuses: {expected}",
        )
        self.adopt(outcome, expected)  # type: ignore[arg-type]
        note(f"seed accepted: {label}")

    def raw_records(self, seq: int) -> st.SearchStrategy[Any]:
        order = self.order

        @st.composite
        def build(draw: st.DrawFn) -> Any:
            if draw(st.booleans()):
                kind = draw(st.sampled_from(S.SURFACE_KINDS))
                record: dict[str, Any] = {"type": kind, "seq": seq, "time": 5, "data": draw(S.payloads(kind))}
                if len(order) > 0 and draw(st.booleans()):
                    first = draw(st.integers(0, len(order) - 1))
                    record["sourceEventSeqs"] = list(order[first:])
                    record["surfaceOp"] = {"op": "replace", "start": order[first], "end": order[-1]}
                else:
                    record["surfaceOp"] = "append"
            else:
                kind = draw(st.sampled_from(S.LOG_ONLY_KINDS))
                record = {"type": kind, "seq": seq, "time": 5, "data": draw(S.json_values)}
            return draw(self.perturbed(record, seq))

        return build()

    def perturbed(self, record: dict[str, Any], index: int) -> st.SearchStrategy[Any]:
        """The record, or the record with one thing wrong (or oddly right) about it."""

        @st.composite
        def build(draw: st.DrawFn) -> Any:
            out = dict(record)
            what = draw(st.integers(0, 10))
            if what == 0:
                return out
            if what == 1:
                out["seq"] = draw(
                    st.sampled_from((index + 1, index - 1, float(index), str(index), None, 2**53 + 1))
                )
                if index in (0, 1):
                    out["seq"] = draw(st.sampled_from((out["seq"], bool(index))))
            elif what == 2:
                del out[draw(st.sampled_from(("type", "seq", "time", "data")))]
            elif what == 3:
                out[draw(st.sampled_from(("extra", "surface_op", "Type", "meta")))] = 1
            elif what == 4:
                return draw(st.sampled_from((None, 5, "record", [out], (out,))))
            elif what == 5:
                out["time"] = draw(st.sampled_from((1.5, True, "5", None, 5.0, 2**60, float("nan"), -7)))
            elif what == 6:
                out["type"] = draw(st.sampled_from((5, None, "", ["user/message"], b"tool/call")))
            elif what == 7:
                out["data"] = draw(S.non_json_values())
            elif what == 8:
                out["surfaceOp"] = draw(
                    st.sampled_from(
                        (
                            None,
                            "Append",
                            5,
                            True,
                            ["append"],
                            ("append",),
                            {"op": "replace"},
                            {"op": "delete", "start": 0, "end": 0},
                            {"op": "replace", "start": True, "end": 0},
                            {"op": "replace", "start": 0.0, "end": 0},
                        )
                    )
                )
            elif what == 9:
                out["sourceEventSeqs"] = draw(
                    st.sampled_from((None, "ab", 5, [True], [0.5], [0.0], (0,), [], [index], [-1]))
                )
            else:
                out.pop("surfaceOp", None)
            return out

        return build()


def seq_probes(order: tuple[int, ...], length: int) -> st.SearchStrategy[Any]:
    """What a caller may pass where a seq is expected: a seq on the surface (as a fresh ``int``
    object, so identity never stands in for equality), one off it, and the values a lax check
    takes for a seq -- ``True``/``False``, integral floats, ``-0.0``, huge ints, strings."""
    on = st.sampled_from(order).map(lambda seq: int(str(seq))) if order else st.just(0)
    odd = st.sampled_from(
        (True, False, -1, length, length + 1, 2**53, 2**53 + 1, 2**64, -(2**63), -0.0, "0", None, 1e300)
    )
    floats = st.sampled_from(order).map(float) if order else st.just(0.0)
    return st.one_of(on, on, on, odd, floats, st.integers(0, max(length, 1)))


@st.composite
def initial_logs(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A valid log of up to 16 events (appends, log-only events, replaces) as JSON records."""
    records: list[dict[str, Any]] = []
    order: tuple[int, ...] = ()
    for seq in range(draw(st.integers(0, 16))):
        what = draw(st.integers(0, 5))
        if what <= 1:
            kind = draw(st.sampled_from(S.LOG_ONLY_KINDS))
            records.append({"type": kind, "seq": seq, "time": seq, "data": draw(S.json_objects)})
            continue
        kind = draw(st.sampled_from(S.SURFACE_KINDS))
        record = {"type": kind, "seq": seq, "time": seq, "data": draw(S.payloads(kind))}
        if what == 5 and order:
            first = draw(st.integers(0, len(order) - 1))
            last = draw(st.integers(first, len(order) - 1))
            record["sourceEventSeqs"] = list(order[first : last + 1])
            record["surfaceOp"] = {"op": "replace", "start": order[first], "end": order[last]}
            order = (*order[:first], seq, *order[last + 1 :])
        else:
            record["surfaceOp"] = "append"
            order = (*order, seq)
        records.append(record)
    return records


def _same(value: Any) -> Any:
    return value


def near_the_stack_limit(call: Callable[[], Any], headroom: int = 80) -> Any:
    """``call()`` made with only ``headroom`` frames left before the interpreter's recursion
    limit: what the implementation returns must not depend on how deep its caller is."""
    frame: Any = sys._getframe()
    used = 0
    while frame is not None:
        used, frame = used + 1, frame.f_back

    def down(left: int) -> Any:
        return down(left - 1) if left > 0 else call()

    return down(max(0, sys.getrecursionlimit() - headroom - used))


def _read_alike(event: Event) -> bool:
    """True when orjson reads ``event``'s payload text back to its value, type for type: the
    texts a logged event holds as they are. (A lone surrogate, or a float that JavaScript
    spells as an integer, is held in a form of its own, which a seed may make anew.)"""
    try:
        return repr(orjson.loads(payload_text(event))) == repr(event.data)
    except orjson.JSONDecodeError:
        return False


class _Float(float):
    """A ``float`` subclass: not a JSON type."""


class _NotAnIterator:
    """Iterable by its type (it has ``__iter__``), but iterating it raises ``TypeError``."""

    def __iter__(self) -> Any:
        return 5

    def __repr__(self) -> str:
        return "_NotAnIterator()"


class _Int(int):
    """An ``int`` subclass (not ``bool``): taken as the int it is where a seq is asked for."""


#: A valid ``user/message`` payload.
_USER: dict[str, Any] = {"content": [{"type": "text", "text": "hi"}]}


def _by_hand(event: Event) -> Event:
    """An event equal to ``event``, built by hand: its seqs and ``surfaceOp`` are fresh objects."""
    op = event.surface_op
    fresh_op: Any = (
        None if op is None else "".join(("app", "end")) if op == "append" else Replace(*map(_fresh, op))
    )
    refs = event.source_event_seqs
    return Event(
        event.type,
        _fresh(event.seq),
        event.time,
        event.data,
        None if refs is None else tuple(map(_fresh, refs)),
        fresh_op,
    )


def _cover(order: tuple[int, ...], seq: int, start: Any, end: Any) -> list[int]:
    """The nodes a replace would shadow if its endpoints were read as ints (else none)."""
    ends = []
    for value in (start, end):
        if type(value) is float and value.is_integer():
            value = int(value)
        if type(value) is not int:
            return []
        ends.append(value)
    covered = dsh_spec.shadowed(order, seq, dsh_spec.Replace(ends[0], ends[1]))
    return [] if isinstance(covered, Rejection) else list(covered)


class _EventsJson:
    """Iterates an events view as plain records (for the views check)."""

    def __init__(self, view: Iterable[Event]) -> None:
        self.view = view

    def __iter__(self) -> Any:
        return (event.to_json() for event in self.view)


def _set_item(target: Any, key: Any, value: Any) -> None:
    target[key] = value


def _del_item(target: Any, key: Any) -> None:
    del target[key]


def _in_place(target: Any, op: str, other: Any) -> Any:
    if op == "|=":
        target |= other
    elif op == "+=":
        target += other
    else:
        target *= other
    return target


def _containers_in(value: Any) -> list[Any]:
    out: list[Any] = []
    if isinstance(value, dict):
        for item in value.values():
            if isinstance(item, dict | list):
                out.append(item)
                out.extend(_containers_in(item))
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict | list):
                out.append(item)
                out.extend(_containers_in(item))
    return out[:6]


class _COPY(Exception):
    """Stands for "changes a fresh copy": the attempt may succeed; nothing in the session moves."""


def _container_attacks(holder: Any) -> list[tuple[str, Callable[[], object], type[Exception]]]:
    name = type(holder).__name__
    attacks: list[tuple[str, Callable[[], object], type[Exception]]] = []
    if isinstance(holder, dict):
        key = next(iter(holder), "k")
        attacks += [
            (f"{name}[k] = ...", lambda: _set_item(holder, key, "HACKED"), _COPY),
            (f"{name}[new] = ...", lambda: _set_item(holder, "new-key", 1), _COPY),
            (f"del {name}[k]", lambda: _del_item(holder, key), _COPY),
            (f"{name}.pop", lambda: holder.pop(key), _COPY),
            (f"{name}.popitem", lambda: holder.popitem(), _COPY),
            (f"{name}.update", lambda: holder.update({"x": 1}), _COPY),
            (f"{name}.setdefault", lambda: holder.setdefault("x", 1), _COPY),
            (f"{name}.clear", lambda: holder.clear(), _COPY),
            (f"{name} |= ...", lambda: _in_place(holder, "|=", {"x": 1}), _COPY),
        ]
    elif isinstance(holder, list):
        attacks += [
            (f"{name}.append", lambda: holder.append(1), _COPY),
            (f"{name}.extend", lambda: holder.extend([1]), _COPY),
            (f"{name}.insert", lambda: holder.insert(0, 1), _COPY),
            (f"{name}[0] = ...", lambda: _set_item(holder, 0, 1), _COPY),
            (f"{name}[:] = ...", lambda: _set_item(holder, slice(None), []), _COPY),
            (f"del {name}[0]", lambda: _del_item(holder, 0), _COPY),
            (f"{name}.pop", lambda: holder.pop(), _COPY),
            (f"{name}.remove", lambda: holder.remove(holder[0] if holder else 1), _COPY),
            (f"{name}.clear", lambda: holder.clear(), _COPY),
            (f"{name}.sort", lambda: holder.sort(), _COPY),
            (f"{name}.reverse", lambda: holder.reverse(), _COPY),
            (f"{name} += ...", lambda: _in_place(holder, "+=", [1]), _COPY),
            (f"{name} *= ...", lambda: _in_place(holder, "*=", 2), _COPY),
        ]
    return attacks

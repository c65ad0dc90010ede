"""The adoption rule: implementation against the spec (``dsh_spec.adoption``).

Generated pairs of (stored session, live session) -- a live log that extends
the stored one, falls short of it, or differs in one event by a value, a
boolean for a number, key order, an envelope field; headers that differ in
one field or not at all -- must get the same decision from the coordinator's
rule and from the spec, and, end to end, from a coordinator binding a live
session over a memory backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dsh_spec
import dsh_spec.adoption
from dsh_session import (
    Code,
    Event,
    MemoryBackend,
    MemoryStore,
    ObserverError,
    PersistenceCoordinator,
    PersistenceError,
    Replace,
    SessionHeader,
    SessionMeta,
    SessionStore,
    StoredSession,
    freeze,
)
from dsh_session.persistence._adoption import durable_prefix
from tests.coordinator_support import MANUAL, Clock

# -- raw material: what both sides are built from, independently ------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.5, -1.25, 1e21]),
    st.sampled_from(["", "a", "b"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["k", "j", "2", "1"]), inner, max_size=3),
    ),
    max_leaves=8,
)

OPS: list[Any] = [None, "append", (0, 1), (1, 0)]
REFS: list[tuple[int, ...] | None] = [None, (), (0,), (0, 1)]


@dataclass(frozen=True)
class Raw:
    """One event, before either side builds it."""

    type: str
    time: int
    data: Any
    refs: tuple[int, ...] | None
    op: Any  # None, "append" or (start, end)


raw_events = st.builds(
    Raw,
    type=st.sampled_from(["todo/write", "user/message"]),
    time=st.integers(1, 3),
    data=json_values,
    refs=st.sampled_from(REFS),
    op=st.sampled_from(OPS),
)


def swap_booleans(value: Any) -> Any:
    """``true`` <-> ``1``, ``false`` <-> ``0``, all the way down: equal in Python, not in JSON."""
    if value is True or value is False:
        return int(value)
    if type(value) is int and value in (0, 1):
        return bool(value)
    if isinstance(value, list):
        return [swap_booleans(item) for item in value]
    if isinstance(value, dict):
        return {key: swap_booleans(item) for key, item in value.items()}
    return value


def reverse_keys(value: Any) -> Any:
    """The same value with every object's keys in reverse order: equal in JSON."""
    if isinstance(value, list):
        return [reverse_keys(item) for item in value]
    if isinstance(value, dict):
        return {key: reverse_keys(value[key]) for key in reversed(list(value))}
    return value


@st.composite
def mutated(draw: st.DrawFn, raw: Raw) -> Raw:
    kind = draw(
        st.sampled_from(["booleans", "booleans", "keys", "keys", "data", "type", "time", "refs", "op"])
    )
    if kind == "booleans":
        return Raw(raw.type, raw.time, swap_booleans(raw.data), raw.refs, raw.op)
    if kind == "keys":
        return Raw(raw.type, raw.time, reverse_keys(raw.data), raw.refs, raw.op)
    if kind == "data":
        return Raw(raw.type, raw.time, draw(json_values), raw.refs, raw.op)
    if kind == "type":
        return Raw("todo/other", raw.time, raw.data, raw.refs, raw.op)
    if kind == "time":
        return Raw(raw.type, raw.time + 1, raw.data, raw.refs, raw.op)
    if kind == "refs":
        return Raw(raw.type, raw.time, raw.data, draw(st.sampled_from(REFS)), raw.op)
    return Raw(raw.type, raw.time, raw.data, raw.refs, draw(st.sampled_from(OPS)))


@dataclass(frozen=True)
class Head:
    version: int
    cwd: str | None
    created_at: int
    parent: str | None
    seed_length: int | None


heads = st.builds(
    Head,
    version=st.sampled_from([0, 0, 0, 0, 0, 0, 1]),
    cwd=st.sampled_from([None, "/a", "/b"]),
    created_at=st.sampled_from([1, 2]),
    parent=st.sampled_from([None, "p"]),
    seed_length=st.sampled_from([None, 0, 3]),
)


@st.composite
def head_like(draw: st.DrawFn, head: Head) -> Head:
    """Mostly the same header; sometimes one field differs."""
    field = draw(st.sampled_from(["same", "same", "version", "cwd", "created_at", "parent", "seed_length"]))
    if field == "same":
        return head
    other = draw(heads)
    return Head(**{**head.__dict__, field: getattr(other, field)})


@dataclass(frozen=True)
class Case:
    stored: tuple[Head, list[Raw]] | None
    live_head: Head
    live: list[Raw]


@st.composite
def cases(draw: st.DrawFn) -> Case:
    stored_events = draw(st.lists(raw_events, max_size=5))
    stored_head = draw(heads)
    shape = draw(
        st.sampled_from(["extends", "extends", "shorter", "mutated", "mutated", "mutated", "unrelated"])
    )
    if shape == "extends":
        live = stored_events + draw(st.lists(raw_events, max_size=3))
    elif shape == "shorter":
        live = stored_events[: draw(st.integers(0, max(len(stored_events) - 1, 0)))]
    elif shape == "mutated" and stored_events:
        live = list(stored_events)
        index = draw(st.integers(0, len(live) - 1))
        live[index] = draw(mutated(live[index]))
    else:
        live = draw(st.lists(raw_events, max_size=5))
    nothing_stored = draw(st.integers(0, 5)) == 0
    return Case(None if nothing_stored else (stored_head, stored_events), draw(head_like(stored_head)), live)


# -- the two sides -----------------------------------------------------------------------------


def impl_event(seq: int, raw: Raw) -> Event:
    op = Replace(*raw.op) if isinstance(raw.op, tuple) else raw.op
    return Event(raw.type, seq, raw.time, freeze(raw.data), raw.refs, op)


def spec_event(seq: int, raw: Raw) -> dsh_spec.Event:
    data = dsh_spec.canonical_json(raw.data)
    assert not isinstance(data, dsh_spec.NotJson)
    op = dsh_spec.Replace(*raw.op) if isinstance(raw.op, tuple) else raw.op
    return dsh_spec.Event(raw.type, seq, raw.time, data, raw.refs, op)


def impl_header(head: Head) -> SessionHeader:
    return SessionHeader("x", head.created_at, head.version, head.cwd, head.parent, head.seed_length)


def spec_header(head: Head) -> dict[str, dsh_spec.Json]:
    out: dict[str, dsh_spec.Json] = {"version": head.version, "id": "x", "createdAt": head.created_at}
    if head.cwd is not None:
        out["cwd"] = head.cwd
    if head.parent is not None:
        out["parentSession"] = head.parent
    if head.seed_length is not None:
        out["seedLength"] = head.seed_length
    return out


Outcome = tuple[str, object]


def spec_outcome(case: Case) -> Outcome:
    stored = None
    if case.stored is not None:
        head, events = case.stored
        stored = (spec_header(head), tuple(spec_event(i, raw) for i, raw in enumerate(events)))
    live = tuple(spec_event(i, raw) for i, raw in enumerate(case.live))
    decision = dsh_spec.adoption.adoption(stored, spec_header(case.live_head), live)
    if isinstance(decision, dsh_spec.Rejection):
        return ("refused", (decision.code, decision.seq))
    return ("new", 0) if decision.create else ("continues", decision.stored)


def impl_outcome(case: Case) -> Outcome:
    stored = None
    if case.stored is not None:
        head, events = case.stored
        stored = StoredSession(impl_header(head), tuple(impl_event(i, raw) for i, raw in enumerate(events)))
    live = [impl_event(i, raw) for i, raw in enumerate(case.live)]
    try:
        durable = durable_prefix(stored, impl_header(case.live_head), live)
    except PersistenceError as error:
        return ("refused", (error.code, error.seq))
    return ("new", 0) if durable is None else ("continues", durable)


@settings(max_examples=200, deadline=None)
@given(cases())
def test_the_implementation_decides_as_the_spec(case: Case) -> None:
    assert impl_outcome(case) == spec_outcome(case)


@settings(max_examples=100, deadline=None)
@given(cases())
def test_a_live_log_that_extends_the_stored_one_under_the_same_header_continues_it(case: Case) -> None:
    if case.stored is None:
        return
    head, events = case.stored
    if head.version != 0:
        return
    live = events + case.live
    extended = Case((head, events), head, live)
    assert spec_outcome(extended) == ("continues", len(events))
    assert impl_outcome(extended) == ("continues", len(events))


def has_number_like_boolean(value: Any) -> bool:
    if value is True or value is False or (type(value) is int and value in (0, 1)):
        return True
    if isinstance(value, list):
        return any(has_number_like_boolean(item) for item in value)
    if isinstance(value, dict):
        return any(has_number_like_boolean(item) for item in value.values())
    return False


@settings(max_examples=100, deadline=None)
@given(st.lists(raw_events, min_size=1, max_size=4), heads.filter(lambda head: head.version == 0))
def test_key_order_never_matters_and_a_boolean_is_never_a_number(events: list[Raw], head: Head) -> None:
    reordered = [Raw(r.type, r.time, reverse_keys(r.data), r.refs, r.op) for r in events]
    same = Case((head, events), head, reordered)
    assert impl_outcome(same) == spec_outcome(same) == ("continues", len(events))
    swapped = [Raw(r.type, r.time, swap_booleans(r.data), r.refs, r.op) for r in events]
    changed = [i for i, r in enumerate(events) if has_number_like_boolean(r.data)]
    case = Case((head, events), head, swapped)
    expected = ("refused", (Code.ID_COLLISION_LOG, changed[0])) if changed else ("continues", len(events))
    assert impl_outcome(case) == spec_outcome(case) == expected


# -- end to end: a coordinator over a memory backend ---------------------------------------


@st.composite
def plain_cases(draw: st.DrawFn) -> Case:
    """Cases a live session can hold: admissible ``todo/write`` events, a format-0 live header."""
    case = draw(cases())

    def plain(raws: list[Raw]) -> list[Raw]:
        return [Raw("todo/write", raw.time, raw.data, None, None) for raw in raws]

    stored = None if case.stored is None else (case.stored[0], plain(case.stored[1]))
    live_head = Head(
        0, case.live_head.cwd, case.live_head.created_at, case.live_head.parent, case.live_head.seed_length
    )
    return Case(stored, live_head, plain(case.live))


@settings(max_examples=80, deadline=None)
@given(plain_cases())
def test_a_coordinator_binds_a_live_session_as_the_spec_decides(case: Case) -> None:
    memory = MemoryStore()
    if case.stored is not None:
        head, raws = case.stored
        memory.sessions["x"] = (impl_header(head), [impl_event(i, raw) for i, raw in enumerate(raws)])
    store = SessionStore(clock=Clock())
    coordinator = PersistenceCoordinator(store, MemoryBackend(memory), **MANUAL)
    head = case.live_head
    meta = SessionMeta(
        cwd=head.cwd, parent_session=head.parent, created_at=head.created_at, seed_length=head.seed_length
    )
    seed = [impl_event(i, raw) for i, raw in enumerate(case.live)]
    expected = spec_outcome(case)
    try:
        session = store.create("x", seed=seed, meta=meta)
    except ObserverError as error:
        cause = error.__cause__
        assert isinstance(cause, PersistenceError)
        assert expected == ("refused", (cause.code, cause.seq))
        assert "x" not in store
        return
    kind, durable = expected
    assert kind in ("new", "continues")
    assert coordinator.flushed(session) == durable
    coordinator.close()
    if seed or case.stored is not None:
        assert memory.sessions["x"][1] == seed
    else:
        assert "x" not in memory.sessions  # nothing to write: nothing written


# -- the spec's equality, by example -------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (1, 1.0, True),
        (True, 1, False),
        (False, 0, False),
        (None, 0, False),
        ("1", 1, False),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),
        ({"a": 1}, {"a": 1, "b": None}, False),
        ([1, 2], [2, 1], False),
        ([True], [1], False),
        ({"a": [{"b": True}]}, {"a": [{"b": True}]}, True),
    ],
)
def test_spec_json_equality(a: object, b: object, same: bool) -> None:
    assert dsh_spec.same_json(a, b) is same
    assert dsh_spec.same_json(b, a) is same


def test_spec_refuses_a_live_header_of_another_format_version() -> None:
    header: dict[str, dsh_spec.Json] = {"version": 1, "id": "x", "createdAt": 1}
    refused = dsh_spec.adoption.adoption(None, header, ())
    assert isinstance(refused, dsh_spec.Rejection)
    assert refused.code is Code.STORE_VERSION_UNSUPPORTED


def test_spec_an_absent_seed_length_is_not_0() -> None:
    stored_header: dict[str, dsh_spec.Json] = {"version": 0, "id": "x", "createdAt": 1, "seedLength": 0}
    live_header: dict[str, dsh_spec.Json] = {"version": 0, "id": "x", "createdAt": 1}
    stored: dsh_spec.StoredLog = (stored_header, ())
    refused = dsh_spec.adoption.adoption(stored, live_header, ())
    assert isinstance(refused, dsh_spec.Rejection)
    assert refused.code is Code.ID_COLLISION_HEADER
    assert dsh_spec.adoption.adoption(stored, stored[0], ()) == dsh_spec.Adopt(0, False)

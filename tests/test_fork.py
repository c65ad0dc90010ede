"""Fork: the store's fork and the spec's ``fork_seed``.

Reference cases: core.md §11, fork.spec.ts (118-129), in our words and
adapted to our decisions (docs/deviations.md D-S1, D-S5).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dsh_spec as spec
from dsh_session import (
    Code,
    ObserverError,
    Session,
    SessionForkError,
    SessionMeta,
    SessionStore,
    StoreObserver,
)
from tests.store_support import (
    FIXED_TIME,
    TURN_END_REASONS,
    assistant_data,
    closed_turn,
    fixed_clock,
    spec_events,
    user_data,
)


def new_store() -> SessionStore:
    return SessionStore(clock=fixed_clock)


@contextmanager
def refused(code: Code, message: str | None = None) -> Iterator[None]:
    """The block must raise a SessionForkError with this code (and exactly this message)."""
    with pytest.raises(SessionForkError) as caught:
        yield
    assert caught.value.code is code, caught.value
    if message is not None:
        assert caught.value.message == message


# -- success (118-121) -----------------------------------------------------------------------------


def test_an_empty_source_forks_to_an_empty_child_with_lineage() -> None:
    store = new_store()
    source = store.create("empty-parent", meta=SessionMeta(cwd="/repo"))
    child = store.fork(source, child_id="kid")
    assert list(child.events) == []
    assert child.header.to_json() == {
        "version": 0,
        "id": "kid",
        "createdAt": FIXED_TIME,
        "cwd": "/repo",
        "parentSession": "empty-parent",
        "seedLength": 0,
    }
    assert store.get("kid") is child


def test_the_default_boundary_is_the_last_event_and_the_child_is_isolated() -> None:
    store = new_store()
    source = store.create("parent")
    closed_turn(source, 1, "first")
    closed_turn(source, 2, "second")
    child = store.fork("parent")
    assert child.events == source.events
    assert child.header.seed_length == len(source.events) == 6
    assert child.id == "session-1" and child.header.parent_session == "parent"
    assert child.header.cwd is None
    child.append("todo/write", {"todos": []})
    source.append("turn/start", {"turn": 3})
    assert [e.type for e in child.events][-1] == "todo/write"
    assert [e.type for e in source.events][-1] == "turn/start"
    assert len(child.events) == len(source.events) == 7
    child.events[1].data["content"][0]["text"] = "hacked"  # a fresh copy: neither log changes
    assert child.events[1].data == source.events[1].data
    assert child.derive_messages() == source.derive_messages()[:2]


def test_an_earlier_turn_end_can_be_chosen_while_a_turn_is_open() -> None:
    store = new_store()
    source = store.create("parent")
    end = closed_turn(source, 1, "first")
    source.append("turn/start", {"turn": 2})
    source.append("user/message", user_data("second"), surface_op="append")
    child = store.fork(source, end.seq)
    assert child.events == source.events[: end.seq + 1]
    assert child.header.seed_length == end.seq + 1
    assert child.derive_messages().to_json() == [
        {"role": "user", "content": [{"type": "text", "text": "first"}]}
    ]


@pytest.mark.parametrize("reason", TURN_END_REASONS, ids=lambda r: str(r["kind"]))
def test_every_turn_end_reason_is_a_boundary(reason: dict[str, Any]) -> None:
    store = new_store()
    source = store.create("parent")
    end = closed_turn(source, 1, "x", reason)
    assert store.fork(source, end.seq).header.seed_length == 3


def test_an_integral_float_boundary_is_its_integer() -> None:
    store = new_store()
    source = store.create("parent")
    closed_turn(source, 1, "x")
    assert store.fork(source, 2.0).header.seed_length == 3


def test_lineage_is_one_level() -> None:
    store = new_store()
    root = store.create("root", meta=SessionMeta(cwd="/r"))
    closed_turn(root, 1, "x")
    child = store.fork(root, child_id="child")
    grandchild = store.fork(child, child_id="grandchild")
    assert grandchild.header.parent_session == "child"
    assert grandchild.header.cwd == "/r"


# -- refusals (122-129) -------------------------------------------------------------------------------


def test_invalid_boundaries_create_nothing() -> None:
    store = new_store()
    empty = store.create("empty")
    with refused(Code.INVALID_BOUNDARY, 'fork boundary 0 does not exist in session "empty" (last seq: none)'):
        store.fork(empty, 0)
    source = store.create("parent")
    closed_turn(source, 1, "x")
    for bad, shown in [(-1, "-1"), (0.5, "0.5"), (2**53, "9007199254740992"), (True, "true")]:
        with refused(
            Code.INVALID_BOUNDARY,
            f'fork boundary for session "parent" must be a non-negative safe integer, got {shown}',
        ):
            store.fork(source, bad)
    with refused(Code.INVALID_BOUNDARY, 'fork boundary 3 does not exist in session "parent" (last seq: 2)'):
        store.fork(source, 3)
    with refused(Code.INVALID_BOUNDARY):
        store.fork(source, float("nan"))
    assert [s.id for s in store.list()] == ["empty", "parent"]
    assert store.create().id == "session-1"  # refused forks minted nothing


def test_a_corrupt_source_is_refused_by_the_spec() -> None:
    session = Session("corrupt-parent", clock=fixed_clock)
    for turn in (1, 2):
        closed_turn(session, turn, "x")
    events = list(spec_events(session.events))
    events[2] = spec.Event(events[2].type, 99, events[2].time, events[2].data)
    rejection = spec.fork_seed(tuple(events), 2, "corrupt-parent")
    assert rejection == spec.Rejection(
        spec.Code.INVALID_BOUNDARY,
        2,
        'fork boundary 2 does not match a contiguous event seq in session "corrupt-parent"',
    )
    events[2] = spec.Event("turn/end", 2, 1, {"turn": 1, "reason": {"kind": "completed"}})
    events[1] = spec.Event("user/message", 1, 1, {"content": "not blocks"}, None, spec.APPEND)
    assert isinstance(spec.fork_seed(tuple(events), 5), spec.Rejection)  # a bad prefix event too


def test_our_log_cannot_be_corrupted_through_the_api() -> None:
    session = Session("s", clock=fixed_clock)
    closed_turn(session, 1, "x")
    with pytest.raises(AttributeError):
        session.events[2].seq = 99  # type: ignore[misc]
    with pytest.raises(TypeError):
        session.events[2] = session.events[0]  # type: ignore[index]


def test_an_unknown_source_id_is_not_found() -> None:
    with refused(Code.SESSION_NOT_FOUND, 'session "missing" not found'):
        new_store().fork("missing")


def test_a_detached_source_object_is_not_found() -> None:
    store = new_store()
    source = store.create("detached")
    store.remove(source)
    with refused(Code.SESSION_NOT_FOUND, 'session "detached" not found'):
        store.fork(source)


def test_a_stale_source_object_is_not_live() -> None:
    store = new_store()
    stale = store.create("same-id")
    store.remove(stale)
    store.create("same-id")
    with refused(Code.SESSION_NOT_LIVE, 'session "same-id" is not the live store instance'):
        store.fork(stale)


@pytest.mark.parametrize(
    "last", ["turn/start", "step/start", "user/message", "assistant/message", "tool/call"]
)
def test_a_boundary_inside_an_open_turn_is_refused(last: str) -> None:
    store = new_store()
    source = store.create("open")
    closed_turn(source, 1, "x")
    payloads: dict[str, tuple[dict[str, Any], str | None]] = {
        "turn/start": ({"turn": 2}, None),
        "step/start": ({"turn": 2, "step": 1}, None),
        "user/message": (user_data("y"), "append"),
        "assistant/message": (assistant_data("z", 2), "append"),
        "tool/call": ({"turn": 2, "step": 1, "callId": "c", "name": "t", "arguments": "{}"}, None),
    }
    data, op = payloads[last]
    event = source.append(last, data, surface_op=op)
    message = f'fork boundary {event.seq} in session "open" must be turn/end, got {last}'
    with refused(Code.OPEN_TURN, message):
        store.fork(source)
    with refused(Code.OPEN_TURN, message):
        store.fork(source, event.seq)
    assert len(store.list()) == 1


def test_a_live_child_id_is_refused_with_a_fork_error() -> None:
    store = new_store()
    source = store.create("parent")
    closed_turn(source, 1, "x")
    store.create("taken")
    with refused(Code.SESSION_ALREADY_EXISTS, 'session "taken" already exists'):
        store.fork(source, child_id="taken")


def test_the_child_id_is_checked_before_the_source_and_the_boundary() -> None:
    store = new_store()
    source = store.create("parent")
    source.append("turn/start", {"turn": 1})
    store.create("taken")
    with refused(Code.SESSION_ALREADY_EXISTS):
        store.fork(source, child_id="taken")
    with refused(Code.SESSION_ALREADY_EXISTS):
        store.fork("missing", -1, "taken")


def test_a_minted_child_id_skips_live_ids() -> None:
    store = new_store()
    source = store.create("session-1")
    assert store.fork(source).id == "session-2"


def test_a_refusing_observer_rolls_the_child_back() -> None:
    store = new_store()
    source = store.create("parent")
    closed_turn(source, 1, "x")

    class Refuse(StoreObserver):
        def session_created(self, session: Session) -> None:
            raise RuntimeError("no children")

    store.subscribe(Refuse())
    with pytest.raises(ObserverError):
        store.fork(source, child_id="kid")
    assert store.get("kid") is None and [s.id for s in store.list()] == ["parent"]


# -- spec fork_seed, and the implementation against it ----------------------------------------------


def test_spec_fork_seed_follows_the_reference_rules() -> None:
    session = Session("s", clock=fixed_clock)
    closed_turn(session, 1, "x")
    session.append("turn/start", {"turn": 2})
    events = spec_events(session.events)
    assert spec.fork_seed((), None) == ()
    assert spec.fork_seed(events, 2) == events[:3]
    cases: list[tuple[object, Code]] = [
        (None, Code.OPEN_TURN),
        (3, Code.OPEN_TURN),
        (4, Code.INVALID_BOUNDARY),
        (-1, Code.INVALID_BOUNDARY),
        (False, Code.INVALID_BOUNDARY),
        ("2", Code.INVALID_BOUNDARY),
        (float("inf"), Code.INVALID_BOUNDARY),
        (2**53 - 1, Code.INVALID_BOUNDARY),
    ]
    for boundary, code in cases:
        result = spec.fork_seed(events, boundary, "s")
        assert isinstance(result, spec.Rejection) and result.code is code, (boundary, result)
    assert spec.fork_seed(events, 2.0) == events[:3]
    assert spec.safe_boundary(2**53 - 1) == 2**53 - 1 and spec.safe_boundary(2**53) is None


STEPS: list[tuple[str, dict[str, Any], str | None]] = [
    ("turn/start", {"turn": 1}, None),
    ("user/message", user_data("u"), "append"),
    ("assistant/message", assistant_data("a"), "append"),
    ("todo/write", {"todos": []}, None),
    ("turn/end", {"turn": 1, "reason": {"kind": "completed"}}, None),
]


@settings(max_examples=120, deadline=None)
@given(
    steps=st.lists(st.sampled_from(STEPS), max_size=10),
    boundary=st.one_of(st.none(), st.integers(-2, 12), st.sampled_from([0.5, 1.0, 2**53, True])),
    cwd=st.sampled_from([None, "/w"]),
)
def test_store_fork_agrees_with_the_spec(
    steps: list[tuple[str, dict[str, Any], str | None]], boundary: Any, cwd: str | None
) -> None:
    store = new_store()
    source = store.create("src", meta=SessionMeta(cwd=cwd))
    for kind, data, op in steps:
        source.append(kind, data, surface_op=op)
    expected = spec.fork_seed(spec_events(source.events), boundary, "src")
    if isinstance(expected, spec.Rejection):
        with pytest.raises(SessionForkError) as caught:
            store.fork(source, boundary)
        assert (caught.value.code, caught.value.seq, caught.value.message) == (
            expected.code,
            expected.seq,
            expected.message,
        )
        assert store.list() == [source]
        return
    child = store.fork(source, boundary)
    assert spec_events(child.events) == expected
    assert child.header.seed_length == len(expected)
    assert (child.header.parent_session, child.header.cwd) == ("src", cwd)
    derived = spec.derive_messages(expected)
    assert not isinstance(derived, spec.Rejection)
    assert child.derive_messages().to_json() == list(derived)

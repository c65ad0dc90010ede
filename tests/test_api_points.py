"""The API as a new user meets it: errors that survive pickling, copying and repr,
one coded error for non-JSON values, a seq-taking ``derive_event_message``,
``SurfaceNode.to_json``, the record type in ``check_log``, a present JSON
``null`` marker, and a store whose sessions (and their forks) keep the
invariants."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from beartype.roar import BeartypeCallHintViolation

import dsh_spec as spec
from dsh_session import (
    MAX_DEPTH,
    NULL,
    Code,
    DshSessionError,
    Event,
    InvalidEventError,
    InvariantViolationError,
    JsonlBackend,
    NotJsonError,
    Replace,
    RequestHeaderError,
    Session,
    SessionForkError,
    SessionNotFoundError,
    SessionStore,
    SessionStoreError,
    ToolPairingError,
    check_log,
    derive_event_message,
    freeze,
    region_balanced,
)
from tests.store_support import spec_events

TURN = {"turn": 1, "trigger": {"kind": "message", "source": {"kind": "user"}}}
USER = {"content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}}


def _raised(action: Callable[[], object]) -> DshSessionError:
    with pytest.raises(DshSessionError) as caught:
        action()
    return caught.value


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


def _errors(tmp_path: Path) -> list[DshSessionError]:
    """One error of each everyday kind, raised by the library itself."""
    session = Session("s1", clock=lambda: 5)
    checked = Session("s2", invariants=True, clock=lambda: 5)
    store = SessionStore(clock=lambda: 5)
    store.create("a")
    header = Session("s3", clock=lambda: 5)
    header.append("request/header-delta", {"system": {"keepStart": 0, "keepEnd": 0, "insert": []}})
    return [
        _raised(lambda: session.append("user/message", USER)),
        _raised(lambda: checked.append("turn/end", {"turn": 1, "reason": {"kind": "completed"}})),
        _raised(lambda: region_balanced(session.surface.nodes, session.events, 0, 0)),
        _raised(lambda: freeze({"a": {1}})),
        _raised(lambda: freeze(_nested(MAX_DEPTH + 1))),
        _raised(lambda: store.create("a")),
        _raised(lambda: store.fork("missing")),
        _raised(header.request_header),
        _raised(lambda: JsonlBackend(tmp_path).load("nobody")),
    ]


def test_the_sample_covers_the_everyday_kinds(tmp_path: Path) -> None:
    kinds = {type(error) for error in _errors(tmp_path)}
    assert {
        InvalidEventError,
        InvariantViolationError,
        ToolPairingError,
        NotJsonError,
        SessionStoreError,
        SessionForkError,
        RequestHeaderError,
        SessionNotFoundError,
    } <= kinds


@pytest.mark.parametrize("clone", [copy.copy, copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))])
def test_errors_survive_pickling_and_copying(tmp_path: Path, clone: Callable[[Any], Any]) -> None:
    for error in _errors(tmp_path):
        twin = clone(error)
        assert type(twin) is type(error)
        assert (twin.code, twin.seq, twin.message) == (error.code, error.seq, error.message)
        assert str(twin) == str(error)
        assert twin.args == error.args
        assert vars(twin) == vars(error)


def test_repr_names_the_class_code_and_message() -> None:
    session = Session("s1", clock=lambda: 5)
    error = _raised(lambda: session.append("user/message", USER))
    assert repr(error).startswith("InvalidEventError('MISSING_SURFACE_OP', ")
    assert repr(error.message) in repr(error)
    assert "seq=0" in repr(error) and "session_id='s1'" in repr(error)


def test_not_json_is_a_coded_error() -> None:
    error = _raised(lambda: freeze({"a": float("nan")}))
    assert isinstance(error, NotJsonError) and isinstance(error, ValueError)
    assert error.code is Code.NON_JSON_DATA
    deep = _raised(lambda: freeze(_nested(MAX_DEPTH + 1)))
    assert isinstance(deep, NotJsonError) and deep.code is Code.DATA_TOO_DEEP
    assert freeze(_nested(MAX_DEPTH)) == _nested(MAX_DEPTH)


def _two_messages() -> Session:
    session = Session("s1", clock=lambda: 5)
    session.append("turn/start", TURN)
    session.append("user/message", USER, surface_op="append")
    session.append("user/message", USER, surface_op="append")
    return session


def test_surface_nodes_have_a_json_form() -> None:
    session = _two_messages()
    assert [node.to_json() for node in session.surface.nodes] == [
        {"seq": 1, "prev": None, "next": 2},
        {"seq": 2, "prev": 1, "next": None},
    ]


def test_derive_event_message_takes_a_seq() -> None:
    session = _two_messages()
    session.append("user/message", USER, surface_op=Replace(1, 2), source_event_seqs=[1, 2])
    assert session.derive_event_message(0) is None
    for seq in (1, 2, 3):  # shadowed or not, an event projects alone
        assert session.derive_event_message(seq) == derive_event_message(session.events[seq])
        assert session.derive_event_message(seq) == {"role": "user", "content": USER["content"]}
    assert session.derive_event_message(session.events[1]) == session.derive_event_message(1)  # the 0.1 form


@pytest.mark.parametrize("seq", [-1, 3, 2**64])
def test_derive_event_message_outside_the_log(seq: int) -> None:
    with pytest.raises(IndexError, match="no event at seq"):
        _two_messages().derive_event_message(seq)


@pytest.mark.parametrize("seq", [True, 1.0, "1", None])
def test_derive_event_message_takes_only_ints(seq: Any) -> None:
    # beartype (on in the tests) stops what the annotation excludes; a bool gets past it.
    with pytest.raises((TypeError, BeartypeCallHintViolation)) as caught:
        _two_messages().derive_event_message(seq)
    if isinstance(seq, bool):
        assert str(caught.value) == "seq must be an int, not bool"


def test_check_log_names_each_record_type() -> None:
    good = _two_messages().events
    records: list[object] = [
        *good,
        {"type": "user/message", "seq": 3, "time": 5, "data": USER},  # no surfaceOp
        {"type": 7, "seq": 4, "time": 5, "data": {}},  # a type that is not a string
        "not an event",
        {"type": "todo/write", "seq": 9, "time": 5, "data": {"todos": []}},  # a gap
    ]
    found = [(v.code, v.seq, v.event_type) for v in check_log(records)]
    assert found == [
        (Code.MISSING_SURFACE_OP, 3, "user/message"),
        (Code.MALFORMED_EVENT, 4, None),
        (Code.MALFORMED_EVENT, None, None),
        (Code.SEQ_NOT_CONTIGUOUS, 9, "todo/write"),
    ]


@pytest.mark.parametrize(
    ("kind", "data", "field"),
    [
        ("user/message", USER, "surface_op"),
        ("todo/write", {"todos": []}, "surface_op"),
        ("user/message", USER, "source_event_seqs"),
        ("todo/write", {"todos": []}, "source_event_seqs"),
    ],
)
def test_a_present_null_marker_is_refused_as_the_spec_refuses_it(kind: str, data: Any, field: str) -> None:
    session = _two_messages()
    log = spec_events(session.events)
    extra: dict[str, Any] = {field: NULL}
    draft: dict[str, object] = {"surface_op": spec.ABSENT, "source_event_seqs": spec.ABSENT}
    draft[field] = None
    if field == "source_event_seqs" and kind == "user/message":
        extra["surface_op"] = "append"
        draft["surface_op"] = "append"
    offered = spec.Draft(kind, 5, data, draft["surface_op"], draft["source_event_seqs"])
    expected = spec.validate_append(log, offered)
    assert isinstance(expected, spec.Rejection)
    with pytest.raises(InvalidEventError) as caught:
        session.append(kind, data, **extra)
    assert (caught.value.code, caught.value.seq) == (expected.code, expected.seq)
    assert len(session.events) == 3


def test_null_is_one_object() -> None:
    assert pickle.loads(pickle.dumps(NULL)) is NULL
    assert copy.deepcopy(NULL) is NULL and type(NULL)() is NULL
    assert repr(NULL) == "NULL"


def _closed_turn(session: Session) -> None:
    session.append("turn/start", TURN)
    session.append("turn/end", {"turn": 1, "reason": {"kind": "completed"}})


def test_a_store_holds_its_sessions_to_the_invariants() -> None:
    store = SessionStore(invariants=True, clock=lambda: 5)
    assert store.invariants
    session = store.create("a")
    assert session.invariants
    with pytest.raises(InvariantViolationError):
        session.append("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
    assert not store.create("b", invariants=False).invariants
    assert not store.prepare("c", invariants=False).invariants
    assert store.prepare("d").invariants
    with pytest.raises(InvariantViolationError):  # a seed is checked like appends
        store.create("e", seed=[{"type": "turn/end", "seq": 0, "time": 5, "data": {"turn": 1}}])
    assert not SessionStore().create("f").invariants


def test_a_fork_inherits_its_parents_invariants() -> None:
    store = SessionStore(clock=lambda: 5)
    parent = store.create("p", invariants=True)
    _closed_turn(parent)
    child = store.fork(parent)
    assert child.invariants
    with pytest.raises(InvariantViolationError):
        child.append("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
    assert not store.fork(parent, child_id="loose", invariants=False).invariants
    plain = store.create("q")
    _closed_turn(plain)
    assert not store.fork(plain).invariants
    assert store.fork(plain, child_id="strict", invariants=True).invariants


def test_events_are_still_events() -> None:
    assert isinstance(_two_messages().events[0], Event)

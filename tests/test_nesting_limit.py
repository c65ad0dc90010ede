"""The nesting limit (issue 11, items 1 and 2): data nests at most 200 containers deep.

What is accepted at ``append`` loads again -- from every backend, from a
caller already deep in its own stack -- and what is deeper is refused with
``DATA_TOO_DEEP`` before anything is written. A stored record that nests
deeper (written by hand, or by the TypeScript harness, which accepts it) is a
coded error at load and nothing is cut: it is complete, not a torn tail. No
path raises a bare ``RecursionError``.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from dsh_session import (
    Code,
    CorruptStoreError,
    Event,
    InvalidEventError,
    JsonlBackend,
    MemoryBackend,
    PersistenceCoordinator,
    Session,
    SessionHeader,
    SessionMeta,
    SessionStore,
    SqliteBackend,
)
from dsh_session.persistence import copy_sessions
from tests.backends import DURABLE, ENVS, Env, JsonlTamper, PostgresTamper, SqliteTamper
from tests.cli_support import run

T = TypeVar("T")

LIMIT = 200
#: Frames a test's caller is at when it calls in "from a deep stack" (the limit is 1000).
DEEP = 950


def nested(depth: int) -> Any:
    """``{"k": {"k": ... {}}}``: ``depth`` containers."""
    value: Any = {}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


def from_deep_stack(call: Callable[[], T], frames: int = DEEP) -> T:
    """``call()`` made from ``frames`` frames deep (whatever the test runner's own depth)."""
    if not frames:
        return call()
    assert sys.getrecursionlimit() - frames <= 60, "the caller must be near the limit"
    here = len(inspect.stack(0))

    def down(left: int) -> T:
        return call() if left <= 0 else down(left - 1)

    return down(frames - here)


def log_with(data: Any) -> list[Event]:
    """A closed turn, then a turn holding a ``todo/write`` with ``data`` (left open)."""
    session = Session("s")
    session.append("turn/start", {"turn": 1})
    session.append("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
    session.append("turn/start", {"turn": 2})
    session.append("todo/write", {"a": 1})
    events = list(session.events)
    events.append(Event("todo/write", 4, 5, data))
    return events


@pytest.fixture(scope="module", autouse=True)
def warm_type_checks(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Run every path once from a shallow stack first: the tests run under beartype, whose
    wrappers resolve their type hints on a function's first call -- work of the test harness,
    not of the library, that would otherwise run out of stack in the deep calls below."""
    tmp = tmp_path_factory.mktemp("warm")
    test_coordinator_adoption_compares_data_at_the_limit_from_a_deep_stack(tmp, frames=0)
    test_copy_sessions_verifies_data_at_the_limit_from_a_deep_stack(tmp, frames=0)
    for name in sorted(ENVS):
        made = ENVS[name](tmp / name)
        backend = made.backend()
        backend.create(SessionHeader("s", 1))
        backend.append("s", log_with(nested(LIMIT)))
        made.backend().load("s")
        made.close_all()


@pytest.fixture(params=sorted(ENVS))
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    made = ENVS[request.param](tmp_path)
    yield made
    made.close_all()


@pytest.fixture(params=DURABLE)
def durable(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Env]:
    made = ENVS[request.param](tmp_path)
    yield made
    made.close_all()


# -- Session.append and seeds -------------------------------------------------------------------


@pytest.mark.parametrize("deep_caller", [False, True])
def test_append_takes_data_at_the_limit_and_refuses_one_past_it(deep_caller: bool) -> None:
    session = Session("s")

    def append(data: Any) -> Event:
        def call() -> Event:
            return session.append("todo/write", data)

        return from_deep_stack(call) if deep_caller else call()

    event = append(nested(LIMIT))
    assert event.to_json()["data"] == nested(LIMIT)
    with pytest.raises(InvalidEventError) as raised:
        append(nested(LIMIT + 1))
    assert raised.value.code is Code.DATA_TOO_DEEP
    assert len(session.events) == 1  # the refused event never entered the log


@pytest.mark.parametrize("depth", [LIMIT + 1, 1_000, 100_000])
def test_much_deeper_data_is_a_coded_refusal_not_a_recursion_error(depth: int) -> None:
    session = Session("s")
    calls: list[Callable[[], object]] = [
        lambda: session.append("todo/write", nested(depth)),
        lambda: from_deep_stack(lambda: session.append("todo/write", {"x": nested(depth)})),
        lambda: Session("t", seed=[{"type": "todo/write", "seq": 0, "time": 1, "data": nested(depth)}]),
    ]
    for call in calls:
        with pytest.raises(InvalidEventError) as raised:
            call()
        assert raised.value.code is Code.DATA_TOO_DEEP
    assert session.events == ()


def test_the_limit_counts_frozen_values_nested_in_new_data() -> None:
    session = Session("s")
    held = session.append("todo/write", nested(LIMIT)).data  # a logged (frozen) value, 200 deep
    with pytest.raises(InvalidEventError) as raised:
        session.append("todo/write", {"again": held})
    assert raised.value.code is Code.DATA_TOO_DEEP


def test_a_cycle_is_still_not_json_and_sharing_is_no_nesting() -> None:
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    with pytest.raises(InvalidEventError) as raised:
        Session("s").append("todo/write", {"c": cyclic})
    assert raised.value.code is Code.NON_JSON_DATA
    inner = nested(LIMIT - 1)
    assert Session("s").append("todo/write", {"a": inner, "b": [inner][0]}).seq == 0  # 200 deep twice


# -- every backend ------------------------------------------------------------------------------


def test_every_backend_stores_data_at_the_limit_and_loads_it_from_a_deep_stack(env: Env) -> None:
    events = log_with(nested(LIMIT))
    backend = env.backend()

    def store() -> None:
        backend.create(SessionHeader("s", 1))
        backend.append("s", events)

    from_deep_stack(store)
    loaded = from_deep_stack(lambda: env.backend().load("s"))
    assert [event.to_json() for event in loaded.events[:5]] == [event.to_json() for event in events]
    assert [event.type for event in loaded.events[5:]] == ["turn/end"]  # the crash closer


def test_every_backend_refuses_data_past_the_limit_before_writing(env: Env) -> None:
    backend = env.backend()
    backend.create(SessionHeader("s", 1))
    for depth in (LIMIT + 1, 5_000):
        events = log_with(nested(depth))
        with pytest.raises(InvalidEventError) as raised:
            from_deep_stack(lambda: backend.append("s", events))  # noqa: B023
        assert raised.value.code is Code.DATA_TOO_DEEP
    assert backend.list() == ()
    assert env.backend().list() == ()  # nothing of the batch was written


def plant(env: Env, seq: int, data_text: str, kind: str = "todo/write") -> None:
    """Store a record beside the backend, as another writer (the TypeScript harness) would."""
    tamper = env.tamper
    if isinstance(tamper, JsonlTamper):
        line = f'{{"type":"{kind}","seq":{seq},"time":9,"data":{data_text}}}\n'
        with open(tamper.path("s"), "ab") as file:
            file.write(line.encode())
    elif isinstance(tamper, SqliteTamper):
        tamper.execute("INSERT INTO events VALUES ('s', ?, ?, 9, ?, NULL, NULL)", seq, kind, data_text)
    else:
        assert isinstance(tamper, PostgresTamper)
        sid = tamper.sid("s")
        statement = "INSERT INTO {s}.events VALUES (%s, %s, %s, 9, %s, NULL, NULL)"
        tamper.execute(statement, sid, seq, kind, data_text)


def deep_text(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [LIMIT + 1, 1_100, 20_000])
@pytest.mark.parametrize("where", ["committed", "open-turn", "after-a-torn-boundary"])
def test_a_stored_record_too_deep_is_refused_and_nothing_is_cut(durable: Env, depth: int, where: str) -> None:
    events = log_with({"a": 2})
    backend = durable.backend()
    backend.create(SessionHeader("s", 1))
    backend.append("s", events[:3] if where == "committed" else events)
    if where == "committed":
        plant(durable, 3, deep_text(depth))
        plant(durable, 4, '{"turn":2,"reason":{"kind":"completed"}}', "turn/end")
    elif where == "open-turn":
        plant(durable, 5, deep_text(depth))
        plant(durable, 6, "{}")
    else:
        plant(durable, 6, "{}")  # a gap after the last turn/end: the reference's torn boundary
        plant(durable, 7, deep_text(depth))
    before = durable.tamper.snapshot()
    for deep_caller in (False, True):
        fresh = durable.backend()
        with pytest.raises(CorruptStoreError) as raised:
            if deep_caller:
                from_deep_stack(lambda: fresh.load("s"))  # noqa: B023
            else:
                fresh.load("s")
        assert raised.value.code is Code.DATA_TOO_DEEP
        assert durable.tamper.snapshot() == before  # nothing cut, nothing closed


def test_a_record_at_the_limit_planted_by_another_writer_loads(durable: Env) -> None:
    backend = durable.backend()
    backend.create(SessionHeader("s", 1))
    backend.append("s", log_with({"a": 2}))
    plant(durable, 5, deep_text(LIMIT))
    loaded = from_deep_stack(lambda: durable.backend().load("s"))
    data: Any = loaded.events[5].to_json()["data"]
    depth = 0
    while isinstance(data, list):
        depth += 1
        data = data[0] if data else None
    assert depth == LIMIT


# -- copying and the write coordinator --------------------------------------------------------


def test_copy_sessions_verifies_data_at_the_limit_from_a_deep_stack(
    tmp_path: Path, frames: int = DEEP
) -> None:
    src = JsonlBackend(tmp_path / "src")
    src.create(SessionHeader("s", 1))
    src.append("s", log_with(nested(LIMIT)))
    with SqliteBackend(tmp_path / "dst.db") as dst:
        assert from_deep_stack(lambda: copy_sessions(src, dst, verify=True), frames) == ["s"]
        assert from_deep_stack(lambda: copy_sessions(dst, MemoryBackend(), verify=True), frames) == ["s"]


def test_coordinator_adoption_compares_data_at_the_limit_from_a_deep_stack(
    tmp_path: Path, frames: int = DEEP
) -> None:
    first = SessionStore()
    with JsonlBackend(tmp_path / "root") as backend, PersistenceCoordinator(first, backend) as persist:
        live = first.create("s", meta=SessionMeta(created_at=1))
        live.append("turn/start", {"turn": 1})
        live.append("todo/write", nested(LIMIT))
        persist.flush(live)
    again = SessionStore()
    with JsonlBackend(tmp_path / "root") as backend, PersistenceCoordinator(again, backend) as persist:

        def adopt() -> int:
            session = again.create("s", seed=live.events, meta=SessionMeta(created_at=1))
            return persist.flushed(session)

        assert from_deep_stack(adopt, frames) == 2  # the stored past is this session's: adopted, not refused


def test_convert_refuses_a_too_deep_source_before_writing(tmp_path: Path) -> None:
    root = tmp_path / "src"
    backend = JsonlBackend(root)
    backend.create(SessionHeader("s", 1))
    backend.append("s", log_with({"a": 2}))
    tamper = JsonlTamper(root)
    deep = deep_text(3_000)
    with open(tamper.path("s"), "ab") as file:
        file.write(f'{{"type":"todo/write","seq":5,"time":9,"data":{deep}}}\n'.encode())
    ran = run("convert", str(root), str(tmp_path / "dst.db"))
    assert ran.status == 2, ran.stderr
    assert "[DATA_TOO_DEEP]" in ran.stderr
    assert "Traceback" not in ran.stderr
    assert not (tmp_path / "dst.db").exists()



class _LongerLoad(JsonlBackend):
    """A JSONL backend whose load goes through ``extra`` more calls before it reads: a load
    whose own chain of calls has grown (a refactoring adds a helper or two)."""

    extra = 100

    def _load(self, *args: Any, **kwargs: Any) -> Any:
        def down(left: int) -> Any:
            return JsonlBackend._load(self, *args, **kwargs) if left <= 0 else down(left - 1)

        return down(self.extra)


@pytest.mark.parametrize("frames", [0, DEEP])
def test_a_load_fits_from_a_deep_stack_however_long_its_chain_of_calls(tmp_path: Path, frames: int) -> None:
    """A load runs on a fresh stack when its caller is near the recursion limit
    (``_stack.with_headroom``), so its outcome does not hang on how many frames its own
    chain of calls takes: 100 more than today's, from 950 frames deep, still loads a
    payload at the limit, and an append that must load first still stores."""
    with JsonlBackend(tmp_path / "root") as writer:
        writer.create(SessionHeader("s", 1))
        writer.append("s", log_with(nested(LIMIT)))
    with _LongerLoad(tmp_path / "root") as backend:
        loaded = from_deep_stack(lambda: backend.load("s", close_turn=False), frames)
        assert loaded.events[-1].data == nested(LIMIT)
    more = Event("todo/write", 6, 7, {"b": 2})  # after the turn/end the adoption stores at 5
    with _LongerLoad(tmp_path / "root") as backend:
        from_deep_stack(lambda: backend.append("s", [more]), frames)
    with JsonlBackend(tmp_path / "root", read_only=True) as reader:
        stored = reader.load("s", close_turn=False).events
    tail = [(event.seq, event.type) for event in stored[4:]]
    assert tail == [(4, "todo/write"), (5, "turn/end"), (6, "todo/write")]

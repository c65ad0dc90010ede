"""``copy_sessions``: sessions go from one backend to another whole, and are checked."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from dsh_session import (
    Code,
    CopyMismatchError,
    Event,
    JsonlBackend,
    MemoryBackend,
    SessionExistsError,
    SessionHeader,
    SessionNotFoundError,
    SqliteBackend,
    StoredSession,
    copy_sessions,
    freeze,
    thaw,
)
from tests.logs import LogBuilder, header, one_turn_log


def filled(ids: Iterable[str]) -> MemoryBackend:
    backend = MemoryBackend()
    for session_id in ids:
        backend.create(header(session_id, cwd="/w"))
        backend.append(session_id, one_turn_log(session_id, turns=2))
    return backend


def test_copies_every_session_between_real_backends(tmp_path: Path) -> None:
    source = filled(["b", "a", "c"])
    with SqliteBackend(tmp_path / "s.db") as sqlite:
        assert copy_sessions(source, sqlite) == ["a", "b", "c"]  # list() order: by id
        with JsonlBackend(tmp_path / "root") as jsonl:
            assert copy_sessions(sqlite, jsonl, ["c"]) == ["c"]
            assert [h.id for h in jsonl.list()] == ["c"]
            loaded = jsonl.load("c")
    assert loaded.header == header("c", cwd="/w")
    assert loaded.events == tuple(one_turn_log("c", turns=2))


def test_progress_is_reported_after_each_session() -> None:
    calls: list[tuple[str, int, int]] = []
    copy_sessions(filled(["x", "y"]), MemoryBackend(), progress=lambda *call: calls.append(call))
    assert calls == [("x", 1, 2), ("y", 2, 2)]


def test_an_open_turn_arrives_closed() -> None:
    builder = LogBuilder("open")
    builder.turn_start(1)
    builder.user("hello")
    source = MemoryBackend()
    source.create(header("open"))
    source.append("open", builder.events)
    target = MemoryBackend()
    copy_sessions(source, target)
    events = target.load("open").events
    assert [event.type for event in events] == ["turn/start", "user/message", "turn/end"]
    assert events[-1].data == {"turn": 1, "reason": {"kind": "interrupted"}}


def test_an_existing_session_in_the_target_is_refused_and_nothing_is_copied() -> None:
    target = filled(["b"])
    with pytest.raises(SessionExistsError) as raised:
        copy_sessions(filled(["a", "b"]), target)
    assert raised.value.code == Code.SESSION_ALREADY_EXISTS
    assert [h.id for h in target.list()] == ["b"]


def test_an_unknown_id_is_refused() -> None:
    with pytest.raises(SessionNotFoundError):
        copy_sessions(filled(["a"]), MemoryBackend(), ["zzz"])


class _Lossy(MemoryBackend):
    """A backend that loads back something else than it was given."""

    def __init__(self, damage: str) -> None:
        super().__init__()
        self.damage = damage

    def load(self, session_id: str, *, close_turn: bool = True) -> StoredSession:
        header, events = super().load(session_id, close_turn=close_turn)
        if self.damage == "header":
            header = SessionHeader(id=header.id, created_at=header.created_at + 1, cwd=header.cwd)
        elif self.damage == "event":
            first = events[3]
            events = (*events[:3], Event(first.type, first.seq, first.time + 1, first.data, None, "append"))
            events += tuple(super().load(session_id).events[4:])
        elif self.damage == "count":
            events = events[:-1]
        return StoredSession(header, events)


@pytest.mark.parametrize(("damage", "seq"), [("header", None), ("event", 3), ("count", None)])
def test_a_copy_that_does_not_load_back_equal_is_reported(damage: str, seq: int | None) -> None:
    with pytest.raises(CopyMismatchError) as raised:
        copy_sessions(filled(["a"]), _Lossy(damage))
    assert raised.value.code == Code.COPY_MISMATCH
    assert raised.value.session_id == "a"
    assert raised.value.seq == seq
    assert "'a'" in raised.value.message


class _Booleans(MemoryBackend):
    """A backend that reads a boolean back as a number: ``true`` becomes ``1``."""

    def load(self, session_id: str, *, close_turn: bool = True) -> StoredSession:
        header, events = super().load(session_id, close_turn=close_turn)
        return StoredSession(header, tuple(_numbers_for_booleans(event) for event in events))


def _numbers_for_booleans(event: Event) -> Event:
    def swap(value: object) -> object:
        if type(value) is bool:
            return int(value)
        if isinstance(value, dict):
            return {key: swap(item) for key, item in value.items()}
        if isinstance(value, list):
            return [swap(item) for item in value]
        return value

    data = freeze(swap(thaw(event.data)))
    return Event(event.type, event.seq, event.time, data, event.source_event_seqs, event.surface_op)


def test_a_boolean_read_back_as_a_number_is_a_mismatch() -> None:
    builder = LogBuilder("b")
    builder.turn_start(1)
    builder.add("todo/write", {"todos": [{"text": "x", "done": True}]})
    source = MemoryBackend()
    source.create(header("b"))
    source.append("b", builder.events)
    with pytest.raises(CopyMismatchError) as raised:
        copy_sessions(source, _Booleans())
    assert raised.value.seq == 1  # Python's == says True == 1; JSON does not


def test_without_verify_nothing_is_loaded_back() -> None:
    assert copy_sessions(filled(["a"]), _Lossy("header"), verify=False) == ["a"]

"""copy_sessions: sessions copied between every pair of backends load back equal; the
reference's own stores survive a trip through PostgreSQL byte for byte; a copy that does not
load back equal, or a destination that already holds a session, is refused."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from dsh_session import (
    Code,
    CopyMismatchError,
    Event,
    JsonlBackend,
    MemoryBackend,
    Replace,
    Session,
    SessionBackend,
    SessionExistsError,
    SessionNotFoundError,
    SqliteBackend,
    StoredSession,
    copy_sessions,
    verify_copy,
)
from dsh_session.js_json import dumps
from dsh_session.persistence._codec import event_line
from tests.backends import ENVS, Env
from tests.logs import LogBuilder, header, one_turn_log
from tests.reference import VALID, copy_case, jsonl_root
from tests.support import event_with
from tests.test_reference_artifacts import check_loaded, session_id, tree

KINDS = sorted(ENVS)


def sample_sessions() -> dict[str, tuple[Any, list[Event]]]:
    """Sessions that exercise what a store must keep: every JSON kind, surface fields, a forked
    header, a long log in one batch, and a log with an open turn (repaired by the source's load)."""
    values = LogBuilder("values")
    values.turn_start()
    kinds: list[object] = [
        None,
        True,
        0,
        -1,
        2**53,
        0.1,
        1e21,
        5e-324,
        "",
        'q " \\ \x00 \u2028 é 😀 \ud800',
        [],
        {},
    ]
    for value in kinds:
        values.add("todo/write", {"value": value})
    values.user("a")
    values.user("b")
    values.add(
        "user/message",
        {"content": [{"type": "text", "text": "summary"}], "source": {"kind": "plugin"}},
        surface_op=Replace(values.events[-2].seq, values.events[-1].seq),
        source_event_seqs=[values.events[-2].seq, values.events[-1].seq],
    )
    values.turn_end()
    open_turn = LogBuilder("open")
    open_turn.one_turn(1)
    open_turn.turn_start(2)
    open_turn.step_start(2)
    open_turn.assistant(2, 1, calls=["call-x"])
    return {
        "values": (header("values", cwd="/home/u/ws"), values.events),
        "child": (header("child", parent_session="values", seed_length=6), one_turn_log("child", turns=2)),
        "long": (header("long", cwd="/w"), one_turn_log("long", turns=60)),
        "open": (header("open"), open_turn.events),
    }


def fill(backend: SessionBackend, sessions: dict[str, tuple[Any, list[Event]]]) -> None:
    for session_id_, (first, events) in sessions.items():
        backend.create(first)
        backend.append(session_id_, events)


def fingerprints(stored: StoredSession) -> tuple[object, ...]:
    session = Session(stored.header.id, seed=stored.events, header=stored.header)
    return (
        stored.header,
        [(e.type, e.seq, e.time, dumps(e.data), e.source_event_seqs, e.surface_op) for e in stored.events],
        [dumps(m) for m in session.derive_messages()],
    )


def make_env(kind: str, tmp: Path, role: str) -> Env:
    folder = tmp / role
    folder.mkdir()
    return ENVS[kind](folder)


@pytest.mark.parametrize(("src_kind", "dst_kind"), [(s, d) for s in KINDS for d in KINDS if s != d])
def test_sessions_copied_between_backends_load_back_equal(
    src_kind: str, dst_kind: str, tmp_path: Path
) -> None:
    src_env, dst_env = make_env(src_kind, tmp_path, "src"), make_env(dst_kind, tmp_path, "dst")
    try:
        sessions = sample_sessions()
        fill(src_env.backend(), sessions)
        src, dst = src_env.backend(), dst_env.backend()
        seen: list[tuple[str, int, int]] = []
        copied = copy_sessions(src, dst, progress=lambda *call: seen.append(call))
        ids = ["child", "long", "open", "values"]
        assert copied == ids
        loaded_src = {i: src_env.backend().load(i) for i in ids}
        assert seen == [(i, n, 4) for n, i in enumerate(ids, start=1)]
        fresh = dst_env.backend()
        assert [h.id for h in fresh.list()] == ids
        for i in ids:
            assert fingerprints(fresh.load(i)) == fingerprints(loaded_src[i])
        assert [e.type for e in loaded_src["open"].events[-3:]] == ["tool/result", "step/end", "turn/end"]
        assert list(loaded_src["values"].events) == sessions["values"][1]
    finally:
        src_env.close_all()
        dst_env.close_all()


def test_only_the_sessions_asked_for_are_copied(tmp_path: Path) -> None:
    src, dst = MemoryBackend(), SqliteBackend(tmp_path / "dst.db")
    fill(src, sample_sessions())
    assert copy_sessions(src, dst, ["long", "child", "long"]) == ["long", "child"]
    assert [h.id for h in dst.list()] == ["child", "long"]


def test_a_destination_that_holds_a_session_already_gets_nothing(tmp_path: Path) -> None:
    src, dst = MemoryBackend(), SqliteBackend(tmp_path / "dst.db")
    fill(src, sample_sessions())
    dst.create(header("long"))
    dst.append("long", one_turn_log("long"))
    before = [dst.load(h.id) for h in dst.list()]
    with pytest.raises(SessionExistsError) as raised:
        copy_sessions(src, dst)
    assert raised.value.code is Code.SESSION_ALREADY_EXISTS
    assert "'long'" in str(raised.value) and "nothing was copied" in str(raised.value)
    assert [dst.load(h.id) for h in dst.list()] == before


def test_a_stored_session_without_events_leaves_no_trace(tmp_path: Path) -> None:
    src = SqliteBackend(tmp_path / "src.db")
    src.create(header("bare"))
    src.append("bare", one_turn_log("bare"))
    with sqlite3.connect(tmp_path / "src.db") as conn:  # rows deleted by hand
        conn.execute("DELETE FROM events")
    dst = MemoryBackend()
    assert copy_sessions(src, dst) == ["bare"]
    assert dst.list() == ()


def test_an_unknown_id_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFoundError) as raised:
        copy_sessions(MemoryBackend(), MemoryBackend(), ["nobody"])
    assert raised.value.code is Code.SESSION_NOT_FOUND


class Distorting(MemoryBackend):
    """A destination whose loads are not what was stored (each kind of damage verify must see)."""

    def __init__(self, damage: str) -> None:
        super().__init__()
        self.damage = damage

    def load(self, session_id: str, **options: Any) -> StoredSession:
        stored = super().load(session_id, **options)
        events = list(stored.events)
        if self.damage == "header":
            return StoredSession(replace(stored.header, cwd="/elsewhere"), stored.events)
        if self.damage == "fewer events":
            return StoredSession(stored.header, tuple(events[:-1]))
        index = next(i for i, e in enumerate(events) if e.data.get("value") is True)
        if self.damage == "true became 1":  # equal under Python's ==, not in JSON
            events[index] = event_with(events[index], data={"value": 1})
        else:  # "time"
            events[index] = event_with(events[index], time=events[index].time + 1)
        return StoredSession(stored.header, tuple(events))


@pytest.mark.parametrize("damage", ["header", "fewer events", "true became 1", "time"])
def test_a_copy_that_does_not_load_back_equal_is_refused(damage: str) -> None:
    src = MemoryBackend()
    first, events = sample_sessions()["values"]
    src.create(first)
    src.append("values", events)
    with pytest.raises(CopyMismatchError) as raised:
        copy_sessions(src, Distorting(damage))
    error = raised.value
    assert error.code is Code.COPY_MISMATCH
    assert error.session_id == "values" and "'values'" in str(error)
    assert "MemoryBackend" in str(error) and "Distorting" in str(error)
    if damage in ("true became 1", "time"):
        assert error.seq == 2 and "seq 2" in str(error)
    else:
        assert error.seq is None
    # without verification the same copy goes through
    assert copy_sessions(src, Distorting(damage), verify=False) == ["values"]


def test_data_key_order_is_not_a_difference() -> None:
    """Events compare as JSON values: a copy whose data keys come back in another order is equal."""
    src, dst = MemoryBackend(), MemoryBackend()
    first, events = sample_sessions()["values"]
    for backend, data in ((src, {"a": 1, "b": True}), (dst, {"b": True, "a": 1.0})):
        backend.create(first)
        backend.append("values", [*events[:2], event_with(events[2], data=data), *events[3:]])
    assert verify_copy(src, dst) == ["values"]


@pytest.mark.parametrize("damage", ["header", "fewer events", "true became 1", "time"])
def test_verify_copy_compares_a_copy_made_earlier(damage: str, tmp_path: Path) -> None:
    src = SqliteBackend(tmp_path / "src.db")
    first, events = sample_sessions()["values"]
    src.create(first)
    src.append("values", events)
    src.create(header("bare"))
    src.append("bare", one_turn_log("bare", turns=1))
    conn = sqlite3.connect(tmp_path / "src.db")
    conn.execute("DELETE FROM events WHERE session_id = 'bare'")
    conn.commit()
    conn.close()
    honest = MemoryBackend()
    assert copy_sessions(src, honest) == ["bare", "values"]
    # "bare" has no events left: a copy stores nothing of it, so there is nothing to compare
    assert verify_copy(src, honest, ["values", "bare", "values"]) == ["values", "bare"]
    with pytest.raises(CopyMismatchError) as raised:
        verify_copy(src, _copied(src, damage))
    assert raised.value.code is Code.COPY_MISMATCH and raised.value.session_id == "values"
    with pytest.raises(SessionNotFoundError):
        verify_copy(src, MemoryBackend())


def _copied(src: SessionBackend, damage: str) -> SessionBackend:
    dst = Distorting(damage)
    copy_sessions(src, dst, verify=False)
    return dst


# -- the reference's stores, through PostgreSQL and back ---------------------------------------


#: The one valid case whose JSONL log holds lines in an unusual key order (closers written by
#: an earlier repair): a database stores columns, so a trip through one brings them back in the
#: usual order -- exactly what the reference itself loads from its SQLite store of that case.
KEY_ORDER_CASES = {"previously-interrupted-turn-resumed-cwd"}


@pytest.mark.parametrize("case", VALID)
def test_a_reference_jsonl_store_survives_a_trip_through_postgres(case: str, tmp_path: Path) -> None:
    folder = copy_case(case, tmp_path)
    pg_env = ENVS["postgres"](tmp_path)
    try:
        copy_sessions(JsonlBackend(folder / "jsonl"), pg_env.backend())
        # what the reference loaded from its own database of this case, key order included
        check_loaded(pg_env.backend().load(session_id(folder)), folder / "sqlite" / "expected.json")
        copy_sessions(pg_env.backend(), JsonlBackend(tmp_path / "back"))
    finally:
        pg_env.close_all()
    if case in KEY_ORDER_CASES:
        assert tree(tmp_path / "back") != tree(jsonl_root(case))
        check_loaded(
            JsonlBackend(tmp_path / "back").load(session_id(folder)), folder / "sqlite" / "expected.json"
        )
    else:  # byte for byte what the reference wrote
        assert tree(tmp_path / "back") == tree(jsonl_root(case))


@pytest.mark.parametrize("case", VALID)
def test_a_reference_sqlite_store_survives_a_trip_through_postgres_row_for_row(
    case: str, tmp_path: Path
) -> None:
    folder = copy_case(case, tmp_path)
    pg_env = ENVS["postgres"](tmp_path)
    try:
        with SqliteBackend(folder / "sqlite" / "session.db") as lite:
            copy_sessions(lite, pg_env.backend())
        with SqliteBackend(tmp_path / "back.db") as back:
            copy_sessions(pg_env.backend(), back)
    finally:
        pg_env.close_all()
    assert stored_rows(tmp_path / "back.db") == stored_rows(folder / "sqlite" / "session.db")


def stored_rows(path: Path) -> tuple[list[Any], list[Any]]:
    conn = sqlite3.connect(path)
    try:
        return (
            conn.execute("SELECT * FROM sessions ORDER BY id").fetchall(),
            conn.execute("SELECT * FROM events ORDER BY session_id, seq").fetchall(),
        )
    finally:
        conn.close()


def test_key_order_is_what_each_backend_keeps(tmp_path: Path) -> None:
    """A JSONL line with an unusual key order keeps it through JSONL; a database stores
    columns, so the copy out of one writes the usual order -- and verification compares
    values, not key order."""
    src = JsonlBackend(tmp_path / "src")
    log = LogBuilder()
    log.one_turn()
    src.create(header("s"))
    src.append("s", log.events)
    (path,) = (tmp_path / "src").glob("*/*.jsonl")
    lines = path.read_bytes().split(b"\n")
    lines[1] = (
        b'{"seq":0,"type":"turn/start","time":1,"data":{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}}'
    )
    path.write_bytes(b"\n".join(lines))
    odd = JsonlBackend(tmp_path / "src").load("s").events[0]
    assert odd.key_order == ("seq", "type", "time", "data")
    copy_sessions(JsonlBackend(tmp_path / "src"), JsonlBackend(tmp_path / "jsonl"))
    copy_sessions(JsonlBackend(tmp_path / "src"), SqliteBackend(tmp_path / "db.sqlite"))
    assert event_line(JsonlBackend(tmp_path / "jsonl").load("s").events[0]) == lines[1].decode()
    assert event_line(SqliteBackend(tmp_path / "db.sqlite").load("s").events[0]).startswith(
        '{"type":"turn/start"'
    )


# -- progress in events: on_stage ---------------------------------------------------------------------


@pytest.mark.parametrize("verify", [True, False], ids=["verify", "no-verify"])
def test_on_stage_reports_each_step_of_each_session_with_its_event_count(verify: bool) -> None:
    src = MemoryBackend()
    fill(src, sample_sessions())
    counts = {h.id: len(src.load(h.id).events) for h in src.list()}  # "open" with its 3 closers
    assert counts["long"] > counts["child"] > 0
    calls: list[tuple[object, ...]] = []
    copy_sessions(
        src,
        MemoryBackend(),
        ["long", "open"],
        verify=verify,
        progress=lambda *call: calls.append(("done", *call)),
        on_stage=lambda *call: calls.append(call),
    )
    stages = ["loaded", "written", "verified"] if verify else ["loaded", "written"]
    expected: list[tuple[object, ...]] = []
    for done, session in enumerate(["long", "open"], start=1):
        expected += [(session, stage, counts[session]) for stage in stages]
        expected.append(("done", session, done, 2))
    assert calls == expected


def test_on_stage_stops_at_a_copy_that_does_not_load_back_equal() -> None:
    src = MemoryBackend()
    first, events = sample_sessions()["values"]
    src.create(first)
    src.append("values", events)
    calls: list[tuple[str, str, int]] = []
    with pytest.raises(CopyMismatchError):
        copy_sessions(src, Distorting("time"), on_stage=lambda *call: calls.append(call))
    assert calls == [("values", "loaded", len(events)), ("values", "written", len(events))]


def test_on_stage_for_a_session_without_events_counts_nothing(tmp_path: Path) -> None:
    src = SqliteBackend(tmp_path / "src.db")
    src.create(header("bare"))
    src.append("bare", one_turn_log("bare"))
    with sqlite3.connect(tmp_path / "src.db") as conn:  # rows deleted by hand
        conn.execute("DELETE FROM events")
    calls: list[tuple[str, str, int]] = []
    copy_sessions(src, MemoryBackend(), on_stage=lambda *call: calls.append(call))
    assert calls == [("bare", "loaded", 0), ("bare", "written", 0), ("bare", "verified", 0)]

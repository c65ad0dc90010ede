"""The JSONL backend's own mechanics: layout, bytes, durability, damage, locking
(persistence.md §2 and the JSONL cases of §6.4 and §7)."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dsh_spec
from dsh_session import (
    Code,
    CorruptStoreError,
    Event,
    IncompatibleStoreError,
    JsonlBackend,
    SessionHeader,
    StoreConflictError,
    StoreIOError,
    StoreLockedError,
    UnrepresentableError,
    interrupted_turn_closers,
)
from dsh_session.persistence import cwd_bucket, encode_segment, jsonl
from dsh_session.persistence._codec import HOLE, event_line, header_line
from dsh_session.persistence.jsonl_scan import scan_log
from dsh_spec.persistence import stored_header
from tests.backends import file_mode
from tests.logs import LogBuilder, header, one_turn_log

# -- layout -----------------------------------------------------------------------------------

SEGMENTS = [
    ("..", "~002E~002E"),
    (".", "~002E"),
    ("...", "..."),
    ("a/b", "a~002Fb"),
    ("/etc/passwd", "~002Fetc~002Fpasswd"),
    ("a\x00b", "a~0000b"),
    ("a~b", "a~007Eb"),
    ("~002F", "~007E002F"),
    ("\ud800", "~D800"),
    ("😀", "~D83D~DE00"),
    ("é", "~00E9"),
    ("A B", "A~0020B"),
    ("../../etc/pwn", "..~002F..~002Fetc~002Fpwn"),
    ("plain-ID_1.2", "plain-ID_1.2"),
]

BUCKETS = [
    ("/w", "cwd-d1bb8ca35467"),
    ("/srv/app", "cwd-dae668e4084f"),
    ("/proj", "cwd-79903f0c2002"),
    ("/other", "cwd-bf2faee25960"),
    ("/a", "cwd-6a50dc858413"),
    ("/home/u/ws", "cwd-59f00c3df4a2"),
    ("", "cwd-e3b0c44298fc"),
    ("é", "cwd-4a99557e4033"),
    (None, "_no-cwd"),
]

any_text = st.text(st.characters(exclude_categories=()), max_size=12)


@pytest.mark.parametrize(("session_id", "segment"), SEGMENTS)
def test_segment_vectors(session_id: str, segment: str) -> None:
    assert encode_segment(session_id) == segment
    assert dsh_spec.encode_segment(session_id) == segment


@pytest.mark.parametrize(("cwd", "bucket"), BUCKETS)
def test_bucket_vectors(cwd: str | None, bucket: str) -> None:
    assert cwd_bucket(cwd) == bucket
    assert dsh_spec.cwd_bucket(cwd) == bucket


def test_a_lone_surrogate_cwd_hashes_as_the_replacement_character() -> None:
    assert cwd_bucket("/x\ud800") == cwd_bucket("/x\ufffd") == dsh_spec.cwd_bucket("/x\ud800")
    assert cwd_bucket("\ud83d\ude00") == cwd_bucket("😀")


def test_the_empty_id_has_no_segment() -> None:
    with pytest.raises(ValueError, match="empty"):
        encode_segment("")
    rejection = dsh_spec.encode_segment("")
    assert isinstance(rejection, dsh_spec.Rejection) and rejection.code is Code.INVALID_HEADER


@settings(max_examples=300)
@given(any_text, any_text.map(lambda t: t or "x"))
def test_layout_equals_the_spec_and_segments_are_injective(cwd: str, session_id: str) -> None:
    assert cwd_bucket(cwd) == dsh_spec.cwd_bucket(cwd)
    segment = encode_segment(session_id)
    assert segment == dsh_spec.encode_segment(session_id)
    assert "/" not in segment and segment not in (".", "..")
    other = session_id + "\ud800" if len(session_id) % 2 else session_id[:-1]
    if other:
        assert encode_segment(other) != segment


# -- bytes on disk --------------------------------------------------------------------------


def test_the_header_line_is_the_references(tmp_path: Path) -> None:
    full = SessionHeader("i", 5, cwd="/w", parent_session="p", seed_length=3)
    assert header_line(full) == (
        '{"type":"session","version":0,"id":"i","createdAt":5,"cwd":"/w","parentSession":"p","seedLength":3}'
    )
    assert header_line(SessionHeader("i", 5)) == '{"type":"session","version":0,"id":"i","createdAt":5}'


def test_the_file_is_the_header_and_one_line_per_event(tmp_path: Path) -> None:
    events = one_turn_log("s")
    backend = JsonlBackend(tmp_path)
    backend.create(header("s", cwd="/w"))
    assert list(tmp_path.iterdir()) == []  # nothing before the first events
    backend.append("s", events[:2])
    backend.append("s", events[2:])
    path = tmp_path / "cwd-d1bb8ca35467" / "s.jsonl"
    assert (
        path.read_bytes()
        == ("\n".join([header_line(header("s", cwd="/w")), *(event_line(e) for e in events)]) + "\n").encode()
    )
    assert event_line(events[1]) == (
        '{"type":"user/message","seq":1,"time":2,"data":{"content":[{"type":"text","text":"message 1"}],'
        '"source":{"kind":"user"}},"surfaceOp":"append"}'
    )
    assert file_mode(path) == 0o600
    assert file_mode(tmp_path / "cwd-d1bb8ca35467") == 0o700
    assert sorted(p.name for p in path.parent.iterdir()) == ["s.jsonl"]  # no temporary file left


def test_an_event_line_keeps_the_events_key_order() -> None:
    event = Event("tool/result", 3, 1, {"callId": "c"}, (2,), "append", ("type", "seq", "time", "data"))
    assert event_line(event) == (
        '{"type":"tool/result","seq":3,"time":1,"data":{"callId":"c"},"sourceEventSeqs":[2],"surfaceOp":"append"}'
    )
    closer = Event("tool/result", 3, 1, {}, (2,), "append", ("type", "seq", "time", "data", "surfaceOp"))
    assert event_line(closer).endswith('"data":{},"surfaceOp":"append","sourceEventSeqs":[2]}')
    assert json.loads(event_line(closer)) == closer.to_json()
    assert list(closer.to_json()) == ["type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs"]


def test_ids_that_look_like_paths_stay_inside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    backend = JsonlBackend(root)
    for session_id in ("../../etc/pwn", "/abs", "..", ".", "a/b/c"):
        backend.create(header(session_id))
        backend.append(session_id, one_turn_log(session_id))
    files = sorted(p.name for p in root.rglob("*") if p.is_file())
    assert files == sorted(
        encode_segment(i) + ".jsonl" for i in ("../../etc/pwn", "/abs", "..", ".", "a/b/c")
    )
    assert [p.parent for p in root.rglob("*.jsonl")] == [root / "_no-cwd"] * 5
    assert sorted(os.listdir(tmp_path)) == ["root"]


def test_an_id_too_long_for_a_file_name_is_refused_at_create(tmp_path: Path) -> None:
    backend = JsonlBackend(tmp_path)
    backend.create(header("x" * 232))
    backend.append("x" * 232, one_turn_log("x" * 232))
    with pytest.raises(UnrepresentableError) as raised:
        backend.create(header("x" * 233))
    assert raised.value.code is Code.STORE_UNREPRESENTABLE
    with pytest.raises(UnrepresentableError):
        backend.create(header("é" * 47))  # 5 bytes each when encoded


# -- reading: the header --------------------------------------------------------------------


def write_log(root: Path, session_id: str, body: bytes, bucket: str = "_no-cwd") -> Path:
    path = root / bucket / (encode_segment(session_id) + ".jsonl")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    return path


BAD_HEADERS = [
    b"",
    b'{"type":"session","version":0,"id":"s","createdAt":1}',  # no newline: no complete line
    b"\n",
    b"not json\n",
    b"\xef\xbb\xbf" + b'{"type":"session","version":0,"id":"s","createdAt":1}\n',  # a BOM
    b"[1,2]\n",
    b"null\n",
    b'{"type":"turn/start","seq":0}\n',
    b'{"type":"session","id":"s","createdAt":1}\n',
    b'{"type":"session","version":"0","id":"s","createdAt":1}\n',
    b'{"type":"session","version":true,"id":"s","createdAt":1}\n',
    b'{"type":"session","version":0,"id":5,"createdAt":1}\n',
    b'{"type":"session","version":0,"id":"s"}\n',
    b'{"type":"session","version":0,"id":"s","createdAt":1.5}\n',
    b'{"type":"session","version":0,"id":"s","createdAt":1,"cwd":null}\n',
    b'{"type":"session","version":0,"id":"s","createdAt":1,"seedLength":-1}\n',
    b'{"type":"session","version":0,"id":"s","createdAt":1,"extra":1}\n',
]


@pytest.mark.parametrize("body", BAD_HEADERS)
def test_a_bad_header_is_refused_and_the_file_left_alone(tmp_path: Path, body: bytes) -> None:
    path = write_log(
        tmp_path, "s", body + b'{"type":"turn/start","seq":0,"time":1,"data":{}}\n'[: len(body) and None]
    )
    before = path.read_bytes()
    with pytest.raises(CorruptStoreError) as raised:
        JsonlBackend(tmp_path).load("s")
    assert raised.value.code is Code.STORE_CORRUPT
    assert raised.value.line == 1 and raised.value.path == str(path)
    assert path.read_bytes() == before
    assert JsonlBackend(tmp_path).list() == ()


@pytest.mark.parametrize("version", [b"1", b"99", b"-1", b"0.5"])
def test_another_format_version_is_refused_and_not_touched(tmp_path: Path, version: bytes) -> None:
    body = (
        b'{"type":"session","version":' + version + b',"id":"s","createdAt":1}\n{"type":"turn/start","seq":0'
    )
    path = write_log(tmp_path, "s", body)
    with pytest.raises(IncompatibleStoreError) as raised:
        JsonlBackend(tmp_path).load("s")
    assert raised.value.code is Code.STORE_VERSION_UNSUPPORTED
    assert path.read_bytes() == body


def test_a_version_written_as_zero_point_zero_is_version_zero(tmp_path: Path) -> None:
    write_log(tmp_path, "s", b'{"type":"session","version":0.0,"id":"s","createdAt":1.0}\n')
    assert JsonlBackend(tmp_path).load("s").header == SessionHeader("s", 1)


@pytest.mark.parametrize("spelled", [b"0.0", b"2e0", b"-0", b"3.0e0"])
def test_numbers_in_a_header_are_read_as_javascript_reads_them(tmp_path: Path, spelled: bytes) -> None:
    """Another writer's spelling of the header's integers (``0.0``, ``2e0``) gives the same
    header as theirs does, type for type, in the spec's reading and ours."""
    line = b'{"type":"session","version":0.0,"id":"s","createdAt":1.0,"seedLength":' + spelled + b"}"
    write_log(tmp_path, "s", line + b"\n")
    loaded = JsonlBackend(tmp_path).load("s").header.to_json()
    expected = stored_header(json.loads(line))
    want = int(float(spelled))
    assert type(expected["seedLength"]) is int and expected["seedLength"] == want
    assert type(expected["createdAt"]) is int
    assert [(key, type(loaded[key]), loaded[key]) for key in expected] == [
        (key, type(value), value) for key, value in expected.items()
    ]


# -- reading: damage and torn tails ---------------------------------------------------------


def stored_file(tmp_path: Path, events: list[Event], session_id: str = "s") -> Path:
    backend = JsonlBackend(tmp_path)
    backend.create(header(session_id))
    backend.append(session_id, events)
    backend.close()
    return tmp_path / "_no-cwd" / f"{session_id}.jsonl"


def insert_line(path: Path, before_line: int, line: bytes) -> None:
    lines = path.read_bytes().split(b"\n")
    lines.insert(before_line - 1, line)
    path.write_bytes(b"\n".join(lines))


@pytest.mark.parametrize("line", [b"null", b"5", b"[1]", b'"text"', b"{", b"", b"\xff"])
def test_a_stray_line_before_the_last_turn_end_is_damage_named_by_line(tmp_path: Path, line: bytes) -> None:
    path = stored_file(tmp_path, one_turn_log(turns=2))
    insert_line(path, 5, line)  # between seq 2 and seq 3
    before = path.read_bytes()
    with pytest.raises(CorruptStoreError) as raised:
        JsonlBackend(tmp_path).load("s")
    assert raised.value.code is Code.STORE_CORRUPT
    assert raised.value.line == 5
    assert f"{path}:5:" in str(raised.value)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "line", [b"null", b"5", b"[1]", b"{", b'{"type":"step/start","seq":7,"time":1,"data":{}}']
)
def test_a_stray_line_after_the_last_turn_end_is_where_the_log_tore(tmp_path: Path, line: bytes) -> None:
    events = one_turn_log(turns=2)[:9]  # turn 2 open after its step/start
    path = stored_file(tmp_path, events)
    kept = path.read_bytes()[: -len(event_line(events[8])) - 1]  # up to seq 7
    insert_line(path, 10, line)  # before seq 8
    loaded = JsonlBackend(tmp_path).load("s").events
    assert list(loaded[:8]) == events[:8]
    assert [e.type for e in loaded[8:]] == ["turn/end"]
    closers = interrupted_turn_closers(events[:8])
    assert path.read_bytes() == kept + b"".join(event_line(c).encode() + b"\n" for c in closers)


def test_a_seq_gap_before_the_last_turn_end_is_damage(tmp_path: Path) -> None:
    path = stored_file(tmp_path, one_turn_log(turns=2))
    lines = path.read_bytes().split(b"\n")
    del lines[3]
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(CorruptStoreError, match="seq 3 where 2 was expected") as raised:
        JsonlBackend(tmp_path).load("s")
    assert raised.value.line == 4


def test_committed_bytes_are_never_rewritten(tmp_path: Path) -> None:
    events = one_turn_log(turns=2)
    path = stored_file(tmp_path, events[:8])
    original = path.read_bytes()
    with open(path, "ab") as file:
        file.write(b'\n{"partial')
    backend = JsonlBackend(tmp_path)
    backend.load("s")
    backend.append("s", [Event("turn/start", 9, 99, {"turn": 3})])
    assert path.read_bytes().startswith(original)


def test_invalid_utf8_in_a_kept_line_does_not_shift_the_cut(tmp_path: Path) -> None:
    events = one_turn_log(turns=2)[:9]
    path = stored_file(tmp_path, events)
    data = path.read_bytes().replace(b"message 2", b"mess\xff\xfeage 2")
    path.write_bytes(data + b'{"type":"assistant/chunk","se')
    loaded = JsonlBackend(tmp_path).load("s").events
    assert loaded[7].data["content"][0]["text"] == "mess\ufffd\ufffdage 2"
    assert path.read_bytes() == data + b"".join(
        event_line(c).encode() + b"\n" for c in interrupted_turn_closers(list(loaded[:9]))
    )
    assert [e.type for e in JsonlBackend(tmp_path).load("s").events] == [e.type for e in loaded]


def test_invalid_utf8_between_tokens_is_a_hole(tmp_path: Path) -> None:
    path = stored_file(tmp_path, one_turn_log())
    path.write_bytes(path.read_bytes().replace(b'"seq":2,', b'"seq":2,\xff'))
    with pytest.raises(CorruptStoreError, match="does not parse") as raised:
        JsonlBackend(tmp_path).load("s")
    assert raised.value.line == 4


def test_crlf_line_ends_load(tmp_path: Path) -> None:
    events = one_turn_log()
    path = stored_file(tmp_path, events)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert list(JsonlBackend(tmp_path).load("s").events) == events


def test_a_number_javascript_reads_as_infinity_is_refused_by_the_json_rule(tmp_path: Path) -> None:
    path = stored_file(tmp_path, one_turn_log())
    path.write_bytes(path.read_bytes().replace(b'"trigger":', b'"big":1e400,"trigger":'))
    with pytest.raises(CorruptStoreError) as raised:
        JsonlBackend(tmp_path).load("s")
    assert raised.value.code is Code.NON_JSON_DATA and raised.value.line == 2


def test_an_unknown_event_key_is_refused_like_a_seed(tmp_path: Path) -> None:
    path = stored_file(tmp_path, one_turn_log())
    path.write_bytes(path.read_bytes().replace(b'"seq":3,', b'"seq":3,"extra":1,'))
    with pytest.raises(CorruptStoreError) as raised:
        JsonlBackend(tmp_path).load("s")
    assert raised.value.code is Code.MALFORMED_EVENT and raised.value.line == 5


# -- every truncation of a file --------------------------------------------------------------


def crash_log() -> list[Event]:
    log = LogBuilder()
    log.one_turn(1)
    log.turn_start(2)
    log.user("é 😀 \ud800")
    log.step_start(2)
    log.assistant(2, calls=["k1", "k2"])
    log.tool_call("k1", 2)
    log.tool_result("k1", 2)
    return log.events


def test_every_truncation_loads_what_was_complete_or_fails_cleanly(tmp_path: Path) -> None:
    events = crash_log()
    data = stored_file(tmp_path, events).read_bytes()
    header_end = data.index(b"\n") + 1
    ends = [i + 1 for i, byte in enumerate(data) if byte == 0x0A][1:]
    for size in range(len(data) + 1):
        prefix = data[:size]
        complete = sum(1 for end in ends if end <= size)
        if size < header_end:
            with pytest.raises(CorruptStoreError) as raised:
                scan_log(prefix, "x")
            assert raised.value.code is Code.STORE_CORRUPT
            continue
        scan = scan_log(prefix, "x")
        assert len(scan.records) == complete
        assert scan.committed == (ends[complete - 1] if complete else header_end)
    # the whole backend, at every offset: what was complete loads (repaired), or a clean error
    for size in range(len(data) + 1):
        root = tmp_path / f"cut-{size}"
        path = write_log(root, "s", data[:size])
        if size < header_end:
            with pytest.raises(CorruptStoreError) as raised:
                JsonlBackend(root).load("s")
            assert raised.value.code is Code.STORE_CORRUPT
            assert path.read_bytes() == data[:size]
            continue
        complete = sum(1 for end in ends if end <= size)
        loaded = list(JsonlBackend(root).load("s").events)
        closers = list(interrupted_turn_closers(events[:complete]))
        assert loaded == events[:complete] + closers
        tail = b"".join(event_line(c).encode() + b"\n" for c in closers)
        assert path.read_bytes() == data[: (ends[complete - 1] if complete else header_end)] + tail


# -- the scan equals the spec's rule ---------------------------------------------------------

record_kinds = st.sampled_from(["ok", "ok", "ok", "turn-end", "hole", "null", "number", "wrong-seq"])


def line_for(kind: str, index: int) -> tuple[bytes, Any]:
    if kind == "hole":
        return b'{"type":', dsh_spec.HOLE
    if kind == "null":
        return b"null", None
    if kind == "number":
        return b"7", 7
    record: dict[str, Any] = {
        "type": "turn/end" if kind == "turn-end" else "todo/write",
        "seq": index,
        "time": 1,
        "data": {},
    }
    if kind == "wrong-seq":
        record["seq"] = index + 1
    return json.dumps(record, separators=(",", ":")).encode(), record


@settings(max_examples=300)
@given(st.lists(record_kinds, max_size=12), st.sampled_from([b"", b'{"ty', b"\n"]))
def test_the_scan_keeps_what_the_spec_keeps(kinds: list[str], tail: bytes) -> None:
    lines, records = (
        zip(*[line_for(kind, i) for i, kind in enumerate(kinds)], strict=True) if kinds else ((), ())
    )
    data = (
        b'{"type":"session","version":0,"id":"s","createdAt":1}\n' + b"".join(x + b"\n" for x in lines) + tail
    )
    expected = dsh_spec.preserved_prefix(list(records) + ([dsh_spec.HOLE] if tail == b"\n" else []))
    if isinstance(expected, dsh_spec.Rejection):
        with pytest.raises(CorruptStoreError) as raised:
            scan_log(data, "x")
        assert raised.value.code is expected.code and raised.value.seq == expected.seq
    else:
        scan = scan_log(data, "x")
        assert len(scan.records) == expected
        assert all(record is not HOLE for record in scan.records)


# -- where a log must be ---------------------------------------------------------------------


def test_a_log_in_the_wrong_directory_is_refused(tmp_path: Path) -> None:
    path = stored_file(tmp_path, one_turn_log())
    moved = tmp_path / "cwd-d1bb8ca35467" / path.name
    moved.parent.mkdir()
    path.rename(moved)
    with pytest.raises(CorruptStoreError, match="belongs at") as raised:
        JsonlBackend(tmp_path).load("s")
    assert raised.value.code is Code.STORE_CORRUPT
    assert JsonlBackend(tmp_path).list() == ()


def test_a_log_holding_another_session_is_refused(tmp_path: Path) -> None:
    path = stored_file(tmp_path, one_turn_log())
    path.rename(path.with_name("t.jsonl"))
    with pytest.raises(CorruptStoreError, match="holds session 's', not 't'"):
        JsonlBackend(tmp_path).load("t")


def test_a_session_in_two_directories_is_refused(tmp_path: Path) -> None:
    path = stored_file(tmp_path, one_turn_log())
    (tmp_path / "cwd-d1bb8ca35467").mkdir()
    shutil.copy(path, tmp_path / "cwd-d1bb8ca35467" / path.name)
    with pytest.raises(CorruptStoreError, match="more than one directory"):
        JsonlBackend(tmp_path).load("s")


def test_a_vanished_log_is_not_recreated_without_its_header(tmp_path: Path) -> None:
    events = one_turn_log(turns=2)
    backend = JsonlBackend(tmp_path)
    backend.create(header("s"))
    backend.append("s", events[:6])
    path = tmp_path / "_no-cwd" / "s.jsonl"
    path.unlink()
    with pytest.raises(StoreConflictError, match="vanished"):
        backend.append("s", events[6:])
    assert not path.exists()


def test_a_log_replaced_behind_the_backends_back_is_a_conflict(tmp_path: Path) -> None:
    events = one_turn_log(turns=2)
    backend = JsonlBackend(tmp_path)
    backend.create(header("s"))
    backend.append("s", events[:6])
    path = tmp_path / "_no-cwd" / "s.jsonl"
    copy = path.read_bytes()
    twin = path.with_name("twin")
    twin.write_bytes(copy)
    twin.rename(path)  # same bytes, another inode
    with pytest.raises(StoreConflictError):
        backend.append("s", events[6:])
    assert path.read_bytes() == copy


# -- list -------------------------------------------------------------------------------------


def test_list_reads_headers_only_and_skips_what_is_not_a_log(tmp_path: Path) -> None:
    long_cwd = "/" + "d" * 9000
    backend = JsonlBackend(tmp_path)
    for session_id, cwd in (("a", "/projA"), ("b", long_cwd), ("c", None)):
        backend.create(header(session_id, cwd=cwd))
        backend.append(session_id, one_turn_log(session_id))
    bucket = tmp_path / "_no-cwd"
    (bucket / "empty.jsonl").write_bytes(b"")
    (bucket / "junk.jsonl").write_bytes(b"not json\n")
    (bucket / "event.jsonl").write_bytes(b'{"type":"turn/start","seq":0}\n')
    (bucket / "c.jsonl.0123456789ab.tmp").write_bytes(b"orphan")
    (bucket / "notes.txt").write_bytes(b"x")
    (tmp_path / "stray-file").write_bytes(b"x")
    assert [(h.id, h.cwd) for h in JsonlBackend(tmp_path).list()] == [
        ("a", "/projA"),
        ("b", long_cwd),
        ("c", None),
    ]


def test_list_of_a_missing_root_is_empty_and_of_a_file_root_an_error(tmp_path: Path) -> None:
    assert JsonlBackend(tmp_path / "missing").list() == ()
    (tmp_path / "file").write_bytes(b"x")
    with pytest.raises(StoreIOError) as raised:
        JsonlBackend(tmp_path / "file").list()
    assert raised.value.code is Code.STORE_IO and raised.value.errno == errno.ENOTDIR


def test_the_root_is_fixed_when_the_backend_is_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    backend = JsonlBackend("relative")
    monkeypatch.chdir("/")
    backend.create(header("s"))
    backend.append("s", one_turn_log())
    assert (tmp_path / "relative" / "_no-cwd" / "s.jsonl").exists()


# -- failures while writing -------------------------------------------------------------------


def test_a_failed_append_is_cut_back_off_and_can_be_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = one_turn_log(turns=2)
    backend = JsonlBackend(tmp_path)
    backend.create(header("s"))
    backend.append("s", events[:6])
    path = tmp_path / "_no-cwd" / "s.jsonl"
    size = path.stat().st_size
    real_fsync = os.fsync

    def full_disk(fd: int) -> None:
        monkeypatch.setattr(os, "fsync", real_fsync)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(StoreIOError) as raised:
        backend.append("s", events[6:])
    assert raised.value.errno == errno.ENOSPC and "ENOSPC" in str(raised.value)
    assert path.stat().st_size == size
    backend.append("s", events[6:])
    assert list(JsonlBackend(tmp_path).load("s").events) == events


def test_a_publish_that_is_not_durable_is_taken_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events = one_turn_log()
    backend = JsonlBackend(tmp_path)
    backend.create(header("s"))
    backend.append("s", [])

    def failing(fd: int) -> None:
        raise OSError(errno.EIO, "I/O error")

    (tmp_path / "_no-cwd").mkdir(parents=True)
    monkeypatch.setattr(jsonl, "sync_bucket", failing)
    with pytest.raises(StoreIOError):
        backend.append("s", events)
    assert os.listdir(tmp_path / "_no-cwd") == []
    monkeypatch.undo()
    backend.append("s", events)
    assert list(JsonlBackend(tmp_path).load("s").events) == events


# -- the lock ---------------------------------------------------------------------------------


def test_a_session_locked_by_another_process_is_refused_in_time(tmp_path: Path) -> None:
    events = one_turn_log(turns=2)
    path = stored_file(tmp_path, events[:6])
    backend = JsonlBackend(tmp_path, lock_timeout=0.05)
    backend.load("s")
    with open(path, "rb") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        with pytest.raises(StoreLockedError) as raised:
            backend.append("s", events[6:])
        assert raised.value.code is Code.STORE_LOCKED
        with pytest.raises(StoreLockedError):
            JsonlBackend(tmp_path, lock_timeout=0.05).load("s")
    backend.append("s", events[6:])
    assert len(JsonlBackend(tmp_path).load("s").events) == 12


def test_a_read_only_log_that_needs_no_repair_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events = one_turn_log()
    path = stored_file(tmp_path, events)
    real_open = os.open

    def read_only(name: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_RDWR:
            raise PermissionError(errno.EROFS, "Read-only file system")
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    assert list(JsonlBackend(tmp_path).load("s").events) == events
    with open(path, "ab") as file:
        file.write(b'{"torn')
    with pytest.raises(StoreIOError, match="read-only"):
        JsonlBackend(tmp_path).load("s")

"""The loaders' bulk path (``persistence._bulk``) changes nothing but speed: a JSONL log
scanned with it gives exactly what the line-by-line scan gives -- the same events
(type, seq, time, payload text, surface fields, key order), the same cut, the same
error -- for plain logs and for every kind of line the bulk path must leave to the
careful one (numbers beyond a double, lone surrogates, bad UTF-8, nesting, key order,
spelling, broken rules, damage, torn tails)."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from bench.w1_log import w1_log
from dsh_session import JsonlBackend, SessionHeader
from dsh_session.errors import DshSessionError
from dsh_session.event import LoggedEvent, _raw, held, payload_text
from dsh_session.json_value import STORED
from dsh_session.persistence import _bulk, jsonl_scan
from dsh_session.persistence._admit import LogAdmitter
from dsh_session.persistence._codec import event_line, header_line
from dsh_session.persistence.jsonl_scan import scan_log

HEADER = header_line(SessionHeader("s", 1767225600000)).encode() + b"\n"
TURNS = 4  # 52 events: user/message at 1, assistant/message (with provenance) at 8, tool/result at 10
PLAIN = [event_line(event).encode() for event in w1_log(TURNS, "s")]


def outcome(data: bytes, bulk: bool) -> Any:
    """What a load's scan makes of ``data``: the kept events and cut, or the error."""
    admitter = LogAdmitter()
    try:
        scan = scan_log(
            data, "x.jsonl", admitter.admit_line, partial(_bulk.jsonl_run, admitter) if bulk else None
        )
    except DshSessionError as error:
        return ("error", type(error).__name__, error.code, str(error))
    events = [
        (
            type(e).__name__,
            e.type,
            e.seq,
            e.time,
            payload_text(e),
            e.source_event_seqs,
            e.surface_op,
            e.key_order,
        )
        for e in scan.records
    ]
    failure = None if scan.failure is None else (type(scan.failure).__name__, str(scan.failure))
    surface = admitter._surface.seqs()
    return (events, scan.kept, scan.committed, scan.size, failure, admitter.next_seq, surface)


def log(lines: list[bytes], tail: bytes = b"") -> bytes:
    return HEADER + b"".join(line + b"\n" for line in lines) + tail


def record(index: int) -> dict[str, Any]:
    parsed: dict[str, Any] = json.loads(PLAIN[index])
    return parsed


def spelled(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def with_data(index: int, data: Any) -> bytes:
    return spelled({**record(index), "data": data})


def with_raw_data(index: int, raw: bytes) -> bytes:
    line = record(index)
    marker = spelled({**line, "data": "@@"})
    return marker.replace(b'"@@"', raw)


def edit(index: int, **fields: Any) -> bytes:
    line = record(index)
    for key, value in fields.items():
        if value is _DROP:
            line.pop(key, None)
        else:
            line[key] = value
    return spelled(line)


_DROP: Any = object()
USER, ASSISTANT, RESULT, CHUNK, TURN_END = 14, 21, 23, 16, 25  # indices in the second turn


def deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


#: One line of the log replaced (index, new line bytes), each a case the bulk path must
#: leave to the careful scan, or take and read alike.
VARIANTS: dict[str, Callable[[], list[tuple[int, bytes]]]] = {
    "plain": lambda: [],
    "number beyond a double": lambda: [(CHUNK, with_raw_data(CHUNK, b'{"x":1e400}'))],
    "400 digits": lambda: [(CHUNK, with_raw_data(CHUNK, b'{"x":' + b"7" * 400 + b"}"))],
    "exponent, finite": lambda: [(CHUNK, with_raw_data(CHUNK, b'{"x":1.5E+300,"y":2e-5}'))],
    "integer beyond 2**53": lambda: [(CHUNK, with_raw_data(CHUNK, b'{"x":123456789012345678901}'))],
    "integral float": lambda: [(CHUNK, with_raw_data(CHUNK, b'{"x":2.0,"y":-0}'))],
    "index-like key order": lambda: [(CHUNK, with_raw_data(CHUNK, b'{"b":1,"2":2,"1":3}'))],
    "lone surrogate escape": lambda: [
        (USER, with_raw_data(USER, b'{"content":[{"type":"text","text":"\\ud800"}]}'))
    ],
    "surrogate pair escape": lambda: [(CHUNK, with_raw_data(CHUNK, b'{"t":"\\ud83d\\ude00"}'))],
    "invalid utf-8": lambda: [(CHUNK, with_raw_data(CHUNK, b'{"t":"a\xffb"}'))],
    "utf-8 encoded surrogate": lambda: [(CHUNK, with_raw_data(CHUNK, b'{"t":"\xed\xa0\x80"}'))],
    "non-ascii text": lambda: [(USER, with_data(USER, {"content": [{"type": "text", "text": "é 😀 ü"}]}))],
    "escapes": lambda: [(CHUNK, with_raw_data(CHUNK, b'{"t":"a\\"b\\\\c\\n\\u0041\\/"}'))],
    "payload nests 200 deep": lambda: [(CHUNK, with_data(CHUNK, deep(200)))],
    "payload nests 201 deep": lambda: [(CHUNK, with_data(CHUNK, deep(201)))],
    "many brackets, shallow": lambda: [(CHUNK, with_data(CHUNK, [[] for _ in range(300)]))],
    "seq before type": lambda: [(CHUNK, spelled({"seq": CHUNK, **record(CHUNK)}))],
    "closers' key order": lambda: [
        (
            ASSISTANT,
            spelled(
                {
                    k: record(ASSISTANT)[k]
                    for k in ("type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs")
                }
            ),
        )
    ],
    "space after a colon": lambda: [(CHUNK, PLAIN[CHUNK].replace(b'"time":', b'"time": '))],
    "space in the payload": lambda: [(CHUNK, with_raw_data(CHUNK, b'{"a": [1, 2]}'))],
    "payload across two lines": lambda: [(CHUNK, with_raw_data(CHUNK, b'{"a":[1,\n2]}'))],
    "two records on a line": lambda: [(CHUNK, PLAIN[CHUNK] + PLAIN[CHUNK + 1]), (CHUNK + 1, b"")],
    "empty line": lambda: [(CHUNK, b"")],
    "unknown key": lambda: [(CHUNK, edit(CHUNK, extra=1))],
    "duplicate time": lambda: [(CHUNK, PLAIN[CHUNK][:-1] + b',"time":5}')],
    "seq as float": lambda: [
        (CHUNK, PLAIN[CHUNK].replace(f'"seq":{CHUNK},'.encode(), f'"seq":{CHUNK}.0,'.encode()))
    ],
    "seq out of order": lambda: [(CHUNK, edit(CHUNK, seq=CHUNK + 7))],
    "time as float": lambda: [(CHUNK, edit(CHUNK, time=1.5))],
    "time beyond 2**53": lambda: [(CHUNK, edit(CHUNK, time=2**60))],
    "empty type": lambda: [(CHUNK, edit(CHUNK, type=""))],
    "escaped type": lambda: [(CHUNK, PLAIN[CHUNK].replace(b"assistant/chunk", b"assistant\\/chunk"))],
    "log-only with a surfaceOp": lambda: [(CHUNK, edit(CHUNK, surfaceOp="append"))],
    "log-only with provenance": lambda: [(CHUNK, edit(CHUNK, sourceEventSeqs=[1]))],
    "surface type without surfaceOp": lambda: [(USER, edit(USER, surfaceOp=_DROP))],
    "surfaceOp null": lambda: [(USER, edit(USER, surfaceOp=None))],
    "surfaceOp unknown": lambda: [(USER, edit(USER, surfaceOp="prepend"))],
    "replace": lambda: [
        (USER, edit(USER, surfaceOp={"op": "replace", "start": 1, "end": 1}, sourceEventSeqs=[1]))
    ],
    "provenance duplicate": lambda: [(ASSISTANT, edit(ASSISTANT, sourceEventSeqs=[16, 16]))],
    "provenance of a later event": lambda: [(ASSISTANT, edit(ASSISTANT, sourceEventSeqs=[40]))],
    "provenance empty": lambda: [(ASSISTANT, edit(ASSISTANT, sourceEventSeqs=[]))],
    "provenance null": lambda: [(ASSISTANT, edit(ASSISTANT, sourceEventSeqs=None))],
    "provenance of floats": lambda: [(ASSISTANT, PLAIN[ASSISTANT].replace(b"[16,17", b"[16.0,17"))],
    "provenance of bools": lambda: [(ASSISTANT, edit(ASSISTANT, sourceEventSeqs=[True]))],
    "content not a list": lambda: [(USER, with_data(USER, {"content": "hi"}))],
    "block without type": lambda: [(USER, with_data(USER, {"content": [{"text": "x"}]}))],
    "block type not a string": lambda: [(USER, with_data(USER, {"content": [{"type": 1}]}))],
    "duplicate content key": lambda: [(USER, with_raw_data(USER, b'{"content":5,"content":[]}'))],
    "duplicate content key, last good": lambda: [
        (USER, with_raw_data(USER, b'{"content":[{"type":1}],"content":[]}'))
    ],
    "tool result without isError": lambda: [
        (RESULT, with_data(RESULT, {k: v for k, v in record(RESULT)["data"].items() if k != "isError"}))
    ],
    "payload not an object": lambda: [(RESULT, with_data(RESULT, [1]))],
    "nested key surfaceOp in a payload": lambda: [(CHUNK, with_raw_data(CHUNK, b'{"a":1,"surfaceOp":2}'))],
    "a line that does not parse, before a turn/end": lambda: [(CHUNK, PLAIN[CHUNK][:-5])],
    "not an object, before a turn/end": lambda: [(CHUNK, b"[1]")],
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
@pytest.mark.parametrize("run_bytes", [1 << 18, 300])
def test_the_bulk_path_reads_every_log_as_the_careful_scan_does(
    name: str, run_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonl_scan, "_RUN_BYTES", run_bytes)  # 300: a run of one or two lines
    lines = list(PLAIN)
    for index, line in VARIANTS[name]():
        lines[index] = line
    lines = [line for line in lines if line]
    for tail in (b"", b'{"type":"turn/st'):
        data = log(lines, tail)
        assert outcome(data, bulk=True) == outcome(data, bulk=False)


@pytest.mark.parametrize("cut", [0, 1, 20, 26, 51])
def test_torn_and_open_logs_read_alike(cut: int) -> None:
    data = log(PLAIN[:cut], PLAIN[cut][:9] if cut < len(PLAIN) else b"")
    assert outcome(data, bulk=True) == outcome(data, bulk=False)


def test_a_plain_log_is_taken_in_bulk_and_keeps_each_payload_as_stored() -> None:
    body = log(PLAIN)[len(HEADER) :]
    admitter = LogAdmitter()
    events = _bulk.jsonl_run(admitter, body)
    assert events is not None and len(events) == len(PLAIN)  # the fast path is really taken
    assert all(type(e) is LoggedEvent for e in events)
    assert all(isinstance(e, LoggedEvent) and held(e) == (_raw(e), STORED) for e in events)  # canonical later
    assert not any(gc.is_tracked(_raw(e)) for e in events)  # nothing a load keeps is walked by the collector
    assert [event_line(e).encode() for e in events] == PLAIN
    assert admitter.next_seq == len(PLAIN)
    assert admitter._surface.seqs() == [e.seq for e in events if e.surface_op is not None]


@pytest.mark.parametrize(
    "name",
    [
        "number beyond a double",
        "lone surrogate escape",
        "invalid utf-8",
        "payload nests 201 deep",
        "seq before type",
        "replace",
        "payload across two lines",
        "log-only with a surfaceOp",
        "content not a list",
    ],
)
def test_the_bulk_path_declines_what_it_must_leave_to_the_careful_scan(name: str) -> None:
    lines = list(PLAIN)
    for index, line in VARIANTS[name]():
        lines[index] = line
    assert _bulk.jsonl_run(LogAdmitter(), b"".join(line + b"\n" for line in lines if line)) is None


def test_a_backend_load_of_a_long_log_equals_the_careful_scan(tmp_path: Any) -> None:
    backend = JsonlBackend(tmp_path)
    backend.create(SessionHeader("s", 1767225600000))
    events = w1_log(400, "s")  # 5 200 events: several runs
    backend.append("s", events)
    backend.close()
    with JsonlBackend(tmp_path, read_only=True) as reader:
        loaded = reader.load("s").events
    assert [event_line(e) for e in loaded] == [event_line(e) for e in events]
    (path,) = tmp_path.rglob("*.jsonl")
    assert outcome(path.read_bytes(), bulk=True) == outcome(path.read_bytes(), bulk=False)

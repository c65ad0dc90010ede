"""Integers beyond 2**53 in stored text are read as JavaScript reads them, by us as by the spec.

orjson reads an int token of up to 64 bits exactly, where ``JSON.parse`` (and
the spec's reading, ``dsh_spec.persistence.js_parse``) rounds it to a double;
a token past a double's range is Infinity there. Every such number, wherever
a stored log holds it -- header, envelope, payload -- must give the outcome
the spec gives: the same header and events, or the same code, and the same
bytes left on disk. Found by the JSONL backend machine (a stored
``createdAt`` of 2**53 + 1 was refused as damage; the reference loads it).
"""

from __future__ import annotations

import functools
import json
import sqlite3
from pathlib import Path

import pytest

import dsh_spec
from dsh_session import JsonlBackend, Session, SessionHeader, SqliteBackend
from dsh_session.js_json import js_int
from dsh_session.persistence import encode_segment
from dsh_session.persistence._codec import parse
from dsh_spec.persistence import js_parse
from tests.machine_backends import outcome_code
from tests.spec_models import ModelBackend
from tests.support import json_diff

WIDE = 2**53 + 1
HUGE = "1" + "0" * 400  # past a double's range: Infinity in JavaScript
LONG = "7" * 5000  # past Python's int-conversion limit too

HEADER = '{"type":"session","version":0,"id":"s","createdAt":1}'
TURN_START = (
    '{"type":"turn/start","seq":0,"time":1,"data":{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}}'
)
USER = (
    '{"type":"user/message","seq":1,"time":2,"data":{"content":[{"type":"text","text":"a"}],'
    '"source":{"kind":"user"}},"surfaceOp":"append"}'
)
SUMMARY = (
    '{"type":"user/message","seq":2,"time":3,"data":{"content":[{"type":"text","text":"b"}],'
    '"source":{"kind":"user"}},"sourceEventSeqs":[1],"surfaceOp":{"op":"replace","start":1,"end":1}}'
)
TURN_END = '{"type":"turn/end","seq":3,"time":4,"data":{"turn":1,"reason":"done"}}'
LOG = [HEADER, TURN_START, USER, SUMMARY, TURN_END]


def spelled(line: int, old: str, new: str) -> list[str]:
    """The log with ``old`` spelled ``new`` in line ``line`` (0 is the header)."""
    lines = list(LOG)
    assert old in lines[line], (old, lines[line])
    lines[line] = lines[line].replace(old, new, 1)
    return lines


def _cases() -> list[tuple[str, list[str]]]:
    cases: list[tuple[str, list[str]]] = []
    for sign in ("", "-"):
        for number in (str(WIDE), str(2**63 + 1), str(2**64 + 1), HUGE, LONG):
            n = sign + number
            label = f"{sign}{number[:6]}..{len(number)}"
            cases += [
                (f"createdAt {label}", spelled(0, '"createdAt":1', f'"createdAt":{n}')),
                (f"seedLength {label}", spelled(0, '"createdAt":1', f'"createdAt":1,"seedLength":{n}')),
                (f"version {label}", spelled(0, '"version":0', f'"version":{n}')),
                (f"time {label}", spelled(2, '"time":2', f'"time":{n}')),
                (f"last time {label}", spelled(4, '"time":4', f'"time":{n}')),
                (f"seq {label}", spelled(2, '"seq":1', f'"seq":{n}')),
                (f"refs {label}", spelled(3, '"sourceEventSeqs":[1]', f'"sourceEventSeqs":[{n}]')),
                (f"refs second {label}", spelled(3, '"sourceEventSeqs":[1]', f'"sourceEventSeqs":[1,{n}]')),
                (f"start {label}", spelled(3, '"start":1', f'"start":{n}')),
                (f"end {label}", spelled(3, '"end":1', f'"end":{n}')),
                (f"data {label}", spelled(2, '"text":"a"', f'"text":"a","n":{n}')),
                (f"turn {label}", spelled(1, '"turn":1', f'"turn":{n}')),
                (f"last data {label}", spelled(4, '"turn":1', f'"turn":{n}')),
            ]
    cases.append(("exact 2**53 time", spelled(2, '"time":2', f'"time":{2**53}')))
    cases.append(("1e400 in data", spelled(2, '"text":"a"', '"text":"a","n":1e400')))
    return cases


CASES = _cases()


def tree(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in root.rglob("*") if path.is_file()}


def same_loads(impl_root: Path, model_root: Path, kind: str) -> str | None:
    """Load ``s`` from both stores; the outcome (code, or header and events) as the spec's."""
    impl_backend = JsonlBackend(impl_root) if kind == "jsonl" else SqliteBackend(impl_root / "s.db")
    model_backend = ModelBackend.open(kind, str(model_root if kind == "jsonl" else model_root / "s.db"), 5)
    try:
        impl_code, loaded = outcome_code(lambda: impl_backend.load("s"))
        model_code, model = outcome_code(lambda: model_backend.load("s"))
    finally:
        impl_backend.close()
        model_backend.close()
    assert impl_code == model_code, f"the implementation says {impl_code}, the spec {model_code}"
    if impl_code is not None:
        return impl_code
    header, events, _orders = model
    assert json_diff(loaded.header.to_json(), header) is None
    found = json_diff([event.to_json() for event in loaded.events], [dsh_spec.event_json(e) for e in events])
    assert found is None, found
    return None


@pytest.mark.parametrize(("what", "lines"), CASES, ids=[what for what, _ in CASES])
def test_a_jsonl_log_with_a_wide_number_loads_as_the_spec_loads_it(
    tmp_path: Path, what: str, lines: list[str]
) -> None:
    body = ("\n".join(lines) + "\n").encode()
    for side in ("impl", "model"):
        path = tmp_path / side / "_no-cwd" / (encode_segment("s") + ".jsonl")
        path.parent.mkdir(parents=True)
        path.write_bytes(body)
    same_loads(tmp_path / "impl", tmp_path / "model", "jsonl")
    assert tree(tmp_path / "impl") == tree(tmp_path / "model")


def test_the_cases_reach_every_outcome_code(tmp_path: Path) -> None:
    """The battery is not vacuous: by the spec alone, wide numbers load, are refused as
    damage, as another version and as bad events of more than one kind."""
    seen: set[str | None] = set()
    for index, (_what, lines) in enumerate(CASES):
        path = tmp_path / str(index) / "_no-cwd" / (encode_segment("s") + ".jsonl")
        path.parent.mkdir(parents=True)
        path.write_bytes(("\n".join(lines) + "\n").encode())
        backend = ModelBackend.open("jsonl", str(tmp_path / str(index)), 5)
        seen.add(outcome_code(functools.partial(backend.load, "s"))[0])
    assert {None, "STORE_CORRUPT", "STORE_VERSION_UNSUPPORTED", "PROVENANCE_NOT_EARLIER"} <= seen, seen
    assert len(seen) >= 6, seen


JSON_COLUMNS = [
    ("data", f'{{"content":[{{"type":"text","text":"a"}}],"source":{{"kind":"user"}},"n":{WIDE}}}'),
    ("data", f'{{"content":[{{"type":"text","text":"a"}}],"source":{{"kind":"user"}},"n":{HUGE}}}'),
    ("data", f'{{"content":[{{"type":"text","text":"a"}}],"source":{{"kind":"user"}},"n":{LONG}}}'),
    ("source_event_seqs", f"[{WIDE}]"),
    ("source_event_seqs", f"[0,{2**64 + 1}]"),
    ("source_event_seqs", f"[{HUGE}]"),
    ("surface_op", f'{{"op":"replace","start":{WIDE},"end":1}}'),
    ("surface_op", f'{{"op":"replace","start":1,"end":{WIDE}}}'),
    ("surface_op", f'{{"op":"replace","start":1,"end":{LONG}}}'),
]


@pytest.mark.parametrize(("column", "text"), JSON_COLUMNS, ids=[f"{c}-{t[-30:]}" for c, t in JSON_COLUMNS])
def test_a_sqlite_json_column_with_a_wide_number_loads_as_the_spec_loads_it(
    tmp_path: Path, column: str, text: str
) -> None:
    records = [json.loads(line) for line in LOG[1:]]
    for side in ("impl", "model"):
        (tmp_path / side).mkdir()
        backend = SqliteBackend(tmp_path / side / "s.db")
        backend.create(SessionHeader("s", 1))
        backend.append("s", list(Session("s", seed=records).events))
        backend.close()
        with sqlite3.connect(tmp_path / side / "s.db") as db:
            db.execute(f"UPDATE events SET {column} = ? WHERE seq = ?", (text, 2 if column != "data" else 1))
        db.close()
    same_loads(tmp_path / "impl", tmp_path / "model", "sqlite")


@pytest.mark.parametrize(
    "token", [str(WIDE), str(-WIDE), str(2**53), str(2**64 + 1), HUGE, "-" + HUGE, LONG, "12", "-0"]
)
def test_an_int_token_reads_as_the_spec_reads_it(token: str) -> None:
    expected = js_parse(token)
    got = js_int(token)
    assert (type(got), got) == (type(expected), expected)
    parsed = parse("[" + token + "]")[0]
    # orjson keeps an int of up to 64 bits exact (readers round it); the rest read as JavaScript does.
    assert parsed == expected or (type(parsed) is int and float(parsed) == expected)

"""The bulk path for database rows (``persistence._bulk.rows_run``) changes nothing but
speed: a SQLite load that offers its rows to it gives exactly what the careful row-by-row
scan gives -- the same events (type, seq, time, payload text as stored, surface fields,
key order), the same surface, the same error (code, seq, message), the same repair, and a
read-only load changes no byte -- for plain rows and for rows of every unusual or hostile
kind mixed in: non-canonical numbers, key orders, deep nesting, JSON that does not parse,
lone surrogates, columns of the wrong type or NULL, wrong seqs, surface operations and
provenance where they do not belong or spelled unusually.

The careful path is the scan without ``bulk`` (``_rows.kept_records``); the backend's load
is held to it by swapping in a ``kept_records`` that drops the bulk path."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bench.w1_log import w1_log
from dsh_session import SessionHeader, SqliteBackend
from dsh_session.errors import DshSessionError
from dsh_session.event import Event, LoggedEvent, _raw, held, payload_text
from dsh_session.json_value import STORED
from dsh_session.persistence import _bulk, _rows, sqlite
from dsh_session.persistence._admit import LogAdmitter
from dsh_session.persistence._rows import event_row, kept_records

TURNS = 3  # 39 events; per turn: user/message at 1, assistant/message (provenance) at 8, tool/result at 10
PLAIN: list[tuple[Any, ...]] = [event_row(event) for event in w1_log(TURNS, "s")]
SEQ, TYPE, TIME, DATA, REFS, OP = range(6)


def described(event: Event) -> tuple[Any, ...]:
    """Everything an event holds, its payload as kept (text and kind) and in canonical form."""
    raw = _raw(event)  # before payload_text, which puts a kept text in canonical form
    return (
        type(event).__name__,
        event.type,
        event.seq,
        event.time,
        type(raw).__name__,
        bytes(raw),
        payload_text(event),
        event.source_event_seqs,
        event.surface_op,
        event.key_order,
    )


def failure(error: DshSessionError) -> tuple[Any, ...]:
    return ("error", type(error).__name__, error.code, error.seq, str(error))


def rows_outcome(rows: Sequence[tuple[Any, ...]], bulk: bool) -> Any:
    """What a load's scan of ``rows`` makes of them: the events, next seq and surface, or the error."""
    admitter = LogAdmitter()
    try:
        offer = partial(_bulk.rows_run, admitter) if bulk else None
        kept = kept_records(rows, "x.db", admitter.admit_parsed, offer)
    except DshSessionError as error:
        return failure(error)
    return ([described(event) for event in kept], admitter.next_seq, admitter._surface.seqs())


# -- what a row may hold ------------------------------------------------------------------


def _spelled_number(value: int | float) -> str:
    return json.dumps(value)


_NUMBER_TEXTS = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(_spelled_number),
    st.sampled_from(
        [
            "-0",
            "-0.0",
            "1E5",
            "1e+5",
            "1e-400",
            "1.5e308",
            "2.0",
            "1e400",
            "-1e400",
            "0.1e1",
            "9" * 250,
            "0." + "1" * 300,
            "9007199254740993",
            "123456789012345678901",
            "1e999",
            "5e-324",
        ]
    ),
)
_STRING_TEXTS = st.one_of(
    st.text(max_size=6).map(lambda text: json.dumps(text, ensure_ascii=False)),
    st.text(max_size=6).map(json.dumps),  # escapes, lone surrogates among them
    st.sampled_from(
        ['"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', '"a\\u0000b"', '"\\/"', '"é 😀"', '"a\\"b\\\\c"']
    ),
)
_SCALAR_TEXTS = st.one_of(_NUMBER_TEXTS, _STRING_TEXTS, st.sampled_from(["true", "false", "null"]))


def _array(items: list[str], separator: str) -> str:
    return "[" + separator.join(items) + "]"


def _object(pairs: list[tuple[str, str]], separator: str, colon: str) -> str:
    return "{" + separator.join(f"{key}{colon}{value}" for key, value in pairs) + "}"


_KEYS = st.one_of(
    st.sampled_from(['"a"', '"b"', '"2"', '"1"', '"content"', '"type"', '"\\ud800"', '"é"']), _STRING_TEXTS
)
_SEPARATORS = st.sampled_from([",", ",", ",", ", ", " ,"])
_JSON_TEXTS = st.recursive(
    _SCALAR_TEXTS,
    lambda inner: st.one_of(
        st.builds(_array, st.lists(inner, max_size=4), _SEPARATORS),
        st.builds(
            _object,
            st.lists(st.tuples(_KEYS, inner), max_size=4),
            _SEPARATORS,
            st.sampled_from([":", ":", ": "]),
        ),
    ),
    max_leaves=8,
)
_TEXT = st.one_of(_STRING_TEXTS, _NUMBER_TEXTS, _JSON_TEXTS)
_MESSAGES = st.one_of(
    st.builds('{{"content":[{{"type":"text","text":{}}}],"source":{{"kind":"user"}}}}'.format, _TEXT),
    st.builds('{{"content":[{{"type":{}}}],"source":{{"kind":"user"}}}}'.format, _TEXT),
    st.builds('{{"content":{},"source":{{"kind":"user"}}}}'.format, _TEXT),
    st.builds('{{"content":[],"source":{}}}'.format, _TEXT),
    st.builds('{{"callId":"c","content":[],"isError":{}}}'.format, _TEXT),
    st.builds('{{"callId":{},"content":[],"isError":false}}'.format, _TEXT),
    st.builds('{{"content":[],"envelope":{},"source":{{"kind":"user"}}}}'.format, _TEXT),
)
_HOSTILE_DATA = st.sampled_from(
    [
        "{",
        "",
        " ",
        "1,2",
        "[1",
        "2]",
        '"abc',
        'x"',
        "NaN",
        " {}",
        "{} ",
        "{ }",
        "{}\n",
        '{"x":1e400}',
        '{"a":1.0,"b":-0,"c":1E5}',
        '{"b":1,"a":2}',
        '{"2":1,"1":2}',
        "[" * 201 + "]" * 201,
        "[" * 200 + "]" * 200,
        "[" * 1100 + "]" * 1100,
        "[" * 201 + "1e400" + "]" * 201,
        "[" + "[]," * 300 + "[]]",
        '"' + "[" * 300 + '"',
        '{"a":1,"a":2}',
        '{"content":5,"content":[]}',
        '{"content":[],"content":5}',
        '{"content":"hi"}',
        '{"content":[{"text":"x"}]}',
        '{"content":[{"type":1}]}',
        '{"surfaceOp":"append"}',
        '{"content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}}',
        '{"callId":"c","content":[{"type":"text","text":"ok"}],"isError":false}',
    ]
)
DATA_TEXTS = st.one_of(_HOSTILE_DATA, _TEXT, _MESSAGES)
KINDS = st.one_of(
    st.sampled_from(
        [
            "",
            "turn/end",
            "turn/start",
            "user/message",
            "assistant/message",
            "tool/result",
            "steering/message",
            "context/message",
            "assistant/chunk",
            "x",
            "assistant\\/chunk",
            "é",
        ]
    ),
    st.text(max_size=4),
)
TIMES = st.sampled_from([0, -1, 2**53, 2**53 + 1, -(2**53), -(2**53) - 1, 2**62])
PROVENANCE_TEXTS = st.sampled_from(
    [
        None,
        "null",
        "[]",
        "[0]",
        "[1]",
        "[1.0]",
        "[-0]",
        "[ 0 ]",
        "[0,0]",
        "[0,1]",
        "[1,0]",
        "[999]",
        "[true]",
        '"x"',
        "[",
        "{}",
        "[9223372036854775808]",
        "[-1]",
        "[1e0]",
        "[0] ",
        "[[0]]",
    ]
)
OP_TEXTS = st.sampled_from(
    [
        None,
        '"append"',
        '"replace"',
        '{"op":"replace","start":0,"end":1}',
        '{"op":"replace","start":1,"end":1}',
        "null",
        '"\\u0061ppend"',
        ' "append"',
        '"append" ',
        '"append',
        "{}",
        '"Append"',
    ]
)
#: What only damage to the file puts in a column (the STRICT layout refuses them).
WRONG_TYPES = st.sampled_from([None, 42, 1.5, 3.0, b"{}", "7"])

_COLUMN_VALUES: dict[int, st.SearchStrategy[Any]] = {
    TYPE: KINDS,
    TIME: TIMES,
    DATA: DATA_TEXTS,
    REFS: PROVENANCE_TEXTS,
    OP: OP_TEXTS,
}


@st.composite
def edited_rows(draw: st.DrawFn, wrong_types: bool = True, surrogates: bool = True) -> list[tuple[Any, ...]]:
    """The plain rows with a few edits: columns set to unusual values, rows dropped, seqs moved,
    the log cut short (an open turn)."""
    rows = [list(row) for row in PLAIN]
    for _ in range(draw(st.integers(0, 4))):
        index = draw(st.integers(0, len(rows) - 1))
        column = draw(st.sampled_from([SEQ, TYPE, TIME, DATA, DATA, DATA, REFS, OP]))
        if column == SEQ:
            value: Any = draw(st.sampled_from([-1, -5, index + 1, index + 7, 0]))
        elif wrong_types and draw(st.integers(0, 9)) == 0:
            value = draw(WRONG_TYPES)
        else:
            value = draw(_COLUMN_VALUES[column])
        rows[index][column] = value
    if draw(st.integers(0, 4)) == 0:
        del rows[draw(st.integers(0, len(rows) - 1))]  # a gap
    if draw(st.integers(0, 3)) == 0:
        del rows[draw(st.integers(1, len(rows))) :]  # a log cut short: an open turn
    result = [tuple(row) for row in rows]
    if not surrogates:
        result = [row for row in result if not any(_surrogate(value) for value in row)]
    return result


def _surrogate(value: Any) -> bool:
    return isinstance(value, str) and any("\ud800" <= char <= "\udfff" for char in value)


# -- the scan of rows ----------------------------------------------------------------------


@contextmanager
def run_rows(size: int) -> Iterator[None]:
    with mock.patch.object(_rows, "_RUN_ROWS", size):
        yield


@settings(max_examples=400)
@given(rows=edited_rows(), size=st.sampled_from([1, 2, 5, 13, 512]))
@example(rows=list(PLAIN), size=512)
def test_the_bulk_scan_of_rows_equals_the_careful_scan(rows: list[tuple[Any, ...]], size: int) -> None:
    with run_rows(size):
        assert rows_outcome(rows, bulk=True) == rows_outcome(rows, bulk=False)


def with_row(index: int, column: int, value: Any, *more: Any) -> list[tuple[Any, ...]]:
    """The plain rows with column ``column`` of row ``index`` set to ``value`` (and so on for
    each further three of ``more``)."""
    rows = [list(row) for row in PLAIN]
    edits = (index, column, value, *more)
    for at in range(0, len(edits), 3):
        rows[edits[at]][edits[at + 1]] = edits[at + 2]
    return [tuple(row) for row in rows]


USER, ASSISTANT, RESULT, CHUNK = 14, 21, 23, 16  # indices in the second turn

#: Rows the bulk path must leave to the careful scan, or take and read alike.
CASES: dict[str, Callable[[], list[tuple[Any, ...]]]] = {
    "plain": lambda: list(PLAIN),
    "number beyond a double": lambda: with_row(CHUNK, DATA, '{"x":1e400}'),
    "integer beyond 2**53": lambda: with_row(CHUNK, DATA, '{"x":123456789012345678901}'),
    "integral float and -0": lambda: with_row(CHUNK, DATA, '{"x":2.0,"y":-0}'),
    "unusual key order": lambda: with_row(CHUNK, DATA, '{"b":1,"2":2,"1":3}'),
    "lone surrogate escape": lambda: with_row(
        USER, DATA, '{"content":[{"type":"text","text":"\\ud800"}],"source":{"kind":"user"}}'
    ),
    "lone surrogate": lambda: with_row(CHUNK, DATA, '{"t":"\ud800"}'),
    "non-ascii": lambda: with_row(CHUNK, DATA, '{"t":"é 😀"}'),
    "payload nests 201 deep": lambda: with_row(CHUNK, DATA, "[" * 201 + "]" * 201),
    "too deep to read": lambda: with_row(CHUNK, DATA, "[" * 201 + '"\\ud800"' + "]" * 201),
    "too deep to read, last row": lambda: with_row(len(PLAIN) - 1, DATA, "[" * 1100 + "]" * 1100),
    "blank before a payload": lambda: with_row(CHUNK, DATA, " {}"),
    "two values in a column": lambda: with_row(CHUNK, DATA, "1,2"),
    "a value across two columns": lambda: with_row(CHUNK, DATA, "[1", CHUNK + 1, DATA, "2]"),
    "does not parse, before a turn/end": lambda: with_row(CHUNK, DATA, "{"),
    "does not parse, last row": lambda: with_row(len(PLAIN) - 1, DATA, "{"),
    "data NULL": lambda: with_row(CHUNK, DATA, None),
    "data an integer": lambda: with_row(CHUNK, DATA, 42),
    "seq as float": lambda: with_row(CHUNK, SEQ, float(CHUNK)),
    "seq as text": lambda: with_row(CHUNK, SEQ, str(CHUNK)),
    "seq out of order": lambda: with_row(CHUNK, SEQ, CHUNK + 7),
    "time as integral float": lambda: with_row(CHUNK, TIME, 1767225600000.0),
    "time as text": lambda: with_row(CHUNK, TIME, "1767225600000"),
    "time NULL": lambda: with_row(CHUNK, TIME, None),
    "type as bytes": lambda: with_row(CHUNK, TYPE, b"step/end"),
    "data as bytes": lambda: with_row(CHUNK, DATA, b"{}"),
    "negative first seq": lambda: with_row(0, SEQ, -1),
    "time beyond 2**53": lambda: with_row(CHUNK, TIME, 2**60),
    "empty type": lambda: with_row(CHUNK, TYPE, ""),
    "log-only with a surfaceOp": lambda: with_row(CHUNK, OP, '"append"'),
    "log-only with provenance": lambda: with_row(CHUNK, REFS, "[1]"),
    "surface without surfaceOp": lambda: with_row(USER, OP, None),
    "surfaceOp spelled otherwise": lambda: with_row(USER, OP, '"\\u0061ppend"'),
    "replace": lambda: with_row(ASSISTANT, OP, '{"op":"replace","start":1,"end":1}'),
    "provenance null": lambda: with_row(ASSISTANT, REFS, "null"),
    "provenance duplicate": lambda: with_row(ASSISTANT, REFS, "[16,16]"),
    "provenance of a later event": lambda: with_row(ASSISTANT, REFS, "[30]"),
    "provenance spelled with blanks": lambda: with_row(ASSISTANT, REFS, "[ 16, 17 ]"),
    "provenance of floats": lambda: with_row(ASSISTANT, REFS, "[16.0]"),
    "content not a list": lambda: with_row(USER, DATA, '{"content":"hi","source":{"kind":"user"}}'),
    "tool result without isError": lambda: with_row(RESULT, DATA, '{"callId":"c","content":[]}'),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("size", [1, 4, 512])
def test_each_kind_of_row_is_read_alike(name: str, size: int) -> None:
    rows = CASES[name]()
    with run_rows(size):
        assert rows_outcome(rows, bulk=True) == rows_outcome(rows, bulk=False)


def test_plain_rows_are_taken_in_bulk_and_keep_each_payload_as_stored() -> None:
    admitter = LogAdmitter()
    events = _bulk.rows_run(admitter, PLAIN)
    assert events is not None and len(events) == len(PLAIN)  # the fast path is really taken
    assert all(type(event) is LoggedEvent and held(event) == (_raw(event), STORED) for event in events)
    assert [event_row(event) for event in events] == PLAIN
    assert admitter.next_seq == len(PLAIN)
    assert admitter._surface.seqs() == [event.seq for event in events if event.surface_op is not None]


@pytest.mark.parametrize(
    "name",
    [
        "number beyond a double",
        "lone surrogate",
        "payload nests 201 deep",
        "blank before a payload",
        "two values in a column",
        "data NULL",
        "seq as float",
        "seq as text",
        "time as integral float",
        "time as text",
        "time NULL",
        "type as bytes",
        "data as bytes",
        "log-only with a surfaceOp",
        "surfaceOp spelled otherwise",
        "replace",
        "provenance null",
        "content not a list",
    ],
)
def test_the_bulk_path_declines_what_it_must_leave_to_the_careful_scan(name: str) -> None:
    admitter = LogAdmitter()
    assert _bulk.rows_run(admitter, CASES[name]()) is None
    assert admitter.next_seq == 0  # nothing taken


# -- the backend's load --------------------------------------------------------------------


def _careful_kept_records(
    rows: Sequence[tuple[Any, ...]], where: str, take: Any = None, bulk: Any = None
) -> list[Any]:
    return kept_records(rows, where, take)  # the bulk path left out


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A database holding the session ``s`` and no events, its events table's layout loosened
    (no STRICT, ``data`` of any type), and the layout it had."""
    path = tmp_path_factory.mktemp("bulk-rows") / "template.db"
    with SqliteBackend(path, journal_mode="delete") as backend:
        backend.create(SessionHeader("s", 1767225600000))
        backend.append("s", w1_log(1, "s"))
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("DELETE FROM events")
        (ddl,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'events'").fetchone()
        loose = ddl.replace(") STRICT", ")").replace("data              TEXT NOT NULL", "data")
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'events'", (loose,))
    finally:
        conn.close()
    return path, ddl


def _store(path: Path, template: tuple[Path, str], rows: list[tuple[Any, ...]]) -> None:
    """A database holding the session ``s`` with ``rows`` (written behind the STRICT layout's
    back, as damage would; a row whose seq is taken or whose type or time is NULL left out)."""
    shutil.copyfile(template[0], path)
    ddl = template[1]
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("BEGIN")
        seen: set[Any] = set()
        for row in rows:
            if row[SEQ] not in seen and row[TYPE] is not None and row[TIME] is not None:
                seen.add(row[SEQ])
                conn.execute("INSERT INTO events VALUES ('s', ?, ?, ?, ?, ?, ?)", row)
        conn.execute("COMMIT")
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'events'", (ddl,))
    finally:
        conn.close()


def _stored_rows(path: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT * FROM events ORDER BY session_id, seq").fetchall()
    finally:
        conn.close()


#: The three ways a SQLite load may read rows: streamed a run at a time when every row is
#: plain (``SqliteBackend._stream_plain``), fetched whole and offered to the bulk path a run
#: at a time, or row by row with the careful scan alone.
WAYS = ("stream", "bulk", "careful")


def _no_stream(backend: SqliteBackend, session_id: str) -> None:
    return None


def load_outcome(path: Path, way: str, read_only: bool) -> Any:
    """What a load of ``s`` gives (the session or the error) and the rows it leaves, read
    one of the :data:`WAYS`."""
    before = path.read_bytes()
    with (
        mock.patch.object(
            sqlite, "kept_records", _careful_kept_records if way == "careful" else kept_records
        ),
        mock.patch.object(sqlite.SqliteBackend, "_stream_plain", _no_stream)
        if way != "stream"
        else contextlib.nullcontext(),
    ):
        try:
            with SqliteBackend(path, journal_mode="delete", read_only=read_only) as backend:
                loaded = backend.load("s")
            result: Any = (loaded.header, [described(event) for event in loaded.events])
        except DshSessionError as error:
            result = failure(error)
    if read_only:
        assert path.read_bytes() == before  # a read-only load changes no byte
    return result, _stored_rows(path)


@settings(max_examples=60)
@given(rows=edited_rows(surrogates=False))
@example(rows=list(PLAIN))
@example(rows=list(PLAIN[:-3]))  # an open turn: the load closes it
def test_a_sqlite_load_in_bulk_equals_the_careful_load(
    template: tuple[Path, str], rows: list[tuple[Any, ...]]
) -> None:
    with tempfile.TemporaryDirectory() as where:
        source = Path(where) / "source.db"
        _store(source, template, rows)
        copy = Path(where) / "s.db"  # (the path is in the messages)
        for read_only in (True, False):
            outcomes = []
            for way in WAYS:
                shutil.copyfile(source, copy)
                outcomes.append(load_outcome(copy, way, read_only))
            assert outcomes[0] == outcomes[2]
            assert outcomes[1] == outcomes[2]


def test_a_load_of_a_long_log_is_taken_in_bulk_and_equals_the_careful_load(tmp_path: Path) -> None:
    events = w1_log(400, "s")  # 5 200 events: several runs
    path = tmp_path / "s.db"
    with SqliteBackend(path, journal_mode="delete") as backend:
        backend.create(SessionHeader("s", 1767225600000))
        backend.append("s", events)
    careful = load_outcome(path, "careful", True)
    assert [row[1:] for row in careful[1]] == [event_row(event) for event in events]
    taken: list[int] = []

    def counted(admitter: LogAdmitter, rows: Sequence[tuple[Any, ...]]) -> list[Event] | None:
        run = _bulk.rows_run(admitter, rows)
        taken.append(-1 if run is None else len(run))
        return run

    for way in ("stream", "bulk"):
        taken.clear()
        with mock.patch.object(sqlite, "rows_run", counted):
            outcome = load_outcome(path, way, True)
        assert sum(taken) == len(events) and -1 not in taken  # every run taken whole, once
        assert max(taken) <= sqlite._STREAM_ROWS
        assert outcome == careful


def test_a_plain_load_is_streamed_and_any_other_row_sends_it_to_the_row_scan(tmp_path: Path) -> None:
    """A load of plain rows reads them a run at a time and never fetches them whole; a
    session with one row the bulk path declines (here, the last row's payload led by a
    blank) is read again from the start, row by row, and gives what the careful scan gives."""
    events = w1_log(100, "s")  # 1 300 events: three runs
    path = tmp_path / "s.db"
    with SqliteBackend(path, journal_mode="delete") as backend:
        backend.create(SessionHeader("s", 1767225600000))
        backend.append("s", events)
    fetched_whole: list[int] = []
    real_read = sqlite.SqliteBackend._read_session

    def read_session(backend: SqliteBackend, session_id: str) -> Any:
        fetched_whole.append(1)
        return real_read(backend, session_id)

    with mock.patch.object(sqlite.SqliteBackend, "_read_session", read_session):
        assert load_outcome(path, "stream", True) == load_outcome(path, "careful", True)
        assert fetched_whole == [1]  # only the careful load fetched the rows whole
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            last = len(events) - 1
            (data,) = conn.execute("SELECT data FROM events WHERE seq = ?", (last,)).fetchone()
            conn.execute("UPDATE events SET data = ? WHERE seq = ?", (" " + data, last))
        finally:
            conn.close()
        fetched_whole.clear()
        streamed = load_outcome(path, "stream", True)
        assert fetched_whole == [1]  # the stream declined at the last run and the row scan read it
        assert streamed == load_outcome(path, "careful", True)
        assert len(streamed[0][1]) == len(events)

"""The spec's byte oracle (``dsh_spec.ecma_text``) writes what JavaScript writes.

Three kinds of evidence: outputs of ``Number::toString`` and ``JSON.stringify``
that an engine gives (fixed facts, written down here); every line the
TypeScript reference wrote into the conformance artifacts, re-written from its
parsed value and compared byte for byte; and agreement on generated values
with the two other writers (the spec's ``js_stringify``, the implementation's
``js_json.dumps``), which take their digits from ``repr`` -- the oracle does
not.
"""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
import struct
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import dsh_spec
from dsh_session.js_json import dumps
from dsh_spec import ecma_text
from tests import reference
from tests import strategies as S
from tests.support import property_settings

#: ``String(x)`` in a JavaScript engine, for numbers JavaScript spells in its own way.
NUMBERS = [
    (0.0, "0"),
    (-0.0, "0"),
    (1.0, "1"),
    (100.0, "100"),
    (-1.5, "-1.5"),
    (0.1 + 0.2, "0.30000000000000004"),
    (1e21, "1e+21"),
    (1e20, "100000000000000000000"),
    (123456789012345680000.0, "123456789012345680000"),
    (1e16, "10000000000000000"),
    (1e-6, "0.000001"),
    (1e-7, "1e-7"),
    (1.5e-7, "1.5e-7"),
    (0.000001234, "0.000001234"),
    (123e-20, "1.23e-18"),
    (5e-324, "5e-324"),
    (1.5e-323, "1.5e-323"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
    (1.5e300, "1.5e+300"),
    (2**53, "9007199254740992"),
    (2**53 - 1, "9007199254740991"),
    (-(2**53) + 1, "-9007199254740991"),
    (2**53 + 2, "9007199254740994"),
    (2**60, "1152921504606847000"),
    (2.0**60, "1152921504606847000"),
    (1e23, "1e+23"),
    (4.35, "4.35"),
    (1 / 3, "0.3333333333333333"),
    (12345.6, "12345.6"),
    (-1.5e-10, "-1.5e-10"),
    (float("nan"), "NaN"),
    (float("inf"), "Infinity"),
    (float("-inf"), "-Infinity"),
]

#: ``JSON.stringify(value)`` in a JavaScript engine.
TEXTS: list[tuple[Any, str]] = [
    ({"b": 1, "10": 2, "2": 3, "a": 4}, '{"2":3,"10":2,"b":1,"a":4}'),
    (
        {"4294967295": 0, "4294967294": 1, "01": 2, "-1": 3, "1.5": 4},
        '{"4294967294":1,"4294967295":0,"01":2,"-1":3,"1.5":4}',
    ),
    ({"100": 0, "20": 0, "3": 0}, '{"3":0,"20":0,"100":0}'),
    ([1.0, -0.0, 1e21, None, True, False], "[1,0,1e+21,null,true,false]"),
    ("\ud83d\ude00", '"\U0001f600"'),  # a pair held as two code points is one character
    ("\U0001f600", '"\U0001f600"'),
    ("\ud800", '"\\ud800"'),
    ("\ude00\ud83d", '"\\ude00\\ud83d"'),
    ('\b\t\n\f\r"\\', '"\\b\\t\\n\\f\\r\\"\\\\"'),
    ("\x00\x1f\x7f", '"\\u0000\\u001f\x7f"'),
    ("\u2028\u2029é/", '"\u2028\u2029é/"'),
    ({}, "{}"),
    ([], "[]"),
    ({"a": {"9": [], "8": {}}}, '{"a":{"8":{},"9":[]}}'),
]


@pytest.mark.parametrize(("value", "text"), NUMBERS, ids=[t for _, t in NUMBERS])
def test_numbers_are_spelled_as_javascript_spells_them(value: float, text: str) -> None:
    assert ecma_text.number_to_string(value) == text


@pytest.mark.parametrize(("value", "text"), TEXTS)
def test_values_are_written_as_json_stringify_writes_them(value: Any, text: str) -> None:
    assert ecma_text.stringify(value) == text


def test_non_finite_numbers_are_written_null_as_json_stringify_does() -> None:
    assert ecma_text.stringify([math.inf, math.nan]) == "[null,null]"


def _reference_lines() -> list[bytes]:
    lines: list[bytes] = []
    for path in sorted(reference.STORES.joinpath("jsonl").rglob("*.jsonl")):
        lines.extend(line for line in path.read_bytes().split(b"\n") if line)
    return lines


def _reference_columns(tmp: Path) -> list[str]:
    """The JSON columns of the reference's databases (each read from a copy: SQLite leaves
    ``-wal`` / ``-shm`` files beside a database it opened, even read-only)."""
    texts: list[str] = []
    for original in sorted(reference.STORES.joinpath("sqlite").glob("*.db")):
        path = tmp / original.name
        shutil.copyfile(original, path)
        conn = sqlite3.connect(path)
        try:
            rows = conn.execute("SELECT data, source_event_seqs, surface_op FROM events").fetchall()
        except sqlite3.DatabaseError:
            continue  # a layout the reference refuses (reject- cases)
        finally:
            conn.close()
        texts.extend(text for row in rows for text in row if text is not None)
    return texts


def test_every_line_the_reference_wrote_is_written_again_byte_for_byte() -> None:
    checked = 0
    for line in _reference_lines():
        try:
            value = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue  # a torn line or a damaged byte, as the crash and reject cases hold
        assert ecma_text.stringify(value).encode("utf-8") == line
        checked += 1
    assert checked > 300


def test_every_json_column_the_reference_wrote_is_written_again_byte_for_byte(tmp_path: Path) -> None:
    checked = 0
    for text in _reference_columns(tmp_path):
        try:
            value = json.loads(text)
        except ValueError:
            continue
        assert ecma_text.stringify(value) == text
        checked += 1
    assert checked > 300


def _doubles() -> st.SearchStrategy[float]:
    bits = st.integers(0, 2**64 - 1).map(lambda b: struct.unpack("<d", b.to_bytes(8, "little"))[0])
    return (bits | st.floats(allow_nan=False, allow_infinity=False)).filter(math.isfinite)


@property_settings(300)
@given(_doubles())
def test_the_oracle_agrees_with_the_other_writers_on_every_double(x: float) -> None:
    text = ecma_text.number_to_string(x)
    assert text == dsh_spec.js_number(x) == dumps(x)
    assert float(text) == x


@property_settings(200)
@given(S.json_values)
def test_the_oracle_agrees_with_the_other_writers_on_json_values(value: Any) -> None:
    canonical = dsh_spec.canonical_json(value)
    assume(not isinstance(canonical, dsh_spec.NotJson))
    assert not isinstance(canonical, dsh_spec.NotJson)
    assert ecma_text.stringify(canonical) == dsh_spec.js_stringify(canonical) == dumps(canonical)

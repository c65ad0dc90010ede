"""``js_json`` writes what JavaScript's JSON.stringify writes and reads what JSON.parse reads.

The expected strings are JavaScript facts (persistence.md §0.4, the number
notes of the reference artifacts' INDEX.md) and, best of all, the bytes the
reference itself wrote for two hand-written logs full of odd numbers and
characters (the ``log.json`` and JSONL store of two reference cases, see
``tests/reference.py``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

import dsh_spec
from dsh_session import FrozenDict, FrozenList, freeze
from dsh_session.js_json import JsonTextError, dumps, js_number, js_string, loads
from tests import strategies as S
from tests.reference import RECORDS, jsonl_root
from tests.support import assert_same_json, property_settings

#: The reference cases built from hand-written logs (their log.json, and the JSONL file the reference wrote).
HAND_WRITTEN = {"numbers-edge": "numbers-edge-values-no-cwd", "unicode": "unicode-emoji-cjk-lone-surrogates"}


def _written(name: str) -> Path:
    (path,) = jsonl_root(HAND_WRITTEN[name]).glob("*/*.jsonl")
    return path


# -- numbers: ECMAScript Number::toString -----------------------------------------------

NUMBER_FACTS = [
    (1.0, "1"),
    (5.0, "5"),
    (100.0, "100"),
    (-0.0, "0"),
    (0.0, "0"),
    (0, "0"),
    (-1, "-1"),
    (0.5, "0.5"),
    (-1.5, "-1.5"),
    (0.1, "0.1"),
    (0.30000000000000004, "0.30000000000000004"),
    (1e-6, "0.000001"),
    (1e-7, "1e-7"),
    (2.5e-5, "0.000025"),
    (-1.5e-10, "-1.5e-10"),
    (123.456e2, "12345.6"),
    (1e16, "10000000000000000"),
    (1e20, "100000000000000000000"),
    (1e21, "1e+21"),
    (1.5e300, "1.5e+300"),
    (5e-324, "5e-324"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
    (2**53, "9007199254740992"),
    (2**53 - 1, "9007199254740991"),
    (-(2**53), "-9007199254740992"),
    (float(2**60), "1152921504606847000"),
    (2**60, "1152921504606847000"),
    (2**53 + 1, "9007199254740992"),
    (12345678901234567890, "12345678901234567000"),
    (123456789012345678901234567890, "1.2345678901234568e+29"),
    (1767225649229.0, "1767225649229"),
    (0.3333333333333333, "0.3333333333333333"),
    (4.35, "4.35"),
    (1.23e-18, "1.23e-18"),
    (-1e21, "-1e+21"),
]


@pytest.mark.parametrize(("value", "text"), NUMBER_FACTS, ids=[t for _, t in NUMBER_FACTS])
def test_js_number(value: int | float, text: str) -> None:
    assert js_number(value) == text


@given(S.numbers)
@property_settings(300)
def test_js_number_reads_back_as_the_same_double(value: int | float) -> None:
    """``Number(String(x)) === x``: the text names exactly the double."""
    assert float(js_number(value)) == float(value)


# -- strings --------------------------------------------------------------------------------

STRING_FACTS = [
    ("plain", '"plain"'),
    ('say "hi"', '"say \\"hi\\""'),
    ("back\\slash", '"back\\\\slash"'),
    ("\b\t\n\f\r", '"\\b\\t\\n\\f\\r"'),
    ("\x00", '"\\u0000"'),
    ("\x1f", '"\\u001f"'),
    ("\x0b", '"\\u000b"'),
    ("\x7f", '"\x7f"'),
    ("\u2028\u2029", '"\u2028\u2029"'),
    ("é😀你好", '"é😀你好"'),
    ("\ud800", '"\\ud800"'),
    ("\udfff", '"\\udfff"'),
    ("a\ud83db", '"a\\ud83db"'),
    ("\ude00\ud83d", '"\\ude00\\ud83d"'),
    ("\ud83d\ude00", '"😀"'),
    ("/", '"/"'),
]


@pytest.mark.parametrize(("text", "quoted"), STRING_FACTS)
def test_js_string(text: str, quoted: str) -> None:
    assert js_string(text) == quoted
    assert dsh_spec.js_string(text) == quoted


@given(S.strings)
@property_settings(300)
def test_spec_and_implementation_quote_strings_alike(text: str) -> None:
    assert js_string(text) == dsh_spec.js_string(text)


# -- whole values -----------------------------------------------------------------------------


def test_dumps_is_compact_and_puts_array_index_keys_first() -> None:
    value = {"b": 1, "2": 2, "1": 3, "-1": 4, "01": 5}
    assert dumps(value) == '{"1":3,"2":2,"b":1,"-1":4,"01":5}'
    assert dumps(freeze(value)) == '{"1":3,"2":2,"b":1,"-1":4,"01":5}'
    assert dumps({"4294967295": 1, "4294967294": 2}) == '{"4294967294":2,"4294967295":1}'
    assert dumps([1, [True, False, None], {"a": [1.5, -0.0]}]) == '[1,[true,false,null],{"a":[1.5,0]}]'


def test_dumps_refuses_what_is_not_json() -> None:
    for bad in ((1, 2), {1, 2}, b"x", object()):
        with pytest.raises(TypeError):
            dumps(bad)


@given(S.json_values)
@property_settings(300)
def test_frozen_and_plain_values_are_written_alike(value: Any) -> None:
    """The frozen fast path writes the same bytes as the general one."""
    assert dumps(freeze(value)) == dumps(value)


@given(S.json_values)
@property_settings(300)
def test_a_written_value_reads_back_as_its_canonical_form(value: Any) -> None:
    text = dumps(value)
    back = loads(text)
    assert_same_json(back, dsh_spec.canonical_json(value))
    assert dumps(back) == text


@given(S.json_values)
@property_settings(200)
def test_without_floats_or_surrogates_dumps_is_json_dumps(value: Any) -> None:
    frozen = freeze(value)
    if frozen.plain if isinstance(frozen, FrozenDict | FrozenList) else type(frozen) is not float:
        expected = json.dumps(frozen, ensure_ascii=False, separators=(",", ":"))
        if "\\ud" not in expected and not isinstance(frozen, str):
            assert dumps(frozen) == expected


# -- reading ---------------------------------------------------------------------------------


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "[NaN]", '{"a":Infinity}'])
def test_loads_refuses_non_finite_tokens(token: str) -> None:
    with pytest.raises(JsonTextError):
        loads(token)


@pytest.mark.parametrize("text", ["", "{", "[1,]", "{'a':1}", "\ufeff{}", "1e400", "[1e400]", b"\xff"])
def test_loads_refuses_what_json_parse_refuses(text: str | bytes) -> None:
    """Including a BOM; and 1e400, which JSON.parse reads as Infinity, which no log may hold."""
    with pytest.raises(JsonTextError):
        loads(text)


def test_loads_reads_numbers_as_doubles_in_canonical_form() -> None:
    assert_same_json(loads("1.0"), 1)
    assert_same_json(loads("-0"), 0)
    assert_same_json(loads("-0.0"), 0)
    assert_same_json(loads("100.00"), 100)
    assert_same_json(loads("1E21"), 1e21)
    assert_same_json(loads("9007199254740993"), 9007199254740992)
    assert_same_json(loads("12345678901234567890"), 12345678901234567890.0)
    assert_same_json(loads("1767225649229.0"), 1767225649229)
    assert_same_json(loads("0.1e1"), 1)
    assert_same_json(loads("true"), True)


def test_loads_tolerates_whitespace_and_keeps_the_first_position_of_a_duplicate_key() -> None:
    assert_same_json(loads(' \t{"a":1}\r\n'), {"a": 1})
    value = loads('{"a":1,"b":2,"a":3}')
    assert_same_json(value, {"a": 3, "b": 2})


def test_loads_returns_frozen_canonical_values() -> None:
    value = loads('{"b":[1.0,{"2":0,"1":0}],"s":"\\ud83d\\ude00","lone":"\\ud800"}')
    assert isinstance(value, FrozenDict)
    assert isinstance(value["b"], FrozenList)
    assert_same_json(value, {"b": [1, {"1": 0, "2": 0}], "s": "😀", "lone": "\ud800"})
    with pytest.raises(TypeError):
        value["b"].append(1)


# -- the reference's own bytes -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["numbers-edge", "unicode"])
def test_we_write_the_bytes_the_reference_wrote(name: str) -> None:
    """Parse the hand-written input like JSON.parse; write each event like JSON.stringify."""
    source = loads((RECORDS / HAND_WRITTEN[name] / "log.json").read_bytes())
    lines = _written(name).read_bytes().decode("utf-8").split("\n")
    assert lines[-1] == ""
    events = lines[1:-1]
    assert len(events) == len(source["seed"])
    for record, line in zip(source["seed"], events, strict=True):
        assert dumps(record) == line
        assert dumps(loads(line)) == line


def test_numbers_edge_facts_from_the_reference() -> None:
    """The INDEX.md notes, read from the reference's own output."""
    meta = loads(_written("numbers-edge").read_bytes().split(b"\n")[3])["data"]["meta"]
    assert_same_json(meta["negZero"], 0)
    assert_same_json(meta["negZeroFloat"], 0)
    assert_same_json(meta["e21"], 1e21)
    assert_same_json(meta["unsafe"], 2**53)
    assert_same_json(meta["big"], 12345678901234567890.0)
    assert_same_json(meta["oneDotZero"], 1)
    assert math.isclose(meta["exp"], 2.5e-5)


def test_json_text_errors_are_value_errors() -> None:
    assert issubclass(JsonTextError, ValueError)

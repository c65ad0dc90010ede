"""The loaders' fast freeze builds exactly what ``freeze`` builds from parsed JSON text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_session import FrozenDict, FrozenList, freeze
from dsh_session.js_json import dumps
from dsh_session.persistence._codec import HOLE, parse
from dsh_session.persistence._fast_freeze import Unusual, freeze_parsed

keys = st.one_of(
    st.text(max_size=4), st.sampled_from(["0", "1", "10", "01", "-1", "4294967294", "4294967295"])
)
texts = st.text(st.characters(exclude_categories=()), max_size=6)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**53), 2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=12,
)


def shape(value: Any) -> Any:
    """Everything that must match: types, key order, plain flags, values."""
    if isinstance(value, dict):
        assert type(value) is FrozenDict
        return ("dict", value.plain, [(key, shape(item)) for key, item in value.items()])
    if isinstance(value, list):
        assert type(value) is FrozenList
        return ("list", value.plain, [shape(item) for item in value])
    return (type(value).__name__, value)


@settings(max_examples=400)
@given(values, st.booleans())
def test_fast_freeze_equals_freeze(value: Any, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert shape(freeze_parsed(parse(text))) == shape(freeze(parse(text)))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("9007199254740993", "9007199254740992"),
        ("12345678901234567890", "12345678901234567000"),
        ("[1E21, -0, -0.0, 1.0, 100.00]", "[1e+21,0,0,1,100]"),
        ('{"b": 1, "2": 2, "1": 3, "-1": 4, "01": 5}', '{"1":3,"2":2,"b":1,"-1":4,"01":5}'),
        ('"\\ud83d\\ude00 \\ud800"', '"😀 \\ud800"'),
    ],
)
def test_parsed_text_freezes_to_what_javascript_reads(text: str, expected: str) -> None:
    assert dumps(freeze_parsed(parse(text))) == expected


def test_non_finite_numbers_are_left_to_freeze() -> None:
    for text in ("1e400", "[1, -1e400]", '{"a": {"b": 1e999}}', "1" * 400):
        with pytest.raises(Unusual):
            freeze_parsed(parse(text))


def test_constants_javascript_refuses_do_not_parse() -> None:
    for text in ("NaN", "[Infinity]", "-Infinity", "\ufeff{}", "{'a': 1}", ""):
        assert parse(text) is HOLE

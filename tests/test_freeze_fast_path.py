"""``encode``'s lean pass gives exactly what the careful pass gives.

``dsh_session.json_value.encode`` first tries a lean pass (a bounded type check
and msgspec's encoder) and hands anything unusual to the careful pass
(``_careful_text``), which alone decides errors. These tests compare the two on
values built to hit every branch of the lean pass: the same canonical text (of
the same type: plain ``bytes`` or ``Text``) or the same error message.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_session import FrozenDict, FrozenList, NotJsonError, freeze
from dsh_session.json_value import _careful_text, encode


class Text(str):
    """A str subclass: never a JSON string."""


class Number(int):
    """An int subclass: never a JSON number."""


ODD_STRINGS = [
    "",
    "a",
    "é",
    "\ud83d\ude00",
    "\ud83d",
    "x\udc00y",
    "0",
    "01",
    "12",
    "4294967295",
    "4294967294",
]
KEYS = st.one_of(
    st.sampled_from(["type", "text", "0", "10", "2", "01", "-1", "é", "\ud800", "\ud83d\ude00", "k"]),
    st.text(max_size=4),
    st.builds(Text, st.sampled_from(["type", "a"])),
    st.integers(-2, 2),
    st.none(),
)
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.sampled_from([2**53, -(2**53), 2**53 + 1, 2**53 + 2, 2**1100]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1.0, 1.5, 1e21, 2.0**53, 2.0**54]),
    st.text(max_size=6),
    st.sampled_from(ODD_STRINGS),
    st.builds(Text, st.sampled_from(ODD_STRINGS)),
    st.builds(Number, st.integers(-3, 3)),
    st.sampled_from([(1, 2), b"x", {1, 2}, object()]),
)


#: Values already frozen, as a logged event holds them (built once: calling the
#: implementation inside a strategy would disturb Hypothesis's randomness).
FROZEN_SAMPLES = [freeze([1, "y", {"k": None}]), freeze({"x": [1.5]}), freeze(["\ud800"]), freeze({})]


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(KEYS, children, max_size=4),
        st.sampled_from(FROZEN_SAMPLES),
    )


VALUES = st.recursive(LEAVES, _containers, max_leaves=20)


def outcome(run: Any, value: Any) -> Any:
    try:
        text = run(value)
    except NotJsonError as error:
        return ("error", type(error).__name__, error.reason)
    return ("ok", type(text).__name__, bytes(text))


ALREADY_FROZEN = freeze({"x": [1, "y"]})

#: One value per branch of the lean pass and per way out of it.
CASES: list[Any] = [
    {"type": "text", "text": "hello"},
    {"k": 1, "0": 2},
    {"10": 1, "2": 2, "k": 3},
    {"01": 1, "1": 2},
    {"4294967295": 1, "4294967294": 2},
    {"é": 1},
    {"\ud83d\ude00": 1, "\U0001f600": 2},
    {"\ud800": 1},
    {Text("type"): 1},
    {1: "a"},
    {None: "a"},
    2**53,
    2**53 + 2,
    [2**53 + 2],
    {"a": 2**60},
    [2**53 + 1],
    {"a": -(2**1100)},
    "é",
    "\ud800",
    "\ud83d\ude00",
    ["\ud800"],
    {"a": "\ud83d\ude00"},
    {"a": "x\udc00"},
    Text("a"),
    [Text("a")],
    {"a": Text("a")},
    Number(1),
    [Number(1)],
    {"a": True, "b": None, "c": False},
    1.0,
    [-0.0, 1.5, 1e21, 2.0**53, 2.0**54],
    {"a": float("nan")},
    [float("inf")],
    (1, 2),
    [(1, 2)],
    {"a": b"x"},
    [{1, 2}],
    {"a": ALREADY_FROZEN},
    [ALREADY_FROZEN, ALREADY_FROZEN],
    ALREADY_FROZEN,
    [[[]], {}, [{}]],
]


@pytest.mark.parametrize("value", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_lean_and_careful_passes_agree_on_each_branch(value: Any) -> None:
    assert outcome(encode, value) == outcome(_careful_text, value)


@settings(max_examples=200, deadline=None)
@given(VALUES)
def test_lean_and_careful_passes_agree(value: Any) -> None:
    assert outcome(encode, value) == outcome(_careful_text, value)


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c"]), VALUES, max_size=3))
def test_agreement_inside_a_payload(data: dict[str, Any]) -> None:
    payload = {"content": [{"type": "text", "text": "x"}, data], "turn": 1}
    assert outcome(encode, payload) == outcome(_careful_text, payload)


def test_cycles_are_refused_by_both() -> None:
    loop: list[Any] = [1]
    loop.append({"again": loop})
    assert outcome(encode, loop) == outcome(_careful_text, loop)
    assert outcome(encode, loop)[0] == "error"
    assert "contains itself" in outcome(encode, loop)[2]


def test_shared_values_are_fine() -> None:
    shared = {"k": [1, 2]}
    frozen = freeze({"a": shared, "b": [shared, shared]})
    assert frozen == {"a": {"k": [1, 2]}, "b": [{"k": [1, 2]}, {"k": [1, 2]}]}
    assert type(frozen["a"]) is FrozenDict and type(frozen["b"]) is FrozenList


def test_freeze_builds_frozen_flagged_copies() -> None:
    frozen = freeze({"text": "plain", "inner": {"x": [1, "é", None, True]}})
    assert type(frozen) is FrozenDict and frozen.plain
    assert type(frozen["inner"]["x"]) is FrozenList and frozen["inner"]["x"].plain
    with_float = freeze({"x": [1.5]})
    assert not with_float.plain and not with_float["x"].plain
    with_surrogate = freeze(["\ud800"])
    assert not with_surrogate.plain


def test_the_lean_pass_takes_the_common_case(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain payloads never reach the careful pass (which is what makes appends cheap)."""
    from dsh_session import json_value

    calls: list[object] = []
    original = json_value._careful_text

    def counted(value: object) -> bytes:
        calls.append(value)
        return original(value)

    monkeypatch.setattr(json_value, "_careful_text", counted)
    encode({"turn": 1, "content": [{"type": "text", "text": "é"}], "ok": True, "none": None})
    assert calls == []
    encode({"x": 1.5})
    assert calls == [{"x": 1.5}]

"""The JSON-value rule and the canonical form, in the spec and in the implementation.

Both sides are asked the same questions through one small adapter, so each
fact below is checked twice: ``dsh_spec.canonical_json`` (a value or
``NotJson``) and ``dsh_session.freeze`` (a frozen value or ``NotJsonError``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given

import dsh_session
import dsh_spec
from dsh_session import FrozenDict, FrozenList, NotJsonError, freeze, thaw
from dsh_session import json_value as impl_json
from dsh_spec import json_value as spec_json
from tests import strategies as S
from tests.support import assert_same_json, deeply_frozen, json_diff, property_settings


class Refused(Exception):
    """The side under test refused the value."""


def spec_canonical(value: Any) -> Any:
    out = dsh_spec.canonical_json(value)
    if isinstance(out, dsh_spec.NotJson):
        raise Refused(out.reason)
    return out


def impl_canonical(value: Any) -> Any:
    try:
        return freeze(value)
    except NotJsonError as error:
        raise Refused(error.reason) from None


SIDES: dict[str, Callable[[Any], Any]] = {"spec": spec_canonical, "impl": impl_canonical}
side = pytest.mark.parametrize("canonical", SIDES.values(), ids=list(SIDES))


# -- what is JSON ------------------------------------------------------------------------------

ACCEPTED: list[Any] = [
    None,
    True,
    False,
    "",
    "text",
    "\ud800",
    0,
    -1,
    2**53,
    -(2**53),
    2**60,
    1.5,
    -0.0,
    5e-324,
    [],
    {},
    [None, True, 1, 1.5, "s", [], {}],
    {"a": {"b": [1, {"c": None}]}},
    {"": 1},
]


@side
@pytest.mark.parametrize("value", ACCEPTED, ids=repr)
def test_json_values_are_accepted(canonical: Callable[[Any], Any], value: Any) -> None:
    canonical(value)


@side
def test_shared_references_are_accepted(canonical: Callable[[Any], Any]) -> None:
    """A value used twice is a DAG, not a cycle."""
    shared = {"k": [1]}
    out = canonical({"a": shared, "b": shared, "c": [shared, [shared]]})
    assert_same_json(out, {"a": {"k": [1]}, "b": {"k": [1]}, "c": [{"k": [1]}, [{"k": [1]}]]})


REFUSED: list[tuple[str, Callable[[], Any]]] = [
    ("tuple", lambda: (1, 2)),
    ("empty tuple", lambda: ()),
    ("set", lambda: {1}),
    ("frozenset", lambda: frozenset()),
    ("bytes", lambda: b"x"),
    ("bytearray", lambda: bytearray()),
    ("nan", lambda: math.nan),
    ("inf", lambda: math.inf),
    ("-inf", lambda: -math.inf),
    ("2**53+1", lambda: 2**53 + 1),
    ("-(2**53+1)", lambda: -(2**53 + 1)),
    ("2**64+1", lambda: 2**64 + 1),
    ("10**400", lambda: 10**400),
    ("int key", lambda: {1: "a"}),
    ("None key", lambda: {None: "a"}),
    ("bool key", lambda: {True: "a"}),
    ("float key", lambda: {1.5: "a"}),
    ("tuple key", lambda: {(1,): "a"}),
    ("complex", lambda: 1j),
    ("object", lambda: object()),
    ("function", lambda: len),
    ("range", lambda: range(2)),
    ("nested tuple", lambda: {"a": [1, {"b": (1,)}]}),
    ("nested nan", lambda: [[[math.nan]]]),
]
REFUSED += [(name, factory) for name, factory in S.NAMED_NON_JSON.items() if name not in dict(REFUSED)]


@side
@pytest.mark.parametrize("make", [f for _, f in REFUSED], ids=[n for n, _ in REFUSED])
def test_non_json_values_are_refused(canonical: Callable[[Any], Any], make: Callable[[], Any]) -> None:
    with pytest.raises(Refused):
        canonical(make())


@side
def test_bool_stays_bool_and_int_stays_int(canonical: Callable[[Any], Any]) -> None:
    out = canonical([True, 1, False, 0, {"t": True}])
    assert [type(x) for x in out[:4]] == [bool, int, bool, int]
    assert out[4]["t"] is True


# -- canonical form ------------------------------------------------------------------------------

CANONICAL = [
    (1.0, 1),
    (-0.0, 0),
    (0.0, 0),
    (100.0, 100),
    (2.0**53, 2**53),
    (-(2.0**53), -(2**53)),
    (2**53 + 2, float(2**53 + 2)),
    (2**60, float(2**60)),
    (2**63, float(2**63)),
    (2.0**60, 2.0**60),
    (1e21, 1e21),
    (0.5, 0.5),
    (5e-324, 5e-324),
    ("\ud83d\ude00", "😀"),
    ("a\ud83d\ude00b", "a😀b"),
    ("\ud83d", "\ud83d"),
    ("\ude00\ud83d", "\ude00\ud83d"),
    ([1.0, [2.0]], [1, [2]]),
]


@side
@pytest.mark.parametrize(("value", "expected"), CANONICAL, ids=[repr(v) for v, _ in CANONICAL])
def test_canonical_form(canonical: Callable[[Any], Any], value: Any, expected: Any) -> None:
    assert_same_json(canonical(value), expected)


@side
def test_negative_zero_loses_its_sign(canonical: Callable[[Any], Any]) -> None:
    out = canonical(-0.0)
    assert type(out) is int and math.copysign(1, out) == 1


@side
def test_array_index_keys_come_first(canonical: Callable[[Any], Any]) -> None:
    out = canonical({"b": 1, "2": 2, "1": 3, "-1": 4, "01": 5, "4294967295": 6, "4294967294": 7, "1.5": 8})
    assert list(out) == ["1", "2", "4294967294", "b", "-1", "01", "4294967295", "1.5"]


@side
def test_surrogate_pairs_in_keys_are_joined(canonical: Callable[[Any], Any]) -> None:
    assert list(canonical({"\ud83d\ude00": 1, "\ud800": 2})) == ["😀", "\ud800"]


def test_the_canonical_number_helpers_agree() -> None:
    for value in [*S.INT_TRAPS, *S.FLOAT_TRAPS, 2**53 + 1, math.nan, math.inf]:
        spec = spec_json.canonical_number(value)
        try:
            impl: Any = impl_json.canonical_number(value)
        except NotJsonError:
            assert isinstance(spec, dsh_spec.NotJson), value
        else:
            assert json_diff(impl, spec) is None, value


def test_array_index_helpers_agree() -> None:
    for key in ["0", "1", "01", "-1", "4294967294", "4294967295", "１", "1e3", "", " 1", "10"]:
        assert impl_json.is_array_index(key) == spec_json.is_array_index(key), key
    assert impl_json.is_array_index("4294967294") and not impl_json.is_array_index("4294967295")
    assert not impl_json.is_array_index("１")  # a full-width digit is not an index


# -- the implementation's frozen values --------------------------------------------------------


def test_freeze_returns_deeply_frozen_values() -> None:
    out = freeze({"a": [1, {"b": 2.5}], "c": "x"})
    assert type(out) is FrozenDict and type(out["a"]) is FrozenList and type(out["a"][1]) is FrozenDict
    assert deeply_frozen(out)


def test_freeze_copies_the_callers_value() -> None:
    value: dict[str, Any] = {"a": [1]}
    out = freeze(value)
    value["a"].append(2)
    value["b"] = 1
    assert_same_json(out, {"a": [1]})


def test_frozen_values_are_taken_as_json() -> None:
    out = freeze({"a": [1.0]})
    assert freeze(out) is out
    wrapper = freeze({"x": out})
    assert wrapper["x"] == out and type(wrapper["x"]) is type(out)


def test_the_plain_flag_says_whether_js_formatting_is_needed() -> None:
    assert freeze({"a": [1, "x", None, True]}).plain
    assert not freeze({"a": [1.5]}).plain
    assert not freeze(["\ud800"]).plain
    assert not freeze({"\ud800": 1}).plain
    assert freeze(["😀", 1.0]).plain  # 1.0 is the int 1; the pair is one character


def test_frozen_containers_refuse_every_change() -> None:
    out = freeze({"a": [1, 2], "b": {"c": 1}})
    attempts: list[Callable[[], object]] = [
        lambda: out.__setitem__("a", 1),
        lambda: out.__delitem__("a"),
        lambda: out.pop("a"),
        lambda: out.popitem(),
        lambda: out.update({}),
        lambda: out.setdefault("z", 1),
        lambda: out.clear(),
        lambda: out.__ior__({}),
        lambda: out["a"].append(3),
        lambda: out["a"].extend([3]),
        lambda: out["a"].insert(0, 3),
        lambda: out["a"].__setitem__(0, 3),
        lambda: out["a"].__delitem__(0),
        lambda: out["a"].pop(),
        lambda: out["a"].remove(1),
        lambda: out["a"].clear(),
        lambda: out["a"].sort(),
        lambda: out["a"].reverse(),
        lambda: out["a"].__iadd__([3]),
        lambda: out["a"].__imul__(2),
    ]
    for attempt in attempts:
        with pytest.raises(TypeError, match="immutable"):
            attempt()
    assert_same_json(out, {"a": [1, 2], "b": {"c": 1}})


def test_frozen_containers_are_equal_to_plain_ones_and_copy_to_themselves() -> None:
    import copy
    import pickle

    out = freeze({"a": [1, {"b": None}]})
    assert out == {"a": [1, {"b": None}]}
    assert copy.copy(out) is out and copy.deepcopy(out) is out
    back = pickle.loads(pickle.dumps(out))
    assert type(back) is FrozenDict and back == out and back.plain == out.plain


def test_frozen_containers_cannot_be_built_by_hand() -> None:
    """Only freeze() makes them, so holding one is proof of a canonical JSON value."""
    with pytest.raises(TypeError):
        FrozenDict({"a": (1, 2)})
    with pytest.raises(TypeError):
        FrozenList([(1, 2)])


def test_thaw_gives_a_plain_mutable_deep_copy() -> None:
    frozen = freeze({"a": [1, {"b": [2]}]})
    out = thaw(frozen)
    assert type(out) is dict and type(out["a"]) is list and type(out["a"][1]) is dict
    out["a"][1]["b"].append(3)
    assert_same_json(frozen, {"a": [1, {"b": [2]}]})


def test_not_json_errors_say_where() -> None:
    with pytest.raises(NotJsonError) as caught:
        freeze({"a": [1, {"b": (1,)}]})
    assert "data.a[1].b" in caught.value.reason and "tuple" in caught.value.reason
    assert isinstance(caught.value, ValueError)
    assert "$.a[1].b" in dsh_spec.canonical_json({"a": [1, {"b": (1,)}]}).reason  # type: ignore[union-attr]


# -- the two sides agree on everything ---------------------------------------------------------


@given(S.json_values)
@property_settings(400)
def test_both_sides_canonicalize_json_alike(value: Any) -> None:
    spec = spec_canonical(value)
    impl = impl_canonical(value)
    assert_same_json(impl, spec)
    assert deeply_frozen(impl) or not isinstance(impl, dict | list)
    assert dsh_session.is_json_value(value) and dsh_spec.is_json_value(value)
    assert_same_json(spec_canonical(spec), spec)  # canonical form is a fixed point


@given(S.non_json_values())
@property_settings(300)
def test_both_sides_refuse_non_json_alike(value: Any) -> None:
    with pytest.raises(Refused):
        spec_canonical(value)
    with pytest.raises(Refused):
        impl_canonical(value)
    assert not dsh_session.is_json_value(value) and not dsh_spec.is_json_value(value)

"""Hypothesis strategies for events: payloads of every type, JSON traps and non-JSON values.

The JSON strategies lean on the spots where Python and JavaScript disagree:
integral floats, ``-0.0``, integers at and beyond 2**53, array-index keys,
lone and paired surrogates. Non-JSON values are built fresh by factories so
that cycles and shared references are real.
"""

from __future__ import annotations

import enum
import math
from collections import OrderedDict, UserDict, defaultdict
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

SURFACE_KINDS = ("user/message", "assistant/message", "tool/result", "context/message", "steering/message")

#: Log-only types: the reference's core catalogue, plugin types, and near-misses of surface types.
LOG_ONLY_KINDS = (
    "turn/start",
    "turn/end",
    "step/start",
    "step/end",
    "prompt/blocked",
    "assistant/chunk",
    "tool/call",
    "todo/write",
    "request/header",
    "request/header-delta",
    "compact/start",
    "compact/summary",
    "compact/end",
    "hook/before-step",
    "User/Message",
    "user/message ",
    "tool/results",
    "ünïcode/тип",
    "x",
)

INT_TRAPS = (
    0,
    1,
    -1,
    2**31,
    2**32 - 1,
    2**53 - 1,
    2**53,
    -(2**53),
    2**53 + 2,
    2**60,
    -(2**60),
    2**63,
    10**21,
)
FLOAT_TRAPS = (
    0.0,
    -0.0,
    1.0,
    -1.0,
    100.0,
    0.1,
    0.5,
    1e-7,
    2.5e-5,
    1e16,
    1e20,
    1e21,
    5e-324,
    1.7976931348623157e308,
    2.0**53,
    2.0**53 + 2,
    1.5e300,
)
STRING_TRAPS = (
    "",
    "\ud83d\ude00",
    "\ud83d",
    "\ude00\ud83d",
    "a\u2028b\u2029",
    '"q"',
    "\\",
    "\x00\x1f",
    "é",
    "😀",
)
KEY_TRAPS = ("0", "1", "2", "10", "01", "-1", "1.5", "4294967294", "4294967295", "a", "b", "type", "\ud800")

_chars = st.characters() | st.characters(categories=["Cs"])
strings = st.text(_chars, max_size=6) | st.sampled_from(STRING_TRAPS)
keys = st.text(_chars, max_size=3) | st.sampled_from(KEY_TRAPS)
numbers = (
    st.integers(-(2**53), 2**53)
    | st.sampled_from(INT_TRAPS)
    | st.sampled_from(FLOAT_TRAPS)
    | st.floats(allow_nan=False, allow_infinity=False)
)
scalars = st.none() | st.booleans() | numbers | strings


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3)


#: Any JSON value (plain ``dict`` / ``list``), rich in canonical-form traps.
json_values: st.SearchStrategy[Any] = st.recursive(scalars, _containers, max_leaves=8)
json_objects: st.SearchStrategy[dict[str, Any]] = st.dictionaries(keys, json_values, max_size=3)

# -- content blocks and payloads ------------------------------------------------------

call_ids = st.sampled_from(("c1", "c2", "call-x", "")) | strings
sources = st.sampled_from(({"kind": "user"}, {"kind": "plugin", "plugin": "p"})) | st.builds(
    lambda kind: {"kind": kind}, strings
)


def _text(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda text: {"type": kind, "text": text}, strings)


blocks: st.SearchStrategy[dict[str, Any]] = st.one_of(
    _text("text"),
    _text("reasoning"),
    st.builds(lambda i, a: {"type": "tool-call", "id": i, "name": "bash", "arguments": a}, call_ids, strings),
    st.builds(
        lambda i, c, e: {"type": "tool-result", "toolCallId": i, "content": c, "isError": e},
        call_ids,
        st.lists(_text("text"), max_size=2),
        st.booleans(),
    ),
    st.builds(lambda extra: {"type": "plugin-block", "extra": extra}, json_values),
)
contents = st.lists(blocks, max_size=3)
turns = st.integers(0, 5) | st.sampled_from((2**53, 1.0))


def _with_optional(
    required: dict[str, st.SearchStrategy[Any]], optional: dict[str, st.SearchStrategy[Any]]
) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(required, optional=optional)


PAYLOADS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "user/message": _with_optional({"content": contents, "source": sources}, {"meta": json_values}),
    "assistant/message": _with_optional(
        {"turn": turns, "step": turns, "content": contents | st.just([])},
        {"usage": st.builds(lambda i, o: {"inputTokens": i, "outputTokens": o}, turns, turns)},
    ),
    "tool/result": _with_optional(
        {"turn": turns, "step": turns, "callId": call_ids, "content": contents, "isError": st.booleans()},
        {"error": st.just({"name": "E", "code": "x"}), "meta": json_values},
    ),
    "context/message": _with_optional(
        {"content": contents, "source": sources},
        {"envelope": st.sampled_from(("context", "raw")), "meta": json_values},
    ),
    "steering/message": _with_optional(
        {"turn": turns, "content": contents, "source": sources},
        {"envelope": st.sampled_from(("context", "raw", "bogus"))},
    ),
}


def payloads(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    """A payload the projection can read, for a surface-eligible ``kind``."""
    return PAYLOADS[kind]


def plain_payload(kind: str, text: str = "plain") -> dict[str, Any]:
    """A W1-like payload for ``kind``: no floats, no array-index keys, no surrogates -- the
    kind the C fast path admits itself (``dsh_session/_accel.py``) rather than leave it to
    the Python path."""
    content = [{"type": "text", "text": text}]
    if kind == "assistant/message":
        return {"turn": 1, "step": 1, "content": content}
    if kind == "tool/result":
        return {"turn": 1, "step": 1, "callId": "call-1", "content": content, "isError": False}
    return {"content": content, "source": {"kind": "user"}}


# -- payloads the projection cannot read (INVALID_PAYLOAD) ------------------------------


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], Any]:
    def apply(data: dict[str, Any]) -> Any:
        out = dict(data)
        out[key] = value
        return out

    return apply


def _drop(key: str) -> Callable[[dict[str, Any]], Any]:
    def apply(data: dict[str, Any]) -> Any:
        return {k: v for k, v in data.items() if k != key}

    return apply


def _whole(value: Any) -> Callable[[dict[str, Any]], Any]:
    return lambda _data: value


_COMMON_BREAKERS: tuple[Callable[[dict[str, Any]], Any], ...] = (
    _whole(None),
    _whole(5),
    _whole("text"),
    _whole([]),
    _whole([{"type": "text", "text": "x"}]),
    _drop("content"),
    _set("content", None),
    _set("content", "text"),
    _set("content", {"type": "text", "text": "x"}),
    _set("content", [1]),
    _set("content", [None]),
    _set("content", [[]]),
    _set("content", [{"text": "x"}]),
    _set("content", [{"type": 1}]),
    _set("content", [{"type": True}]),
    _set("content", [{"type": "text", "text": "ok"}, {"type": None}]),
)
_TOOL_BREAKERS = (
    _drop("callId"),
    _set("callId", 5),
    _set("callId", None),
    _drop("isError"),
    _set("isError", 1),
    _set("isError", 0),
    _set("isError", None),
    _set("isError", "true"),
)
_SOURCE_BREAKERS = (
    _drop("source"),
    _set("source", None),
    _set("source", "user"),
    _set("source", {}),
    _set("source", {"kind": 1}),
    _set("source", {"kind": None}),
    _set("source", {"plugin": "p"}),
)
_ENVELOPE_BREAKERS = tuple(_set("envelope", bad) for bad in ("RAW", "bogus", None, 1, "", ["raw"], True))


def broken_payloads(kind: str) -> st.SearchStrategy[Any]:
    """A JSON payload for ``kind`` that the projection cannot read."""
    breakers = list(_COMMON_BREAKERS)
    if kind == "tool/result":
        breakers += _TOOL_BREAKERS
    if kind in ("context/message", "steering/message"):
        breakers += _SOURCE_BREAKERS
    if kind == "context/message":
        breakers += _ENVELOPE_BREAKERS
    return st.tuples(payloads(kind), st.sampled_from(breakers)).map(lambda pair: pair[1](pair[0]))


# -- values that are not JSON ------------------------------------------------------------


class _Colour(enum.IntEnum):
    RED = 1


class _Str(str):
    pass


class _List(list[Any]):
    pass


class _Dict(dict[str, Any]):
    pass


class _Float(float):
    pass


def _cyclic_list() -> Any:
    out: list[Any] = [1]
    out.append(out)
    return out


def _cyclic_dict() -> Any:
    out: dict[str, Any] = {"a": 1}
    out["self"] = {"inner": [out]}
    return out


#: Values that break the JSON-value rule, by name (factories: fresh each call).
NAMED_NON_JSON: dict[str, Callable[[], Any]] = {
    "tuple": lambda: (1, 2),
    "empty tuple": lambda: (),
    "set": lambda: {1, 2},
    "frozenset": lambda: frozenset(),
    "bytes": lambda: b"bytes",
    "bytearray": lambda: bytearray(b"x"),
    "nan": lambda: math.nan,
    "inf": lambda: math.inf,
    "-inf": lambda: -math.inf,
    "2**53+1": lambda: 2**53 + 1,
    "-(2**53)-1": lambda: -(2**53) - 1,
    "2**64+1": lambda: 2**64 + 1,
    "10**400": lambda: 10**400,
    "int key": lambda: {1: "int key"},
    "None key": lambda: {None: "null key"},
    "bool key": lambda: {True: "bool key"},
    "tuple key": lambda: {(1,): "tuple key"},
    "late non-str key": lambda: {"ok": 1, 2: "late bad key"},
    "OrderedDict": lambda: OrderedDict(a=1),
    "defaultdict": lambda: defaultdict(list),
    "UserDict": lambda: UserDict(a=1),
    "dict subclass": lambda: _Dict(a=1),
    "list subclass": lambda: _List([1]),
    "str subclass": lambda: _Str("sub"),
    "float subclass": lambda: _Float(1.5),
    "IntEnum": lambda: _Colour.RED,
    "Decimal": lambda: Decimal("1.5"),
    "object": lambda: object(),
    "range": lambda: range(3),
    "function": lambda: len,
    "cyclic list": _cyclic_list,
    "cyclic dict": _cyclic_dict,
}
NON_JSON = tuple(NAMED_NON_JSON.values())


@st.composite
def non_json_values(draw: st.DrawFn) -> Any:
    """A value that is not JSON: a bad value alone, or buried inside good JSON."""
    bad = draw(st.sampled_from(NON_JSON))()
    depth = draw(st.integers(0, 2))
    for _ in range(depth):
        shape = draw(st.integers(0, 2))
        if shape == 0:
            bad = [draw(json_values), bad]
        elif shape == 1:
            bad = {"ok": draw(json_values), "bad": bad}
        else:
            bad = {"content": [{"type": "text", "text": "x", "extra": bad}], "source": {"kind": "user"}}
    return bad


def shared_reference_value() -> Any:
    """A value whose parts are shared (a DAG, not a cycle): JSON, and must be accepted."""
    shared: dict[str, Any] = {"k": [1, 2.0]}
    return {"a": shared, "b": shared, "c": [shared, shared]}

"""The JSON-value rule and the canonical form of a JSON value.

A value is JSON when it is built only from ``None``, ``bool``, ``str``, ``int``,
finite ``float``, ``list`` and ``dict`` with ``str`` keys -- exact types, no
subclasses, no tuples, no cycles (a value shared by two parents is fine).
Every number must survive a trip through an IEEE double, because that is what
the TypeScript harness reads it as.

**Nesting.** A JSON value nests at most :data:`MAX_DEPTH` (200) containers deep:
``[]`` and ``{}`` are depth 1, ``[[]]`` is 2, a scalar is 0. The value is
walked depth first, items in order (an object's key before its value), and the
first problem met is the one reported: a key that is not a string, a leaf that
is not JSON, a container that contains itself (a cycle), and -- for a
container met at depth 201 that is not a cycle -- :class:`TooDeep` (the
registry's ``DATA_TOO_DEEP``). A value shared by two parents is fine. The
TypeScript original accepts deeper values (its parser is bounded by the
engine's stack); we refuse them so that what is accepted always loads again,
from any caller and in every backend (``docs/deviations.md`` D7).

The canonical form is what a JavaScript engine would hold after parsing the
value's JSON text, spelled in Python:

- integral numbers with magnitude at most 2**53 are ``int`` (``1.0`` -> ``1``,
  ``-0.0`` -> ``0``); every other number is ``float``;
- object keys that are canonical array indices (``"0"`` .. ``"4294967294"``)
  come first in ascending order, the rest keep their order;
- a string never holds a well-formed surrogate pair as two code points (the
  pair becomes the character it encodes); lone surrogates stay.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import TypeAlias

Json: TypeAlias = "None | bool | int | float | str | list[Json] | dict[str, Json]"

#: The deepest a JSON value may nest, in containers (``[]`` is 1, ``[[]]`` is 2).
MAX_DEPTH = 200

#: The largest magnitude at which every integer is an exact double.
EXACT_INT_LIMIT = 2**53

_ARRAY_INDEX_LIMIT = 2**32 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class NotJson:
    """The reason a value is not a JSON value, with a path to the culprit."""

    reason: str


@dataclass(frozen=True)
class TooDeep(NotJson):
    """The value nests deeper than :data:`MAX_DEPTH` containers (``DATA_TOO_DEEP``)."""


def canonical_json(value: object) -> Json | NotJson:
    """The canonical copy of ``value``, or the first reason (depth first, in order) it is not
    a JSON value (see the module's docstring on nesting)."""
    return _canonical(value, "$", set())


def too_deep_at(value: object, limit: int = MAX_DEPTH) -> str | None:
    """Where ``value`` first (depth first, in order) holds a container at depth ``limit + 1``,
    as a path (``$[0].a``); ``None`` when it nests at most ``limit`` deep (for parsed
    records, which hold no cycles: ``storage``).

    Only ``list`` and ``dict`` count as containers (whatever they hold); a
    container met again on its own path is a cycle and is not followed. The walk
    stops at ``limit + 1``, so its own depth is bounded.
    """
    return _deeper(value, "$", 0, limit, [])


def _deeper(value: object, path: str, depth: int, limit: int, ancestors: list[object]) -> str | None:
    if not isinstance(value, list | dict) or any(value is seen for seen in ancestors):
        return None
    if depth == limit:
        return path
    items = enumerate(value) if isinstance(value, list) else value.items()
    ancestors.append(value)
    try:
        for key, item in items:
            label = f"{path}[{key}]" if isinstance(value, list) else f"{path}.{key}"
            found = _deeper(item, label, depth + 1, limit, ancestors)
            if found is not None:
                return found
        return None
    finally:
        ancestors.pop()


def text_depth(text: str) -> int:
    """How deep the brackets of a JSON text nest, outside its strings: what the value it
    spells would nest if it parsed (for text too deep to parse)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def is_json_value(value: object) -> bool:
    """True when ``value`` satisfies the JSON-value rule."""
    return not isinstance(canonical_json(value), NotJson)


def canonical_number(value: int | float) -> int | float | NotJson:
    """The canonical spelling of a number, or why it has none."""
    if type(value) is int:
        if abs(value) <= EXACT_INT_LIMIT:
            return value
        as_double = float(value) if abs(value) < 2**1024 else math.inf
        if math.isinf(as_double) or int(as_double) != value:
            return NotJson(f"integer {value} is not exactly representable as a double")
        return as_double
    assert isinstance(value, float)
    if not math.isfinite(value):
        return NotJson(f"number {value!r} is not finite")
    if value.is_integer() and abs(value) <= EXACT_INT_LIMIT:
        return int(value)
    return value


def canonical_string(text: str) -> str:
    """Join well-formed surrogate pairs into the characters they encode."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def is_array_index(key: str) -> bool:
    """True when JavaScript would treat ``key`` as an array index."""
    if not key.isascii() or not key.isdigit():
        return False
    if len(key) > 1 and key[0] == "0":
        return False
    return int(key) < _ARRAY_INDEX_LIMIT


def ordered_keys(keys: list[str]) -> list[str]:
    """Keys in JavaScript property order: array indices ascending, then the rest."""
    indices = sorted((k for k in keys if is_array_index(k)), key=int)
    return indices + [k for k in keys if not is_array_index(k)]


def _canonical(value: object, path: str, ancestors: set[int], depth: int = 0) -> Json | NotJson:
    """``depth``: how many containers hold ``value``."""
    kind = type(value)
    if value is None or kind is bool:
        return value  # type: ignore[return-value]
    if kind is str:
        return canonical_string(value)  # type: ignore[arg-type]
    if kind is int or kind is float:
        number = canonical_number(value)  # type: ignore[arg-type]
        return NotJson(f"{path}: {number.reason}") if isinstance(number, NotJson) else number
    if kind is list or kind is dict:
        if id(value) in ancestors:
            return NotJson(f"{path}: cycle")
        if depth == MAX_DEPTH:
            return TooDeep(f"{path}: nests deeper than {MAX_DEPTH} containers")
        ancestors.add(id(value))
        try:
            if kind is list:
                return _canonical_list(value, path, ancestors, depth + 1)  # type: ignore[arg-type]
            return _canonical_dict(value, path, ancestors, depth + 1)  # type: ignore[arg-type]
        finally:
            ancestors.discard(id(value))
    return NotJson(f"{path}: {kind.__name__} is not a JSON type")


def _canonical_list(items: list[object], path: str, ancestors: set[int], depth: int) -> Json | NotJson:
    out: list[Json] = []
    for index, item in enumerate(items):
        copy = _canonical(item, f"{path}[{index}]", ancestors, depth)
        if isinstance(copy, NotJson):
            return copy
        out.append(copy)
    return out


def _canonical_dict(
    obj: dict[object, object], path: str, ancestors: set[int], depth: int
) -> Json | NotJson:
    out: dict[str, Json] = {}
    for key, item in obj.items():
        if type(key) is not str:
            return NotJson(f"{path}: key {key!r} is not a string")
        copy = _canonical(item, f"{path}.{key}", ancestors, depth)
        if isinstance(copy, NotJson):
            return copy
        out[canonical_string(key)] = copy
    keys = list(out)
    ordered = ordered_keys(keys)
    return out if ordered == keys else {k: out[k] for k in ordered}


def js_string(text: str) -> str:
    """``JSON.stringify`` of a string: lone surrogates become ``\\udxxx`` escapes (a pair
    held as two code points is the character it encodes, as in JavaScript)."""
    out = ['"']
    for char in canonical_string(text):
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif code < 0x20:
            out.append(_SHORT_ESCAPES.get(char, f"\\u{code:04x}"))
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


_SHORT_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


# -- JSON text as JavaScript writes it -----------------------------------------------


def js_number(value: int | float) -> str:
    """A number as ECMAScript ``Number::toString`` writes it (the value read as a double).

    The shortest digits that read back as the same double are Python's ``repr``;
    they are then laid out by the ECMAScript rule: plain digits up to 21 places,
    a leading ``0.`` down to 1e-6, exponent form (``1e+21``, ``1.5e-7``) beyond.
    """
    if type(value) is int and abs(value) <= EXACT_INT_LIMIT:
        return str(value)
    number = float(value)
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    shortest = Decimal(repr(abs(number))).normalize().as_tuple()
    digits = "".join(map(str, shortest.digits))
    exponent = shortest.exponent
    assert isinstance(exponent, int)
    k = len(digits)
    n = exponent + k  # value = 0.digits * 10**n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    power = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{sign}{mantissa}e{'+' if power >= 0 else '-'}{abs(power)}"


def js_stringify(value: Json) -> str:
    """``JSON.stringify(value)`` for a JSON value: JS number forms, JS key order, no spaces.

    Text equality of two values under this function is the reference's
    equality for request headers, tool schemas and message prefixes.
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, list):
        return "[" + ",".join(js_stringify(item) for item in value) + "]"
    keys = ordered_keys(list(value))
    return "{" + ",".join(js_string(key) + ":" + js_stringify(value[key]) for key in keys) + "}"

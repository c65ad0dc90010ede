"""JSON text exactly as JavaScript's ``JSON.stringify`` writes it and ``JSON.parse`` reads it.

The TypeScript harness writes every stored line with ``JSON.stringify``; we
write the same bytes for the same value. Three things differ from
``json.dumps``: numbers follow ECMAScript ``Number::toString`` (``1`` not
``1.0``, ``1e-7`` not ``1e-07``, ``1e+21``, ``10000000000000000``), lone
surrogates are escaped as ``\\udxxx``, and object keys that are array indices
come first (our frozen values already hold them in that order).

Reading, every number is a double as in JavaScript, ``NaN`` / ``Infinity``
tokens are refused, and the result is frozen into canonical form.
"""

from __future__ import annotations

import json
from typing import Any, no_type_check

from dsh_session._frozen import FrozenDict, FrozenList
from dsh_session._stack import stack_safe
from dsh_session.json_value import freeze, is_array_index, js_number, js_string

_EXACT = 2**53
_FAST = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@stack_safe
def dumps(value: Any) -> str:
    """``JSON.stringify(value)`` for a JSON value (frozen or plain); from any caller's stack."""
    if (type(value) is FrozenDict or type(value) is FrozenList) and value.plain:
        return _FAST.encode(value)
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


@no_type_check  # recursive walk: no run-time type-checking wrapper per level (tests)
def _write(value: Any, out: list[str]) -> None:
    kind = type(value)
    if kind is str:
        out.append(js_string(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif kind is int or kind is float:
        out.append(js_number(value))
    elif isinstance(value, dict):
        if type(value) is FrozenDict and value.plain:
            out.append(_FAST.encode(value))
            return
        out.append("{")
        first = True
        for key in _js_key_order(value):
            if not first:
                out.append(",")
            first = False
            out.append(js_string(key))
            out.append(":")
            _write(value[key], out)
        out.append("}")
    elif isinstance(value, list):
        if type(value) is FrozenList and value.plain:
            out.append(_FAST.encode(value))
            return
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise TypeError(f"{kind.__name__} is not a JSON type")


def _js_key_order(obj: dict[str, Any]) -> list[str]:
    keys = list(obj)
    if type(obj) is FrozenDict or not any(is_array_index(k) for k in keys):
        return keys
    indices = sorted((k for k in keys if is_array_index(k)), key=int)
    return indices + [k for k in keys if not is_array_index(k)]


class JsonTextError(ValueError):
    """The text is not JSON that ``JSON.parse`` would accept with a finite value."""


def _refuse_constant(token: str) -> Any:
    raise JsonTextError(f"{token} is not valid JSON")


def js_int(token: str) -> int | float:
    """An int token of JSON text as JavaScript reads it: exact within +-2**53, else a double.

    The double is read from the text first, so a token past a double's range becomes
    +-inf (which freezing then refuses) and one of thousands of digits never meets
    Python's limit on int conversion.
    """
    double = float(token)
    if not -_EXACT <= double <= _EXACT:
        return double
    number = int(token)
    return number if -_EXACT <= number <= _EXACT else double


def loads(text: str | bytes) -> Any:
    """``JSON.parse(text)``, frozen into canonical form. Raises :class:`JsonTextError`."""
    try:
        value = json.loads(text, parse_int=js_int, parse_constant=_refuse_constant)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise JsonTextError(str(error)) from None
    try:
        return freeze(value)
    except ValueError as error:  # a number too large for a double
        raise JsonTextError(str(error)) from None


__all__ = ["JsonTextError", "dumps", "js_int", "js_number", "js_string", "loads"]

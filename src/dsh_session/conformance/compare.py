"""Semantic comparison of an adapter's value with a case's expected value.

JSON equality, language-neutral: numbers compare as IEEE doubles (``1`` equals
``1.0``), a boolean is never a number (``true`` is not ``1``), an absent key is
not a ``null`` one, object key order is ignored, array order is not. Strings
compare exactly, so a step that must pin exact text (a stored JSONL line, key
order included) returns a string.
"""

from __future__ import annotations

import json
from typing import Any

_MAX_SHOWN = 80


def difference(actual: Any, expected: Any, path: str = "$") -> str | None:
    """Where and how ``actual`` differs from ``expected``; ``None`` when they are equal."""
    if expected is None or type(expected) is bool or type(expected) is str:
        if type(actual) is type(expected) and actual == expected:
            return None
        return _mismatch(path, actual, expected)
    if type(expected) in (int, float):
        if type(actual) in (int, float) and _same_number(actual, expected):
            return None
        return _mismatch(path, actual, expected)
    if type(expected) is list:
        if type(actual) is not list:
            return _mismatch(path, actual, expected)
        if len(actual) != len(expected):
            return f"{path}: expected {len(expected)} item(s), got {len(actual)}: {_show(actual)}"
        for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
            found = difference(got, want, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if type(expected) is dict:
        if type(actual) is not dict:
            return _mismatch(path, actual, expected)
        missing = [key for key in expected if key not in actual]
        extra = [key for key in actual if key not in expected]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"missing key(s) {', '.join(map(repr, missing))}")
            if extra:
                parts.append(f"unexpected key(s) {', '.join(map(repr, extra))}")
            return f"{path}: {'; '.join(parts)}"
        for key, want in expected.items():
            found = difference(actual[key], want, f"{path}.{key}")
            if found is not None:
                return found
        return None
    raise TypeError(f"{path}: the expected value holds {type(expected).__name__}, which is not JSON")


def _same_number(a: int | float, b: int | float) -> bool:
    if type(a) is int and type(b) is int:
        return a == b
    try:
        return float(a) == float(b)
    except OverflowError:
        return False


def _mismatch(path: str, actual: Any, expected: Any) -> str:
    return f"{path}: expected {_show(expected)}, got {_show(actual)}"


def _show(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."

"""The JSON-value check, and freezing a value into its canonical immutable form.

A JSON value is built from ``None``, ``bool``, ``str``, ``int``, finite ``float``,
``list`` and ``dict`` with ``str`` keys -- exact types (our own frozen
containers count), no tuples, no cycles; a value shared by two parents is fine.
Numbers must survive a trip through an IEEE double, as the TypeScript harness
reads them.

:func:`freeze` checks and copies in one pass and returns the canonical form:
integral numbers up to 2**53 in magnitude become ``int`` and all other numbers
``float``; object keys that are array indices move to the front in ascending
order (JavaScript's property order); well-formed surrogate pairs held as two
code points become one character. The copy is built of
:class:`~dsh_session._frozen.FrozenDict` and :class:`~dsh_session._frozen.FrozenList`.
"""

from __future__ import annotations

import math
import re
from typing import Any

from dsh_session._frozen import FrozenDict, FrozenList, _frozen_dict, _frozen_list

_EXACT = 2**53
_INDEX_LIMIT = 2**32 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")


class NotJsonError(ValueError):
    """A value broke the JSON-value rule; ``reason`` names the spot and the problem."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def is_json_value(value: object) -> bool:
    """True when ``value`` satisfies the JSON-value rule."""
    try:
        freeze(value)
    except NotJsonError:
        return False
    return True


def freeze(value: object) -> Any:
    """The canonical, immutable copy of a JSON value; :class:`NotJsonError` if it is not one.

    The common case (exact JSON types, safe integers, ASCII keys that do not
    start with a digit, no cycles) takes a lean single pass; anything else --
    including every value that is not JSON -- is redone by the careful pass,
    which alone decides errors and their messages, so both give the same
    result (``tests/test_freeze_fast_path.py``).
    """
    try:
        kind = type(value)
        if kind is dict:
            return _fast_dict(value)  # type: ignore[arg-type]
        if kind is list:
            return _fast_list(value)  # type: ignore[arg-type]
        return _fast_leaf(value, kind)[0]
    except (_Unusual, RecursionError):
        return _freeze(value, [], set())[0]


class _Unusual(Exception):
    """The lean pass met something it leaves to the careful one."""


def _fast_leaf(value: Any, kind: type) -> tuple[Any, bool]:
    if kind is str:
        return (value, True) if value.isascii() else canonical_string(value)
    if kind is int:
        if -_EXACT <= value <= _EXACT:
            return value, True
        raise _Unusual
    if value is None or kind is bool:
        return value, True
    if kind is FrozenDict or kind is FrozenList:
        return value, value.plain
    if kind is float and value - value == 0:  # finite
        number = canonical_number(value)
        return number, type(number) is int
    raise _Unusual


#: Keys seen to be plain ASCII and not array-index-like: a memo for the lean pass,
#: bounded in count and key length.
_PLAIN_KEYS: set[str] = set()
_PLAIN_KEYS_LIMIT = 4096
_new_dict = dict.__new__
_new_list = list.__new__
_fill_dict = dict.update
_fill_list = list.extend
_set_item = dict.__setitem__
_set_index = list.__setitem__


def _plain_key(key: object) -> None:
    """Admit ``key`` to the memo, or leave its dict to the careful pass."""
    if type(key) is not str or not key.isascii() or key[:1].isdigit():
        raise _Unusual  # not a string, or canonical form / JavaScript key order needed
    if len(key) <= 64 and len(_PLAIN_KEYS) < _PLAIN_KEYS_LIMIT:
        _PLAIN_KEYS.add(key)


def _fast_dict(obj: dict[Any, Any]) -> FrozenDict:
    # Copy first (one C-level update), then check every item and overwrite the
    # few that change (nested containers, non-ASCII strings): cheaper than
    # building a second dict item by item. Overwriting a key keeps its place.
    frozen = _new_dict(FrozenDict)
    _fill_dict(frozen, obj)
    plain = True
    for key, item in obj.items():
        if type(key) is not str or key not in _PLAIN_KEYS:
            _plain_key(key)
        kind = type(item)
        if kind is str:
            if not item.isascii():
                item, item_plain = canonical_string(item)
                _set_item(frozen, key, item)
                plain = plain and item_plain
        elif kind is int:
            if not -_EXACT <= item <= _EXACT:
                raise _Unusual
        elif kind is dict:
            item = _fast_dict(item)
            _set_item(frozen, key, item)
            plain = plain and item.plain
        elif kind is list:
            item = _fast_list(item)
            _set_item(frozen, key, item)
            plain = plain and item.plain
        elif not (item is None or kind is bool):
            item, item_plain = _fast_leaf(item, kind)
            _set_item(frozen, key, item)
            plain = plain and item_plain
    frozen.plain = plain
    return frozen


def _fast_list(items: list[Any]) -> FrozenList:
    frozen = _new_list(FrozenList)
    _fill_list(frozen, items)
    plain = True
    for index, item in enumerate(items):
        kind = type(item)
        if kind is str:
            if not item.isascii():
                item, item_plain = canonical_string(item)
                _set_index(frozen, index, item)
                plain = plain and item_plain
        elif kind is int:
            if not -_EXACT <= item <= _EXACT:
                raise _Unusual
        elif kind is dict:
            item = _fast_dict(item)
            _set_index(frozen, index, item)
            plain = plain and item.plain
        elif kind is list:
            item = _fast_list(item)
            _set_index(frozen, index, item)
            plain = plain and item.plain
        elif not (item is None or kind is bool):
            item, item_plain = _fast_leaf(item, kind)
            _set_index(frozen, index, item)
            plain = plain and item_plain
    frozen.plain = plain
    return frozen


def canonical_number(value: int | float) -> int | float:
    """The canonical spelling of a number; :class:`NotJsonError` if it has none."""
    if type(value) is int:
        if -_EXACT <= value <= _EXACT:
            return value
        try:
            as_double = float(value)
        except OverflowError:
            raise NotJsonError(f"integer {value} is too large for a double") from None
        if int(as_double) != value:
            raise NotJsonError(f"integer {value} is not exactly representable as a double")
        return as_double
    assert isinstance(value, float)
    if value != value or value in (math.inf, -math.inf):
        raise NotJsonError(f"number {value!r} is not finite")
    if -_EXACT <= value <= _EXACT and value.is_integer():
        return int(value)
    return value


def canonical_string(text: str) -> tuple[str, bool]:
    """The string with surrogate pairs joined, and whether it is free of lone surrogates."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text, True
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return joined, _SURROGATE.search(joined) is None


def is_array_index(key: str) -> bool:
    """True when JavaScript would order ``key`` as an array index."""
    if not key.isascii() or not key.isdigit() or (key[0] == "0" and len(key) > 1):
        return False
    return int(key) < _INDEX_LIMIT


def _freeze(value: object, path: list[str], active: set[int]) -> tuple[Any, bool]:
    """Return ``(frozen, plain)``; ``path`` locates the value for error messages."""
    kind = type(value)
    if kind is str:
        return canonical_string(value)  # type: ignore[arg-type]
    if kind is FrozenDict or kind is FrozenList:
        return value, value.plain  # type: ignore[attr-defined]
    if kind is int:
        try:
            number = canonical_number(value)  # type: ignore[arg-type]
        except NotJsonError as error:
            raise NotJsonError(f"{_where(path)}: {error.reason}") from None
        return number, type(number) is int
    if value is None or kind is bool:
        return value, True
    if kind is float:
        try:
            number = canonical_number(value)  # type: ignore[arg-type]
        except NotJsonError as error:
            raise NotJsonError(f"{_where(path)}: {error.reason}") from None
        return number, type(number) is int
    if kind is dict:
        return _freeze_dict(value, path, active)  # type: ignore[arg-type]
    if kind is list:
        return _freeze_list(value, path, active)  # type: ignore[arg-type]
    raise NotJsonError(f"{_where(path)}: {kind.__name__} is not a JSON type")


def _freeze_list(items: list[object], path: list[str], active: set[int]) -> tuple[Any, bool]:
    marker = id(items)
    if marker in active:
        raise NotJsonError(f"{_where(path)}: the value contains itself")
    active.add(marker)
    out = []
    plain = True
    for index, item in enumerate(items):
        path.append(f"[{index}]")
        frozen, item_plain = _freeze(item, path, active)
        path.pop()
        out.append(frozen)
        plain = plain and item_plain
    active.discard(marker)
    return _frozen_list(out, plain), plain


def _freeze_dict(obj: dict[object, object], path: list[str], active: set[int]) -> tuple[Any, bool]:
    marker = id(obj)
    if marker in active:
        raise NotJsonError(f"{_where(path)}: the value contains itself")
    active.add(marker)
    out: dict[str, Any] = {}
    plain = True
    reorder = False
    for key, item in obj.items():
        if type(key) is not str:
            raise NotJsonError(f"{_where(path)}: key {key!r} is not a string")
        path.append(f".{key}")
        frozen, item_plain = _freeze(item, path, active)
        path.pop()
        key, key_plain = canonical_string(key)
        out[key] = frozen
        plain = plain and item_plain and key_plain
        reorder = reorder or (key[:1].isdigit() and is_array_index(key))
    active.discard(marker)
    if reorder:
        indices = sorted((k for k in out if is_array_index(k)), key=int)
        rest = [k for k in out if not is_array_index(k)]
        return _frozen_dict(((k, out[k]) for k in indices + rest), plain), plain
    return _frozen_dict(out.items(), plain), plain


def _where(path: list[str]) -> str:
    return "data" + "".join(path)

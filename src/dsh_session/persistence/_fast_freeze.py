"""Freezing what the JSON parser returned, fast: the loaders' hot path.

:func:`dsh_session.json_value.freeze` accepts any Python value, so it checks
types, tracks cycles and builds error paths as it goes. A value that the
stored-text parser just returned needs none of that: it is a tree of plain
``dict`` / ``list`` / ``str`` / ``int`` / ``float`` / ``bool`` / ``None``,
integers are already doubles' values (the parser reads big ones as floats) and
escaped surrogate pairs are already joined, dictionary keys are strings.
Integers beyond 2**53 become the double JavaScript reads for them. :func:`freeze_parsed` builds the
same canonical frozen value (the tests check it against ``freeze``) in a
fraction of the time. Anything it does not expect -- a non-finite number, a
value nesting deeper than ``MAX_DEPTH``, a caller's stack too deep for the walk
-- makes it give up (:class:`Unusual`), and the caller leaves the value to
``freeze``, whose error names the problem (and whose walk does not depend on
the caller's stack).
"""

from __future__ import annotations

import re
from typing import Any, no_type_check

from dsh_session._frozen import FrozenDict, frozen_dict, frozen_list
from dsh_session._nesting import MAX_DEPTH
from dsh_session.json_value import is_array_index

__all__ = ["Unusual", "freeze_parsed"]

_EXACT = 2**53
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class Unusual(Exception):
    """The value holds something the fast path does not handle."""


def freeze_parsed(value: Any) -> Any:
    """The canonical frozen form of a freshly parsed JSON value (see the module doc).

    On :class:`Unusual` the value may be partly frozen in place (containers
    inside it replaced by their frozen, canonical copies): still the same value.
    """
    try:
        return _freeze(value, 1)[0]
    except RecursionError:
        raise Unusual from None


@no_type_check  # recursive walk: no run-time type-checking wrapper per level (tests)
def _freeze(value: Any, depth: int) -> tuple[Any, bool]:
    # ``depth``: the depth ``value`` has if it is a container.
    kind = type(value)
    if kind is str:
        return value, value.isascii() or _LONE_SURROGATE.search(value) is None
    if (kind is dict or kind is list) and depth > MAX_DEPTH:
        raise Unusual
    if kind is dict:
        # The parser's dict is ours: values are replaced in place, then copied once.
        plain = _freeze_items(value, value.items(), depth)
        reorder = False
        for key in value:
            if not key.isascii():
                plain = plain and _LONE_SURROGATE.search(key) is None
            elif key[:1].isdigit() and is_array_index(key):
                reorder = True
        if reorder:
            indices = sorted((k for k in value if is_array_index(k)), key=int)
            ordered = indices + [k for k in value if not is_array_index(k)]
            return frozen_dict(((k, value[k]) for k in ordered), plain), plain
        made = dict.__new__(FrozenDict)
        dict.update(made, value)  # a dict merges faster than its items
        made.plain = plain
        return made, plain
    if kind is list:
        plain = _freeze_items(value, enumerate(value), depth)
        return frozen_list(value, plain), plain
    if kind is float:
        if value != value or value in (float("inf"), float("-inf")):
            raise Unusual
        if value.is_integer() and -_EXACT <= value <= _EXACT:
            return int(value), True
        return value, False
    if kind is int:
        if -_EXACT <= value <= _EXACT:
            return value, True
        try:
            number = float(value)  # the nearest double, as JSON.parse reads the digits
        except OverflowError:
            raise Unusual from None
        return _freeze(number, depth)
    if value is None or kind is bool:
        return value, True
    raise Unusual


@no_type_check  # called once a container: no run-time type-checking wrapper (tests)
def _freeze_items(container: Any, pairs: Any, depth: int) -> bool:
    """Freeze in place the items of ``container``, a dict's or a list's, given as ``(key or
    index, item)`` pairs: each nested container is replaced by its frozen copy (``depth`` is
    the container's). True when every string among the items is plain (no lone surrogate)."""
    plain = True
    for key, item in pairs:
        if type(item) is str:
            if not (item.isascii() or _LONE_SURROGATE.search(item) is None):
                plain = False
        elif not ((type(item) is int and -_EXACT <= item <= _EXACT) or item is None or type(item) is bool):
            frozen, item_plain = _freeze(item, depth + 1)
            container[key] = frozen
            plain = plain and item_plain
    return plain

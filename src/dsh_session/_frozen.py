"""Immutable JSON containers: what the log and the derived history are made of.

``FrozenDict`` and ``FrozenList`` are ``dict`` and ``list`` subclasses, so they
compare equal to plain values and serialize with any JSON encoder, but every
mutating method raises ``TypeError``. They are only built by
:func:`dsh_session.json_value.freeze`, which has validated and canonicalized
their contents, so holding one is proof of a canonical JSON value. Each carries
a ``plain`` flag: true when nothing beneath it needs JavaScript-specific
formatting (no float, no lone surrogate), which lets the JSON writer take the
fast path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn, Self, SupportsIndex, no_type_check

from dsh_session._stack import stack_safe

_IMMUTABLE = "logged events and derived messages are immutable; use dsh_session.thaw() for a copy"


def _refuse(*_args: object, **_kwargs: object) -> NoReturn:
    raise TypeError(_IMMUTABLE)


class _Frozen:
    """What both containers share: only :func:`dsh_session.freeze` builds them; each is its own copy."""

    __slots__ = ()

    def __init__(self, *_args: object, **_kwargs: object) -> None:
        """Refuse: instances are built by :func:`dsh_session.freeze` only (so each is canonical)."""
        raise TypeError(f"a {type(self).__name__} is made by dsh_session.freeze(), not called directly")

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, _memo: object) -> Self:
        return self


class FrozenDict(_Frozen, dict[str, Any]):
    """A JSON object that cannot be changed."""

    __slots__ = ("plain",)
    plain: bool

    __setitem__ = _refuse
    __delitem__ = _refuse
    __ior__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (frozen_dict, (list(self.items()), self.plain))


class FrozenList(_Frozen, list[Any]):
    """A JSON array that cannot be changed."""

    __slots__ = ("plain",)
    plain: bool

    __setitem__ = _refuse
    __delitem__ = _refuse
    __iadd__ = _refuse
    __imul__ = _refuse
    append = _refuse
    extend = _refuse
    insert = _refuse
    remove = _refuse
    clear = _refuse
    sort = _refuse
    reverse = _refuse

    def pop(self, _index: SupportsIndex = -1) -> NoReturn:
        raise TypeError(_IMMUTABLE)

    def __reduce__(self) -> tuple[Any, ...]:
        return (frozen_list, (list(self), self.plain))


def frozen_dict(items: Iterable[tuple[str, Any]] | Mapping[str, Any], plain: bool) -> FrozenDict:
    out = dict.__new__(FrozenDict)
    dict.update(out, items)
    out.plain = plain
    return out


def frozen_list(items: Iterable[Any], plain: bool) -> FrozenList:
    out = list.__new__(FrozenList)
    list.extend(out, items)
    out.plain = plain
    return out


def thaw(value: Any) -> Any:
    """A plain, mutable deep copy of a JSON value (frozen or not); from any caller's stack."""
    return _thaw_safely(value)


@no_type_check  # recursive walk: no run-time type-checking wrapper per level (tests)
def _thaw(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _thaw(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_thaw(item) for item in value]
    return value


_thaw_safely = stack_safe(_thaw)

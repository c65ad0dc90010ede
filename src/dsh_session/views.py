"""Read-only, O(1) views over append-only lists: the log and the derived history.

A view fixes its length when it is made, so later appends to the underlying
list never show through, and it offers no way to change anything. Taking one
costs nothing however long the list, which is what lets ``events`` and
``derive_messages()`` stay O(1) per call.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Generic, TypeVar, overload

from dsh_session._frozen import thaw
from dsh_session.json_value import decode

T = TypeVar("T")


class ListView(Sequence[T], Generic[T]):
    """An immutable snapshot of the first ``length`` items of a list."""

    __slots__ = ("_items", "_length")

    def __init__(self, items: list[Any], length: int | None = None) -> None:
        self._items = items
        self._length = len(items) if length is None else length

    def __len__(self) -> int:
        return self._length

    def _item(self, stored: Any) -> T:
        return stored  # type: ignore[no-any-return]

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...
    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(map(self._item, self._items[: self._length][index]))
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("view index out of range")
        return self._item(self._items[index])

    def __iter__(self) -> Iterator[T]:
        items, item = self._items, self._item
        for index in range(self._length):
            yield item(items[index])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ListView | list | tuple):
            return len(other) == self._length and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"

    def to_json(self) -> list[Any]:
        """A plain, mutable deep copy: JSON values for messages, records for events."""
        return [item.to_json() if hasattr(item, "to_json") else thaw(item) for item in self]


class EventLog(ListView[T]):
    """The session's log as of the moment it was read."""

    __slots__ = ()


class MessageList(ListView[T]):
    """The derived message history as of the moment it was derived.

    The messages are held as their canonical JSON text; each read of an item
    decodes a fresh, plain copy, so nothing a caller does to it reaches the
    session. :meth:`text` gives the whole history as one JSON array, as the
    TypeScript harness would write it, without decoding anything.
    """

    __slots__ = ()

    def _item(self, stored: Any) -> T:
        return decode(stored)  # type: ignore[no-any-return]

    def to_json(self) -> list[Any]:
        """The messages as fresh, plain JSON values."""
        return [decode(text) for text in self._items[: self._length]]

    def texts(self) -> tuple[bytes, ...]:
        """Each message's canonical JSON text (UTF-8), head to tail."""
        return tuple(self._items[: self._length])

    def text(self) -> bytes:
        """The history as the canonical JSON text of one array (UTF-8)."""
        return b"[" + b",".join(self._items[: self._length]) + b"]"

"""The surface: which events currently produce the message history, in order.

The surface is a sequence of event seqs, head to tail. It is the left fold of
the log under one step:

- an event that is not surface-eligible, or carries no marker, changes nothing;
- ``append`` puts the event's seq at the tail;
- ``replace(start, end)`` takes the inclusive range from the position of
  ``start`` to the position of ``end`` out and puts the event's seq in its
  place. Both endpoints must be on the surface and ``start`` must not come
  after ``end`` by position (seq order does not matter). Each folded replace
  adds one to the replace generation.

The linked-list view (``prev`` / ``next``) is derived from the order.

The ``pre:`` / ``post:`` lines in the docstrings below are contracts (PEP 316
syntax) that CrossHair checks symbolically (``tests/test_crosshair.py``).
``__return__`` is the result; ``a or b`` reads "a, else b must hold".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from dsh_spec.codes import Code
from dsh_spec.events import APPEND, Event, Replace, SurfaceOp, is_surface_type
from dsh_spec.rejection import Rejection


@dataclass(frozen=True)
class Surface:
    """The folded surface: seqs head to tail, and how many replaces were folded."""

    order: tuple[int, ...] = ()
    generation: int = 0


class SurfaceNode(NamedTuple):
    """One surface node with its neighbours' seqs (``None`` at the ends)."""

    seq: int
    prev: int | None
    next: int | None


def position(order: tuple[int, ...], seq: object) -> int | None:
    """Where ``seq`` sits on the surface, or ``None``. Only a real ``int`` matches."""
    if type(seq) is not int:
        return None
    for index, member in enumerate(order):
        if member == seq:
            return index
    return None


def replace_range(order: tuple[int, ...], seq: int, op: Replace) -> tuple[int, int] | Rejection:
    """The positions ``(first, last)`` a replace at ``seq`` covers, or why it cannot.

    pre: len(set(order)) == len(order)
    post: isinstance(__return__, Rejection) or 0 <= __return__[0] <= __return__[1] < len(order)
    post: isinstance(__return__, Rejection) or (order[__return__[0]], order[__return__[1]]) == (op.start, op.end)
    post: not isinstance(__return__, Rejection) or __return__.seq == seq
    """  # noqa: E501 (a contract is one line)
    return span(order, op.start, op.end, seq, "replace")


def span(
    order: tuple[int, ...], start: object, end: object, seq: int | None, what: str
) -> tuple[int, int] | Rejection:
    """The positions ``(first, last)`` of the surface region from seq ``start`` to seq ``end``, or
    why there is none (a rejection at ``seq``; ``what`` names the region in its message: a
    ``replace``'s, or a ``region`` a caller asks about)."""
    first = position(order, start)
    if first is None:
        return Rejection(
            Code.REPLACE_START_NOT_ON_SURFACE, seq, f"{what} start seq {_shown(start)} is not on the surface"
        )
    last = position(order, end)
    if last is None:
        return Rejection(
            Code.REPLACE_END_NOT_ON_SURFACE, seq, f"{what} end seq {_shown(end)} is not on the surface"
        )
    if first > last:
        return Rejection(
            Code.REPLACE_RANGE_REVERSED,
            seq,
            f"{what} start seq {_shown(start)} (position {first}) comes after end seq {_shown(end)} "
            f"(position {last}) on the surface",
        )
    return first, last


def shadowed(order: tuple[int, ...], seq: int, op: Replace) -> tuple[int, ...] | Rejection:
    """The seqs a replace at ``seq`` would take off the surface, in surface order."""
    span = replace_range(order, seq, op)
    if isinstance(span, Rejection):
        return span
    first, last = span
    return order[first : last + 1]


def _shown(seq: object) -> str:
    """``seq`` as a message names it: an ``int`` as its digits, anything else as its ``repr``.

    Formatted, not ``str()``-ed: with ``str()`` CrossHair's search no longer finds the planted
    off-by-one replace in its budget (``tests/test_crosshair.py``)."""
    return f"{seq}" if type(seq) is int else repr(seq)


def marker(event: Event) -> SurfaceOp | None:
    """The surface operation folding ``event`` performs: its marker, if its type is surface-eligible."""
    return event.surface_op if is_surface_type(event.type) else None


def step(surface: Surface, event: Event) -> Surface | Rejection:
    """Fold one event into the surface.

    pre: len(set(surface.order)) == len(surface.order) and event.seq not in surface.order
    post: marker(event) is not None or __return__ == surface
    post: marker(event) != APPEND or __return__ == Surface((*surface.order, event.seq), surface.generation)
    post: isinstance(marker(event), Replace) or not isinstance(__return__, Rejection)
    """
    op = marker(event)
    if op is None:
        return surface
    if op == APPEND:
        return Surface(surface.order + (event.seq,), surface.generation)
    return fold_replace(surface, event.seq, op)


def fold_replace(before: Surface, seq: int, op: Replace) -> Surface | Rejection:
    """The surface after a replace at ``seq``: the range ``op`` gives way to ``seq``, in its place.

    pre: len(set(before.order)) == len(before.order) and seq not in before.order
    post: isinstance(__return__, Rejection) or __return__.generation == before.generation + 1
    post: isinstance(__return__, Rejection) or len(set(__return__.order)) == len(__return__.order)
    post: isinstance(__return__, Rejection) or __return__.order.index(seq) == before.order.index(op.start)
    post: isinstance(__return__, Rejection) or len(before.order) - len(__return__.order) == _width(before, op) - 1
    post: isinstance(__return__, Rejection) or set(__return__.order) - {seq} <= set(before.order) - {op.start, op.end}
    post: not isinstance(__return__, Rejection) or (__return__.seq, __return__.code) == (seq, _refusal(before, op))
    """  # noqa: E501 (a contract is one line)
    span = replace_range(before.order, seq, op)
    if isinstance(span, Rejection):
        return span
    first, last = span
    order = before.order[:first] + (seq,) + before.order[last + 1 :]
    return Surface(order, before.generation + 1)


def _width(before: Surface, op: Replace) -> int:
    """How many nodes the range ``op`` spans on ``before`` (for contracts; the endpoints are on it)."""
    return before.order.index(op.end) - before.order.index(op.start) + 1


def _refusal(before: Surface, op: Replace) -> Code:
    """The code a replace of ``op`` over ``before`` is refused with (for contracts), stated directly."""
    if op.start not in before.order:
        return Code.REPLACE_START_NOT_ON_SURFACE
    if op.end not in before.order:
        return Code.REPLACE_END_NOT_ON_SURFACE
    return Code.REPLACE_RANGE_REVERSED


def fold_surface(events: Iterable[Event]) -> Surface | Rejection:
    """The surface of a log: the left fold of :func:`step` from the empty surface.

    pre: isinstance(events, (list, tuple)) and len({e.seq for e in events}) == len(events)
    post: isinstance(__return__, Rejection) or len(set(__return__.order)) == len(__return__.order)
    post: isinstance(__return__, Rejection) or __return__.generation == len([e for e in events if isinstance(marker(e), Replace)])
    post: isinstance(__return__, Rejection) or set(__return__.order) <= {e.seq for e in events if marker(e) is not None}
    """  # noqa: E501 (a contract is one line)
    surface = Surface()
    for event in events:
        folded = step(surface, event)
        if isinstance(folded, Rejection):
            return folded
        surface = folded
    return surface


def surface_nodes(surface: Surface) -> tuple[SurfaceNode, ...]:
    """The surface as linked nodes, head to tail.

    post: [node.seq for node in __return__] == list(surface.order)
    post: all(a.next == b.seq and b.prev == a.seq for a, b in zip(__return__, __return__[1:]))
    post: not __return__ or (__return__[0].prev, __return__[-1].next) == (None, None)
    """
    order = surface.order
    return tuple(
        SurfaceNode(
            seq,
            order[index - 1] if index > 0 else None,
            order[index + 1] if index + 1 < len(order) else None,
        )
        for index, seq in enumerate(order)
    )

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
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from dsh_spec.codes import Code
from dsh_spec.events import APPEND, Event, Replace, is_surface_type
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
    """The positions ``(first, last)`` a replace at ``seq`` covers, or why it cannot."""
    first = position(order, op.start)
    if first is None:
        return Rejection(
            Code.REPLACE_START_NOT_ON_SURFACE,
            seq,
            f"replace start seq {op.start} is not on the surface",
        )
    last = position(order, op.end)
    if last is None:
        return Rejection(
            Code.REPLACE_END_NOT_ON_SURFACE, seq, f"replace end seq {op.end} is not on the surface"
        )
    if first > last:
        return Rejection(
            Code.REPLACE_RANGE_REVERSED,
            seq,
            f"replace start seq {op.start} (position {first}) comes after end seq {op.end} "
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


def step(surface: Surface, event: Event) -> Surface | Rejection:
    """Fold one event into the surface."""
    op = event.surface_op
    if op is None or not is_surface_type(event.type):
        return surface
    if op == APPEND:
        return Surface(surface.order + (event.seq,), surface.generation)
    assert isinstance(op, Replace)
    span = replace_range(surface.order, event.seq, op)
    if isinstance(span, Rejection):
        return span
    first, last = span
    order = surface.order[:first] + (event.seq,) + surface.order[last + 1 :]
    return Surface(order, surface.generation + 1)


def fold_surface(events: Iterable[Event]) -> Surface | Rejection:
    """The surface of a log: the left fold of :func:`step` from the empty surface."""
    surface = Surface()
    for event in events:
        folded = step(surface, event)
        if isinstance(folded, Rejection):
            return folded
        surface = folded
    return surface


def surface_nodes(surface: Surface) -> tuple[SurfaceNode, ...]:
    """The surface as linked nodes, head to tail."""
    order = surface.order
    return tuple(
        SurfaceNode(
            seq,
            order[index - 1] if index > 0 else None,
            order[index + 1] if index + 1 < len(order) else None,
        )
        for index, seq in enumerate(order)
    )

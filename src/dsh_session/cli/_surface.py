"""What each replace on a log's surface shadowed, worked out by folding the log again."""

from __future__ import annotations

from collections.abc import Iterable

from dsh_session.event import SURFACE_TYPES, Event, Replace
from dsh_session.surface import SurfaceManager

__all__ = ["shadowed_by_replace"]


def shadowed_by_replace(events: Iterable[Event]) -> dict[int, list[int]]:
    """For every replace event of an admitted log: the seqs it took off the surface, head to tail."""
    log: list[Event] = []
    surface = SurfaceManager(log)
    found: dict[int, list[int]] = {}
    for event in events:
        op = event.surface_op
        if isinstance(op, Replace) and event.type in SURFACE_TYPES:
            span = surface.shadowed(op.start, op.end)
            assert span is not None, "an admitted replace spans a range of the surface"
            found[event.seq] = list(span)
        log.append(event)
    return found

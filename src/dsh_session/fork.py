"""Choosing the seed of a forked session: the parent's events up to a ``turn/end``.

The store's :meth:`~dsh_session.SessionStore.fork` resolves the parent and
builds the child; this module holds the error type and the boundary rules
(the reference's checks, in its order).
"""

from __future__ import annotations

import math

from dsh_session.errors import Code, DshSessionError
from dsh_session.event import Event
from dsh_session.js_json import js_number
from dsh_session.session import Session

__all__ = ["SessionForkError"]

_MAX_SAFE = 2**53 - 1


class SessionForkError(DshSessionError):
    """A fork was refused and nothing was created.

    ``code`` is one of ``SESSION_NOT_FOUND``, ``SESSION_NOT_LIVE``,
    ``SESSION_ALREADY_EXISTS``, ``INVALID_BOUNDARY``, ``OPEN_TURN``;
    ``session_id`` names the session concerned (the source, or the taken child
    id); ``seq`` is the boundary when it names an event.
    """

    def __init__(self, code: Code, message: str, *, session_id: str, seq: int | None = None) -> None:
        super().__init__(code, message, seq=seq)
        self.session_id = session_id


def _js_text(value: object) -> str:
    """``String(value)`` as JavaScript renders a number, for messages."""
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is float and not math.isfinite(value):
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if type(value) is int or type(value) is float:
        return js_number(value)
    return str(value)


def fork_prefix(source: Session, boundary: int | float | None) -> tuple[Event, ...]:
    """The events a child forked from ``source`` through ``boundary`` starts with.

    ``None`` means the last event (an empty source gives an empty seed). The
    events are the parent's own immutable records: sharing them is a copy.
    """
    events = source.events
    sid = source.id
    if boundary is None:
        if not events:
            return ()
        boundary = events[-1].seq
    cut: int | None = None
    if type(boundary) is int:
        cut = boundary
    elif type(boundary) is float and boundary.is_integer():
        cut = int(boundary)
    if cut is None or cut < 0 or cut > _MAX_SAFE:
        raise SessionForkError(
            Code.INVALID_BOUNDARY,
            f'fork boundary for session "{sid}" must be a non-negative safe integer, '
            f"got {_js_text(boundary)}",
            session_id=sid,
        )
    if cut >= len(events):
        last = str(events[-1].seq) if events else "none"
        raise SessionForkError(
            Code.INVALID_BOUNDARY,
            f'fork boundary {cut} does not exist in session "{sid}" (last seq: {last})',
            session_id=sid,
        )
    end = events[cut]
    if end.seq != cut:  # pragma: no cover - an admitted log is contiguous
        raise SessionForkError(
            Code.INVALID_BOUNDARY,
            f'fork boundary {cut} does not match a contiguous event seq in session "{sid}"',
            session_id=sid,
            seq=cut,
        )
    if end.type != "turn/end":
        raise SessionForkError(
            Code.OPEN_TURN,
            f'fork boundary {cut} in session "{sid}" must be turn/end, got {end.type}',
            session_id=sid,
            seq=cut,
        )
    return events[: cut + 1]

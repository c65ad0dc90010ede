"""Tool pairing: may the message history be cut at a surface point without
splitting a tool call from its result?

Calls are the ``tool-call`` blocks of ``assistant/message`` nodes, results
the ``tool/result`` nodes; they pair **by id** (``block["id"] ==
data["callId"]``), the result after its call on the surface. The log is
*balanced* at a cut when every call before it has its result before it. A
result with no unanswered call of its id before it means the surface is
corrupt: :class:`~dsh_session.ToolPairingError` with code
``TOOL_PAIRING_CORRUPT``, raised only when that result lies before the cut.

``nodes`` is the surface head to tail (a session's ``surface`` or its
``surface.nodes``), ``events`` the log, indexed by seq (a session's ``events``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from dsh_session.errors import Code, ToolPairingError
from dsh_session.event import Event, SurfaceNode

__all__ = ["region_balanced", "tool_pairing_balanced"]

#: Stands for the id of a call block whose ``id`` is not a string: no result can answer it.
_NO_ID = object()


def tool_pairing_balanced(
    nodes: Iterable[SurfaceNode], events: Sequence[Event], before: int | None = None
) -> bool:
    """True when the log is balanced at the cut just before surface seq ``before``.

    ``None``, or a seq that is not on the surface, asks about the cut after
    the tail (the whole surface).
    """
    target = before if type(before) is int else None
    unanswered: dict[object, int] = {}
    open_calls = 0
    for node in nodes:
        seq = node.seq
        if seq == target:
            break
        event = events[seq]
        kind = event.type
        if kind == "assistant/message":
            for block in event.data["content"]:
                if block.get("type") == "tool-call":
                    call_id = block.get("id")
                    key = call_id if type(call_id) is str else _NO_ID
                    unanswered[key] = unanswered.get(key, 0) + 1
                    open_calls += 1
        elif kind == "tool/result":
            call_id = event.data["callId"]
            waiting = unanswered.get(call_id, 0) if type(call_id) is str else 0
            if not waiting:
                raise ToolPairingError(
                    Code.TOOL_PAIRING_CORRUPT,
                    f"tool/result at surface seq {seq} answers call {call_id!r}, which no tool call "
                    f"before it on the surface left unanswered (corrupt surface)",
                    seq=seq,
                )
            unanswered[call_id] = waiting - 1
            open_calls -= 1
    return open_calls == 0


def region_balanced(nodes: Iterable[SurfaceNode], events: Sequence[Event], start: int, end: int) -> bool:
    """True when the surface region ``start``..``end`` (by position) may be collapsed:
    the log is balanced both at the cut before ``start`` and at the cut after ``end``.

    The cut before ``start`` is judged first; when it is unbalanced the other
    is not looked at. A region that is not a range of the surface raises
    :class:`~dsh_session.ToolPairingError` with the matching ``REPLACE_*`` code.
    """
    order = list(nodes)
    first = last = None
    for index, node in enumerate(order):
        if type(start) is int and node.seq == start:
            first = index
        if type(end) is int and node.seq == end:
            last = index
    if first is None:
        raise ToolPairingError(
            Code.REPLACE_START_NOT_ON_SURFACE, f"region start seq {start!r} is not on the surface"
        )
    if last is None:
        raise ToolPairingError(
            Code.REPLACE_END_NOT_ON_SURFACE, f"region end seq {end!r} is not on the surface"
        )
    if first > last:
        raise ToolPairingError(
            Code.REPLACE_RANGE_REVERSED,
            f"region start seq {start!r} (position {first}) comes after end seq {end!r} "
            f"(position {last}) on the surface",
        )
    if not tool_pairing_balanced(order, events, start):
        return False
    return tool_pairing_balanced(order, events, order[last].next)

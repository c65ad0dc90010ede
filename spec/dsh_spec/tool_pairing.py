"""Tool pairing on the surface: can the history be cut here without splitting a call from its result?

A *call* is a ``tool-call`` content block of an ``assistant/message`` node; a
*result* is a ``tool/result`` node. They pair **by id** -- the block's ``id``
equals the result's ``data.callId`` -- and a result must come after its call
on the surface. (The reference counts blocks against results and never looks
at ids, so it calls ``[call c1, result c2]`` balanced; see
``docs/deviations.md``.)

The *cut before* a surface seq ``s`` is the point just before the node ``s``;
any other ``s`` -- ``None``, or a seq not on the surface -- is the cut after
the tail. The log is **balanced** at a cut when every call before it has its
result before it. Walking the surface head to tail, a result with no
unanswered call of its id before it means the surface is corrupt
(``TOOL_PAIRING_CORRUPT``); that is reported only when the result lies before
the cut asked about.

A region ``[start..end]`` of the surface (by position, as a replace names it)
may be collapsed into one node only when the log is balanced at the cut before
``start`` and at the cut after ``end`` (before the node after ``end``, or after
the tail). The first cut is judged first: when it is unbalanced, the second
is not looked at.
"""

from __future__ import annotations

from collections.abc import Iterable

from dsh_spec.codes import Code
from dsh_spec.events import Event
from dsh_spec.json_value import Json
from dsh_spec.rejection import Rejection
from dsh_spec.surface import fold_surface, span


def call_ids(event: Event) -> tuple[Json, ...]:
    """The ids of the tool calls an event makes: its ``tool-call`` blocks, if it is an assistant message."""
    data = event.data
    if event.type != "assistant/message" or not isinstance(data, dict):
        return ()
    content = data.get("content")
    if not isinstance(content, list):
        return ()
    return tuple(
        block.get("id") for block in content if isinstance(block, dict) and block.get("type") == "tool-call"
    )


def answered_id(event: Event) -> str | None:
    """The call id a ``tool/result`` answers; ``None`` for any other event."""
    data = event.data
    if event.type != "tool/result" or not isinstance(data, dict):
        return None
    call_id = data.get("callId")
    return call_id if isinstance(call_id, str) else None


def tool_pairing_balanced(events: Iterable[Event], before: object = None) -> bool | Rejection:
    """Whether the log is balanced at the cut before surface seq ``before`` (see the module notes)."""
    log = tuple(events)
    surface = fold_surface(log)
    if isinstance(surface, Rejection):
        return surface
    by_seq = {event.seq: event for event in log}
    unanswered: list[Json] = []  # the ids of the calls made and not answered yet, as a multiset
    for seq in surface.order:
        if type(before) is int and seq == before:
            break
        event = by_seq[seq]
        unanswered.extend(call_ids(event))
        if event.type == "tool/result":
            call_id = answered_id(event)
            if call_id is None or call_id not in unanswered:
                return Rejection(
                    Code.TOOL_PAIRING_CORRUPT,
                    seq,
                    f"tool/result at surface seq {seq} answers call {call_id!r}, which no tool call "
                    f"before it on the surface left unanswered (corrupt surface)",
                )
            unanswered.remove(call_id)
    return not unanswered


def region_balanced(events: Iterable[Event], start: object, end: object) -> bool | Rejection:
    """Whether the surface region ``start``..``end`` may be collapsed without splitting a pair."""
    log = tuple(events)
    surface = fold_surface(log)
    if isinstance(surface, Rejection):
        return surface
    order = surface.order
    region = span(order, start, end, None, "region")
    if isinstance(region, Rejection):
        return region
    last = region[1]
    at_start = tool_pairing_balanced(log, start)
    if at_start is not True:
        return at_start
    after_end = order[last + 1] if last + 1 < len(order) else None
    return tool_pairing_balanced(log, after_end)

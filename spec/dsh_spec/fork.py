"""Fork: the prefix of a log a child session is seeded with.

A fork cuts a log right after a ``turn/end``: the child starts with events
``0 .. boundary`` of its parent and nothing of a turn still open. The boundary
is an event seq; omitted, it is the last event (an empty log forks to an
empty seed). The checks and their order are the reference's:

1. ``INVALID_BOUNDARY``: the boundary is not a non-negative safe integer
   (``bool`` never is; an integral float is its integer, as in JavaScript);
2. ``INVALID_BOUNDARY``: no event has that index;
3. ``INVALID_BOUNDARY``: the event at that index has another seq;
4. ``OPEN_TURN``: the event at the boundary is not ``turn/end``.

Then, beyond the reference: the prefix must itself be a valid seed (the rules
of :func:`dsh_spec.validation.check_seed`), so a fork that passes never fails
when the child is built. Source and child-id rules live with the store.
"""

from __future__ import annotations

import math

from dsh_spec.codes import Code
from dsh_spec.events import Event, event_json
from dsh_spec.json_value import js_number
from dsh_spec.rejection import Rejection
from dsh_spec.validation import check_seed

#: ``Number.MAX_SAFE_INTEGER``.
MAX_SAFE_INTEGER = 2**53 - 1


def safe_boundary(boundary: object) -> int | None:
    """The boundary as an int when it is a non-negative safe integer, else ``None``."""
    if type(boundary) is float and math.isfinite(boundary) and boundary.is_integer():
        boundary = int(boundary)
    if type(boundary) is not int or not 0 <= boundary <= MAX_SAFE_INTEGER:
        return None
    return boundary


def render(value: object) -> str:
    """A value as JavaScript's ``String(value)`` writes it, for messages."""
    if type(value) is int or type(value) is float:
        return js_number(value)
    if value is None:
        return "undefined"
    if type(value) is bool:
        return "true" if value else "false"
    return str(value)


def fork_seed(
    events: tuple[Event, ...], boundary: object = None, session: str = ""
) -> tuple[Event, ...] | Rejection:
    """The seed of a child forked from ``events`` through ``boundary`` (inclusive).

    ``session`` names the source in messages.
    """
    if boundary is None:
        if not events:
            return ()
        boundary = events[-1].seq
    cut = safe_boundary(boundary)
    if cut is None:
        return Rejection(
            Code.INVALID_BOUNDARY,
            None,
            f'fork boundary for session "{session}" must be a non-negative safe integer, '
            f"got {render(boundary)}",
        )
    if cut >= len(events):
        last = render(events[-1].seq) if events else "none"
        return Rejection(
            Code.INVALID_BOUNDARY,
            None,
            f'fork boundary {cut} does not exist in session "{session}" (last seq: {last})',
        )
    if events[cut].seq != cut:
        return Rejection(
            Code.INVALID_BOUNDARY,
            cut,
            f'fork boundary {cut} does not match a contiguous event seq in session "{session}"',
        )
    if events[cut].type != "turn/end":
        return Rejection(
            Code.OPEN_TURN,
            cut,
            f'fork boundary {cut} in session "{session}" must be turn/end, got {events[cut].type}',
        )
    return check_seed([event_json(event) for event in events[: cut + 1]])

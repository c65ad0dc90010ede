"""The event record, surface operations and the fixed vocabulary.

An event is ``{type, seq, time, data, sourceEventSeqs?, surfaceOp?}``. The two
surface fields are optional: in this record ``None`` means the key is absent.
JSON ``null`` is never a valid value for either, so the distinction between
absent and null lives at the JSON boundary (:func:`dsh_spec.validation.parse_record`
refuses a present ``null``), not in the record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from dsh_spec.json_value import Json

#: The on-disk session format version. Every other version is refused.
SESSION_FORMAT_VERSION = 0

#: The event types that may sit on the surface and produce a message.
SURFACE_TYPES: frozenset[str] = frozenset(
    {"user/message", "assistant/message", "tool/result", "context/message", "steering/message"}
)

#: The keys an event record may carry, in the order ``append`` writes them.
EVENT_KEYS = ("type", "seq", "time", "data", "sourceEventSeqs", "surfaceOp")

APPEND: Literal["append"] = "append"


@dataclass(frozen=True)
class Replace:
    """``{op: 'replace', start, end}``: swap the inclusive surface range for the new node.

    ``start`` and ``end`` are seqs of nodes on the surface; the range is taken
    by surface position, so ``start > end`` numerically is fine when ``start``
    comes first on the surface.
    """

    start: int
    end: int


SurfaceOp: TypeAlias = Literal["append"] | Replace


@dataclass(frozen=True)
class Event:
    """One logged event. ``data`` is a canonical JSON value (see ``json_value``)."""

    type: str
    seq: int
    time: int
    data: Json
    source_event_seqs: tuple[int, ...] | None = None
    surface_op: SurfaceOp | None = None


def is_surface_type(event_type: object) -> bool:
    """True when events of this type may carry a surface marker."""
    return isinstance(event_type, str) and event_type in SURFACE_TYPES


def surface_op_json(op: SurfaceOp) -> Json:
    """The JSON spelling of a surface operation."""
    if isinstance(op, Replace):
        return {"op": "replace", "start": op.start, "end": op.end}
    return op


def event_json(event: Event) -> dict[str, Json]:
    """The event as a JSON object, keys in the order ``append`` writes them."""
    out: dict[str, Json] = {
        "type": event.type,
        "seq": event.seq,
        "time": event.time,
        "data": event.data,
    }
    if event.source_event_seqs is not None:
        out["sourceEventSeqs"] = list(event.source_event_seqs)
    if event.surface_op is not None:
        out["surfaceOp"] = surface_op_json(event.surface_op)
    return out

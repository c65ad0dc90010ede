"""Events, surface operations and session headers: the values the log is made of."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal, NamedTuple

from dsh_session._frozen import thaw

#: The on-disk session format version; every other version is refused.
SESSION_FORMAT_VERSION: Final = 0

#: Event types that may sit on the surface and produce a message.
SURFACE_TYPES: Final = frozenset(
    {"user/message", "assistant/message", "tool/result", "context/message", "steering/message"}
)

APPEND: Final = "append"

#: The top-level keys of an event record in the order ``Session.append`` writes them.
EVENT_KEY_ORDER: Final = ("type", "seq", "time", "data", "sourceEventSeqs", "surfaceOp")


class Replace(NamedTuple):
    """``{op: 'replace', start, end}``: the inclusive surface range ``start``..``end``
    (by position, not seq order) gives way to the new node."""

    start: int
    end: int

    def to_json(self) -> dict[str, Any]:
        return {"op": "replace", "start": self.start, "end": self.end}


SurfaceOp = Literal["append"] | Replace


@dataclass(frozen=True, slots=True)
class Event:
    """One logged event.

    In a session's log, ``data`` is a frozen canonical JSON value and the
    record cannot be changed. ``None`` in ``source_event_seqs`` or
    ``surface_op`` means the key is absent (``null`` is never valid there).

    ``key_order`` is the order of the record's top-level keys when it is not
    :data:`EVENT_KEY_ORDER` (crash closers put ``surfaceOp`` before
    ``sourceEventSeqs``; a loaded JSONL line keeps the order it was written
    in). It only affects :meth:`to_json` and the bytes a backend writes, never
    equality.
    """

    type: str
    seq: int
    time: int
    data: Any
    source_event_seqs: tuple[int, ...] | None = None
    surface_op: SurfaceOp | None = None
    key_order: tuple[str, ...] | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """A plain, mutable JSON record, keys in the event's order (see ``key_order``)."""
        out: dict[str, Any] = {
            "type": self.type,
            "seq": self.seq,
            "time": self.time,
            "data": thaw(self.data),
        }
        if self.source_event_seqs is not None:
            out["sourceEventSeqs"] = list(self.source_event_seqs)
        if self.surface_op is not None:
            op = self.surface_op
            out["surfaceOp"] = op.to_json() if isinstance(op, Replace) else op
        order = self.key_order
        if order is None:
            return out
        ordered = {key: out[key] for key in order if key in out}
        ordered.update(out)
        return ordered


class SurfaceNode(NamedTuple):
    """A surface node and its neighbours' seqs (``None`` at either end)."""

    seq: int
    prev: int | None
    next: int | None


@dataclass(frozen=True, slots=True)
class SessionHeader:
    """Out-of-log metadata; ``None`` fields are absent from the JSON form."""

    id: str
    created_at: int
    version: int = SESSION_FORMAT_VERSION
    cwd: str | None = None
    parent_session: str | None = None
    seed_length: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The header as the reference writes it: ``version, id, createdAt, cwd?,
        parentSession?, seedLength?``."""
        out: dict[str, Any] = {"version": self.version, "id": self.id, "createdAt": self.created_at}
        if self.cwd is not None:
            out["cwd"] = self.cwd
        if self.parent_session is not None:
            out["parentSession"] = self.parent_session
        if self.seed_length is not None:
            out["seedLength"] = self.seed_length
        return out

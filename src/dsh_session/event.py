"""Events, surface operations and session headers: the values the log is made of."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple

import msgspec

from dsh_session._frozen import thaw
from dsh_session.json_value import CANONICAL, canonical_stored, decode, encode

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


class JsonNull:
    """The type of :data:`NULL`: JSON ``null`` given on purpose where ``None`` means "absent"."""

    __slots__ = ()
    _one: JsonNull | None = None

    def __new__(cls) -> JsonNull:
        if cls._one is None:
            cls._one = super().__new__(cls)
        return cls._one

    def __repr__(self) -> str:
        return "NULL"

    def __reduce__(self) -> str:
        return "NULL"  # pickles as this module's NULL: there is one


#: A present JSON ``null`` for ``Session.append``'s ``surface_op`` or
#: ``source_event_seqs`` (``None`` leaves the key out): the event is refused
#: exactly as a record holding ``"surfaceOp": null`` is.
NULL: Final = JsonNull()


class Event(msgspec.Struct, frozen=True, eq=False):
    """One logged event.

    In a session's log, an event's payload is held as its canonical JSON text
    (the bytes a backend writes), and ``data`` is a fresh, plain copy decoded
    from it on every access: changing what it returns changes nothing in the
    log. An event built by hand holds ``data`` as given; it is checked and
    encoded when it enters a log (a seed, a backend). ``None`` in
    ``source_event_seqs`` or ``surface_op`` means the key is absent (``null``
    is never valid there).

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
    key_order: tuple[str, ...] | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (
            self.seq == other.seq
            and self.type == other.type
            and self.time == other.time
            and self.source_event_seqs == other.source_event_seqs
            and self.surface_op == other.surface_op
            and (_payload(self) == _payload(other) or self.data == other.data)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Event(type={self.type!r}, seq={self.seq!r}, time={self.time!r}, data={self.data!r}, "
            f"source_event_seqs={self.source_event_seqs!r}, surface_op={self.surface_op!r})"
        )

    def to_json(self) -> dict[str, Any]:
        """A plain, mutable JSON record, keys in the event's order (see ``key_order``)."""
        out: dict[str, Any] = {
            "type": self.type,
            "seq": self.seq,
            "time": self.time,
            "data": self.data if type(self) is LoggedEvent else thaw(self.data),
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


class LoggedEvent(Event, frozen=True, eq=False, gc=False):
    """An event as a log holds it: its ``data`` slot holds the payload's canonical JSON
    text (:func:`~dsh_session.json_value.encode`), and ``data`` decodes a fresh copy.

    Made only by admission, which has checked and encoded the payload. Nothing
    it holds refers to a container, so the cyclic garbage collector never
    tracks it: a log of any length adds nothing for the collector to walk.
    ``_form`` says how the slot holds the text (``json_value.CANONICAL``, or
    as a load read it: ``STORED``, ``STORED_RECORD``); ``text`` and ``data``
    put it in canonical form the first time they are asked.
    """

    _form: int = CANONICAL

    @property
    def text(self) -> bytes:
        """The payload's canonical JSON text, as a backend writes it."""
        return _canonical(self)


def payload_text(event: Event) -> bytes:
    """The canonical JSON text of ``event``'s payload (what a backend writes for ``data``).

    A logged event holds it; an event built by hand has its ``data`` checked and
    encoded (:class:`~dsh_session.NotJsonError` if it is not JSON).
    """
    if type(event) is LoggedEvent:
        return _canonical(event)
    return encode(event.data)


#: The ``data`` slot itself, under the property that decodes it, and the text's form.
_slot = Event.__dict__["data"]
_raw = _slot.__get__
_form_slot = LoggedEvent.__dict__["_form"]
_form_of = _form_slot.__get__


def _canonical(event: LoggedEvent) -> bytes:
    """A logged event's canonical payload text; a payload kept as a load read it is put in
    canonical form now, once."""
    text: bytes = _raw(event)
    form = _form_of(event)
    if form:
        text = canonical_stored(text, form)
        # The same value, now in canonical form: frozen as far as anyone sees.
        _slot.__set__(event, text)
        _form_slot.__set__(event, CANONICAL)
    return text


def held(event: LoggedEvent) -> tuple[bytes, int] | None:
    """The payload text a logged event holds, as it is, and its form (canonical, or as a load
    read it: see ``_form``); ``None`` if its slot holds anything but ``bytes`` (a
    ``LoggedEvent`` made by hand, or a canonical text only JavaScript's reading takes). For
    admission, which need not look at a log-only payload a log already holds."""
    text = _raw(event)
    return (text, _form_of(event)) if text.__class__ is bytes else None


def _payload(event: Event) -> Any:
    """What equality compares first: a logged event's canonical text, a built one's data."""
    return _canonical(event) if type(event) is LoggedEvent else _raw(event)


def _decoded(event: LoggedEvent) -> Any:
    return decode(_canonical(event))


setattr(LoggedEvent, "data", property(_decoded, doc="A fresh, plain copy of the payload."))  # noqa: B010


class SurfaceNode(NamedTuple):
    """A surface node and its neighbours' seqs (``None`` at either end)."""

    seq: int
    prev: int | None
    next: int | None

    def to_json(self) -> dict[str, Any]:
        """``{"seq", "prev", "next"}``, ``null`` at either end."""
        return {"seq": self.seq, "prev": self.prev, "next": self.next}


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

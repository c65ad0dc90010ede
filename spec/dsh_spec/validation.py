"""What the log admits: the rules an event must pass to be appended or seeded.

One function, :func:`admit`, states every rule, in the order they are checked;
the first rule broken is the one reported. ``append`` and seeding apply the
same rules -- a seed is the empty log with its events admitted one by one --
so a log that was built by appends can always be re-seeded, and nothing else
can be. Record-level rules (the shape of a stored event and its seq) come
first for seeds, in :func:`parse_record`.

Order of the rules for one event:

1. ``MALFORMED_EVENT``: ``type`` is a non-empty string, ``time`` an integer;
2. ``NON_JSON_DATA`` / ``DATA_TOO_DEEP``: ``data`` satisfies the JSON-value
   rule, nesting at most 200 containers (the first problem a depth-first walk
   meets);
3. for a log-only type: ``PROVENANCE_ON_LOG_ONLY_TYPE``, then
   ``SURFACE_OP_ON_LOG_ONLY_TYPE`` -- and nothing more;
4. for a surface-eligible type: ``MISSING_SURFACE_OP``, ``MALFORMED_SURFACE_OP``,
   ``MALFORMED_PROVENANCE``, ``PROVENANCE_EMPTY``, ``PROVENANCE_DUPLICATE``,
   then per provenance entry in order ``PROVENANCE_NOT_EARLIER`` /
   ``PROVENANCE_UNKNOWN_SEQ``, then ``INVALID_PAYLOAD``, then for a replace
   ``REPLACE_START_NOT_ON_SURFACE``, ``REPLACE_END_NOT_ON_SURFACE``,
   ``REPLACE_RANGE_REVERSED``, ``REPLACE_PROVENANCE_INCOMPLETE``.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass
from typing import Final, TypeVar

from dsh_spec.codes import Code
from dsh_spec.events import (
    APPEND,
    EVENT_KEYS,
    Event,
    Replace,
    SurfaceOp,
    is_surface_type,
)
from dsh_spec.json_value import Json, NotJson, TooDeep, canonical_json, canonical_number
from dsh_spec.rejection import Rejection
from dsh_spec.surface import Surface, fold_surface, shadowed, step

_State = TypeVar("_State")  # what a seed's fold carries from one record to the next


class _Absent:
    """The type of :data:`ABSENT`."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"


#: A key that is not there at all (as opposed to JSON ``null``, which is ``None``).
ABSENT: Final = _Absent()


@dataclass(frozen=True)
class Draft:
    """An event as offered, before any rule has looked at it. Fields are raw."""

    type: object
    time: object
    data: object
    surface_op: object = ABSENT
    source_event_seqs: object = ABSENT


_REQUIRED_KEYS = ("type", "seq", "time", "data")
_PAYLOAD_ENVELOPES = ("context", "raw")


def validate_append(log: tuple[Event, ...], draft: Draft) -> Event | Rejection:
    """The event ``draft`` becomes when appended to ``log``, or why it is refused.

    ``log`` must itself be admissible (built by appends or a valid seed).
    """
    surface = fold_surface(log)
    if isinstance(surface, Rejection):  # pragma: no cover - log is admissible
        return surface
    return admit(surface, len(log), draft)


def check_seed(records: Iterable[object]) -> tuple[Event, ...] | Rejection:
    """The events of a seed (a list of event records), or the first rule it breaks."""
    return fold_seed(records, Surface(), _admit_and_fold)


def _admit_and_fold(surface: Surface, seq: int, draft: Draft) -> tuple[Event, Surface] | Rejection:
    event = admit(surface, seq, draft)
    if isinstance(event, Rejection):
        return event
    folded = step(surface, event)
    assert not isinstance(folded, Rejection)  # admit checked the replace
    return event, folded


def fold_seed(
    records: Iterable[object],
    state: _State,
    take: Callable[[_State, int, Draft], tuple[Event, _State] | Rejection],
) -> tuple[Event, ...] | Rejection:
    """The events of a seed, or the first rule it breaks: each record is parsed, then ``take``
    admits it at its index, given the ``state`` the records before it left (the surface for
    a plain seed, the trace for one held to the invariants), and gives the next state."""
    events: list[Event] = []
    for index, record in enumerate(records):
        draft = parse_record(index, record)
        if isinstance(draft, Rejection):
            return draft
        taken = take(state, index, draft)
        if isinstance(taken, Rejection):
            return taken
        event, state = taken
        events.append(event)
    return tuple(events)


def seed_violations(records: Iterable[object]) -> tuple[Rejection, ...]:
    """Every rule a would-be seed breaks: each refused record, with the first rule it breaks,
    in log order.

    Recovery rule, after a record is refused: it keeps its place -- the record
    at index ``i`` is always judged as the event at seq ``i`` (so one bad record
    is one violation, not one for every record after it) -- and it is *left out*
    of what later records are judged against: it is not on the surface (a later
    replace cannot start, end or shadow there) and it is not known (a later
    ``sourceEventSeqs`` naming it is ``PROVENANCE_UNKNOWN_SEQ``), as in
    :func:`dsh_spec.invariants.check_log`. Every record is checked on its own for
    shape, seq, type, time, data, surface operation, provenance and payload.

    The result is empty exactly when :func:`check_seed` accepts ``records``, and
    its first element is :func:`check_seed`'s rejection: up to the first refused
    record the two judge the same events against the same surface.
    """
    surface = Surface()
    known: set[int] = set()
    found: list[Rejection] = []
    for index, record in enumerate(records):
        draft = parse_record(index, record)
        if isinstance(draft, Rejection):
            found.append(draft)
            continue
        event = admit(surface, index, draft, known=known)
        if isinstance(event, Rejection):
            found.append(event)
            continue
        folded = step(surface, event)
        assert not isinstance(folded, Rejection)  # admit checked the replace
        surface = folded
        known.add(index)
    return tuple(found)


def key_problem(record: dict[str, object], index: int, seq: int | None) -> Rejection | None:
    """Why the object at ``index`` of a log is no event record by its keys (one it needs is
    missing, or one no event has is there), as a rejection at ``seq``; ``None`` if neither."""
    missing = [key for key in _REQUIRED_KEYS if key not in record]
    if missing:
        return Rejection(Code.MALFORMED_EVENT, seq, f"event at index {index} lacks {', '.join(missing)}")
    unknown = [key for key in record if key not in EVENT_KEYS]
    if unknown:
        names = ", ".join(map(repr, unknown))
        return Rejection(Code.MALFORMED_EVENT, seq, f"event at index {index} has unknown key(s) {names}")
    return None


def parse_record(index: int, record: object) -> Draft | Rejection:
    """Read an event record (a JSON object) that should sit at ``index`` in a log."""
    if type(record) is not dict:
        return Rejection(Code.MALFORMED_EVENT, index, f"event at index {index} is not an object")
    problem = key_problem(record, index, index)
    if problem is not None:
        return problem
    seq = record["seq"]
    if type(seq) in (int, float):
        seq = canonical_number(seq)
    if type(seq) is not int or seq != index:
        return Rejection(
            Code.SEQ_NOT_CONTIGUOUS,
            index,
            f"event at index {index} has seq {seq!r}; seqs must run 0, 1, 2, ...",
        )
    return Draft(
        type=record["type"],
        time=record["time"],
        data=record["data"],
        surface_op=record.get("surfaceOp", ABSENT),
        source_event_seqs=record.get("sourceEventSeqs", ABSENT),
    )


def admit(
    surface: Surface, seq: int, draft: Draft, *, known: Container[int] | None = None
) -> Event | Rejection:
    """Apply every rule to ``draft`` as the event at ``seq`` over ``surface``.

    ``known`` is the set of seqs a provenance entry may name; ``None`` means
    every seq in ``[0, seq)`` (a log built by admitting every event). A log
    checker that leaves refused events out passes the seqs it kept.
    """
    kind = draft.type
    if type(kind) is not str or not kind:
        return Rejection(
            Code.MALFORMED_EVENT, seq, f"event at seq {seq}: type must be a non-empty string, got {kind!r}"
        )
    time = draft.time
    if type(time) in (int, float):
        time = canonical_number(time)  # type: ignore[arg-type]
    if type(time) is not int:
        return Rejection(Code.MALFORMED_EVENT, seq, f"{kind} at seq {seq}: time must be an integer")
    data = canonical_json(draft.data)
    if isinstance(data, TooDeep):
        return Rejection(Code.DATA_TOO_DEEP, seq, f"{kind} at seq {seq}: data {data.reason}")
    if isinstance(data, NotJson):
        return Rejection(Code.NON_JSON_DATA, seq, f"{kind} at seq {seq}: data is not JSON: {data.reason}")

    if not is_surface_type(kind):
        if draft.source_event_seqs is not ABSENT:
            return Rejection(
                Code.PROVENANCE_ON_LOG_ONLY_TYPE,
                seq,
                f"{kind} at seq {seq} cannot carry sourceEventSeqs",
            )
        if draft.surface_op is not ABSENT:
            return Rejection(
                Code.SURFACE_OP_ON_LOG_ONLY_TYPE, seq, f"{kind} at seq {seq} cannot carry surfaceOp"
            )
        return Event(kind, seq, time, data)

    if draft.surface_op is ABSENT:
        return Rejection(
            Code.MISSING_SURFACE_OP,
            seq,
            f"{kind} at seq {seq} is surface-eligible and needs a surfaceOp",
        )
    op = parse_surface_op(draft.surface_op)
    if op is None:
        return Rejection(
            Code.MALFORMED_SURFACE_OP,
            seq,
            f"{kind} at seq {seq}: surfaceOp must be 'append' or "
            f"{{op: 'replace', start: int, end: int}}, got {draft.surface_op!r}",
        )
    provenance: tuple[int, ...] | None = None
    if draft.source_event_seqs is not ABSENT:
        checked = check_provenance(seq, kind, draft.source_event_seqs, known=known)
        if isinstance(checked, Rejection):
            return checked
        provenance = checked
    problem = payload_problem(kind, data)
    if problem is not None:
        return Rejection(Code.INVALID_PAYLOAD, seq, f"{kind} at seq {seq}: {problem}")
    if isinstance(op, Replace):
        covered = shadowed(surface.order, seq, op)
        if isinstance(covered, Rejection):
            return covered
        missing = [s for s in covered if s not in (provenance or ())]
        if missing:
            return Rejection(
                Code.REPLACE_PROVENANCE_INCOMPLETE,
                seq,
                f"{kind} at seq {seq}: sourceEventSeqs must name every shadowed node; "
                f"missing {', '.join(map(str, missing))}",
            )
    return Event(kind, seq, time, data, provenance, op)


def parse_surface_op(raw: object) -> SurfaceOp | None:
    """The surface operation ``raw`` spells, or ``None`` when it spells none."""
    if raw == APPEND and type(raw) is str:
        return APPEND
    value = canonical_json(raw)
    if type(value) is not dict or set(value) != {"op", "start", "end"}:
        return None
    if value["op"] != "replace" or type(value["start"]) is not int or type(value["end"]) is not int:
        return None
    return Replace(value["start"], value["end"])


def check_provenance(
    seq: int, kind: str, raw: object, *, known: Container[int] | None = None
) -> tuple[int, ...] | Rejection:
    """``sourceEventSeqs`` as a tuple, or the first rule it breaks (``known`` as in :func:`admit`)."""
    value = canonical_json(raw)
    if type(value) is not list or any(type(ref) is not int for ref in value):
        return Rejection(
            Code.MALFORMED_PROVENANCE,
            seq,
            f"{kind} at seq {seq}: sourceEventSeqs must be a list of integers, got {raw!r}",
        )
    refs: tuple[int, ...] = tuple(value)  # type: ignore[arg-type]
    if not refs:
        return Rejection(Code.PROVENANCE_EMPTY, seq, f"{kind} at seq {seq}: sourceEventSeqs is empty")
    if len(set(refs)) != len(refs):
        return Rejection(
            Code.PROVENANCE_DUPLICATE, seq, f"{kind} at seq {seq}: sourceEventSeqs has duplicates"
        )
    for ref in refs:
        if ref >= seq:
            return Rejection(
                Code.PROVENANCE_NOT_EARLIER,
                seq,
                f"{kind} at seq {seq}: sourceEventSeqs entry {ref} is not an earlier event",
            )
        if ref < 0 or (known is not None and ref not in known):
            return Rejection(
                Code.PROVENANCE_UNKNOWN_SEQ,
                seq,
                f"{kind} at seq {seq}: sourceEventSeqs entry {ref} names no event",
            )
    return refs


def payload_problem(kind: str, data: Json) -> str | None:
    """What keeps a surface event's payload from projecting to a message, if anything.

    Only what the projection reads is required: ``content`` (a list of blocks,
    each an object with a string ``type``) on every surface type; ``callId``
    (string) and ``isError`` (boolean) on ``tool/result``; ``source.kind``
    (string) on ``context/message`` and ``steering/message``, and on
    ``context/message`` an ``envelope`` that is absent, ``"context"`` or ``"raw"``.
    """
    if type(data) is not dict:
        return "data must be an object"
    content = data.get("content")
    if type(content) is not list:
        return "content must be a list of content blocks"
    for index, block in enumerate(content):
        if type(block) is not dict or type(block.get("type")) is not str:
            return f"content[{index}] must be an object with a string type"
    if kind == "tool/result":
        if type(data.get("callId")) is not str:
            return "callId must be a string"
        if type(data.get("isError")) is not bool:
            return "isError must be a boolean"
    if kind in ("context/message", "steering/message"):
        source = data.get("source")
        if type(source) is not dict or type(source.get("kind")) is not str:
            return "source must be an object with a string kind"
    if kind == "context/message" and "envelope" in data and data["envelope"] not in _PAYLOAD_ENVELOPES:
        return f"envelope must be 'context' or 'raw', got {data['envelope']!r}"
    return None

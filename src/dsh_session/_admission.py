"""Admission: the rules an event must pass before it enters a log.

``append`` and seeding share :func:`admit`, so a seed is held to exactly the
rules appends are. The rules and their order are those of the specification
(``docs/spec.md``); the first one broken is raised as an
:class:`~dsh_session.errors.InvalidEventError` and nothing is stored.
"""

from __future__ import annotations

import reprlib
from collections.abc import Container, Mapping
from typing import Any

from dsh_session.errors import Code, InvalidEventError
from dsh_session.event import APPEND, SURFACE_TYPES, Event, LoggedEvent, Replace, SurfaceOp, held
from dsh_session.json_value import NotJsonError, TooDeepError, canonical_number, decode, encode
from dsh_session.surface import SurfaceManager

_EVENT_KEYS = frozenset({"type", "seq", "time", "data", "sourceEventSeqs", "surfaceOp"})
_REQUIRED = ("type", "seq", "time", "data")
_ENVELOPES = ("context", "raw")
_TAGGED = ("context/message", "steering/message")
_EXACT = 2**53

#: A key that is absent (distinct from a present JSON ``null``).
MISSING: Any = object()

_REPR = reprlib.Repr()
_REPR.maxlevel = 4
_REPR.maxstring = _REPR.maxother = 80


def _shown(value: object) -> str:
    """A short ``repr`` for a message, bounded however deep or large the value is."""
    return _REPR.repr(value)


class Encoded:
    """A payload that is already text a logged event holds (canonical, or in ``form`` as a
    load read it), so admission need not check and encode it again."""

    __slots__ = ("form", "text")

    def __init__(self, text: bytes, form: int = 0) -> None:  # 0: json_value.CANONICAL
        self.text = text
        self.form = form

    def __repr__(self) -> str:
        return repr(decode(self.text)) if self.form == 0 else f"Encoded({self.text!r}, {self.form})"


def _reject(code: Code, seq: int, kind: object, message: str) -> InvalidEventError:
    return InvalidEventError(code, message, seq=seq, event_type=kind)


def _not_json(seq: int, kind: object, error: NotJsonError) -> InvalidEventError:
    if isinstance(error, TooDeepError):
        return _reject(
            Code.DATA_TOO_DEEP,
            seq,
            kind,
            f"{kind} at seq {seq}: data {error.reason}; the limit keeps every stored value loadable",
        )
    return _reject(
        Code.NON_JSON_DATA, seq, kind, f"{kind} at seq {seq} carries data that is not JSON: {error.reason}"
    )


def admit(
    surface: SurfaceManager,
    seq: int,
    kind: object,
    time: object,
    data: object,
    surface_op: object,
    provenance: object,
    *,
    known: Container[int] | None = None,
    text: bytes | None = None,
    form: int = 0,
) -> tuple[LoggedEvent, list[int] | None]:
    """The event to store at ``seq``, and for a replace the seqs it shadows (head to tail).

    ``surface_op`` and ``provenance`` are :data:`MISSING` when absent; ``data``
    is a JSON value, or :class:`Encoded` text. ``surface`` must be synced with
    the log. ``known`` holds the seqs a provenance entry may name; ``None``
    means all of ``[0, seq)``. ``text``, when given, is ``data``'s canonical
    text, which the caller has found (and ``data`` is then canonical), or ``data``'s text as a
    store held it in ``form`` (``json_value.STORED``, ``STORED_RECORD``)."""
    if kind.__class__ is not str or not kind:
        raise _reject(
            Code.MALFORMED_EVENT,
            seq,
            kind,
            f"event at seq {seq}: type must be a non-empty string, got {_shown(kind)}",
        )
    stamp = time if time.__class__ is int and -_EXACT <= time <= _EXACT else exact_int(time)
    if stamp is None:
        raise _reject(
            Code.MALFORMED_EVENT,
            seq,
            kind,
            f"{kind} at seq {seq}: time must be an integer, got {_shown(time)}",
        )
    if text is not None:
        pass
    elif data.__class__ is Encoded:
        text, form = data.text, data.form
        data = _Lazy
    else:
        try:
            text = encode(data)
        except NotJsonError as error:
            raise _not_json(seq, kind, error) from None

    if kind not in SURFACE_TYPES:
        if provenance is not MISSING:
            raise _reject(
                Code.PROVENANCE_ON_LOG_ONLY_TYPE,
                seq,
                kind,
                f"{kind} at seq {seq} is not surface-eligible and cannot carry sourceEventSeqs",
            )
        if surface_op is not MISSING:
            raise _reject(
                Code.SURFACE_OP_ON_LOG_ONLY_TYPE,
                seq,
                kind,
                f"{kind} at seq {seq} is not surface-eligible and cannot carry a surfaceOp",
            )
        return LoggedEvent(kind, seq, stamp, text, None, None, None, form), None

    if surface_op is MISSING:
        raise _reject(
            Code.MISSING_SURFACE_OP,
            seq,
            kind,
            f"{kind} at seq {seq} is surface-eligible and needs a surfaceOp ('append' or a replace)",
        )
    op = APPEND if surface_op == APPEND and surface_op.__class__ is str else _surface_op(surface_op)
    if op is None:
        raise _reject(
            Code.MALFORMED_SURFACE_OP,
            seq,
            kind,
            f"{kind} at seq {seq}: surfaceOp must be 'append' or "
            f"{{'op': 'replace', 'start': int, 'end': int}}, got {_shown(surface_op)}",
        )
    refs = None if provenance is MISSING else _provenance(seq, kind, provenance, known)
    problem = _payload_problem(kind, decode(text) if data is _Lazy else data)
    if problem is not None:
        raise _reject(Code.INVALID_PAYLOAD, seq, kind, f"{kind} at seq {seq}: {problem}")
    if op == APPEND:
        return LoggedEvent(kind, seq, stamp, text, refs, APPEND, None, form), None
    assert isinstance(op, Replace)
    span = surface._span(op.start, op.end)
    if span == "start":
        raise _reject(
            Code.REPLACE_START_NOT_ON_SURFACE,
            seq,
            kind,
            f"{kind} at seq {seq}: replace start seq {op.start} is not on the surface",
        )
    if span == "end":
        raise _reject(
            Code.REPLACE_END_NOT_ON_SURFACE,
            seq,
            kind,
            f"{kind} at seq {seq}: replace end seq {op.end} is not on the surface",
        )
    if span == "order":
        raise _reject(
            Code.REPLACE_RANGE_REVERSED,
            seq,
            kind,
            f"{kind} at seq {seq}: replace start seq {op.start} comes after end seq {op.end} on the surface",
        )
    assert isinstance(span, list)
    named = set(refs or ())
    missing = [shadowed for shadowed in span if shadowed not in named]
    if missing:
        raise _reject(
            Code.REPLACE_PROVENANCE_INCOMPLETE,
            seq,
            kind,
            f"{kind} at seq {seq}: sourceEventSeqs must name every node the replace shadows; "
            f"missing {', '.join(map(str, missing))}",
        )
    return LoggedEvent(kind, seq, stamp, text, refs, op, None, form), span


#: Stands for a payload that was given as encoded text (decoded only if a rule looks at it).
_Lazy: Any = object()


def _surface_op(raw: object) -> SurfaceOp | None:
    if type(raw) is str:
        return APPEND if raw == APPEND else None
    if type(raw) is Replace:
        start, end = raw
    elif isinstance(raw, Mapping):
        if len(raw) != 3 or raw.get("op", MISSING) != "replace" or type(raw.get("op")) is not str:
            return None
        start, end = raw.get("start", MISSING), raw.get("end", MISSING)
    else:
        return None
    first, last = exact_int(start), exact_int(end)
    if first is None or last is None:
        return None
    return Replace(first, last)


def exact_int(value: object) -> int | None:
    """``value`` as an int when it is a number whose canonical form is an int."""
    if type(value) is int and -_EXACT <= value <= _EXACT:
        return value
    if type(value) is float:
        try:
            number = canonical_number(value)
        except NotJsonError:
            return None
        return number if type(number) is int else None
    return None


def _provenance(seq: int, kind: str, raw: object, known: Container[int] | None) -> tuple[int, ...]:
    if (raw.__class__ is list or raw.__class__ is tuple) and known is None and raw:
        # The common case: distinct plain ints naming earlier events.
        for ref in raw:
            if ref.__class__ is not int or not 0 <= ref < seq:
                break
        else:
            refs = tuple(raw)
            if len(refs) == 1 or len(set(refs)) == len(refs):
                return refs
    return _careful_provenance(seq, kind, raw, known)


def _careful_provenance(seq: int, kind: str, raw: object, known: Container[int] | None) -> tuple[int, ...]:
    refs: list[int] = []
    if isinstance(raw, list | tuple):
        for ref in raw:
            number = ref if type(ref) is int and -_EXACT <= ref <= _EXACT else exact_int(ref)
            if number is None:
                break
            refs.append(number)
        else:
            return _check_refs(seq, kind, tuple(refs), known)
    raise _reject(
        Code.MALFORMED_PROVENANCE,
        seq,
        kind,
        f"{kind} at seq {seq}: sourceEventSeqs must be a list of integers, got {_shown(raw)}",
    )


def _check_refs(
    seq: int, kind: str, refs: tuple[int, ...], known: Container[int] | None
) -> tuple[int, ...]:
    if not refs:
        raise _reject(Code.PROVENANCE_EMPTY, seq, kind, f"{kind} at seq {seq}: sourceEventSeqs is empty")
    if len(set(refs)) != len(refs):
        raise _reject(
            Code.PROVENANCE_DUPLICATE,
            seq,
            kind,
            f"{kind} at seq {seq}: sourceEventSeqs has duplicate entries",
        )
    for ref in refs:
        if ref >= seq:
            raise _reject(
                Code.PROVENANCE_NOT_EARLIER,
                seq,
                kind,
                f"{kind} at seq {seq}: sourceEventSeqs entry {ref} does not name an earlier event",
            )
        if ref < 0 or (known is not None and ref not in known):
            raise _reject(
                Code.PROVENANCE_UNKNOWN_SEQ,
                seq,
                kind,
                f"{kind} at seq {seq}: sourceEventSeqs entry {ref} names no event",
            )
    return refs


def _payload_problem(kind: str, data: Any) -> str | None:
    if not isinstance(data, dict):
        return "data must be an object"
    content = data.get("content")
    if not isinstance(content, list):
        return "content must be a list of content blocks"
    for index, block in enumerate(content):
        if not isinstance(block, dict) or type(block.get("type")) is not str:
            return f"content[{index}] must be an object with a string type"
    if kind == "tool/result":
        if type(data.get("callId")) is not str:
            return "callId must be a string"
        if type(data.get("isError")) is not bool:
            return "isError must be a boolean"
    elif kind in _TAGGED:
        source = data.get("source")
        if not isinstance(source, dict) or type(source.get("kind")) is not str:
            return "source must be an object with a string kind"
        if kind == "context/message" and data.get("envelope", "context") not in _ENVELOPES:
            return f"envelope must be 'context' or 'raw', got {_shown(data['envelope'])}"
    return None


def plain_log_only(kind: object, time: object) -> bool:
    """True when an event of type ``kind`` at ``time`` with no surface marker and no
    provenance passes every rule but its payload's: a non-empty string type that is not
    surface-eligible, a safe-integer time."""
    return (
        kind.__class__ is str
        and kind != ""
        and kind not in SURFACE_TYPES
        and time.__class__ is int
        and -_EXACT <= time <= _EXACT
    )


def kept_as_is(event: LoggedEvent, index: int) -> bool:
    """True when the logged event ``event`` may stand at ``index`` of a seed as it is: a
    log-only event, no marker, no provenance, an int seq and time, text for its payload
    (which no rule looks at for a log-only type). What admission of it would make is the
    same event, field for field; anything else takes the full path (:func:`same_event`)."""
    seq = event.seq
    return (
        plain_log_only(event.type, event.time)
        and seq.__class__ is int
        and seq == index
        and event.surface_op is None
        and event.source_event_seqs is None
        and event.key_order is None
        and held(event) is not None
    )


def same_event(made: LoggedEvent, given: LoggedEvent) -> bool:
    """True when ``made``, admitted from the logged event ``given``, holds the very same
    fields (the same objects where a value's type could differ, such as ``1.0`` and ``1``)."""
    theirs_held, mine = held(given), held(made)
    if given.key_order is not None or theirs_held is None or mine is None:
        return False
    if mine[0] is not theirs_held[0] or mine[1] != theirs_held[1]:
        return False
    if made.type is not given.type or made.time is not given.time:
        return False
    if given.seq.__class__ is not int or made.seq != given.seq:
        return False
    if made.source_event_seqs is not given.source_event_seqs:
        return False
    op, theirs = made.surface_op, given.surface_op
    if op is None or theirs is None:
        return op is theirs
    if theirs.__class__ is str:
        return op == theirs
    return (
        theirs.__class__ is Replace
        and theirs.start.__class__ is int
        and theirs.end.__class__ is int
        and op == theirs
    )


def read_record(index: int, record: object) -> tuple[object, object, object, object, object]:
    """Check a stored event record's shape and seq; return its raw
    ``(type, time, data, surfaceOp, sourceEventSeqs)``."""
    if isinstance(record, Event):
        seq: object = record.seq
        if seq.__class__ is not int:
            seq = exact_int(seq)  # an integral float reads as its int, as in a mapping
        if seq is None or seq != index:
            raise _reject(
                Code.SEQ_NOT_CONTIGUOUS,
                index,
                record.type,
                f"{_at(index, record.type)} has seq {_shown(record.seq)}; seqs must run 0, 1, 2, ...",
            )
        op: object = MISSING if record.surface_op is None else record.surface_op
        refs: object = MISSING if record.source_event_seqs is None else record.source_event_seqs
        if type(record) is not LoggedEvent:
            data = record.data
        elif (
            record.type.__class__ is str
            and record.type not in SURFACE_TYPES
            and (kept := held(record)) is not None
        ):
            data = Encoded(*kept)  # no rule looks at it: a stored text stays as read
        else:
            data = Encoded(record.text)
        return record.type, record.time, data, op, refs
    if not isinstance(record, Mapping):
        raise _reject(Code.MALFORMED_EVENT, index, None, f"event at index {index} is not an object")
    missing = [key for key in _REQUIRED if key not in record]
    unknown = [key for key in record if key not in _EVENT_KEYS]
    if missing or unknown:
        kind = record.get("type")
        keys = ", ".join(missing) if missing else ", ".join(map(repr, unknown))
        wrong = "lacks" if missing else "has unknown key(s)"
        raise _reject(Code.MALFORMED_EVENT, index, kind, f"{_at(index, kind)} {wrong} {keys}")
    seq = exact_int(record["seq"])
    if seq is None or seq != index:
        raise _reject(
            Code.SEQ_NOT_CONTIGUOUS,
            index,
            record.get("type"),
            f"{_at(index, record.get('type'))} has seq {_shown(record['seq'])}; seqs must run 0, 1, 2, ...",
        )
    return (
        record["type"],
        record["time"],
        record["data"],
        _json_field(record.get("surfaceOp", MISSING)),
        _json_field(record.get("sourceEventSeqs", MISSING)),
    )


class _NotJson:
    """A record field holding a tuple: not JSON, so no rule may take it for an array."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __repr__(self) -> str:
        return repr(self.value)


def _json_field(value: object) -> object:
    """A JSON record's surface field as admission should see it (a tuple is not an array)."""
    return _NotJson(value) if isinstance(value, tuple) else value


def _at(index: int, kind: object) -> str:
    """Where a record sits, naming its type when it has a usable one."""
    return f"{kind} event at index {index}" if type(kind) is str and kind else f"event at index {index}"

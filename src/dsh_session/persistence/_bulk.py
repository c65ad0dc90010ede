"""Loading many stored records at once: the loaders' bulk path.

A load reads thousands of records of one plain shape (JSONL lines, or
database rows). Parsing each into
dicts and holding each to the rules one at a time costs far more than the
parsing the rules need, so the loaders first offer a run of records here:
one C-level decode of the whole run (msgspec, each payload kept as the raw
text it is stored as), then checks made over the whole run at once. The run
is taken only when every record in it is one the one-at-a-time path would
take *and* make the same event of -- usual key order, compact spelling, a
payload that is JSON ``JSON.parse`` reads (valid UTF-8, no number beyond a
double, at most ``MAX_DEPTH`` deep), a log-only type without surface
fields, or a surface type whose operation is an append, whose provenance
names distinct earlier events and whose payload has the shape its type
needs. Anything else -- a replace, an unusual order, a damaged line, a
suspicious number -- and the run is declined (``None``, nothing changed):
the caller reads it the careful way, record by record, whose rules and
messages are the definition. The bulk path decides nothing but "fast".

Each payload is kept as its stored text (``json_value.STORED``),
put in canonical form when first needed, as the one-at-a-time path keeps it.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Any

import msgspec

from dsh_session import _accel
from dsh_session.event import SURFACE_TYPES, Event
from dsh_session.json_value import STORED
from dsh_session.persistence._admit import KINDS, KINDS_LIMIT, LogAdmitter
from dsh_session.persistence._shapes import where

__all__ = ["jsonl_run", "rows_run"]

_DecodeError = msgspec.DecodeError  # ValidationError is one


class _Line(
    msgspec.Struct,
    frozen=True,
    gc=False,
    forbid_unknown_fields=True,
    omit_defaults=True,
    rename={"refs": "sourceEventSeqs", "op": "surfaceOp"},
):
    """A JSONL event line as ``append`` writes it: its fields in that order, the payload
    and the surface operation as their raw text."""

    type: str
    seq: int
    time: int
    data: msgspec.Raw
    refs: list[int] | None = None
    op: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET


_LINES = msgspec.json.Decoder(_Line)
_ENCODER = msgspec.json.Encoder()
_APPEND_RAW = msgspec.Raw(b'"append"')

#: A JSON number that could overflow a double (``JSON.parse`` reads it as Infinity, not
#: JSON) has an exponent of three digits or more, or 200 digits in a row. Text is mapped
#: to digits ("0"), exponent letters ("e"), commas (a separator) and newlines, and the
#: rest dropped: such a number shows as "0e000" or as a run of 200 "0" (signs and
#: decimal points dropped); what else shows so only sends a run the careful way.
_NUMBERS = bytes(
    ord("0") if 48 <= c <= 57 else ord("e") if c in b"eE" else c if c in b",\n" else 0 for c in range(256)
)
_DROPPED = bytes(c for c in range(256) if not (48 <= c <= 57 or c in b"eE,\n"))
_LONG_RUN = b"0" * 200


def plain_payloads(joined: bytes) -> bool:
    """Whether the payload texts joined by commas in ``joined`` are read by ``JSON.parse`` as
    they are: valid UTF-8, and surely no number beyond a double (false when unsure)."""
    if not joined.isascii():
        try:
            joined.decode()
        except UnicodeDecodeError:
            return False
    numbers = joined.translate(_NUMBERS, _DROPPED)
    return b"0e000" not in numbers and _LONG_RUN not in numbers


_DATA, _TYPE, _SEQ, _TIME, _REFS, _OP = map(attrgetter, ("data", "type", "seq", "time", "refs", "op"))
_IS_SURFACE = SURFACE_TYPES.__contains__
_HAS_OP = b',"surfaceOp":'  # (a quote inside a string is escaped: these bytes are a key)
_HAS_REFS = b',"sourceEventSeqs":'


def jsonl_run(admitter: LogAdmitter, chunk: bytes) -> list[Event] | None:
    """The admitted events of ``chunk`` (whole JSONL event lines, each ending in a newline,
    the next seq first), or ``None`` when the run is not all plain (see the module doc)."""
    try:
        lines = _LINES.decode_lines(chunk)
    except (_DecodeError, RecursionError):
        return None
    # Each line is exactly a record's compact text in the usual order, unless a payload
    # spans lines (checked next): then the line is what the careful path would read.
    if _ENCODER.encode_lines(lines) != chunk:
        return None
    payloads = list(map(_DATA, lines))
    joined = b",".join(payloads)
    if b"\n" in joined or not plain_payloads(joined):
        return None
    start = admitter.next_seq
    if list(map(_SEQ, lines)) != list(range(start, start + len(lines))):
        return None
    kinds = list(map(_TYPE, lines))
    on_surface = where(list(map(_IS_SURFACE, kinds)))
    surface_lines = [lines[index] for index in on_surface]
    ops = list(map(_OP, surface_lines))
    refs = list(map(_REFS, surface_lines))
    given_refs = len(refs) - refs.count(None)
    # No log-only line carries a surface field: every one the chunk holds is a surface line's.
    if chunk.count(_HAS_OP) != len(ops) or chunk.count(_HAS_REFS) != given_refs:
        return None
    return admitter.admit_run(kinds, list(map(_TIME, lines)), payloads, on_surface, ops, refs, _APPEND_RAW)


# -- database rows ------------------------------------------------------------------------

_RAWS = msgspec.json.Decoder(list[msgspec.Raw])
_PROVENANCE = msgspec.json.Decoder(list[int])
_APPEND_TEXT = '"append"'  # the surface_op column of an append
#: The C twin of the checks below (``None``: not built, or turned off; see ``_accel``).
_rows_events = _accel.rows_events


def rows_run(admitter: LogAdmitter, rows: Sequence[tuple[Any, ...]]) -> list[Event] | None:
    """The admitted events of a run of event rows ``(seq, type, time, data,
    source_event_seqs, surface_op)`` (by seq, the next seq first), or ``None`` when the
    run is not all plain (see the module doc; nothing changed then).

    A row is plain when its columns hold their types, its ``data`` column is one JSON
    value spelled without surrounding blanks, and a log-only row's surface columns are
    NULL; a surface row's ``surface_op`` is ``"append"`` as ``append`` writes it and its
    provenance a JSON array of integers.
    """
    count = len(rows)
    if not count:
        return []
    if _rows_events is not None:  # the same checks, in C (dsh_session/_accel.py)
        made = _rows_events(
            rows if rows.__class__ is list else list(rows),
            admitter.next_seq,
            KINDS,
            KINDS_LIMIT,
            _APPEND_TEXT,
            STORED,
            _RAWS.decode,
            _PROVENANCE.decode,
        )
        return None if made is None else admitter.take_run(*made)
    seqs, kinds, times, datas, refs, ops = zip(*rows, strict=True)
    # A driver hands back int, float, str, bytes, None (or, for a column of another type,
    # another class that is not int; never bool, which needs a boolean column): the sum of
    # a column is an int exactly when every value in it is one, and raises on text.
    try:
        if sum(seqs).__class__ is not int or sum(times).__class__ is not int:
            return None
    except TypeError:
        return None
    start = admitter.next_seq
    if list(seqs) != list(range(start, start + count)):
        return None
    try:
        # (the join takes only str; admit_run checks the types, a few distinct values)
        joined = ("[" + ",".join(datas) + "]").encode()
    except (TypeError, UnicodeEncodeError):  # a lone surrogate: never in a database's text
        return None
    if not plain_payloads(joined):
        return None
    try:
        payloads = _RAWS.decode(joined)
    except (_DecodeError, RecursionError):
        return None
    # The values tile the array: with each as long as its column (and so no blank between
    # them), each is its column -- every data column holds exactly one JSON value.
    lengths = list(map(len, datas)) if joined.isascii() else list(map(len, map(str.encode, datas)))
    if list(map(len, payloads)) != lengths:
        return None
    on_surface = where(list(map(_IS_SURFACE, kinds)))
    surface_ops = [ops[index] for index in on_surface]
    surface_refs: list[Any] = []
    for index in on_surface:
        text = refs[index]
        if text is None:
            surface_refs.append(None)
            continue
        if text.__class__ is not str:
            return None
        try:
            surface_refs.append(_PROVENANCE.decode(text))
        except (_DecodeError, RecursionError):
            return None
    # No log-only row carries a surface field (a surface row's operation that is not a
    # string is not an append: admit_run declines it).
    log_only = count - len(on_surface)
    if ops.count(None) != log_only or refs.count(None) != log_only + surface_refs.count(None):
        return None
    return admitter.admit_run(kinds, times, payloads, on_surface, surface_ops, surface_refs, _APPEND_TEXT)

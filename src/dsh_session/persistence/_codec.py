"""Stored text: events and headers as the reference writes them, and reading them back.

Writing follows JavaScript's ``JSON.stringify`` byte for byte (``js_json``): an
event's keys in its own order (``Event.key_order``), a header as
``{"type":"session","version","id","createdAt","cwd"?,"parentSession"?,"seedLength"?}``.
Reading follows ``JSON.parse``: every number is a double, ``NaN`` and
``Infinity`` tokens are refused, a BOM is an error, the last of duplicate keys
wins. Parsed values are left raw (not frozen): admission freezes and checks
them, so a value ``JSON.parse`` accepts but the JSON-value rule does not (say
``1e400``) is refused by the rule that names it, not mistaken for a torn line.

Parsing never depends on the caller's stack: orjson parses (its depth limit,
1024, is its own); text it refuses for another reason than its syntax -- a
lone-surrogate escape, a number beyond a double -- is parsed again by the
``json`` module on a fresh stack (``_stack``). Text that nests deeper than a
stored record can (``_nesting.RECORD_DEPTH``) is not parsed at all: it is
:data:`TOO_DEEP`, which a load refuses as ``DATA_TOO_DEEP`` -- never a torn line.
"""

from __future__ import annotations

import json
from typing import Any, Final

import orjson

from dsh_session._nesting import RECORD_DEPTH, text_depth
from dsh_session._stack import on_fresh_stack
from dsh_session.errors import Code
from dsh_session.event import SESSION_FORMAT_VERSION, Event, Replace, SessionHeader, payload_text
from dsh_session.js_json import js_int, js_string
from dsh_session.persistence.errors import CorruptStoreError, IncompatibleStoreError, InvalidHeaderError

#: A stored record that does not parse.
HOLE: Final[Any] = object()

#: A stored record whose text nests deeper than a record may (it is not parsed).
TOO_DEEP: Final[Any] = object()

_EXACT = 2**53
_HEADER_KEYS = frozenset({"type", "version", "id", "createdAt", "cwd", "parentSession", "seedLength"})


def _refuse(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_refuse, parse_int=js_int)


def parse(text: str | bytes, limit: int = RECORD_DEPTH) -> Any:
    """``JSON.parse(text)`` as raw Python values; :data:`HOLE` when it does not parse,
    :data:`TOO_DEEP` when it nests deeper than ``limit`` containers.

    Integers up to 64 bits come back exact (orjson), even beyond 2**53 where
    JavaScript rounds them to a double; longer ones come back as JavaScript
    reads them (a rounded double, or +-inf past a double's range). Whoever
    reads a parsed value reads it as JavaScript would: freezing rounds a wide
    int (``_fast_freeze``), a header rounds its numbers (:func:`header_from_json`)
    and admission rounds an envelope's before it judges one it refused
    (``_admit``). Bytes are UTF-8; invalid sequences read as U+FFFD (as Node
    reads a file).
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    if text_depth(text) > limit:
        return TOO_DEEP
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    # At most ``limit`` deep: the json module's recursion fits in a fresh stack.
    return on_fresh_stack(_decode, text)


def _decode(text: str) -> Any:
    try:
        return _DECODER.decode(text)
    except ValueError:
        return HOLE


def parse_bytes(raw: bytes, limit: int = RECORD_DEPTH) -> Any:
    """Parse one stored line (see :func:`parse`)."""
    return parse(raw, limit)


# -- writing -----------------------------------------------------------------------


def event_line(event: Event) -> str:
    """``JSON.stringify(event)``: the event's JSON text in its own key order."""
    parts = {
        "type": '"type":' + js_string(event.type),
        "seq": f'"seq":{event.seq}',
        "time": f'"time":{event.time}',
        "data": '"data":' + payload_text(event).decode(),
    }
    refs = event.source_event_seqs
    if refs is not None:
        parts["sourceEventSeqs"] = '"sourceEventSeqs":[' + ",".join(map(str, refs)) + "]"
    if event.surface_op is not None:
        parts["surfaceOp"] = '"surfaceOp":' + surface_op_text(event.surface_op)
    order = event.key_order
    if order is None:
        return "{" + ",".join(parts.values()) + "}"
    ordered = [parts.pop(key) for key in order if key in parts]
    ordered.extend(parts.values())
    return "{" + ",".join(ordered) + "}"


def surface_op_text(op: Replace | str) -> str:
    """The JSON text of a surface operation (``"append"`` quoted)."""
    if isinstance(op, Replace):
        return f'{{"op":"replace","start":{op.start},"end":{op.end}}}'
    return js_string(op)


def provenance_text(refs: tuple[int, ...]) -> str:
    return "[" + ",".join(map(str, refs)) + "]"


def header_line(header: SessionHeader) -> str:
    """The JSONL header line (without its newline)."""
    parts = [
        '"type":"session"',
        f'"version":{header.version}',
        '"id":' + js_string(header.id),
        f'"createdAt":{header.created_at}',
    ]
    if header.cwd is not None:
        parts.append('"cwd":' + js_string(header.cwd))
    if header.parent_session is not None:
        parts.append('"parentSession":' + js_string(header.parent_session))
    if header.seed_length is not None:
        parts.append(f'"seedLength":{header.seed_length}')
    return "{" + ",".join(parts) + "}"


# -- headers -------------------------------------------------------------------------


def check_header(header: SessionHeader) -> None:
    """Refuse a header that no load could read back."""
    if header.version != SESSION_FORMAT_VERSION or type(header.version) is not int:
        raise IncompatibleStoreError(
            Code.STORE_VERSION_UNSUPPORTED,
            f"session {header.id!r} has format version {header.version!r}; only version "
            f"{SESSION_FORMAT_VERSION} can be written (build the header with the default version)",
        )
    problem = _header_problem(
        header.id, header.created_at, header.cwd, header.parent_session, header.seed_length
    )
    if problem is not None:
        raise InvalidHeaderError(Code.INVALID_HEADER, f"session header {header.id!r}: {problem}")


def _header_problem(
    session_id: object, created_at: object, cwd: object, parent: object, seed_length: object
) -> str | None:
    if type(session_id) is not str or not session_id:
        return "id must be a non-empty string"
    if exact_int(created_at) is None:
        return f"createdAt must be an integer (epoch milliseconds), got {created_at!r}"
    if cwd is not None and type(cwd) is not str:
        return f"cwd must be a string, got {cwd!r}"
    if parent is not None and type(parent) is not str:
        return f"parentSession must be a string, got {parent!r}"
    if seed_length is not None:
        length = exact_int(seed_length)
        if length is None or length < 0:
            return f"seedLength must be a non-negative integer, got {seed_length!r}"
    return None


def exact_int(value: object) -> int | None:
    """``value`` as an int when it is a number with an integral value up to 2**53 (not a bool)."""
    if type(value) is int:
        return value if -_EXACT <= value <= _EXACT else None
    if type(value) is float and value.is_integer() and -_EXACT <= value <= _EXACT:
        return int(value)
    return None


def js_wide(value: object) -> object:
    """``value`` as JavaScript holds it: an int beyond +-2**53 becomes the double it rounds to."""
    if type(value) is not int or -_EXACT <= value <= _EXACT:
        return value
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def js_envelope(record: dict[str, Any]) -> dict[str, Any] | None:
    """A stored event record with its envelope's numbers as JavaScript reads them, or ``None``
    when none is an int beyond +-2**53 (the record reads the same either way).

    Such an int is refused by every envelope rule as it stands, but the reference
    reads the double it rounds to, which a rule may judge otherwise (``time``
    stored as ``9007199254740993`` is the valid 2**53): a refused record is
    judged again as JavaScript would read it. ``data`` is left to freezing.
    """
    wide: dict[str, Any] = {}
    for key in ("seq", "time"):
        item = record.get(key)
        if js_wide(item) is not item:
            wide[key] = js_wide(item)
    op = record.get("surfaceOp")
    if type(op) is dict and any(js_wide(item) is not item for item in op.values()):
        wide["surfaceOp"] = {key: js_wide(item) for key, item in op.items()}
    refs = record.get("sourceEventSeqs")
    if type(refs) is list and any(js_wide(item) is not item for item in refs):
        wide["sourceEventSeqs"] = [js_wide(item) for item in refs]
    return {key: wide.get(key, item) for key, item in record.items()} if wide else None


def header_from_json(value: Any, *, path: str, line: int | None = None) -> SessionHeader:
    """The header a stored header record spells; refuses a malformed or unsupported one.

    Its numbers are read as JavaScript reads them: ``createdAt`` stored as
    ``9007199254740993`` is the double 2**53, which the reference accepts.
    """
    where = f"{path}:{line}" if line is not None else path
    if value is HOLE or value is TOO_DEEP:
        raise CorruptStoreError(
            Code.STORE_CORRUPT,
            f"{where}: the session header is not valid JSON; the file is damaged or not a session log",
            path=path,
            line=line,
        )
    if not isinstance(value, dict) or value.get("type") != "session":
        raise CorruptStoreError(
            Code.STORE_CORRUPT,
            f'{where}: the first line is not a session header (an object with type "session"); '
            "the file is not a session log",
            path=path,
            line=line,
        )
    if any(type(value.get(key)) is int for key in ("version", "createdAt", "seedLength")):
        value = {key: js_wide(item) for key, item in value.items()}
    version = value.get("version")
    if type(version) not in (int, float):
        raise CorruptStoreError(
            Code.STORE_CORRUPT,
            f"{where}: the session header has no numeric version; the file is damaged",
            path=path,
            line=line,
        )
    check_version(version, value.get("id"), path=path, line=line)
    unknown = sorted(key for key in value if key not in _HEADER_KEYS)
    problem = _header_problem(
        value.get("id"),
        value.get("createdAt"),
        value.get("cwd"),
        value.get("parentSession"),
        value.get("seedLength"),
    )
    if problem is None and unknown:
        problem = f"unknown key(s) {', '.join(map(repr, unknown))}"
    if problem is None and any(value.get(key, 0) is None for key in ("cwd", "parentSession", "seedLength")):
        problem = "cwd, parentSession and seedLength are left out when absent, never null"
    if problem is not None:
        raise CorruptStoreError(
            Code.STORE_CORRUPT,
            f"{where}: bad session header: {problem}; the file is damaged",
            path=path,
            line=line,
        )
    seed_length = value.get("seedLength")
    return SessionHeader(
        id=value["id"],
        created_at=exact_int(value["createdAt"]),  # type: ignore[arg-type]
        version=SESSION_FORMAT_VERSION,
        cwd=value.get("cwd"),
        parent_session=value.get("parentSession"),
        seed_length=None if seed_length is None else exact_int(seed_length),
    )


def check_version(version: object, session_id: object, *, path: str, line: int | None = None) -> None:
    """Refuse a stored session whose format version is not the one we read."""
    if version == SESSION_FORMAT_VERSION and type(version) in (int, float):
        return
    where = f"{path}:{line}" if line is not None else path
    raise IncompatibleStoreError(
        Code.STORE_VERSION_UNSUPPORTED,
        f"{where}: session {session_id!r} has format version {version!r}; this build reads only "
        f"version {SESSION_FORMAT_VERSION} and never migrates -- open it with the build that wrote it",
        path=path,
        line=line,
    )


__all__ = [
    "HOLE",
    "TOO_DEEP",
    "check_header",
    "check_version",
    "event_line",
    "exact_int",
    "header_from_json",
    "header_line",
    "js_envelope",
    "js_wide",
    "parse",
    "parse_bytes",
    "provenance_text",
    "surface_op_text",
]

"""Reading a JSONL session log: its header, the events a load keeps, and where to cut.

Line 1 is the header; every other line is one event. Only ``\\n`` ends a line
(``\\r``, U+2028 and U+0085 are line content), and bytes after the last ``\\n``
are a torn fragment. Offsets are counted in the file's raw bytes, so invalid
UTF-8 inside a line (read as U+FFFD, as Node reads it) cannot shift the cut
(the reference's B4). A line that does not parse is a hole; a line that
parses to anything but an object whose ``seq`` is its index (``null``
included) is a gap. Holes and gaps at or before the last ``turn/end`` line are
damage and refuse the load; the first one after it is where the crash tore the
log, and the load keeps only what precedes it (``dsh_spec.storage``). A line
that nests deeper than an event record may is complete, not torn: it refuses
the load with ``DATA_TOO_DEEP`` wherever it is, and nothing is cut.
"""

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import orjson

from dsh_session._nesting import MAX_DEPTH, RECORD_DEPTH, too_deep_at
from dsh_session.errors import Code
from dsh_session.event import SessionHeader
from dsh_session.persistence._codec import HOLE, TOO_DEEP, header_from_json, parse_bytes
from dsh_session.persistence.errors import CorruptStoreError

__all__ = ["Scan", "scan_log"]

_loads = orjson.loads
_DecodeError = orjson.JSONDecodeError


class Scan(NamedTuple):
    """What a load keeps of a log file."""

    header: SessionHeader
    records: list[Any]  # the kept records: parsed JSON objects, or what ``take`` made of each
    kept: int  # how many event lines are kept (seq 0, 1, 2, ...)
    committed: int  # bytes kept: the end of the last kept line, or of the header line
    size: int  # the file's size; ``committed < size`` means a tail to cut
    failure: Exception | None  # what ``take`` raised first (then it was called no more)


def scan_log(
    data: bytes,
    path: str,
    take: Callable[[dict[str, Any], bytes | None], Any] | None = None,
    bulk: Callable[[bytes], list[Any] | None] | None = None,
) -> Scan:
    """Scan a log file's bytes (``path`` is for messages only).

    ``take(record, line)``, when given, receives each kept record in order as
    soon as it is read (``line``: its text, when orjson read it; else ``None``),
    and what it returns is kept instead (a load admits the record
    there and then, so no parsed record outlives its own use). If ``take``
    raises, it is called no more, but the scan finishes: damage found anywhere
    in the file is raised, as the rules order it (``dsh_spec.storage``: the scan
    before the seed's rules); ``take``'s first error is returned in
    :attr:`Scan.failure` for the caller to raise after its own checks.

    ``bulk(lines)``, given with ``take``, is offered the leading event lines a
    run at a time (whole lines, each with its newline): it returns what
    ``take`` would have made of each of them, or ``None`` to leave the run to
    ``take`` line by line (``persistence._bulk``); the scan is the same either way.
    """
    header_end = data.find(b"\n")
    if header_end < 0:
        raise CorruptStoreError(
            Code.STORE_CORRUPT,
            f"{path}: empty or header-less session log (no complete first line); "
            "the file is not a session log or its first write never completed",
            path=path,
            line=1,
        )
    header = header_from_json(parse_bytes(data[:header_end]), path=path, line=1)
    records: list[Any] = []
    committed = header_end + 1
    base = 0  # the index (seq) of the first line below
    if take is not None and bulk is not None:
        committed, base = _plain_prefix(data, committed, take, bulk, records)
    lines = data[committed:].split(b"\n")
    lines.pop()  # the bytes after the last newline: a torn fragment (or nothing)

    last_turn_end = -1  # an index into lines
    for offset in range(len(lines) - 1, -1, -1):
        record = parse_bytes(lines[offset])
        if type(record) is dict and record.get("type") == "turn/end":
            last_turn_end = offset
            break

    keep_record = records.append
    keep = len(lines)
    failure: Exception | None = None
    for offset, line in enumerate(lines):
        index = base + offset
        try:
            record = _loads(line)  # the common line; anything else is parse_bytes' to judge
            raw: bytes | None = line
        except _DecodeError:
            record, raw = parse_bytes(line), None
        if type(record) is dict:
            seq = record.get("seq")
            if (type(seq) is int or type(seq) is float) and seq == index:
                committed += len(line) + 1
                failure = keep_taken(keep_record, take, record, raw, failure)
                continue
        if record is TOO_DEEP:
            raise too_deep(path, index + 2, f"line {index + 2}", index)
        if offset <= last_turn_end:
            raise _damage(path, index, record, base + last_turn_end)
        keep = offset
        break
    _check_torn_lines(lines, keep, base, path)
    return Scan(header, records, base + keep, committed, len(data), failure)


#: About how many bytes of lines are offered to ``bulk`` at a time.
_RUN_BYTES = 1 << 18


def _plain_prefix(
    data: bytes,
    start: int,
    take: Callable[[dict[str, Any], bytes | None], Any],
    bulk: Callable[[bytes], list[Any] | None],
    records: list[Any],
) -> tuple[int, int]:
    """Keep the leading lines from ``start`` that are plain records ``take`` accepts: runs
    ``bulk`` takes whole, the others line by line. Returns where the first line left to
    the scan starts, and its index (the lines kept)."""
    end = data.rfind(b"\n") + 1
    pos, count = start, 0
    while pos < end:
        stop = data.find(b"\n", min(pos + _RUN_BYTES, end - 1)) + 1
        run = bulk(data[pos:stop])
        if run is not None:
            records.extend(run)
            count += len(run)
            pos = stop
            continue
        for line in data[pos : stop - 1].split(b"\n"):
            try:
                record = _loads(line)
            except _DecodeError:
                return pos, count
            if type(record) is not dict:
                return pos, count
            seq = record.get("seq")
            if not ((type(seq) is int or type(seq) is float) and seq == count):
                return pos, count
            try:
                kept = take(record, line)
            except Exception:  # the scan reads this line again, and keeps the error
                return pos, count
            records.append(kept)
            count += 1
            pos += len(line) + 1
    return pos, count


def _check_torn_lines(lines: list[bytes], keep: int, base: int, path: str) -> None:
    """:func:`check_torn_region` over the lines a load would cut (parsed one at a time);
    ``lines[0]`` is event line ``base``."""
    for offset in range(keep, len(lines)):
        record = parse_bytes(lines[offset])
        if record is TOO_DEEP or too_deep_at(record, RECORD_DEPTH) is not None:
            index = base + offset
            raise too_deep(path, index + 2, f"line {index + 2}", index)


def keep_taken(
    keep: Callable[[Any], None],
    take: Callable[[dict[str, Any], bytes | None], Any] | None,
    record: dict[str, Any],
    stored: bytes | None,
    failure: Exception | None,
) -> Exception | None:
    """One kept record of a scan: handed to ``keep`` as it is (no ``take``), or what ``take``
    makes of it -- until ``take`` first raises. Returns the scan's failure so far, ``take``'s
    first error, which the scan raises once it has read everything (damage is reported first)."""
    if take is None:
        keep(record)
    elif failure is None:
        try:
            keep(take(record, stored))
        except Exception as error:
            return error
    return failure


def check_torn_region(
    records: Sequence[Any], keep: int, where: Callable[[int], tuple[str, int | None, str]]
) -> None:
    """Refuse to cut what nests too deep (``dsh_spec.storage``): records ``keep`` on would be
    cut as torn, and a record too deep to parse, or parsed but nesting past a record's
    limit, was complete. ``where(index)`` is ``(path, line or None, label)``."""
    for index in range(keep, len(records)):
        record = records[index]
        if record is TOO_DEEP or too_deep_at(record, RECORD_DEPTH) is not None:
            raise too_deep(*where(index), index)


def too_deep(path: str, line: int | None, label: str, seq: int) -> CorruptStoreError:
    """The refusal of a stored record that nests too deep to be an event."""
    place = f"{path}:{line}" if line is not None else f"{path}: {label}"
    return CorruptStoreError(
        Code.DATA_TOO_DEEP,
        f"{place}: the stored record nests deeper than {MAX_DEPTH} containers of data; it is complete "
        "(not a torn tail), so nothing was cut -- this build refuses values that deep (the TypeScript "
        "harness accepts them); move the session aside or cut the record by hand",
        path=path,
        line=line,
        seq=seq,
    )


def _damage(path: str, index: int, record: Any, last_turn_end: int) -> CorruptStoreError:
    line = index + 2
    if record is HOLE:
        problem = "does not parse as JSON"
    elif type(record) is not dict:
        problem = "is not an event object"
    else:
        problem = f"has seq {record.get('seq')!r} where {index} was expected"
    return CorruptStoreError(
        Code.STORE_CORRUPT,
        f"{path}:{line}: the event line {problem}, before the committed turn/end on line "
        f"{last_turn_end + 2}: committed data is damaged. The log cannot be repaired automatically; "
        "restore it from a backup or cut it by hand before that line",
        path=path,
        line=line,
        seq=index,
    )

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

from collections.abc import Callable
from typing import Any, NamedTuple

from dsh_session._nesting import MAX_DEPTH, RECORD_DEPTH, too_deep_at
from dsh_session.errors import Code
from dsh_session.event import SessionHeader
from dsh_session.persistence._codec import HOLE, TOO_DEEP, header_from_json, parse_bytes
from dsh_session.persistence.errors import CorruptStoreError

__all__ = ["Scan", "scan_log"]


class Scan(NamedTuple):
    """What a load keeps of a log file."""

    header: SessionHeader
    records: list[Any]  # the kept event records (parsed JSON objects), seq 0, 1, 2, ...
    committed: int  # bytes kept: the end of the last kept line, or of the header line
    size: int  # the file's size; ``committed < size`` means a tail to cut


def scan_log(data: bytes, path: str) -> Scan:
    """Scan a log file's bytes (``path`` is for messages only)."""
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
    ends: list[int] = []
    start = header_end + 1
    find = data.find
    while True:
        end = find(b"\n", start)
        if end < 0:
            break
        records.append(parse_bytes(data[start:end]))
        ends.append(end + 1)
        start = end + 1

    last_turn_end = -1
    for index in range(len(records) - 1, -1, -1):
        record = records[index]
        if type(record) is dict and record.get("type") == "turn/end":
            last_turn_end = index
            break

    keep = len(records)
    for index, record in enumerate(records):
        if type(record) is dict:
            seq = record.get("seq")
            if (type(seq) is int or type(seq) is float) and seq == index:
                continue
        if record is TOO_DEEP:
            raise too_deep(path, index + 2, f"line {index + 2}", index)
        if index <= last_turn_end:
            raise _damage(path, index, record, last_turn_end)
        keep = index
        break
    check_torn_region(records, keep, lambda i: (path, i + 2, f"line {i + 2}"))
    del records[keep:]
    committed = ends[keep - 1] if keep else header_end + 1
    return Scan(header, records, committed, len(data))


def check_torn_region(
    records: list[Any], keep: int, where: Callable[[int], tuple[str, int | None, str]]
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

"""Sessions as table rows, for the database backends: writing an event row, reading it back,
deciding how many stored rows a load keeps, and reading a session's header row.

A row is ``(seq, type, time, data, source_event_seqs, surface_op)`` with the
three JSON columns as ``JSON.stringify`` text (``surface_op`` the quoted
``"append"`` or the replace object) and NULL for an absent surface field --
the SQLite reference's columns, which the PostgreSQL backend shares.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import orjson

from dsh_session._nesting import MAX_DEPTH
from dsh_session.errors import Code
from dsh_session.event import Event, SessionHeader, payload_text
from dsh_session.persistence._codec import (
    HOLE,
    TOO_DEEP,
    check_version,
    parse,
    provenance_text,
    surface_op_text,
)
from dsh_session.persistence.errors import CorruptStoreError, PersistenceError
from dsh_session.persistence.jsonl_scan import check_torn_region, keep_taken, too_deep

_loads = orjson.loads
_DecodeError = orjson.JSONDecodeError

__all__ = [
    "event_row",
    "header_row",
    "kept_records",
    "readable_headers",
    "row_record",
    "scan_rows",
    "session_row",
]

Row = tuple[Any, ...]


def session_row(header: SessionHeader) -> Row:
    """The ``sessions`` row that stores ``header`` (the columns in the layout's order)."""
    return (
        header.id, header.version, header.created_at, header.cwd, header.parent_session, header.seed_length,
    )


def event_row(event: Event) -> Row:
    """The row that stores ``event``."""
    refs = event.source_event_seqs
    op = event.surface_op
    return (
        event.seq,
        event.type,
        event.time,
        payload_text(event).decode(),
        None if refs is None else provenance_text(refs),
        None if op is None else surface_op_text(op),
    )


def row_record(row: Row) -> Any:
    """The event record a row holds, keys in the reference's order; :data:`HOLE` if a JSON
    column does not parse, :data:`TOO_DEEP` if one nests too deep to be read (a column holds
    a value inside the record, so its limit is ``MAX_DEPTH``)."""
    return read_row(row)[0]


def read_row(row: Row) -> tuple[Any, bytes | None]:
    """:func:`row_record`, and the ``data`` column's text when orjson read it (so a load may
    keep that text as it is: ``json_value.STORED``), else ``None``."""
    seq, kind, time, data_text, refs_text, op_text = row
    try:
        data = _loads(data_text)
        stored: bytes | None = data_text.encode()
    except _DecodeError:
        data, stored = parse(data_text, MAX_DEPTH), None
    if data is HOLE or data is TOO_DEEP:
        return data, None
    return _record(kind, seq, time, data, refs_text, op_text), stored


def _record(kind: Any, seq: Any, time: Any, data: Any, refs_text: Any, op_text: Any) -> Any:
    record: dict[str, Any] = {"type": kind, "seq": seq, "time": time, "data": data}
    if refs_text is not None:
        refs = parse(refs_text, MAX_DEPTH)
        if refs is HOLE or refs is TOO_DEEP:
            return refs
        record["sourceEventSeqs"] = refs
    if op_text is not None:
        op = parse(op_text, MAX_DEPTH)
        if op is HOLE or op is TOO_DEEP:
            return op
        record["surfaceOp"] = op
    return record


def scan_rows(rows: Sequence[Row], records: Sequence[Any], where: str) -> int:
    """How many leading rows a load keeps (``dsh_spec.storage.preserved_prefix``).

    ``rows`` come sorted by seq; ``records`` are their :func:`row_record` values.
    A database stores a row whole or not at all (one transaction per batch), so
    no crash tears its log: a row that does not parse, or is not the next event,
    is damage wherever it is -- ``STORE_CORRUPT``, nothing is cut (the reference
    deletes such rows after the last ``turn/end``, acknowledged ones included:
    ``docs/deviations.md`` P5).
    """
    kept: list[Any] = []
    _scan(rows, where, lambda index: (records[index], None), kept.append, None)
    return len(kept)


def _scan(
    rows: Sequence[Row],
    where: str,
    read_at: Callable[[int], tuple[Any, bytes | None]],
    keep: Callable[[Any], None],
    take: Callable[[dict[str, Any], bytes | None], Any] | None,
    start: int = 0,
    failure: Exception | None = None,
) -> None:
    """The scan of :func:`scan_rows`, handing each kept record (or what ``take`` makes of it)
    to ``keep`` in order; ``read_at(index)`` reads a row's record (and the payload's text
    when it may be kept as it is). If ``take`` raises,
    the scan still finishes (damage is reported first, as the rules order it) and then
    ``take``'s first error is raised.

    ``start`` rows are already kept (each the next event, read and taken without damage),
    ``failure`` what ``take`` raised on the last of them if it did: the scan goes on from
    there as if it had read them itself."""
    if start == len(rows) and failure is None:
        return  # (every row kept: no damage to look for)
    if rows and rows[0][0] < 0:
        raise CorruptStoreError(
            Code.STORE_CORRUPT,
            f"{where}: row seq {rows[0][0]}: a negative seq is never written; the rows of this "
            "session are damaged -- delete that row by hand",
            path=where,
            seq=rows[0][0],
        )
    last_turn_end = -1
    for index in range(len(rows) - 1, -1, -1):
        if rows[index][1] == "turn/end":
            record = read_at(index)[0]
            if record is not HOLE and record is not TOO_DEEP:
                last_turn_end = index
                break
    for index in range(start, len(rows)):
        row = rows[index]
        record, stored = read_at(index)
        if record is TOO_DEEP:
            raise too_deep(where, None, f"row seq {row[0]}", row[0])
        broken = record is HOLE
        if not broken and row[0] == index:
            failure = keep_taken(keep, take, record, stored, failure)
            continue
        # A database stores a row whole or not at all: no crash tears its log, so a row that
        # does not parse or is not the next event is damage wherever it is -- nothing is cut.
        problem = "does not parse as JSON" if broken else f"has seq {row[0]} where {index} was expected"
        check_torn_region(
            _Records(rows, lambda i: read_at(i)[0]), index, lambda i: (where, None, f"row seq {rows[i][0]}")
        )
        context = (
            f"before the committed turn/end at row seq {rows[last_turn_end][0]}"
            if index <= last_turn_end
            else "after the last turn/end (a database row is never torn: nothing was cut)"
        )
        raise CorruptStoreError(
            Code.STORE_CORRUPT,
            f"{where}: row seq {row[0]} {problem}, {context}: stored data is damaged; restore the "
            "store from a backup or fix the row by hand",
            path=where,
            seq=row[0],
        )
    if failure is not None:
        raise failure


class _Records(Sequence[Any]):
    """The records of ``rows`` read on demand (for the torn region, read once more)."""

    def __init__(self, rows: Sequence[Row], record_at: Callable[[int], Any]) -> None:
        self._rows, self._record_at = rows, record_at

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index: Any) -> Any:
        return self._record_at(index)


#: The type each column of an event row holds (SQLite's STRICT types; PostgreSQL's own).
_COLUMNS = (("seq", (int,)), ("type", (str,)), ("time", (int,)), ("data", (str,)),
            ("source_event_seqs", (str, type(None))), ("surface_op", (str, type(None))))


def check_row(row: Row, where: str) -> None:
    """Refuse a row whose columns do not hold their types (a NULL or an integer ``data``):
    damage, never a torn tail -- a database stores a row whole or not at all."""
    seq, kind, time, data, refs, op = row
    if (
        seq.__class__ is int
        and kind.__class__ is str
        and time.__class__ is int
        and data.__class__ is str
        and (refs is None or refs.__class__ is str)
        and (op is None or op.__class__ is str)
    ):
        return  # the common case, checked in one go
    for (name, kinds), value in zip(_COLUMNS, row, strict=True):
        if type(value) not in kinds:
            raise CorruptStoreError(
                Code.STORE_CORRUPT,
                f"{where}: row seq {row[0]!r}: column {name} holds {type(value).__name__} "
                f"{str(value)[:40]!r}; the database is damaged -- nothing was changed, restore it "
                "from a backup",
                path=where,
                seq=row[0] if type(row[0]) is int else None,
            )


def kept_records(
    rows: Sequence[Row],
    where: str,
    take: Callable[[dict[str, Any], bytes | None], Any] | None = None,
    bulk: Callable[[Sequence[Row]], list[Any] | None] | None = None,
) -> list[Any]:
    """The records of the leading rows a load keeps (:func:`scan_rows`), read from ``where``;
    with ``take``, what it makes of each, in order, as soon as the record is read (so no
    parsed record outlives its own use; ``take``'s error is raised after the scan's).

    ``bulk(run)``, given with ``take``, is offered the leading rows a run at a time: it
    returns what ``take`` would have made of each of them, or ``None`` to leave the run to
    ``take`` row by row (``persistence._bulk``); the result is the same either way."""
    kept: list[Any] = []
    start, failure = 0, None
    if take is not None and bulk is not None:
        start, failure = _plain_prefix(rows, where, take, bulk, kept)
    for index in range(start, len(rows)):
        check_row(rows[index], where)
    _scan(rows, where, lambda index: read_row(rows[index]), kept.append, take, start, failure)
    return kept


#: How many rows are offered to ``bulk`` at a time: the lists of a run are young, and every
#: collection of the young generation walks them, so they are kept short.
_RUN_ROWS = 512


def _plain_prefix(
    rows: Sequence[Row],
    where: str,
    take: Callable[[dict[str, Any], bytes | None], Any],
    bulk: Callable[[Sequence[Row]], list[Any] | None],
    kept: list[Any],
) -> tuple[int, Exception | None]:
    """Keep the leading rows that hold their types, read without damage, are each the next
    event and that ``take`` accepts: runs ``bulk`` takes whole, the others row by row.
    Returns how many rows are kept, and ``take``'s error if it refused the row after them
    (then that row is counted as read: the scan goes on after it, as its own would)."""
    count = len(rows)
    for begin in range(0, count, _RUN_ROWS):
        end = min(begin + _RUN_ROWS, count)
        run = bulk(rows[begin:end])
        if run is not None:
            kept.extend(run)
            continue
        for index in range(begin, end):
            row = rows[index]
            try:
                check_row(row, where)
            except CorruptStoreError:
                return index, None  # the checks of every row left raise it, in order
            record, stored = read_row(row)
            if record is HOLE or record is TOO_DEEP or row[0] != index:
                return index, None  # the scan reads this row again and refuses it
            try:
                kept.append(take(record, stored))
            except Exception as error:  # raised once the whole table is scanned
                return index + 1, error
    return count, None


def readable_headers(rows: Iterable[Sequence[Any]], where: str) -> Iterator[SessionHeader]:
    """The headers that ``sessions`` rows hold, in order, leaving out each row that holds
    none (a listing names the sessions it can read; a load of the others says what is wrong)."""
    for row in rows:
        try:
            yield header_row(row, where)
        except PersistenceError:
            continue


def header_row(row: Sequence[Any], where: str) -> SessionHeader:
    """The header a ``sessions`` row ``(id, version, created_at, cwd, parent_session, seed_length)``
    holds; a row of another format version or with a negative ``seed_length`` is refused."""
    session_id, version, created_at, cwd, parent, seed_length = row
    shapes = ((session_id, (str,)), (version, (int, float)), (created_at, (int,)), (cwd, (str, type(None))),
              (parent, (str, type(None))), (seed_length, (int, type(None))))
    if any(type(value) not in kinds for value, kinds in shapes):
        raise CorruptStoreError(
            Code.STORE_CORRUPT,
            f"{where}: the sessions row {str(session_id)[:40]!r} holds a value of the wrong type; "
            "the database is damaged -- restore it from a backup",
            path=where,
        )
    check_version(version, session_id, path=where)
    if seed_length is not None and seed_length < 0:
        raise CorruptStoreError(
            Code.STORE_CORRUPT,
            f"{where}: session {session_id!r} has a negative seed_length; the row is damaged",
            path=where,
        )
    return SessionHeader(session_id, created_at, version, cwd, parent, seed_length)

"""Sessions as table rows, for the database backends: writing an event row, reading it back,
deciding how many stored rows a load keeps, and reading a session's header row.

A row is ``(seq, type, time, data, source_event_seqs, surface_op)`` with the
three JSON columns as ``JSON.stringify`` text (``surface_op`` the quoted
``"append"`` or the replace object) and NULL for an absent surface field --
the SQLite reference's columns, which the PostgreSQL backend shares.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dsh_session.errors import Code
from dsh_session.event import Event, SessionHeader, payload_text
from dsh_session.persistence._codec import HOLE, check_version, parse, provenance_text, surface_op_text
from dsh_session.persistence.errors import CorruptStoreError

__all__ = ["event_row", "header_row", "kept_records", "row_record", "scan_rows"]

Row = tuple[Any, ...]


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
    column does not parse."""
    seq, kind, time, data_text, refs_text, op_text = row
    data = parse(data_text)
    if data is HOLE:
        return HOLE
    record = {"type": kind, "seq": seq, "time": time, "data": data}
    if refs_text is not None:
        refs = parse(refs_text)
        if refs is HOLE:
            return HOLE
        record["sourceEventSeqs"] = refs
    if op_text is not None:
        op = parse(op_text)
        if op is HOLE:
            return HOLE
        record["surfaceOp"] = op
    return record


def scan_rows(rows: Sequence[Row], records: Sequence[Any], where: str) -> int:
    """How many leading rows a load keeps (``dsh_spec.storage.preserved_prefix``).

    ``rows`` come sorted by seq; ``records`` are their :func:`row_record` values.
    A row that does not parse, or is not the next event, *after* the last
    readable ``turn/end`` is where a crash tore the log: it and the rows after it
    are cut. Before it, that is damage to committed data: ``STORE_CORRUPT``.
    """
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
        if rows[index][1] == "turn/end" and records[index] is not HOLE:
            last_turn_end = index
            break
    for index, row in enumerate(rows):
        broken = records[index] is HOLE
        if not broken and row[0] == index:
            continue
        if index <= last_turn_end:
            problem = "does not parse as JSON" if broken else f"has seq {row[0]} where {index} was expected"
            raise CorruptStoreError(
                Code.STORE_CORRUPT,
                f"{where}: row seq {row[0]} {problem}, before the committed turn/end at row "
                f"seq {rows[last_turn_end][0]}: committed data is damaged; restore the store "
                "from a backup",
                path=where,
                seq=row[0],
            )
        return index
    return len(rows)


def kept_records(rows: Sequence[Row], where: str) -> list[Any]:
    """The records of the leading rows a load keeps (:func:`scan_rows`), read from ``where``."""
    records = [row_record(row) for row in rows]
    del records[scan_rows(rows, records, where) :]
    return records


def header_row(row: Sequence[Any], where: str) -> SessionHeader:
    """The header a ``sessions`` row ``(id, version, created_at, cwd, parent_session, seed_length)``
    holds; a row of another format version or with a negative ``seed_length`` is refused."""
    session_id, version, created_at, cwd, parent, seed_length = row
    check_version(version, session_id, path=where)
    if seed_length is not None and seed_length < 0:
        raise CorruptStoreError(
            Code.STORE_CORRUPT,
            f"{where}: session {session_id!r} has a negative seed_length; the row is damaged",
            path=where,
        )
    return SessionHeader(session_id, created_at, version, cwd, parent, seed_length)

"""``dsh-session validate PATH...``: does every session pass the rules of the log?

Each session is read without changing its store and held to the seed's
admission rules -- every event that breaks one is reported, with the first rule
it breaks (``seed_violations``: a refused event keeps its seq and is left out
of the surface and of what later provenance may name); the first is the one a
load refuses the log for. With ``--invariants`` it is checked with ``check_log``
instead, which adds the turn/step structure (R1, R11-R20) and reports every
violating event, each with the first rule it breaks. ``--rules all`` adds, for a
log that admits, the request-header fold (the header in force must fold from
the logged snapshots and deltas) and tool pairing (every tool result on the
surface answers a call before it). Damage to committed data (a line or row
that does not parse before the last ``turn/end``) is a violation too
(``STORE_CORRUPT`` at its seq). A torn tail or an open turn is not: the session
loads, repaired; the result says what the repair would do. A torn tail is what
a crash leaves -- bytes after the last newline, or a line that does not parse;
a *complete* line after the last ``turn/end`` that parses but is not the next
event (a wrong seq) is no crash's work, so it is held to the rules with the
rest (a load would still cut it).

Exit status: 0 every session valid, 1 some session invalid, 2 some path or
session could not be read at all (missing, not a store, unsupported version or
schema, a header that does not parse, a wrong id). A PATH that holds no session
is valid (0 sessions) only when it is recognisably a store (``require_store``:
a directory with session directories, a SQLite database with our tables, a
PostgreSQL schema that exists); otherwise it fails: "no sessions stored here".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import click

from dsh_session.cli._app import main
from dsh_session.cli._errors import FAILED, FOUND, OK, CliError, error_line, one_line
from dsh_session.cli._options import ids_option, path_argument, store_options
from dsh_session.cli._output import Output, Progress, escape, output
from dsh_session.cli._readonly import Reading, as_parsed
from dsh_session.cli._resolve import Source, require_store, resolve, shown
from dsh_session.cli._rules import rule_of
from dsh_session.errors import Code, DshSessionError, InvalidEventError, ToolPairingError
from dsh_session.event import Event
from dsh_session.invariants import check_log
from dsh_session.persistence.records import HOLE, TOO_DEEP, LogAdmitter, close_open_turn, parse_bytes
from dsh_session.request_header import RequestHeaderError, fold_request_header
from dsh_session.seed_check import seed_violations
from dsh_session.surface import SurfaceManager
from dsh_session.tool_pairing import tool_pairing_balanced

__all__ = ["validate"]

#: What ``--rules`` may ask for, each adding to the one before.
RULE_SETS = ("seed", "invariants", "all")


@dataclass
class _Result:
    """One session's verdict (or why it could not be read)."""

    path: str
    session_id: str | None
    status: str  # "valid" | "invalid" | "unreadable"
    events: int | None = None
    violations: list[dict[str, Any]] = field(default_factory=list)
    repair: dict[str, Any] | None = None
    error: DshSessionError | CliError | None = None

    def to_json(self) -> dict[str, Any]:
        error = None
        if self.error is not None:
            code = self.error.code
            error = {"code": None if code is None else str(code), "message": one_line(self.error.message)}
        return {
            "path": self.path,
            "id": self.session_id,
            "status": self.status,
            "events": self.events,
            "violations": self.violations,
            "repair": self.repair,
            "error": error,
        }


@main.command()
@path_argument("paths", nargs=-1)
@ids_option("Check only this session (repeatable); default: every session of each PATH.")
@click.option(
    "--rules",
    type=click.Choice(RULE_SETS),
    default=None,
    help="seed: the admission rules (default); invariants: also the turn/step structure "
    "(check_log); all: also the request-header fold and tool pairing.",
)
@click.option("--invariants", is_flag=True, help="The same as --rules invariants.")
@store_options
def validate(
    paths: tuple[str, ...],
    session_ids: tuple[str, ...],
    rules: str | None,
    invariants: bool,
    backend: str | None,
    pg_schema: str | None,
    as_json: bool,
    no_color: bool,
) -> None:
    """Check sessions against the rules of the log.

    PATH is a JSONL root, a session's JSONL file, a SQLite database, a JSON /
    JSONL event list or a PostgreSQL URL. Exit status 0 valid, 1 invalid, 2 could not read.
    """
    if rules is None:
        rules = "invariants" if invariants else "seed"
    elif invariants and rules == "seed":
        raise click.UsageError("--invariants and --rules seed ask for different rules")
    out = output(no_color, as_json)
    results: list[_Result] = []
    with out.progress("checking") as bar:
        for path in paths:
            results.extend(_check_path(path, session_ids, backend, pg_schema, rules, bar))
    statuses = {result.status for result in results}
    status = FAILED if "unreadable" in statuses else FOUND if "invalid" in statuses else OK
    if as_json:
        out.json(
            {
                "valid": status == OK,
                "status": status,
                "rules": rules,
                "invariants": rules != "seed",
                "sessions": [result.to_json() for result in results],
            }
        )
    else:
        _report(out, results)
    if status != OK:
        raise click.exceptions.Exit(status)


def _check_path(
    path: str,
    session_ids: tuple[str, ...],
    backend: str | None,
    schema: str | None,
    rules: str,
    bar: Progress,
) -> list[_Result]:
    only = session_ids[0] if len(session_ids) == 1 else None
    try:
        source = resolve(path, backend, session_id=only, schema=schema)
    except (CliError, DshSessionError) as error:
        return [_Result(shown(path, backend), None, "unreadable", error=error)]
    try:
        readings = _readings(source, session_ids)
        if not readings:
            require_store(source, [])
        return [_check(where, sid, reading, rules, bar) for where, sid, reading in readings]
    except (CliError, DshSessionError) as error:
        return [_Result(source.path, None, "unreadable", error=error)]
    finally:
        source.close()


_Found = tuple[str, str | None, Reading | DshSessionError]


def _readings(source: Source, session_ids: tuple[str, ...]) -> list[_Found]:
    if not session_ids:
        return list(source.readings())
    found: list[_Found] = []
    for session_id in session_ids:
        try:
            reading = source.read(session_id)
            found.append((reading.where, session_id, reading))
        except DshSessionError as error:
            found.append((source.path, session_id, error))
    return found


def _check(
    path: str, session_id: str | None, reading: Reading | DshSessionError, rules: str, bar: Progress
) -> _Result:
    if isinstance(reading, DshSessionError):
        if reading.code == Code.STORE_CORRUPT and reading.seq is not None:
            # Committed data is damaged: the session is there, and it breaks a rule.
            violation = _violation(reading.code, reading.seq, reading.message, None)
            violation["line"] = getattr(reading, "line", None)
            return _Result(path, session_id, "invalid", violations=[violation])
        return _Result(path, session_id, "unreadable", error=reading)
    result = _Result(reading.where, reading.header.id, "valid", events=len(reading.records))
    whole = _complete_tail(reading)
    records: Sequence[Any] = [*reading.records, *whole] if whole else reading.records
    bar.total(len(records) * (1 if rules == "seed" else 2))
    bar.advance(0, stage=f"checking {reading.where}")
    found = result.violations
    if rules != "seed":
        every = check_log(as_parsed(records))
        found.extend(_violation(v.code, v.seq, v.message, reading, records) for v in every)
        bar.advance(len(records))
    if not found or rules == "all":
        events, problem = _admit(reading, records, bar)
        if problem is None:
            stored = events[: len(records)]
            if not found:
                result.repair = _repair(reading, events)
            if rules == "all":
                found.extend(_fold_and_pairing(stored, reading))
                found.sort(key=lambda item: (item["seq"] is None, item["seq"] or 0))
        elif not found:  # the first; now every one (the first is the same)
            every = seed_violations(as_parsed(records))
            found.extend(_violation(v.code, v.seq, v.message, reading, records) for v in every)
    if found:
        result.status = "invalid"
        result.repair = None
    return result


def _complete_tail(reading: Reading) -> list[Any]:
    """The records a load would cut as a torn tail that are no crash's work: the complete lines
    (ended by a newline) at the start of the tail that parse. A crash tears the write in flight,
    so a torn line is cut short or garbled; a whole line that parses but is not the next event
    (a wrong seq) was written so, and the rules judge it."""
    lines = _tail_bytes(reading).split(b"\n")[:-1]  # the bytes after the last newline are torn
    out: list[Any] = []
    for line in lines:
        record = parse_bytes(line)
        if record is HOLE or record is TOO_DEEP:
            break
        out.append(record)
    return out


def _tail_bytes(reading: Reading) -> bytes:
    """The bytes a load would cut from a JSONL log file (``cut_bytes`` at its end), read again;
    nothing when there are none, or when the file is no longer the size it was read at."""
    if not reading.cut_bytes or reading.stored_bytes is None:
        return b""
    try:
        with open(reading.where, "rb") as handle:
            handle.seek(0, 2)
            if handle.tell() != reading.stored_bytes:
                return b""
            handle.seek(reading.stored_bytes - reading.cut_bytes)
            return handle.read(reading.cut_bytes)
    except OSError:
        return b""


def _fold_and_pairing(events: list[Event], reading: Reading) -> list[dict[str, Any]]:
    """The request-header fold and tool pairing of an admitted log (``--rules all``)."""
    found: list[dict[str, Any]] = []
    try:
        fold_request_header(events)
    except RequestHeaderError as error:
        found.append(_violation(error.code, error.seq, error.message, reading))
    try:
        tool_pairing_balanced(SurfaceManager(events).nodes, events)
    except ToolPairingError as error:
        found.append(_violation(error.code, error.seq, error.message, reading))
    return found


def _admit(
    reading: Reading, records: Sequence[Any], bar: Progress
) -> tuple[list[Event], dict[str, Any] | None]:
    """Admit the stored records as a seed: the events (and the closers a load would add), or the
    first violation. Numbers are read as a load reads them (``as_parsed``: an integer beyond 2**53
    is the double JavaScript makes of it)."""
    admitter = LogAdmitter()
    events: list[Event] = []
    for index, record in enumerate(records):
        if not index & _STEP_MASK and index:
            bar.advance(_STEP_MASK + 1)
        if not isinstance(record, dict):
            return events, _violation(
                Code.MALFORMED_EVENT, index, f"the record at seq {index} is not an event object", reading
            )
        try:
            events.append(admitter.admit_parsed(record))
        except InvalidEventError as error:
            return events, _violation(error.code, error.seq, error.message, reading, records)
    close_open_turn(events, admitter)
    return events, None


#: The progress bar moves on every this many records (plus one).
_STEP_MASK = 0x1FFF


def _repair(reading: Reading, events: list[Event]) -> dict[str, Any] | None:
    closers = len(events) - len(reading.records)
    if not closers and not reading.cut_records:
        return None
    return {"cutRecords": reading.cut_records, "cutBytes": reading.cut_bytes, "closers": closers}


def _violation(
    code: Code, seq: int | None, message: str, reading: Reading | None, records: Sequence[Any] | None = None
) -> dict[str, Any]:
    line = None
    held = reading.records if records is None and reading is not None else records or []
    if reading is not None and type(seq) is int and 0 <= seq < len(held):
        kept = len(reading.records)
        if seq < kept:
            line = reading.locate(seq).line
        elif reading.cut_bytes is not None:  # a complete line of a JSONL file's tail, after the kept
            last = reading.locate(kept - 1).line if kept else 1
            line = None if last is None else last + seq - kept + 1
    return {"code": str(code), "seq": seq, "rule": rule_of(code), "message": one_line(message), "line": line}


def _report(out: Output, results: list[_Result]) -> None:
    for result in results:
        name = result.path if result.session_id is None else f"{result.path} [{result.session_id}]"
        if result.status == "unreadable":
            assert result.error is not None
            click.echo(error_line(result.error, about=result.path), err=True)
            continue
        if result.status == "valid":
            out.print(f"[green]valid[/green]   {escape(name)}: {result.events} events")
        else:
            count = len(result.violations)
            out.print(f"[bold red]INVALID[/bold red] {escape(name)}: {count} violation{'s' * (count != 1)}")
            for item in result.violations:
                where = f"seq {item['seq']}" if item["seq"] is not None else "seq ?"
                if item["line"] is not None:
                    where += f" (line {item['line']})"
                out.print(f"  {where}: [red]{item['code']}[/red] -- {escape(item['rule'])}")
                out.print(f"    {escape(item['message'])}")
        if result.repair is not None:
            repair = result.repair
            parts = []
            if repair["cutRecords"]:
                cut = f"{repair['cutRecords']} torn record(s)"
                if repair["cutBytes"] is not None:
                    cut += f" ({repair['cutBytes']} bytes)"
                parts.append(f"cut {cut}")
            if repair["closers"]:
                parts.append(f"add {repair['closers']} closer(s) to the open turn")
            out.print(f"  [yellow]a load repairs it:[/yellow] {', '.join(parts)} (dsh-session repair)")
    if len(results) > 1:
        counts = {key: sum(r.status == key for r in results) for key in ("valid", "invalid", "unreadable")}
        out.print(
            f"{len(results)} sessions: {counts['valid']} valid, {counts['invalid']} invalid, "
            f"{counts['unreadable']} unreadable"
        )

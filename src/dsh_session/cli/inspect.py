"""``dsh-session inspect PATH``: a session at a glance.

Turns, steps, tool calls (answered or not), compactions and replaces, the
surface and the message history's size, the stored size, the header and the
lineage of a fork, and what a load would repair. The store is read, never
written.

A *tool call* is a ``tool-call`` block of an ``assistant/message`` or a
``tool/call`` event, identified by its turn, step and call id (a block and the
``tool/call`` event that runs it are one call); it is *answered* when a
``tool/result`` of the same turn, step and call id is in the log.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from dsh_session.cli._app import main
from dsh_session.cli._common import read_snapshot, seeded
from dsh_session.cli._options import view_options
from dsh_session.cli._output import controls, escape, output, visible
from dsh_session.cli._readonly import Snapshot
from dsh_session.cli._resolve import shown
from dsh_session.event import Event, Replace
from dsh_session.persistence._codec import event_line, header_line

__all__ = ["inspect", "summarize"]


@main.command()
@view_options
def inspect(
    path: str,
    session_id: str | None,
    repaired: bool,
    backend: str | None,
    pg_schema: str | None,
    as_json: bool,
    no_color: bool,
) -> None:
    """Summarize a session: turns, steps, tool calls, compactions, sizes, header, lineage."""
    snap, kind = read_snapshot(path, backend, session_id, pg_schema)
    summary = summarize(snap, repaired=repaired, backend=kind)
    out = output(no_color)
    if as_json:
        out.json(summary)
        return
    table = Table(
        show_header=False,
        box=None,
        title=Text(visible(f"session {controls(summary['id'])}")),
        title_justify="left",
    )
    table.add_column(style="bold")
    table.add_column()
    for label, value in _rows(summary):
        table.add_row(label, Text(visible(value)))
    out.print(table)
    repair = summary["repair"]
    if repair is not None and not repaired:
        command = f"dsh-session repair {shown(path, backend)}"
        if pg_schema is not None:
            command += f" --pg-schema {pg_schema}"
        out.print(
            f"[yellow]a load would repair it:[/yellow] cut {repair['cutRecords']} torn record(s), "
            f"add {repair['closers']} closer(s) -- [bold]{escape(command)}[/bold]"
        )


def summarize(snap: Snapshot, *, repaired: bool, backend: str) -> dict[str, Any]:
    """The ``inspect --json`` document for ``snap``."""
    events = snap.log(repaired)
    header = snap.header
    session = seeded(snap, repaired)
    types = Counter(event.type for event in events)
    calls, answered = _tool_calls(events)
    reading = snap.reading
    repair = None
    if snap.needs_repair:
        repair = {
            "cutRecords": reading.cut_records,
            "cutBytes": reading.cut_bytes,
            "closers": len(snap.closers),
        }
    return {
        "id": header.id,
        "path": reading.where,
        "backend": backend,
        "repaired": repaired,
        "header": header.to_json(),
        "lineage": {"parentSession": header.parent_session, "seedLength": header.seed_length},
        "events": len(events),
        "bytes": len(header_line(header).encode("utf-8"))
        + 1
        + sum(len(event_line(event).encode("utf-8")) + 1 for event in events),
        "storedBytes": reading.stored_bytes,
        "time": {"first": events[0].time if events else None, "last": events[-1].time if events else None},
        "turns": {
            "count": types["turn/start"],
            "open": _open_turn(events),
            "interrupted": sum(1 for event in events if _reason(event) == "interrupted"),
        },
        "steps": types["step/start"],
        "toolCalls": {
            "total": len(calls),
            "answered": len(answered),
            "unanswered": [call[2] for call in calls if call not in answered],
        },
        "compactions": {
            "started": types["compact/start"],
            "replaces": sum(1 for event in events if isinstance(event.surface_op, Replace)),
        },
        "surface": {"nodes": len(session.surface), "generation": session.surface.replace_generation},
        "messages": len(session.derive_messages()),
        "types": dict(sorted(types.items())),
        "repair": repair,
    }


def _tool_calls(events: Sequence[Event]) -> tuple[list[tuple[Any, Any, Any]], set[tuple[Any, Any, Any]]]:
    """The tool calls of the log (in order of first mention) and those a result answers."""
    calls: dict[tuple[Any, Any, Any], None] = {}
    results: set[tuple[Any, Any, Any]] = set()
    for event in events:
        data = event.data
        if not isinstance(data, dict):
            continue
        where = (data.get("turn"), data.get("step"))
        if event.type == "assistant/message" and isinstance(data.get("content"), list):
            for block in data["content"]:
                if isinstance(block, dict) and block.get("type") == "tool-call":
                    calls.setdefault((*where, block.get("id")), None)
        elif event.type == "tool/call":
            calls.setdefault((*where, data.get("callId")), None)
        elif event.type == "tool/result":
            results.add((*where, data.get("callId")))
    return list(calls), {call for call in calls if call in results}


def _open_turn(events: Sequence[Event]) -> Any:
    """The turn the log ends inside, or None."""
    open_turn = None
    for event in events:
        if event.type == "turn/start" and isinstance(event.data, dict):
            open_turn = event.data.get("turn")
        elif event.type == "turn/end":
            open_turn = None
    return open_turn


def _reason(event: Event) -> Any:
    if event.type != "turn/end" or not isinstance(event.data, dict):
        return None
    reason = event.data.get("reason")
    return reason.get("kind") if isinstance(reason, dict) else None


def _rows(summary: dict[str, Any]) -> list[tuple[str, str]]:
    header = summary["header"]
    lineage = summary["lineage"]
    turns = summary["turns"]
    calls = summary["toolCalls"]
    stored = summary["storedBytes"]
    rows = [
        ("store", f"{summary['path']} ({summary['backend']})"),
        ("created", str(header["createdAt"])),
        ("cwd", str(header.get("cwd", "-"))),
        (
            "lineage",
            "-"
            if lineage["parentSession"] is None
            else f"forked from {lineage['parentSession']} (first {lineage['seedLength']} events)",
        ),
        (
            "events",
            f"{summary['events']} ({summary['bytes']} bytes as JSONL"
            + (f"; file {stored} bytes" if stored is not None else "")
            + ")",
        ),
        (
            "turns",
            f"{turns['count']}"
            + (f", turn {turns['open']} open" if turns["open"] is not None else "")
            + (f", {turns['interrupted']} interrupted" if turns["interrupted"] else ""),
        ),
        ("steps", str(summary["steps"])),
        (
            "tool calls",
            f"{calls['total']} ({calls['answered']} answered"
            + (f", unanswered: {', '.join(map(str, calls['unanswered']))}" if calls["unanswered"] else "")
            + ")",
        ),
        (
            "compactions",
            f"{summary['compactions']['started']} started, {summary['compactions']['replaces']} replace(s)",
        ),
        ("surface", f"{summary['surface']['nodes']} nodes, generation {summary['surface']['generation']}"),
        ("messages", str(summary["messages"])),
    ]
    return rows

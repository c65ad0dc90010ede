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

import datetime
from collections import Counter
from collections.abc import Sequence
from typing import Any

from dsh_session.cli._common import View, view_command
from dsh_session.cli._output import controls, escape
from dsh_session.cli._readonly import events_of
from dsh_session.cli._resolve import shown
from dsh_session.event import Event, LoggedEvent, Replace, SessionHeader
from dsh_session.js_json import dumps, js_number, js_string
from dsh_session.persistence import RepairReport
from dsh_session.surface import SurfaceManager

__all__ = ["inspect", "readable_time", "summarize"]


@view_command
def inspect(view: View) -> None:
    """Summarize a session: turns, steps, tool calls, compactions, sizes, header, lineage."""
    summary = summarize(view.snap, repaired=view.repaired, backend=view.kind, surface=view.surface)
    out = view.out
    if view.as_json:
        out.json(summary)
        return
    out.print(f"[bold]session {escape(controls(summary['id']))}[/bold]")
    rows = _rows(summary)
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        out.print(f"[bold]{label.ljust(width)}[/bold]  {escape(controls(value))}".rstrip())
    repair = summary["repair"]
    if repair is not None and not view.repaired:
        command = f"dsh-session repair {shown(view.path, view.backend)}"
        if view.pg_schema is not None:
            command += f" --pg-schema {view.pg_schema}"
        out.print(
            f"[yellow]a load would repair it:[/yellow] cut {repair['cutRecords']} torn record(s), "
            f"add {repair['closers']} closer(s) -- [bold]{escape(controls(command))}[/bold]"
        )


def readable_time(ms: Any) -> str:
    """A time in milliseconds since the epoch as a UTC date and time (``2026-01-01 00:00:00.000
    UTC``); a value no date can be made of is shown as it is."""
    if type(ms) is not int:
        return str(ms)
    try:
        moment = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    except (OverflowError, OSError, ValueError):
        return f"{ms} ms since the epoch"
    moment = moment.replace(microsecond=(ms % 1000) * 1000)
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d} UTC"


def summarize(
    snap: RepairReport, *, repaired: bool, backend: str, surface: SurfaceManager | None = None
) -> dict[str, Any]:
    """The ``inspect --json`` document for ``snap`` (``surface``: the surface of its log)."""
    events = events_of(snap, repaired)
    header = snap.header
    if surface is None:
        surface = SurfaceManager(events)
    nodes = surface.nodes
    types = Counter(event.type for event in events)
    facts = _facts(events)
    calls, answered = facts.calls, facts.answered
    reading = snap.log
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
        "bytes": jsonl_bytes(header, events),
        "storedBytes": reading.stored_bytes,
        "time": {"first": events[0].time if events else None, "last": events[-1].time if events else None},
        "turns": {"count": types["turn/start"], "open": facts.open_turn, "interrupted": facts.interrupted},
        "steps": types["step/start"],
        "toolCalls": {
            "total": len(calls),
            "answered": len(answered),
            "unanswered": [call[2] for call in calls if call not in answered],
        },
        "compactions": {"started": types["compact/start"], "replaces": facts.replaces},
        "surface": {"nodes": len(nodes), "generation": surface.replace_generation},
        # Every surface node has a message but an assistant/message without content.
        "messages": len(nodes) - sum(1 for node in nodes if node.seq in facts.no_content),
        "types": dict(sorted(types.items())),
        "repair": repair,
    }


def jsonl_bytes(header: SessionHeader, events: Sequence[Event]) -> int:
    """The size of the session written as JSONL (the header line and one line per event, each
    with its newline), counted from the events' canonical payload texts -- nothing is encoded:
    a line is ``{"type":T,"seq":S,"time":M,"data":D[,"sourceEventSeqs":[...]][,"surfaceOp":O]}``,
    whatever the order of its keys."""
    fixed = len('{"type":,"seq":,"time":,"data":}\n')
    header_json = {"type": "session", **header.to_json()}
    total = len(
        ("{" + ",".join(f"{js_string(k)}:{_scalar(v)}" for k, v in header_json.items()) + "}\n").encode()
    )
    quoted: dict[str, int] = {}
    for event in events:
        kind = quoted.get(event.type)
        if kind is None:
            kind = quoted[event.type] = len(js_string(event.type).encode("utf-8", "surrogatepass"))
        time = event.time
        total += fixed + kind + len(str(event.seq)) + len(js_number(time)) + len(_text(event))
        refs = event.source_event_seqs
        if refs is not None:
            total += len(',"sourceEventSeqs":[]') + sum(len(str(ref)) for ref in refs) + max(len(refs) - 1, 0)
        op = event.surface_op
        if op is not None:
            total += len(',"surfaceOp":')
            if isinstance(op, Replace):
                total += len('{"op":"replace","start":,"end":}') + len(str(op.start)) + len(str(op.end))
            else:
                total += len(js_string(op))
    return total


def _text(event: Event) -> bytes:
    """The canonical JSON text of ``event``'s payload (a logged event holds it)."""
    return (
        event.text if isinstance(event, LoggedEvent) else dumps(event.data).encode("utf-8", "surrogatepass")
    )


def _scalar(value: Any) -> str:
    return js_string(value) if isinstance(value, str) else js_number(value)


class _Facts:
    """What ``inspect`` counts in one pass over the log."""

    __slots__ = ("answered", "calls", "interrupted", "no_content", "open_turn", "replaces")

    def __init__(self) -> None:
        self.calls: list[tuple[Any, Any, Any]] = []
        self.answered: set[tuple[Any, Any, Any]] = set()
        self.open_turn: Any = None
        self.interrupted = 0
        self.replaces = 0
        #: The assistant/message events without content (they project to no message).
        self.no_content: set[int] = set()


#: The event types whose payload ``inspect`` looks into (every other is only counted).
_LOOKED_INTO = frozenset({"assistant/message", "tool/call", "tool/result", "turn/start", "turn/end"})


def _facts(events: Sequence[Event]) -> _Facts:
    """The tool calls of the log (in order of first mention) and those a result answers; the turn
    the log ends inside (or None); the interrupted turns; the replaces. Only the payloads of the
    events that can tell are decoded."""
    facts = _Facts()
    calls: dict[tuple[Any, Any, Any], None] = {}
    results: set[tuple[Any, Any, Any]] = set()
    for event in events:
        if isinstance(event.surface_op, Replace):
            facts.replaces += 1
        kind = event.type
        if kind not in _LOOKED_INTO:
            continue
        if kind == "turn/end":
            facts.open_turn = None
            if b"interrupted" not in _text(event):
                continue
        data = event.data
        if not isinstance(data, dict):
            continue
        if kind == "turn/start":
            facts.open_turn = data.get("turn")
            continue
        if kind == "turn/end":
            reason = data.get("reason")
            if isinstance(reason, dict) and reason.get("kind") == "interrupted":
                facts.interrupted += 1
            continue
        where = (data.get("turn"), data.get("step"))
        if kind == "assistant/message" and not data.get("content"):
            facts.no_content.add(event.seq)
        if kind == "assistant/message" and isinstance(data.get("content"), list):
            for block in data["content"]:
                if isinstance(block, dict) and block.get("type") == "tool-call":
                    calls.setdefault((*where, block.get("id")), None)
        elif kind == "tool/call":
            calls.setdefault((*where, data.get("callId")), None)
        elif kind == "tool/result":
            results.add((*where, data.get("callId")))
    facts.calls = list(calls)
    facts.answered = {call for call in calls if call in results}
    return facts


def _rows(summary: dict[str, Any]) -> list[tuple[str, str]]:
    header = summary["header"]
    lineage = summary["lineage"]
    turns = summary["turns"]
    calls = summary["toolCalls"]
    stored = summary["storedBytes"]
    rows = [
        ("store", f"{summary['path']} ({summary['backend']})"),
        ("created", readable_time(header["createdAt"])),
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

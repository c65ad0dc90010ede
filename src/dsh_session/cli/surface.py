"""``dsh-session surface PATH``: the surface, head to tail, with what each replace shadows.

Every node has its ``prev`` / ``next`` neighbours; a replace node also has its
``sourceEventSeqs`` and the seqs it took off the surface when it was folded
(``shadows``). The store is read, never written.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from dsh_session.cli._app import main
from dsh_session.cli._common import opened, snapshot
from dsh_session.cli._options import (
    backend_option,
    id_option,
    json_option,
    no_color_option,
    path_argument,
    pg_schema_option,
    repaired_option,
)
from dsh_session.cli._output import output, render_content, visible
from dsh_session.cli._surface import shadowed_by_replace
from dsh_session.event import Replace
from dsh_session.session import Session

__all__ = ["surface"]


@main.command()
@path_argument()
@id_option()
@repaired_option
@backend_option
@pg_schema_option
@json_option
@no_color_option
def surface(
    path: str,
    session_id: str | None,
    repaired: bool,
    backend: str | None,
    pg_schema: str | None,
    as_json: bool,
    no_color: bool,
) -> None:
    """Print a session's surface: each node with prev / next and what a replace shadows."""
    with opened(path, backend, session_id, schema=pg_schema) as source:
        snap = snapshot(source, session_id)
    events = snap.log(repaired)
    session = Session(snap.header.id, seed=events, header=snap.header)
    shadows = shadowed_by_replace(events)
    nodes: list[dict[str, Any]] = []
    for node in session.surface.nodes:
        event = events[node.seq]
        op = event.surface_op
        nodes.append(
            {
                "seq": node.seq,
                "type": event.type,
                "prev": node.prev,
                "next": node.next,
                "surfaceOp": op.to_json() if isinstance(op, Replace) else op,
                "sourceEventSeqs": None if event.source_event_seqs is None else list(event.source_event_seqs),
                "shadows": shadows.get(node.seq),
            }
        )
    generation = session.surface.replace_generation
    out = output(no_color)
    if as_json:
        out.json(
            {
                "id": session.id,
                "events": session.seq,
                "repaired": repaired,
                "generation": generation,
                "nodes": nodes,
            }
        )
        return
    table = Table(
        title=Text(visible(f"surface of {session.id} ({len(nodes)} nodes, generation {generation})"))
    )
    for name in ("seq", "type", "prev", "next", "op"):
        table.add_column(name, no_wrap=True, min_width=len(name))
    table.add_column("shadows", min_width=7, overflow="fold")
    previews = out.console.width >= _WIDE  # on a narrow terminal the structure comes first
    if previews:
        table.add_column("message", min_width=7)
    for item in nodes:
        op = item["surfaceOp"]
        op_text = op if isinstance(op, str) else f"replace {op['start']}..{op['end']}"
        shadow = item["shadows"]
        message = session.derive_event_message(events[item["seq"]])
        preview = "" if message is None else render_content(message["content"]).replace("\n", " ")
        cells = (
            str(item["seq"]),
            item["type"],
            _opt(item["prev"]),
            _opt(item["next"]),
            op_text,
            "" if shadow is None else ", ".join(map(str, shadow)),
            preview if len(preview) <= _PREVIEW else preview[: _PREVIEW - 3] + "...",
        )
        table.add_row(*(Text(visible(cell)) for cell in cells[: None if previews else -1]))
    out.print(table)
    if snap.needs_repair and not repaired:
        out.note("note: a load would repair this session (see `dsh-session inspect`); --repaired shows it")


_PREVIEW = 48
_WIDE = 100


def _opt(value: int | None) -> str:
    return "-" if value is None else str(value)

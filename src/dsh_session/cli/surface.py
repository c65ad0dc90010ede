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
from dsh_session.cli._common import note_repair, read_snapshot, seeded
from dsh_session.cli._options import view_options
from dsh_session.cli._output import controls, output, render_content, visible
from dsh_session.cli._surface import shadowed_by_replace
from dsh_session.event import Replace

__all__ = ["surface"]


@main.command()
@view_options
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
    snap, _ = read_snapshot(path, backend, session_id, pg_schema)
    events = snap.log(repaired)
    session = seeded(snap, repaired)
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
        title=Text(
            visible(f"surface of {controls(session.id)} ({len(nodes)} nodes, generation {generation})")
        )
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
    note_repair(out, snap, repaired)


_PREVIEW = 48
_WIDE = 100


def _opt(value: int | None) -> str:
    return "-" if value is None else str(value)

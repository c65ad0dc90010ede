"""``dsh-session surface PATH``: the surface, head to tail, with what each replace shadows.

Every node has its ``prev`` / ``next`` neighbours; a replace node also has its
``sourceEventSeqs`` and the seqs it took off the surface when it was folded
(``shadows``). The store is read, never written. The table is written row by
row (its column widths come from the log, before any message is rendered), and
``--json`` is written from the nodes' numbers directly.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from dsh_session.cli._common import View, note_repair, view_command
from dsh_session.cli._output import controls, escape, render_content
from dsh_session.cli._surface import shadowed_by_replace
from dsh_session.event import Event, Replace, SurfaceNode
from dsh_session.js_json import dumps, js_string
from dsh_session.projection import derive_event_message

__all__ = ["surface"]

_PREVIEW = 48
_WIDE = 100
#: A replace's shadows shown in the table: this many seqs, then how many there are.
_SHADOWS_SHOWN = 8
_GAP = "  "


@view_command
def surface(view: View) -> None:
    """Print a session's surface: each node with prev / next and what a replace shadows."""
    events = view.events
    nodes = view.surface.nodes
    shadows = shadowed_by_replace(events)
    generation = view.surface.replace_generation
    session_id = view.snap.header.id
    out = view.out
    if view.as_json:
        head = dumps(
            {"id": session_id, "events": len(events), "repaired": view.repaired, "generation": generation}
        )
        out.json_parts([head[:-1], ',"nodes":[', ",".join(_node_texts(nodes, events, shadows)), "]}"])
        return
    out.print(escape(f"surface of {controls(session_id)} ({len(nodes)} nodes, generation {generation})"))
    for line in _table(view, nodes, shadows, previews=out.width >= _WIDE):
        out.print(line)
    note_repair(out, view.snap, view.repaired)


def _node_texts(
    nodes: Sequence[SurfaceNode], events: Sequence[Event], shadows: dict[int, list[int]]
) -> Iterator[str]:
    """Each node's JSON object (``JSON.stringify``'s text), head to tail."""
    types: dict[str, str] = {}
    for seq, prev, after in nodes:
        event = events[seq]
        kind = types.get(event.type)
        if kind is None:
            kind = types[event.type] = js_string(event.type)
        op = event.surface_op
        op_text = (
            f'{{"op":"replace","start":{op.start},"end":{op.end}}}' if isinstance(op, Replace) else '"append"'
        )
        refs = event.source_event_seqs
        shadow = shadows.get(seq)
        yield (
            f'{{"seq":{seq},"type":{kind},"prev":{"null" if prev is None else prev},'
            f'"next":{"null" if after is None else after},"surfaceOp":{op_text},'
            f'"sourceEventSeqs":{"null" if refs is None else _ints(refs)},'
            f'"shadows":{"null" if shadow is None else _ints(shadow)}}}'
        )


def _ints(values: Sequence[int]) -> str:
    return "[" + ",".join(map(str, values)) + "]"


def _op(event: Event) -> str:
    op = event.surface_op
    return f"replace {op.start}..{op.end}" if isinstance(op, Replace) else str(op)


def _shadows(shadow: list[int] | None) -> str:
    if shadow is None:
        return ""
    shown = ", ".join(map(str, shadow[:_SHADOWS_SHOWN]))
    return shown if len(shadow) <= _SHADOWS_SHOWN else f"{shown}, ... ({len(shadow)} seqs)"


def _table(
    view: View, nodes: Sequence[SurfaceNode], shadows: dict[int, list[int]], *, previews: bool
) -> Iterator[str]:
    """The table's lines (markup): a header, then one row per node, written as it is made. The
    widths come from the numbers and types alone, so no message is rendered before the first row."""
    events = view.events
    number = max(len("prev"), len(str(max(len(events) - 1, 0))))
    kind = max([len("type"), *(len(controls(events[node.seq].type)) for node in nodes)])
    op = max([len("op"), *(len(_op(events[node.seq])) for node in nodes)])
    shadow = max([len("shadows"), *(len(_shadows(shadows.get(node.seq))) for node in nodes)])
    widths = (number, kind, number, number, op, shadow)
    names = ("seq", "type", "prev", "next", "op", "shadows", *(("message",) if previews else ()))
    yield "[bold]" + escape(_row(names, widths)) + "[/bold]"
    for seq, prev, after in nodes:
        event = events[seq]
        cells = [
            str(seq),
            controls(event.type),
            "-" if prev is None else str(prev),
            "-" if after is None else str(after),
            _op(event),
            _shadows(shadows.get(seq)),
        ]
        if previews:
            message = derive_event_message(event)
            preview = (
                "" if message is None else controls(render_content(message["content"]).replace("\n", " "))
            )
            cells.append(preview if len(preview) <= _PREVIEW else preview[: _PREVIEW - 3] + "...")
        yield escape(_row(cells, widths))


def _row(cells: Sequence[str], widths: Sequence[int]) -> str:
    padded = [cell.ljust(width) for cell, width in zip(cells, widths, strict=False)]
    return _GAP.join([*padded, *cells[len(widths) :]]).rstrip()

"""``dsh-session demo``: validate and derive the bundled example session."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import click

from dsh_session.cli._app import main
from dsh_session.cli._options import no_color_option
from dsh_session.cli._output import escape, output
from dsh_session.session import Session


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@no_color_option
def demo(as_json: bool, no_color: bool) -> None:
    """Validate the bundled example session and print its surface and messages."""
    text = resources.files("dsh_session").joinpath("examples/example-session.json").read_text("utf-8")
    records = json.loads(text)
    session = Session("example", seed=records)  # valid; were it not, the group reports the error
    nodes = session.surface.nodes
    messages = session.derive_messages()
    if as_json:
        document = {
            "events": session.seq,
            "surface": [node._asdict() for node in nodes],
            "generation": session.surface.replace_generation,
            "messages": messages.to_json(),
        }
        output(no_color).json(document)  # one line, as every --json
        return
    out = output(no_color)
    out.print(
        f"[bold]example session[/bold]: {session.seq} events, valid; "
        f"{len(nodes)} surface nodes, replace generation {session.surface.replace_generation}"
    )
    out.print("[bold]surface (head to tail)[/bold]")
    rows = [("seq", "type", "prev", "next")]
    events = session.events
    rows += [(str(node.seq), events[node.seq].type, _opt(node.prev), _opt(node.next)) for node in nodes]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)]
        out.print(escape("  ".join([*cells, row[3]])))
    out.print(f"[bold]derived messages[/bold] ({len(messages)}):")
    for index, message in enumerate(messages):
        role, text = escape(str(message["role"])), escape(_render(message["content"]))
        out.print(f"[cyan]{index} {role}[/cyan] {text}")


def _opt(value: int | None) -> str:
    return "-" if value is None else str(value)


def _render(content: Any) -> str:
    parts = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            parts.append(block["text"])
        elif kind == "tool-call":
            parts.append(f"[tool-call {block.get('id')} {block.get('name')}({block.get('arguments')})]")
        elif kind == "tool-result":
            parts.append(f"[tool-result {block.get('toolCallId')}: {_render(block.get('content', []))}]")
        else:
            parts.append(f"[{kind}]")
    return " ".join(parts)

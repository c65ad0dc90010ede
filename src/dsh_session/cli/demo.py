"""``dsh-session demo``: validate and derive the bundled example session."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import click
from rich.table import Table

from dsh_session.cli._app import main
from dsh_session.cli._options import no_color_option
from dsh_session.cli._output import output
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
        out = {
            "events": session.seq,
            "surface": [node._asdict() for node in nodes],
            "generation": session.surface.replace_generation,
            "messages": messages.to_json(),
        }
        output(no_color).json(out)  # one line, as every --json
        return
    console = output(no_color).console
    console.print(
        f"[bold]example session[/bold]: {session.seq} events, valid; "
        f"{len(nodes)} surface nodes, replace generation {session.surface.replace_generation}"
    )
    table = Table("seq", "type", "prev", "next", title="surface (head to tail)")
    for node in nodes:
        event = session.events[node.seq]
        table.add_row(str(node.seq), event.type, _opt(node.prev), _opt(node.next))
    console.print(table)
    console.print(f"[bold]derived messages[/bold] ({len(messages)}):")
    for index, message in enumerate(messages):
        console.print(f"[cyan]{index} {message['role']}[/cyan]", _render(message["content"]), highlight=False)


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

"""``dsh-session derive PATH``: the message history a session's surface derives.

The store is read, never written. By default the session is shown as stored;
``--repaired`` shows it as a load returns it, with the closers of a turn a
crash left open.
"""

from __future__ import annotations

from dsh_session.cli._app import main
from dsh_session.cli._common import note_repair, read_snapshot, seeded
from dsh_session.cli._options import view_options
from dsh_session.cli._output import escape, output, render_content

__all__ = ["derive"]

_ROLE_STYLE = {"user": "bold cyan", "assistant": "bold green"}


@main.command()
@view_options
def derive(
    path: str,
    session_id: str | None,
    repaired: bool,
    backend: str | None,
    pg_schema: str | None,
    as_json: bool,
    no_color: bool,
) -> None:
    """Print the derived message history of a session, as a transcript or as JSON."""
    snap, _ = read_snapshot(path, backend, session_id, pg_schema)
    session = seeded(snap, repaired)
    out = output(no_color)
    if as_json:
        out.json(
            {
                "id": session.id,
                "events": session.seq,
                "repaired": repaired,
                "generation": session.surface.replace_generation,
                "messages": list(session.derive_messages()),
            }
        )
        return
    messages = session.derive_messages()
    out.print(
        f"[bold]{escape(session.id)}[/bold]: {len(messages)} message(s) from {session.seq} event(s), "
        f"surface generation {session.surface.replace_generation}"
    )
    note_repair(out, snap, repaired)
    for node in session.surface.nodes:
        event = session.events[node.seq]
        message = session.derive_event_message(event)
        if message is None:
            continue
        role = str(message["role"])
        out.print()
        out.print(
            f"[{_ROLE_STYLE.get(role, 'bold')}]{role}[/] [dim](seq {node.seq}, {escape(event.type)})[/dim]"
        )
        out.raw(render_content(message["content"]))

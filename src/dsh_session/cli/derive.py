"""``dsh-session derive PATH``: the message history a session's surface derives.

The store is read, never written. By default the session is shown as stored;
``--repaired`` shows it as a load returns it, with the closers of a turn a
crash left open. ``--json`` writes the canonical texts of the messages the
library holds as they are (nothing decoded and encoded again); the transcript
is written message by message as it is made.
"""

from __future__ import annotations

from dsh_session.cli._common import View, note_repair, view_command
from dsh_session.cli._output import escape, render_content
from dsh_session.js_json import dumps

__all__ = ["derive"]

_ROLE_STYLE = {"user": "bold cyan", "assistant": "bold green"}


@view_command
def derive(view: View) -> None:
    """Print the derived message history of a session, as a transcript or as JSON."""
    session = view.session
    messages = session.derive_messages()
    generation = session.surface.replace_generation
    out = view.out
    if view.as_json:
        head = dumps(
            {"id": session.id, "events": session.seq, "repaired": view.repaired, "generation": generation}
        )
        out.json_parts([head[:-1], ',"messages":[', b",".join(messages.texts()), "]}"])
        return
    out.print(
        f"[bold]{escape(session.id)}[/bold]: {len(messages)} message(s) from {session.seq} event(s), "
        f"surface generation {generation}"
    )
    note_repair(out, view.snap, view.repaired)
    events = session.events
    for node in session.surface.nodes:
        event = events[node.seq]
        message = session.derive_event_message(node.seq)
        if message is None:
            continue
        role = str(message["role"])
        out.print()
        style = _ROLE_STYLE.get(role, "bold")
        out.print(f"[{style}]{escape(role)}[/] [dim](seq {node.seq}, {escape(event.type)})[/dim]")
        out.raw(render_content(message["content"]))

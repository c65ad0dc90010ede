"""``dsh-session repair PATH``: close what a crash left open, durably.

For each session (``--id``, or every session of the store) it first reads the
store without changing it and shows the repair a load performs: the torn tail
it cuts and the closers it appends (``interrupted_turn_closers``: an error
``tool/result`` per unanswered call of the open step, ``step/end``,
``turn/end`` interrupted). Then -- unless ``--dry-run`` -- it loads the session
through its backend, which makes exactly that repair durable. A session that
needs nothing is left alone. Never run it on a session a live process is
still writing: its open turn is not a crash.

Without ``--id``, a session of the store that cannot be read (its header, its
format version, its place in the store, damaged committed data) is reported --
one line on stderr with its path and code, or in ``unreadable`` with
``--json`` -- the others are still repaired, and the exit status is 2. A PATH
that holds no session is an empty store (nothing to repair) only when it is
recognisably a store; otherwise it fails: "no sessions stored here".
"""

from __future__ import annotations

from typing import Any

import click

from dsh_session.cli._app import main
from dsh_session.cli._common import opened
from dsh_session.cli._errors import FAILED, fail
from dsh_session.cli._options import id_option, path_argument, store_options
from dsh_session.cli._output import Output, escape, output
from dsh_session.cli._readonly import admit
from dsh_session.cli._sessions import Unreadable, report, to_act_on
from dsh_session.errors import Code, DshSessionError
from dsh_session.event import Event
from dsh_session.persistence.records import event_line

__all__ = ["repair"]


@main.command()
@path_argument()
@id_option("The session to repair (default: every session of the store that needs it).")
@click.option("--dry-run", is_flag=True, help="Show the repair; change nothing.")
@store_options
def repair(
    path: str,
    session_id: str | None,
    dry_run: bool,
    backend: str | None,
    pg_schema: str | None,
    as_json: bool,
    no_color: bool,
) -> None:
    """Show the closers a crashed session needs, then add them durably (unless --dry-run)."""
    out = output(no_color)
    done: list[dict[str, Any]] = []
    checked = 0
    with opened(path, backend, session_id, schema=pg_schema) as source:
        ids, unreadable = to_act_on(source, () if session_id is None else (session_id,))
        for sid in ids:
            try:
                snap = admit(source.read(sid))
            except DshSessionError as error:
                if session_id is not None:
                    raise
                unreadable.append(Unreadable(source.path, sid, error))
                continue
            checked += 1
            if not snap.needs_repair:
                continue
            item: dict[str, Any] = {
                "id": sid,
                "path": snap.log.where,
                "cutRecords": snap.log.cut_records,
                "cutBytes": snap.log.cut_bytes,
                "closers": [event.to_json() for event in snap.closers],
                "repaired": False,
            }
            if not as_json:
                _show(out, item, snap.closers)
            if not dry_run:
                store = source.backend("repair")
                loaded = store.load(sid)
                if loaded.events != snap.events + snap.closers:
                    fail(
                        f"session {sid!r} changed while it was being repaired; check it with "
                        f"`dsh-session inspect`",
                        code=Code.STORE_CONFLICT,
                    )
                item["repaired"] = True
                if not as_json:
                    out.print("  [green]repaired[/green] (durable)")
            done.append(item)
    if as_json:
        out.json(
            {
                "dryRun": dry_run,
                "checked": checked,
                "sessions": done,
                "unreadable": [item.to_json() for item in unreadable],
            }
        )
    else:
        report(unreadable)
        outcome = "need a repair (nothing changed: --dry-run)" if dry_run else "repaired"
        cannot = f"; {len(unreadable)} cannot be read" if unreadable else ""
        out.print(f"{checked} session(s) checked, {len(done)} {outcome}{cannot}")
    if unreadable:
        raise click.exceptions.Exit(FAILED)


def _show(out: Output, item: dict[str, Any], closers: tuple[Event, ...]) -> None:
    out.print(f"[bold]{escape(item['id'])}[/bold] ({escape(item['path'])}):")
    if item["cutRecords"]:
        size = f" ({item['cutBytes']} bytes)" if item["cutBytes"] is not None else ""
        out.print(f"  cut {item['cutRecords']} torn record(s){size}")
    for closer in closers:
        out.raw(f"  + {event_line(closer)}")

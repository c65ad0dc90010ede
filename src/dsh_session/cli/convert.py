"""``dsh-session convert SRC DST``: copy sessions between stores, checked.

The copying is the library's (:func:`dsh_session.persistence.convert.copy_sessions`):
each session goes over whole, as a load returns it (a crashed session arrives
repaired), and is loaded back from DST and compared with the source -- header,
events, derived messages -- unless ``--no-verify``. SRC is read without being
changed. DST is a JSONL root (a directory), a SQLite database (a file) or a
PostgreSQL schema (a ``postgresql://`` URL), created when missing (see
``open_target``); ``--to-backend`` forces its kind. Locations are shown without
their passwords.
"""

from __future__ import annotations

from collections.abc import Iterable

import click
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from dsh_session.cli._app import main
from dsh_session.cli._common import opened
from dsh_session.cli._options import (
    backend_option,
    ids_option,
    json_option,
    no_color_option,
    pg_schema_option,
    to_backend_option,
    to_pg_schema_option,
)
from dsh_session.cli._output import output
from dsh_session.cli._readonly import admit
from dsh_session.cli._resolve import Source, open_target, shown
from dsh_session.event import Event, SessionHeader
from dsh_session.persistence import StoredSession
from dsh_session.persistence.convert import copy_sessions

__all__ = ["ReadOnlySource", "convert"]


class ReadOnlySource:
    """A :class:`Source` as a ``SessionBackend`` that only reads: ``load`` returns what a load of
    the store would (repaired) without writing the repair; ``create`` / ``append`` refuse."""

    def __init__(self, source: Source) -> None:
        self.source = source

    def create(self, header: SessionHeader) -> None:
        raise TypeError("the source of a conversion is read-only")

    def append(self, session_id: str, events: Iterable[Event]) -> None:
        raise TypeError("the source of a conversion is read-only")

    def load(self, session_id: str, *, close_turn: bool = True) -> StoredSession:
        snap = admit(self.source.read(session_id))
        return StoredSession(snap.header, snap.log(repaired=close_turn))

    def list(self) -> tuple[SessionHeader, ...]:
        return tuple(self.source.read(session_id).header for session_id in self.source.ids())

    def close(self) -> None:
        self.source.close()


@main.command()
@click.argument("src", metavar="SRC")
@click.argument("dst", metavar="DST")
@ids_option("Copy only this session (repeatable); default: every session of SRC.")
@backend_option
@pg_schema_option
@to_backend_option(
    "Write DST as this kind of store (default: a postgresql:// URL is PostgreSQL, a directory or a path "
    "without .db/.sqlite/.sqlite3 a JSONL root, a file or such a path a SQLite database)."
)
@to_pg_schema_option
@click.option("--no-verify", is_flag=True, help="Do not load each copy back to compare it with its source.")
@json_option
@no_color_option
def convert(
    src: str,
    dst: str,
    session_ids: tuple[str, ...],
    backend: str | None,
    pg_schema: str | None,
    to_backend: str | None,
    to_pg_schema: str | None,
    no_verify: bool,
    as_json: bool,
    no_color: bool,
) -> None:
    """Copy the sessions of SRC into DST (JSONL, SQLite, PostgreSQL), checking that each copy loads equal."""
    out = output(no_color)
    src_shown, dst_shown = shown(src, backend), shown(dst, to_backend)
    with opened(src, backend, schema=pg_schema) as source:
        ids = list(session_ids) or source.ids()
        opened_target = open_target(dst, to_backend, schema=to_pg_schema)
        target, dst_kind = opened_target.store, opened_target.kind
        try:
            progress = Progress(
                TextColumn("copying"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.description}"),
                TimeRemainingColumn(),
                console=out.notes,
                transient=True,
                disable=as_json or not out.notes.is_terminal or len(ids) < 2,
            )
            with progress:
                task = progress.add_task("", total=len(ids))

                def advance(session_id: str, done: int, total: int) -> None:
                    progress.update(task, completed=done, description=escape(session_id))

                copied = copy_sessions(
                    ReadOnlySource(source), target, ids, verify=not no_verify, progress=advance
                )
        finally:
            target.close()
        src_kind = source.kind
    if as_json:
        out.json(
            {
                "src": src_shown,
                "dst": dst_shown,
                "srcBackend": src_kind,
                "dstBackend": dst_kind,
                "copied": copied,
                "verified": not no_verify,
            }
        )
        return
    check = "each loaded back equal" if not no_verify else "not verified (--no-verify)"
    out.print(
        f"copied {len(copied)} session(s) from {escape(src_shown)} ({src_kind}) to {escape(dst_shown)} "
        f"({dst_kind}); "
        f"{check}"
    )

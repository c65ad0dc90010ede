"""``dsh-session fork PATH --id ID``: a new stored session that starts as a prefix of another.

The parent is read without being changed (as stored: a turn a crash left open
is not closed first). The child is built by the library's
:meth:`~dsh_session.SessionStore.fork` -- seeded with the parent's events
through the ``turn/end`` at ``--boundary`` (default: the last ``turn/end``),
with ``parentSession``, ``seedLength`` and the parent's cwd in its header --
and stored in the parent's store, or in ``--to DST``. Its id is ``--child`` or
the first free ``<parent>-fork-<n>``.

Every check runs before anything is written, the child's id first (as the
reference's fork does: a taken id is ``SESSION_ALREADY_EXISTS`` whatever the
boundary), then the boundary, in memory. A ``--to`` target that does not exist
yet is opened -- created -- only once the fork passed them, and removed again
should writing the child into it fail (a PostgreSQL schema is left).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import click

from dsh_session.cli._app import main
from dsh_session.cli._common import opened, snapshot
from dsh_session.cli._errors import fail
from dsh_session.cli._options import (
    id_option,
    path_argument,
    store_options,
    to_backend_option,
    to_pg_schema_option,
)
from dsh_session.cli._output import escape, output
from dsh_session.cli._resolve import open_target, remove_new_target, shown, target_is_new
from dsh_session.errors import Code
from dsh_session.event import Event, SessionHeader
from dsh_session.persistence import SessionBackend
from dsh_session.persistence.errors import SessionExistsError
from dsh_session.store import SessionMeta, SessionStore

__all__ = ["fork"]


@main.command()
@path_argument()
@id_option("The session to fork (needed when the store holds several).")
@click.option(
    "--boundary", type=int, default=None, help="The seq of the turn/end to fork at (default: the last)."
)
@click.option(
    "--child", "child_id", metavar="ID", default=None, help="The child's id (default: <id>-fork-<n>)."
)
@click.option(
    "--to", "target", metavar="DST", default=None, help="Store the child in DST (default: PATH's store)."
)
@to_backend_option("Write DST as this kind of store.")
@to_pg_schema_option
@store_options
def fork(
    path: str,
    session_id: str | None,
    boundary: int | None,
    child_id: str | None,
    target: str | None,
    to_backend: str | None,
    to_pg_schema: str | None,
    backend: str | None,
    pg_schema: str | None,
    as_json: bool,
    no_color: bool,
) -> None:
    """Fork a stored session at a turn boundary into a new stored session."""
    if target is None and to_pg_schema is not None:
        fail("--to-pg-schema names the schema of --to DST; give --to as well")
    if child_id == "":
        fail("--child: a session id cannot be empty")
    if child_id is not None and re.search("[\ud800-\udfff]", child_id):
        fail(
            f"--child {child_id.encode('utf-8', 'backslashreplace').decode()}: the id holds a lone "
            "surrogate (bytes that are not UTF-8); no store can name it faithfully -- choose another",
            code=Code.INVALID_HEADER,
        )
    with opened(path, backend, session_id, schema=pg_schema) as source:
        snap = snapshot(source, session_id)
        header = snap.header
        # Every check runs before the target is opened (or created): the child's id first, as the
        # reference does, then the boundary. A new target has no sessions to look up.
        fresh = target is not None and target_is_new(target, to_backend, schema=to_pg_schema)
        dst: SessionBackend | None = None
        if target is None:
            dst = source.backend("fork")
        elif not fresh:
            dst = open_target(target, to_backend, schema=to_pg_schema).store
        where = shown(target, to_backend) if target is not None else shown(path, backend)
        try:
            taken = set() if dst is None else {stored.id for stored in dst.list()}
            child_id = child_id or _free_id(taken, header.id)
            if child_id == header.id or child_id in taken:
                held = "is the parent's own id" if child_id == header.id else f"is taken in {where}"
                code = Code.SESSION_ALREADY_EXISTS
                fail(f"the child id {child_id!r} {held}; choose another --child", code=code)
            if boundary is None:
                ends = [event.seq for event in snap.events if event.type == "turn/end"]
                if not ends:
                    fail(f"session {header.id!r} has no turn/end to fork at", code=Code.OPEN_TURN)
                boundary = ends[-1]
            store = SessionStore()
            meta = SessionMeta(
                cwd=header.cwd,
                parent_session=header.parent_session,
                created_at=header.created_at,
                seed_length=header.seed_length,
            )
            parent = store.create(header.id, seed=snap.events, meta=meta)
            child = store.fork(parent, boundary, child_id)  # in memory: nothing is written yet
            if dst is None:
                assert target is not None
                dst = open_target(target, to_backend, schema=to_pg_schema).store
            _store_child(
                dst, child.header, child.events, where, fresh=fresh, target=target, to_backend=to_backend
            )
        finally:
            if target is not None and dst is not None:
                dst.close()
    document: dict[str, Any] = {
        "parent": header.id,
        "child": child.id,
        "boundary": boundary,
        "seedLength": child.header.seed_length,
        "store": where,
        "header": child.header.to_json(),
    }
    out = output(no_color)
    if as_json:
        out.json(document)
        return
    out.print(
        f"forked [bold]{escape(header.id)}[/bold] at seq {boundary} into [bold]{escape(child.id)}[/bold] "
        f"({child.seq} events) in {escape(document['store'])}"
    )


def _store_child(
    dst: SessionBackend,
    header: SessionHeader,
    events: Sequence[Event],
    where: str,
    *,
    fresh: bool,
    target: str | None,
    to_backend: str | None,
) -> None:
    """Write the child to ``dst``; a failure leaves no new target behind (when ``fresh``, the file
    target the write created is removed)."""
    try:
        dst.create(header)
        dst.append(header.id, events)
    except SessionExistsError:
        fail(
            f"the child id {header.id!r} is taken in {where}; choose another --child",
            code=Code.SESSION_ALREADY_EXISTS,
        )
    except BaseException:
        if fresh and target is not None:
            dst.close()
            remove_new_target(target, to_backend)
        raise


def _free_id(taken: set[str], parent_id: str) -> str:
    number = 1
    while f"{parent_id}-fork-{number}" in taken:
        number += 1
    return f"{parent_id}-fork-{number}"

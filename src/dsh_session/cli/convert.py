"""``dsh-session convert SRC DST``: copy sessions between stores, checked.

The copying is the library's (:func:`dsh_session.persistence.convert.copy_sessions`):
each session goes over whole, as a load returns it (a crashed session arrives
repaired), and is loaded back from DST and compared with the source -- header,
events, derived messages -- unless ``--no-verify``. SRC is read without being
changed. DST is a JSONL root (a directory), a SQLite database (a file) or a
PostgreSQL schema (a ``postgresql://`` URL), created when missing (see
``open_target``); ``--to-backend`` forces its kind. Locations are shown without
their passwords.

Every session to copy is read and admitted before the first write: when one
cannot be read (or an ``--id`` is unknown), each such session is reported and
nothing is written -- DST is not even opened (exit status 2). So it is when
SRC holds no session: an empty store (nothing to copy), or a location that is
not a store at all (no sessions stored here). A failure after
the copy started names the sessions already written to DST. The progress bar
(on a terminal) counts events: each session's are counted as it is loaded,
written and verified (``copy_sessions``' ``on_stage``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import click

from dsh_session.cli._app import main
from dsh_session.cli._common import opened
from dsh_session.cli._errors import FAILED, CliError, exit_status, fail
from dsh_session.cli._options import (
    backend_option,
    ids_option,
    json_option,
    no_color_option,
    pg_schema_option,
    to_backend_option,
    to_pg_schema_option,
)
from dsh_session.cli._output import Output, escape, is_terminal, output
from dsh_session.cli._readonly import admit, events_of
from dsh_session.cli._resolve import Source, open_target, shown
from dsh_session.cli._sessions import Unreadable, report, to_act_on
from dsh_session.errors import Code, DshSessionError
from dsh_session.event import Event, SessionHeader
from dsh_session.persistence import SessionBackend, StoredSession
from dsh_session.persistence.convert import copy_sessions

__all__ = ["ReadOnlySource", "convert"]


class ReadOnlySource:
    """A :class:`Source` as a ``SessionBackend`` that only reads: ``load`` returns what a load of
    the store would (repaired) without writing the repair; ``create`` / ``append`` refuse.

    :meth:`check` reads a session ahead of the copy (to find what cannot be read before
    anything is written); the session checked last is kept until it is loaded, so that the
    first session copied is not read twice.
    """

    def __init__(self, source: Source) -> None:
        self.source = source
        self._kept: StoredSession | None = None

    def create(self, header: SessionHeader) -> None:
        raise TypeError("the source of a conversion is read-only")

    def append(self, session_id: str, events: Iterable[Event]) -> None:
        raise TypeError("the source of a conversion is read-only")

    def check(self, session_id: str, *, keep: bool = False) -> int:
        """Read and admit ``session_id`` as :meth:`load` would; return its event count (closers
        included). Raises what keeps it from being read."""
        stored = self._read(session_id)
        if keep:
            self._kept = stored
        return len(stored.events)

    def load(self, session_id: str, *, close_turn: bool = True) -> StoredSession:
        kept, self._kept = self._kept, None
        if close_turn and kept is not None and kept.header.id == session_id:
            return kept
        return self._read(session_id, close_turn=close_turn)

    def _read(self, session_id: str, *, close_turn: bool = True) -> StoredSession:
        snap = admit(self.source.read(session_id))
        return StoredSession(snap.header, events_of(snap, close_turn))

    def list(self) -> tuple[SessionHeader, ...]:
        return tuple(
            self.source.read(entry.id).header
            for entry in self.source.entries()
            if entry.error is None and entry.id is not None
        )

    def close(self) -> None:
        self._kept = None
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
        src_kind = source.kind
        reader = ReadOnlySource(source)
        ids, sizes, unreadable = _precheck(reader, session_ids)
        if unreadable:
            document = _document(src_shown, dst_shown, src_kind, None, [], not no_verify)
            if as_json:
                out.json({**document, "unreadable": [item.to_json() for item in unreadable]})
            else:
                report(unreadable)
                out.print(
                    f"nothing copied: {len(unreadable)} of {len(ids) + len(unreadable)} session(s) of "
                    f"{escape(src_shown)} cannot be read; {escape(dst_shown)} was not touched"
                )
            raise click.exceptions.Exit(FAILED)
        if not ids:
            fail(f"{source.path}: nothing to copy: the store holds no session; {dst_shown} was not touched")
        opened_target = open_target(dst, to_backend, schema=to_pg_schema)
        target, dst_kind = opened_target.store, opened_target.kind
        written: list[str] = []
        try:
            _check_free(target, ids, dst_shown)
            progress = _progress(out, disable=as_json or not is_terminal(out.stderr) or not sum(sizes))
            with progress:
                stages = 2 if no_verify else 3
                task = progress.add_task("", total=sum(sizes) * stages, sessions=f"0/{len(ids)}")

                def advance(session_id: str, done: int, total: int) -> None:
                    written.append(session_id)
                    progress.update(task, sessions=f"{done}/{total}")

                def stage(session_id: str, name: str, events: int) -> None:
                    progress.update(task, advance=events, description=f"{escape(session_id)}: {name}")

                copied = copy_sessions(
                    reader, target, ids, verify=not no_verify, progress=advance, on_stage=stage
                )
        except DshSessionError as error:
            raise _midway(error, written, dst_shown) from error
        finally:
            target.close()
    document = _document(src_shown, dst_shown, src_kind, dst_kind, copied, not no_verify)
    if as_json:
        out.json(document)
        return
    check = "each loaded back equal" if not no_verify else "not verified (--no-verify)"
    out.print(
        f"copied {len(copied)} session(s) from {escape(src_shown)} ({src_kind}) to {escape(dst_shown)} "
        f"({dst_kind}); "
        f"{check}"
    )


def _precheck(
    reader: ReadOnlySource, session_ids: tuple[str, ...]
) -> tuple[list[str], list[int], list[Unreadable]]:
    """Every session to copy, read and admitted before anything is written: the ids, their event
    counts, and the sessions that cannot be read. The first id is checked last and kept for the
    copy, which starts with it."""
    ids, unreadable = to_act_on(reader.source, session_ids)
    sizes: dict[str, int] = {}
    for session_id in [*ids[1:], *ids[:1]]:
        try:
            sizes[session_id] = reader.check(session_id, keep=session_id == ids[0])
        except DshSessionError as error:
            unreadable.append(Unreadable(reader.source.path, session_id, error))
    ids = [session_id for session_id in ids if session_id in sizes]
    return ids, [sizes[session_id] for session_id in ids], unreadable


def _check_free(target: SessionBackend, ids: list[str], dst: str) -> None:
    """Fail, before anything is written, when DST already holds some of the sessions to copy
    (``copy_sessions`` would refuse them too, in the library's words)."""
    present = sorted({header.id for header in target.list()}.intersection(ids))
    if not present:
        return
    named = _first_few(list(map(repr, present)))
    fail(
        f"{dst} already holds {len(present)} of the {len(ids)} session(s) to copy ({named}); nothing "
        "was copied: name only the others with --id, or copy into another store",
        code=Code.SESSION_ALREADY_EXISTS,
    )


def _progress(out: Output, *, disable: bool) -> Any:
    """The bar: it advances by events, as each session's copy is loaded, written and verified
    (rich is imported only to draw it)."""
    if disable:
        return _NoBar()
    from dsh_session.cli._progress import copy_bar

    return copy_bar(out.stderr, color=out.notes_color)


class _NoBar:
    """The bar's calls, drawing nothing (piped, ``--json``)."""

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None

    def add_task(self, *_args: Any, **_fields: Any) -> int:
        return 0

    def update(self, *_args: Any, **_fields: Any) -> None:
        return None


def _midway(error: DshSessionError, written: list[str], dst: str) -> CliError:
    """The error of a copy that failed after it started, saying what is in DST already."""
    if written:
        done = f"already written to {dst}: {len(written)} session(s) ({_first_few(written)})"
    else:
        done = f"no session was written to {dst} before it"
    return CliError(f"{error.message} -- {done}", code=error.code, status=exit_status(error))


def _first_few(names: list[str]) -> str:
    """The first five of ``names``, and how many more there are."""
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _document(
    src: str, dst: str, src_kind: str, dst_kind: str | None, copied: list[str], verified: bool
) -> dict[str, Any]:
    return {
        "src": src,
        "dst": dst,
        "srcBackend": src_kind,
        "dstBackend": dst_kind,
        "copied": copied,
        "verified": verified,
    }

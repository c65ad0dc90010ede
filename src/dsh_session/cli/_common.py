"""What the session commands share: opening a PATH and reading the one session to act on, and
the preamble of the commands that show one stored session (:func:`view_command`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

import click

from dsh_session.cli._app import main
from dsh_session.cli._options import view_options
from dsh_session.cli._output import Output, Progress, output
from dsh_session.cli._readonly import admit, events_of
from dsh_session.cli._resolve import Source, resolve
from dsh_session.event import Event
from dsh_session.persistence import RepairReport
from dsh_session.session import Session
from dsh_session.surface import SurfaceManager

__all__ = ["View", "note_repair", "opened", "read_snapshot", "seeded", "snapshot", "view_command"]


@contextmanager
def opened(
    path: str, backend: str | None, session_id: str | None = None, *, schema: str | None = None
) -> Iterator[Source]:
    """The source at ``path`` (a database location in ``schema``), released afterwards."""
    source = resolve(path, backend, session_id=session_id, schema=schema)
    try:
        yield source
    finally:
        source.close()


def snapshot(source: Source, session_id: str | None) -> RepairReport:
    """The chosen session of ``source``, read and admitted (nothing is written)."""
    return admit(source.read(source.pick(session_id)))


def read_snapshot(
    path: str, backend: str | None, session_id: str | None, schema: str | None, out: Output | None = None
) -> tuple[RepairReport, str]:
    """The chosen session of the store at ``path``, read and admitted, and the kind of that store
    (the store is released before this returns; nothing is written). With ``out``, a progress
    bar (on a terminal) shows the read and the check."""
    bars = out.progress(f"reading {path}", total=2) if out is not None else nullcontext(Progress())
    with bars as bar, opened(path, backend, session_id, schema=schema) as source:
        reading = source.read(source.pick(session_id))
        bar.advance(stage=f"checking {len(reading.records)} events")
        snap = admit(reading)
        bar.advance()
        return snap, source.kind


def seeded(snap: RepairReport, repaired: bool) -> Session:
    """A session seeded with the stored log (with a load's closers when ``repaired``)."""
    return Session(snap.header.id, seed=events_of(snap, repaired), header=snap.header)


def note_repair(out: Output, snap: RepairReport, repaired: bool) -> None:
    """Say that a load would repair the session, where it would and the view shows it as stored."""
    if snap.needs_repair and not repaired:
        out.note("note: a load would repair this session (see `dsh-session inspect`); --repaired shows it")


@dataclass
class View:
    """One stored session as a view command (``derive``, ``surface``, ``inspect``) is given it:
    the options it was run with, the session read and admitted, and where to write."""

    path: str
    session_id: str | None
    repaired: bool
    backend: str | None
    pg_schema: str | None
    as_json: bool
    out: Output
    snap: RepairReport
    kind: str
    _session: Session | None = None
    _surface: SurfaceManager | None = None

    @property
    def events(self) -> tuple[Event, ...]:
        """The stored log, with a load's closers when ``--repaired``."""
        return events_of(self.snap, self.repaired)

    @property
    def surface(self) -> SurfaceManager:
        """The surface of :attr:`events`, folded from the admitted log (nothing admitted again)."""
        if self._surface is None:
            self._surface = SurfaceManager(self.events)
        return self._surface

    @property
    def session(self) -> Session:
        """A session seeded with :attr:`events` (made once, when first asked for)."""
        if self._session is None:
            self._session = seeded(self.snap, self.repaired)
        return self._session


def view_command(body: Callable[[View], None]) -> click.Command:
    """Register ``body`` as the command of its name that shows one stored session: its arguments
    are :func:`._options.view_options`' (PATH, ``--id``, ``--repaired``, ``--backend``,
    ``--pg-schema``, ``--json``, ``--no-color``); the session is read (never written) before
    ``body`` is called with the :class:`View`."""

    def command(
        path: str,
        session_id: str | None,
        repaired: bool,
        backend: str | None,
        pg_schema: str | None,
        as_json: bool,
        no_color: bool,
    ) -> None:
        out = output(no_color, as_json)
        snap, kind = read_snapshot(path, backend, session_id, pg_schema, out)
        body(View(path, session_id, repaired, backend, pg_schema, as_json, out, snap, kind))

    command.__doc__ = body.__doc__  # the command's --help
    return main.command(name=body.__name__)(view_options(command))

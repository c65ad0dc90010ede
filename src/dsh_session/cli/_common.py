"""What the session commands share: opening a PATH and reading the one session to act on."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from dsh_session.cli._output import Output
from dsh_session.cli._readonly import Snapshot, admit
from dsh_session.cli._resolve import Source, resolve
from dsh_session.session import Session

__all__ = ["note_repair", "opened", "read_snapshot", "seeded", "snapshot"]


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


def snapshot(source: Source, session_id: str | None) -> Snapshot:
    """The chosen session of ``source``, read and admitted (nothing is written)."""
    return admit(source.read(source.pick(session_id)))


def read_snapshot(
    path: str, backend: str | None, session_id: str | None, schema: str | None
) -> tuple[Snapshot, str]:
    """The chosen session of the store at ``path``, read and admitted, and the kind of that store
    (the store is released before this returns; nothing is written)."""
    with opened(path, backend, session_id, schema=schema) as source:
        return snapshot(source, session_id), source.kind


def seeded(snap: Snapshot, repaired: bool) -> Session:
    """A session seeded with the stored log (with a load's closers when ``repaired``)."""
    return Session(snap.header.id, seed=snap.log(repaired), header=snap.header)


def note_repair(out: Output, snap: Snapshot, repaired: bool) -> None:
    """Say that a load would repair the session, where it would and the view shows it as stored."""
    if snap.needs_repair and not repaired:
        out.note("note: a load would repair this session (see `dsh-session inspect`); --repaired shows it")

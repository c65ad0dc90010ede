"""What the session commands share: opening a PATH and reading the one session to act on."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from dsh_session.cli._readonly import Snapshot, admit
from dsh_session.cli._resolve import Source, resolve

__all__ = ["opened", "snapshot"]


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

"""What the session commands share: opening a PATH and reading the one session to act on."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from dsh_session.cli._readonly import Snapshot, admit
from dsh_session.cli._resolve import Source, resolve
from dsh_session.event import Event, SessionHeader

__all__ = ["event_json", "header_json", "opened", "repaired_option", "snapshot"]


@contextmanager
def opened(path: str, backend: str | None, session_id: str | None = None) -> Iterator[Source]:
    """The source at ``path``, released afterwards."""
    source = resolve(path, backend, session_id=session_id)
    try:
        yield source
    finally:
        source.close()


def snapshot(source: Source, session_id: str | None) -> Snapshot:
    """The chosen session of ``source``, read and admitted (nothing is written)."""
    return admit(source.read(source.pick(session_id)))


def repaired_option(f: Any) -> Any:
    return click.option(
        "--repaired",
        is_flag=True,
        help="Show the session as a load returns it: with the closers of a turn a crash left open "
        "(nothing is written).",
    )(f)


def event_json(event: Event) -> dict[str, Any]:
    return event.to_json()


def header_json(header: SessionHeader) -> dict[str, Any]:
    return header.to_json()

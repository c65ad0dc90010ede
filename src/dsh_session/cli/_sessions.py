"""The sessions a command acts on -- every one a store holds, none silently left out.

A store can hold a session that cannot be read: a JSONL file whose header
does not parse, is of another format version or sits in the wrong directory, a
database row of another version, committed data that is damaged. The
backends' ``list()`` leaves such sessions out (a process resuming its work has
no use for them); a person looking at the store must hear of them. The
commands enumerate with :meth:`Source.entries` (as ``validate`` does) and
report each session that cannot be read as :class:`Unreadable`: one line on
stderr naming its path and code (or an ``unreadable`` item in ``--json``), and
exit status 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import click

from dsh_session.cli._errors import error_line, one_line
from dsh_session.cli._resolve import Source, require_store
from dsh_session.errors import DshSessionError

__all__ = ["Unreadable", "report", "to_act_on"]


@dataclass(frozen=True)
class Unreadable:
    """A session that cannot be read: where it is, its id when known, and why."""

    path: str
    id: str | None
    error: DshSessionError

    def line(self) -> str:
        """The line reported on stderr: ``dsh-session: error: <path>: <message> [CODE]``."""
        return error_line(self.error, about=self.path)

    def to_json(self) -> dict[str, Any]:
        code = self.error.code
        return {
            "path": self.path,
            "id": self.id,
            "code": None if code is None else str(code),
            "message": one_line(self.error.message),
        }


def to_act_on(source: Source, session_ids: Sequence[str]) -> tuple[list[str], list[Unreadable]]:
    """The ids to act on -- ``session_ids`` when given, else every session ``source`` holds that
    can be listed -- and the sessions it holds that cannot be (none when ids are given: an id
    that cannot be read fails when it is read). Without ids, a location that holds no session
    and is not recognisably a store fails (:func:`require_store`)."""
    if session_ids:
        return list(dict.fromkeys(session_ids)), []
    entries = source.entries()
    require_store(source, entries)
    ids: list[str] = []
    unreadable: list[Unreadable] = []
    for entry in entries:
        if entry.error is not None:
            unreadable.append(Unreadable(entry.path, entry.id, entry.error))
        elif entry.id is not None:
            ids.append(entry.id)
    return ids, unreadable


def report(unreadable: Sequence[Unreadable]) -> None:
    """One line on stderr for each session that cannot be read."""
    for item in unreadable:
        click.echo(item.line(), err=True)

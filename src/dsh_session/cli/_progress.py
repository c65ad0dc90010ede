"""The progress bar of a long read or check, drawn with rich on a terminal's stderr.

Imported only when a bar is drawn (:meth:`._output.Output.progress`), so a piped
or ``--json`` run never loads rich.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from rich.console import Console
from rich.progress import BarColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.progress import Progress as _RichProgress

from dsh_session.cli._bar import Progress

__all__ = ["bar", "copy_bar"]


class _Drawn(Progress):
    def __init__(self, progress: _RichProgress, task: Any) -> None:
        self._progress = progress
        self._task = task

    def advance(self, amount: int = 1, *, stage: str | None = None) -> None:
        if stage is None:
            self._progress.update(self._task, advance=amount)
        else:
            self._progress.update(self._task, advance=amount, description=stage)

    def total(self, total: int) -> None:
        self._progress.update(self._task, total=total)


@contextmanager
def bar(stream: IO[str], what: str, total: int | None, *, color: bool) -> Iterator[Progress]:
    """A transient bar on ``stream`` (gone when the work is done)."""
    console = _console(stream, color)
    progress = _RichProgress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    with progress:
        yield _Drawn(progress, progress.add_task(what, total=total))


def copy_bar(stream: IO[str], *, color: bool) -> _RichProgress:
    """``convert``'s bar: events copied (each session's, as it is loaded, written and verified),
    with the sessions done and what is being done now."""
    return _RichProgress(
        TextColumn("copying"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[sessions]} sessions"),
        TextColumn("{task.description}"),
        TimeRemainingColumn(),
        console=_console(stream, color),
        transient=True,
    )


def _console(stream: IO[str], color: bool) -> Console:
    return Console(file=stream, color_system="auto" if color else None, highlight=False, force_terminal=True)

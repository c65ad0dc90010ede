"""The progress bar a command is handed: this one draws nothing; :mod:`._progress` draws one.

Kept apart from both :mod:`._output` (which hands it out) and :mod:`._progress` (which imports
rich), so that neither imports the other to name it.
"""

from __future__ import annotations

__all__ = ["Progress"]


class Progress:
    """A progress bar that draws nothing (piped, ``--json``); :func:`._progress.bar` draws one."""

    def advance(self, amount: int = 1, *, stage: str | None = None) -> None:
        """Move the bar on by ``amount`` (and name what it is doing now)."""

    def total(self, total: int) -> None:
        """Set how much there is to do."""

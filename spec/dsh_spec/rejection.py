"""Rejections: the spec's errors are values, never exceptions."""

from __future__ import annotations

from dataclasses import dataclass

from dsh_spec.codes import Code


@dataclass(frozen=True)
class Rejection:
    """Why an input was refused: a registry code, where, and a note for people.

    ``seq`` is the seq of the offending event (for an append, the seq it would
    have had); ``None`` when the rejection is not about one event.
    """

    code: Code
    seq: int | None
    message: str

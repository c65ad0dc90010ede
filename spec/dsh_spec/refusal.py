"""Refusals of the stateful models: a rejection raised, where a model has state to keep.

The pure functions of the spec return a :class:`~dsh_spec.rejection.Rejection`.
The models of what keeps state -- the store (:mod:`dsh_spec.store`), the stores on
disk (:mod:`dsh_spec.persistence`), the write coordinator
(:mod:`dsh_spec.coordinator`), PostgreSQL connections (:mod:`dsh_spec.postgres`) --
are objects with methods, as the library's are; they refuse by raising
:class:`Refused` with a registry code, and :class:`Unmodelled` for what the spec
does not model at all.
"""

from __future__ import annotations

from typing import Any

from dsh_spec.codes import Code
from dsh_spec.rejection import Rejection


class Refused(Exception):
    """A model refused an operation: a registry code and a note for people."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code.value}: {self.message}"


class Unmodelled(Exception):
    """An operation (or argument) the models do not cover; no code, it is not a refusal."""


def refuse(code: Code, message: str) -> Refused:
    """The refusal to raise: ``raise refuse(Code.X, "why")``."""
    return Refused(code, message)


def checked(value: Any) -> Any:
    """``value``, or raise it as a :class:`Refused` when it is a :class:`Rejection`."""
    if isinstance(value, Rejection):
        raise Refused(value.code, value.message)
    return value

"""Typed errors. Each carries a registry :class:`Code` -- the contract -- and a message for people."""

from __future__ import annotations

from typing import Any

from dsh_spec.codes import Code

__all__ = ["Code", "DshSessionError", "InvalidEventError", "InvariantViolationError", "ToolPairingError"]


class DshSessionError(Exception):
    """Base of every error this library raises on purpose.

    ``code`` is a stable registry code (see ``docs/errors.md``); ``seq`` is the
    seq of the event concerned, when there is one.
    """

    def __init__(self, code: Code, message: str, *, seq: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.seq = seq
        self.message = message

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"

    def __repr__(self) -> str:
        fields = [repr(str(self.code)), repr(self.message)]
        fields += [
            f"{name}={value!r}"
            for name, value in self.__dict__.items()
            if name not in _SHOWN and value is not None and value != self.message
        ]
        return f"{type(self).__name__}({', '.join(fields)})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Every subclass has its own __init__ signature, so a pickle or a copy
        # rebuilds the instance from its state rather than calling __init__.
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))


#: Attributes ``repr`` shows positionally (or not at all).
_SHOWN = frozenset({"code", "message"})


def _rebuild(
    kind: type[DshSessionError], args: tuple[object, ...], state: dict[str, object]
) -> DshSessionError:
    """An error of type ``kind`` with ``args`` and attributes ``state`` (the inverse of ``__reduce__``)."""
    error = kind.__new__(kind, *args)
    error.args = args
    error.__dict__.update(state)
    return error


class InvalidEventError(DshSessionError, ValueError):
    """An event broke a rule of the log; it was not stored and nothing changed.

    ``event_type`` is the offending event's type (as given), ``seq`` the
    seq it had or would have had, and ``session_id`` the session that refused
    it (``None`` outside a session); ``str()`` names all three.
    """

    def __init__(
        self, code: Code, message: str, *, seq: int, event_type: object, session_id: str | None = None
    ) -> None:
        super().__init__(code, message, seq=seq)
        self.event_type = event_type
        #: The id of the session that refused the event (set by :class:`~dsh_session.Session`).
        self.session_id = session_id

    def __str__(self) -> str:
        where = "" if self.session_id is None else f"session {self.session_id!r}: "
        return f"[{self.code}] {where}{self.message}"


class InvariantViolationError(InvalidEventError):
    """An event broke an invariant of the log's turn/step structure (a session
    with live invariant checking); it was not stored and nothing changed.

    ``code`` names the rule (``docs/errors.md``), ``seq`` the seq the event
    would have had.
    """


class ToolPairingError(DshSessionError, ValueError):
    """A tool-pairing question has no answer: the surface is corrupt
    (``TOOL_PAIRING_CORRUPT``: a result with no call before it; ``seq`` is the
    result's) or a region is not a range of the surface (``REPLACE_*`` codes)."""

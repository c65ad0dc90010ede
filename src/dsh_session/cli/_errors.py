"""Exit statuses and how a failure becomes one line on stderr.

Every command exits with:

- ``0`` (:data:`OK`): done; for ``validate``, every session is valid;
- ``1`` (:data:`FOUND`): the command ran and found a problem: ``validate``
  found a violation, ``convert`` found that a copy does not load back equal;
- ``2`` (:data:`FAILED`): the command could not do its work: a missing or
  unreadable path, a store that is not one or is corrupt, a wrong id, an
  operation the library refused -- and click's own usage errors;
- ``3`` (:data:`INTERNAL`): a bug in dsh-session (an unexpected exception);
- ``141`` (:data:`BROKEN_PIPE`, 128 + SIGPIPE, as a shell reports it): the
  reader of the output went away (``dsh-session derive ... | head``); quietly.

A failure is reported as one line, ``dsh-session: error: <what> [CODE]``, and
never as a traceback unless the global ``--debug`` option is given.
"""

from __future__ import annotations

import errno as _errno
from typing import Final, NoReturn

from dsh_session.errors import Code, DshSessionError
from dsh_session.persistence.convert import CopyMismatchError

__all__ = ["BROKEN_PIPE", "FAILED", "FOUND", "INTERNAL", "OK", "CliError", "describe", "exit_status", "fail"]

OK: Final = 0
FOUND: Final = 1
FAILED: Final = 2
INTERNAL: Final = 3
BROKEN_PIPE: Final = 141

PROG: Final = "dsh-session"


class CliError(Exception):
    """A failure the command line reports as one line and exit status ``status``.

    ``code`` is the registry code when the library named one.
    """

    def __init__(self, message: str, *, code: Code | None = None, status: int = FAILED) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status


def fail(message: str, *, code: Code | None = None) -> NoReturn:
    """Stop the command: ``message`` on stderr, exit status 2."""
    raise CliError(message, code=code)


def one_line(text: str) -> str:
    """``text`` with its line breaks folded into spaces."""
    return " ".join(text.split())


def describe(error: BaseException) -> tuple[str, Code | None]:
    """The message and code to report for ``error``."""
    if isinstance(error, CliError):
        return error.message, error.code
    if isinstance(error, DshSessionError):
        return error.message, error.code
    if isinstance(error, OSError):
        name = _errno.errorcode.get(error.errno or 0)
        where = f"{error.filename}: " if error.filename is not None else ""
        reason = error.strerror or str(error)
        return f"{where}{reason}" + (f" ({name})" if name else ""), None
    return f"internal error: {type(error).__name__}: {error} (run with --debug for the traceback)", None


def exit_status(error: BaseException) -> int:
    """The exit status for ``error``."""
    if isinstance(error, CliError):
        return error.status
    if isinstance(error, CopyMismatchError):
        return FOUND
    if isinstance(error, DshSessionError | OSError):
        return FAILED
    return INTERNAL


def error_line(error: BaseException, *, about: str | None = None) -> str:
    """The line reported for ``error``: ``dsh-session: error: <message> [CODE]``; ``about`` (a path)
    is put in front of a message that does not name it."""
    message, code = describe(error)
    suffix = f" [{code}]" if code is not None else ""
    return _printable(f"{PROG}: error: {about_path(message, about)}{suffix}")


def about_path(message: str, about: str | None) -> str:
    """``message`` on one line, with ``about`` (a path) put in front when it does not name it."""
    return one_line(f"{about}: {message}" if about is not None and about not in message else message)


def _printable(text: str) -> str:
    """``text`` with lone surrogates (an id or a path may hold them) written as ``\\udXXX``."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")

"""The root ``dsh-session`` command group; subcommands register on it.

The group turns every failure of a subcommand into one line on stderr and an
exit status (:mod:`._errors`) -- click's own usage errors too -- and, when the
command was given ``--json``, into one JSON object on stdout as well
(``{"error": {"code", "message"}, "status"}``). ``--debug`` lets the exception
through, with its traceback. ``--no-color`` (also accepted by each command)
turns colour off.
"""

from __future__ import annotations

import contextlib
import gc
import os
import re
import sys
from collections.abc import Sequence
from typing import IO, Any

import click

from dsh_session.cli._errors import BROKEN_PIPE, FAILED, PROG, describe, error_line, exit_status, one_line
from dsh_session.js_json import dumps

__all__ = ["error_document", "main"]

#: Where the group keeps the arguments it was given (``ctx.meta``), to tell whether ``--json`` was.
_ARGS = "dsh_session.args"


def error_document(message: str, code: str | None, status: int) -> dict[str, Any]:
    """The JSON object a failure prints on stdout when the command was given ``--json``."""
    return {"error": {"code": code, "message": one_line(message)}, "status": status}


class UsageLine(click.ClickException):
    """A usage error (a missing argument, an unknown option), reported as every failure is:
    ``dsh-session: error: ...`` on one line, exit status 2."""

    exit_code = FAILED

    def __init__(self, message: str, *, as_json: bool) -> None:
        super().__init__(message)
        self.as_json = as_json

    def show(self, file: IO[Any] | None = None) -> None:
        if self.as_json:
            click.echo(dumps(error_document(self.message, None, FAILED)))
        click.echo(f"{PROG}: error: {one_line(self.message)}", err=True)


def _wants_json(args: Sequence[str]) -> bool:
    """True when the command line asks for ``--json`` (before a ``--``)."""
    words = list(args)
    return "--json" in (words[: words.index("--")] if "--" in words else words)


def _usage_line(error: click.UsageError, args: Sequence[str]) -> UsageLine:
    message = error.format_message()
    if message:
        message = message[0].lower() + message[1:]
    context = error.ctx
    if context is not None:
        path = " ".join([PROG, *context.command_path.split()[1:]])
        message = f"{message.rstrip('.')} (see {path} --help)"
    return UsageLine(message, as_json=_wants_json(args))


def plain_help(text: str | None) -> str | None:
    """A docstring as ``--help`` shows it: the reStructuredText of ``literal`` spans and
    ``:role:`name``` references dropped, so people read ``--json`` as --json."""
    if text is None:
        return None
    return _ROLE.sub(r"\1", text).replace("``", "")


_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


class _Command(click.Command):
    """A subcommand whose ``--help`` is plain text (:func:`plain_help`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["help"] = plain_help(kwargs.get("help"))
        super().__init__(*args, **kwargs)


class _Group(click.Group):
    """A click group whose subcommands fail with one line and an exit status, not a traceback,
    and whose commands' ``--help`` is plain text."""

    command_class = _Command
    group_class = type  # subgroups are of this class too

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["help"] = plain_help(kwargs.get("help"))
        super().__init__(*args, **kwargs)

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        try:
            ctx = super().make_context(info_name, list(args), parent=parent, **extra)
        except click.UsageError as error:
            raise _usage_line(error, args) from None
        ctx.meta[_ARGS] = list(args)
        return ctx

    def invoke(self, ctx: click.Context) -> Any:
        # The command line is an application of the library, and this is its collector policy: a
        # command runs with the cyclic collector off (it reads a store, makes no cycles worth
        # collecting, and ends), so that a long log read is not walked again and again by it --
        # the policy docs/performance.md suggests to applications. It is put back as it was for
        # a caller that runs the command in its own process. The library never touches it.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._invoke(ctx)
        finally:
            if collecting:
                gc.enable()

    def _invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as error:
            raise _usage_line(error, ctx.meta.get(_ARGS, ())) from None
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except BrokenPipeError:
            # The reader went away (``dsh-session derive ... | head``): stop quietly, and keep the
            # interpreter's last flush from complaining about the closed pipe.
            with contextlib.suppress(OSError, ValueError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            ctx.exit(BROKEN_PIPE)
        except Exception as error:
            if ctx.params.get("debug"):
                raise
            status = exit_status(error)
            if _wants_json(ctx.meta.get(_ARGS, ())):
                message, code = describe(error)
                with contextlib.suppress(OSError, ValueError):
                    click.echo(dumps(error_document(message, None if code is None else str(code), status)))
            click.echo(error_line(error), err=True)
            ctx.exit(status)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="dsh-session", prog_name=PROG, message="%(prog)s %(version)s")
@click.option("--debug", is_flag=True, help="Show the traceback of a failure instead of one line.")
@click.option("--no-color", "no_color", is_flag=True, help="Never colour the output (also: NO_COLOR=1).")
@click.pass_context
def main(ctx: click.Context, debug: bool, no_color: bool) -> None:
    """Validate, inspect, derive, repair, fork and convert dsh session logs.

    PATH is a store or a session file: a JSONL root directory, a SQLite
    database, one session's JSONL file, a JSON / JSONL list of events, or a
    PostgreSQL store (a postgresql:// URL); the kind is detected (force it with
    --backend). Exit status: 0 done (valid), 1 a problem found (invalid),
    2 could not do it (bad input, usage), 3 a bug.
    """
    ctx.obj = {"debug": debug, "no_color": no_color}

"""The root ``dsh-session`` command group; subcommands register on it.

The group turns every failure of a subcommand into one line on stderr and an
exit status (:mod:`._errors`); ``--debug`` lets the exception through, with its
traceback. ``--no-color`` (also accepted by each command) turns colour off.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

import click

from dsh_session.cli._errors import BROKEN_PIPE, error_line, exit_status


class _Group(click.Group):
    """A click group whose subcommands fail with one line and an exit status, not a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
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
            click.echo(error_line(error), err=True)
            ctx.exit(exit_status(error))


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="dsh-session")
@click.option("--debug", is_flag=True, help="Show the traceback of a failure instead of one line.")
@click.option("--no-color", "no_color", is_flag=True, help="Never colour the output (also: NO_COLOR=1).")
@click.pass_context
def main(ctx: click.Context, debug: bool, no_color: bool) -> None:
    """Validate, inspect, derive, repair, fork and convert dsh session logs.

    PATH is a store or a session file: a JSONL root directory, a SQLite
    database, one session's JSONL file, a JSON / JSONL list of events, or a
    PostgreSQL store (a postgresql:// URL); the kind is detected (force it with
    --backend). Exit status: 0 done (valid), 1 a problem found (invalid),
    2 could not do it (bad input), 3 a bug.
    """
    ctx.obj = {"debug": debug, "no_color": no_color}

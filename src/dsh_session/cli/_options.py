"""The options every command spells the same way: ``--id``, ``--json``, ``--backend``, ``--pg-schema``,
``--no-color``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from dsh_session.cli._resolve import KINDS, TARGET_KINDS

__all__ = [
    "backend_option",
    "id_option",
    "ids_option",
    "json_option",
    "no_color_option",
    "path_argument",
    "pg_schema_option",
    "repaired_option",
    "store_options",
    "to_backend_option",
    "to_pg_schema_option",
    "view_options",
]

F = TypeVar("F", bound=Callable[..., Any])


def id_option(help: str = "The session to act on (needed when the store holds several).") -> Callable[[F], F]:
    return click.option("--id", "session_id", metavar="ID", default=None, help=help)


def ids_option(help: str) -> Callable[[F], F]:
    return click.option("--id", "session_ids", metavar="ID", multiple=True, help=help)


def json_option(f: F) -> F:
    return click.option(
        "--json", "as_json", is_flag=True, help="Print one JSON document (shape: docs/cli.md)."
    )(f)


def backend_option(f: F) -> F:
    return click.option(
        "--backend",
        type=click.Choice(KINDS),
        default=None,
        help="Read PATH as this kind of store instead of detecting it.",
    )(f)


def to_backend_option(help: str) -> Callable[[F], F]:
    return click.option("--to-backend", type=click.Choice(TARGET_KINDS), default=None, help=help)


def pg_schema_option(f: F) -> F:
    return _schema_option("--pg-schema", "PATH")(f)


def to_pg_schema_option(f: F) -> F:
    return _schema_option("--to-pg-schema", "DST")(f)


def _schema_option(flag: str, store: str) -> Callable[[F], F]:
    """The schema option of the PostgreSQL store named ``store`` in the usage line."""
    return click.option(
        flag, metavar="NAME", default=None, help=f"The schema of a PostgreSQL {store} (default: dsh_session)."
    )


def no_color_option(f: F) -> F:
    return click.option("--no-color", "no_color", is_flag=True, help="Never colour the output.")(f)


def repaired_option(f: F) -> F:
    return click.option(
        "--repaired",
        is_flag=True,
        help="Show the session as a load returns it: with the closers of a turn a crash left open "
        "(nothing is written).",
    )(f)


def path_argument(name: str = "path", *, nargs: int = 1) -> Callable[[F], F]:
    # A plain string: missing or unreadable paths are reported by the resolver, in one line.
    metavar = "PATH..." if nargs == -1 else name.upper()
    return click.argument(name, nargs=nargs, required=True, type=str, metavar=metavar)


def view_options(f: F) -> F:
    """The arguments of a command that shows one stored session (``derive``, ``surface``,
    ``inspect``): PATH, ``--id``, ``--repaired``, ``--backend``, ``--pg-schema``, ``--json``,
    ``--no-color`` (in that order in ``--help``)."""
    for option in reversed((path_argument(), id_option(), repaired_option, store_options)):
        f = option(f)
    return f


def store_options(f: F) -> F:
    """The options that end every command reading a store: ``--backend``, ``--pg-schema``,
    ``--json``, ``--no-color`` (in that order in ``--help``)."""
    for option in reversed((backend_option, pg_schema_option, json_option, no_color_option)):
        f = option(f)
    return f

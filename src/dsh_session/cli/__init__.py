"""The ``dsh-session`` command line: one module per command (or command family).

Each module defines its commands on the group from :mod:`._app`; importing it
here registers them. Shared machinery lives in the private modules:
``_resolve`` (what a PATH is), ``_readonly`` (reading a store without
changing it), ``_postgres`` (PostgreSQL URLs), ``_options``, ``_output``,
``_errors`` (exit statuses).
"""

# Importing a command's module registers its commands on the group (and ``_postgres`` the
# PostgreSQL location schemes, ``postgresql://`` and ``postgres://``).
from dsh_session.cli import _postgres  # noqa: F401
from dsh_session.cli import conformance as _conformance  # noqa: F401
from dsh_session.cli import convert as _convert  # noqa: F401
from dsh_session.cli import demo as _demo  # noqa: F401
from dsh_session.cli import derive as _derive  # noqa: F401
from dsh_session.cli import fork as _fork  # noqa: F401
from dsh_session.cli import inspect as _inspect  # noqa: F401
from dsh_session.cli import repair as _repair  # noqa: F401
from dsh_session.cli import surface as _surface  # noqa: F401
from dsh_session.cli import validate as _validate  # noqa: F401
from dsh_session.cli._app import main

__all__ = ["main"]

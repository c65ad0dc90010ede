"""The ``dsh-session`` command line: one module per command (or command family).

Each module defines its commands on the group from :mod:`._app`; importing it
here registers them.
"""

from dsh_session.cli import demo as _demo  # noqa: F401  (registers the command)
from dsh_session.cli._app import main

__all__ = ["main"]

# isort: split
# -- conformance block: conformance run / generate, fixtures generate ----------------
from dsh_session.cli import conformance as _conformance  # noqa: F401

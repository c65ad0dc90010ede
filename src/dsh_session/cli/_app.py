"""The root ``dsh-session`` command group; subcommands register on it."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="dsh-session")
def main() -> None:
    """Validate, inspect, derive, repair and convert dsh session logs."""

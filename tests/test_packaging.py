"""Packaging: every package directory ships, and the command line is installed."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_directory_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = set()
    for top, base in (("dsh_spec", ROOT / "spec"), ("dsh_session", ROOT / "src")):
        for init in (base / top).rglob("__init__.py"):
            found.add(".".join(init.parent.relative_to(base).parts))
    assert found == listed


def test_console_script_points_at_the_cli() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    assert config["project"]["scripts"]["dsh-session"] == "dsh_session.cli:main"

"""``python3 dev.py`` installs what a fresh machine lacks -- PostgreSQL's server programs,
Debian's ``python3.X-venv`` -- only when it is missing, and finds PostgreSQL where Debian
puts it (the install itself is not run here)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

import dev
from tests import pg_server


def record_runs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    calls: list[tuple[str, ...]] = []

    def fake_run(*args: str | os.PathLike[str], env: dict[str, str] | None = None) -> None:
        calls.append(tuple(str(a) for a in args))

    monkeypatch.setattr(dev, "run", fake_run)
    return calls


def test_nothing_is_installed_when_the_programs_are_there(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = record_runs(monkeypatch)
    monkeypatch.setattr(pg_server, "find_bindir", lambda: Path("/usr/lib/postgresql/15/bin"))
    dev.ensure_postgres()
    assert calls == []


def test_missing_programs_are_installed_with_apt_and_no_default_cluster(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = record_runs(monkeypatch)
    found = iter([None, Path("/usr/lib/postgresql/15/bin")])
    monkeypatch.setattr(pg_server, "find_bindir", lambda: next(found))
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/apt-get" if name == "apt-get" else None)
    dev.ensure_postgres()
    assert calls[0][:2] == ("sh", "-c")
    assert "create_main_cluster = false" in calls[0][2]
    assert str(dev.CREATECLUSTER_CONF) in calls[0][2]
    assert calls[1:] == [
        ("apt-get", "update", "-q"),
        ("apt-get", "install", "-y", "-q", "--no-install-recommends", "postgresql"),
    ]


def test_not_root_installs_through_sudo(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = record_runs(monkeypatch)
    found = iter([None, Path("/usr/lib/postgresql/15/bin")])
    monkeypatch.setattr(pg_server, "find_bindir", lambda: next(found))
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    dev.ensure_postgres()
    assert all(call[:2] == ("sudo", "-n") for call in calls) and len(calls) == 3


def test_without_apt_the_check_stops_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = record_runs(monkeypatch)
    monkeypatch.setattr(pg_server, "find_bindir", lambda: None)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(SystemExit, match="no apt-get here: install postgresql"):
        dev.ensure_postgres()
    assert calls == []


def test_not_root_and_no_sudo_stops_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = record_runs(monkeypatch)
    monkeypatch.setattr(pg_server, "find_bindir", lambda: None)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/apt-get" if name == "apt-get" else None)
    with pytest.raises(SystemExit, match="needs root: `apt-get install postgresql` as root"):
        dev.ensure_postgres()
    assert calls == []


# -- a Python without ensurepip (Debian/Ubuntu without python3.X-venv) ---------------------------


def test_with_ensurepip_nothing_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = record_runs(monkeypatch)
    dev.ensure_venv_support()
    assert calls == []


def test_without_ensurepip_the_venv_package_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = record_runs(monkeypatch)
    found = iter([None, object()])
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: next(found))
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/apt-get" if name == "apt-get" else None)
    dev.ensure_venv_support()
    package = f"python3.{sys.version_info.minor}-venv"
    assert calls == [
        ("apt-get", "update", "-q"),
        ("apt-get", "install", "-y", "-q", "--no-install-recommends", package),
    ]


def test_without_ensurepip_or_apt_the_setup_stops_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = record_runs(monkeypatch)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(SystemExit, match=r"has no ensurepip .* install python3\.\d+-venv"):
        dev.ensure_venv_support()
    assert calls == []


def test_the_programs_are_found_on_path_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for tool in ("initdb", "pg_ctl", "postgres"):
        (tmp_path / tool).write_text("#!/bin/sh\n")
        (tmp_path / tool).chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert pg_server.find_bindir() == tmp_path


def test_a_path_without_every_program_is_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "initdb").write_text("#!/bin/sh\n")
    (tmp_path / "initdb").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert pg_server.find_bindir() != tmp_path

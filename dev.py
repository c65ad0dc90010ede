#!/usr/bin/env python3
"""Project tasks, with nothing but Python needed to run them.

    python3 dev.py demo     set up .venv and run the main job (dsh-session demo)
    python3 dev.py check    set up .venv with the dev tools and run every check

Setup is idempotent: the virtual environment lives in ``.venv`` and is
(re)installed when ``pyproject.toml`` or the C source of the optional speedups
(``src/dsh_session/_speedups.c``, compiled by the install) changed since the last install. ``check``
also makes sure PostgreSQL's server programs are installed (the tests start a
throwaway server of their own): when ``initdb``/``pg_ctl`` are not found, it
installs Debian's ``postgresql`` package with apt-get (as root, or via sudo).
Likewise, where Debian's or Ubuntu's Python lacks ``ensurepip`` (needed to
put pip into ``.venv``), it installs ``python3.X-venv`` first.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"


#: What an install is made from: a change to either means installing again.
BUILT_FROM = ("pyproject.toml", "src/dsh_session/_speedups.c")


def run(*args: str | os.PathLike[str], env: dict[str, str] | None = None) -> None:
    print("+", " ".join(str(a) for a in args), flush=True)
    result = subprocess.run([str(a) for a in args], cwd=ROOT, env=env)
    if result.returncode:
        sys.exit(result.returncode)


def has_pip(python: Path) -> bool:
    probe = subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True)
    return probe.returncode == 0


def setup(extra: str | None) -> None:
    if not PY.exists() or not has_pip(PY):
        ensure_venv_support()
        print(f"creating {VENV}", flush=True)
        shutil.rmtree(VENV, ignore_errors=True)  # a half-made one (no pip) is made again
        venv.EnvBuilder(with_pip=True).create(VENV)
    target = f".[{extra}]" if extra else "."
    stamp = VENV / f".installed-{extra or 'base'}"
    digest = hashlib.sha256(b"".join((ROOT / name).read_bytes() for name in BUILT_FROM)).hexdigest()
    if stamp.exists() and stamp.read_text() == digest:
        return
    run(PY, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-e", target)
    stamp.write_text(digest)


def demo(args: list[str]) -> None:
    setup(None)
    run(BIN / "dsh-session", "demo", *args)


#: Tells Debian's postgresql-common not to create (and start) a default cluster on install.
CREATECLUSTER_CONF = Path("/etc/postgresql-common/createcluster.d/dsh-session.conf")


def apt_install(packages: list[str], why: str, before: str | None = None) -> None:
    """Install Debian packages with apt-get (as root, or via sudo), or stop with one clear line."""
    wanted = " ".join(packages)
    print(f"{why}: installing {wanted} with apt-get", flush=True)
    if shutil.which("apt-get") is None:
        sys.exit(f"{why}, and there is no apt-get here: install {wanted} and run this again")
    if os.geteuid() == 0:
        sudo: list[str] = []
    elif shutil.which("sudo"):
        sudo = ["sudo", "-n"]
    else:
        sys.exit(f"{why}, and installing {wanted} needs root: `apt-get install {wanted}` as root")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if before:
        run(*sudo, "sh", "-c", before)
    run(*sudo, "apt-get", "update", "-q", env=env)
    run(*sudo, "apt-get", "install", "-y", "-q", "--no-install-recommends", *packages, env=env)


def ensure_venv_support() -> None:
    """Debian and Ubuntu ship Python without ``ensurepip``; ``venv`` needs it to put pip in .venv."""
    if importlib.util.find_spec("ensurepip") is not None:
        return
    version = f"python3.{sys.version_info.minor}"
    apt_install([f"{version}-venv"], f"{version} has no ensurepip (needed to create .venv)")
    importlib.invalidate_caches()
    if importlib.util.find_spec("ensurepip") is None:
        sys.exit(f"installed {version}-venv, yet this Python has no ensurepip: run dev.py with {version}")


#: Tells Debian's postgresql-common not to create (and start) a default cluster on install.
CREATECLUSTER_CONF = Path("/etc/postgresql-common/createcluster.d/dsh-session.conf")


def ensure_postgres() -> None:
    """Install PostgreSQL's server programs when they are missing (the tests need them)."""
    from tests.pg_server import find_bindir

    if find_bindir() is not None:
        return
    conf = CREATECLUSTER_CONF
    apt_install(
        ["postgresql"],
        "PostgreSQL's initdb/pg_ctl not found (the tests start their own server)",
        before=f"mkdir -p '{conf.parent}' && echo 'create_main_cluster = false' > '{conf}'",
    )
    if find_bindir() is None:
        sys.exit("installed postgresql, but initdb/pg_ctl are still not found")


def check(args: list[str]) -> None:
    setup("dev")
    ensure_postgres()
    lint = [p for p in ("spec", "src", "tests", "bench", "verify", "dev.py") if (ROOT / p).exists()]
    run(PY, "-m", "ruff", "check", *lint)
    run(PY, "-m", "mypy", "--strict", "spec", "src", "tests")
    run(PY, "-m", "pytest", *args)


TASKS = {"demo": demo, "check": check}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TASKS:
        print(__doc__)
        sys.exit(2)
    TASKS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()

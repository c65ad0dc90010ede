"""Packaging: what the sdist and the wheel hold, and that an installed wheel runs the suite.

The build test copies the project (without its caches and virtual environment)
to a temporary directory, builds the sdist there and the wheel *from the
sdist* (as ``python -m build`` does), installs the wheel into a fresh virtual
environment outside the checkout, and runs the conformance suite with the
installed command -- in process and through the example adapter program -- and
a few of the sdist's own tests against the installed package. The fresh
environment gets the dependencies from this one's site-packages through a
``.pth`` line, so the test needs no network; ``dsh_session`` itself comes only
from the wheel (this environment's editable install is a finder that a
``.pth`` line does not load).
"""

from __future__ import annotations

import email
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import dsh_session

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "conformance"
_NOT_SOURCES = (
    ".git",
    ".venv",
    "*.egg-info",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    "__pycache__",
    "build",
    "dist",
)


def test_every_package_directory_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = set()
    for top, base in (("dsh_spec", ROOT / "spec"), ("dsh_session", ROOT / "src")):
        for init in (base / top).rglob("__init__.py"):
            found.add(".".join(init.parent.relative_to(base).parts))
    # The suite is package data mapped from conformance/ into the package, not a code package.
    assert config["tool"]["setuptools"]["package-dir"]["dsh_session._suite"] == "conformance"
    assert found == listed - {"dsh_session._suite"}


def test_console_script_points_at_the_cli() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    assert config["project"]["scripts"]["dsh-session"] == "dsh_session.cli:main"


@dataclass(frozen=True)
class Built:
    sdist: Path
    wheel: Path
    python: Path  # the fresh environment's interpreter
    command: Path  # its dsh-session
    elsewhere: Path  # a directory outside the checkout and the build tree


def _run(*argv: str | Path, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(arg) for arg in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    base = tmp_path_factory.mktemp("packaging")
    tree, dist = base / "tree", base / "dist"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(*_NOT_SOURCES))
    made = _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, ".", cwd=tree)
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    env = base / "venv"
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    installed = _run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--no-deps",
        "--quiet",
        "--disable-pip-version-check",
        wheel,
        cwd=base,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    site = Path(
        _run(
            python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=base
        ).stdout.strip()
    )
    (site / "_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", "utf-8")
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    return Built(sdist, wheel, python, env / "bin" / "dsh-session", elsewhere)


def _suite_files() -> set[str]:
    return {
        str(path.relative_to(SUITE))
        for path in SUITE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_the_wheel_holds_the_suite_the_license_and_the_metadata(built: Built) -> None:
    with zipfile.ZipFile(built.wheel) as wheel:
        names = set(wheel.namelist())
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        metadata = email.message_from_bytes(wheel.read(f"{info}/METADATA"))
        licence = wheel.read(f"{info}/licenses/LICENSE").decode("utf-8")
    shipped = {
        name.removeprefix("dsh_session/_suite/") for name in names if name.startswith("dsh_session/_suite/")
    }
    assert shipped == _suite_files()
    assert {"VERSION", "README.md", "schema/case.schema.json", "adapters/python/adapter.py"} <= shipped
    assert licence == (ROOT / "LICENSE").read_text("utf-8") and licence.startswith("MIT License")
    assert metadata["Name"] == "dsh-session"
    assert metadata["Version"] == dsh_session.__version__
    assert metadata["License-Expression"] == "MIT"
    assert metadata["Requires-Python"] == ">=3.11"
    classifiers = metadata.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers and "Programming Language :: Python :: 3.11" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # the SPDX expression says it
    urls = dict(url.split(", ", 1) for url in metadata.get_all("Project-URL") or [])
    assert {"Homepage", "Documentation", "Source", "Issues"} <= set(urls)


def test_the_wheel_built_from_the_sdist_carries_the_compiled_speedups(built: Built) -> None:
    """The sdist holds the C source (not a build of it); the wheel the module compiled from it,
    which the installed package uses."""
    with tarfile.open(built.sdist) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert "src/dsh_session/_speedups.c" in names
    assert not [name for name in names if name.endswith(".so")]
    with zipfile.ZipFile(built.wheel) as wheel:
        compiled = [name for name in wheel.namelist() if name.startswith("dsh_session/_speedups.")]
    assert len(compiled) == 1 and compiled[0].endswith(".so"), compiled
    probe = "from dsh_session import _accel; print(_accel.ACCELERATED)"
    used = _run(built.python, "-c", probe, cwd=built.elsewhere)
    assert used.stdout.strip() == "True", used.stderr[-2000:]


def test_the_sdist_holds_every_file_the_tests_read(built: Built) -> None:
    with tarfile.open(built.sdist) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for folder in ("tests", "conformance", "docs", "spec", "src", "bench"):
        wanted = {
            str(p.relative_to(ROOT))
            for p in (ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith((".pyc", ".so"))
        }
        missing = wanted - names
        assert not missing, f"the sdist lacks {sorted(missing)[:5]}"
    assert {"LICENSE", "README.md", "pyproject.toml", "dev.py", ".ci/run"} <= names


def test_the_installed_command_runs_the_suite_outside_the_checkout(built: Built) -> None:
    core = sum(
        1 for path in SUITE.glob("cases/*/*.json") if json.loads(path.read_text("utf-8"))["profile"] == "core"
    )
    ran = _run(built.command, "conformance", "run", "--profile", "core", "--json", cwd=built.elsewhere)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    report = json.loads(ran.stdout)
    assert report["passed"] is True and report["summary"]["total"] == core
    assert report["implementation"]["version"] == dsh_session.__version__
    where = _run(
        built.python,
        "-c",
        "import dsh_session, pathlib; print(pathlib.Path(dsh_session.__file__).resolve().parent)",
        cwd=built.elsewhere,
    )
    package = Path(where.stdout.strip())
    assert not package.is_relative_to(ROOT), "the package must come from the wheel"
    adapter = package / "_suite" / "adapters" / "python" / "adapter.py"
    ran = _run(
        built.command,
        "conformance",
        "run",
        "--profile",
        "core",
        "--adapter",
        f"{built.python} {adapter}",
        "--json",
        cwd=built.elsewhere,
    )
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    report = json.loads(ran.stdout)
    assert report["passed"] is True and report["summary"]["total"] == core
    assert report["summary"]["outcomes"]["pass"] == core


def test_the_sdists_tests_run_against_the_installed_wheel(built: Built, tmp_path: Path) -> None:
    with tarfile.open(built.sdist) as sdist:
        sdist.extractall(tmp_path, filter="data")
    (unpacked,) = tmp_path.iterdir()
    where = _run(
        built.python,
        "-c",
        "import dsh_session, dsh_spec; print(dsh_session.__file__); print(dsh_spec.__file__)",
        cwd=unpacked,
    )
    assert all(
        not Path(line).is_relative_to(unpacked) and not Path(line).is_relative_to(ROOT)
        for line in where.stdout.split()
    ), where.stdout
    ran = _run(
        built.python,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "tests/test_registry.py",
        "tests/test_conformance_format.py",
        cwd=unpacked,
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert " passed" in ran.stdout and "failed" not in ran.stdout


def test_without_a_c_compiler_the_wheel_is_the_python_library(built: Built, tmp_path: Path) -> None:
    """The speedups are optional: a build whose compiler fails still makes a wheel, with no
    compiled module in it, and the library it installs runs on its Python code."""
    with tarfile.open(built.sdist) as sdist:
        sdist.extractall(tmp_path, filter="data")
    (unpacked,) = [path for path in tmp_path.iterdir() if path.is_dir()]
    dist = tmp_path / "dist"
    env = {**os.environ, "CC": "/bin/false"}
    made = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), "."],
        cwd=unpacked,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert not [name for name in archive.namelist() if name.startswith("dsh_session/_speedups")]
    target = tmp_path / "venv"
    venv.create(target, with_pip=False)
    python = target / "bin" / "python"
    installed = _run(
        sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q", wheel, cwd=tmp_path
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    site = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path)
    (Path(site.stdout.strip()) / "_dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", "utf-8"
    )
    probe = (
        "from dsh_session import Session, _accel\n"
        "s = Session('s')\n"
        "s.append('user/message', {'content': [], 'source': {'kind': 'user'}}, surface_op='append')\n"
        "print(_accel.ACCELERATED, len(s.derive_messages()))\n"
    )
    ran = _run(python, "-c", probe, cwd=built.elsewhere)
    assert ran.stdout.strip() == "False 1", ran.stderr[-2000:]

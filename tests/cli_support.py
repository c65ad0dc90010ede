"""Running the command line in tests, and the reference stores it runs on.

``run`` invokes the click group in-process (click's ``CliRunner``: stdout and
stderr apart, not a terminal); a test copies a reference case to a temporary
directory first (``tests.reference.copy_case``) -- never opens a store in place.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from dsh_session.cli import main
from tests.reference import VALID, database

VALID_SQLITE = [c for c in VALID if database(c).exists()]

#: Crash cases: (stored events kept by a load, closers it appends, torn records it cuts), from INDEX.md.
CRASH = {
    "crash-jsonl-torn-last-line-unanswered-toolcall": (35, 3, 1),
    "crash-jsonl-torn-turn-end-line": (23, 1, 1),
    "crash-jsonl-open-turn-unanswered-toolcalls-open-step": (36, 4, 0),
    "crash-jsonl-open-turn-after-compaction": (31, 2, 0),
    "crash-sqlite-open-turn-unanswered-toolcalls-open-step": (36, 4, 0),
    "crash-sqlite-open-turn-after-compaction": (31, 2, 0),
}


@dataclass(frozen=True)
class Ran:
    """What one command run printed and returned."""

    status: int
    stdout: str
    stderr: str
    exception: BaseException | None

    def json(self) -> Any:
        return json.loads(self.stdout)

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]


def _runner() -> CliRunner:
    # click < 8.2 mixes stderr into stdout unless told not to; later versions always keep them apart.
    if "mix_stderr" in inspect.signature(CliRunner.__init__).parameters:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg,unused-ignore]
    return CliRunner()


def run(*args: str, env: dict[str, str] | None = None) -> Ran:
    result = _runner().invoke(main, list(args), env=env)
    return Ran(result.exit_code, result.stdout, result.stderr, result.exception)


def store_of(case_dir: Path, backend: str) -> Path:
    """The store of a case: its JSONL root or its SQLite database."""
    return case_dir / "jsonl" if backend == "jsonl" else case_dir / "sqlite" / "session.db"


def expected(case_dir: Path, backend: str) -> Any:
    """What the reference loaded from the case's store (``expected.json``)."""
    sqlite_expected = case_dir / "sqlite" / "expected.json"
    if backend == "sqlite" and sqlite_expected.exists():
        return json.loads(sqlite_expected.read_text("utf-8"))
    return json.loads((case_dir / "expected.json").read_text("utf-8"))


def jsonl_file(root: Path) -> Path:
    """The one session file of a JSONL root."""
    (found,) = root.glob("*/*.jsonl")
    return found


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under ``root`` with the SHA-256 of its bytes (to show that nothing changed)."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }

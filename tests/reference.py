"""The stores the TypeScript reference wrote, and its records of loading them, as the tests find them.

Each store has one home, the conformance suite's ``conformance/artifacts/``:
``jsonl/<case>/`` (a JSONL root) and ``sqlite/<case>.db`` (the database file;
``sqlite/<case>.sql`` is its SQL text, which the suite's runner builds from).
What the reference did with a store -- ``expected.json``, ``log.json``,
``repaired/``, ``pragmas.json``, ... -- is in ``tests/data/reference-artifacts/<case>/``
(its INDEX.md says what each case holds). ``copy_case`` puts the two together
in a temporary directory, in the layout INDEX.md describes (``jsonl/``,
``sqlite/session.db`` beside the records): a test never opens a store in place
(SQLite would leave ``-wal`` / ``-shm`` files beside it).
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "data" / "reference-artifacts"
STORES = ROOT / "conformance" / "artifacts"

CASES = sorted(p.name for p in RECORDS.iterdir() if p.is_dir())
VALID = [c for c in CASES if not c.startswith(("crash-", "reject-", "jsonl-invalid-utf8"))]
CRASH_JSONL = [c for c in CASES if c.startswith("crash-jsonl-")]
CRASH_SQLITE = [c for c in CASES if c.startswith("crash-sqlite-")]
REJECT_SQLITE = [c for c in CASES if c.startswith("reject-sqlite-")]


def jsonl_root(case: str) -> Path:
    """The case's JSONL root as the reference wrote it (not every case has one)."""
    return STORES / "jsonl" / case


def database(case: str) -> Path:
    """The case's SQLite database as the reference wrote it (not every case has one)."""
    return STORES / "sqlite" / f"{case}.db"


def copy_case(case: str, tmp: Path) -> Path:
    """A private copy of a case under ``tmp``: its records, its JSONL root at ``jsonl/`` and its
    database at ``sqlite/session.db`` (where it has them), all owner-writable."""
    target = tmp / case
    shutil.copytree(RECORDS / case, target)
    if jsonl_root(case).is_dir():
        shutil.copytree(jsonl_root(case), target / "jsonl")
    if database(case).is_file():
        (target / "sqlite").mkdir(exist_ok=True)
        shutil.copyfile(database(case), target / "sqlite" / "session.db")
    for path in target.rglob("*"):
        path.chmod(0o700 if path.is_dir() else 0o600)
    return target

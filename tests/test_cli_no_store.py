"""A PATH that holds no session: an empty store (0 sessions) or no store at all (exit status 2).

The rule (``docs/cli.md``, "PATH: what can be read"): a location holding no
session is an empty store only when it is recognisably one -- a directory with
a ``cwd-<hash>/`` or ``_no-cwd/`` directory, a SQLite database with our tables.
Anything else fails ``validate``, ``repair`` (without ``--id``) and ``convert``
with one line naming it: ``no sessions stored here``. An empty store is valid
with 0 sessions and needs no repair; ``convert`` of it has nothing to copy.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from dsh_session import SqliteBackend
from tests.cli_support import run, tree_digest


def _empty_dir(tmp_path: Path) -> Path:
    (tmp_path / "empty").mkdir()
    return tmp_path / "empty"


def _docs_dir(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "images").mkdir(parents=True)
    (docs / "README.md").write_text("# notes\n", "utf-8")
    (docs / "images" / "a.png").write_bytes(b"\x89PNG")
    return docs


def _foreign_dir(tmp_path: Path) -> Path:
    foreign = tmp_path / "etc"
    (foreign / "cwd-notahash").mkdir(parents=True)  # not a bucket name
    (foreign / "no-cwd").mkdir()
    return foreign


def _tableless_db(tmp_path: Path) -> Path:
    path = tmp_path / "blank.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (a)")
    conn.execute("DROP TABLE t")
    conn.commit()
    conn.close()
    assert path.read_bytes().startswith(b"SQLite format 3\x00")
    return path


NOT_STORES = {
    "empty directory": (_empty_dir, "not a JSONL root"),
    "docs directory": (_docs_dir, "not a JSONL root"),
    "other directories": (_foreign_dir, "not a JSONL root"),
    "SQLite without tables": (_tableless_db, "a SQLite database without the session tables"),
}


@pytest.mark.parametrize("case", sorted(NOT_STORES))
@pytest.mark.parametrize("command", ["validate", "repair", "convert"])
def test_a_location_that_is_no_store_fails(case: str, command: str, tmp_path: Path) -> None:
    make, reason = NOT_STORES[case]
    path = make(tmp_path)
    before = tree_digest(tmp_path)
    extra = [str(tmp_path / "out")] if command == "convert" else []
    ran = run(command, str(path), *extra)
    assert ran.status == 2, ran.stdout
    (line,) = ran.error_lines
    assert line.startswith(f"dsh-session: error: {path}: no sessions stored here; ")
    assert reason in line
    assert tree_digest(tmp_path) == before  # nothing written, DST not created


@pytest.mark.parametrize("case", sorted(NOT_STORES))
def test_validate_json_of_a_location_that_is_no_store(case: str, tmp_path: Path) -> None:
    path = NOT_STORES[case][0](tmp_path)
    ran = run("validate", str(path), "--json")
    assert ran.status == 2
    document = ran.json()
    assert document["valid"] is False and document["status"] == 2
    (item,) = document["sessions"]
    assert item["status"] == "unreadable" and item["path"] == str(path)
    assert item["error"]["message"].startswith(f"{path}: no sessions stored here")


def test_validate_of_etc_is_not_valid() -> None:
    ran = run("validate", "/etc")
    assert ran.status == 2
    assert ran.error_lines[-1].startswith("dsh-session: error: /etc: no sessions stored here")


def _empty_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "_no-cwd").mkdir(parents=True)
    return root


def _empty_bucket_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "cwd-0123456789ab").mkdir(parents=True)
    return root


def _empty_db(tmp_path: Path) -> Path:
    path = tmp_path / "empty.db"
    SqliteBackend(path).close()  # the schema, no session
    return path


EMPTY_STORES = {
    "JSONL root (_no-cwd)": _empty_root,
    "JSONL root (cwd-)": _empty_bucket_root,
    "SQLite": _empty_db,
}


@pytest.mark.parametrize("case", sorted(EMPTY_STORES))
def test_an_empty_store_is_valid_with_no_sessions(case: str, tmp_path: Path) -> None:
    path = EMPTY_STORES[case](tmp_path)
    ran = run("validate", str(path), "--json")
    assert ran.status == 0, ran.stderr
    assert ran.json() == {"valid": True, "status": 0, "rules": "seed", "invariants": False, "sessions": []}
    repaired = run("repair", str(path), "--json")
    assert repaired.status == 0, repaired.stderr
    assert repaired.json()["checked"] == 0 and repaired.json()["sessions"] == []


@pytest.mark.parametrize("case", sorted(EMPTY_STORES))
def test_convert_of_an_empty_store_has_nothing_to_copy(case: str, tmp_path: Path) -> None:
    path = EMPTY_STORES[case](tmp_path)
    before = tree_digest(tmp_path)
    ran = run("convert", str(path), str(tmp_path / "out.db"))
    assert ran.status == 2
    (line,) = ran.error_lines
    assert line.startswith("dsh-session: error: ")
    assert ": nothing to copy: the store holds no session; " in line
    assert line.endswith(f"{tmp_path / 'out.db'} was not touched")
    assert tree_digest(tmp_path) == before

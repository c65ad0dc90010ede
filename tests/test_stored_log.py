"""Reading a stored log without writing, and the report of what a load's repair would do
(issue 11, item 5's last part): ``read_log``, ``repair_report``, ``catalog``, and the command
line's readers built on them alone."""

from __future__ import annotations

import ast
import sqlite3
from pathlib import Path

import pytest

from dsh_session import (
    Code,
    CorruptStoreError,
    JsonlBackend,
    SessionHeader,
    SessionNotFoundError,
    SqliteBackend,
    read_jsonl_log,
    repair_report,
)
from tests.logs import one_turn_log
from tests.test_reads_change_nothing import open_turn_log
from tests.test_symlinks import tree

ROOT = Path(__file__).resolve().parent.parent


def crashed_jsonl(root: Path) -> Path:
    with JsonlBackend(root) as backend:
        backend.create(SessionHeader("s", 1, cwd="/w"))
        backend.append("s", open_turn_log())  # type: ignore[arg-type]
    (log,) = root.glob("*/s.jsonl")
    with open(log, "ab") as file:
        file.write(b'{"type":"assistant/chunk","se')
    return log


@pytest.mark.parametrize("read_only", [False, True])
def test_a_jsonl_report_says_what_a_load_repairs_and_writes_nothing(tmp_path: Path, read_only: bool) -> None:
    root = tmp_path / "root"
    log = crashed_jsonl(root)
    before = tree(root)
    stored = len(open_turn_log())
    with JsonlBackend(root, read_only=read_only) as backend:
        read = backend.read_log("s")
        report = repair_report(read)
    assert tree(root) == before
    assert read.where == str(log) and len(read.records) == stored
    assert (read.cut_records, read.cut_bytes) == (1, len(b'{"type":"assistant/chunk","se'))
    assert read.stored_bytes == log.stat().st_size
    assert read.place(0) == (2, "line 2")
    assert report.needs_repair and [e.type for e in report.closers] == ["turn/end"]
    loaded = JsonlBackend(root).load("s").events  # what the load then does is what was reported
    assert loaded == report.repaired()
    assert repair_report(JsonlBackend(root).read_log("s")).needs_repair is False


def test_a_sqlite_report_and_catalog(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    with SqliteBackend(db) as backend:
        backend.create(SessionHeader("open", 1, cwd="/w"))
        backend.append("open", open_turn_log())  # type: ignore[arg-type]
        backend.create(SessionHeader("whole", 1))
        backend.append("whole", one_turn_log("whole"))
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("INSERT INTO sessions VALUES ('v7', 7, 1, NULL, NULL, NULL)")
    conn.close()
    before = tree(tmp_path)
    with SqliteBackend(db, read_only=True) as reader:
        assert reader.initialised
        catalog = reader.catalog()
        assert [(sid, error.code if error else None) for sid, error in catalog] == [
            ("open", None),
            ("v7", Code.STORE_VERSION_UNSUPPORTED),
            ("whole", None),
        ]
        read = reader.read_log("open")
        assert read.place(3) == (None, "row seq 3") and read.cut_bytes is None
        report = repair_report(read)
        assert [e.type for e in report.closers] == ["turn/end"]
        assert not repair_report(reader.read_log("whole")).needs_repair
    assert tree(tmp_path) == before
    with SqliteBackend(tmp_path / "missing.db", read_only=True) as nothing:
        assert not nothing.initialised and nothing.catalog() == ()


def test_a_report_refuses_a_record_that_breaks_a_rule_naming_its_line(tmp_path: Path) -> None:
    root = tmp_path / "root"
    with JsonlBackend(root) as backend:
        backend.create(SessionHeader("s", 1, cwd="/w"))
        backend.append("s", one_turn_log())
    (log,) = root.glob("*/s.jsonl")
    lines = log.read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b'"seq":2', b'"seq":2,"surfaceOp":"append"')  # step/start: log-only
    log.write_bytes(b"\n".join(lines))
    with pytest.raises(CorruptStoreError) as raised:
        repair_report(JsonlBackend(root, read_only=True).read_log("s"))
    assert raised.value.code is Code.SURFACE_OP_ON_LOG_ONLY_TYPE and raised.value.line == 4
    assert "line 4" in raised.value.message


def test_a_file_is_read_where_it_lies_or_checked_against_its_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    log = crashed_jsonl(root)
    moved = root / "cwd-000000000000" / "s.jsonl"
    moved.parent.mkdir()
    log.rename(moved)
    assert read_jsonl_log(moved).header.id == "s"  # a file anywhere
    with pytest.raises(SessionNotFoundError):
        read_jsonl_log(moved, session_id="other")
    backend = JsonlBackend(root)
    assert backend.log_files() == (str(moved),)
    with pytest.raises(CorruptStoreError) as raised:
        backend.read_log_file(moved)  # not where its header's cwd puts it
    assert "belongs at" in raised.value.message


def test_the_command_lines_readers_use_only_public_persistence_names() -> None:
    source = (ROOT / "src" / "dsh_session" / "cli" / "_readonly.py").read_text("utf-8")
    tree_ = ast.parse(source)
    private = []
    for node in ast.walk(tree_):
        module = node.module if isinstance(node, ast.ImportFrom) else None
        if module and module.startswith("dsh_session.persistence"):
            assert isinstance(node, ast.ImportFrom)
            if module != "dsh_session.persistence" or any(a.name.startswith("_") for a in node.names):
                private.append(module)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            private.append(node.attr)
        if isinstance(node, ast.ClassDef):
            assert all(getattr(base, "id", "") != "SqliteBackend" for base in node.bases), node.name
    assert private == []

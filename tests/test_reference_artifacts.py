"""Interoperability with the TypeScript reference, on the stores it wrote itself.

For every case in ``tests/data/reference-artifacts`` (see its INDEX.md; the stores
themselves are in ``conformance/artifacts``, see ``tests/reference.py``):

- what the reference wrote, we load with the meta, events (values and, for
  JSONL, key order), messages, surface and generation the reference loaded;
- what we write for the same events is the reference's bytes (JSONL) and
  rows (SQLite), so the reference loads it;
- crash cases repair to the reference's events and leave the files the
  reference left -- except where the reference was wrong (invalid UTF-8
  before a torn tail), where we cut at the right byte;
- rejection cases fail with our typed errors and leave the files untouched
  (the reference crashed on a ``null`` line and switched a rejected
  rollback-journal database to WAL).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from dsh_session import (
    Code,
    CorruptStoreError,
    IncompatibleStoreError,
    JsonlBackend,
    Session,
    SqliteBackend,
    StoredSession,
    interrupted_turn_closers,
)
from dsh_session.js_json import dumps
from dsh_session.persistence._codec import event_line
from tests.reference import (
    CASES,
    CRASH_JSONL,
    CRASH_SQLITE,
    RECORDS,
    REJECT_SQLITE,
    STORES,
    VALID,
    copy_case,
    database,
    jsonl_root,
)


def test_the_cases_are_all_there() -> None:
    assert len(CASES) == 26
    assert (len(VALID), len(CRASH_JSONL), len(CRASH_SQLITE), len(REJECT_SQLITE)) == (13, 4, 2, 3)


@pytest.mark.parametrize("case", [c for c in CASES if database(c).is_file()])
def test_the_sql_text_of_a_database_rebuilds_it(case: str, tmp_path: Path) -> None:
    """The suite's ``sqlite/<case>.sql`` (what its runner builds a database from) holds what the
    reference's ``sqlite/<case>.db`` holds: the same schema and rows, the same ``user_version``."""
    text = (STORES / "sqlite" / f"{case}.sql").read_text("utf-8")
    pragmas = json.loads((RECORDS / case / "sqlite" / "pragmas.json").read_text("utf-8"))
    assert text.startswith(f"PRAGMA user_version = {pragmas['user_version']};\n")
    built = tmp_path / "built.db"
    conn = sqlite3.connect(built)
    try:
        conn.executescript(text)
    finally:
        conn.close()
    assert rows(built) == rows(copy_case(case, tmp_path) / "sqlite" / "session.db")


# -- helpers ----------------------------------------------------------------------------------


def listed(text: str, key: str) -> list[str]:
    """The lines of an ``expected.json`` array (one JSON text per line, as the reference wrote it)."""
    lines = text.split("\n")
    start = lines.index(f'"{key}": [')
    out: list[str] = []
    for line in lines[start + 1 :]:
        if line.startswith("]"):
            return out
        out.append(line.removesuffix(","))
    raise AssertionError(f"no end of {key}")


def check_loaded(loaded: StoredSession, expected_path: Path) -> None:
    """``loaded`` is what the reference loaded: meta, events, then the resumed session's history."""
    text = expected_path.read_text("utf-8")
    expected = json.loads(text)
    assert dumps(loaded.header.to_json()) == json.dumps(
        expected["meta"], separators=(",", ":"), ensure_ascii=False
    )
    assert [event_line(event) for event in loaded.events] == listed(text, "events")
    session = Session(loaded.header.id, seed=loaded.events, header=loaded.header)
    assert [dumps(message) for message in session.derive_messages()] == listed(text, "messages")
    surface = [dumps({"seq": n.seq, "prev": n.prev, "next": n.next}) for n in session.surface.nodes]
    assert surface == listed(text, "surface")
    assert session.surface.replace_generation == expected["generation"]


def the_log(root: Path) -> Path:
    (path,) = root.glob("*/*.jsonl")
    return path


def session_id(case: Path) -> str:
    meta = json.loads((case / "expected.json").read_text("utf-8")).get("meta")
    if meta is not None:
        return str(meta["id"])
    header = json.loads(the_log(case / "jsonl").read_bytes().split(b"\n", 1)[0])
    return str(header["id"])


def rows(path: Path) -> tuple[list[Any], list[Any], list[Any]]:
    """Everything stored in a database, read without changing it."""
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return (
            conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").fetchall(),
            conn.execute("SELECT * FROM sessions ORDER BY id").fetchall(),
            conn.execute("SELECT * FROM events ORDER BY session_id, seq").fetchall(),
        )
    finally:
        conn.close()


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- logs the reference wrote and loaded ------------------------------------------------------


@pytest.mark.parametrize("case", VALID)
def test_a_jsonl_store_loads_as_the_reference_loaded_it(case: str, tmp_path: Path) -> None:
    folder = copy_case(case, tmp_path)
    before = tree(folder / "jsonl")
    loaded = JsonlBackend(folder / "jsonl").load(session_id(folder))
    check_loaded(loaded, folder / "expected.json")
    assert tree(folder / "jsonl") == before


@pytest.mark.parametrize("case", VALID)
def test_a_sqlite_store_loads_as_the_reference_loaded_it(case: str, tmp_path: Path) -> None:
    folder = copy_case(case, tmp_path)
    db = folder / "sqlite" / "session.db"
    before = rows(db)
    with SqliteBackend(db) as backend:
        check_loaded(backend.load(session_id(folder)), folder / "sqlite" / "expected.json")
        assert [h.id for h in backend.list()] == [session_id(folder)]
    assert rows(db) == before
    assert sorted(p.name for p in db.parent.iterdir()) == [
        "expected.json",
        "pragmas.json",
        "session.db",
    ]


@pytest.mark.parametrize("case", VALID)
def test_we_write_the_jsonl_bytes_the_reference_wrote(case: str, tmp_path: Path) -> None:
    folder = copy_case(case, tmp_path)
    loaded = JsonlBackend(folder / "jsonl").load(session_id(folder))
    ours = JsonlBackend(tmp_path / "ours")
    ours.create(loaded.header)
    ours.append(loaded.header.id, loaded.events)
    assert tree(tmp_path / "ours") == tree(jsonl_root(case))


@pytest.mark.parametrize("case", VALID)
def test_we_write_the_sqlite_rows_the_reference_wrote(case: str, tmp_path: Path) -> None:
    folder = copy_case(case, tmp_path)
    with SqliteBackend(folder / "sqlite" / "session.db") as theirs:
        loaded = theirs.load(session_id(folder))
    with SqliteBackend(tmp_path / "ours.db") as ours:
        ours.create(loaded.header)
        half = len(loaded.events) // 2
        ours.append(loaded.header.id, loaded.events[:half])
        ours.append(loaded.header.id, loaded.events[half:])
    assert rows(tmp_path / "ours.db") == rows(folder / "sqlite" / "session.db")


# -- crashes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CRASH_JSONL)
def test_a_crashed_jsonl_log_repairs_to_what_the_reference_left(case: str, tmp_path: Path) -> None:
    folder = copy_case(case, tmp_path)
    check_loaded(JsonlBackend(folder / "jsonl").load(session_id(folder)), folder / "expected.json")
    assert tree(folder / "jsonl") == tree(RECORDS / case / "repaired" / "jsonl")
    check_loaded(JsonlBackend(folder / "jsonl").load(session_id(folder)), folder / "expected-reload.json")
    assert tree(folder / "jsonl") == tree(RECORDS / case / "repaired" / "jsonl")


@pytest.mark.parametrize("case", CRASH_SQLITE)
def test_a_crashed_sqlite_log_repairs_to_what_the_reference_left(case: str, tmp_path: Path) -> None:
    folder = copy_case(case, tmp_path)
    db = folder / "sqlite" / "session.db"
    with SqliteBackend(db) as backend:
        check_loaded(backend.load(session_id(folder)), folder / "expected.json")
    assert rows(db) == rows(folder / "repaired" / "sqlite" / "session.db")
    with SqliteBackend(db) as backend:
        check_loaded(backend.load(session_id(folder)), folder / "expected-reload.json")
    assert rows(db) == rows(folder / "repaired" / "sqlite" / "session.db")


def test_invalid_utf8_before_a_torn_tail_is_cut_at_the_right_byte(tmp_path: Path) -> None:
    case = "jsonl-invalid-utf8-before-torn-tail-offset-bug"
    folder = copy_case(case, tmp_path)
    path = the_log(folder / "jsonl")
    original = path.read_bytes()
    loaded = JsonlBackend(folder / "jsonl").load("utf8-torn")
    check_loaded(loaded, folder / "expected.json")  # the events the reference returned
    # ... but the file is cut after the last complete line (seq 13), not 4 bytes later
    kept = original[: original.rindex(b"\n") + 1]
    assert kept.endswith(b'"seq":13,' + kept.rsplit(b'"seq":13,', 1)[1])
    closers = interrupted_turn_closers(list(loaded.events[:14]))
    assert path.read_bytes() == kept + b"".join(event_line(c).encode() + b"\n" for c in closers)
    # and it loads again (the reference's reload failed: "unparsable committed event at line 15")
    assert json.loads((folder / "expected-reload.json").read_text())["error"].startswith("corrupt")
    check_loaded(JsonlBackend(folder / "jsonl").load("utf8-torn"), folder / "expected.json")


# -- rejections -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "code", "line"),
    [
        ("reject-jsonl-header-version-1", Code.STORE_VERSION_UNSUPPORTED, 1),
        ("reject-jsonl-invalid-utf8-outside-string", Code.STORE_CORRUPT, 3),
        ("reject-jsonl-null-line-mid-file", Code.STORE_CORRUPT, 7),
    ],
)
def test_a_bad_jsonl_store_is_refused_with_a_typed_error(
    case: str, code: Code, line: int, tmp_path: Path
) -> None:
    folder = copy_case(case, tmp_path)
    before = tree(folder / "jsonl")
    with pytest.raises((CorruptStoreError, IncompatibleStoreError)) as raised:
        JsonlBackend(folder / "jsonl").load(session_id(folder))
    assert raised.value.code is code
    assert raised.value.line == line
    assert raised.value.path == str(the_log(folder / "jsonl"))
    assert tree(folder / "jsonl") == before


@pytest.mark.parametrize("case", REJECT_SQLITE)
def test_a_database_of_another_schema_version_is_refused_untouched(case: str, tmp_path: Path) -> None:
    folder = copy_case(case, tmp_path)
    db = folder / "sqlite" / "session.db"
    files = sorted(p.name for p in db.parent.iterdir())
    before = sha(db)
    journal = db.read_bytes()[18:20]
    with pytest.raises(IncompatibleStoreError) as raised:
        SqliteBackend(db)
    later = case == "reject-sqlite-user-version-5"  # a later harness's schema version
    assert raised.value.code is (Code.STORE_VERSION_UNSUPPORTED if later else Code.STORE_SCHEMA_MISMATCH)
    assert raised.value.path == str(db)
    assert sha(db) == before
    pragmas = json.loads((folder / "sqlite" / "pragmas.json").read_text())
    assert list(journal) == pragmas["journal_mode_header_bytes_18_19"]  # rollback stays rollback
    assert sorted(p.name for p in db.parent.iterdir()) == files

"""A store never writes through a symbolic link (issue 11, item 6).

Links planted in a store -- a log file or a bucket directory of a JSONL root,
the temporary file of a first publish, a SQLite database or one of its
``-wal`` / ``-shm`` / ``-journal`` files -- could lead a write out of the
store. Every write path (a load's crash repair, ``append``, the first
publish, ``repair``, ``fork`` and ``convert`` on the command line) refuses
with ``STORE_IO`` (``errno`` ``ELOOP``) and leaves every file, the link's
target included, as it was. Reads may follow a link to a regular file.
"""

from __future__ import annotations

import errno
import os
import secrets
from pathlib import Path

import pytest

from dsh_session import Code, JsonlBackend, SessionHeader, SqliteBackend, StoreIOError
from dsh_session.persistence import cwd_bucket, encode_segment
from tests.cli_support import run
from tests.logs import one_turn_log
from tests.test_reads_change_nothing import open_turn_log


def tree(directory: Path) -> dict[str, bytes | str | None]:
    """Every entry under ``directory``: a file's bytes, a link's target, ``None`` for a directory."""
    out: dict[str, bytes | str | None] = {}
    for path in sorted(directory.rglob("*")):
        name = str(path.relative_to(directory))
        if path.is_symlink():
            out[name] = "-> " + os.readlink(path)
        else:
            out[name] = None if path.is_dir() else path.read_bytes()
    return out


def refused(error: pytest.ExceptionInfo[StoreIOError], link: Path) -> None:
    assert error.value.code is Code.STORE_IO
    assert error.value.errno == errno.ELOOP
    assert str(link) in error.value.message and "symbolic link" in error.value.message


def jsonl_store(root: Path, session_id: str, *, crashed: bool) -> Path:
    """A root holding one session (its turn left open by a crash, or closed); its log's path."""
    backend = JsonlBackend(root)
    backend.create(SessionHeader(session_id, 1, cwd="/w"))
    backend.append(session_id, open_turn_log() if crashed else one_turn_log())  # type: ignore[arg-type]
    backend.close()
    return root / cwd_bucket("/w") / f"{encode_segment(session_id)}.jsonl"


def outside_and_root(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    return outside, tmp_path / "store" / "root"


# -- JSONL ------------------------------------------------------------------------------------


@pytest.mark.parametrize("via", ["log", "bucket"])
def test_a_crash_repair_through_a_symlink_is_refused_and_changes_nothing(tmp_path: Path, via: str) -> None:
    outside, root = outside_and_root(tmp_path)
    real = jsonl_store(outside, "s", crashed=True)
    bucket = root / cwd_bucket("/w")
    if via == "log":
        bucket.mkdir(parents=True)
        link = bucket / real.name
        link.symlink_to(real)
    else:
        root.mkdir(parents=True)
        link = bucket
        link.symlink_to(real.parent, target_is_directory=True)
    before = tree(outside)
    with pytest.raises(StoreIOError) as raised:
        JsonlBackend(root).load("s")
    refused(raised, link)
    assert tree(outside) == before
    ran = run("repair", str(root))
    assert ran.status == 2 and "[STORE_IO]" in ran.stderr, ran.stderr
    assert tree(outside) == before
    # Reading may follow the link: the read-only backend shows the repaired log.
    with JsonlBackend(root, read_only=True) as reader:
        assert reader.load("s").events[-1].type == "turn/end"
    assert tree(outside) == before


def test_appending_to_a_symlinked_log_is_refused(tmp_path: Path) -> None:
    outside, root = outside_and_root(tmp_path)
    real = jsonl_store(outside, "s", crashed=False)
    (root / cwd_bucket("/w")).mkdir(parents=True)
    link = root / cwd_bucket("/w") / real.name
    link.symlink_to(real)
    before = tree(outside)
    backend = JsonlBackend(root)
    loaded = backend.load("s")  # nothing to repair: a read, which may follow the link
    with pytest.raises(StoreIOError) as raised:
        backend.append("s", one_turn_log(turns=2)[len(loaded.events) :])
    refused(raised, link)
    assert tree(outside) == before


def test_a_first_publish_into_a_symlinked_bucket_is_refused(tmp_path: Path) -> None:
    outside, root = outside_and_root(tmp_path)
    root.mkdir(parents=True)
    link = root / cwd_bucket("/w")
    link.symlink_to(outside, target_is_directory=True)
    backend = JsonlBackend(root)
    backend.create(SessionHeader("s", 1, cwd="/w"))
    with pytest.raises(StoreIOError) as raised:
        backend.append("s", one_turn_log())
    refused(raised, link)
    assert os.listdir(outside) == []  # no log, no temporary file
    link.unlink()
    backend.append("s", one_turn_log())  # the refused batch can be retried once the link is gone
    assert len(JsonlBackend(root).load("s").events) == len(one_turn_log())
    assert os.listdir(outside) == []


def test_a_dangling_symlink_at_the_log_name_is_refused(tmp_path: Path) -> None:
    outside, root = outside_and_root(tmp_path)
    bucket = root / cwd_bucket("/w")
    bucket.mkdir(parents=True)
    link = bucket / f"{encode_segment('s')}.jsonl"
    link.symlink_to(outside / "planted.jsonl")  # nothing there yet: a publish would create it
    backend = JsonlBackend(root)
    backend.create(SessionHeader("s", 1, cwd="/w"))
    with pytest.raises(StoreIOError) as raised:
        backend.append("s", one_turn_log())
    refused(raised, link)
    assert os.listdir(outside) == []
    assert sorted(os.listdir(bucket)) == [link.name]


def test_a_symlink_at_the_temporary_name_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside, root = outside_and_root(tmp_path)
    bucket = root / cwd_bucket("/w")
    bucket.mkdir(parents=True)
    monkeypatch.setattr(secrets, "token_hex", lambda _n: "0123456789ab")
    link = bucket / f"{encode_segment('s')}.jsonl.0123456789ab.tmp"
    link.symlink_to(outside / "victim")
    backend = JsonlBackend(root)
    backend.create(SessionHeader("s", 1, cwd="/w"))
    with pytest.raises(StoreIOError) as raised:
        backend.append("s", one_turn_log())
    refused(raised, link)
    assert os.listdir(outside) == []
    assert sorted(os.listdir(bucket)) == [link.name]  # the planted link is not ours to remove


@pytest.mark.parametrize("command", ["fork", "convert"])
def test_fork_and_convert_do_not_publish_into_a_symlinked_bucket(tmp_path: Path, command: str) -> None:
    outside, root = outside_and_root(tmp_path)
    if command == "fork":
        real = jsonl_store(outside, "parent", crashed=False)  # the parent is read through the link
        root.mkdir(parents=True)
        link = root / cwd_bucket("/w")
        link.symlink_to(real.parent, target_is_directory=True)
        args = ["fork", str(root), "--id", "parent", "--child", "kid"]
    else:
        jsonl_store(tmp_path / "source", "s", crashed=False)
        root.mkdir(parents=True)
        link = root / cwd_bucket("/w")
        link.symlink_to(outside, target_is_directory=True)
        args = ["convert", str(tmp_path / "source"), str(root)]
    before = tree(outside)
    ran = run(*args)
    assert ran.status == 2, (ran.stdout, ran.stderr)
    assert "[STORE_IO]" in ran.stderr and "symbolic link" in ran.stderr, ran.stderr
    assert tree(outside) == before


# -- SQLite -----------------------------------------------------------------------------------


def sqlite_store(path: Path, *, crashed: bool, journal_mode: str = "wal") -> None:
    with SqliteBackend(path, journal_mode=journal_mode) as backend:
        backend.create(SessionHeader("s", 1, cwd="/w"))
        backend.append("s", open_turn_log() if crashed else one_turn_log())  # type: ignore[arg-type]


def test_a_repair_through_a_symlinked_database_is_refused(tmp_path: Path) -> None:
    outside, _ = outside_and_root(tmp_path)
    sqlite_store(outside / "real.db", crashed=True)
    (tmp_path / "store").mkdir()
    link = tmp_path / "store" / "sessions.db"
    link.symlink_to(outside / "real.db")
    before = tree(outside)
    with pytest.raises(StoreIOError) as raised:
        SqliteBackend(link)
    refused(raised, link)
    assert tree(outside) == before
    ran = run("repair", str(link))
    assert ran.status == 2 and "[STORE_IO]" in ran.stderr, ran.stderr
    assert tree(outside) == before
    with SqliteBackend(link, read_only=True) as reader:  # reads follow it
        assert reader.load("s").events[-1].type == "turn/end"
    assert tree(outside) == before


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_database_with_a_symlinked_companion_file_is_not_opened_for_writing(
    tmp_path: Path, suffix: str
) -> None:
    outside, _ = outside_and_root(tmp_path)
    db = tmp_path / "sessions.db"
    sqlite_store(db, crashed=False)
    link = Path(str(db) + suffix)
    if link.exists():
        link.unlink()
    link.symlink_to(outside / "victim")
    before = tree(tmp_path)
    with pytest.raises(StoreIOError) as raised:
        SqliteBackend(db)
    refused(raised, link)
    assert tree(tmp_path) == before
    assert os.listdir(outside) == []


def test_a_journal_planted_as_a_symlink_after_the_open_is_refused_before_a_write(tmp_path: Path) -> None:
    outside, _ = outside_and_root(tmp_path)
    db = tmp_path / "sessions.db"
    backend = SqliteBackend(db, journal_mode="delete")
    backend.create(SessionHeader("s", 1, cwd="/w"))
    link = Path(str(db) + "-journal")
    link.symlink_to(outside / "victim")  # SQLite would write the rollback journal through it
    with pytest.raises(StoreIOError) as raised:
        backend.append("s", one_turn_log())
    refused(raised, link)
    assert os.listdir(outside) == []
    link.unlink()
    log = one_turn_log()
    backend.append("s", log[:2])
    link.symlink_to(outside / "victim")  # and again after a write: the journal is opened anew each time
    with pytest.raises(StoreIOError) as raised:
        backend.append("s", log[2:])
    refused(raised, link)
    assert os.listdir(outside) == []
    link.unlink()
    backend.append("s", log[2:])
    backend.close()
    with SqliteBackend(db, read_only=True) as reader:
        assert len(reader.load("s").events) == len(one_turn_log())


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_companion_planted_as_a_symlink_while_sqlite_holds_the_wal_is_never_written_through(
    tmp_path: Path, suffix: str
) -> None:
    # In WAL mode, once a write has committed SQLite holds the -wal and -shm files open and
    # writes through those descriptors; it keeps no rollback journal. A link planted at any
    # companion's path is then never followed, so the backend no longer looks for one before
    # every transaction: the write goes on, and nothing outside the store is touched.
    outside, _ = outside_and_root(tmp_path)
    db = tmp_path / "sessions.db"
    log = one_turn_log()
    backend = SqliteBackend(db)
    backend.create(SessionHeader("s", 1, cwd="/w"))
    backend.append("s", log[:2])
    link = Path(str(db) + suffix)
    if link.exists():
        link.unlink()  # SQLite keeps what it had open there
    link.symlink_to(outside / "victim")
    backend.append("s", log[2:])
    assert os.listdir(outside) == []
    backend.close()
    assert os.listdir(outside) == []
    if link.is_symlink():
        link.unlink()
    with SqliteBackend(db, read_only=True) as reader:
        assert [event.to_json() for event in reader.load("s").events] == [event.to_json() for event in log]


def test_a_write_before_sqlite_holds_the_wal_still_looks_for_planted_links(tmp_path: Path) -> None:
    # Until a write has committed in WAL mode, every transaction looks for links first.
    outside, _ = outside_and_root(tmp_path)
    db = tmp_path / "sessions.db"
    backend = SqliteBackend(db)
    backend.create(SessionHeader("s", 1, cwd="/w"))
    link = Path(str(db) + "-journal")
    link.symlink_to(outside / "victim")
    with pytest.raises(StoreIOError) as raised:
        backend.append("s", one_turn_log())
    refused(raised, link)
    assert os.listdir(outside) == []
    backend.close()

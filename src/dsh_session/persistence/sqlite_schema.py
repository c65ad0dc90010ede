"""The SQLite layout (schema version 4, the reference's) and opening a database safely.

Two STRICT tables, ``sessions`` and ``events``, with the reference's columns and
DDL text (so ``sqlite_master`` is identical too), and ``PRAGMA user_version = 4``.
A database is checked *before* anything is written to it: one at another
``user_version``, or holding tables of another layout, is refused with
``STORE_SCHEMA_MISMATCH`` and left byte-for-byte as it was (the reference
switches its journal mode first, and stamps a foreign ``user_version = 0``
database as its own). An empty or missing file is initialised in one
transaction.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

from dsh_session.errors import Code
from dsh_session.persistence._files import first_symlink, make_dirs, symlink_refusal
from dsh_session.persistence.errors import (
    CorruptStoreError,
    IncompatibleStoreError,
    StoreIOError,
    StoreLockedError,
)

__all__ = [
    "JOURNAL_MODES",
    "SCHEMA_VERSION",
    "check_schema",
    "connect_read_only",
    "open_database",
    "precheck",
]

#: The layout version this build reads and writes (``PRAGMA user_version``).
SCHEMA_VERSION: Final = 4

JOURNAL_MODES: Final = ("wal", "delete", "truncate", "persist")

_SESSIONS_DDL = """CREATE TABLE IF NOT EXISTS sessions (
      id             TEXT PRIMARY KEY,
      version        INTEGER NOT NULL,
      created_at     INTEGER NOT NULL,
      cwd            TEXT,
      parent_session TEXT,
      seed_length    INTEGER
    ) STRICT
  """

_EVENTS_DDL = """CREATE TABLE IF NOT EXISTS events (
      session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      seq               INTEGER NOT NULL,
      type              TEXT NOT NULL,
      time              INTEGER NOT NULL,
      data              TEXT NOT NULL,
      source_event_seqs TEXT,
      surface_op        TEXT,
      PRIMARY KEY (session_id, seq)
    ) STRICT
  """

#: ``PRAGMA table_info`` rows: (cid, name, type, notnull, default, pk).
_COLUMNS: Final = {
    "sessions": [
        (0, "id", "TEXT", 1, None, 1),
        (1, "version", "INTEGER", 1, None, 0),
        (2, "created_at", "INTEGER", 1, None, 0),
        (3, "cwd", "TEXT", 0, None, 0),
        (4, "parent_session", "TEXT", 0, None, 0),
        (5, "seed_length", "INTEGER", 0, None, 0),
    ],
    "events": [
        (0, "session_id", "TEXT", 1, None, 1),
        (1, "seq", "INTEGER", 1, None, 2),
        (2, "type", "TEXT", 1, None, 0),
        (3, "time", "INTEGER", 1, None, 0),
        (4, "data", "TEXT", 1, None, 0),
        (5, "source_event_seqs", "TEXT", 0, None, 0),
        (6, "surface_op", "TEXT", 0, None, 0),
    ],
}
_FOREIGN_KEYS: Final = [(0, 0, "sessions", "session_id", "id", "NO ACTION", "CASCADE", "NONE")]
_MAGIC = b"SQLite format 3\x00"
#: Schema objects other than SQLite's own (``sqlite_autoindex_...``, ``sqlite_stat1``).
_OBJECTS = "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"


def open_database(path: str, *, journal_mode: str, busy_timeout: float) -> sqlite3.Connection:
    """A connection to a checked (or freshly initialised) database at ``path`` (or ``:memory:``).

    An existing database is checked through a read-only connection first
    (:func:`connect_read_only`), so one that is refused is left byte for byte as
    it was, its ``-wal`` / ``-shm`` files included: a read-write connection would
    checkpoint a pending WAL into the file when it closes.
    """
    if path != ":memory:":
        refuse_symlinks(path, "opening for writing")
        precheck(path)
        if os.path.exists(path) and os.path.getsize(path) > 0:
            _refuse_read_only(path)
    uri = "file::memory:" if path == ":memory:" else Path(path).as_uri() + "?mode=rwc"
    try:
        conn = sqlite3.connect(
            uri, uri=True, isolation_level=None, check_same_thread=False, timeout=busy_timeout
        )
    except sqlite3.Error as error:
        raise _io(path, "opening", error) from None
    try:
        fresh = check_schema(conn, path)
        conn.execute(f"PRAGMA journal_mode = {journal_mode}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = FULL")
        if fresh:
            _initialise(conn, path)
    except sqlite3.Error as error:
        conn.close()
        if is_damage(error):
            raise corrupt(path, error) from None
        raise _io(path, "opening", error) from None
    except BaseException:
        conn.close()
        raise
    return conn


#: The files SQLite keeps beside a database (its write-ahead log, shared index, rollback journal).
COMPANIONS: Final = ("-wal", "-shm", "-journal")


def refuse_symlinks(path: str, action: str) -> None:
    """Refuse to write the database at ``path`` when it or one of its companion files is a
    symbolic link (``STORE_IO``, ``ELOOP``): SQLite would write through it."""
    link = first_symlink([path, *(path + suffix for suffix in COMPANIONS)])
    if link is not None:
        raise symlink_refusal(link, action)


def _refuse_read_only(path: str) -> None:
    """Raise the refusal (another layout or version) that a read-only look at ``path`` finds.

    What such a look cannot tell -- a copy torn by a writer checkpointing at that
    moment, a database that kept changing -- is left to the read-write check,
    which reads under SQLite's own locks.
    """
    try:
        conn, release = connect_read_only(path)
    except (CorruptStoreError, StoreLockedError, StoreIOError):
        return
    try:
        check_schema(conn, path)
    except (CorruptStoreError, StoreIOError):
        return
    finally:
        release()


def connect_read_only(path: str) -> tuple[sqlite3.Connection, Callable[[], None]]:
    """A connection that reads the database at ``path`` and changes no byte and no file of it,
    and the call that releases it.

    Without a pending ``-wal`` or ``-journal`` the file is opened ``immutable``
    (SQLite then writes nothing, not even a ``-shm``). With one, a read-only
    connection would still rewrite the ``-shm`` index and a read-write one would
    checkpoint on close, so the database and its journal are copied into a
    private directory and the copy is read (the copy recovers, the store does
    not); a file that keeps changing while it is copied is ``STORE_LOCKED``.
    """
    for _attempt in range(8):
        pending = [path + suffix for suffix in ("-wal", "-journal") if _size(path + suffix)]
        try:
            if not pending:
                conn = sqlite3.connect(
                    Path(path).as_uri() + "?mode=ro&immutable=1",
                    uri=True,
                    isolation_level=None,
                    check_same_thread=False,
                )
                return conn, conn.close
            copy_dir = tempfile.mkdtemp(prefix="dsh-session-read-")
            copy = os.path.join(copy_dir, "store.db")
            if not _snapshot([path, *pending], copy):
                shutil.rmtree(copy_dir, ignore_errors=True)
                continue  # a writer checkpointed or wrote meanwhile: look again
            conn = sqlite3.connect(copy, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            raise _io(path, "opening (read only)", error) from None

        def release(conn: sqlite3.Connection = conn, copy_dir: str = copy_dir) -> None:
            conn.close()
            shutil.rmtree(copy_dir, ignore_errors=True)

        return conn, release
    raise StoreLockedError(
        Code.STORE_LOCKED,
        f"{path} kept changing while it was read; another process is writing it -- retry later",
        path=path,
    )


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _snapshot(files: list[str], copy: str) -> bool:
    """Copy the database and its pending journal to ``copy`` (+ suffix); False when one of them
    changed or vanished meanwhile (the copy is then not one state of the store)."""
    try:
        before = [_identity(name) for name in files]
        for name in files:
            shutil.copyfile(name, copy + name[len(files[0]) :])
        return [_identity(name) for name in files] == before
    except FileNotFoundError:
        return False


def _identity(path: str) -> tuple[int, int, int]:
    info = os.stat(path)
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def precheck(path: str, *, create_dirs: bool = True) -> None:
    """Refuse a file that is not a SQLite database or is at another version, without opening it."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if not create_dirs:
            return
        try:
            make_dirs(os.path.dirname(path))
        except OSError as error:
            raise StoreIOError(
                f"creating the directory of {path} failed: {error}", path=path, errno=error.errno
            ) from None
        return
    except OSError as error:
        raise StoreIOError(f"looking up {path} failed: {error}", path=path, errno=error.errno) from None
    if info.st_size == 0:
        return
    try:
        with open(path, "rb") as file:
            head = file.read(100)
    except OSError as error:
        raise StoreIOError(f"reading {path} failed: {error}", path=path, errno=error.errno) from None
    if len(head) < 100 or not head.startswith(_MAGIC):
        raise CorruptStoreError(
            Code.STORE_CORRUPT,
            f"{path} is not a SQLite database; point the backend at a session database or a new file",
            path=path,
        )
    wal = path + "-wal"
    if os.path.exists(wal) and os.path.getsize(wal) > 0:
        return  # page 1 may be newer in the WAL: let SQLite read the version
    version = int.from_bytes(head[60:64], "big", signed=True)
    application_id = int.from_bytes(head[68:72], "big", signed=True)
    _refuse_later(path, version, application_id)
    if version not in (0, SCHEMA_VERSION):
        raise _mismatch(path, f"has schema version {version}")


def check_schema(conn: sqlite3.Connection, path: str) -> bool:
    """Check the layout (reading only); True when the database is empty and must be initialised.
    A database that cannot be read (damaged pages, schema text that is not UTF-8) is
    ``STORE_CORRUPT``."""
    try:
        return _check_layout(conn, path)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as error:
        raise corrupt(path, error) from None


def corrupt(path: str, error: BaseException) -> CorruptStoreError:
    """The refusal of a database SQLite cannot read as one."""
    return CorruptStoreError(
        Code.STORE_CORRUPT,
        f"{path} cannot be read as a SQLite database ({error}); the file is damaged -- restore it "
        "from a backup; it was left as it was",
        path=path,
    )


def is_damage(error: BaseException) -> bool:
    """Whether a SQLite error means the file is damaged (not locked, not an I/O failure)."""
    if isinstance(error, UnicodeDecodeError):
        return True
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (11, 26):  # SQLITE_CORRUPT, SQLITE_NOTADB
        return True
    text = str(error)
    return "malformed" in text or "not a database" in text or "decode" in text


def _check_layout(conn: sqlite3.Connection, path: str) -> bool:
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        application_id = conn.execute("PRAGMA application_id").fetchone()[0]
        objects = conn.execute(
            "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        ).fetchall()
    except sqlite3.DatabaseError as error:
        raise CorruptStoreError(
            Code.STORE_CORRUPT, f"{path} cannot be read as a SQLite database: {error}", path=path
        ) from None
    _refuse_later(path, version, application_id)
    if version == 0 and not objects:
        return True
    if version != SCHEMA_VERSION:
        detail = f"has schema version {version}"
        if version == 0:
            detail += f" and holds other tables ({', '.join(name for _kind, name in objects)})"
        raise _mismatch(path, detail)
    names = sorted((kind, name) for kind, name in objects)
    if names != [("table", "events"), ("table", "sessions")]:
        raise _mismatch(path, f"holds {', '.join(f'{kind} {name}' for kind, name in names)}")
    strict = dict(conn.execute("SELECT name, strict FROM pragma_table_list WHERE schema = 'main'").fetchall())
    if strict.get("sessions") != 1 or strict.get("events") != 1:
        raise _mismatch(path, "has tables that are not STRICT")
    for table, columns in _COLUMNS.items():
        if conn.execute(f"PRAGMA table_info({table})").fetchall() != columns:
            raise _mismatch(path, f"has other columns in table {table}")
    if conn.execute("PRAGMA foreign_key_list(events)").fetchall() != _FOREIGN_KEYS:
        raise _mismatch(path, "has another foreign key on events")
    return False


def _initialise(conn: sqlite3.Connection, path: str) -> None:
    """Create the layout in one transaction (another process may be doing the same)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if check_schema(conn, path):
            conn.execute(_SESSIONS_DDL)
            conn.execute(_EVENTS_DDL)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


#: ``PRAGMA application_id`` of the TypeScript harness's databases from its schema 10 on ("DSHP").
LATER_APPLICATION_ID: Final = 0x44534850


def _refuse_later(path: str, version: int, application_id: int) -> None:
    """``STORE_VERSION_UNSUPPORTED`` for a database a later version of the TypeScript harness
    wrote: stamped with its application id, or with a schema version above ours. Its sessions
    still say format version 0: only the database's metadata tells it apart."""
    if application_id == LATER_APPLICATION_ID:
        found = f'application_id 0x{LATER_APPLICATION_ID:08X} ("DSHP") and schema version {version}'
    elif version > SCHEMA_VERSION:
        found = f"schema version {version}"
    else:
        return
    raise IncompatibleStoreError(
        Code.STORE_VERSION_UNSUPPORTED,
        f"session database {path} has {found}: a later version of the TypeScript harness wrote it "
        f"(its sessions still say format version 0, so only the database tells); this build reads "
        f"only schema version {SCHEMA_VERSION} and never migrates -- it was left untouched; open it "
        "with the harness that wrote it",
        path=path,
    )


def _mismatch(path: str, detail: str) -> IncompatibleStoreError:
    return IncompatibleStoreError(
        Code.STORE_SCHEMA_MISMATCH,
        f"session database {path} {detail}; this build reads only schema version {SCHEMA_VERSION} "
        "(the reference's v4 layout) and never migrates: it was left untouched -- open it with the "
        "build that wrote it, or use another file",
        path=path,
    )


def _io(path: str, action: str, error: sqlite3.Error) -> StoreIOError:
    return StoreIOError(f"{action} {path} failed: {error}", path=path, errno=None)

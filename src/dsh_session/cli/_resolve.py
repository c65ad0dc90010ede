"""What a PATH argument is: store detection, session choice, and stores to write to.

Detection (``--backend`` forces a kind):

- a directory is a JSONL root (``<root>/<bucket>/<id>.jsonl``);
- a file starting with the SQLite magic is a SQLite database;
- a file whose first line is a session header (``{"type":"session",...}``) is
  one session's JSONL log -- writable through its root when it sits where its
  root keeps it, read-only otherwise;
- any other file is a JSON / JSONL list of event records (``events``).

A backend reached by URL (``postgresql://...``) registers its scheme with
:func:`register_scheme`: a URL with that scheme is then read through its
``source`` and written through its ``target``, before any path is looked at.
The scheme's ``kind`` is what ``--backend`` / ``--to-backend`` call it; forced
that way, any location (a libpq connection string, say) goes to the scheme's
hooks. Its ``claims`` hook recognises such a location unforced, when no file
or directory has that name. Its ``show`` hook writes a location for people
(without a password): :func:`shown`. Such locations take a ``schema``
(``--pg-schema``); a file path does not.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

from dsh_session.cli._errors import about_path, fail
from dsh_session.cli._readonly import (
    JsonlReader,
    Reading,
    SqliteReader,
    read_event_list,
    read_jsonl_file,
)
from dsh_session.errors import Code, DshSessionError
from dsh_session.persistence import JsonlBackend, SessionBackend, SqliteBackend
from dsh_session.persistence.errors import CorruptStoreError, PersistenceError, SessionNotFoundError
from dsh_session.persistence.jsonl_layout import NO_CWD, later_refusal
from dsh_session.persistence.records import header_from_json, io_error, parse_bytes, read_first_line

__all__ = [
    "KINDS",
    "TARGET_KINDS",
    "Entry",
    "Source",
    "StoreSource",
    "Target",
    "open_target",
    "register_scheme",
    "remove_new_target",
    "require_store",
    "resolve",
    "shown",
    "target_is_new",
]

#: The kinds of store ``--backend`` can force (``postgres``: the kind of a registered scheme).
KINDS: Final = ("jsonl", "sqlite", "events", "postgres")
#: The kinds of store that can be written (``--to-backend``).
TARGET_KINDS: Final = ("jsonl", "sqlite", "postgres")

_SQLITE_MAGIC = b"SQLite format 3\x00"
_SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
_BUCKET = re.compile(r"cwd-[0-9a-f]{12}")


@dataclass(frozen=True)
class Entry:
    """One session a store holds, as its listing finds it: its ``id`` (None when not even that
    can be read) or the ``error`` that keeps it from being read (its header does not parse, has
    another format version, or sits where the store does not keep it). ``path`` is where it is:
    its file, or the store."""

    path: str
    id: str | None
    error: DshSessionError | None = None


class Source:
    """A PATH to read sessions from. ``kind`` is ``jsonl``, ``sqlite`` or ``events``.

    :meth:`entries` lists every session stored, the unreadable ones too -- every
    command enumerates sessions through it (or :meth:`readings`), so none is
    silently left out.
    """

    kind: str = ""

    def __init__(self, path: str) -> None:
        self.path = path

    def read(self, session_id: str) -> Reading:
        """One session, read without changing anything."""
        raise NotImplementedError

    def entries(self) -> list[Entry]:
        """Every session stored here, readable or not, sorted by id (a source of one session
        raises what keeps it from being read instead)."""
        raise NotImplementedError

    def readings(self) -> Iterator[tuple[str, str | None, Reading | DshSessionError]]:
        """Every session as ``(path, id, reading)``, the reading replaced by the error when it could
        not be read (``id`` is None when not even that is known); for ``validate``."""
        for entry in self.entries():
            if entry.error is not None:
                yield entry.path, entry.id, entry.error
                continue
            assert entry.id is not None
            try:
                yield self.path, entry.id, self.read(entry.id)
            except DshSessionError as error:
                yield self.path, entry.id, error

    def not_a_store(self) -> str | None:
        """Why this location, holding no session, is not recognisably a session store either
        (None when it is one: a store that exists and may simply be empty). Asked only when
        :meth:`entries` is empty; see :func:`require_store`."""
        return None

    def backend(self, command: str) -> SessionBackend:
        """The store as a backend to write through (``command`` names the caller, for messages)."""
        fail(f"{self.path}: {command} needs a session store (a JSONL root or a SQLite database)")

    def pick(self, session_id: str | None) -> str:
        """The one session to act on: ``session_id``, or the only one stored."""
        if session_id is not None:
            return session_id
        entries = self.entries()
        if not entries:
            fail(f"{self.path}: no sessions stored here")
        ids = [entry.id for entry in entries if entry.error is None and entry.id is not None]
        broken = [entry for entry in entries if entry.error is not None]
        if len(entries) == 1 and ids:
            return ids[0]
        if not ids:
            first = broken[0]
            assert first.error is not None
            message = about_path(first.error.message, first.path)
            which = "the only session stored here" if len(entries) == 1 else (
                f"none of the {len(entries)} sessions stored here can be read; the first"
            )
            fail(f"{self.path}: {which} cannot be read: {message}", code=first.error.code)
        shown = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
        if broken:
            shown += f"; {len(broken)} cannot be read, see dsh-session validate"
        fail(f"{self.path} holds {len(entries)} sessions ({shown}); choose one with --id")

    def close(self) -> None:
        """Release what the source holds."""


class StoreSource(Source):
    """A store that commands read through a read-only reader and write through a backend of its
    own, opened the first time one is asked for (:meth:`backend`) and closed with the source."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self._writer: SessionBackend | None = None

    def open_writer(self) -> SessionBackend:
        """A new backend that writes to this store."""
        raise NotImplementedError

    def backend(self, command: str) -> SessionBackend:
        """A backend that writes (the reader's is read-only), opened once."""
        if self._writer is None:
            self._writer = self.open_writer()
        return self._writer

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()


class _JsonlRoot(StoreSource):
    kind = "jsonl"

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.reader = JsonlReader(path)

    def read(self, session_id: str) -> Reading:
        return self.reader.read(session_id)

    def _files(self) -> list[str]:
        """The root's session files; fails with a hint when they sit directly inside it."""
        files = list(self.reader.files())
        if not files and self.reader.loose_files():
            fail(
                f"{self.path} has session files directly inside it; a JSONL root holds them one "
                "directory deeper (<root>/cwd-.../<id>.jsonl): pass the root, or the file itself"
            )
        return files

    def entries(self) -> list[Entry]:
        entries = [self._entry(path) for path in self._files()]
        if not entries:  # a later harness's root: say what it holds rather than "nothing"
            later = self.reader.backend.later_files()
            entries = [Entry(path, None, later_refusal(path, what)) for path, what in later]
        return entries

    def _entry(self, path: str) -> Entry:
        """The file's session as its header line says, held to the checks a load makes of it."""
        try:
            line = read_first_line(path)
        except PersistenceError as error:
            return Entry(path, None, error)
        first = b"" if line is None else line + b"\n"  # bounded: a header is never that long
        value = None
        try:
            if not first.endswith(b"\n"):
                raise CorruptStoreError(  # as a load says it (``scan_log``)
                    Code.STORE_CORRUPT,
                    f"{path}: empty or header-less session log (no complete first line); "
                    "the file is not a session log or its first write never completed",
                    path=path,
                    line=1,
                )
            value = parse_bytes(first[:-1])
            header = header_from_json(value, path=path, line=1)
        except PersistenceError as error:
            named = value.get("id") if isinstance(value, dict) else None  # what the header calls it
            return Entry(path, named if isinstance(named, str) else None, error)
        try:
            self.reader.backend._check_location(header, header.id, path)
        except PersistenceError as error:
            return Entry(path, header.id, error)
        return Entry(path, header.id)

    def readings(self) -> Iterator[tuple[str, str | None, Reading | DshSessionError]]:
        files = self._files()
        for path in files:
            try:
                reading = read_jsonl_file(path, root=self.reader.backend)
                yield path, reading.header.id, reading
            except DshSessionError as error:
                yield path, None, error
        if not files:
            for path, what in self.reader.backend.later_files():
                yield path, None, later_refusal(path, what)

    def not_a_store(self) -> str | None:
        if self.reader.backend.later_files():
            return None  # a store, of a later harness: its entries say so
        try:
            names = [entry.name for entry in os.scandir(self.path) if entry.is_dir()]
        except OSError as error:
            raise io_error(error, "listing", self.path) from None
        if any(name == NO_CWD or _BUCKET.fullmatch(name) for name in names):
            return None
        return f"not a JSONL root (no cwd-<hash>/ or {NO_CWD}/ directory)"

    def open_writer(self) -> SessionBackend:
        return JsonlBackend(self.reader.root)


class _JsonlFile(Source):
    """One session's JSONL log file."""

    kind = "jsonl"

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self._reading: Reading | None = None

    def _read(self) -> Reading:
        if self._reading is None:
            self._reading = read_jsonl_file(self.path)
        return self._reading

    def _root(self) -> JsonlBackend | None:
        """The root this file belongs to, if it sits where that root keeps its session."""
        header = self._read().header
        root = JsonlBackend(os.path.dirname(os.path.dirname(os.path.abspath(self.path))))
        return root if root.path_of(header) == os.path.abspath(self.path) else None

    def entries(self) -> list[Entry]:
        return [Entry(self.path, self._read().header.id)]

    def read(self, session_id: str) -> Reading:
        reading = self._read()
        if reading.header.id != session_id:
            raise SessionNotFoundError(
                Code.SESSION_NOT_FOUND,
                f"{self.path} holds session {reading.header.id!r}, not {session_id!r}; check the id",
                path=self.path,
            )
        return reading

    def readings(self) -> Iterator[tuple[str, str | None, Reading | DshSessionError]]:
        try:
            reading = self._read()
            yield self.path, reading.header.id, reading
        except DshSessionError as error:
            yield self.path, None, error

    def backend(self, command: str) -> SessionBackend:
        root = self._root()
        if root is None:
            fail(
                f"{self.path} is not inside a JSONL root laid out as the harness writes it "
                f"(<root>/cwd-.../<id>.jsonl); {command} needs a store -- pass the root directory"
            )
        return root


class _Sqlite(StoreSource):
    kind = "sqlite"

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.reader = SqliteReader(path)

    def entries(self) -> list[Entry]:
        return [
            Entry(self.reader.path, session_id, error) for session_id, error in self.reader.header_rows()
        ]

    def read(self, session_id: str) -> Reading:
        return self.reader.read(session_id)

    def not_a_store(self) -> str | None:
        if self.reader.empty:
            return "a SQLite database without the session tables"
        return None

    def open_writer(self) -> SessionBackend:
        return SqliteBackend(self.path)

    def close(self) -> None:
        self.reader.close()
        super().close()


class _EventList(Source):
    kind = "events"

    def __init__(self, path: str, session_id: str | None = None) -> None:
        super().__init__(path)
        self._reading = read_event_list(path, session_id=session_id)

    def entries(self) -> list[Entry]:
        return [Entry(self.path, self._reading.header.id)]

    def read(self, session_id: str) -> Reading:
        if session_id != self._reading.header.id:
            raise SessionNotFoundError(
                Code.SESSION_NOT_FOUND,
                f"{self.path} holds session {self._reading.header.id!r}, not {session_id!r}; check the id",
                path=self.path,
            )
        return self._reading


def require_store(source: Source, entries: list[Entry] | None = None) -> None:
    """Fail (exit 2) when ``source`` holds no session and is not recognisably a store: a directory
    without session directories, a SQLite database without our tables, a PostgreSQL schema that
    does not exist. A store that exists and is empty passes (it holds 0 sessions). ``entries``:
    :meth:`Source.entries`, when the caller has them already."""
    reason = _not_a_store(source, entries)
    if reason is not None:
        fail(f"{source.path}: no sessions stored here; {reason}")


def _not_a_store(source: Source, entries: list[Entry] | None = None) -> str | None:
    """Why ``source`` is no store at all: it holds no session and is not recognisably one (None
    when it holds a session or is a store, empty or not)."""
    if source.entries() if entries is None else entries:
        return None
    return source.not_a_store()


@dataclass(frozen=True)
class _Scheme:
    kind: str
    source: Callable[[str, str | None], Source]
    target: Callable[[str, str | None], SessionBackend]
    show: Callable[[str], str]
    claims: Callable[[str], bool]


_SCHEMES: dict[str, _Scheme] = {}


def register_scheme(
    scheme: str,
    *,
    source: Callable[[str, str | None], Source],
    target: Callable[[str, str | None], SessionBackend],
    kind: str | None = None,
    show: Callable[[str], str] | None = None,
    claims: Callable[[str], bool] | None = None,
) -> None:
    """Read ``<scheme>://...`` locations with ``source(url, schema)`` and write them with
    ``target(url, schema)`` (``schema``: ``--pg-schema`` or None). ``kind`` (default: the scheme)
    is the ``--backend`` name that sends any location there; ``show(location)`` writes it for
    output and messages (default: as it is); ``claims(location)`` says whether a location that
    names no file is one of this scheme's all the same (default: never)."""
    _SCHEMES[scheme.lower()] = _Scheme(
        kind or scheme.lower(),
        source,
        target,
        show or (lambda text: text),
        claims or (lambda text: False),
    )


def _scheme_of(location: str, backend: str | None) -> _Scheme | None:
    """The registered scheme that handles ``location``: by its URL scheme, or by ``backend``."""
    name, found, _ = location.partition("://")
    scheme = _SCHEMES.get(name.lower()) if found else None
    if scheme is not None:
        if backend is not None and backend != scheme.kind:
            fail(f"{scheme.show(location)} is a {scheme.kind} location, not one of kind {backend}")
        return scheme
    scheme = _of_kind(backend)
    if scheme is not None:
        return scheme
    if backend is not None and backend not in ("jsonl", "sqlite", "events"):
        fail(f"--backend {backend}: this installation cannot open such stores")
    return None


def _of_kind(backend: str | None) -> _Scheme | None:
    """The registered scheme whose kind ``backend`` (``--backend``) names."""
    return next((scheme for scheme in _SCHEMES.values() if scheme.kind == backend), None)


def _scheme_for(location: str, backend: str | None) -> _Scheme | None:
    """The registered scheme that reads and writes ``location``: by its URL scheme or ``backend``
    (:func:`_scheme_of`), else, with no ``backend``, the one that claims it (:func:`_claimed`)."""
    return _scheme_of(location, backend) or (_claimed(location) if backend is None else None)


def _claimed(location: str) -> _Scheme | None:
    """The scheme that claims ``location``, when no file or directory has that name."""
    if os.path.lexists(location):
        return None
    return next((scheme for scheme in _SCHEMES.values() if scheme.claims(location)), None)


def shown(location: str, backend: str | None = None) -> str:
    """``location`` as output and messages show it: a URL or connection string without its password."""
    name, found, _ = location.partition("://")
    scheme = _SCHEMES.get(name.lower()) if found else None
    scheme = scheme or _of_kind(backend)
    if scheme is not None:
        return scheme.show(location)
    for each in _SCHEMES.values():  # a connection string, or a mistyped one, hides its password too
        location = each.show(location)
    return location


def _no_schema(path: str, schema: str | None) -> None:
    if schema is not None:
        fail(f"{shown(path)}: a schema (--pg-schema, --to-pg-schema) applies to a PostgreSQL location only")


def resolve(
    path: str, backend: str | None = None, *, session_id: str | None = None, schema: str | None = None
) -> Source:
    """The source at ``path`` (``backend`` forces its kind). ``session_id`` names a header-less
    event list's session; ``schema`` the schema of a database location."""
    scheme = _scheme_for(path, backend)
    if scheme is not None:
        return scheme.source(path, schema)
    _no_schema(path, schema)
    if not os.path.lexists(path):
        fail(f"{shown(path)}: no such file or directory")
    if not os.path.exists(path):
        fail(f"{path}: a broken symbolic link")
    if os.path.isdir(path):
        if backend not in (None, "jsonl"):
            fail(f"{path} is a directory: only a JSONL root is one (not --backend {backend})")
        return _JsonlRoot(path)
    if not os.path.isfile(path):
        fail(f"{path} is not a regular file or a directory")
    head = _head(path)
    if backend == "sqlite" or (backend is None and head.startswith(_SQLITE_MAGIC)):
        return _Sqlite(path)
    if backend == "jsonl":
        return _JsonlFile(path)
    if backend == "events":
        return _EventList(path, session_id)
    if not head.strip():
        fail(f"{path}: the file is empty; not a session store or event list")
    if _starts_with_header(path):
        return _JsonlFile(path)
    return _EventList(path, session_id)


def _head(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read(4096)
    except OSError as error:
        fail(f"{path}: cannot be read: {error.strerror or error}")


def _starts_with_header(path: str) -> bool:
    with open(path, "rb") as file:
        first = file.readline(1 << 20).strip()
    value = parse_bytes(first) if first.startswith(b"{") else None
    return isinstance(value, dict) and value.get("type") == "session"


@dataclass(frozen=True)
class Target:
    """A store to write to, and its kind (``jsonl``, ``sqlite`` or a scheme's kind)."""

    store: SessionBackend
    kind: str


def open_target(path: str, backend: str | None = None, *, schema: str | None = None) -> Target:
    """The store at ``path`` to write to, created on first write if it does not exist.

    A URL of a registered scheme (or any location, with that scheme's kind as
    ``backend``, or one that the scheme claims and no file has as its name) is the
    scheme's target, in ``schema``. An existing directory is
    a JSONL root; an existing file must be a SQLite database (or empty). A new
    path is a SQLite database when it ends in ``.db``, ``.sqlite`` or
    ``.sqlite3`` (or ``backend`` says so), else a JSONL root.
    """
    scheme = _scheme_for(path, backend)
    if scheme is not None:
        return Target(scheme.target(path, schema), scheme.kind)
    _no_schema(path, schema)
    store = _open_file_target(path, backend)
    return Target(store, "jsonl" if isinstance(store, JsonlBackend) else "sqlite")


def target_is_new(path: str, backend: str | None = None, *, schema: str | None = None) -> bool:
    """Whether nothing is at the write target ``path`` yet, found without creating anything: no
    file or directory of that name, or a location of a registered scheme that is no store (a
    PostgreSQL schema that does not exist). :func:`open_target` would create it."""
    scheme = _scheme_for(path, backend)
    if scheme is None:
        return not os.path.lexists(path)
    source = scheme.source(path, schema)
    try:
        return _not_a_store(source) is not None
    finally:
        source.close()


def remove_new_target(path: str, backend: str | None = None) -> None:
    """Remove what a write created at the file target ``path``, which did not exist before: the
    JSONL root, or the SQLite database with its journal files. A location of a registered scheme
    is left as it is (a PostgreSQL schema is not dropped)."""
    if _scheme_for(path, backend):
        return
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
        return
    for name in (path, path + "-wal", path + "-shm", path + "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)


def _open_file_target(path: str, backend: str | None) -> SessionBackend:
    if backend == "events":
        fail("an event list cannot be written to; choose --backend jsonl or sqlite for the target")
    if os.path.isdir(path):
        if backend == "sqlite":
            fail(f"{path} is a directory, not a SQLite database")
        return JsonlBackend(path)
    if os.path.exists(path):
        if not os.path.isfile(path):
            fail(f"{path} is not a regular file or a directory")
        head = _head(path)
        if backend == "jsonl":
            fail(f"{path} is a file; a JSONL store is a directory")
        if head and not head.startswith(_SQLITE_MAGIC):
            fail(f"{path} exists and is not a SQLite database; a JSONL store is a directory")
        return SqliteBackend(path)
    if os.path.lexists(path):
        fail(f"{path}: a broken symbolic link")
    if backend == "sqlite" or (backend is None and path.endswith(_SQLITE_SUFFIXES)):
        return SqliteBackend(path)
    return JsonlBackend(path)

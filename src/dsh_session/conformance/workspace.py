"""A case's private directory: materialised artifacts, scratch space, and the runner's own steps.

Arguments may name files instead of holding paths:

- ``{"$artifact": "jsonl/single-turn-text-cwd"}`` -- a copy of
  ``artifacts/jsonl/single-turn-text-cwd`` (a directory is copied whole, a
  ``.sql`` file becomes a SQLite database built from that SQL text, any other
  file is copied);
- ``{"$scratch": "out"}`` -- a fresh empty directory; ``{"$scratch": "out",
  "file": "s.db"}`` a file name in it (not created);
- ``{"$port": "closed"}`` -- the number of a loopback port where the runner
  plays a server of that kind (:mod:`.servers`) until the case ends.

Each name gets one path (each kind one port) per case, so later steps see what
earlier ones did.
The ``runner.*`` operations (read a file, list files, write or append text,
run SQL, hold a lock) work on those paths; everything is removed and every
lock released when the case ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from dsh_session.conformance.protocol import ARTIFACT_KEY, PORT_KEY, SCRATCH_KEY
from dsh_session.conformance.servers import Server, ServerError


class WorkspaceError(Exception):
    """An argument names an artifact that does not exist, or a runner step failed."""


class Workspace:
    """The temporary directory of one case."""

    def __init__(self, artifacts: Path, base: str | None = None) -> None:
        self.artifacts = artifacts
        self.base = base  # where the temporary directory goes (default: the system's)
        self._root: Path | None = None
        self._paths: dict[tuple[str, str], str] = {}
        self._held: list[Any] = []
        self._servers: dict[str, Server] = {}

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @property
    def root(self) -> Path:
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix="dsh-conformance-", dir=self.base))
        return self._root

    def close(self) -> None:
        """Release every lock and remove the directory."""
        for held in reversed(self._held):
            with contextlib.suppress(Exception):
                held.close()
        self._held.clear()
        for server in self._servers.values():
            server.close()
        self._servers.clear()
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
            self._root = None
        self._paths.clear()

    # -- placeholders ----------------------------------------------------------------------

    def resolve(self, value: Any) -> Any:
        """``value`` with every ``$artifact`` / ``$scratch`` placeholder replaced by its path."""
        if type(value) is dict:
            if len(value) == 1 and ARTIFACT_KEY in value:
                return self.artifact(value[ARTIFACT_KEY])
            if len(value) == 1 and SCRATCH_KEY in value:
                return self.scratch(value[SCRATCH_KEY])
            if len(value) == 1 and PORT_KEY in value:
                return self.port(value[PORT_KEY])
            if (
                set(value) == {SCRATCH_KEY, "file"}
                and type(value["file"]) is str
                and "/" not in value["file"]
            ):
                return str(Path(self.scratch(value[SCRATCH_KEY])) / value["file"])
            return {key: self.resolve(item) for key, item in value.items()}
        if type(value) is list:
            return [self.resolve(item) for item in value]
        return value

    def artifact(self, name: Any) -> str:
        if type(name) is not str or not name or name.startswith("/") or ".." in Path(name).parts:
            raise WorkspaceError(f"artifact name {name!r} must be a relative path inside artifacts/")
        key = ("artifact", name)
        if key in self._paths:
            return self._paths[key]
        source = self.artifacts / name
        target = self.root / "artifacts" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        elif source.suffix == ".sql" and source.is_file():
            target = target.with_suffix(".db")
            _build_database(source, target)
        elif source.is_file():
            shutil.copyfile(source, target)
        else:
            raise WorkspaceError(f"artifact {name!r} does not exist in {self.artifacts}")
        self._paths[key] = str(target)
        return str(target)

    def scratch(self, name: Any) -> str:
        if type(name) is not str or not name or "/" in name or name in (".", ".."):
            raise WorkspaceError(f"scratch name {name!r} must be a plain name")
        key = ("scratch", name)
        if key not in self._paths:
            path = self.root / "scratch" / name
            path.mkdir(parents=True)
            self._paths[key] = str(path)
        return self._paths[key]

    def port(self, kind: Any) -> int:
        """The port of this case's server of ``kind``, started on first use."""
        if type(kind) is not str:
            raise WorkspaceError(f"$port kind {kind!r} must be a string")
        if kind not in self._servers:
            try:
                self._servers[kind] = Server(kind)
            except ServerError as error:
                raise WorkspaceError(str(error)) from None
        return self._servers[kind].port

    # -- the runner's own operations -------------------------------------------------------

    def run(self, op: str, args: dict[str, Any]) -> Any:
        """Carry out a ``runner.*`` operation (arguments already resolved)."""
        try:
            if op == "runner.read":
                return _read_text(self._file(args))
            if op == "runner.files":
                return _list_files(Path(_string(args, "path")))
            if op == "runner.write":
                path = self._file(args)
                path.parent.mkdir(parents=True, exist_ok=True)
                data = _string(args, "text").encode("utf-8", "surrogateescape")
                with path.open("ab" if args.get("append") is True else "wb") as handle:
                    handle.write(data)
                return None
            if op == "runner.sql":
                return _run_sql(_string(args, "path"), _string(args, "sql"))
            if op == "runner.lock":
                self._lock(args)
                return None
        except (OSError, sqlite3.Error, UnicodeError) as error:
            raise WorkspaceError(f"{op} failed: {error}") from None
        raise WorkspaceError(f"unknown runner operation {op!r}")

    def _file(self, args: dict[str, Any]) -> Path:
        base = Path(_string(args, "path"))
        name = args.get("file", "")
        if type(name) is not str or name.startswith("/") or ".." in Path(name).parts:
            raise WorkspaceError(f"file {name!r} must be a relative path")
        return base / name if name else base

    def _lock(self, args: dict[str, Any]) -> None:
        """Hold a lock until the case ends: an ``flock`` on a file, or a write lock on a database."""
        path = self._file(args)
        if path.suffix == ".db":
            conn = sqlite3.connect(str(path), isolation_level=None, timeout=0)
            conn.execute("BEGIN EXCLUSIVE")
            self._held.append(conn)
            return
        handle = path.open("rb")
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        self._held.append(handle)


def _string(args: dict[str, Any], key: str) -> str:
    value = args.get(key)
    if type(value) is not str:
        raise WorkspaceError(f"argument {key!r} must be a string")
    return value


def _build_database(sql_file: Path, target: Path) -> None:
    """Build a SQLite database from SQL text (a ``.dump`` plus any ``PRAGMA user_version``)."""
    script = sql_file.read_text("utf-8", "surrogateescape")
    conn = sqlite3.connect(str(target), isolation_level=None)
    try:
        conn.executescript(script)
    finally:
        conn.close()


def _read_text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "backslashreplace")


def _list_files(root: Path) -> list[str]:
    if not root.is_dir():
        raise WorkspaceError(f"{root} is not a directory")
    found = []
    for directory, _dirs, files in os.walk(root):
        for name in files:
            found.append(str((Path(directory) / name).relative_to(root)))
    return sorted(found)


def _run_sql(path: str, sql: str) -> list[list[Any]]:
    conn = sqlite3.connect(path, isolation_level=None, timeout=5)
    try:
        rows = conn.execute(sql).fetchall()
    finally:
        conn.close()
    return [list(row) for row in rows]

"""The JSONL backend: one append-only file per session, in the reference's layout.

Files are byte-for-byte what the TypeScript reference writes (header line,
then one ``JSON.stringify``-exact event per line, each ending in ``\\n``), so
either implementation reads the other's. Durability:

- the first batch is published atomically: header and events go to a
  ``0600`` temporary file that is fsynced, hard-linked to the log's name (which
  fails if another writer got there first) and the directory fsynced;
- later batches are appended and fsynced; a failed write is cut back off;
- a load cuts a torn tail and appends the crash closers, each step fsynced.

What we add to the reference: every operation on an existing log holds an
``flock`` on it, and a write first checks that the file is still the size and
inode this backend last left it at -- so two processes never interleave
writes or append over each other's events (``STORE_LOCKED``,
``STORE_CONFLICT``). A log is only ever found where its header says it
belongs, and a vanished log is never re-created without its header.
"""

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator, Sequence
from functools import partial
from typing import NamedTuple

from dsh_session.errors import Code
from dsh_session.event import Event, SessionHeader
from dsh_session.persistence._admit import LogAdmitter
from dsh_session.persistence._base import BackendBase, Loaded, Tracked, Where, close_open_turn, refusal
from dsh_session.persistence._bulk import jsonl_run
from dsh_session.persistence._codec import event_line, header_from_json, header_line, parse_bytes
from dsh_session.persistence._files import (
    io_error,
    is_symlink_refusal,
    locked,
    make_dirs,
    open_bucket,
    open_nofollow,
    read_all,
    read_first_line,
    symlink_refusal,
    write_all,
)
from dsh_session.persistence.errors import (
    CorruptStoreError,
    IncompatibleStoreError,
    PersistenceError,
    StoreConflictError,
    StoreIOError,
    UnrepresentableError,
)
from dsh_session.persistence.jsonl_layout import (
    LATER_SESSION_FILES,
    LATER_SUFFIX,
    SUFFIX,
    ZSTD_MAGIC,
    cwd_bucket,
    encode_segment,
    is_later_bucket,
    later_refusal,
    log_name,
    name_fits,
)
from dsh_session.persistence.jsonl_scan import scan_log
from dsh_session.persistence.stored_log import StoredLog, read_log_at

__all__ = ["JsonlBackend"]

_READ_ONLY = (errno.EACCES, errno.EPERM, errno.EROFS)


class _FileToken(NamedTuple):
    """The log file as this backend last left it."""

    path: str
    size: int
    identity: tuple[int, int]  # (st_dev, st_ino)


class JsonlBackend(BackendBase):
    """Sessions as JSONL files under ``root`` (made absolute once, now).

    ``lock_timeout`` is how long (seconds) an operation waits for another
    process's lock on a log before failing with ``STORE_LOCKED``.
    ``read_only=True`` makes a backend that changes no byte and no file under the
    root: logs are opened for reading under a shared lock, a load returns the
    repaired log without storing the repair, ``append`` raises ``STORE_IO``.
    """

    def __init__(
        self, root: str | os.PathLike[str], *, lock_timeout: float = 5.0, read_only: bool = False
    ) -> None:
        super().__init__()
        self.root = os.path.abspath(os.fspath(root))
        self.lock_timeout = lock_timeout
        self.read_only = read_only

    def path_of(self, header: SessionHeader) -> str:
        """Where the log of ``header``'s session lives."""
        return os.path.join(self.root, cwd_bucket(header.cwd), log_name(header.id))

    # -- reading without writing ----------------------------------------------------------

    def read_log(self, session_id: str) -> StoredLog:
        """The session's stored log as it is, and what a load would cut -- read without
        writing, in any mode (:mod:`dsh_session.persistence.stored_log`); raises what ``load``
        raises for a session that is not there, misplaced or of a later harness."""
        with self._lock:
            self._check_open()
            return self.read_log_file(self._locate(session_id), session_id=session_id)

    def read_log_file(self, path: str | os.PathLike[str], *, session_id: str | None = None) -> StoredLog:
        """:meth:`read_log` for the log file at ``path``, which must sit where this root keeps
        its header's session (``STORE_CORRUPT`` otherwise); ``session_id``, when given, must be
        its header's id."""
        log = read_log_at(os.fspath(path), self.lock_timeout)
        self._check_location(log.header, log.header.id if session_id is None else session_id, log.where)
        return log

    def log_files(self) -> tuple[str, ...]:
        """Every file that may be a session log under the root (``<root>/<dir>/*.jsonl``, regular
        files only), sorted -- readable or not: for a listing that reports what it cannot read."""
        return tuple(path for path in self._log_paths() if os.path.isfile(path))

    # -- hooks ----------------------------------------------------------------------------

    def _check_storable(self, header: SessionHeader) -> None:
        if not name_fits(header.id):
            raise UnrepresentableError(
                Code.STORE_UNREPRESENTABLE,
                f"session id {header.id[:40]!r}... is too long for a JSONL file name "
                f"({len(log_name(header.id))} bytes encoded); use a shorter id or the SQLite backend",
            )

    def _exists(self, session_id: str) -> bool:
        return bool(self._candidates(session_id))

    def _load(self, session_id: str, expect: int | None, close_turn: bool = True) -> Loaded:
        path = self._locate(session_id)
        link: str | None = None  # the symbolic link that keeps a repair from writing the log
        try:
            fd, writable, link = self._open_log(path)
        except FileNotFoundError:
            raise self._not_found(session_id, self.root) from None
        except OSError as error:
            raise io_error(error, "opening", path) from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced since it was looked up
            os.close(fd)
            raise self._not_found(session_id, self.root)
        try:
            with locked(fd, exclusive=writable, timeout=self.lock_timeout, path=path):
                return self._read_and_repair(fd, path, session_id, expect, writable, close_turn, link)
        except OSError as error:
            raise io_error(error, "reading", path) from None
        finally:
            os.close(fd)

    def _open_log(self, path: str) -> tuple[int, bool, str | None]:
        """The log at ``path`` opened for a load: (fd, writable, the symbolic link on its way).

        It is opened for writing only below the root without a symbolic link
        on the way; through one (which reads may follow, to a regular file) or
        when the file or store is read-only, it is opened for reading only.
        """
        if not self.read_only:
            bucket, name = os.path.split(path)
            try:
                bucket_fd = open_bucket(self.root, os.path.basename(bucket), create=False)
                try:
                    fd = open_nofollow(name, os.O_RDWR | os.O_NONBLOCK, dir_fd=bucket_fd, path=path)
                    return fd, True, None
                finally:
                    os.close(bucket_fd)
            except StoreIOError as error:
                if not is_symlink_refusal(error):
                    raise
                link = error.path
                return os.open(path, os.O_RDONLY | os.O_NONBLOCK), False, link
            except OSError as error:
                if error.errno not in _READ_ONLY:
                    raise
        return os.open(path, os.O_RDONLY | os.O_NONBLOCK), False, None

    def _read_and_repair(
        self,
        fd: int,
        path: str,
        session_id: str,
        expect: int | None,
        writable: bool,
        close_turn: bool,
        link: str | None = None,
    ) -> Loaded:
        data = read_all(fd)
        if data.startswith(ZSTD_MAGIC):
            raise later_refusal(path, "a log of Zstandard frames (magic 28 B5 2F FD)")
        admitter = LogAdmitter()
        scan = scan_log(data, path, admitter.admit_line, partial(jsonl_run, admitter))
        del data
        header = scan.header
        self._check_location(header, session_id, path)
        if scan.failure is not None:
            raise refusal(scan.failure, lambda index: Where(path, index + 2, f"line {index + 2}"))
        events: list[Event] = scan.records
        info = os.fstat(fd)
        identity = (info.st_dev, info.st_ino)
        if expect is not None:
            if len(events) != expect or scan.committed != scan.size:
                raise StoreConflictError(
                    Code.STORE_CONFLICT,
                    f"{path}: the log holds {len(events)} event(s) ({scan.size} bytes), this backend "
                    f"expected {expect}; another writer changed it -- load the session again",
                    path=path,
                )
            return Loaded(header, events, admitter, _FileToken(path, scan.size, identity))
        closers = close_open_turn(events, admitter, close_turn)
        size = scan.committed
        if (size == scan.size and not closers) or self.read_only:
            return Loaded(header, events, admitter, _FileToken(path, size, identity))
        if link is not None:
            raise symlink_refusal(link, "repairing (a torn tail or an open turn) through")
        if not writable:
            raise StoreIOError(
                f"{path}: the log needs a crash repair (a torn tail or an open turn) but the file is "
                "read-only; make it writable and load it again",
                path=path,
                errno=errno.EROFS,
            )
        try:
            if size != scan.size:
                os.ftruncate(fd, size)
                os.fsync(fd)
            if closers:
                payload = "".join(event_line(event) + "\n" for event in closers).encode("utf-8")
                os.lseek(fd, size, os.SEEK_SET)
                write_all(fd, payload)
                os.fsync(fd)
                size += len(payload)
        except OSError as error:
            _truncate_quietly(fd, scan.committed)
            raise io_error(error, "repairing", path) from None
        return Loaded(header, events, admitter, _FileToken(path, size, identity))

    def _write(self, state: Tracked, events: Sequence[Event]) -> _FileToken:
        if self.read_only:
            raise self._read_only_refusal(state.header.id, f"under {self.root}", self.root)
        payload = "".join([event_line(event) + "\n" for event in events]).encode("utf-8")
        if not state.materialized:
            return self._publish(state.header, payload)
        token = state.token
        assert isinstance(token, _FileToken)
        return self._append_lines(token, payload)

    def _headers(self) -> Iterator[SessionHeader]:
        for path in self._log_paths():
            header = self._read_header(path)
            if header is not None and self.path_of(header) == path:
                yield header

    def _log_paths(self) -> Iterator[str]:
        """The ``*.jsonl`` names in each bucket, bucket by bucket, sorted within each (a bucket
        that vanished meanwhile has none; one that cannot be listed is an I/O error)."""
        for bucket in self._buckets():
            try:
                names = sorted(name for name in os.listdir(bucket) if name.endswith(SUFFIX))
            except FileNotFoundError:
                continue
            except OSError as error:
                raise io_error(error, "listing", bucket) from None
            for name in names:
                yield os.path.join(bucket, name)

    # -- reading ---------------------------------------------------------------------------

    def _buckets(self) -> list[str]:
        """The directories under the root, sorted (any name counts, as in the reference)."""
        try:
            entries = list(os.scandir(self.root))
        except FileNotFoundError:
            return []
        except OSError as error:
            raise io_error(error, "listing", self.root) from None
        return sorted(entry.path for entry in entries if entry.is_dir())

    def _candidates(self, session_id: str) -> list[str]:
        """Every existing log file named for ``session_id``, in any bucket."""
        if not session_id:
            return []
        name = log_name(session_id)
        found = []
        for bucket in self._buckets():
            path = os.path.join(bucket, name)
            try:
                mode = os.stat(path).st_mode
            except FileNotFoundError:
                continue
            except OSError as error:
                raise io_error(error, "looking up", path) from None
            if stat.S_ISREG(mode):
                found.append(path)
        return found

    def _locate(self, session_id: str) -> str:
        found = self._candidates(session_id)
        if not found:
            later = self._later_files(session_id)
            if later:
                raise self._later_refusal(*later[0])
            raise self._not_found(session_id, self.root)
        if len(found) > 1:
            raise CorruptStoreError(
                Code.STORE_CORRUPT,
                f"session {session_id!r} has logs in more than one directory: {', '.join(found)}; "
                "keep the one its header's cwd names and move the others away",
                path=found[0],
            )
        return found[0]

    def _check_location(self, header: SessionHeader, session_id: str, path: str) -> None:
        """Refuse a log that is not where its own header says it belongs (the reference's B17)."""
        if header.id != session_id:
            raise CorruptStoreError(
                Code.STORE_CORRUPT,
                f"{path}:1: the file holds session {header.id!r}, not {session_id!r} (was it renamed, "
                "or does the file system ignore case?); rename it back to the name its header gives",
                path=path,
                line=1,
            )
        expected = self.path_of(header)
        if expected != path:
            raise CorruptStoreError(
                Code.STORE_CORRUPT,
                f"{path}:1: the log belongs at {expected} (its header's cwd is {header.cwd!r}); "
                "move it back there -- writing it where it is would split the session",
                path=path,
                line=1,
            )

    def _read_header(self, path: str) -> SessionHeader | None:
        """The header of a log file, or None when the file is not a readable v0 session log --
        or not a regular file at all (a FIFO would block the read, a device never end it)."""
        first = read_first_line(path)
        if first is None:
            return None
        try:
            return header_from_json(parse_bytes(first), path=path, line=1)
        except PersistenceError:
            return None

    def _later_files(self, session_id: str | None, *, writing: bool = False) -> list[tuple[str, str]]:
        """What a later version of the TypeScript harness left in the root, as (path, what it is):
        ``session_id``'s logs in its layouts -- or, ``writing``, anything that marks the root as a
        later harness's by its name (a later-layout directory, a ``*.jsonl.zstd`` log)."""
        found: list[tuple[str, str]] = []
        segment = encode_segment(session_id) if session_id else None
        zstd = "a Zstandard-framed log (*.jsonl.zstd)"
        for directory in self._buckets():
            if is_later_bucket(os.path.basename(directory)):
                if writing:
                    found.append((directory, "a directory of the later one-directory-per-session layout"))
                elif segment is not None:
                    for name, what in LATER_SESSION_FILES.items():
                        path = os.path.join(directory, segment, name)
                        if os.path.lexists(path):
                            found.append((path, what))
            elif writing:
                try:
                    names = sorted(name for name in os.listdir(directory) if name.endswith(LATER_SUFFIX))
                except OSError:
                    names = []
                found.extend((os.path.join(directory, name), zstd) for name in names)
            elif segment is not None:
                path = os.path.join(directory, segment + LATER_SUFFIX)
                if os.path.lexists(path):
                    found.append((path, zstd))
        return found

    def later_files(self) -> list[tuple[str, str]]:
        """What a later version of the TypeScript harness left in this root, as ``(path, what it
        is)``: later-layout session directories and ``*.jsonl.zstd`` logs, none of which
        :meth:`list` shows. Reads names only; changes nothing."""
        return self._later_files(None, writing=True)

    def _later_refusal(self, path: str, what: str, writing: bool = False) -> IncompatibleStoreError:
        return later_refusal(path, what, writing)

    # -- writing ---------------------------------------------------------------------------

    def _publish(self, header: SessionHeader, payload: bytes) -> _FileToken:
        """Publish a new log: header and first batch appear together, or not at all.

        Everything is done relative to the bucket directory's descriptor, opened
        without following a symbolic link, and no file is opened through one.
        """
        path = self.path_of(header)
        bucket, name = os.path.split(path)
        try:
            make_dirs(self.root)
            root_fd = os.open(self.root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError as error:
            raise io_error(error, "creating", self.root) from None
        try:
            # First publishes of one root take turns (an flock on the root directory), so
            # that of two creators of one id -- in any buckets -- exactly one publishes.
            with locked(root_fd, exclusive=True, timeout=self.lock_timeout, path=self.root):
                later = self._later_files(None, writing=True)
                if later:  # a later harness's root: nothing of ours goes beside its files
                    raise self._later_refusal(*later[0], writing=True)
                try:
                    bucket_fd = open_bucket(self.root, os.path.basename(bucket), create=True)
                except OSError as error:
                    raise io_error(error, "creating", bucket) from None
                try:
                    return self._publish_in(bucket_fd, header, path, name, payload)
                finally:
                    os.close(bucket_fd)
        finally:
            os.close(root_fd)

    def _publish_in(
        self, bucket_fd: int, header: SessionHeader, path: str, name: str, payload: bytes
    ) -> _FileToken:
        try:
            existing = os.stat(name, dir_fd=bucket_fd, follow_symlinks=False)
        except FileNotFoundError:
            existing = None
        except OSError as error:
            raise io_error(error, "looking up", path) from None
        if existing is not None and stat.S_ISLNK(existing.st_mode):
            raise symlink_refusal(path)
        if existing is not None or self._candidates(header.id):
            raise self._published_by_another(path, header.id)
        content = (header_line(header) + "\n").encode("utf-8") + payload
        tmp_name = f"{name}.{secrets.token_hex(6)}.tmp"
        tmp = os.path.join(os.path.dirname(path), tmp_name)
        try:
            fd = open_nofollow(tmp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, dir_fd=bucket_fd, path=tmp)
            try:
                write_all(fd, content)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as error:
            _unlink_quietly(tmp_name, bucket_fd)
            raise io_error(error, "writing", tmp) from None
        try:
            os.link(tmp_name, name, src_dir_fd=bucket_fd, dst_dir_fd=bucket_fd, follow_symlinks=False)
        except FileExistsError:
            _unlink_quietly(tmp_name, bucket_fd)
            raise self._published_by_another(path, header.id) from None
        except OSError as error:
            _unlink_quietly(tmp_name, bucket_fd)
            raise io_error(error, "publishing", path) from None
        try:
            sync_bucket(bucket_fd)
            info = os.stat(name, dir_fd=bucket_fd, follow_symlinks=False)
            raced = len(self._candidates(header.id)) > 1
        except OSError as error:
            # Not durable: take the publish back so that the batch can simply be retried.
            _unlink_quietly(name, bucket_fd)
            _unlink_quietly(tmp_name, bucket_fd)
            raise io_error(error, "publishing", path) from None
        except PersistenceError:
            raced = True
        _unlink_quietly(tmp_name, bucket_fd)
        if raced:
            # Another writer published the same id under another cwd meanwhile: back off.
            _unlink_quietly(name, bucket_fd)
            raise self._published_by_another(path, header.id)
        return _FileToken(path, len(content), (info.st_dev, info.st_ino))

    def _append_lines(self, token: _FileToken, payload: bytes) -> _FileToken:
        path = token.path
        bucket, name = os.path.split(path)
        try:
            bucket_fd = open_bucket(self.root, os.path.basename(bucket), create=False)
            try:
                # never O_CREAT: no header-less logs
                fd = open_nofollow(name, os.O_WRONLY | os.O_APPEND, dir_fd=bucket_fd, path=path)
            finally:
                os.close(bucket_fd)
        except FileNotFoundError:
            raise StoreConflictError(
                Code.STORE_CONFLICT,
                f"{path}: the log vanished (deleted or moved) since this backend last wrote it; "
                "nothing was written -- restore the file or load the session again",
                path=path,
            ) from None
        except OSError as error:
            raise io_error(error, "opening", path) from None
        try:
            with locked(fd, exclusive=True, timeout=self.lock_timeout, path=path):
                info = os.fstat(fd)
                if info.st_size != token.size or (info.st_dev, info.st_ino) != token.identity:
                    raise StoreConflictError(
                        Code.STORE_CONFLICT,
                        f"{path}: the log changed since this backend last wrote it ({info.st_size} bytes, "
                        f"expected {token.size}); another writer appended or replaced it -- nothing was "
                        "written; load the session again",
                        path=path,
                    )
                try:
                    write_all(fd, payload)
                    os.fsync(fd)
                except OSError as error:
                    _truncate_quietly(fd, token.size)
                    raise io_error(error, "appending to", path) from None
        finally:
            os.close(fd)
        return token._replace(size=token.size + len(payload))

    def _published_by_another(self, path: str, session_id: str) -> StoreConflictError:
        try:
            others = [found for found in self._candidates(session_id) if found != path]
        except PersistenceError:
            others = []
        where = f"at {others[0]}" if others else f"at {path}"
        return StoreConflictError(
            Code.STORE_CONFLICT,
            f"session {session_id!r} was stored meanwhile by another writer ({where}); nothing was "
            "written -- load the session instead of creating it",
            path=others[0] if others else path,
        )


def sync_bucket(fd: int) -> None:
    """Make a new entry of the bucket directory ``fd`` durable."""
    os.fsync(fd)


def _unlink_quietly(name: str, dir_fd: int) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=dir_fd)


def _truncate_quietly(fd: int, size: int) -> None:
    """Cut a failed write back off; if even that fails, the size check catches it later."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, size)
        os.fsync(fd)

"""Small file-system helpers for the JSONL backend: durable writes, a session lock, and
opening below a store's root without following a symbolic link.

A store never writes through a symbolic link: a write opens every directory
and file below the root with ``O_NOFOLLOW`` relative to its parent's
descriptor, so a link planted in the store (a bucket directory, a log, a
temporary file, a database's journal) is refused with ``STORE_IO`` (``errno``
``ELOOP``) before anything is written -- it could lead out of the root.
"""

from __future__ import annotations

import errno as _errno
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager

from dsh_session.errors import Code
from dsh_session.persistence.errors import StoreIOError, StoreLockedError


def io_error(error: OSError, action: str, path: str) -> StoreIOError:
    """A typed error for an operating-system failure while doing ``action`` on ``path``."""
    name = _errno.errorcode.get(error.errno or 0, "unknown")
    return StoreIOError(
        f"{action} {path} failed: {error.strerror or error} ({name}); nothing was committed -- "
        "fix the cause (space, permissions, the path) and retry",
        path=path,
        errno=error.errno,
    )


def fsync_dir(path: str) -> None:
    """Make a directory's entries (a new file, a new subdirectory) durable."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def make_dirs(path: str) -> None:
    """``mkdir -p`` with mode 0700, making every directory it creates durable in its parent."""
    if os.path.isdir(path):
        return
    parent = os.path.dirname(path)
    if parent and parent != path:
        make_dirs(parent)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        return
    fsync_dir(parent or ".")


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` (``os.write`` may write fewer)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_all(fd: int) -> bytes:
    """The whole file behind ``fd``, from the start."""
    size = os.fstat(fd).st_size
    chunks = []
    offset = 0
    while True:
        chunk = os.pread(fd, max(size - offset, 1 << 16), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks) if len(chunks) != 1 else chunks[0]


#: The longest first (header) line read from a file that may be a session log.
HEADER_LIMIT = 1 << 20


def read_first_line(path: str, limit: int = HEADER_LIMIT) -> bytes | None:
    """The first line of the regular file at ``path`` (without its newline), or ``None`` when
    there is no such file, it is not a regular file (never read: a FIFO would block, a device
    never end), or no newline comes within ``limit`` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        if error.errno in (_errno.ENXIO, _errno.ELOOP, _errno.EOPNOTSUPP):
            return None  # a socket, a symlink loop: not a log
        raise io_error(error, "reading", path) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks = []
        size = 0
        while size < limit:
            chunk = os.read(fd, min(1 << 16, limit - size))
            if not chunk:
                return None
            end = chunk.find(b"\n")
            if end >= 0:
                chunks.append(chunk[:end])
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
        return None
    except OSError as error:
        raise io_error(error, "reading", path) from None
    finally:
        os.close(fd)


def symlink_refusal(path: str, what: str = "writing") -> StoreIOError:
    """The refusal of a write whose way goes through the symbolic link at ``path``."""
    try:
        target = f" (to {os.readlink(path)!r})"
    except OSError:
        target = ""
    return StoreIOError(
        f"{what} {path}: it is a symbolic link{target}, and a store never writes through one "
        "(it could lead out of the store); nothing was written -- put the file or directory "
        "itself there, or point the store at the link's target",
        path=path,
        errno=_errno.ELOOP,
    )


def is_symlink_refusal(error: BaseException) -> bool:
    """Whether ``error`` is :func:`symlink_refusal`'s."""
    return isinstance(error, StoreIOError) and error.errno == _errno.ELOOP


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def open_nofollow(name: str, flags: int, *, dir_fd: int, path: str, mode: int = 0o600) -> int:
    """``os.open(name, flags | O_NOFOLLOW, dir_fd=dir_fd)``; a symbolic link there is
    :func:`symlink_refusal` (``path`` names it in the message), other failures ``OSError``."""
    try:
        return os.open(name, flags | os.O_NOFOLLOW, mode, dir_fd=dir_fd)
    except OSError as error:
        if error.errno in (_errno.ELOOP, _errno.EMLINK, _errno.ENOTDIR, _errno.EEXIST) and _is_link(
            name, dir_fd
        ):
            raise symlink_refusal(path) from None
        raise


def open_bucket(root: str, name: str, *, create: bool) -> int:
    """A descriptor of the directory ``<root>/<name>``, never through a symbolic link (created,
    durably, with the root when ``create``). ``FileNotFoundError`` when it is not there."""
    if create:
        make_dirs(root)
    root_fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        if create:
            try:
                os.mkdir(name, 0o700, dir_fd=root_fd)
                os.fsync(root_fd)
            except FileExistsError:
                pass
        return open_nofollow(
            name, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0), dir_fd=root_fd, path=os.path.join(root, name)
        )
    finally:
        os.close(root_fd)


def first_symlink(paths: list[str]) -> str | None:
    """The first of ``paths`` that is a symbolic link, or None."""
    for path in paths:
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                return path
        except OSError:
            continue
    return None


@contextmanager
def locked(fd: int, *, exclusive: bool, timeout: float, path: str) -> Iterator[None]:
    """Hold ``flock`` on ``fd`` for the block; ``STORE_LOCKED`` if it is not had within ``timeout`` s.

    The lock is advisory: it keeps out every dsh-session process (and every
    other backend instance in this one), not a writer that does not ask for it.
    """
    import fcntl  # POSIX only: imported here so that the package imports everywhere

    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise StoreLockedError(
                    Code.STORE_LOCKED,
                    f"{path} is locked by another process (waited {timeout:g} s); "
                    "another dsh-session process is writing this session -- retry later or stop it",
                    path=path,
                ) from None
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)

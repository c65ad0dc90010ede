"""A throwaway PostgreSQL server for the tests, on loopback, in a temporary directory.

``start()`` runs ``initdb`` into a fresh directory under the system's temporary
directory, starts the server with ``pg_ctl`` on a free port of 127.0.0.1 (TCP
only, password authentication), and returns a :class:`PgServer`; ``stop()``
stops it at once and removes the directory. For the tests the cluster trades
durability for speed (``fsync=off``): it only lives for one test run
(``start(durable=True)`` keeps PostgreSQL's defaults, for the benchmark).

``initdb`` refuses to run as root, so as root the server runs as an
unprivileged user -- ``postgres`` (which Debian's package creates) or
``nobody`` -- that owns the directory. A run that was killed before it could
stop its server leaves a directory behind; the next ``start()`` stops such a
server and removes its directory once the process that started it is gone.

This module uses the standard library only: ``dev.py`` imports
:func:`find_bindir` from it to decide whether PostgreSQL must be installed.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PREFIX = "dsh-session-pg-"
_OWNER_FILE = "owner.pid"
_TOOLS = ("initdb", "pg_ctl", "postgres")


class PgUnavailableError(RuntimeError):
    """PostgreSQL could not be started; the message says why and what to do."""


@dataclass(frozen=True)
class PgServer:
    host: str
    port: int
    user: str
    password: str
    dbname: str
    root: Path
    bindir: Path
    run_as: str | None  # the system user the server runs as (None: this process's user)

    def dsn(self, **overrides: object) -> str:
        """A libpq connection string (keyword form) for this server."""
        params: dict[str, object] = {
            "host": self.host,
            "port": self.port,
            "user": self.user,
            "password": self.password,
            "dbname": self.dbname,
            "connect_timeout": 10,
        }
        params.update(overrides)
        return " ".join(f"{key}={_quote(value)}" for key, value in params.items())


def _quote(value: object) -> str:
    text = str(value)
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def find_bindir() -> Path | None:
    """The directory holding ``initdb``, ``pg_ctl`` and ``postgres``, or None.

    Looks on ``PATH`` first, then where Debian's packages put them
    (``/usr/lib/postgresql/<major>/bin``, newest major first), then asks
    ``pg_config --bindir``.
    """
    found = shutil.which("initdb")
    candidates: list[Path] = []
    if found:
        candidates.append(Path(os.path.realpath(found)).parent)
    debian = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda path: [int(part) if part.isdigit() else 0 for part in Path(path).parent.name.split(".")],
        reverse=True,
    )
    candidates.extend(Path(path) for path in debian)
    pg_config = shutil.which("pg_config")
    if pg_config:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, timeout=10)
            if out.returncode == 0 and out.stdout.strip():
                candidates.append(Path(out.stdout.strip()))
    for candidate in candidates:
        if all(os.access(candidate / tool, os.X_OK) for tool in _TOOLS):
            return candidate
    return None


def _server_user() -> pwd.struct_passwd | None:
    """The unprivileged user to run the server as when we are root; None when we are not root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise PgUnavailableError(
        "running as root, and there is neither a 'postgres' nor a 'nobody' user to run PostgreSQL as "
        "(initdb refuses root); create one, e.g. `useradd --system postgres`"
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _run(args: list[str], user: pwd.struct_passwd | None, what: str) -> None:
    extra: dict[str, Any] = {}
    if user is not None:
        extra = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
    env.update(LC_ALL="C", LANG="C")
    try:
        result = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env, cwd="/", **extra)
    except (OSError, subprocess.SubprocessError) as error:
        raise PgUnavailableError(f"{what} could not run: {error}") from None
    if result.returncode != 0:
        raise PgUnavailableError(
            f"{what} failed (exit {result.returncode}): {result.stderr.strip() or result.stdout.strip()}"
        )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def reap_stale(bindir: Path) -> None:
    """Stop and remove the servers of earlier runs whose starting process is gone."""
    for root in glob.glob(os.path.join(tempfile.gettempdir(), PREFIX + "*")):
        owner = Path(root) / _OWNER_FILE
        try:
            pid = int(owner.read_text())
        except (OSError, ValueError):
            continue
        if _alive(pid):
            continue
        data = Path(root) / "data"
        if (data / "postmaster.pid").exists():
            with contextlib.suppress(PgUnavailableError):
                _run(
                    [str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                    _owner_of(data),
                    "pg_ctl stop",
                )
        shutil.rmtree(root, ignore_errors=True)


def _owner_of(path: Path) -> pwd.struct_passwd | None:
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwuid(path.stat().st_uid)
    except (OSError, KeyError):
        return None


def start(*, durable: bool = False) -> PgServer:
    """Initialise and start a throwaway server; raise :class:`PgUnavailableError` if that fails.

    ``durable`` keeps PostgreSQL's default crash safety (fsync on every commit), for
    benchmarks; the tests go without it.
    """
    bindir = find_bindir()
    if bindir is None:
        raise PgUnavailableError(
            "PostgreSQL is not installed (no initdb/pg_ctl on PATH or in /usr/lib/postgresql/*/bin); "
            "`python3 dev.py check` installs it (Debian: apt-get install postgresql)"
        )
    reap_stale(bindir)
    user = _server_user()
    root = Path(tempfile.mkdtemp(prefix=PREFIX))
    try:
        (root / _OWNER_FILE).write_text(str(os.getpid()))
        password = secrets.token_urlsafe(18)
        pwfile = root / "pwfile"
        pwfile.write_text(password + "\n")
        if user is not None:
            for path in (root, pwfile):
                os.chown(path, user.pw_uid, user.pw_gid)
        os.chmod(pwfile, 0o600)
        data = root / "data"
        _run(
            [
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                "dsh",
                f"--pwfile={pwfile}",
                "--auth=scram-sha-256",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            ],
            user,
            "initdb",
        )
        pwfile.unlink()
        last: PgUnavailableError | None = None
        for _attempt in range(5):  # another process may take the free port first
            port = _free_port()
            settings = [
                f"-p {port}",
                "-c listen_addresses=127.0.0.1",
                f"-c unix_socket_directories={root}",
                "-c max_connections=200",
            ]
            if not durable:
                settings += [
                    "-c fsync=off",
                    "-c synchronous_commit=off",
                    "-c full_page_writes=off",
                    "-c shared_buffers=32MB",
                ]
            options = " ".join(settings)
            try:
                _run(
                    [
                        str(bindir / "pg_ctl"),
                        "-D",
                        str(data),
                        "-l",
                        str(root / "server.log"),
                        "-o",
                        options,
                        "-w",
                        "-t",
                        "60",
                        "start",
                    ],
                    user,
                    "pg_ctl start",
                )
            except PgUnavailableError as error:
                log = root / "server.log"
                tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                last = PgUnavailableError(f"{error}\nserver log:\n{tail}")
                continue
            return PgServer(
                "127.0.0.1",
                port,
                "dsh",
                password,
                "postgres",
                root,
                bindir,
                None if user is None else user.pw_name,
            )
        assert last is not None
        raise last
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


def stop(server: PgServer) -> None:
    """Stop the server at once and remove its directory."""
    data = server.root / "data"
    user = None if server.run_as is None else pwd.getpwnam(server.run_as)
    try:
        if (data / "postmaster.pid").exists():
            _run(
                [str(server.bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                user,
                "pg_ctl stop",
            )
    finally:
        shutil.rmtree(server.root, ignore_errors=True)


# -- one server per test run -------------------------------------------------------------------

_shared: PgServer | None = None
_failure: PgUnavailableError | None = None


def shared() -> PgServer:
    """The test run's server, started on first use; every later call gets the same one.

    If it could not be started, every call raises the same error: the tests that
    need PostgreSQL fail with it (they are never skipped).
    """
    global _shared, _failure
    if _shared is not None:
        return _shared
    if _failure is not None:
        raise _failure
    try:
        _shared = start()
    except PgUnavailableError as error:
        _failure = error
        raise
    atexit.register(stop_shared)
    return _shared


def stop_shared() -> None:
    """Stop the test run's server if one was started (idempotent)."""
    global _shared
    server = _shared
    if server is None or int((server.root / _OWNER_FILE).read_text()) != os.getpid():
        return  # not started, or this is a forked child of the process that started it
    _shared = None
    stop(server)

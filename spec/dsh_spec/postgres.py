"""Opening a PostgreSQL store, modelled: the connection rules only.

``docs/errors.md`` (persistence block, "Database servers") says which code each
way of failing to reach a store gets; this is a plain reading of it over
PostgreSQL's frontend/backend protocol (version 3.0), independent of any
client library:

- no TCP connection can be made (refused, unknown host, timed out):
  ``STORE_UNREACHABLE``;
- the server answers the startup message with an ``ErrorResponse``: SQLSTATE
  class 28 (invalid authorization) is ``STORE_AUTH_FAILED``, anything else (no
  such database, too many connections) ``STORE_UNREACHABLE``; so is a server
  that hangs up before the login completes;
- the login completes and the connection drops at the first statement:
  ``STORE_CONNECTION_LOST``.

A server that logs the model in and answers is a real store, which the spec
does not model: that is :class:`~dsh_spec.refusal.Unmodelled` (the suite's cases only meet the
servers the runner plays, ``conformance/README.md``).
"""

from __future__ import annotations

import socket
import struct
from typing import Any, Final

from dsh_spec.codes import Code
from dsh_spec.refusal import Unmodelled, refuse

#: The protocol version 3.0 of a startup message.
PROTOCOL_3: Final = 196608


def pg_message(kind: bytes, body: bytes) -> bytes:
    """A message of the protocol: its kind, its length (itself included), its body."""
    return kind + struct.pack("!i", len(body) + 4) + body


class _Dropped(Exception):
    """The server closed the connection."""


def open_postgres(args: dict[str, Any]) -> None:
    """Connect as ``persist.open`` with ``kind: "postgres"`` asks; raise the code the attempt earns."""
    host, port, user, database = (args.get(key) for key in ("host", "port", "user", "database"))
    if type(host) is not str or type(port) is not int or type(user) is not str or type(database) is not str:
        raise Unmodelled("persist.open postgres needs host, port, user and database")
    timeout = args.get("connectTimeout", 10)
    where = f"postgresql://{user}@{host}:{port}/{database}"
    try:
        conn = socket.create_connection((host, port), timeout=float(timeout))
    except OSError as error:
        raise refuse(Code.STORE_UNREACHABLE, f"cannot connect to {where}: {error}") from None
    with conn:
        try:
            _login(conn, user, database, where)
        except (_Dropped, OSError):
            raise refuse(Code.STORE_UNREACHABLE, f"{where} hung up before the login completed") from None
        try:
            conn.sendall(pg_message(b"Q", b"SELECT 1\x00"))
            kind, _body = _read(conn)
        except (_Dropped, OSError):
            raise refuse(Code.STORE_CONNECTION_LOST, f"{where} dropped the connection") from None
    raise Unmodelled(f"{where} is a live server (answered {kind!r}); the spec models no PostgreSQL store")


def _login(conn: socket.socket, user: str, database: str, where: str) -> None:
    params = b"user\x00" + user.encode() + b"\x00database\x00" + database.encode() + b"\x00\x00"
    conn.sendall(struct.pack("!ii", 8 + len(params), PROTOCOL_3) + params)
    while True:
        kind, body = _read(conn)
        if kind == b"E":
            sqlstate = _fields(body).get(b"C", b"").decode("ascii", "replace")
            if sqlstate.startswith("28"):
                raise refuse(Code.STORE_AUTH_FAILED, f"{where} refused the credentials (SQLSTATE {sqlstate})")
            raise refuse(Code.STORE_UNREACHABLE, f"{where} refused the connection (SQLSTATE {sqlstate})")
        if kind == b"R" and struct.unpack("!i", body[:4])[0] != 0:
            raise Unmodelled(f"{where} asks for a password; the model speaks no authentication method")
        if kind == b"Z":
            return


def _read(conn: socket.socket) -> tuple[bytes, bytes]:
    head = _exactly(conn, 5)
    (length,) = struct.unpack("!i", head[1:])
    return head[:1], _exactly(conn, length - 4)


def _exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        try:
            chunk = conn.recv(size - len(data))
        except OSError:
            raise _Dropped() from None
        if not chunk:
            raise _Dropped()
        data += chunk
    return data


def _fields(body: bytes) -> dict[bytes, bytes]:
    return {field[:1]: field[1:] for field in body.split(b"\x00") if field}

"""Servers the runner plays for a case: a closed port, and two scripted PostgreSQL servers.

A case names one with ``{"$port": kind}`` (:data:`~.protocol.PORT_KINDS`); the
workspace starts it on 127.0.0.1, puts its port number in the request, and
stops it when the case ends. They make the server-connection codes
deterministic, whatever the implementation's client library:

- ``closed``: a socket bound to the port that never listens, so every
  connection is refused at once (and no other program can take the port
  meanwhile);
- ``pg-refuses-credentials``: answers the startup message of PostgreSQL's
  protocol (version 3.0) with ``ErrorResponse`` ``FATAL`` / SQLSTATE ``28P01``
  ("password authentication failed"), as a server does for a wrong password;
- ``pg-drops-connection``: lets the client in (``AuthenticationOk``, the
  usual ``ParameterStatus`` messages, ``BackendKeyData``, ``ReadyForQuery``)
  and closes the connection when the first message after that arrives.

Both PostgreSQL servers answer ``SSLRequest`` and ``GSSENCRequest`` with
``N`` (not supported), as a server without TLS does, so a client that tries
encryption first carries on in the clear. Each connection is served in turn
on one thread; a client that stalls is dropped after a few seconds.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from typing import Final

from dsh_session.conformance.protocol import PORT_KINDS

#: Request codes of the messages a client may send first (PostgreSQL protocol 3.0).
PROTOCOL_3: Final = 196608
SSL_REQUEST: Final = 80877103
GSSENC_REQUEST: Final = 80877104

#: What ``pg-drops-connection`` reports about itself after the login.
PARAMETERS: Final = (
    ("server_version", "16.0"),
    ("server_encoding", "UTF8"),
    ("client_encoding", "UTF8"),
    ("DateStyle", "ISO, MDY"),
    ("integer_datetimes", "on"),
    ("standard_conforming_strings", "on"),
    ("TimeZone", "UTC"),
)

_CLIENT_TIMEOUT = 5.0
_POLL = 0.05


class ServerError(Exception):
    """A server kind this runner does not know, or one that cannot be started."""


class Server:
    """One server of a case; :meth:`close` stops it."""

    def __init__(self, kind: str) -> None:
        if kind not in PORT_KINDS:
            raise ServerError(f"unknown $port kind {kind!r}; the runner plays {', '.join(PORT_KINDS)}")
        self.kind = kind
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        try:
            self._socket.bind(("127.0.0.1", 0))
            if kind != "closed":
                self._socket.listen(8)
                self._socket.settimeout(_POLL)
                self._thread = threading.Thread(target=self._serve, name=f"conformance-{kind}", daemon=True)
                self._thread.start()
        except OSError as error:
            self._socket.close()
            raise ServerError(f"cannot start the {kind} server: {error}") from None
        self.port: int = self._socket.getsockname()[1]

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=_CLIENT_TIMEOUT + 1)
        self._socket.close()

    # -- serving ---------------------------------------------------------------------------

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                client, _address = self._socket.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with client, contextlib.suppress(OSError, _Gone):
                client.settimeout(_CLIENT_TIMEOUT)
                self._converse(client)

    def _converse(self, client: socket.socket) -> None:
        user = _startup(client)
        if user is None:
            return
        if self.kind == "pg-refuses-credentials":
            client.sendall(
                _error(
                    "28P01",
                    f'password authentication failed for user "{user}"',
                )
            )
            return
        reply = pg_message(b"R", struct.pack("!i", 0))
        for name, value in PARAMETERS:
            reply += pg_message(b"S", _cstring(name) + _cstring(value))
        reply += pg_message(b"K", struct.pack("!ii", 4242, 424242)) + pg_message(b"Z", b"I")
        client.sendall(reply)
        _receive(client, 1)  # the first message after the login: drop the connection
        with contextlib.suppress(OSError):
            client.shutdown(socket.SHUT_RDWR)


class _Gone(Exception):
    """The client closed the connection or stalled."""


def _receive(client: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        try:
            chunk = client.recv(size - len(data))
        except TimeoutError:
            raise _Gone() from None
        if not chunk:
            raise _Gone()
        data += chunk
    return data


def _startup(client: socket.socket) -> str | None:
    """Read the client's opening packets up to its startup message; the user it names
    (``None`` for a cancel request)."""
    while True:
        (length,) = struct.unpack("!i", _receive(client, 4))
        if not 8 <= length <= 10_000:
            raise _Gone()
        body = _receive(client, length - 4)
        (code,) = struct.unpack("!i", body[:4])
        if code in (SSL_REQUEST, GSSENC_REQUEST):
            client.sendall(b"N")
            continue
        if code != PROTOCOL_3:
            return None
        fields = body[4:].split(b"\x00")
        params = dict(zip(fields[0::2], fields[1::2], strict=False))
        return params.get(b"user", b"").decode("utf-8", "replace")


def _cstring(text: str) -> bytes:
    return text.encode("utf-8") + b"\x00"


def pg_message(kind: bytes, body: bytes) -> bytes:
    """A message of PostgreSQL's protocol: its kind, its length, its body."""
    return kind + struct.pack("!i", len(body) + 4) + body


def _error(sqlstate: str, text: str) -> bytes:
    fields = b"".join(
        tag + _cstring(value)
        for tag, value in ((b"S", "FATAL"), (b"V", "FATAL"), (b"C", sqlstate), (b"M", text))
    )
    return pg_message(b"E", fields + b"\x00")

"""PostgreSQL stores on the command line: ``postgresql://`` and ``postgres://`` locations.

A URL with either scheme (libpq's URI form), or a libpq connection string
(``"host=db dbname=sessions"``: every word a libpq ``keyword=value`` pair, and
no file of that name; or anything with ``--backend postgres`` /
``--to-backend postgres``), names a :class:`~dsh_session.PostgresBackend`
store; ``--pg-schema`` (``--to-pg-schema`` for a target) names its schema, by
default the backend's.

Reading never writes. A source reads through a backend opened ``read_only``:
its connection runs every transaction READ ONLY, so the server itself refuses
any write; a missing schema is not created but read as an empty store; each
session is read in one read-only transaction by the backend's own
``_stored_rows`` (its row decoding and torn-row scan), and held to the seed's
rules here (:func:`~dsh_session.cli._readonly.admit`), which reports what a
load would repair without repairing it. Only ``repair`` (and a target) opens a
backend that writes.

A location is shown without its password (:func:`redact`), in output and in
messages alike; the backend's own errors name the server as
``postgresql://user@host:port/dbname``.
"""

from __future__ import annotations

import re

from dsh_session.cli._errors import fail
from dsh_session.cli._readonly import Reading
from dsh_session.cli._resolve import Entry, StoreSource, register_scheme
from dsh_session.persistence import PostgresBackend, SessionBackend
from dsh_session.persistence.postgres_schema import DEFAULT_SCHEMA

__all__ = ["KIND", "SCHEMES", "PostgresSource", "is_conninfo", "open_store", "redact"]

#: The URL schemes libpq reads, and the ``--backend`` name of such stores.
SCHEMES = ("postgresql", "postgres")
KIND = "postgres"

_HIDDEN = "***"
_URL = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<netloc>[^/?#]*)(?P<rest>.*)", re.DOTALL)
# The secrets a location may hold: the password, and the passphrase of the client's SSL key.
_URL_PASSWORD = re.compile(r"(?P<key>(?:^|[?&])(?:ssl)?password=)[^&#]*", re.IGNORECASE)
# A keyword/value pair of a libpq connection string: the value plain (backslash escapes) or quoted.
_KEYWORD_PASSWORD = re.compile(
    r"(?P<key>\b(?:ssl)?password\s*=\s*)(?:'(?:[^'\\]|\\.)*'?|(?:[^\s'\\]|\\.)+)", re.DOTALL
)
#: libpq's connection keywords (PostgreSQL 17): a string of such pairs is a connection string.
_LIBPQ_KEYWORDS = frozenset(
    (
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth",
        "channel_binding", "connect_timeout", "client_encoding", "options", "application_name",
        "fallback_application_name", "keepalives", "keepalives_idle", "keepalives_interval",
        "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode", "sslnegotiation",
        "requiressl", "sslcompression", "sslcert", "sslkey", "sslpassword", "sslcertmode", "sslrootcert",
        "sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version",
        "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation", "service",
        "target_session_attrs", "load_balance_hosts",
    )
)
_PAIR = re.compile(r"\s*(?P<key>[A-Za-z_]+)\s*=\s*(?:'(?:[^'\\]|\\.)*'|(?:[^\s'\\]|\\.)*)\s*", re.DOTALL)


def is_conninfo(location: str) -> bool:
    """Whether ``location`` reads as a libpq connection string: one or more ``keyword=value``
    pairs (values plain or single-quoted), every keyword one libpq knows."""
    position, pairs = 0, 0
    while position < len(location):
        match = _PAIR.match(location, position)
        if match is None or match.end() == position or match["key"] not in _LIBPQ_KEYWORDS:
            return False
        position, pairs = match.end(), pairs + 1
    return pairs > 0


def redact(location: str) -> str:
    """``location`` with any password replaced by ``***``: in a URL's user info and its
    ``password`` / ``sslpassword`` parameters, or in a connection string's such pairs."""
    match = _URL.fullmatch(location)
    if match is None:
        return _KEYWORD_PASSWORD.sub(lambda m: m["key"] + _HIDDEN, location)
    netloc = match["netloc"]
    user_info, at, hosts = netloc.rpartition("@")
    if at and ":" in user_info:
        netloc = f"{user_info.split(':', 1)[0]}:{_HIDDEN}@{hosts}"
    rest = match["rest"]
    path, question, query = rest.partition("?")
    if question:
        rest = path + question + _URL_PASSWORD.sub(lambda m: m["key"] + _HIDDEN, query)
    return match["scheme"] + netloc + rest


def open_store(location: str, schema: str | None, *, read_only: bool = False) -> PostgresBackend:
    """A backend on ``location``'s server in ``schema`` (default the backend's); connection,
    credential and schema failures raise the backend's typed errors, which never hold a password."""
    try:
        return PostgresBackend(
            location, schema=DEFAULT_SCHEMA if schema is None else schema, read_only=read_only
        )
    except ImportError as error:
        fail(str(error))
    except ValueError as error:  # a DSN that does not parse, a schema name PostgreSQL cannot hold
        fail(f"{redact(location)}: {error}")


class PostgresSource(StoreSource):
    """A PostgreSQL store, read through a read-only backend; ``path`` is the location without
    its password."""

    kind = KIND

    def __init__(self, location: str, schema: str | None) -> None:
        super().__init__(f"{redact(location)} (schema {DEFAULT_SCHEMA if schema is None else schema})")
        self._location = location
        self._schema = schema
        self.reader = open_store(location, schema, read_only=True)

    def entries(self) -> list[Entry]:
        return [Entry(self.path, sid, error) for sid, error in self.reader.catalog()]

    def not_a_store(self) -> str | None:
        if self.reader._nothing_stored():
            return "the schema does not exist or has no session tables (check --pg-schema)"
        return None

    def read(self, session_id: str) -> Reading:
        return Reading.of(self.reader.read_log(session_id))

    def open_writer(self) -> SessionBackend:
        return open_store(self._location, self._schema)

    def close(self) -> None:
        self.reader.close()
        super().close()


def _target(location: str, schema: str | None) -> SessionBackend:
    return open_store(location, schema)


for _scheme in SCHEMES:
    register_scheme(
        _scheme, kind=KIND, source=PostgresSource, target=_target, show=redact, claims=is_conninfo
    )

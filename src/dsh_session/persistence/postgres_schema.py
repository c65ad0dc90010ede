"""The PostgreSQL layout (version 1) and checking or creating it in a schema.

A store is one PostgreSQL schema (``dsh_session`` by default) holding three
tables: ``meta`` (one row: the layout's name and version, the store's version
marker), ``sessions`` (one row per stored session: a surrogate ``sid`` and the
header) and ``events`` (one row per event, keyed by ``(sid, seq)``, the JSON
columns holding the same ``JSON.stringify`` text as the SQLite backend's).

A schema is checked *before* anything is written to it, from the catalogs
only: one that is missing or empty is initialised (in one transaction, under an
advisory lock, so concurrent openers do not collide); one holding our layout at
our version is used; anything else -- another layout version, foreign tables,
other columns, constraints or objects -- is refused with
``STORE_SCHEMA_MISMATCH`` and left as it was.
"""

from __future__ import annotations

from typing import Any, Final

from dsh_session.errors import Code
from dsh_session.persistence.errors import IncompatibleStoreError

#: A psycopg connection (psycopg is imported lazily, so it is not named in annotations).
Conn = Any

__all__ = ["DEFAULT_SCHEMA", "LAYOUT", "POSTGRES_SCHEMA_VERSION", "check_schema", "initialise", "quote_ident"]

#: The layout version this build reads and writes (the ``meta`` row).
POSTGRES_SCHEMA_VERSION: Final = 1
#: The layout's name in the ``meta`` row: what tells our schema from a foreign one.
LAYOUT: Final = "dsh-session"
DEFAULT_SCHEMA: Final = "dsh_session"

_DDL: Final = (
    """CREATE TABLE {s}.meta (
        layout  text NOT NULL,
        version integer NOT NULL,
        CONSTRAINT meta_pkey PRIMARY KEY (layout)
    )""",
    """CREATE TABLE {s}.sessions (
        sid            bigint GENERATED ALWAYS AS IDENTITY,
        id             text NOT NULL,
        version        integer NOT NULL,
        created_at     bigint NOT NULL,
        cwd            text,
        parent_session text,
        seed_length    bigint,
        CONSTRAINT sessions_pkey PRIMARY KEY (sid),
        CONSTRAINT sessions_id_key UNIQUE (id)
    )""",
    """CREATE TABLE {s}.events (
        sid               bigint NOT NULL,
        seq               bigint NOT NULL,
        type              text NOT NULL,
        time              bigint NOT NULL,
        data              text NOT NULL,
        source_event_seqs text,
        surface_op        text,
        CONSTRAINT events_pkey PRIMARY KEY (sid, seq),
        CONSTRAINT events_sid_fkey FOREIGN KEY (sid) REFERENCES {s}.sessions (sid) ON DELETE CASCADE
    )""",
)

#: (table, column number, name, type, not null, identity) for every column of the layout.
_COLUMNS: Final = [
    ("events", 1, "sid", "bigint", True, ""),
    ("events", 2, "seq", "bigint", True, ""),
    ("events", 3, "type", "text", True, ""),
    ("events", 4, "time", "bigint", True, ""),
    ("events", 5, "data", "text", True, ""),
    ("events", 6, "source_event_seqs", "text", False, ""),
    ("events", 7, "surface_op", "text", False, ""),
    ("meta", 1, "layout", "text", True, ""),
    ("meta", 2, "version", "integer", True, ""),
    ("sessions", 1, "sid", "bigint", True, "a"),
    ("sessions", 2, "id", "text", True, ""),
    ("sessions", 3, "version", "integer", True, ""),
    ("sessions", 4, "created_at", "bigint", True, ""),
    ("sessions", 5, "cwd", "text", False, ""),
    ("sessions", 6, "parent_session", "text", False, ""),
    ("sessions", 7, "seed_length", "bigint", False, ""),
]
#: Every relation of the layout: (name, kind) with pg_class's relkind.
_RELATIONS: Final = sorted(
    [
        ("events", "r"),
        ("events_pkey", "i"),
        ("meta", "r"),
        ("meta_pkey", "i"),
        ("sessions", "r"),
        ("sessions_id_key", "i"),
        ("sessions_pkey", "i"),
        ("sessions_sid_seq", "S"),
    ]
)
#: Every constraint other than NOT NULL: (table, name, kind, columns) with pg_constraint's contype.
_CONSTRAINTS: Final = sorted(
    [
        ("events", "events_pkey", "p", "sid,seq"),
        ("events", "events_sid_fkey", "f", "sid"),
        ("meta", "meta_pkey", "p", "layout"),
        ("sessions", "sessions_id_key", "u", "id"),
        ("sessions", "sessions_pkey", "p", "sid"),
    ]
)

_NAMESPACE = "SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = %s"
_RELATIONS_SQL = (
    "SELECT c.relname, c.relkind::text FROM pg_catalog.pg_class c WHERE c.relnamespace = %s ORDER BY 1, 2"
)
_OTHER_OBJECTS_SQL = (
    "SELECT (SELECT count(*) FROM pg_catalog.pg_proc WHERE pronamespace = %(ns)s) "
    "+ (SELECT count(*) FROM pg_catalog.pg_type WHERE typnamespace = %(ns)s) "
    "+ (SELECT count(*) FROM pg_catalog.pg_class WHERE relnamespace = %(ns)s)"
)
_COLUMNS_SQL = (
    "SELECT c.relname, a.attnum, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), "
    "a.attnotnull, a.attidentity::text FROM pg_catalog.pg_attribute a "
    "JOIN pg_catalog.pg_class c ON c.oid = a.attrelid "
    "WHERE c.relnamespace = %s AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped "
    "ORDER BY 1, 2"
)
_CONSTRAINTS_SQL = (
    "SELECT c.relname, k.conname, k.contype::text, "
    "(SELECT string_agg(a.attname, ',' ORDER BY u.ord) FROM unnest(k.conkey) WITH ORDINALITY AS u(num, ord) "
    " JOIN pg_catalog.pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.num) "
    "FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid "
    "WHERE c.relnamespace = %s AND k.contype IN ('p', 'u', 'f', 'c', 'x', 't') ORDER BY 1, 2"
)


def check_schema(conn: Conn, schema: str, where: str) -> bool:
    """Check the schema's layout, reading the catalogs only.

    True when the schema is missing or empty and must be initialised; raises
    ``STORE_SCHEMA_MISMATCH`` for anything but our layout at our version.
    """
    row = conn.execute(_NAMESPACE, (schema,)).fetchone()
    if row is None:
        return True
    namespace = row[0]
    if conn.execute(_OTHER_OBJECTS_SQL, {"ns": namespace}).fetchone() == (0,):
        return True
    relations = [tuple(r) for r in conn.execute(_RELATIONS_SQL, (namespace,)).fetchall()]
    columns = [tuple(r) for r in conn.execute(_COLUMNS_SQL, (namespace,)).fetchall()]
    meta_columns = [column for column in columns if column[0] == "meta"]
    if ("meta", "r") not in relations or meta_columns != [c for c in _COLUMNS if c[0] == "meta"]:
        tables = sorted(name for name, kind in relations if kind in ("r", "p", "v", "m", "f"))
        listed = ", ".join(tables) if tables else "no tables"
        raise mismatch(where, f"is not a dsh-session store (no dsh-session meta table; it holds {listed})")
    marker = conn.execute(f"SELECT layout, version FROM {quote_ident(schema)}.meta").fetchall()
    if len(marker) != 1 or marker[0][0] != LAYOUT:
        raise mismatch(where, f"is not a dsh-session store (its meta table holds {marker!r})")
    version = marker[0][1]
    if version != POSTGRES_SCHEMA_VERSION:
        raise mismatch(where, f"holds layout version {version}")
    if relations != _RELATIONS:
        extra = sorted(set(relations) - set(_RELATIONS))
        missing = sorted(set(_RELATIONS) - set(relations))
        raise mismatch(where, f"holds other objects (extra: {_names(extra)}; missing: {_names(missing)})")
    if columns != _COLUMNS:
        differ = sorted({c[0] for c in set(columns) ^ set(_COLUMNS)})
        raise mismatch(where, f"has other columns in table(s) {', '.join(differ)}")
    constraints = [tuple(r) for r in conn.execute(_CONSTRAINTS_SQL, (namespace,)).fetchall()]
    if constraints != _CONSTRAINTS:
        raise mismatch(where, "has other keys or constraints")
    return False


def quote_ident(name: str) -> str:
    """``name`` as a quoted SQL identifier (any text without NUL)."""
    return '"' + name.replace('"', '""') + '"'


def initialise(conn: Conn, schema: str, where: str) -> None:
    """Create the layout in one transaction, unless another opener did it first.

    Runs under a transaction-scoped advisory lock keyed by the schema name, and
    checks again inside it: concurrent openers of a fresh store serialize here.
    """
    ident = quote_ident(schema)
    with conn.transaction():
        conn.execute(
            "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext(%s))", (LAYOUT + ":" + schema,)
        )
        if not check_schema(conn, schema, where):
            return
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {ident}")
        for statement in _DDL:
            conn.execute(statement.format(s=ident))
        conn.execute(
            f"INSERT INTO {ident}.meta (layout, version) VALUES (%s, %s)", (LAYOUT, POSTGRES_SCHEMA_VERSION)
        )
        comment = f"dsh-session store, layout version {POSTGRES_SCHEMA_VERSION}"
        conn.execute(f"COMMENT ON SCHEMA {ident} IS '{comment}'")


def _names(items: list[tuple[Any, ...]]) -> str:
    return ", ".join(name for name, _kind in items) or "none"


def mismatch(where: str, detail: str) -> IncompatibleStoreError:
    return IncompatibleStoreError(
        Code.STORE_SCHEMA_MISMATCH,
        f"{where} {detail}; this build reads only layout version {POSTGRES_SCHEMA_VERSION} and never "
        "migrates: the schema was left untouched -- open it with the build that wrote it, or pick "
        "another schema",
        path=where,
    )

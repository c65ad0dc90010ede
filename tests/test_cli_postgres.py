"""``dsh-session`` on PostgreSQL locations, against the run's throwaway server.

Every valid reference store goes JSONL -> PostgreSQL -> SQLite -> PostgreSQL (another
database and schema) -> JSONL, and SQLite -> PostgreSQL -> JSONL -> PostgreSQL -> SQLite,
and comes back as the reference wrote it; the read commands show on a PostgreSQL URL what
they show on the original store and leave the database as it was (a snapshot of every
schema, object, sequence and row, before and after); a crashed session is changed only by
``repair``, into what the reference's repair left; an unreachable server, a wrong password
and a foreign schema each fail in one line with exit status 2 and their code; no password
is ever printed.
"""

from __future__ import annotations

import secrets
import socket
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest

from dsh_session import Code, Event, JsonlBackend, PostgresBackend, StoreIOError
from dsh_session.cli._postgres import is_conninfo, redact
from dsh_session.persistence.postgres_schema import quote_ident
from tests.cli_support import CRASH, Ran, expected, run
from tests.pg_server import PgServer
from tests.reference import CRASH_SQLITE, VALID, copy_case, database, jsonl_root
from tests.test_reference_artifacts import check_loaded, session_id, tree

Rows = list[tuple[Any, ...]]

#: The one valid case whose JSONL log holds lines in an unusual key order: a database stores
#: columns, so a trip through one brings them back in the usual order (what the reference
#: itself loads from its SQLite store of that case).
KEY_ORDER_CASES = {"previously-interrupted-turn-resumed-cwd"}

#: The commands that only read, with the options that change what they show.
READS: list[tuple[str, ...]] = [
    ("validate",),
    ("validate", "--invariants"),
    ("derive",),
    ("derive", "--repaired"),
    ("surface",),
    ("surface", "--repaired"),
    ("inspect",),
    ("inspect", "--repaired"),
    ("repair", "--dry-run"),
]

#: What names the store rather than the session, in the ``--json`` documents.
_WHERE_KEYS = {"path", "backend", "storedBytes"}


# -- the databases -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Db:
    """A database of our own on the test server (a snapshot of all of it stays small)."""

    server: PgServer
    name: str

    def url(self, *, password: str | None = None, port: int | None = None) -> str:
        secret = self.server.password if password is None else password
        return (
            f"postgresql://{quote(self.server.user, safe='')}:{quote(secret, safe='')}"
            f"@{self.server.host}:{port or self.server.port}/{self.name}"
        )

    def shown(self) -> str:
        """:meth:`url` as the command line shows it."""
        user, server = quote(self.server.user, safe=""), self.server
        return f"postgresql://{user}:***@{server.host}:{server.port}/{self.name}"

    def dsn(self) -> str:
        return self.server.dsn(dbname=self.name)

    def sql(self, statement: str, *args: object) -> Rows:
        with psycopg.connect(self.dsn(), autocommit=True) as conn, conn.cursor() as cursor:
            cursor.execute(statement.encode(), args)
            return list(cursor.fetchall()) if cursor.description else []

    def state(self) -> object:
        """Every schema of the database but the system's: its objects, its sequences' positions and
        every table's rows."""
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            schemas = [
                row[0]
                for row in conn.execute(
                    "SELECT nspname FROM pg_catalog.pg_namespace WHERE nspname NOT LIKE 'pg\\_%' "
                    "AND nspname <> 'information_schema' ORDER BY 1"
                ).fetchall()
            ]
            state: dict[str, object] = {}
            for schema in schemas:
                objects = conn.execute(
                    "SELECT c.relname, c.relkind::text FROM pg_catalog.pg_class c "
                    "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE n.nspname = %s ORDER BY 1",
                    (schema,),
                ).fetchall()
                contents = {}
                for name, kind in objects:
                    table = f"{quote_ident(schema)}.{quote_ident(name)}"
                    if kind == "r":
                        contents[name] = conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
                    elif kind == "S":
                        contents[name] = conn.execute(f"SELECT last_value, is_called FROM {table}").fetchall()
                state[schema] = (objects, contents)
            return state

    def has_schema(self, schema: str) -> bool:
        return bool(self.sql("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = %s", schema))


@pytest.fixture(scope="module")
def dbs(postgres_server: PgServer) -> Iterator[tuple[Db, Db]]:
    """Two databases made for this module, dropped at its end."""
    made = [Db(postgres_server, f"cli_{secrets.token_hex(6)}") for _ in range(2)]
    admin = Db(postgres_server, postgres_server.dbname)
    for db in made:
        admin.sql(f"CREATE DATABASE {db.name} ENCODING 'UTF8' TEMPLATE template0")
    yield made[0], made[1]
    for db in made:
        admin.sql(f"DROP DATABASE IF EXISTS {db.name} WITH (FORCE)")


@pytest.fixture
def db(dbs: tuple[Db, Db]) -> Db:
    return dbs[0]


def new_schema() -> str:
    return "s_" + secrets.token_hex(6)


def ok(ran: Ran, *secrets_: str) -> Ran:
    """``ran`` succeeded, and printed none of ``secrets_``."""
    assert ran.status == 0, ran.stderr
    for secret in secrets_:
        assert secret not in ran.stdout + ran.stderr
    return ran


def comparable(document: Any) -> Any:
    """A ``--json`` document without what names the store (its path, kind, file size)."""
    if isinstance(document, dict):
        return {key: comparable(value) for key, value in document.items() if key not in _WHERE_KEYS}
    if isinstance(document, list):
        return [comparable(item) for item in document]
    return document


def sqlite_rows(path: Path) -> tuple[Rows, Rows]:
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return (
            conn.execute("SELECT * FROM sessions ORDER BY id").fetchall(),
            conn.execute("SELECT * FROM events ORDER BY session_id, seq").fetchall(),
        )
    finally:
        conn.close()


def pg_event_rows(db: Db, schema: str) -> Rows:
    """The event rows of a PostgreSQL store as a SQLite store holds them (session id for sid)."""
    s = quote_ident(schema)
    return db.sql(
        f"SELECT s.id, e.seq, e.type, e.time, e.data, e.source_event_seqs, e.surface_op FROM {s}.events e "
        f"JOIN {s}.sessions s USING (sid) ORDER BY s.id, e.seq"
    )


def put_rows(db: Db, schema: str, sessions: Rows, events: Rows) -> None:
    """Rows of a SQLite store written into a fresh PostgreSQL store as they are, outside any backend
    (a crashed session stays crashed)."""
    PostgresBackend(db.dsn(), schema=schema).close()  # makes the layout
    s = quote_ident(schema)
    with psycopg.connect(db.dsn(), autocommit=True) as conn:
        sids = {}
        for row in sessions:
            (sid,) = conn.execute(
                f"INSERT INTO {s}.sessions (id, version, created_at, cwd, parent_session, seed_length) "
                "VALUES (%s, %s, %s, %s, %s, %s) RETURNING sid",
                row,
            ).fetchone() or (None,)
            sids[row[0]] = sid
        with conn.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {s}.events (sid, seq, type, time, data, source_event_seqs, surface_op) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                [(sids[row[0]], *row[1:]) for row in events],
            )


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- converting the reference's stores, both ways --------------------------------------------------


@pytest.mark.parametrize("case", VALID)
def test_a_jsonl_store_goes_through_postgres_sqlite_and_postgres_and_comes_back_as_it_was(
    case: str, tmp_path: Path, dbs: tuple[Db, Db]
) -> None:
    folder = copy_case(case, tmp_path)
    main, other = dbs
    first, second = new_schema(), new_schema()
    mid, back = tmp_path / "mid.db", tmp_path / "back"
    password = main.server.password
    hop = ok(run("convert", str(folder / "jsonl"), main.url(), "--to-pg-schema", first, "--json"), password)
    assert hop.json() == {
        "src": str(folder / "jsonl"),
        "dst": main.shown(),
        "srcBackend": "jsonl",
        "dstBackend": "postgres",
        "copied": [session_id(folder)],
        "verified": True,
    }
    with PostgresBackend(main.dsn(), schema=first) as stored:
        # what the reference loaded from its own database of this case, key order included
        check_loaded(stored.load(session_id(folder)), folder / "sqlite" / "expected.json")
    ok(run("convert", main.url(), str(mid), "--pg-schema", first), password)
    ok(run("convert", str(mid), other.url(), "--to-pg-schema", second), password)
    hop = ok(run("convert", other.url(), str(back), "--pg-schema", second, "--json"), password)
    assert (hop.json()["srcBackend"], hop.json()["dstBackend"]) == ("postgres", "jsonl")
    # The SQLite store in the middle holds the rows the reference's own SQLite store holds.
    assert sqlite_rows(mid) == sqlite_rows(folder / "sqlite" / "session.db")
    if case in KEY_ORDER_CASES:
        assert tree(back) != tree(jsonl_root(case))
        check_loaded(JsonlBackend(back).load(session_id(folder)), folder / "sqlite" / "expected.json")
    else:  # byte for byte what the reference wrote
        assert tree(back) == tree(jsonl_root(case))


@pytest.mark.parametrize("case", VALID)
def test_a_sqlite_store_goes_through_postgres_jsonl_and_postgres_and_comes_back_row_for_row(
    case: str, tmp_path: Path, dbs: tuple[Db, Db]
) -> None:
    folder = copy_case(case, tmp_path)
    main, other = dbs
    first, second = new_schema(), new_schema()
    mid, back = tmp_path / "mid", tmp_path / "back.db"
    ok(run("convert", str(folder / "sqlite" / "session.db"), main.url(), "--to-pg-schema", first))
    ok(run("convert", main.url(), str(mid), "--pg-schema", first))
    ok(run("convert", str(mid), other.url(), "--to-pg-schema", second))
    ok(run("convert", other.url(), str(back), "--pg-schema", second))
    assert sqlite_rows(back) == sqlite_rows(database(case))
    if case not in KEY_ORDER_CASES:  # the JSONL store in the middle is the reference's, byte for byte
        assert tree(mid) == tree(jsonl_root(case))


def test_a_connection_string_is_a_location_too(
    db: Db, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``host=... dbname=...`` works forced (``--backend postgres``) and unforced (no file has that
    name); as a target it never becomes a directory of that name."""
    monkeypatch.chdir(tmp_path)
    folder = copy_case("compaction-once-cwd", tmp_path)
    schema = new_schema()
    dsn = db.dsn()
    assert is_conninfo(dsn)
    password = db.server.password
    copied = ok(run("convert", str(folder / "jsonl"), dsn, "--to-pg-schema", schema, "--json"), password)
    assert copied.json()["dstBackend"] == "postgres"
    assert "password=***" in copied.json()["dst"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["compaction-once-cwd"]
    reference = expected(folder, "jsonl")
    for forced in ((), ("--backend", "postgres")):
        derived = ok(run("derive", dsn, *forced, "--pg-schema", schema, "--json"), password)
        assert derived.json()["messages"] == reference["messages"]
    forked = ok(
        run(
            "fork",
            str(folder / "jsonl"),
            "--to",
            dsn,
            "--to-backend",
            "postgres",
            "--to-pg-schema",
            schema,
            "--child",
            "c",
            "--json",
        ),
        password,
    )
    assert forked.json()["store"] == redact(dsn)
    assert [row[0] for row in db.sql(f"SELECT id FROM {quote_ident(schema)}.sessions ORDER BY id")] == [
        "c",
        reference["meta"]["id"],
    ]


# -- reading never writes --------------------------------------------------------------------------


@pytest.mark.parametrize("case", VALID)
def test_the_read_commands_show_on_postgres_what_they_show_on_the_jsonl_original(
    case: str, tmp_path: Path, db: Db
) -> None:
    folder = copy_case(case, tmp_path)
    schema = new_schema()
    ok(run("convert", str(folder / "jsonl"), db.url(), "--to-pg-schema", schema))
    before = db.state()
    for command in READS:
        on_jsonl = run(*command, str(folder / "jsonl"), "--json")
        on_pg = run(*command, db.url(), "--pg-schema", schema, "--json")
        assert on_pg.status == on_jsonl.status == 0, (command, on_pg.stderr)
        assert comparable(on_pg.json()) == comparable(on_jsonl.json()), command
        assert db.server.password not in on_pg.stdout + on_pg.stderr
    derived = run("derive", db.url(), "--pg-schema", schema, "--json").json()
    assert derived["messages"] == expected(folder, "sqlite")["messages"]
    inspected = run("inspect", db.url(), "--pg-schema", schema, "--json").json()
    assert inspected["backend"] == "postgres" and inspected["storedBytes"] is None
    assert inspected["path"].endswith(f"/{db.name} (schema {schema})")
    assert db.state() == before


@pytest.mark.parametrize("case", CRASH_SQLITE)
def test_a_crashed_session_is_read_as_stored_and_changed_only_by_repair(
    case: str, tmp_path: Path, db: Db
) -> None:
    """The reference's crashed rows, in PostgreSQL and in the SQLite original (a database row is
    never torn: the crash left an open turn, nothing to cut): the read commands say what a load
    would repair -- the same on both -- and change nothing; ``repair`` then leaves the rows the
    reference's repair left."""
    folder = copy_case(case, tmp_path)
    original = folder / "sqlite" / "session.db"
    sessions, events = sqlite_rows(original)
    (sid,) = {row[0] for row in events}
    schema = new_schema()
    put_rows(db, schema, sessions, events)
    stored, closers, cut = CRASH[case]
    assert (stored, cut) == (len(events), 0)  # the facts of INDEX.md: no torn row of its own
    before = db.state()
    for command in READS:
        on_sqlite = run(*command, str(original), "--json")
        on_pg = run(*command, db.url(), "--pg-schema", schema, "--json")
        assert on_pg.status == on_sqlite.status == 0, (command, on_pg.stderr)
        assert comparable(on_pg.json()) == comparable(on_sqlite.json()), command
    validated = run("validate", db.url(), "--pg-schema", schema, "--json").json()
    (result,) = validated["sessions"]
    assert (result["events"], result["repair"]) == (
        stored,
        {"cutRecords": 0, "cutBytes": None, "closers": closers},
    )
    shown = run("inspect", db.url(), "--pg-schema", schema)
    assert f"dsh-session repair {db.shown()} --pg-schema {schema}" in shown.stdout
    assert db.state() == before
    repaired = ok(run("repair", db.url(), "--pg-schema", schema, "--json"), db.server.password)
    (item,) = repaired.json()["sessions"]
    assert (item["repaired"], item["cutRecords"], len(item["closers"])) == (True, 0, closers)
    _, reference = sqlite_rows(folder / "repaired" / "sqlite" / "session.db")
    assert pg_event_rows(db, schema) == reference
    with PostgresBackend(db.dsn(), schema=schema) as backend:
        check_loaded(backend.load(sid), folder / "expected-reload.json")


def test_a_session_row_of_another_version_is_reported_not_dropped(db: Db, tmp_path: Path) -> None:
    """A store of a crashed session and a session row of format version 1: every command names
    the row that cannot be read (exit status 2), and the crashed one is still repaired."""
    folder = copy_case("crash-sqlite-open-turn-after-compaction", tmp_path)
    sessions, events = sqlite_rows(folder / "sqlite" / "session.db")
    schema = new_schema()
    put_rows(db, schema, [*sessions, ("version-one", 1, 0, None, None, None)], events)
    where = f"{db.shown()} (schema {schema})"
    validated = run("validate", db.url(), "--pg-schema", schema, "--json")
    assert validated.status == 2
    statuses = {item["id"]: item["status"] for item in validated.json()["sessions"]}
    assert statuses == {"crash-after-compaction": "valid", "version-one": "unreadable"}
    chosen = run("derive", db.url(), "--pg-schema", schema)
    assert chosen.status == 2
    assert chosen.error_lines == [
        f"dsh-session: error: {where} holds 2 sessions (crash-after-compaction; 1 cannot be read, "
        "see dsh-session validate); choose one with --id"
    ]
    target = tmp_path / "copy.db"
    copied = run("convert", db.url(), str(target), "--pg-schema", schema)
    assert copied.status == 2 and not target.exists()
    (line,) = copied.error_lines
    assert "'version-one'" in line and line.endswith("[STORE_VERSION_UNSUPPORTED]")
    repaired = run("repair", db.url(), "--pg-schema", schema, "--json")
    assert repaired.status == 2
    document = repaired.json()
    assert [item["id"] for item in document["sessions"]] == ["crash-after-compaction"]
    assert [item["id"] for item in document["unreadable"]] == ["version-one"]


def test_a_schema_that_is_not_there_is_no_store_and_is_not_made(db: Db, tmp_path: Path) -> None:
    schema = new_schema()
    before = db.state()
    said = f"dsh-session: error: {db.shown()} (schema {schema}): no sessions stored here; "
    listed = run("validate", db.url(), "--pg-schema", schema, "--json")
    assert listed.status == 2
    document = listed.json()
    assert document["valid"] is False and document["status"] == 2
    (item,) = document["sessions"]
    assert item["status"] == "unreadable" and "no sessions stored here" in item["error"]["message"]
    assert "--pg-schema" in item["error"]["message"]
    for command in (["validate"], ["repair"], ["inspect"], ["convert", str(tmp_path / "out")]):
        nothing = run(command[0], db.url(), *command[1:], "--pg-schema", schema)
        assert nothing.status == 2, command
        (line,) = nothing.error_lines
        assert line.startswith(f"dsh-session: error: {db.shown()} (schema {schema}): no sessions stored here")
        if command[0] != "inspect":
            assert line.startswith(said) and line.endswith("(check --pg-schema)"), line
    assert not (tmp_path / "out").exists()
    assert not db.has_schema(schema)
    assert db.state() == before


def test_an_empty_schema_is_an_empty_store(db: Db, tmp_path: Path) -> None:
    schema = new_schema()
    PostgresBackend(db.dsn(), schema=schema).close()  # makes the layout, no session
    listed = ok(run("validate", db.url(), "--pg-schema", schema, "--json"))
    assert listed.json() == {"valid": True, "status": 0, "rules": "seed", "invariants": False, "sessions": []}
    repaired = ok(run("repair", db.url(), "--pg-schema", schema, "--json"))
    assert repaired.json()["checked"] == 0 and repaired.json()["sessions"] == []
    copied = run("convert", db.url(), str(tmp_path / "out"), "--pg-schema", schema)
    assert copied.status == 2
    assert copied.error_lines == [
        f"dsh-session: error: {db.shown()} (schema {schema}): nothing to copy: the store holds no "
        f"session; {tmp_path / 'out'} was not touched"
    ]
    assert not (tmp_path / "out").exists()


def test_a_refused_fork_makes_no_schema(db: Db, tmp_path: Path) -> None:
    case_dir = copy_case("forked-child-at-turn-boundary-cwd", tmp_path)
    root = tmp_path / "root"
    ok(run("convert", str(case_dir / "log.json"), str(root)))
    schema = new_schema()
    before = db.state()
    refusals = [
        (["--boundary", "40"], "[OPEN_TURN]"),
        (["--child", "parent-session-7"], "[SESSION_ALREADY_EXISTS]"),
    ]
    for args, code in refusals:
        ran = run("fork", str(root), *args, "--to", db.url(), "--to-pg-schema", schema)
        assert ran.status == 2
        (line,) = ran.error_lines
        assert line.endswith(code), line
        assert not db.has_schema(schema)
    assert db.state() == before
    to = ["--to", db.url(), "--to-pg-schema", schema]
    made = ok(run("fork", str(root), "--boundary", "41", *to, "--json"))
    assert made.json()["child"] == "parent-session-7-fork-1" and db.has_schema(schema)
    taken = run("fork", str(root), "--boundary", "40", "--child", "parent-session-7-fork-1", *to)
    assert taken.status == 2
    (line,) = taken.error_lines
    assert line.endswith("[SESSION_ALREADY_EXISTS]") and "choose another --child" in line, line


def test_forking_reads_the_parent_and_writes_only_the_child(db: Db, tmp_path: Path) -> None:
    folder = copy_case("tool-calls-parallel-multistep-cwd", tmp_path)
    schema, elsewhere = new_schema(), new_schema()
    ok(run("convert", str(folder / "jsonl"), db.url(), "--to-pg-schema", schema))
    parent = session_id(folder)
    rows_before = pg_event_rows(db, schema)
    here = ok(run("fork", db.url(), "--pg-schema", schema, "--json"), db.server.password)
    child = here.json()["child"]
    assert child == f"{parent}-fork-1" and here.json()["store"] == db.shown()
    rows = pg_event_rows(db, schema)
    assert [row for row in rows if row[0] == parent] == rows_before
    boundary = here.json()["boundary"]
    assert [row[1:] for row in rows if row[0] == child] == [row[1:] for row in rows_before[: boundary + 1]]
    away = ok(
        run(
            "fork",
            db.url(),
            "--pg-schema",
            schema,
            "--id",
            parent,
            "--to",
            db.url(),
            "--to-pg-schema",
            elsewhere,
            "--child",
            "away",
            "--json",
        )
    )
    assert away.json()["header"]["parentSession"] == parent
    assert [row[0] for row in db.sql(f"SELECT id FROM {quote_ident(elsewhere)}.sessions")] == ["away"]
    assert pg_event_rows(db, schema) == rows


# -- the backend's read-only mode, which the readers above use ------------------------------------------


def test_a_read_only_backend_cannot_write_and_makes_no_schema(db: Db) -> None:
    schema = new_schema()
    reader = PostgresBackend(db.dsn(), schema=schema, read_only=True)
    try:
        assert reader.list() == ()
        assert not db.has_schema(schema)
    finally:
        reader.close()
    folder_rows = sqlite_rows(database("crash-sqlite-open-turn-after-compaction"))
    put_rows(db, schema, *folder_rows)
    before = db.state()
    (sid,) = {row[0] for row in folder_rows[1]}
    stored, closers, _ = CRASH["crash-sqlite-open-turn-after-compaction"]
    with PostgresBackend(db.dsn(), schema=schema, read_only=True) as reader:
        loaded = reader.load(sid)  # what a load returns, the repair not stored
        assert len(loaded.events) == stored + closers
        reader.append(sid, [])  # nothing to write: allowed
        note = Event("todo/write", len(loaded.events), loaded.events[-1].time, {"value": 1})
        with pytest.raises(StoreIOError) as refused:
            reader.append(sid, [note])
        assert refused.value.code is Code.STORE_IO and "read_only" in str(refused.value)
        # The server itself refuses a write on the reader's connection.
        connection = reader._conn
        assert connection is not None
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            connection.execute(f"DELETE FROM {quote_ident(schema)}.events")
    assert db.state() == before


# -- bad locations: one line, exit status 2, the code, no password ---------------------------------------


def _commands(location: str, schema: list[str], tmp: Path, source: Path) -> list[list[str]]:
    """Every command on ``location`` (``schema``: its ``--pg-schema`` option, or nothing)."""
    to_schema = ["--to-pg-schema", *schema[1:]] if schema else []
    return [
        ["validate", location, *schema],
        ["derive", location, *schema],
        ["surface", location, *schema],
        ["inspect", location, *schema],
        ["repair", location, "--dry-run", *schema],
        ["repair", location, *schema],
        ["fork", location, *schema],
        ["fork", str(source), "--to", location, *to_schema],
        ["convert", location, str(tmp / "out.db"), *schema],
        ["convert", str(source), location, *to_schema],
    ]


@pytest.mark.parametrize("problem", ["unreachable", "wrong password", "foreign schema"])
def test_a_bad_location_fails_in_one_line_with_its_code(problem: str, db: Db, tmp_path: Path) -> None:
    source = copy_case("single-turn-text-cwd", tmp_path) / "jsonl"
    wrong = "not-" + secrets.token_hex(8)
    schema: list[str] = []
    if problem == "unreachable":
        location, code = db.url(password=wrong, port=closed_port()), Code.STORE_UNREACHABLE
    elif problem == "wrong password":
        location, code = db.url(password=wrong), Code.STORE_AUTH_FAILED
    else:
        location, code = db.url(), Code.STORE_SCHEMA_MISMATCH
        foreign = new_schema()
        db.sql(f"CREATE SCHEMA {foreign}")
        db.sql(f"CREATE TABLE {foreign}.accounts (id integer PRIMARY KEY, owner text)")
        db.sql(f"INSERT INTO {foreign}.accounts VALUES (1, 'someone')")
        schema = ["--pg-schema", foreign]
    before = db.state()
    for command in _commands(location, schema, tmp_path, source):
        ran = run(*command)
        assert ran.status == 2, (command, ran.stdout, ran.stderr)
        assert ran.stdout == ""
        (line,) = ran.error_lines
        assert line.startswith("dsh-session: error: ") and line.endswith(f"[{code}]"), line
        assert wrong not in line and db.server.password not in line
        assert "Traceback" not in ran.stderr
        assert isinstance(ran.exception, SystemExit)
    assert not (tmp_path / "out.db").exists()
    assert db.state() == before


def test_locations_of_the_wrong_kind_are_refused_in_one_line(db: Db, tmp_path: Path) -> None:
    folder = copy_case("single-turn-text-cwd", tmp_path)
    cases = [
        (
            ["inspect", db.url(), "--backend", "sqlite"],
            f"{db.shown()} is a postgres location, not one of kind sqlite",
        ),
        (["inspect", str(folder / "jsonl"), "--pg-schema", "x"], "applies to a PostgreSQL location only"),
        (
            ["convert", str(folder / "jsonl"), str(tmp_path / "x.db"), "--to-pg-schema", "x"],
            "applies to a PostgreSQL location only",
        ),
        (
            ["fork", str(folder / "jsonl"), "--to-pg-schema", "x"],
            "--to-pg-schema names the schema of --to DST",
        ),
        (["inspect", db.url(), "--pg-schema", ""], "schema must be a PostgreSQL name"),
        (
            ["inspect", "host=db password=hunter2 'oops", "--backend", "postgres"],
            "password=*** 'oops: dsn does not",
        ),
        (
            ["inspect", "host=db password=hunter2 'oops"],
            "host=db password=*** 'oops: no such file or directory",
        ),
    ]
    for command, wanted in cases:
        ran = run(*command)
        assert ran.status == 2, (command, ran.stderr)
        (line,) = ran.error_lines
        assert wanted in line, line
        assert db.server.password not in line and "hunter2" not in line
    assert not (tmp_path / "x.db").exists()


# -- showing a location ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("location", "shown"),
    [
        ("postgresql://dsh:s3cret@db:5432/sessions", "postgresql://dsh:***@db:5432/sessions"),
        (
            "postgres://dsh:p%40ss@db/sessions?sslmode=require",
            "postgres://dsh:***@db/sessions?sslmode=require",
        ),
        (
            "postgresql://dsh@db/sessions?password=s3cret&sslpassword=k",
            "postgresql://dsh@db/sessions?password=***&sslpassword=***",
        ),
        ("postgresql://db/sessions", "postgresql://db/sessions"),
        ("host=db password=s3cret dbname=x", "host=db password=*** dbname=x"),
        ("host=db password = 'a \\' b' user=u", "host=db password = *** user=u"),
        ("host=db sslpassword=k", "host=db sslpassword=***"),
        ("/srv/sessions.db", "/srv/sessions.db"),
    ],
)
def test_a_location_is_shown_without_its_password(location: str, shown: str) -> None:
    assert redact(location) == shown


@pytest.mark.parametrize(
    ("location", "is_one"),
    [
        ("host=db dbname=sessions", True),
        ("host='db one' port=5432 user=dsh password='x y'", True),
        ("service=sessions", True),
        ("sessions", False),
        ("sessions.db", False),
        ("host=db colour=blue", False),
        ("", False),
        ("a=b", False),
    ],
)
def test_what_reads_as_a_connection_string(location: str, is_one: bool) -> None:
    assert is_conninfo(location) is is_one

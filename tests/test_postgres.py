"""The PostgreSQL backend's own mechanics: the schema and its version marker, bad input
(unreachable server, wrong credentials, foreign schemas, dropped connections), and
concurrent writers in several processes.

The backend contract itself runs against PostgreSQL in ``test_persistence_contract``
(``tests/backends.py``); these tests use the same throwaway server (``tests/pg_server.py``).
"""

from __future__ import annotations

import random
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench.w1_log import w1_log
from dsh_session import (
    Code,
    ConnectionLostError,
    Event,
    IncompatibleStoreError,
    PostgresBackend,
    Replace,
    Session,
    SessionHeader,
    SessionNotFoundError,
    SqliteBackend,
    StoreAuthError,
    StoredSession,
    StoreIOError,
    StoreLockedError,
    StoreUnreachableError,
    UnrepresentableError,
)
from dsh_session.event import payload_text
from dsh_session.persistence import POSTGRES_SCHEMA_VERSION
from dsh_session.persistence import postgres as postgres_module
from dsh_session.persistence._bulk import rows_run
from dsh_session.persistence.postgres_schema import quote_ident
from tests.backends import ENVS, PostgresTamper
from tests.crash_writer import SESSION, TURNS, open_backend
from tests.logs import LogBuilder, header, one_turn_log
from tests.pg_server import PgServer
from tests.test_crash import ROUNDS, prefix_length, run_and_kill

Rows = list[tuple[Any, ...]]


def new_schema() -> str:
    return "t_" + secrets.token_hex(8)


def sql(server: PgServer, statement: str, *args: object, dbname: str | None = None) -> Rows:
    """Run one statement as the server's superuser, outside any backend."""
    dsn = server.dsn() if dbname is None else server.dsn(dbname=dbname)
    with psycopg.connect(dsn, autocommit=True) as conn:
        return run(conn, statement, *args)


def run(conn: psycopg.Connection[Any], statement: str, *args: object) -> Rows:
    with conn.cursor() as cursor:
        cursor.execute(statement, args)
        return list(cursor.fetchall()) if cursor.description else []


def catalog(server: PgServer, schema: str) -> object:
    """Everything in a schema: its objects, columns, functions, comment and every table's rows."""
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        objects = run(
            conn,
            "SELECT c.relname, c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s ORDER BY 1",
            schema,
        )
        columns = run(
            conn,
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = %s ORDER BY 1, ordinal_position",
            schema,
        )
        procs = run(
            conn,
            "SELECT proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = %s",
            schema,
        )
        comment = run(
            conn, "SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = %s", schema
        )
        rows = {
            name: run(conn, f"SELECT * FROM {quote_ident(schema)}.{quote_ident(str(name))} ORDER BY 1")
            for name, kind in objects
            if kind == "r"
        }
    return objects, columns, procs, comment, rows


@pytest.fixture
def schema() -> str:
    return new_schema()


@pytest.fixture
def opened(postgres_server: PgServer, schema: str) -> Iterator[Callable[..., PostgresBackend]]:
    made: list[PostgresBackend] = []

    def open_backend(**options: Any) -> PostgresBackend:
        backend = PostgresBackend(postgres_server.dsn(), schema=options.pop("schema", schema), **options)
        made.append(backend)
        return backend

    yield open_backend
    for backend in made:
        backend.close()


# -- the schema and its version marker --------------------------------------------------------


def test_a_fresh_schema_gets_the_layout_and_its_version_marker(
    postgres_server: PgServer, opened: Callable[..., PostgresBackend], schema: str
) -> None:
    opened()
    assert POSTGRES_SCHEMA_VERSION == 1
    assert sql(postgres_server, f"SELECT layout, version FROM {schema}.meta") == [("dsh-session", 1)]
    tables = sql(
        postgres_server,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = %s ORDER BY 1",
        schema,
    )
    assert tables == [("events",), ("meta",), ("sessions",)]
    (comment,) = sql(
        postgres_server,
        "SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = %s",
        schema,
    )[0]
    assert comment == "dsh-session store, layout version 1"


def test_events_are_stored_as_the_sqlite_backend_stores_them(
    postgres_server: PgServer, opened: Callable[..., PostgresBackend], schema: str, tmp_path: Path
) -> None:
    log = LogBuilder()
    log.turn_start()
    log.user("a")
    log.user("b")
    log.add(
        "user/message",
        {"content": [{"type": "text", "text": "sum é 😀 \u2028"}], "n": [0.1, 1e21, -0.0, 2**53, True, None]},
        surface_op=Replace(1, 2),
        source_event_seqs=[1, 2],
    )
    log.add("todo/write", {"2": "a", "1": "b", "x": "\x00 \ud800"})
    log.turn_end()
    first = header("s", cwd="/w", seed_length=0, parent_session="p")
    backend = opened()
    backend.create(first)
    backend.append("s", log.events)
    with SqliteBackend(tmp_path / "s.db") as lite:
        lite.create(first)
        lite.append("s", log.events)
    conn = sqlite3.connect(tmp_path / "s.db")
    try:
        lite_events = conn.execute(
            "SELECT seq, type, time, data, source_event_seqs, surface_op FROM events ORDER BY seq"
        ).fetchall()
        lite_sessions = conn.execute("SELECT * FROM sessions").fetchall()
    finally:
        conn.close()
    rows = sql(
        postgres_server,
        f"SELECT e.seq, e.type, e.time, e.data, e.source_event_seqs, e.surface_op FROM {schema}.events e "
        f"JOIN {schema}.sessions s USING (sid) WHERE s.id = 's' ORDER BY seq",
    )
    assert rows == lite_events
    assert rows[3][4:] == ("[1,2]", '{"op":"replace","start":1,"end":2}')
    assert (
        sql(
            postgres_server,
            f"SELECT id, version, created_at, cwd, parent_session, seed_length FROM {schema}.sessions",
        )
        == lite_sessions
    )


def test_an_empty_existing_schema_is_initialised(
    postgres_server: PgServer, opened: Callable[..., PostgresBackend], schema: str
) -> None:
    sql(postgres_server, f"CREATE SCHEMA {schema}")
    backend = opened()
    backend.create(header("s"))
    backend.append("s", one_turn_log())
    assert [h.id for h in opened().list()] == ["s"]


def test_an_odd_schema_name_is_quoted(opened: Callable[..., PostgresBackend]) -> None:
    name = 'My "odd" schema; DROP TABLE x'
    backend = opened(schema=name)
    backend.create(header("s"))
    backend.append("s", one_turn_log())
    assert list(opened(schema=name).load("s").events) == one_turn_log()


@pytest.mark.parametrize("bad", ["", "x" * 64, "a\x00b"])
def test_a_schema_name_postgres_cannot_hold_is_refused(postgres_server: PgServer, bad: str) -> None:
    with pytest.raises(ValueError, match="schema"):
        PostgresBackend(postgres_server.dsn(), schema=bad)


def test_a_schema_of_another_layout_version_is_refused_and_left_untouched(
    postgres_server: PgServer, opened: Callable[..., PostgresBackend], schema: str
) -> None:
    backend = opened()
    backend.create(header("s"))
    backend.append("s", one_turn_log())
    backend.close()
    sql(postgres_server, f"UPDATE {schema}.meta SET version = 2")
    before = catalog(postgres_server, schema)
    with pytest.raises(IncompatibleStoreError) as raised:
        opened()
    assert raised.value.code is Code.STORE_SCHEMA_MISMATCH
    assert "layout version 2" in str(raised.value)
    assert f"127.0.0.1:{postgres_server.port}/postgres" in str(raised.value)
    assert schema in str(raised.value)
    assert catalog(postgres_server, schema) == before


FOREIGN = {
    "a foreign table": ["CREATE TABLE {s}.accounts (id int PRIMARY KEY)"],
    "a meta table of another layout": [
        "CREATE TABLE {s}.meta (layout text NOT NULL, version integer NOT NULL, "
        "CONSTRAINT meta_pkey PRIMARY KEY (layout))",
        "INSERT INTO {s}.meta VALUES ('someone-else', 1)",
    ],
    "a meta table of other columns": ["CREATE TABLE {s}.meta (k text, v text)"],
    "a function only": ["CREATE FUNCTION {s}.f() RETURNS int LANGUAGE sql AS 'SELECT 1'"],
    "a type only": ["CREATE TYPE {s}.mood AS ENUM ('ok')"],
    "an extra column": ["ALTER TABLE {s}.events ADD COLUMN note text"],
    "an extra index": ["CREATE INDEX events_time ON {s}.events (time)"],
    "an extra table": ["CREATE TABLE {s}.notes (x int)"],
    "a missing constraint": ["ALTER TABLE {s}.events DROP CONSTRAINT events_sid_fkey"],
    "a changed column type": ["ALTER TABLE {s}.events ALTER COLUMN time TYPE numeric"],
    "a view": ["CREATE VIEW {s}.recent AS SELECT 1 AS x"],
}


@pytest.mark.parametrize("case", sorted(FOREIGN))
def test_a_foreign_schema_is_refused_and_left_untouched(
    postgres_server: PgServer, opened: Callable[..., PostgresBackend], schema: str, case: str
) -> None:
    statements = FOREIGN[case]
    if "{s}.events" in statements[0] or "{s}.notes" in statements[0] or "{s}.recent" in statements[0]:
        opened().close()  # start from a store of ours
    else:
        sql(postgres_server, f"CREATE SCHEMA {schema}")
    for statement in statements:
        sql(postgres_server, statement.replace("{s}", schema))
    before = catalog(postgres_server, schema)
    with pytest.raises(IncompatibleStoreError) as raised:
        opened()
    assert raised.value.code is Code.STORE_SCHEMA_MISMATCH
    assert "left untouched" in str(raised.value)
    assert catalog(postgres_server, schema) == before


def test_concurrent_openers_of_a_fresh_schema_make_one_layout(postgres_server: PgServer, schema: str) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def open_one() -> None:
        start.wait()
        try:
            PostgresBackend(postgres_server.dsn(), schema=schema).close()
        except BaseException as error:  # collected and re-raised below
            errors.append(error)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sql(postgres_server, f"SELECT layout, version FROM {schema}.meta") == [("dsh-session", 1)]


# -- bad input -------------------------------------------------------------------------------


def test_an_unreachable_server_is_named_without_the_password(postgres_server: PgServer) -> None:
    dsn = postgres_server.dsn(port=1, password="s3cret-pw")
    with pytest.raises(StoreUnreachableError) as raised:
        PostgresBackend(dsn)
    error = raised.value
    assert error.code is Code.STORE_UNREACHABLE
    assert error.server == "postgresql://dsh@127.0.0.1:1/postgres" == error.path
    assert error.server in str(error)
    assert "s3cret-pw" not in str(error) and "s3cret-pw" not in repr(vars(error))
    assert error.__cause__ is None and error.__suppress_context__


def test_an_unknown_database_is_unreachable(postgres_server: PgServer) -> None:
    with pytest.raises(StoreUnreachableError) as raised:
        PostgresBackend(postgres_server.dsn(dbname="no_such_db"))
    assert raised.value.code is Code.STORE_UNREACHABLE
    assert "/no_such_db" in str(raised.value) and "does not exist" in str(raised.value)


@pytest.mark.parametrize("who", ["wrong password", "unknown role"])
def test_wrong_credentials_are_refused_naming_the_server_not_the_password(
    postgres_server: PgServer, who: str
) -> None:
    options = {"password": "not-the-password"} if who == "wrong password" else {"user": "ghost"}
    with pytest.raises(StoreAuthError) as raised:
        PostgresBackend(postgres_server.dsn(**options))
    error = raised.value
    assert error.code is Code.STORE_AUTH_FAILED
    assert f"127.0.0.1:{postgres_server.port}/postgres" in str(error)
    assert "not-the-password" not in str(error)
    assert postgres_server.password not in str(error)


def test_a_dsn_that_does_not_parse_is_refused_without_echoing_it(postgres_server: PgServer) -> None:
    with pytest.raises(ValueError) as raised:
        PostgresBackend("host=x password=hunter2 this is not a dsn")
    assert "hunter2" not in str(raised.value)


def test_a_database_not_in_utf8_is_refused(postgres_server: PgServer) -> None:
    name = "latin_" + secrets.token_hex(4)
    sql(
        postgres_server,
        f"CREATE DATABASE {name} ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0",
    )
    try:
        with pytest.raises(UnrepresentableError) as raised:
            PostgresBackend(postgres_server.dsn(dbname=name))
        assert raised.value.code is Code.STORE_UNREPRESENTABLE
        assert "LATIN1" in str(raised.value)
    finally:
        sql(postgres_server, f"DROP DATABASE {name}")


def test_text_a_postgres_column_cannot_hold_is_refused(opened: Callable[..., PostgresBackend]) -> None:
    backend = opened()
    for bad in (
        header("a\x00b"),
        header("a\ud800"),
        header("s", cwd="/x\x00"),
        header("s", parent_session="\udc00"),
    ):
        with pytest.raises(UnrepresentableError) as raised:
            backend.create(bad)
        assert raised.value.code is Code.STORE_UNREPRESENTABLE
    backend.create(header("s"))
    with pytest.raises(UnrepresentableError):
        backend.append("s", [Event("odd\x00", 0, 1, {})])
    backend.append("s", [Event("odd", 0, 1, {"text": "\x00 and \ud800 are fine inside JSON"})])
    assert opened().load("s").events[0].data == {"text": "\x00 and \ud800 are fine inside JSON"}


def test_a_role_without_privileges_gets_a_clear_error(postgres_server: PgServer, schema: str) -> None:
    role = "weak_" + secrets.token_hex(4)
    sql(postgres_server, f"CREATE ROLE {role} LOGIN PASSWORD 'weak-pw'")
    try:
        with pytest.raises(StoreIOError) as raised:
            PostgresBackend(postgres_server.dsn(user=role, password="weak-pw"), schema=schema)
        assert raised.value.code is Code.STORE_IO
        assert "42501" in str(raised.value) and "grant" in str(raised.value)
        assert sql(postgres_server, "SELECT 1 FROM pg_namespace WHERE nspname = %s", schema) == []
    finally:
        sql(postgres_server, f"DROP ROLE {role}")


def test_a_writer_held_past_lock_timeout_gets_store_locked(
    postgres_server: PgServer, opened: Callable[..., PostgresBackend], schema: str
) -> None:
    events = one_turn_log(turns=2)
    backend = opened(lock_timeout=0.2)
    backend.create(header("s"))
    backend.append("s", events[:6])
    with psycopg.connect(postgres_server.dsn()) as holder:  # a transaction holds the session's row
        holder.execute(f"SELECT 1 FROM {schema}.sessions WHERE id = 's' FOR UPDATE")
        with pytest.raises(StoreLockedError) as raised:
            backend.append("s", events[6:])
        assert raised.value.code is Code.STORE_LOCKED
        assert "'s'" in str(raised.value)
        holder.rollback()
    backend.append("s", events[6:])
    assert list(opened().load("s").events) == events


def backend_pid(backend: PostgresBackend) -> int:
    conn = backend._conn
    assert conn is not None
    return int(conn.info.backend_pid)


def terminate(server: PgServer, pid: int) -> None:
    assert sql(server, "SELECT pg_terminate_backend(%s)", pid) == [(True,)]
    deadline = time.monotonic() + 10
    while sql(server, "SELECT 1 FROM pg_stat_activity WHERE pid = %s", pid) and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_connection_dropped_between_calls_is_replaced_silently(
    postgres_server: PgServer, opened: Callable[..., PostgresBackend]
) -> None:
    events = one_turn_log(turns=2)
    backend = opened()
    backend.create(header("s"))
    backend.append("s", events[:6])
    terminate(postgres_server, backend_pid(backend))
    assert [h.id for h in backend.list()] == ["s"]
    terminate(postgres_server, backend_pid(backend))
    backend.append("s", events[6:])
    assert list(opened().load("s").events) == events


def test_a_connection_dropped_mid_append_leaves_no_half_batch(
    postgres_server: PgServer, opened: Callable[..., PostgresBackend], schema: str
) -> None:
    """The append is stopped inside its COPY (it waits for a row another transaction holds),
    with 3 of its 6 rows sent, and its server process is terminated."""
    events = one_turn_log(turns=2)
    backend = opened()
    backend.create(header("s"))
    backend.append("s", events[:6])
    (sid,) = sql(postgres_server, f"SELECT sid FROM {schema}.sessions WHERE id = 's'")[0]
    pid = backend_pid(backend)
    outcome: list[BaseException] = []

    def append() -> None:
        try:
            backend.append("s", events[6:])
        except BaseException as error:  # inspected below
            outcome.append(error)

    with psycopg.connect(postgres_server.dsn()) as holder:
        holder.execute(
            f"INSERT INTO {schema}.events (sid, seq, type, time, data) VALUES (%s, 9, 'x', 0, '{{}}')", (sid,)
        )
        writer = threading.Thread(target=append)
        writer.start()
        deadline = time.monotonic() + 10
        waiting = False
        while time.monotonic() < deadline and not waiting:
            waiting = bool(
                sql(
                    postgres_server,
                    "SELECT 1 FROM pg_stat_activity WHERE pid = %s AND wait_event_type = 'Lock'",
                    pid,
                )
            )
            time.sleep(0.01)
        assert waiting, "the append never reached the held row"
        terminate(postgres_server, pid)
        writer.join(10)
        holder.rollback()
    assert len(outcome) == 1
    error = outcome[0]
    assert isinstance(error, ConnectionLostError)
    assert error.code is Code.STORE_CONNECTION_LOST
    assert error.committed is False and error.session_id == "s"
    assert f"127.0.0.1:{postgres_server.port}" in str(error) and "'s'" in str(error)
    assert sql(postgres_server, f"SELECT count(*) FROM {schema}.events WHERE sid = %s", sid) == [(6,)]
    backend.append("s", events[6:])  # the same instance reconnects and goes on
    assert list(opened().load("s").events) == events


def drop_during_commit(backend: PostgresBackend, server: PgServer, *, commit: bool) -> None:
    """Make the backend's next commit lose its connection -- after committing, or before."""

    def commit_then_drop(conn: Any) -> None:
        if commit:
            conn.execute("COMMIT")
        terminate(server, int(conn.info.backend_pid))
        conn.close()
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    backend._commit = commit_then_drop  # type: ignore[method-assign]


def test_a_batch_whose_commit_went_through_before_the_drop_is_acknowledged(
    postgres_server: PgServer, opened: Callable[..., PostgresBackend]
) -> None:
    events = one_turn_log(turns=2)
    backend = opened()
    backend.create(header("s"))
    backend.append("s", events[:6])
    drop_during_commit(backend, postgres_server, commit=True)
    backend.append("s", events[6:])  # read back after reconnecting: it is stored
    del backend._commit
    assert list(opened().load("s").events) == events
    more = Session("s", seed=events).append("turn/start", {"turn": 3})
    backend.append("s", [more])
    assert len(opened().load("s").events) == 14


def test_a_batch_lost_with_the_commit_is_reported_not_written(
    postgres_server: PgServer, opened: Callable[..., PostgresBackend]
) -> None:
    events = one_turn_log(turns=2)
    backend = opened()
    backend.create(header("s"))
    backend.append("s", events[:6])
    drop_during_commit(backend, postgres_server, commit=False)
    with pytest.raises(ConnectionLostError) as raised:
        backend.append("s", events[6:])
    assert raised.value.committed is False
    assert "nothing was written" in str(raised.value)
    del backend._commit
    assert list(opened().load("s").events) == events[:6]
    backend.append("s", events[6:])
    assert list(opened().load("s").events) == events


def test_a_commit_whose_outcome_cannot_be_learnt_says_so(
    postgres_server: PgServer, opened: Callable[..., PostgresBackend]
) -> None:
    events = one_turn_log(turns=2)
    backend = opened()
    backend.create(header("s"))
    backend.append("s", events[:6])
    drop_during_commit(backend, postgres_server, commit=True)
    backend._dsn = postgres_server.dsn(port=1)  # the server cannot be reached again
    with pytest.raises(ConnectionLostError) as raised:
        backend.append("s", events[6:])
    assert raised.value.committed is None
    assert "may or may not be stored" in str(raised.value)
    assert list(opened().load("s").events) == events  # it was, as it happens


def test_a_killed_writer_loses_no_acknowledged_event_and_leaves_no_half_batch(
    postgres_server: PgServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGKILL a writer at random points (its connection drops mid-transaction): what loads is
    every acknowledged batch, then nothing but whole batches and the crash closers."""
    monkeypatch.setenv("DSH_TEST_PG_DSN", postgres_server.dsn())
    events = w1_log(TURNS, SESSION)
    rng = random.Random("crash-postgres")
    for _round in range(ROUNDS):
        schema, seed = new_schema(), rng.randint(0, 10**6)
        # the schema stands where the file-based writers take a path
        acked = run_and_kill("postgres", Path(schema), seed, rng.randint(0, 25), rng.uniform(0, 0.004))
        batch_ends = {0}
        sizes, done = random.Random(seed), 0  # the writer's batches, drawn as it draws them
        while done < len(events):
            done = min(done + sizes.randint(1, 30), len(events))
            batch_ends.add(done)
        backend = open_backend("postgres", schema)
        try:
            loaded = list(backend.load(SESSION).events)
        except SessionNotFoundError:
            assert acked == 0
            continue
        finally:
            backend.close()
        stored = prefix_length(loaded, events)
        assert stored >= acked
        assert stored in batch_ends  # whole batches only
        again = open_backend("postgres", schema)
        assert list(again.load(SESSION).events) == loaded
        again.close()


def test_a_session_row_without_events_loads_as_on_sqlite(tmp_path: Path) -> None:
    env = ENVS["postgres"](tmp_path)
    lite_path = tmp_path / "s.db"
    try:
        for backend in (env.backend(), SqliteBackend(lite_path)):
            backend.create(header("s", cwd="/w"))
            backend.append("s", one_turn_log(turns=2))
            backend.close()
        tamper = env.tamper
        assert isinstance(tamper, PostgresTamper)
        loads: dict[str, list[StoredSession]] = {"postgres": [], "sqlite": []}
        for keep in (8, 0):
            tamper.keep_events("s", keep)
            with sqlite3.connect(lite_path) as conn:
                conn.execute("DELETE FROM events WHERE session_id = 's' AND seq >= ?", (keep,))
            loads["postgres"].append(env.backend().load("s"))
            with SqliteBackend(lite_path) as lite:
                loads["sqlite"].append(lite.load("s"))
        assert loads["postgres"] == loads["sqlite"]
        assert [e.type for e in loads["postgres"][0].events[-3:]] == [
            "turn/start",
            "user/message",
            "turn/end",
        ]
        assert loads["postgres"][1] == (header("s", cwd="/w"), ())
    finally:
        env.close_all()


# -- listing and indexes ------------------------------------------------------------------------


def test_listing_many_sessions(postgres_server: PgServer, opened: Callable[..., PostgresBackend]) -> None:
    backend = opened()
    ids = [f"s{n:04d}" for n in range(150)]
    for n, session_id in enumerate(reversed(ids)):
        backend.create(header(session_id, cwd=f"/w/{n % 7}"))
        backend.append(session_id, one_turn_log(session_id))
    listed = opened().list()
    assert [h.id for h in listed] == ids
    assert all(isinstance(h, SessionHeader) and h.cwd and h.cwd.startswith("/w/") for h in listed)


def test_loads_and_lookups_are_answered_from_the_keys(
    postgres_server: PgServer, opened: Callable[..., PostgresBackend], schema: str
) -> None:
    opened()
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as conn:
        conn.execute("SET enable_seqscan = off")  # an empty table: make the planner show its indexes
        conn.execute("SET enable_bitmapscan = off")
        plans = {
            query: "\n".join(row[0] for row in conn.execute(f"EXPLAIN {query}").fetchall())
            for query in (
                f"SELECT seq, data FROM {schema}.events WHERE sid = 1 ORDER BY seq",
                f"SELECT max(seq) FROM {schema}.events WHERE sid = 1",
                f"SELECT sid FROM {schema}.sessions WHERE id = 'x'",
            )
        }
    texts = list(plans.values())
    assert "events_pkey" in texts[0] and "Sort" not in texts[0]
    assert "events_pkey" in texts[1]
    assert "sessions_id_key" in texts[2]


# -- concurrent writers in several processes: tests/test_concurrent_writers.py (every durable backend)


def test_the_library_imports_without_psycopg() -> None:
    """psycopg is imported when the first PostgresBackend is made, not with the library."""
    import subprocess
    import sys

    code = "import sys, dsh_session; assert 'psycopg' not in sys.modules; print(dsh_session.PostgresBackend)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "PostgresBackend" in done.stdout


def test_a_load_takes_plain_rows_in_bulk_and_gives_what_the_row_scan_gives(
    opened: Callable[..., PostgresBackend], monkeypatch: pytest.MonkeyPatch
) -> None:
    events = w1_log(40, "s")  # 520 plain events: more than one run of rows
    backend = opened()
    backend.create(SessionHeader("s", 0))
    for start in range(0, len(events), 13):
        backend.append("s", events[start : start + 13])
    taken: list[int] = []

    def counted(admitter: Any, run: Any) -> Any:
        made = rows_run(admitter, run)
        taken.append(0 if made is None else len(made))
        return made

    monkeypatch.setattr(postgres_module, "rows_run", counted)
    bulk = opened(read_only=True).load("s")
    assert sum(taken) == len(events)  # every row came through the bulk path
    monkeypatch.setattr(postgres_module, "rows_run", lambda admitter, run: None)  # the row scan alone
    careful = opened(read_only=True).load("s")
    assert [e.to_json() for e in bulk.events] == [e.to_json() for e in careful.events]
    assert [payload_text(e) for e in bulk.events] == [payload_text(e) for e in careful.events] == [
        payload_text(e) for e in events
    ]

"""Persistence: the stores the reference wrote, crash repair on load, and the backend contract.

Artifacts (``conformance/artifacts``): JSONL roots and SQLite databases
(SQL text, and the binary ``.db`` files, of which one is loaded as such)
written by the TypeScript reference; see
``artifacts/README.md``. Loading what the reference wrote, and rejecting
what it rejects, is ``core``; the contract of ``persistence.md`` §6.1 is
``core`` for every backend; our stricter reading and writing
(``docs/deviations.md`` P2-P6) is ``strict``. Written files are compared
byte for byte (``runner.read``), database rows as stored text
(``runner.sql``).
"""

from __future__ import annotations

from typing import Any

from dsh_session.conformance.notation import *
from dsh_session.conformance.scenario import Act, Scenario, messages, reads, scenario
from dsh_spec import cwd_bucket, encode_segment
from dsh_spec.codes import Code

LOAD = "dsh_spec.storage.preserved_prefix"
SEED = "dsh_spec.validation.check_seed"
CLOSERS = "dsh_spec.repair.interrupted_turn_closers"
LAYOUT = "dsh_spec.storage.cwd_bucket"
CREATED = 1_767_225_600_000


# -- step builders ---------------------------------------------------------------------------


def open_(kind: str, path: Any = None, *, backend: str = "db", lock: float | None = None) -> Act:
    args: dict[str, Any] = {"backend": backend, "kind": kind}
    if path is not None:
        args["path"] = path
    if lock is not None:
        args["lockTimeout"] = lock
    return Act("persist.open", args)


def create(header: dict[str, Any], backend: str = "db") -> Act:
    return Act("persist.create", {"backend": backend, "header": header})


def write(session_id: str, events: list[Record], backend: str = "db") -> Act:
    return Act("persist.append", {"backend": backend, "id": session_id, "events": events})


def stored_session(session_id: str, events: list[Record], backend: str = "db", **fields: Any) -> list[Act]:
    """A session put into a backend: ``persist.create`` of ``header(session_id, **fields)``, then
    ``persist.append`` of ``events``."""
    return [create(header(session_id, **fields), backend), write(session_id, events, backend)]


def load(session_id: str, backend: str = "db", session: str | None = "s") -> Act:
    args: dict[str, Any] = {"backend": backend, "id": session_id}
    if session is not None:
        args["session"] = session
    return Act("persist.load", args)


def open_and_load(root: Any, *, backend: str = "db", fails: Code | None = None) -> list[Act]:
    """``backend`` opened on the JSONL store at ``root``, then session ``s`` loaded from it (refused
    with ``fails`` when that is given)."""
    loading = load("s", backend=backend)
    return [open_("jsonl", root, backend=backend), loading if fails is None else loading.fails(fails)]


def by_hand(root: Any, records: list[Record], text: str) -> list[Act]:
    """Session ``s`` (cwd ``/w``) stored with ``records`` in the JSONL store at ``root``, then
    ``text`` appended to its file behind the backend's back (a torn write, damage)."""
    return [open_("jsonl", root), *stored_session("s", records), put(root, log_file("s", "/w"), text)]


def listing(backend: str = "db") -> Act:
    return Act("persist.list", {"backend": backend})


def close(backend: str = "db") -> Act:
    return Act("persist.close", {"backend": backend})


def read(path: Any, file: str) -> Act:
    return Act("runner.read", {"path": path, "file": file})


def files(path: Any) -> Act:
    return Act("runner.files", {"path": path})


def put(path: Any, file: str, text: str, append: bool = True) -> Act:
    return Act("runner.write", {"path": path, "file": file, "text": text, "append": append})


def sql(path: Any, query: str) -> Act:
    return Act("runner.sql", {"path": path, "sql": query})


def lock(path: Any, file: str = "") -> Act:
    args = {"path": path}
    if file:
        args["file"] = file
    return Act("runner.lock", args)


def log_file(session_id: str, cwd: str | None) -> str:
    """Where the JSONL backend keeps a session (the spec's layout)."""
    segment = encode_segment(session_id)
    assert isinstance(segment, str)
    return f"{cwd_bucket(cwd)}/{segment}.jsonl"


def header(session_id: str = "s", cwd: str | None = "/w", **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"version": 0, "id": session_id, "createdAt": CREATED}
    if cwd is not None:
        out["cwd"] = cwd
    out.update(extra)
    return out


ROWS = "SELECT seq, type, time, data, source_event_seqs, surface_op FROM events ORDER BY session_id, seq"

# -- the reference's stores --------------------------------------------------------------------

#: (artifact case, session id, cwd, has JSONL, has SQLite)
VALID = [
    ("single-turn-text-cwd", "single-turn-text", "/home/dev/projects/harness"),
    ("tool-calls-parallel-multistep-cwd", "tool-calls-multistep", "/srv/app"),
    ("all-surface-types-no-cwd", "all-surface-types", None),
    ("multi-turn-reasoning-chunk-streams-cwd", "multi-turn-streams", "/home/dev/notebooks"),
    ("compaction-once-cwd", "compaction-once", "/repo"),
    ("compaction-twice-start-gt-end-no-cwd", "compaction-twice", None),
    ("compaction-failed-then-mid-turn", "compaction-mid-turn", "/home/ci/work"),
    ("request-header-snapshots-and-deltas-cwd", "request-headers", "/w"),
    ("todo-write-and-prompt-blocked-no-cwd", "todo-and-prompt-blocked", None),
    ("unicode-emoji-cjk-lone-surrogates", "会话/unicode~😀 1", "/home/用户/项目 ✨"),
    ("numbers-edge-values-no-cwd", "numbers-edge", None),
    ("previously-interrupted-turn-resumed-cwd", "previously-interrupted", "/srv/db"),
    ("forked-child-at-turn-boundary-cwd", "parent-session-7-fork-1", "/srv/repo"),
]

CRASH_JSONL = [
    (
        "crash-jsonl-torn-last-line-unanswered-toolcall",
        "crash-torn",
        "/home/ops",
        "a torn last line and an unanswered tool call",
    ),
    ("crash-jsonl-torn-turn-end-line", "crash-torn-turn-end", None, "its final turn/end line torn"),
    (
        "crash-jsonl-open-turn-unanswered-toolcalls-open-step",
        "crash-open-toolcalls",
        "/srv/deploy",
        "an open step with three tool calls, one answered",
    ),
    (
        "crash-jsonl-open-turn-after-compaction",
        "crash-after-compaction",
        None,
        "an open turn after a compaction",
    ),
]

CRASH_SQLITE = [
    (
        "crash-sqlite-open-turn-unanswered-toolcalls-open-step",
        "crash-open-toolcalls",
        "an open step with three tool calls, one answered",
    ),
    ("crash-sqlite-open-turn-after-compaction", "crash-after-compaction", "an open turn after a compaction"),
]


def reference_stores() -> list[Scenario]:
    out: list[Scenario] = []
    for case, session_id, cwd in VALID:
        root = {"$artifact": f"jsonl/{case}"}
        out.append(
            scenario(
                f"persistence.reference-jsonl-{case}",
                f"The reference's JSONL store {case} loads unchanged, with its surface and messages",
                (LOAD, SEED, LAYOUT, "docs/dialect-3fe196a751.md §P2", "docs/dialect-3fe196a751.md §P5"),
                "core",
                open_("jsonl", root),
                listing(),
                load(session_id),
                *reads(),
                read(root, log_file(session_id, cwd)),
            )
        )
        database = {"$artifact": f"sqlite/{case}.sql"}
        out.append(
            scenario(
                f"persistence.reference-sqlite-{case}",
                f"The reference's SQLite store {case} loads unchanged, with its surface and messages",
                (LOAD, SEED, "docs/dialect-3fe196a751.md §P3", "docs/dialect-3fe196a751.md §P5"),
                "core",
                open_("sqlite", database),
                listing(),
                load(session_id),
                *reads(),
                close(),
                sql(database, ROWS),
            )
        )
    out.append(
        scenario(
            "persistence.reference-sqlite-binary-file",
            "A database file the reference wrote (WAL mode) loads as its SQL dump does",
            (LOAD, "docs/dialect-3fe196a751.md §P3"),
            "core",
            open_("sqlite", {"$artifact": "sqlite/single-turn-text-cwd.db"}),
            load("single-turn-text"),
            *reads(),
        )
    )
    for case, session_id, cwd, what in CRASH_JSONL:
        root = {"$artifact": f"jsonl/{case}"}
        out.append(
            scenario(
                f"persistence.reference-jsonl-{case}",
                f"A JSONL log with {what} is cut and closed on load, durably and byte for byte",
                (
                    LOAD,
                    CLOSERS,
                    "dsh_spec.repair.closer_json",
                    "docs/dialect-3fe196a751.md §P5.3",
                    "docs/dialect-3fe196a751.md §PA",
                ),
                "core",
                open_("jsonl", root),
                load(session_id),
                *reads(),
                read(root, log_file(session_id, cwd)),
                open_("jsonl", root, backend="again"),
                load(session_id, backend="again", session="t"),
                read(root, log_file(session_id, cwd)),
            )
        )
    for case, session_id, what in CRASH_SQLITE:
        database = {"$artifact": f"sqlite/{case}.sql"}
        out.append(
            scenario(
                f"persistence.reference-sqlite-{case}",
                f"A SQLite log with {what} is closed on load, the closers stored as rows",
                (LOAD, CLOSERS, "docs/dialect-3fe196a751.md §P3.6", "docs/dialect-3fe196a751.md §P5.3"),
                "core",
                open_("sqlite", database),
                load(session_id),
                *reads(),
                close(),
                sql(database, ROWS),
                open_("sqlite", database, backend="again"),
                load(session_id, backend="again", session="t"),
            )
        )
    out += [
        scenario(
            "persistence.reference-jsonl-header-version-1",
            "A JSONL log whose header says version 1 is refused and left alone",
            (
                "docs/errors.md STORE_VERSION_UNSUPPORTED",
                "docs/dialect-3fe196a751.md §P2.6",
                "docs/dialect-3fe196a751.md §I3.2 S8",
            ),
            "core",
            open_("jsonl", {"$artifact": "jsonl/reject-jsonl-header-version-1"}),
            load("version-one").fails(Code.STORE_VERSION_UNSUPPORTED),
        ),
        scenario(
            "persistence.reference-jsonl-invalid-utf8-committed",
            "A committed JSONL line broken by an invalid UTF-8 byte is damage: the load is refused",
            (LOAD, "docs/errors.md STORE_CORRUPT", "docs/dialect-3fe196a751.md §I3.2 S9"),
            "core",
            open_("jsonl", {"$artifact": "jsonl/reject-jsonl-invalid-utf8-outside-string"}),
            load("bad-utf8-token").fails(Code.STORE_CORRUPT),
        ),
        scenario(
            "persistence.reference-jsonl-null-line",
            "A null line in the committed region is damage: STORE_CORRUPT, not a crash",
            (LOAD, "docs/deviations.md P3", "docs/dialect-3fe196a751.md §P7 B3"),
            "strict",
            open_("jsonl", {"$artifact": "jsonl/reject-jsonl-null-line-mid-file"}),
            load("null-line").fails(Code.STORE_CORRUPT),
        ),
        scenario(
            "persistence.reference-jsonl-invalid-utf8-before-torn-tail",
            "Invalid UTF-8 before a torn tail does not shift the cut: the repaired file loads again",
            (LOAD, "docs/deviations.md P3", "docs/dialect-3fe196a751.md §P7 B4"),
            "strict",
            open_("jsonl", {"$artifact": "jsonl/jsonl-invalid-utf8-before-torn-tail-offset-bug"}),
            load("utf8-torn"),
            messages(),
            open_(
                "jsonl",
                {"$artifact": "jsonl/jsonl-invalid-utf8-before-torn-tail-offset-bug"},
                backend="again",
            ),
            load("utf8-torn", backend="again", session="t"),
            read(
                {"$artifact": "jsonl/jsonl-invalid-utf8-before-torn-tail-offset-bug"},
                log_file("utf8-torn", "/w"),
            ),
        ),
    ]
    for case, what in (
        ("reject-sqlite-user-version-3-v4-tables", "stamped user_version 3"),
        ("reject-sqlite-user-version-5", "stamped user_version 5 (a newer build)"),
        ("reject-sqlite-user-version-3-sibling-surface-columns-layout", "of the sibling v3 layout"),
    ):
        database = {"$artifact": f"sqlite/{case}.sql"}
        # A later schema version is a later harness's database: told apart (deviations P7).
        later = case.endswith("-5")
        code = Code.STORE_VERSION_UNSUPPORTED if later else Code.STORE_SCHEMA_MISMATCH
        out.append(
            scenario(
                f"persistence.{case}",
                f"A database {what} is refused by the time a load is tried",
                (
                    f"docs/errors.md {code.name}",
                    "docs/dialect-3fe196a751.md §P3.2",
                    "docs/dialect-3fe196a751.md §P6.5 #11-12",
                    *(["docs/deviations.md P7"] if later else []),
                ),
                "strict" if later else "core",
                open_("sqlite", database).fails(code, lazy=1),
                load("uv3"),
            )
        )
        out.append(
            scenario(
                f"persistence.{case}-untouched",
                f"A database {what} is refused at open and left as it was",
                (
                    "docs/deviations.md P5",
                    "docs/dialect-3fe196a751.md §P7 B25",
                    "docs/dialect-3fe196a751.md §P7 B26",
                ),
                "strict",
                open_("sqlite", database).fails(code),
                sql(database, "PRAGMA user_version"),
                sql(database, "PRAGMA journal_mode"),
            )
        )
    return out


# -- the backend contract (dialect §P6.1, §P6.2) --------------------------------------------

CONTRACT = [TS(1), U("a"), SS(1, 1), A(1, 1), SE(1, 1), TE(1), TS(2), SS(2, 1)]


def where(kind: str) -> Any:
    if kind == "jsonl":
        return {"$scratch": "root"}
    if kind == "sqlite":
        return {"$scratch": "db", "file": "sessions.db"}
    return None


def contract() -> list[Scenario]:
    out: list[Scenario] = []
    events = log(*CONTRACT)
    closed = log(*CONTRACT[:6])
    for kind in ("memory", "jsonl", "sqlite"):
        path = where(kind)
        ref = ("docs/dialect-3fe196a751.md §P6.1", "dsh_session.SessionBackend")
        out += [
            scenario(
                f"persistence.{kind}-round-trip",
                f"{kind}: create and append, then load gives the header and events back (contract 1)",
                (*ref, "docs/dialect-3fe196a751.md §P6.1 #1"),
                "core",
                open_(kind, path),
                stored_session("s", closed),
                load("s"),
                *reads(),
            ),
            scenario(
                f"persistence.{kind}-open-turn-closed-on-load",
                f"{kind}: a stored open turn is closed on load and the log continues after the closers "
                "(contract 2)",
                (*ref, CLOSERS, "docs/dialect-3fe196a751.md §P6.1 #2"),
                "core",
                open_(kind, path),
                stored_session("s", events),
                load("s"),
                write("s", log(*CONTRACT, SE(2, 1), TE(2), TS(3), U("again"))[10:]),
                load("s", session="t"),
            ),
            scenario(
                f"persistence.{kind}-interrupted-tool-call",
                f"{kind}: an unanswered tool call gets a synthetic error result on load (contract 3)",
                (*ref, CLOSERS, "docs/dialect-3fe196a751.md §P6.1 #3"),
                "core",
                open_(kind, path),
                create(header()),
                write("s", log(TS(1), U("a"), SS(1, 1), ATC(1, 1, "call-x"), TC(1, 1, "call-x"))),
                load("s"),
                messages(),
            ),
            scenario(
                f"persistence.{kind}-list",
                f"{kind}: a session is listed once it has events, not before (contract 4, 5)",
                (*ref, "docs/dialect-3fe196a751.md §P6.1 #4", "docs/dialect-3fe196a751.md §P6.1 #5"),
                "core",
                open_(kind, path),
                create(header("b")),
                create(header("a", None)),
                listing().gives([]),
                write("b", closed),
                write("a", closed),
                listing(),
            ),
            scenario(
                f"persistence.{kind}-append-seq-mismatch",
                f"{kind}: a batch that does not continue the stored log is refused (contract 6)",
                (*ref, "docs/dialect-3fe196a751.md §P6.1 #6"),
                "core",
                open_(kind, path),
                stored_session("s", closed),
                write("s", closed).fails(Code.SEQ_NOT_CONTIGUOUS),
                load("s"),
            ),
            scenario(
                f"persistence.{kind}-append-gap-in-batch",
                f"{kind}: a batch with a seq gap is refused and nothing of it is stored (contract 7)",
                (*ref, "docs/dialect-3fe196a751.md §P6.1 #7"),
                "core",
                open_(kind, path),
                create(header()),
                write("s", [events[0], X(events[1], seq=2)]).fails(Code.SEQ_NOT_CONTIGUOUS),
                write("s", closed),
                load("s"),
            ),
            scenario(
                f"persistence.{kind}-append-non-json",
                f"{kind}: an event whose data is not JSON is refused (contract 8)",
                (*ref, "docs/dialect-3fe196a751.md §P6.1 #8"),
                "core",
                open_(kind, path),
                create(header()),
                write("s", [events[0], D(events[1], extra={"$nonjson": "infinity"})]).fails(
                    Code.NON_JSON_DATA
                ),
                listing().gives([]),
            ),
            scenario(
                f"persistence.{kind}-load-missing",
                f"{kind}: loading a session that was never stored is refused",
                (*ref, "docs/errors.md SESSION_NOT_FOUND", "docs/dialect-3fe196a751.md §P6.2 #24"),
                "core",
                open_(kind, path),
                load("nobody").fails(Code.SESSION_NOT_FOUND),
            ),
            scenario(
                f"persistence.{kind}-create-twice",
                f"{kind}: creating a tracked id again is refused",
                (*ref, "docs/errors.md SESSION_ALREADY_EXISTS", "docs/dialect-3fe196a751.md §P6.2 #25"),
                "core",
                open_(kind, path),
                create(header()),
                create(header()).fails(Code.SESSION_ALREADY_EXISTS),
            ),
            scenario(
                f"persistence.{kind}-lineage-round-trip",
                f"{kind}: parentSession and seedLength survive a round trip",
                (*ref, "docs/dialect-3fe196a751.md §P6.2 #2", "docs/dialect-3fe196a751.md §P6.2 #27"),
                "core",
                open_(kind, path),
                stored_session("child", closed, parentSession="parent", seedLength=6),
                load("child"),
                listing(),
            ),
            scenario(
                f"persistence.{kind}-append-empty-batch",
                f"{kind}: an empty batch for a created session writes nothing (coordinator contract 23)",
                (*ref, "docs/dialect-3fe196a751.md §P6.2 #23"),
                "core",
                open_(kind, path),
                stored_session("s", []),
                listing().gives([]),
            ),
            scenario(
                f"persistence.{kind}-empty-id",
                f"{kind}: a session with the empty id is refused at create",
                (
                    *ref,
                    "docs/errors.md INVALID_HEADER",
                    "docs/deviations.md P6",
                    "docs/dialect-3fe196a751.md §P7 B33",
                ),
                "strict",
                open_(kind, path),
                create(header("")).fails(Code.INVALID_HEADER),
            ),
            scenario(
                f"persistence.{kind}-version-refused-at-create",
                f"{kind}: a header of another format version is refused at create",
                (*ref, "docs/errors.md STORE_VERSION_UNSUPPORTED", "docs/deviations.md P2"),
                "strict",
                open_(kind, path),
                create(header(version=99)).fails(Code.STORE_VERSION_UNSUPPORTED),
            ),
            scenario(
                f"persistence.{kind}-append-unknown-empty",
                f"{kind}: an empty batch for an unknown session is refused",
                (*ref, "docs/deviations.md P6", "docs/dialect-3fe196a751.md §P7 B34"),
                "strict",
                open_(kind, path),
                write("nobody", []).fails(Code.SESSION_NOT_FOUND),
            ),
            scenario(
                f"persistence.{kind}-append-refuses-bad-event",
                f"{kind}: an event that breaks a rule of the log is refused before anything is stored",
                (*ref, "docs/deviations.md P2", "docs/dialect-3fe196a751.md §P7 B13"),
                "strict",
                open_(kind, path),
                create(header()),
                write("s", [events[0], X(events[1], surfaceOp=DROP)]).fails(Code.MISSING_SURFACE_OP),
                listing().gives([]),
            ),
            scenario(
                f"persistence.{kind}-closed",
                f"{kind}: a closed backend refuses every call",
                (*ref, "docs/errors.md STORE_CLOSED"),
                "strict",
                open_(kind, path),
                close(),
                load("s").fails(Code.STORE_CLOSED),
            ),
        ]
    for kind in ("jsonl", "sqlite"):
        out.append(
            scenario(
                f"persistence.{kind}-append-adopts-a-stored-session",
                f"{kind}: a backend that did not write a session appends to it, continuing its seq "
                "(coordinator contract 22)",
                (
                    "docs/dialect-3fe196a751.md §P6.1",
                    "docs/dialect-3fe196a751.md §P5.1",
                    "docs/dialect-3fe196a751.md §P6.2 #22",
                ),
                "core",
                open_(kind, where(kind)),
                stored_session("s", closed),
                open_(kind, where(kind), backend="again"),
                write("s", events[6:], backend="again"),
                load("s", backend="again"),
            )
        )
    return out


def jsonl_files() -> list[Scenario]:
    root = {"$scratch": "root"}
    file = log_file("s", "/w")
    closed = log(*CONTRACT[:6])
    numbers = D(
        U("n"), extra=[-0.0, 1e21, 1e-7, 0.1, 100.0, 5e-324, 2**53, {"b": 1, "10": 2, "2": 3}, "\ud800"]
    )
    return [
        scenario(
            "persistence.jsonl-bytes",
            "JSONL lines are JavaScript's JSON text: number forms, index keys first, lone surrogates escaped",
            (
                "dsh_spec.json_value.js_stringify",
                "docs/dialect-3fe196a751.md §P0.4",
                "docs/dialect-3fe196a751.md §P2.3",
                "docs/persistence.md",
            ),
            "core",
            open_("jsonl", root),
            create(header()),
            write("s", log(TS(1), numbers, X(U("r"), sourceEventSeqs=[1]))),
            read(root, file),
            files(root),
        ),
        scenario(
            "persistence.sqlite-rows",
            "SQLite rows hold JavaScript's JSON text, surface columns NULL when absent",
            ("dsh_spec.json_value.js_stringify", "docs/dialect-3fe196a751.md §P3.3", "docs/persistence.md"),
            "core",
            open_("sqlite", where("sqlite")),
            create(header()),
            write("s", log(TS(1), numbers, X(U("r"), sourceEventSeqs=[1]))),
            close(),
            sql(where("sqlite"), ROWS),
            sql(
                where("sqlite"),
                "SELECT id, version, created_at, cwd, parent_session, seed_length FROM sessions",
            ),
            sql(where("sqlite"), "PRAGMA user_version"),
        ),
        scenario(
            "persistence.jsonl-torn-tail-repaired",
            "A torn last line after the last turn/end is cut and the open turn closed (contract 29)",
            (LOAD, CLOSERS, "docs/dialect-3fe196a751.md §P6.2 #29", "docs/dialect-3fe196a751.md §P6.4 #7"),
            "core",
            by_hand(root, log(*CONTRACT), '{"type":"assistant/chunk","seq":8,"ti'),
            open_and_load(root, backend="again"),
            read(root, file),
            write("s", log(*CONTRACT, SE(2, 1), TE(2), TS(3), U("x"))[10:], backend="again"),
            open_("jsonl", root, backend="third"),
            load("s", backend="third", session="t"),
        ),
        scenario(
            "persistence.sqlite-unparsable-row-refused-not-cut",
            "A row that does not parse after the last turn/end is damage, not a torn tail: refused, "
            "nothing deleted",
            (LOAD, "docs/deviations.md P5", "docs/dialect-3fe196a751.md §P6.2 #29"),
            "strict",
            open_("sqlite", where("sqlite")),
            stored_session("s", log(*CONTRACT)),
            close(),
            sql(
                where("sqlite"),
                "INSERT INTO events VALUES ('s', 8, 'assistant/chunk', 99, '{not valid json', NULL, NULL)",
            ),
            open_("sqlite", where("sqlite"), backend="again"),
            load("s", backend="again").fails(Code.STORE_CORRUPT),
            close("again"),
            sql(where("sqlite"), ROWS),
        ),
        scenario(
            "persistence.jsonl-header-only",
            "A header with no event lines loads as an empty log",
            (LOAD, "docs/dialect-3fe196a751.md §P6.4 #20"),
            "core",
            put(root, file, '{"type":"session","version":0,"id":"s","createdAt":1767225600000,"cwd":"/w"}\n'),
            open_("jsonl", root),
            load("s"),
        ),
        scenario(
            "persistence.jsonl-empty-file",
            "An empty JSONL file has no header: STORE_CORRUPT",
            (
                LOAD,
                "docs/errors.md STORE_CORRUPT",
                "docs/dialect-3fe196a751.md §I3.2 S6",
                "docs/dialect-3fe196a751.md §P6.4 #14",
            ),
            "core",
            put(root, file, ""),
            open_and_load(root, fails=Code.STORE_CORRUPT),
        ),
        scenario(
            "persistence.jsonl-header-not-a-session",
            "A first line that is not a session header: STORE_CORRUPT",
            (LOAD, "docs/dialect-3fe196a751.md §I3.2 S7", "docs/dialect-3fe196a751.md §P6.4 #16"),
            "core",
            put(root, file, '{"type":"turn/start","seq":0}\n'),
            open_and_load(root, fails=Code.STORE_CORRUPT),
        ),
        scenario(
            "persistence.jsonl-gap-before-turn-end",
            "A seq gap before the last turn/end is damage: STORE_CORRUPT (persistence test 6.4 #18)",
            (LOAD, "docs/dialect-3fe196a751.md §P6.4 #18", "docs/dialect-3fe196a751.md §I3.2 S1"),
            "core",
            by_hand(
                root,
                log(*CONTRACT[:3]),
                '{"type":"step/end","seq":5,"time":1,"data":{"turn":1,"step":1}}\n'
                '{"type":"turn/end","seq":6,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}}\n',
            ),
            open_and_load(root, backend="again", fails=Code.STORE_CORRUPT),
        ),
        scenario(
            "persistence.jsonl-gap-after-turn-end",
            "A seq gap after the last turn/end is a torn tail: cut there (persistence test 6.4 #22)",
            (LOAD, "docs/dialect-3fe196a751.md §P6.4 #22"),
            "core",
            by_hand(root, closed, '{"type":"turn/start","seq":9,"time":1,"data":{"turn":2}}\n'),
            open_and_load(root, backend="again"),
            read(root, file),
        ),
        scenario(
            "persistence.jsonl-unparsable-before-turn-end",
            "A line that does not parse before the last turn/end is damage (persistence test 6.4 #19)",
            (LOAD, "docs/dialect-3fe196a751.md §P6.4 #19", "docs/dialect-3fe196a751.md §I3.2 S9"),
            "core",
            by_hand(
                root,
                log(*CONTRACT[:2]),
                'garbage\n{"type":"turn/end","seq":3,"time":1,"data":{"turn":1,"reason":{"kind":"x"}}}\n',
            ),
            open_and_load(root, backend="again", fails=Code.STORE_CORRUPT),
        ),
        scenario(
            "persistence.jsonl-marker-less-event-refused",
            "A stored surface event without its marker is refused on load with the seed's code",
            (LOAD, SEED, "docs/deviations.md P2", "docs/dialect-3fe196a751.md §P7 B13"),
            "strict",
            open_("jsonl", root),
            create(header()),
            write("s", log(TS(1))),
            put(
                root,
                file,
                '{"type":"user/message","seq":1,"time":1,"data":{"content":[],"source":{"kind":"user"}}}\n',
            ),
            open_and_load(root, backend="again", fails=Code.MISSING_SURFACE_OP),
        ),
        scenario(
            "persistence.jsonl-infinite-number-refused",
            "A number JSON.parse reads as Infinity is refused by the JSON rule, not taken for a torn line",
            (LOAD, "dsh_spec.json_value.canonical_json", "docs/deviations.md P3"),
            "strict",
            by_hand(root, closed, '{"type":"todo/write","seq":6,"time":1,"data":{"x":1e400}}\n'),
            open_and_load(root, backend="again", fails=Code.NON_JSON_DATA),
        ),
        scenario(
            "persistence.jsonl-integer-past-python-limits-refused",
            "An integer of 5000 digits is Infinity to JSON.parse: refused by the JSON rule, not a torn line",
            (LOAD, "dsh_spec.json_value.canonical_json", "docs/deviations.md P3"),
            "core",
            by_hand(root, closed, '{"type":"todo/write","seq":6,"time":1,"data":{"x":' + "7" * 5000 + "}}\n"),
            open_and_load(root, backend="again", fails=Code.NON_JSON_DATA),
        ),
        scenario(
            "persistence.jsonl-wide-integer-time-read-as-a-double",
            "A stored time of 2**53 + 1 is the double 2**53, as JSON.parse reads it: the event loads",
            (LOAD, "dsh_spec.persistence.js_parse"),
            "core",
            by_hand(root, closed, '{"type":"todo/write","seq":6,"time":9007199254740993,"data":{}}\n'),
            open_and_load(root, backend="again"),
        ),
        scenario(
            "persistence.jsonl-wide-integer-provenance-read-as-a-double",
            "A stored sourceEventSeqs entry of 2**53 + 1 is the double 2**53: an integer, not an earlier seq",
            (LOAD, SEED, "dsh_spec.persistence.js_parse"),
            "strict",
            by_hand(
                root,
                closed,
                '{"type":"user/message","seq":6,"time":1,"data":{"content":[],"source":{"kind":"user"}},'
                '"sourceEventSeqs":[9007199254740993],"surfaceOp":"append"}\n',
            ),
            open_and_load(root, backend="again", fails=Code.PROVENANCE_NOT_EARLIER),
        ),
        scenario(
            "persistence.jsonl-wide-integer-header-read-as-a-double",
            "A header's createdAt of 2**53 + 1 is the double 2**53, an integer in range: the header loads",
            (LOAD, "dsh_spec.persistence.js_parse"),
            "core",
            put(
                root,
                file,
                '{"type":"session","version":0,"id":"s","createdAt":9007199254740993,"cwd":"/w"}\n',
            ),
            open_and_load(root),
        ),
        scenario(
            "persistence.jsonl-header-unknown-key",
            "A header with an unknown key is damage",
            (LOAD, "docs/deviations.md P2"),
            "strict",
            put(root, file, '{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"/w","x":1}\n'),
            open_and_load(root, fails=Code.STORE_CORRUPT),
        ),
        scenario(
            "persistence.jsonl-header-null-cwd",
            "A header with a null optional field is damage",
            (LOAD, "docs/deviations.md P2"),
            "strict",
            put(
                root, "_no-cwd/s.jsonl", '{"type":"session","version":0,"id":"s","createdAt":1,"cwd":null}\n'
            ),
            open_and_load(root, fails=Code.STORE_CORRUPT),
        ),
        scenario(
            "persistence.jsonl-file-of-another-session",
            "A file whose header names another session is refused",
            (LOAD, "docs/deviations.md P3", "docs/dialect-3fe196a751.md §P7 B17"),
            "strict",
            put(root, file, '{"type":"session","version":0,"id":"other","createdAt":1,"cwd":"/w"}\n'),
            open_and_load(root, fails=Code.STORE_CORRUPT),
        ),
        scenario(
            "persistence.jsonl-file-in-wrong-directory",
            "A log in another cwd's directory than its header names is refused",
            (LOAD, LAYOUT, "docs/deviations.md P3", "docs/dialect-3fe196a751.md §P7 B17"),
            "strict",
            put(
                root, "_no-cwd/s.jsonl", '{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"/w"}\n'
            ),
            open_and_load(root, fails=Code.STORE_CORRUPT),
            listing().gives([]),
        ),
        scenario(
            "persistence.jsonl-one-id-two-directories",
            "One session id in two cwd directories is refused",
            (LOAD, "docs/deviations.md P3", "docs/dialect-3fe196a751.md §P7 B18"),
            "strict",
            put(root, file, '{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"/w"}\n'),
            put(root, "_no-cwd/s.jsonl", '{"type":"session","version":0,"id":"s","createdAt":1}\n'),
            open_and_load(root, fails=Code.STORE_CORRUPT),
        ),
        scenario(
            "persistence.jsonl-list-only-readable-logs",
            "list shows only readable version-0 logs in the right place, sorted by id",
            (
                "docs/deviations.md P3",
                "docs/dialect-3fe196a751.md §P7 B32",
                "docs/dialect-3fe196a751.md §P6.4 #27",
            ),
            "strict",
            put(
                root,
                log_file("b", "/x"),
                '{"type":"session","version":0,"id":"b","createdAt":1,"cwd":"/x"}\n',
            ),
            put(root, log_file("a", None), '{"type":"session","version":0,"id":"a","createdAt":1}\n'),
            put(root, log_file("v", None), '{"type":"session","version":1,"id":"v","createdAt":1}\n'),
            put(root, log_file("e", None), ""),
            put(root, log_file("m", "/w"), '{"type":"session","version":0,"id":"m","createdAt":1}\n'),
            open_("jsonl", root),
            listing(),
        ),
        scenario(
            "persistence.jsonl-stale-writer",
            "A second backend that appends after another one wrote is refused: nothing is written",
            ("docs/errors.md STORE_CONFLICT", "docs/deviations.md P4", "docs/dialect-3fe196a751.md §P7 B5"),
            "strict",
            open_("jsonl", root),
            stored_session("s", closed),
            open_("jsonl", root, backend="b"),
            load("s", backend="b", session="t"),
            write("s", log(*CONTRACT, TS(2))[6:7], backend="db"),
            write("s", log(*CONTRACT, TS(2))[6:7], backend="b").fails(Code.STORE_CONFLICT),
            read(root, file),
        ),
        scenario(
            "persistence.sqlite-stale-writer",
            "A second backend that appends after another one wrote is refused",
            ("docs/errors.md STORE_CONFLICT", "docs/deviations.md P5"),
            "strict",
            open_("sqlite", where("sqlite")),
            stored_session("s", closed),
            open_("sqlite", where("sqlite"), backend="b"),
            load("s", backend="b", session="t"),
            write("s", log(*CONTRACT, TS(2))[6:7], backend="db"),
            write("s", log(*CONTRACT, TS(2))[6:7], backend="b").fails(Code.STORE_CONFLICT),
        ),
        scenario(
            "persistence.jsonl-id-too-long",
            "An id whose file name would be too long is refused at create",
            (
                "docs/errors.md STORE_UNREPRESENTABLE",
                "docs/deviations.md P4",
                "docs/dialect-3fe196a751.md §P7 B19",
            ),
            "strict",
            open_("jsonl", root),
            create(header("x" * 233)).fails(Code.STORE_UNREPRESENTABLE),
        ),
        scenario(
            "persistence.sqlite-lone-surrogate-id",
            "An id holding a lone surrogate cannot be stored in a SQLite text column",
            ("docs/errors.md STORE_UNREPRESENTABLE", "docs/deviations.md P5"),
            "strict",
            open_("sqlite", where("sqlite")),
            create(header("s\ud800")).fails(Code.STORE_UNREPRESENTABLE),
        ),
        scenario(
            "persistence.sqlite-negative-seq",
            "A row with a negative seq is damage, not a reason to delete the session",
            (LOAD, "docs/deviations.md P5", "docs/dialect-3fe196a751.md §P7 B28"),
            "strict",
            open_("sqlite", where("sqlite")),
            stored_session("s", closed),
            close(),
            sql(where("sqlite"), "INSERT INTO events VALUES ('s', -1, 'todo/write', 1, '{}', NULL, NULL)"),
            open_("sqlite", where("sqlite"), backend="again"),
            load("s", backend="again").fails(Code.STORE_CORRUPT),
        ),
        scenario(
            "persistence.sqlite-foreign-database",
            "A version-0 database holding other tables is refused at open and left alone",
            (
                "docs/errors.md STORE_SCHEMA_MISMATCH",
                "docs/deviations.md P5",
                "docs/dialect-3fe196a751.md §P7 B25",
            ),
            "strict",
            sql(where("sqlite"), "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"),
            open_("sqlite", where("sqlite")).fails(Code.STORE_SCHEMA_MISMATCH),
            sql(where("sqlite"), "SELECT name FROM sqlite_master"),
        ),
        scenario(
            "persistence.sqlite-not-a-database",
            "A file that is not a SQLite database is refused",
            ("docs/errors.md STORE_CORRUPT", "docs/deviations.md P5"),
            "strict",
            put(
                {"$scratch": "db"},
                "sessions.db",
                "this is not a database, just text that is long enough " * 3,
            ),
            open_("sqlite", where("sqlite")).fails(Code.STORE_CORRUPT),
        ),
        scenario(
            "persistence.jsonl-locked",
            "A log another process holds locked is refused after the wait",
            ("docs/errors.md STORE_LOCKED", "docs/deviations.md P4"),
            "strict",
            open_("jsonl", root, lock=0.2),
            stored_session("s", closed),
            lock(root, file),
            open_("jsonl", root, backend="again", lock=0.2),
            load("s", backend="again").fails(Code.STORE_LOCKED),
        ),
        scenario(
            "persistence.sqlite-locked",
            "A database another connection holds locked is refused after the wait",
            ("docs/errors.md STORE_LOCKED", "docs/deviations.md P5", "docs/dialect-3fe196a751.md §P7 B27"),
            "strict",
            open_("sqlite", where("sqlite"), lock=0.2),
            create(header()),
            lock(where("sqlite")),
            write("s", closed).fails(Code.STORE_LOCKED),
        ),
        scenario(
            "persistence.jsonl-root-not-a-directory",
            "A JSONL root that is a file is an I/O error",
            ("docs/errors.md STORE_IO", "docs/dialect-3fe196a751.md §P6.4 #35"),
            "strict",
            put({"$scratch": "base"}, "root", "not a directory"),
            open_("jsonl", {"$scratch": "base", "file": "root"}),
            load("s").fails(Code.STORE_IO),
        ),
    ]


# -- copying between stores (dsh_session.copy_sessions, verify_copy) ---------------------------

COPY = "docs/errors.md COPY_MISMATCH"


def copy(src: str, dst: str, ids: list[str] | None = None, verify: bool | None = None) -> Act:
    args: dict[str, Any] = {"src": src, "dst": dst}
    if ids is not None:
        args["ids"] = ids
    if verify is not None:
        args["verify"] = verify
    return Act("persist.copy", args)


def verify(src: str, dst: str, ids: list[str] | None = None) -> Act:
    args: dict[str, Any] = {"src": src, "dst": dst}
    if ids is not None:
        args["ids"] = ids
    return Act("persist.verify", args)


def two_stores(src: list[Record], dst: list[Record], dst_header: dict[str, Any] | None = None) -> list[Act]:
    """Two memory stores holding session ``s``: ``src`` and ``dst`` events."""
    return [
        open_("memory", backend="src"),
        open_("memory", backend="dst"),
        create(header(), "src"),
        write("s", src, "src"),
        create(dst_header or header(), "dst"),
        write("s", dst, "dst"),
    ]


def copying() -> list[Scenario]:
    crash = "crash-jsonl-torn-last-line-unanswered-toolcall"
    closed = log(*CONTRACT[:6])
    flag = log(TS(1), D(U("x"), merge=True))
    number = log(TS(1), D(U("x"), merge=1))
    reordered = [{key: record[key] for key in reversed(list(record))} for record in closed]
    return [
        scenario(
            "persistence.copy-repairs-and-verifies",
            "A copy loads each session from the source (repairing it) and stores it whole in the "
            "destination, where it loads back equal",
            (COPY, LOAD, CLOSERS, "docs/cli.md"),
            "strict",
            open_("jsonl", {"$artifact": f"jsonl/{crash}"}, backend="src"),
            open_("sqlite", where("sqlite"), backend="dst"),
            copy("src", "dst"),
            load("crash-torn", backend="dst"),
            verify("src", "dst"),
            listing("dst"),
        ),
        scenario(
            "persistence.copy-all-or-nothing",
            "A copy into a store that holds any of the sessions already copies nothing",
            (COPY, "docs/errors.md SESSION_ALREADY_EXISTS"),
            "strict",
            open_("memory", backend="src"),
            open_("memory", backend="dst"),
            create(header("a"), "src"),
            write("a", closed, "src"),
            create(header("b"), "src"),
            write("b", closed, "src"),
            create(header("b"), "dst"),
            write("b", closed, "dst"),
            copy("src", "dst").fails(Code.SESSION_ALREADY_EXISTS),
            listing("dst"),
            copy("src", "dst", ["a", "a"]).gives(["a"]),
        ),
        scenario(
            "persistence.copy-unknown-id",
            "An id the source lacks fails the copy when its turn comes; the sessions before it stay copied",
            (COPY, "docs/errors.md SESSION_NOT_FOUND"),
            "strict",
            open_("memory", backend="src"),
            open_("memory", backend="dst"),
            create(header("a"), "src"),
            write("a", closed, "src"),
            copy("src", "dst", ["a", "nobody"]).fails(Code.SESSION_NOT_FOUND),
            listing("dst"),
        ),
        scenario(
            "persistence.verify-true-is-not-1",
            "A store whose copy reads a true back as 1 does not hold an equal copy",
            (COPY, "dsh_spec.adoption.same_json"),
            "strict",
            two_stores(flag, number),
            verify("src", "dst").fails(Code.COPY_MISMATCH),
            verify("src", "src").gives(["s"]),
        ),
        scenario(
            "persistence.verify-header-differs",
            "A copy whose header differs is not equal",
            (COPY,),
            "strict",
            two_stores(closed, closed, header(createdAt=CREATED + 1)),
            verify("src", "dst").fails(Code.COPY_MISMATCH),
        ),
        scenario(
            "persistence.verify-events-missing",
            "A copy with fewer events is not equal",
            (COPY,),
            "strict",
            two_stores(closed, closed[:5]),
            verify("src", "dst").fails(Code.COPY_MISMATCH),
        ),
        scenario(
            "persistence.verify-missing-copy",
            "Verifying a session the destination lacks is refused",
            (COPY, "docs/errors.md SESSION_NOT_FOUND"),
            "strict",
            open_("memory", backend="src"),
            open_("memory", backend="dst"),
            create(header(), "src"),
            write("s", closed, "src"),
            verify("src", "dst").fails(Code.SESSION_NOT_FOUND),
        ),
        scenario(
            "persistence.verify-key-order-is-no-difference",
            "Events stored with their keys in another order are an equal copy",
            (COPY, "dsh_spec.adoption.same_event"),
            "strict",
            open_("jsonl", {"$scratch": "root"}, backend="src"),
            open_("memory", backend="dst"),
            create(header(), "src"),
            write("s", reordered, "src"),
            create(header(), "dst"),
            write("s", closed, "dst"),
            verify("src", "dst", ["s"]),
        ),
    ]


# -- database servers (the PostgreSQL backend) -------------------------------------------------


def server(kind: str) -> Act:
    args = {"backend": "db", "kind": "postgres", "host": "127.0.0.1", "port": {"$port": kind}}
    return Act("persist.open", args | {"user": "dsh", "database": "sessions", "connectTimeout": 5})


def servers() -> list[Scenario]:
    ref = ("docs/errors.md (Database servers)", "dsh_session.PostgresBackend")
    return [
        scenario(
            "persistence.postgres-unreachable",
            "A PostgreSQL store where nothing accepts connections is unreachable",
            (*ref, "docs/errors.md STORE_UNREACHABLE"),
            "strict",
            server("closed").fails(Code.STORE_UNREACHABLE, lazy=1),
            listing(),
        ),
        scenario(
            "persistence.postgres-credentials-refused",
            "A PostgreSQL server that refuses the login (SQLSTATE 28P01) is an authentication failure",
            (*ref, "docs/errors.md STORE_AUTH_FAILED"),
            "strict",
            server("pg-refuses-credentials").fails(Code.STORE_AUTH_FAILED, lazy=1),
            listing(),
        ),
        scenario(
            "persistence.postgres-connection-dropped",
            "A PostgreSQL server that drops the connection after the login loses it",
            (*ref, "docs/errors.md STORE_CONNECTION_LOST"),
            "strict",
            server("pg-drops-connection").fails(Code.STORE_CONNECTION_LOST, lazy=1),
            listing(),
        ),
    ]


def nested(depth: int) -> Any:
    """A value ``depth`` containers deep: ``{"k": {"k": ... {}}}``."""
    value: Any = {}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


def deep_line(seq: int, depth: int) -> str:
    """A ``todo/write`` line whose data nests ``depth`` containers deep."""
    data = "[" * depth + "]" * depth
    return f'{{"type":"todo/write","seq":{seq},"time":1,"data":{data}}}\n'


def nesting() -> list[Scenario]:
    """The nesting limit on load (``docs/deviations.md`` D7): too deep is complete, never torn."""
    root = {"$scratch": "root"}
    file = log_file("s", "/w")
    closed = log(*CONTRACT[:6])
    database = where("sqlite")
    deep_data = "[" * 201 + "]" * 201
    deep_row = f"INSERT INTO events VALUES ('s', 6, 'todo/write', 1, '{deep_data}', NULL, NULL)"
    refs = (LOAD, "docs/deviations.md D7", "docs/errors.md DATA_TOO_DEEP")
    return [
        scenario(
            "persistence.jsonl-data-at-the-nesting-limit-loads",
            "A stored event whose data nests 200 containers deep loads back as it was",
            (LOAD, SEED, "dsh_spec.json_value.MAX_DEPTH"),
            "core",
            open_("jsonl", root),
            create(header()),
            write("s", [*closed, X(EV("todo/write", nested(200)), seq=6, time=7)]),
            open_and_load(root, backend="again"),
            read(root, file),
        ),
        scenario(
            "persistence.jsonl-too-deep-line-refused-not-cut",
            "A line inside the open turn whose data nests 201 deep is refused with DATA_TOO_DEEP, not cut",
            refs,
            "strict",
            by_hand(
                root,
                closed,
                deep_line(6, 201) + '{"type":"turn/start","seq":7,"time":1,"data":{"turn":2}}\n',
            ),
            open_and_load(root, backend="again", fails=Code.DATA_TOO_DEEP),
            read(root, file),
        ),
        scenario(
            "persistence.jsonl-too-deep-to-parse-refused-not-cut",
            "A line nesting 1100 deep after a torn boundary is refused with DATA_TOO_DEEP, nothing cut",
            refs,
            "strict",
            by_hand(root, closed, "garbage\n" + deep_line(7, 1100)),
            open_and_load(root, backend="again", fails=Code.DATA_TOO_DEEP),
            read(root, file),
        ),
        scenario(
            "persistence.sqlite-too-deep-row-refused-not-cut",
            "A row after the last turn/end whose data nests 201 deep is refused with DATA_TOO_DEEP, not cut",
            refs,
            "strict",
            open_("sqlite", database),
            stored_session("s", closed),
            close(),
            sql(database, deep_row),
            open_("sqlite", database, backend="again"),
            load("s", backend="again").fails(Code.DATA_TOO_DEEP),
            close("again"),
            sql(database, "SELECT count(*) FROM events"),
        ),
    ]


# -- stores of later versions of the harness (issue 11, item 8) -----------------------------

LATER = "dsh_spec.storage.later_jsonl_entry"
LATER_DB = "dsh_spec.storage.later_database"


def later_dialects() -> list[Scenario]:
    """Stores a later version of the TypeScript harness wrote: refused, named, untouched."""
    out: list[Scenario] = []
    refs = (
        "docs/persistence.md Later dialects",
        "docs/deviations.md P7",
        "docs/errors.md STORE_VERSION_UNSUPPORTED",
    )
    for folder, what in (
        ("jsonl-zstd", "a Zstandard-framed log (<id>.jsonl.zstd)"),
        ("jsonl-zstd-named-jsonl", "a <id>.jsonl file of Zstandard frames"),
        ("jsonl-directory-layout", "the one-directory-per-session layout (--<cwd>--/<id>/session.jsonl)"),
        ("jsonl-directory-layout-zstd", "the one-directory-per-session layout, zstd-framed"),
        ("jsonl-v3", "a format-v3 log (session.v3.jsonl.zstd)"),
    ):
        root = {"$artifact": f"later/{folder}"}
        by_name = folder != "jsonl-zstd-named-jsonl"  # a publish looks at names, not into files
        publish = [
            create(header("fresh")),
            write("fresh", log(*CONTRACT[:6])).fails(Code.STORE_VERSION_UNSUPPORTED),
        ]
        out.append(
            scenario(
                f"persistence.later-{folder}",
                f"A JSONL root holding {what}: the listing passes it over, a load "
                + ("and a first publish are" if by_name else "is")
                + " refused with STORE_VERSION_UNSUPPORTED, and no file changes",
                (LATER, *refs),
                "strict",
                open_("jsonl", root),
                listing(),
                load("later").fails(Code.STORE_VERSION_UNSUPPORTED),
                publish if by_name else [],
                files(root),
            )
        )
    for name, what in (
        ("sqlite-application-id", 'application_id 0x44534850 ("DSHP"), schema version 10'),
        ("sqlite-user-version-17", "schema version 17"),
    ):
        database = {"$artifact": f"later/{name}.sql"}
        out.append(
            scenario(
                f"persistence.later-{name}",
                f"A SQLite database of a later harness ({what}) is refused at open with "
                "STORE_VERSION_UNSUPPORTED and left as it was",
                (LATER_DB, *refs),
                "strict",
                open_("sqlite", database).fails(Code.STORE_VERSION_UNSUPPORTED),
                sql(database, "PRAGMA user_version"),
                sql(database, "PRAGMA application_id"),
                sql(database, "PRAGMA journal_mode"),
            )
        )
    return out


def scenarios() -> list[Scenario]:
    return (
        reference_stores() + contract() + jsonl_files() + nesting() + copying() + servers() + later_dialects()
    )

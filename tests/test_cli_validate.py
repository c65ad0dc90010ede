"""``dsh-session validate``: verdicts, violations, exit statuses and the ``--json`` shape.

Expected values come from the reference artifacts (``expected.json``,
``corruption.json``, INDEX.md) or are written by hand for hand-written logs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_support import CRASH, VALID_SQLITE, expected, jsonl_file, run, store_of, tree_digest
from tests.reference import VALID, copy_case

TS1 = (
    '{"type":"turn/start","seq":0,"time":1,'
    '"data":{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}}'
)


def write_lines(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines), "utf-8")
    return path


@pytest.mark.parametrize("backend", ["jsonl", "sqlite"])
@pytest.mark.parametrize("case", VALID)
def test_valid_reference_stores_are_valid(case: str, backend: str, tmp_path: Path) -> None:
    if backend == "sqlite" and case not in VALID_SQLITE:
        pytest.fail(f"{case} has no SQLite store")  # every valid case has both (INDEX.md)
    case_dir = copy_case(case, tmp_path)
    store = store_of(case_dir, backend)
    before = tree_digest(case_dir)
    ran = run("validate", str(store), "--invariants", "--json")
    assert ran.status == 0, ran.stderr
    document = ran.json()
    assert document["valid"] is True and document["status"] == 0 and document["invariants"] is True
    (session,) = document["sessions"]
    reference = expected(case_dir, backend)
    assert session["id"] == reference["meta"]["id"]
    assert session["status"] == "valid"
    assert session["events"] == len(reference["events"])
    assert session["violations"] == [] and session["repair"] is None and session["error"] is None
    assert tree_digest(case_dir) == before  # read, never written (no -wal / -shm left either)


@pytest.mark.parametrize("case", sorted(CRASH))
def test_crash_stores_are_valid_and_say_what_a_load_repairs(case: str, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    backend = "sqlite" if "sqlite" in case else "jsonl"
    before = tree_digest(case_dir)
    ran = run("validate", str(store_of(case_dir, backend)), "--json")
    assert ran.status == 0, ran.stderr
    (session,) = ran.json()["sessions"]
    stored, closers, cut = CRASH[case]
    assert session["status"] == "valid"
    assert session["events"] == stored
    assert session["repair"]["closers"] == closers
    assert session["repair"]["cutRecords"] == cut
    assert tree_digest(case_dir) == before  # the repair is only reported


def test_a_torn_tail_is_measured_in_bytes(tmp_path: Path) -> None:
    case_dir = copy_case("crash-jsonl-torn-last-line-unanswered-toolcall", tmp_path)
    kept_fragment = json.loads((case_dir / "corruption.json").read_text("utf-8"))["keptFragment"]
    (session,) = run("validate", str(case_dir / "jsonl"), "--json").json()["sessions"]
    assert session["repair"]["cutBytes"] == len(kept_fragment.encode("utf-8"))


def test_human_output_names_the_repair(tmp_path: Path) -> None:
    case_dir = copy_case("crash-jsonl-torn-turn-end-line", tmp_path)
    ran = run("validate", str(case_dir / "jsonl"))
    assert ran.status == 0
    assert "valid" in ran.stdout and "crash-torn-turn-end" in ran.stdout
    assert "cut 1 torn record(s) (48 bytes)" in ran.stdout
    assert "add 1 closer(s)" in ran.stdout
    assert "\x1b[" not in ran.stdout  # piped: no colour


@pytest.mark.parametrize(
    ("case", "seq", "line"),
    [
        ("reject-jsonl-null-line-mid-file", 5, 7),  # a null line between seq 4 and 5
        ("reject-jsonl-invalid-utf8-outside-string", 1, 3),  # "line 2" of events is physical line 3
    ],
)
def test_damaged_committed_lines_are_violations(case: str, seq: int, line: int, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    ran = run("validate", str(case_dir / "jsonl"), "--json")
    assert ran.status == 1
    document = ran.json()
    assert document["valid"] is False and document["status"] == 1
    (session,) = document["sessions"]
    assert session["status"] == "invalid"
    (violation,) = session["violations"]
    assert (violation["code"], violation["seq"], violation["line"]) == ("STORE_CORRUPT", seq, line)
    assert violation["rule"].startswith("store:")
    human = run("validate", str(case_dir / "jsonl"))
    assert human.status == 1 and "INVALID" in human.stdout and "STORE_CORRUPT" in human.stdout


@pytest.mark.parametrize(
    ("case", "store", "code"),
    [
        ("reject-jsonl-header-version-1", "jsonl", "STORE_VERSION_UNSUPPORTED"),
        ("reject-sqlite-user-version-3-v4-tables", "sqlite/session.db", "STORE_SCHEMA_MISMATCH"),
        ("reject-sqlite-user-version-5", "sqlite/session.db", "STORE_VERSION_UNSUPPORTED"),
        (
            "reject-sqlite-user-version-3-sibling-surface-columns-layout",
            "sqlite/session.db",
            "STORE_SCHEMA_MISMATCH",
        ),
    ],
)
def test_unreadable_stores_exit_2(case: str, store: str, code: str, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    before = tree_digest(case_dir)
    ran = run("validate", str(case_dir / store))
    assert ran.status == 2
    (line,) = ran.error_lines
    assert line.startswith("dsh-session: error: ") and line.endswith(f"[{code}]")
    assert "Traceback" not in ran.stderr + ran.stdout
    as_json = run("validate", str(case_dir / store), "--json")
    assert as_json.status == 2
    (session,) = as_json.json()["sessions"]
    assert session["status"] == "unreadable" and session["error"]["code"] == code
    assert tree_digest(case_dir) == before  # a refused database is left as it was


def test_the_reference_bug_case_is_valid_for_us(tmp_path: Path) -> None:
    case_dir = copy_case("jsonl-invalid-utf8-before-torn-tail-offset-bug", tmp_path)
    (session,) = run("validate", str(case_dir / "jsonl"), "--json").json()["sessions"]
    reference = expected(case_dir, "jsonl")
    assert session["status"] == "valid"
    assert session["events"] + session["repair"]["closers"] == len(reference["events"])


def test_admission_reports_every_violation(tmp_path: Path) -> None:
    log = write_lines(
        tmp_path / "log.jsonl",
        TS1,
        '{"type":"user/message","seq":1,"time":2,"data":{"content":[],"source":{"kind":"user"}}}',
        '{"type":"user/message","seq":2,"time":3,"data":{"content":[]},"surfaceOp":"append"}',
        '{"type":"user/message","seq":3,"time":4,"data":{"content":[]},"surfaceOp":"append",'
        '"sourceEventSeqs":[1]}',
        '{"type":"user/message","seq":4,"time":5,"data":{"content":[]},'
        '"surfaceOp":{"op":"replace","start":1,"end":2},"sourceEventSeqs":[2]}',
    )
    ran = run("validate", str(log), "--json")
    assert ran.status == 1
    (session,) = ran.json()["sessions"]
    # seq 1 is refused: it is not known to seq 3's provenance and not on the surface for seq 4.
    assert [(v["code"], v["seq"], v["line"]) for v in session["violations"]] == [
        ("MISSING_SURFACE_OP", 1, 2),
        ("PROVENANCE_UNKNOWN_SEQ", 3, 4),
        ("REPLACE_START_NOT_ON_SURFACE", 4, 5),
    ]
    assert session["violations"][0]["rule"] == "surface: a surface type carries a surfaceOp"
    human = run("validate", str(log))
    assert human.status == 1 and "3 violations" in human.stdout
    # An event list (no header) is judged alike.
    records = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    listed = tmp_path / "log.json"
    listed.write_text(json.dumps(records), "utf-8")
    (as_list,) = run("validate", str(listed), "--json").json()["sessions"]
    assert [(v["code"], v["seq"]) for v in as_list["violations"]] == [
        ("MISSING_SURFACE_OP", 1),
        ("PROVENANCE_UNKNOWN_SEQ", 3),
        ("REPLACE_START_NOT_ON_SURFACE", 4),
    ]


def test_invariants_report_every_violation(tmp_path: Path) -> None:
    log = write_lines(
        tmp_path / "log.jsonl",
        TS1,
        '{"type":"turn/start","seq":1,"time":2,"data":{"turn":2}}',
        '{"type":"turn/end","seq":2,"time":3,"data":{"turn":1,"reason":{"kind":"completed"}}}',
        '{"type":"turn/end","seq":3,"time":4,"data":{"turn":1,"reason":{"kind":"completed"}}}',
    )
    assert run("validate", str(log)).status == 0  # admission alone has nothing against it
    ran = run("validate", str(log), "--invariants", "--json")
    assert ran.status == 1
    (session,) = ran.json()["sessions"]
    assert [(v["code"], v["seq"], v["rule"]) for v in session["violations"]] == [
        ("TURN_ALREADY_OPEN", 1, "R11: one turn open at a time"),
        ("TURN_END_MISMATCH", 3, "R13: turn/end closes the open turn"),
    ]
    human = run("validate", str(log), "--invariants")
    assert "2 violations" in human.stdout and "TURN_ALREADY_OPEN" in human.stdout


def test_event_lists_in_every_form(tmp_path: Path) -> None:
    case_dir = copy_case("numbers-edge-values-no-cwd", tmp_path)
    reference = expected(case_dir, "jsonl")
    # log.json ({id, seed}, raw number tokens), expected.json ({meta, events}), a JSON array,
    # and a JSONL list with the header line.
    events = reference["events"]
    array = tmp_path / "array.json"
    array.write_text(json.dumps(events), "utf-8")
    with_header = write_lines(
        tmp_path / "with-header.jsonl",
        json.dumps({"type": "session", **reference["meta"]}),
        *(json.dumps(event) for event in events),
    )
    for path in (case_dir / "log.json", case_dir / "expected.json", array, with_header):
        ran = run("validate", str(path), "--json", "--invariants")
        assert ran.status == 0, (path, ran.stdout, ran.stderr)
        (session,) = ran.json()["sessions"]
        assert session["events"] == len(events)
    assert run("validate", str(array), "--json").json()["sessions"][0]["id"] == "array"
    assert run("validate", str(with_header), "--json").json()["sessions"][0]["id"] == reference["meta"]["id"]


def test_several_paths_and_the_worst_status_wins(tmp_path: Path) -> None:
    good = copy_case("single-turn-text-cwd", tmp_path) / "jsonl"
    bad = write_lines(tmp_path / "bad.jsonl", '{"type":"turn/start","seq":0,"time":1,"data":{}}', "[]")
    ran = run("validate", str(good), str(bad), "--json")
    assert ran.status == 1
    assert [s["status"] for s in ran.json()["sessions"]] == ["valid", "invalid"]
    assert [v["code"] for v in ran.json()["sessions"][1]["violations"]] == ["MALFORMED_EVENT"]
    missing = tmp_path / "missing"
    ran = run("validate", str(good), str(bad), str(missing))
    assert ran.status == 2
    assert "3 sessions: 1 valid, 1 invalid, 1 unreadable" in ran.stdout
    (line,) = ran.error_lines
    assert str(missing) in line and "no such file or directory" in line


def test_a_store_with_several_sessions_and_id_selection(tmp_path: Path) -> None:
    root = tmp_path / "root"
    for case in ("single-turn-text-cwd", "compaction-once-cwd", "reject-jsonl-header-version-1"):
        source = copy_case(case, tmp_path) / "jsonl"
        for path in source.glob("*/*.jsonl"):
            target = root / path.parent.name / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    ran = run("validate", str(root), "--json")
    assert ran.status == 2  # the version-1 log cannot be read
    by_status = {s["status"]: s for s in ran.json()["sessions"]}
    assert sorted(s["status"] for s in ran.json()["sessions"]) == ["unreadable", "valid", "valid"]
    assert by_status["unreadable"]["error"]["code"] == "STORE_VERSION_UNSUPPORTED"
    only = run("validate", str(root), "--id", "compaction-once", "--id", "single-turn-text", "--json")
    assert only.status == 0
    assert [s["id"] for s in only.json()["sessions"]] == ["compaction-once", "single-turn-text"]
    wrong = run("validate", str(root), "--id", "nope", "--json")
    assert wrong.status == 2
    assert wrong.json()["sessions"][0]["error"]["code"] == "SESSION_NOT_FOUND"


def test_a_single_session_file_in_its_root(tmp_path: Path) -> None:
    case_dir = copy_case("compaction-once-cwd", tmp_path)
    ran = run("validate", str(jsonl_file(case_dir / "jsonl")), "--json")
    assert ran.status == 0
    assert ran.json()["sessions"][0]["id"] == "compaction-once"


def test_a_log_moved_out_of_its_bucket_is_refused(tmp_path: Path) -> None:
    case_dir = copy_case("compaction-once-cwd", tmp_path)
    log = jsonl_file(case_dir / "jsonl")
    elsewhere = case_dir / "jsonl" / "_no-cwd"
    elsewhere.mkdir()
    log.rename(elsewhere / log.name)
    ran = run("validate", str(case_dir / "jsonl"), "--json")
    assert ran.status == 2
    assert ran.json()["sessions"][0]["error"]["code"] == "STORE_CORRUPT"

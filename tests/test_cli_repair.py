"""``dsh-session repair``: the closers it shows are the reference's, and adding them is the
reference's repair (the files it left, ``repaired/``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_support import CRASH, expected, jsonl_file, run, store_of, tree_digest
from tests.reference import copy_case

CRASH_JSONL = sorted(case for case in CRASH if case.startswith("crash-jsonl-"))


@pytest.mark.parametrize("case", sorted(CRASH))
def test_dry_run_shows_the_reference_closers_and_changes_nothing(case: str, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    backend = "sqlite" if "sqlite" in case else "jsonl"
    store = str(store_of(case_dir, backend))
    before = tree_digest(case_dir)
    ran = run("repair", store, "--dry-run", "--json")
    assert ran.status == 0, ran.stderr
    document = ran.json()
    stored, closers, cut = CRASH[case]
    assert document["dryRun"] is True and document["checked"] == 1
    (session,) = document["sessions"]
    assert session["cutRecords"] == cut
    assert session["closers"] == expected(case_dir, backend)["events"][stored:]
    assert len(session["closers"]) == closers
    assert session["repaired"] is False
    assert tree_digest(case_dir) == before
    human = run("repair", store, "--dry-run")
    assert "need a repair (nothing changed: --dry-run)" in human.stdout
    assert '"kind":"interrupted"' in human.stdout
    assert tree_digest(case_dir) == before


@pytest.mark.parametrize("case", CRASH_JSONL)
def test_repair_leaves_the_files_the_reference_left(case: str, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    ran = run("repair", str(case_dir / "jsonl"), "--json")
    assert ran.status == 0, ran.stderr
    (session,) = ran.json()["sessions"]
    assert session["repaired"] is True
    assert (
        jsonl_file(case_dir / "jsonl").read_bytes()
        == jsonl_file(case_dir / "repaired" / "jsonl").read_bytes()
    )
    again = run("repair", str(case_dir / "jsonl"), "--json")
    assert again.json() == {"dryRun": False, "checked": 1, "sessions": [], "unreadable": []}


@pytest.mark.parametrize("case", sorted(c for c in CRASH if c.startswith("crash-sqlite-")))
def test_repair_of_a_database_then_loads_as_the_reference_reloads(case: str, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    store = str(case_dir / "sqlite" / "session.db")
    ran = run("repair", store)
    assert ran.status == 0, ran.stderr
    assert "repaired (durable)" in ran.stdout and "1 session(s) checked, 1 repaired" in ran.stdout
    reload = json.loads((case_dir / "expected-reload.json").read_text("utf-8"))
    derived = run("derive", store, "--json").json()  # as stored now: no --repaired needed
    assert derived["messages"] == reload["messages"]
    assert derived["events"] == len(reload["events"])
    assert run("validate", store, "--json", "--invariants").json()["sessions"][0]["repair"] is None


def test_repair_of_a_session_file_in_its_root(tmp_path: Path) -> None:
    case_dir = copy_case("crash-jsonl-torn-turn-end-line", tmp_path)
    log = jsonl_file(case_dir / "jsonl")
    ran = run("repair", str(log), "--id", "crash-torn-turn-end")
    assert ran.status == 0, ran.stderr
    assert "cut 1 torn record(s) (48 bytes)" in ran.stdout
    assert log.read_bytes() == jsonl_file(case_dir / "repaired" / "jsonl").read_bytes()


def test_repair_of_a_sound_store_does_nothing(tmp_path: Path) -> None:
    case_dir = copy_case("single-turn-text-cwd", tmp_path)
    before = tree_digest(case_dir)
    ran = run("repair", str(case_dir / "sqlite" / "session.db"))
    assert ran.status == 0
    assert "1 session(s) checked, 0 repaired" in ran.stdout
    assert tree_digest(case_dir) == before


def test_an_event_list_can_be_shown_but_not_repaired(tmp_path: Path) -> None:
    case_dir = copy_case("crash-jsonl-open-turn-after-compaction", tmp_path)
    log = case_dir / "log.json"  # the log the crash case was built from: it ends in an open turn
    shown = run("repair", str(log), "--dry-run", "--json")
    assert shown.status == 0
    assert len(shown.json()["sessions"][0]["closers"]) == CRASH["crash-jsonl-open-turn-after-compaction"][1]
    refused = run("repair", str(log))
    assert refused.status == 2
    (line,) = refused.error_lines
    assert "repair needs a session store" in line


def test_repair_with_a_wrong_id(tmp_path: Path) -> None:
    case_dir = copy_case("crash-sqlite-open-turn-after-compaction", tmp_path)
    ran = run("repair", str(case_dir / "sqlite" / "session.db"), "--id", "nope")
    assert ran.status == 2
    (line,) = ran.error_lines
    assert line.endswith("[SESSION_NOT_FOUND]") and "'nope'" in line

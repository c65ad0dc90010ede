"""``derive``, ``surface`` and ``inspect``: what they show of real stores, read without writing.

Expected values are the reference's (``expected.json``: messages, surface,
generation, meta), or read off the artifacts by hand (INDEX.md, the logs).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dsh_spec.events import APPEND, Event, Replace
from dsh_spec.rejection import Rejection
from dsh_spec.surface import fold_surface, shadowed
from tests.cli_support import CRASH, expected, jsonl_file, run, store_of, tree_digest
from tests.reference import VALID, copy_case

BACKENDS = ["jsonl", "sqlite"]


# -- derive ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", VALID)
def test_derive_gives_the_reference_messages(case: str, backend: str, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    before = tree_digest(case_dir)
    ran = run("derive", str(store_of(case_dir, backend)), "--json")
    assert ran.status == 0, ran.stderr
    document = ran.json()
    reference = expected(case_dir, backend)
    assert document["id"] == reference["meta"]["id"]
    assert document["messages"] == reference["messages"]
    assert document["generation"] == reference["generation"]
    assert document["events"] == len(reference["events"])
    assert document["repaired"] is False
    assert tree_digest(case_dir) == before


@pytest.mark.parametrize("case", sorted(CRASH))
def test_derive_of_a_crashed_session_as_stored_and_as_loaded(case: str, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    backend = "sqlite" if "sqlite" in case else "jsonl"
    store = str(store_of(case_dir, backend))
    before = tree_digest(case_dir)
    reference = expected(case_dir, backend)
    loaded = run("derive", store, "--repaired", "--json").json()
    assert loaded["messages"] == reference["messages"]
    assert loaded["events"] == len(reference["events"])
    stored = run("derive", store, "--json").json()
    assert stored["events"] == CRASH[case][0]
    # The synthetic tool results are surface events, the other closers are not.
    synthetic = [e for e in reference["events"][CRASH[case][0] :] if e["type"] == "tool/result"]
    assert len(stored["messages"]) == len(reference["messages"]) - len(synthetic)
    assert tree_digest(case_dir) == before


def test_derive_transcript(tmp_path: Path) -> None:
    case_dir = copy_case("single-turn-text-cwd", tmp_path)
    ran = run("derive", str(case_dir / "jsonl"))
    assert ran.status == 0
    assert "single-turn-text: 2 message(s) from 14 event(s)" in ran.stdout
    assert "What is the capital of France? Answer in one sentence." in ran.stdout
    assert "The capital of France is Paris." in ran.stdout
    assert ran.stdout.index("user") < ran.stdout.index("assistant")
    assert "\x1b[" not in ran.stdout


def test_derive_transcript_shows_tool_calls_and_results(tmp_path: Path) -> None:
    case_dir = copy_case("compaction-once-cwd", tmp_path)
    # Before the compaction: the log.json of the case holds the same events, as an event list.
    ran = run("derive", str(case_dir / "log.json"))
    assert ran.status == 0
    assert "compacted-summary" in ran.stdout  # the replace is on the surface
    assert "Now open src." in ran.stdout


# -- surface ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", VALID)
def test_surface_is_the_reference_surface(case: str, backend: str, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    ran = run("surface", str(store_of(case_dir, backend)), "--json")
    assert ran.status == 0, ran.stderr
    document = ran.json()
    reference = expected(case_dir, backend)
    assert [{k: n[k] for k in ("seq", "prev", "next")} for n in document["nodes"]] == reference["surface"]
    assert document["generation"] == reference["generation"]
    by_seq = {event["seq"]: event for event in reference["events"]}
    for node in document["nodes"]:
        event = by_seq[node["seq"]]
        assert node["type"] == event["type"]
        assert node["surfaceOp"] == event["surfaceOp"]
        assert node["sourceEventSeqs"] == event.get("sourceEventSeqs")


def test_surface_shadows_of_a_compaction(tmp_path: Path) -> None:
    case_dir = copy_case("compaction-once-cwd", tmp_path)
    nodes = run("surface", str(case_dir / "jsonl"), "--json").json()["nodes"]
    head = nodes[0]
    assert head["seq"] == 23
    assert head["surfaceOp"] == {"op": "replace", "start": 1, "end": 16}
    assert head["sourceEventSeqs"] == [21, 22, 1, 11, 13, 16]
    assert head["shadows"] == [1, 11, 13, 16]  # the surface nodes from seq 1 to seq 16
    assert [node["shadows"] for node in nodes[1:]] == [None, None]


def test_surface_shadows_of_a_reversed_range(tmp_path: Path) -> None:
    case_dir = copy_case("compaction-twice-start-gt-end-no-cwd", tmp_path)
    nodes = run("surface", str(case_dir / "sqlite" / "session.db"), "--json").json()["nodes"]
    assert nodes[0]["seq"] == 33
    assert nodes[0]["surfaceOp"] == {"op": "replace", "start": 23, "end": 20}
    assert nodes[0]["shadows"] == [23, 20]  # seq 23 came first on the surface: positional order


def test_surface_table(tmp_path: Path) -> None:
    case_dir = copy_case("compaction-once-cwd", tmp_path)
    ran = run("surface", str(case_dir / "jsonl"))
    assert ran.status == 0
    assert "surface of compaction-once (3 nodes, generation 1)" in ran.stdout
    assert "replace 1..16" in ran.stdout
    assert "1, 11, 13, 16" in ran.stdout


# -- inspect ---------------------------------------------------------------------------------------


def test_inspect_an_open_turn_with_unanswered_calls(tmp_path: Path) -> None:
    case_dir = copy_case("crash-jsonl-open-turn-unanswered-toolcalls-open-step", tmp_path)
    store = case_dir / "jsonl"
    before = tree_digest(case_dir)
    summary = run("inspect", str(store), "--json").json()
    reference = expected(case_dir, "jsonl")
    assert summary["id"] == "crash-open-toolcalls"
    assert summary["backend"] == "jsonl"
    assert summary["header"] == reference["meta"]
    assert summary["lineage"] == {"parentSession": None, "seedLength": None}
    assert summary["events"] == 36
    assert summary["storedBytes"] == os.path.getsize(jsonl_file(store))
    assert summary["bytes"] == os.path.getsize(jsonl_file(store))  # stored exactly as JSONL writes it
    assert summary["turns"] == {"count": 2, "open": 2, "interrupted": 0}
    assert summary["steps"] == 2
    assert summary["toolCalls"] == {"total": 3, "answered": 1, "unanswered": ["k2", "k3"]}
    assert summary["repair"] == {"cutRecords": 0, "cutBytes": 0, "closers": 4}
    repaired = run("inspect", str(store), "--json", "--repaired").json()
    assert repaired["events"] == 40
    assert repaired["turns"] == {"count": 2, "open": None, "interrupted": 1}
    assert repaired["toolCalls"] == {"total": 3, "answered": 3, "unanswered": []}
    assert repaired["messages"] == len(reference["messages"])
    assert tree_digest(case_dir) == before


def test_inspect_a_forked_child(tmp_path: Path) -> None:
    case_dir = copy_case("forked-child-at-turn-boundary-cwd", tmp_path)
    summary = run("inspect", str(case_dir / "sqlite" / "session.db"), "--json").json()
    assert summary["backend"] == "sqlite"
    assert summary["lineage"] == {"parentSession": "parent-session-7", "seedLength": 42}
    assert summary["header"] == {
        "version": 0,
        "id": "parent-session-7-fork-1",
        "createdAt": 1767225600000,
        "cwd": "/srv/repo",
        "parentSession": "parent-session-7",
        "seedLength": 42,
    }
    assert summary["events"] == 42
    assert summary["storedBytes"] is None
    assert summary["repair"] is None


def test_inspect_compactions(tmp_path: Path) -> None:
    case_dir = copy_case("compaction-twice-start-gt-end-no-cwd", tmp_path)
    summary = run("inspect", str(case_dir / "jsonl"), "--json").json()
    assert summary["compactions"] == {"started": 2, "replaces": 2}
    assert summary["surface"] == {"nodes": 4, "generation": 2}
    assert summary["messages"] == 4
    reference = expected(case_dir, "jsonl")
    times = [event["time"] for event in reference["events"]]
    assert summary["time"] == {"first": times[0], "last": times[-1]}
    assert sum(summary["types"].values()) == summary["events"] == len(reference["events"])


def test_inspect_human_summary(tmp_path: Path) -> None:
    case_dir = copy_case("crash-jsonl-open-turn-unanswered-toolcalls-open-step", tmp_path)
    ran = run("inspect", str(case_dir / "jsonl"))
    assert ran.status == 0
    for text in ("session crash-open-toolcalls", "turn 2 open", "unanswered: k2, k3", "/srv/deploy"):
        assert text in ran.stdout
    assert "a load would repair it" in ran.stdout


def test_views_of_an_event_list_with_a_header(tmp_path: Path) -> None:
    case_dir = copy_case("single-turn-text-cwd", tmp_path)
    reference = expected(case_dir, "jsonl")
    events = tmp_path / "events.jsonl"
    lines = [json.dumps({"type": "session", **reference["meta"]})]
    lines += [json.dumps(event) for event in reference["events"]]
    events.write_text("\n".join(lines) + "\n", "utf-8")
    summary = run("inspect", str(events), "--json").json()
    assert summary["backend"] == "jsonl"  # a header line first: one session's log file (not in a root)
    assert summary["header"] == reference["meta"]
    forced = run("inspect", str(events), "--backend", "events", "--json").json()
    assert forced["backend"] == "events" and forced["header"] == reference["meta"]
    assert run("derive", str(events), "--json").json()["messages"] == reference["messages"]
    assert run("derive", str(events), "--id", "single-turn-text", "--json").status == 0


@pytest.mark.parametrize(
    "case", [c for c in VALID if c.startswith("compaction")] + ["crash-jsonl-open-turn-after-compaction"]
)
def test_shadows_agree_with_the_spec(case: str, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    records = expected(case_dir, "jsonl")["events"]
    events = []
    for record in records:
        op = record.get("surfaceOp")
        spec_op = None if op is None else APPEND if op == "append" else Replace(op["start"], op["end"])
        events.append(Event(record["type"], record["seq"], 0, None, None, spec_op))
    nodes = run("surface", str(case_dir / "jsonl"), "--repaired", "--json").json()["nodes"]
    replaces = [node for node in nodes if node["shadows"] is not None]
    assert replaces  # every one of these cases has a replace still on the surface
    for node in replaces:
        seq = node["seq"]
        before = fold_surface(events[:seq])
        assert not isinstance(before, Rejection)
        expected_shadows = shadowed(
            before.order, seq, Replace(node["surfaceOp"]["start"], node["surfaceOp"]["end"])
        )
        assert not isinstance(expected_shadows, Rejection)
        assert node["shadows"] == list(expected_shadows)

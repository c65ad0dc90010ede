"""Fixtures are what they claim: every generated fixture fails ``dsh-session validate`` naming its
rule, and the manifest follows its JSON Schema.

The fixtures are made by the command line (``fixtures generate``), as a test author makes them;
the rule each one must be named by is the manifest's own ``rule`` (what the generator and the
spec agreed it breaks), never a verdict of ``validate``. The hand-written logs below have
hand-written expectations.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from dsh_session.conformance.fixtures import in_scope
from tests.cli_support import run

SUITE = Path(__file__).resolve().parents[1] / "conformance"
SCHEMA = json.loads((SUITE / "schema" / "fixture-manifest.schema.json").read_text("utf-8"))
WORKDIR = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
FORMATS = ("jsonl", "sqlite")


@pytest.fixture(scope="module")
def outputs() -> Iterator[dict[str, Path]]:
    """Every fixture ``fixtures generate`` writes, in each store format and as cases."""
    with tempfile.TemporaryDirectory(dir=WORKDIR) as scratch:
        made = {}
        for output in (*FORMATS, "case"):
            out = Path(scratch) / output
            ran = run("fixtures", "generate", "--format", output, "--out", str(out))
            assert ran.status == 0, ran.stderr
            made[output] = out
        yield made


def _manifest(out: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((out / "manifest.json").read_text("utf-8"))
    return document


def _named(document: dict[str, Any]) -> list[str]:
    """Every code a validate report names: its violations' and its unreadable sessions'."""
    codes = [item["code"] for session in document["sessions"] for item in session["violations"]]
    return codes + [s["error"]["code"] for s in document["sessions"] if s["error"] is not None]


@pytest.mark.parametrize("output", FORMATS)
def test_every_fixture_fails_validate_naming_its_rule(outputs: dict[str, Path], output: str) -> None:
    manifest = _manifest(outputs[output])
    rules = {entry["rule"] for entry in manifest["fixtures"]}
    # every rule the format can hold is there (SQLite keys rows by seq: no repeated seq there)
    expected = {"VALID", *(code.value for code in in_scope())}
    if output == "jsonl":
        expected.discard("STORE_SCHEMA_MISMATCH")
    else:
        expected.discard("SEQ_NOT_INCREASING")
    assert rules == expected
    for entry in manifest["fixtures"]:
        ran = run("validate", "--rules", "all", "--json", str(outputs[output] / entry["path"]))
        document = ran.json()
        assert document["rules"] == "all"
        if entry["rule"] == "VALID":
            assert ran.status == 0 and _named(document) == [], entry["id"]
            continue
        assert ran.status in (1, 2), entry["id"]
        named = _named(document)
        if output == "sqlite" and entry["rule"] == "SEQ_NOT_CONTIGUOUS":
            # A row out of sequence: a database never tears one, so the store is damaged
            # (docs/persistence.md, "Crash repair"); the manifest's load says which code.
            assert entry["load"] == "STORE_CORRUPT" and named == ["STORE_CORRUPT"], entry["id"]
        else:
            assert entry["rule"] in named, (entry["id"], named)


def test_which_rules_need_which_option(outputs: dict[str, Path]) -> None:
    """The admission rules fail by default; the structure needs invariants, the fold and pairing all."""
    manifest = _manifest(outputs["jsonl"])
    by_rule = {entry["rule"]: outputs["jsonl"] / entry["path"] for entry in manifest["fixtures"]}
    for rule, seed, invariants in [
        ("SEQ_NOT_CONTIGUOUS", 1, 1),  # a complete line after the last turn/end: not torn
        ("MISSING_SURFACE_OP", 1, 1),
        ("TURN_ALREADY_OPEN", 0, 1),
        ("MALFORMED_HEADER_DELTA", 0, 0),
        ("TOOL_PAIRING_CORRUPT", 0, 0),
    ]:
        assert run("validate", str(by_rule[rule])).status == seed, rule
        assert run("validate", "--invariants", str(by_rule[rule])).status == invariants, rule
        assert run("validate", "--rules", "all", str(by_rule[rule])).status == 1, rule


@pytest.mark.parametrize("output", [*FORMATS, "case"])
def test_the_manifest_follows_its_schema(outputs: dict[str, Path], output: str) -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    manifest = _manifest(outputs[output])
    jsonschema.validate(manifest, SCHEMA)
    assert "outOfScope" in manifest and all("checkLog" in e for e in manifest["fixtures"])
    # the schema holds the shape: the old snake_case keys, or a store output's entry without
    # its path, are refused
    entry = manifest["fixtures"][0]
    old = {**manifest, "fixtures": [{**{k: v for k, v in entry.items() if k != "checkLog"}, "check_log": []}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(old, SCHEMA)
    if output != "case":
        pathless = {**manifest, "fixtures": [{k: v for k, v in entry.items() if k != "path"}]}
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(pathless, SCHEMA)


TS1 = (
    '{"type":"turn/start","seq":0,"time":1,'
    '"data":{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}}'
)
TE1 = '{"type":"turn/end","seq":1,"time":2,"data":{"turn":1,"reason":{"kind":"completed"}}}'
HEADER = '{"type":"session","version":0,"id":"s","createdAt":0}'


def _store(tmp_path: Path, tail: bytes) -> Path:
    """A JSONL root holding session ``s``: one whole turn, then ``tail``."""
    log = tmp_path / "root" / "_no-cwd" / "s.jsonl"
    log.parent.mkdir(parents=True)
    log.write_bytes(f"{HEADER}\n{TS1}\n{TE1}\n".encode() + tail)
    return tmp_path / "root"


def test_a_complete_line_with_a_wrong_seq_is_not_a_torn_tail(tmp_path: Path) -> None:
    line = b'{"type":"turn/start","seq":5,"time":3,"data":{"turn":2,"trigger":{"kind":"message"}}}\n'
    ran = run("validate", "--json", str(_store(tmp_path, line)))
    assert ran.status == 1
    (session,) = ran.json()["sessions"]
    assert [(v["code"], v["seq"], v["line"]) for v in session["violations"]] == [
        ("SEQ_NOT_CONTIGUOUS", 2, 4)
    ]
    assert session["repair"] is None


@pytest.mark.parametrize(
    "tail",
    [
        b'{"type":"turn/start","seq":2,"ti',  # cut short: no newline
        b'{"type":"turn/start","seq":2,"ti\n',  # garbled, then a newline
        b"\x00\x00\x00\x00\n",  # zeros a crash left
    ],
)
def test_a_torn_line_is_still_a_torn_tail(tmp_path: Path, tail: bytes) -> None:
    ran = run("validate", "--json", str(_store(tmp_path, tail)))
    assert ran.status == 0, ran.stdout
    (session,) = ran.json()["sessions"]
    assert session["violations"] == []
    assert session["repair"] == {"cutRecords": 1, "cutBytes": len(tail), "closers": 0}


def test_rules_all_names_a_broken_header_fold(tmp_path: Path) -> None:
    events = [
        json.loads(TS1),
        {"type": "step/start", "seq": 1, "time": 2, "data": {"turn": 1, "step": 1}},
        {"type": "request/header-delta", "seq": 2, "time": 3, "data": {"config": {"model": "m"}}},
    ]
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in events), "utf-8")
    assert run("validate", "--invariants", str(path)).status == 0
    ran = run("validate", "--rules", "all", "--json", str(path))
    assert ran.status == 1
    (session,) = ran.json()["sessions"]
    assert [(v["code"], v["seq"]) for v in session["violations"]] == [("HEADER_DELTA_BEFORE_SNAPSHOT", 2)]
    assert session["violations"][0]["rule"] == "request headers: a delta follows a snapshot"


def test_invariants_and_rules_seed_contradict() -> None:
    ran = run("validate", "--invariants", "--rules", "seed", "x.jsonl")
    assert ran.status == 2 and "different rules" in ran.stderr

"""``--json`` of the commands outside the session family: ``demo``, ``fixtures generate``,
``conformance generate`` (and ``conformance run``) print one line of JSON, as cli.md promises."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from dsh_session.conformance import generate as generate_module
from tests.cli_support import run


def one_line(stdout: str) -> Any:
    """The JSON document of ``stdout``, which must be exactly one line."""
    assert stdout.endswith("\n") and stdout.count("\n") == 1, stdout[:200]
    return json.loads(stdout)


def test_demo_json_is_one_line() -> None:
    ran = run("demo", "--json")
    assert ran.status == 0
    document = one_line(ran.stdout)
    # The bundled example: 24 events, 5 surface nodes, one replace (docs/cli.md, "demo").
    assert (document["events"], len(document["surface"]), document["generation"]) == (24, 5, 1)
    assert [node["seq"] for node in document["surface"]] == [16, 13, 18, 19, 21]
    assert len(document["messages"]) == 5


def test_fixtures_generate_json_names_what_it_wrote(tmp_path: Path) -> None:
    out = tmp_path / "fixtures"
    rule = ["--rule", "TURN_ALREADY_OPEN", "--format", "jsonl"]
    ran = run("fixtures", "generate", *rule, "--out", str(out), "--json")
    assert ran.status == 0, ran.stderr
    document = one_line(ran.stdout)
    assert {key: document[key] for key in ("out", "format", "seed", "count", "fixtures")} == {
        "out": str(out),
        "format": "jsonl",
        "seed": 0,
        "count": 1,
        "fixtures": 1,
    }
    assert document["files"][-1] == "manifest.json" and len(document["files"]) == 2
    assert all((out / name).is_file() for name in document["files"])
    assert document["manifest"] == json.loads((out / "manifest.json").read_text("utf-8"))
    (entry,) = document["manifest"]["fixtures"]
    assert entry["path"] == document["files"][0].split("/")[0]


def test_fixtures_list_rules_json() -> None:
    ran = run("fixtures", "generate", "--list-rules", "--json")
    assert ran.status == 0
    document = one_line(ran.stdout)
    assert "TURN_ALREADY_OPEN" in document["rules"] and "OPEN_TURN" not in document["rules"]
    assert document["outOfScope"]["OPEN_TURN"].startswith("a rule of the fork API")
    text = run("fixtures", "generate", "--list-rules").stdout.splitlines()
    assert len(text) == len(document["rules"]) + len(document["outOfScope"])


@pytest.mark.parametrize("check", [True, False], ids=["check", "write"])
def test_conformance_generate_json(check: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command's report, on a stand-in for the generator (the real one takes seconds and is
    checked by tests/test_conformance_suite.py)."""
    made = SimpleNamespace(cases=[object()] * 3)
    monkeypatch.setattr(generate_module, "generate_suite", lambda root, workdir=None: made)
    monkeypatch.setattr(generate_module, "stale_files", lambda root, generated: ["cases/a/x.json"])
    monkeypatch.setattr(generate_module, "write_suite", lambda root, generated: ["cases/a/y.json"])
    (tmp_path / "VERSION").write_text("2.0.0\n", "utf-8")  # a suite, as far as the command checks
    ran = run("conformance", "generate", "--suite", str(tmp_path), *(["--check"] if check else []), "--json")
    assert ran.status == (1 if check else 0)
    assert one_line(ran.stdout) == {
        "suite": str(tmp_path),
        "cases": 3,
        "check": check,
        "stale": ["cases/a/x.json"] if check else None,
        "written": None if check else ["cases/a/y.json"],
    }

"""The recorded run of the original against the suite, and the script that checks such a run.

``conformance/adapters/typescript-reference/report-3fe196a751.json`` is the
(trimmed) ``--json`` report of the TypeScript original at ``3fe196a751``
running the whole suite through its adapter (docs/conformance.md, "The
original's run"). The suite's profiles must be what that run showed, and a
case added or reclassified since must come with a new run.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

from dsh_session.conformance.cases import load_suite

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "conformance" / "adapters" / "typescript-reference"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_report", HERE / "check_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _deviations() -> str:
    return (ROOT / "docs" / "deviations.md").read_text("utf-8")


def test_the_recorded_run_is_of_this_suite_and_bears_its_profiles_out() -> None:
    report = json.loads((HERE / "report-3fe196a751.json").read_text("utf-8"))
    suite = load_suite(ROOT / "conformance")
    assert report["suite"]["version"] == suite.version
    assert report["dialect"] == "3fe196a751" and report["profile"] == "strict"
    assert {(c["id"], c["profile"]) for c in report["cases"]} == {(c.id, c.profile) for c in suite.cases}
    found, warnings = _script().problems(report, _deviations())
    assert found == [] and warnings == []
    # C3 is the one addition: the flush policy, a feature the original lacks (docs/deviations.md C3)
    assert _script().additions(_deviations()) == {"C3": "coordinator.flush-policy"}
    core = [c for c in report["cases"] if c["profile"] == "core"]
    assert {c["status"] for c in core} == {"pass", "not-applicable"}
    assert sum(c["status"] == "pass" for c in core) > 500


def _report(*cases: tuple[str, str, str]) -> dict[str, Any]:
    return {
        "profile": "strict",
        "cases": [{"id": i, "area": i.split(".")[0], "profile": p, "status": s} for i, p, s in cases],
    }


def test_the_script_names_each_kind_of_problem() -> None:
    check = _script()
    deviations = "## D1. A thing\n\nConformance: `a.one`, `a.two`.\n\n## D2. Other\n\nConformance: `b.one`.\n"
    good = _report(("a.one", "strict", "fail"), ("a.two", "strict", "not-applicable"),
                   ("b.one", "strict", "fail"), ("c.one", "core", "pass"))
    assert check.problems(good, deviations) == ([], [])
    bad = _report(("a.one", "strict", "pass"), ("a.two", "strict", "not-applicable"),
                  ("b.one", "strict", "not-applicable"), ("c.one", "core", "fail"))
    found, warnings = check.problems(bad, deviations)
    assert any("strict case a.one passes" in p for p in found)
    assert any("core case c.one is fail" in p for p in found)
    assert any(p.startswith("D1: none of its cases") for p in found)
    assert warnings == ["D2: shown only by cases needing features the original lacks (b.one)"]


def test_an_addition_is_shown_only_by_the_original_lacking_its_feature(tmp_path: Path) -> None:
    check = _script()
    deviations = "## C3. A thing\n\nAddition: feature `f.x`. Prose.\n\nConformance: `a.one`, `a.two`.\n"
    for case_id, features in (("a.one", ["f.x"]), ("a.two", ["f.x", "g"]), ("a.three", ["g"])):
        folder = tmp_path / "cases" / "a"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{case_id}.json").write_text(json.dumps({"id": case_id, "features": features}))
    lacking = _report(("a.one", "strict", "not-applicable"), ("a.two", "strict", "not-applicable"))
    assert check.problems(lacking, deviations, tmp_path) == ([], [])
    ran = _report(("a.one", "strict", "fail"), ("a.two", "strict", "not-applicable"))
    assert check.problems(ran, deviations, tmp_path)[0] == [
        "C3: case a.one of the addition f.x is fail on the original, not not-applicable"]
    declared = {**lacking, "features": ["f.x"]}
    assert check.problems(declared, deviations, tmp_path)[0] == [
        "C3: an addition, but the original declares its feature f.x"]
    unneeded = deviations.replace("`a.two`", "`a.three`")
    three = _report(("a.one", "strict", "not-applicable"), ("a.three", "strict", "not-applicable"))
    assert check.problems(three, unneeded, tmp_path)[0] == [
        "C3: case a.three of the addition f.x does not need that feature"]

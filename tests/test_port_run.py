"""The recorded run of a second implementation (the Python port) and the page that classes it.

``conformance/adapters/mini-deepseek-harness-python/report-abb97d2.json`` is the
trimmed ``--json`` report of mini-deepseek-harness-python at ``abb97d2`` run
through our adapter for it (docs/conformance.md, "A second implementation").
The port declares a later dialect, so what ran must be exactly the cases that
hold in every dialect, and every failure must be classed on the adapter's
README: a core failure as a bug of the port, a strict one as this library's
own rule.
"""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path
from typing import Any

from dsh_session.conformance.cases import load_suite
from dsh_session.conformance.protocol import DIALECT, EVERY_DIALECT

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "conformance" / "adapters" / "mini-deepseek-harness-python"


def _report() -> dict[str, Any]:
    report: dict[str, Any] = json.loads((HERE / "report-abb97d2.json").read_text("utf-8"))
    return report


def _classes() -> dict[str, str]:
    """The README's table: case id -> class."""
    text = (HERE / "README.md").read_text("utf-8")
    return dict(re.findall(r"^\| `([a-z0-9.-]+)` \| (bug|strict) \|", text, re.MULTILINE))


def test_the_port_declares_a_later_dialect_and_only_every_dialect_cases_ran() -> None:
    report = _report()
    assert report["dialect"] not in (DIALECT, EVERY_DIALECT)
    suite = {case.id: case for case in load_suite(ROOT / "conformance").cases}
    for case in report["cases"]:
        assert case["id"] in suite, case["id"]
        pinned = suite[case["id"]].dialect == DIALECT
        if pinned:
            assert case["status"] == "not-applicable", case["id"]
    ran = [case for case in report["cases"] if case["status"] != "not-applicable"]
    assert ran and all(suite[case["id"]].dialect == EVERY_DIALECT for case in ran)
    (line,) = [reason for reason in report["summary"]["notApplicable"] if "pins dialect" in reason]
    pinned_count = sum(suite[case["id"]].dialect == DIALECT for case in report["cases"])
    assert report["summary"]["notApplicable"][line] == pinned_count


def test_every_failure_is_classed_on_the_readme() -> None:
    report = _report()
    classes = _classes()
    failed = {case["id"]: case["profile"] for case in report["cases"] if case["status"] in ("fail", "error")}
    assert set(classes) == set(failed)
    for case_id, profile in failed.items():
        assert classes[case_id] == ("bug" if profile == "core" else "strict"), case_id


def test_the_readme_table_of_figures_is_the_report() -> None:
    report = _report()
    text = (HERE / "README.md").read_text("utf-8")
    for profile in ("core", "strict"):
        counts = collections.Counter(c["status"] for c in report["cases"] if c["profile"] == profile)
        row = (
            f"| `{profile}` | {counts['pass']} | {counts['fail']} | {counts['unsupported']} "
            f"| {counts['not-applicable']} |"
        )
        assert row in text, row
        assert report["summary"]["byProfile"][profile]["pass"] == counts["pass"]

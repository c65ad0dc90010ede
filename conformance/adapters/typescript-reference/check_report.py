#!/usr/bin/env python3
"""Check a run of the original against the suite's profiles and docs/deviations.md.

    dsh-session conformance run --profile strict --adapter "node ... adapter.ts CHECKOUT" --json > run.json
    python3 conformance/adapters/typescript-reference/check_report.py run.json

``core`` is exactly what the original does, and every deviation shows a
difference. So, from the original's ``--json`` report of a strict run:

1. every core case it ran passes (or is not applicable: a feature it lacks);
2. no strict case passes (one that does pins no difference: make it core);
3. every section of docs/deviations.md whose "Conformance:" line names cases
   is pinned by at least one case the original fails -- or, for a section
   marked "Addition: feature `F`." (a capability the original lacks
   altogether), the original declares no `F`, every case of the section needs
   `F` and none of them ran on the original. A section that is neither shown
   nor such an addition, but whose cases all need features the original lacks,
   is reported as a warning.

Exit status 0 when all hold (warnings allowed), 1 with one line per problem
otherwise. Standard library only.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def sections(text: str) -> dict[str, list[str]]:
    """Each deviation (D1, D-S3, P2, C8, ...) and the case ids its "Conformance:" line names."""
    return {name: ids for name, (ids, _) in _parse(text).items()}


def additions(text: str) -> dict[str, str]:
    """Each section marked "Addition: feature `F`." and its feature F."""
    return {name: feature for name, (_, feature) in _parse(text).items() if feature is not None}


def _parse(text: str) -> dict[str, tuple[list[str], str | None]]:
    found: dict[str, tuple[list[str], str | None]] = {}
    name, feature = None, None
    for line in text.splitlines():
        heading = re.match(r"^#{2,3} ((?:D|D-[A-Z]|P|C)\d+)\. ", line)
        if heading:
            name, feature = heading.group(1), None
        elif name is not None and (marked := re.match(r"^Addition: feature `([a-z0-9.-]+)`", line)):
            feature = marked.group(1)
        elif name is not None and line.startswith("Conformance: "):
            rest = line.removeprefix("Conformance: ")
            found[name] = ([] if rest.startswith("none") else re.findall(r"`([a-z0-9.-]+)`", rest), feature)
    return found


def _features(case_id: str, suite: Path) -> list[str] | None:
    """The features a case of the suite needs (None: no such case file)."""
    for path in suite.glob(f"cases/*/{case_id}.json"):
        return list(json.loads(path.read_text("utf-8")).get("features", []))
    return None


def problems(
    report: dict, deviations: str, suite: Path = ROOT / "conformance"
) -> tuple[list[str], list[str]]:
    """The problems, and the warnings (deviations shown only by cases the original cannot run)."""
    cases = {case["id"]: case for case in report["cases"]}
    marked = additions(deviations)
    out, warnings = [], []
    if report.get("profile") != "strict":
        out.append("the report is of a run claiming profile {!r}; run with --profile strict".format(report.get("profile")))
    for case in report["cases"]:
        status, profile = case["status"], case["profile"]
        if profile == "core" and status not in ("pass", "not-applicable"):
            out.append(f"core case {case['id']} is {status} on the original: {case.get('message', '')}")
        if profile == "strict" and status == "pass":
            out.append(f"strict case {case['id']} passes on the original: it pins no difference (make it core)")
    for name, ids in sections(deviations).items():
        statuses = [cases.get(i, {}).get("status") for i in ids]
        if name in marked:
            out.extend(_addition_problems(name, marked[name], ids, statuses, report, suite))
            continue
        if not ids or "fail" in statuses:
            continue
        if all(status == "not-applicable" for status in statuses):
            warnings.append(f"{name}: shown only by cases needing features the original lacks ({', '.join(ids)})")
        else:
            out.append(f"{name}: none of its cases ({', '.join(ids)}) fails on the original")
    return out, warnings


def _addition_problems(
    name: str, feature: str, ids: list[str], statuses: list[str | None], report: dict, suite: Path
) -> list[str]:
    """An addition is shown by the original lacking it: no such feature, none of its cases run."""
    out = []
    if not ids:
        out.append(f"{name}: an addition ({feature}) names no case")
    if feature in report.get("features", []):
        out.append(f"{name}: an addition, but the original declares its feature {feature}")
    for case_id, status in zip(ids, statuses, strict=True):
        needs = _features(case_id, suite)
        if needs is None or feature not in needs:
            out.append(f"{name}: case {case_id} of the addition {feature} does not need that feature")
        if status != "not-applicable":
            out.append(
                f"{name}: case {case_id} of the addition {feature} is {status} on the original, not not-applicable"
            )
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: check_report.py REPORT.json", file=sys.stderr)
        return 2
    report = json.loads(Path(argv[1]).read_text("utf-8"))
    found, warnings = problems(report, (ROOT / "docs" / "deviations.md").read_text("utf-8"))
    for warning in warnings:
        print(f"warning: {warning}")
    for problem in found:
        print(problem)
    if not found:
        total = len(report["cases"])
        shown = "every deviation shows a difference" if not warnings else (
            f"every deviation shows a difference but {len(warnings)} the original cannot run")
        marked = sorted(additions((ROOT / "docs" / "deviations.md").read_text("utf-8")))
        if marked:
            shown += f" ({', '.join(marked)}: an addition the original lacks)"
        print(f"ok: {total} cases; core is what the original does; {shown}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

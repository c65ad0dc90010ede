#!/usr/bin/env python3
"""Check a run of the original against the suite's profiles and docs/deviations.md.

    dsh-session conformance run --profile strict --adapter "node ... adapter.ts CHECKOUT" --json > run.json
    python3 conformance/adapters/typescript-reference/check_report.py run.json

``core`` is exactly what the original does, and every deviation shows a
difference. So, from the original's ``--json`` report of a strict run:

1. every core case it ran passes (or is not applicable: a feature it lacks);
2. no strict case passes (one that does pins no difference: make it core);
3. every section of docs/deviations.md whose "Conformance:" line names cases
   is pinned by at least one case the original fails -- or, a weaker state the
   script reports as a warning, every case of it needs a feature the original
   lacks (so the difference cannot be shown on the original at all).

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
    found: dict[str, list[str]] = {}
    name = None
    for line in text.splitlines():
        heading = re.match(r"^#{2,3} ((?:D|D-[A-Z]|P|C)\d+)\. ", line)
        if heading:
            name = heading.group(1)
        elif name is not None and line.startswith("Conformance: "):
            rest = line.removeprefix("Conformance: ")
            found[name] = [] if rest.startswith("none") else re.findall(r"`([a-z0-9.-]+)`", rest)
    return found


def problems(report: dict, deviations: str) -> tuple[list[str], list[str]]:
    """The problems, and the warnings (deviations shown only by cases the original cannot run)."""
    cases = {case["id"]: case for case in report["cases"]}
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
        if not ids or "fail" in statuses:
            continue
        if all(status == "not-applicable" for status in statuses):
            warnings.append(f"{name}: shown only by cases needing features the original lacks ({', '.join(ids)})")
        else:
            out.append(f"{name}: none of its cases ({', '.join(ids)}) fails on the original")
    return out, warnings


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
        print(f"ok: {total} cases; core is what the original does; {shown}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

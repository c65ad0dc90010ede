"""The suite's expected values for the reference's stores agree with what the reference itself did.

The generator computes every expected value from the spec. Here they meet
the reference's own record of loading the same files
(``tests/data/reference-artifacts/*/expected.json``, and the files its load
left behind in ``repaired/``): an independent check that the spec's reading
of a store is the reference's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh_session.conformance.cases import Case, load_suite
from dsh_session.conformance.compare import difference
from tests.reference import RECORDS as REFERENCE
from tests.reference import ROOT

SUITE = load_suite(ROOT / "conformance")
CASES = {case.id: case for case in SUITE.cases}


def _reference_cases(kind: str) -> list[tuple[str, Path]]:
    found = []
    for case_id in sorted(CASES):
        prefix = f"persistence.reference-{kind}-"
        if case_id.startswith(prefix):
            name = case_id.removeprefix(prefix)
            if (REFERENCE / name).is_dir():
                found.append((case_id, REFERENCE / name))
    return found


def _value(case: Case, op: str, nth: int = 0) -> Any:
    values = [step.expect.value for step in case.steps if step.op == op and step.expect.code is None]
    return values[nth]


@pytest.mark.parametrize(("case_id", "folder"), _reference_cases("jsonl") + _reference_cases("sqlite"))
def test_loads_match_the_references_record(case_id: str, folder: Path) -> None:
    case = CASES[case_id]
    sqlite = "-sqlite-" in case_id
    own = folder / "sqlite" / "expected.json"
    record_path = own if sqlite and own.exists() else folder / "expected.json"
    record = json.loads(record_path.read_text("utf-8"))
    loaded = _value(case, "persist.load")
    assert difference(loaded["header"], record["meta"]) is None
    assert difference(loaded["events"], record["events"]) is None
    assert difference(_value(case, "session.surface"), record["surface"]) is None
    assert difference(_value(case, "session.generation"), record["generation"]) is None
    assert difference(_value(case, "session.messages"), record["messages"]) is None


@pytest.mark.parametrize(("case_id", "folder"), [c for c in _reference_cases("jsonl") if "crash" in c[0]])
def test_repaired_jsonl_files_are_the_references_bytes(case_id: str, folder: Path) -> None:
    case = CASES[case_id]
    repaired = list((folder / "repaired" / "jsonl").rglob("*.jsonl"))
    assert len(repaired) == 1
    assert _value(case, "runner.read") == repaired[0].read_bytes().decode("utf-8")


def test_every_reference_store_is_in_the_suite() -> None:
    named = {folder.name for _, folder in _reference_cases("jsonl") + _reference_cases("sqlite")}
    rejects = {
        case_id.removeprefix("persistence.") for case_id in CASES if case_id.startswith("persistence.reject-")
    }
    stores = {p.name for p in REFERENCE.iterdir() if p.is_dir()}
    special = {
        "reject-jsonl-header-version-1",
        "reject-jsonl-invalid-utf8-outside-string",
        "reject-jsonl-null-line-mid-file",
        "jsonl-invalid-utf8-before-torn-tail-offset-bug",
    }
    assert stores <= named | rejects | special
    assert {"persistence.reference-jsonl-header-version-1", "persistence.reference-jsonl-null-line"} <= set(
        CASES
    )

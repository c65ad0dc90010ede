"""The conformance suite itself: well-formed, generated from the spec, and passed by this library.

- every case file validates against ``conformance/schema/case.schema.json`` and
  the runner's own checks; ids are unique;
- regenerating the suite from the scenarios reproduces the files exactly;
- the spec adapter passes every case (the suite agrees with the spec) and so
  does the library, in process and through the example adapter program, in
  both profiles;
- every registry code is expected by some case, and every deviation of
  ``docs/deviations.md`` names strict cases that exist.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from dsh_session.conformance.adapter import InProcessAdapter, SubprocessAdapter
from dsh_session.conformance.cases import SUITE_VERSION, Case, Suite, case_schema, load_suite
from dsh_session.conformance.generate import generate_suite, stale_files
from dsh_session.conformance.protocol import CASE_OPS, PORT_KINDS, RUNNER_OPS
from dsh_session.conformance.python_adapter import LibraryAdapter
from dsh_session.conformance.runner import Report, Runner, select
from dsh_session.conformance.spec_adapter import SpecAdapter
from dsh_spec.codes import Code

ROOT = Path(__file__).resolve().parent.parent
WORKDIR = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
SUITE_DIR = ROOT / "conformance"
EXAMPLE_ADAPTER = SUITE_DIR / "adapters" / "python" / "adapter.py"


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite(SUITE_DIR)


def _failures(report: Report) -> list[str]:
    return [f"{o.id}: {o.status}: {o.message}" for o in report.outcomes if o.status != "pass"]


def test_every_case_file_is_readable_and_ids_are_unique(suite: Suite) -> None:
    assert suite.errors == ()
    assert len(suite.cases) == len({case.id for case in suite.cases})
    assert len(suite.cases) == len(list((SUITE_DIR / "cases").glob("*/*.json")))


def test_every_case_file_validates_against_the_schema() -> None:
    schema = json.loads((SUITE_DIR / "schema" / "case.schema.json").read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    for path in sorted((SUITE_DIR / "cases").glob("*/*.json")):
        for error in validator.iter_errors(json.loads(path.read_text("utf-8"))):
            problems.append(f"{path.name}: {error.message}")
    assert problems == []


def test_the_schema_names_every_operation_and_code() -> None:
    schema = case_schema()
    assert set(schema["$defs"]["step"]["properties"]["op"]["enum"]) == set(CASE_OPS)
    assert set(schema["$defs"]["code"]["enum"]) == {code.value for code in Code}


def test_the_implementers_guide_documents_every_operation_and_server() -> None:
    text = (SUITE_DIR / "README.md").read_text("utf-8")
    table = set(re.findall(r"^\| `([a-z]+\.[a-z_]+)` \|", text, flags=re.MULTILINE))
    assert table == set(CASE_OPS) - RUNNER_OPS
    assert [op for op in sorted(RUNNER_OPS) if f"`{op}`" not in text] == []
    assert [kind for kind in PORT_KINDS if f"| `{kind}` |" not in text] == []


def test_regenerating_the_suite_reproduces_the_files_exactly() -> None:
    assert stale_files(SUITE_DIR, generate_suite(SUITE_DIR, WORKDIR)) == []


def test_the_suite_agrees_with_the_spec(suite: Suite) -> None:
    runner = Runner(InProcessAdapter(SpecAdapter()), suite.artifacts, workdir=WORKDIR)
    report = runner.run(suite, select(suite.cases, "strict"))
    assert _failures(report) == []
    assert report.passed and len(report.outcomes) == len(suite.cases)


@pytest.mark.parametrize("profile", ["core", "strict"])
def test_the_library_passes_in_process(suite: Suite, profile: str) -> None:
    cases = select(suite.cases, profile)
    report = Runner(InProcessAdapter(LibraryAdapter()), suite.artifacts, workdir=WORKDIR).run(
        suite, cases, profile
    )
    assert _failures(report) == []
    assert report.passed and len(report.outcomes) == len(cases) > 0
    assert {o.profile for o in report.outcomes} == ({"core"} if profile == "core" else {"core", "strict"})


def test_the_library_passes_through_the_example_adapter(suite: Suite) -> None:
    adapter = SubprocessAdapter([sys.executable, str(EXAMPLE_ADAPTER)])
    report = Runner(adapter, suite.artifacts, workdir=WORKDIR, timeout=30.0).run(
        suite, select(suite.cases, "strict")
    )
    assert _failures(report) == []
    assert report.implementation["name"] == "dsh-session"


def _expected_codes(case: Case) -> set[str]:
    found = {step.expect.code for step in case.steps if step.expect.code is not None}
    for step in case.steps:
        if step.op == "log.check" and step.expect.code is None:
            found.update(item["code"] for item in step.expect.value)
    return found


#: Registry codes no case can expect, each with the reason (also given in ``docs/conformance.md``,
#: "What it covers"). Empty: the runner plays the servers the connection codes need (a closed
#: port, a PostgreSQL server refusing the login, one dropping the connection), and
#: ``persist.verify`` compares two stores a case prepared, so ``COPY_MISMATCH`` needs no
#: backend that loses data. A code added here must say why no case can produce it.
NOT_COVERABLE: dict[str, str] = {}


def test_every_registry_code_is_expected_by_some_case(suite: Suite) -> None:
    covered: set[str] = set()
    for case in suite.cases:
        covered |= _expected_codes(case)
    assert sorted(code.value for code in Code if code.value not in covered | set(NOT_COVERABLE)) == []
    assert sorted(covered & set(NOT_COVERABLE)) == []  # the list does not go stale
    assert all(reason.strip() for reason in NOT_COVERABLE.values())


#: Headings of docs/deviations.md that group entries rather than being one.
GROUPS = {"Persistence and crash repair (P1-P7)", "The write coordinator (C1-C8)"}


def _deviation_entries() -> dict[str, str]:
    """Every entry of docs/deviations.md by its name (``D1``, ``D-S2``, ``P3``, ``C8``, ...)."""
    text = (ROOT / "docs" / "deviations.md").read_text("utf-8")
    parts = re.split(r"^#{2,3} ", text, flags=re.MULTILINE)[1:]
    entries = {}
    for part in parts:
        title = part.split("\n", 1)[0]
        match = re.match(r"([A-Z][A-Z-]*\d+)\. ", title)
        if match:
            assert match.group(1) not in entries, f"two entries named {match.group(1)}"
            entries[match.group(1)] = part
        else:
            assert title in GROUPS, f"heading {title!r} is neither an entry (NAME. title) nor a group"
    return entries


#: Deviations no adapter can show (docs/deviations.md says why): immutability, canonical form, costs.
UNOBSERVABLE = {"D4", "D5", "D6", "D-S3"}


def test_every_deviation_names_strict_cases_that_exist(suite: Suite) -> None:
    by_id: dict[str, Any] = {case.id: case for case in suite.cases}
    entries = _deviation_entries()
    families = {"D": 8, "D-I": 3, "D-P": 1, "D-S": 5, "D-H": 3, "P": 7, "C": 8, "D-R": 1}
    for family, count in families.items():
        assert {f"{family}{n}" for n in range(1, count + 1)} <= set(entries), family
    assert len(entries) == sum(families.values()), sorted(entries)
    problems = []
    for name, body in entries.items():
        match = re.search(r"^Conformance: (.+)$", body, flags=re.MULTILINE)
        if match is None:
            problems.append(f"{name}: no 'Conformance:' line")
            continue
        if match.group(1).startswith("none"):
            if name not in UNOBSERVABLE:
                problems.append(f"{name}: pinned by no case")
            elif not re.match(r"none -- \S", match.group(1)):
                problems.append(f"{name}: 'none' must say why (none -- <reason>)")
            continue
        if name in UNOBSERVABLE:
            problems.append(f"{name}: listed as unobservable, yet names cases")
        ids = re.findall(r"`([a-z0-9.-]+)`", match.group(1))
        if not ids:
            problems.append(f"{name}: the 'Conformance:' line names no case")
        for case_id in ids:
            case = by_id.get(case_id)
            if case is None:
                problems.append(f"{name}: no case {case_id}")
            elif case.profile != "strict":
                problems.append(f"{name}: {case_id} is not a strict case")
    assert problems == []


def test_the_overview_counts_are_the_suites(suite: Suite) -> None:
    text = (ROOT / "docs" / "conformance.md").read_text("utf-8")
    table = {}
    for area, core, strict in re.findall(r"^\| ([a-z-]+) \| (\d+) \| (\d+) \|", text, flags=re.MULTILINE):
        table[area] = (int(core), int(strict))
    counted: dict[str, tuple[int, int]] = {}
    for case in suite.cases:
        core, strict = counted.get(case.area, (0, 0))
        counted[case.area] = (core + (case.profile == "core"), strict + (case.profile == "strict"))
    assert table == counted
    assert f"{len(suite.cases)} cases in suite version {suite.version}" in text
    assert suite.version == SUITE_VERSION


def _resolves(ref: str) -> bool:
    """Whether a case's ``spec`` reference names something in the repository: a ``dsh_spec`` or
    ``dsh_session`` name that imports, or a document of docs/ with the section, heading, code or
    phrase it names."""
    import importlib

    if ref.startswith(("dsh_spec", "dsh_session")):
        parts = ref.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                found: Any = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for name in parts[cut:]:
                if not hasattr(found, name):
                    return False
                found = getattr(found, name)
            return True
        return False
    document, _, rest = ref.partition(" ")
    path = ROOT / document
    if not document.startswith("docs/") or not path.is_file():
        return False
    text = path.read_text("utf-8")
    if not rest:
        return True
    if rest.startswith("§"):
        label = rest[1:].split(" ")[0]
        labels = {label, label.split(".")[0]}
        return any(re.search(rf"^#+ {re.escape(each)}\b", text, re.MULTILINE) for each in labels)
    if rest.startswith("("):
        return rest.strip("()").lower() in text.lower()
    token = rest.split(" ")[0]
    return re.search(rf"^#+ {re.escape(token)}[. ]", text, re.MULTILINE) is not None or rest in text


def test_every_spec_reference_resolves_to_the_repository(suite: Suite) -> None:
    unresolved = sorted({ref for case in suite.cases for ref in case.spec if not _resolves(ref)})
    assert unresolved == []


def test_the_reference_check_refuses_what_is_not_there() -> None:
    for ref in ("core.md §5.4", "docs/dialect-3fe196a751.md §C99", "docs/deviations.md D99",
                "docs/errors.md NOT_A_CODE_ANYWHERE", "dsh_spec.surface.no_such_function", "docs/nope.md"):
        assert not _resolves(ref), ref
    for ref in ("docs/dialect-3fe196a751.md §C5.4", "docs/dialect-3fe196a751.md §I3.3 I10a",
                "docs/deviations.md D-S1", "docs/errors.md OPEN_TURN", "dsh_spec.surface.fold_surface"):
        assert _resolves(ref), ref


def test_dialect_and_features_are_what_the_steps_say(suite: Suite) -> None:
    """Spot checks of the classification against facts of the cases themselves."""
    by_id = {case.id: case for case in suite.cases}
    for case in suite.cases:
        ops = {step.op for step in case.steps}
        if ops & {"session.messages", "request.check"} or any(op.startswith("persist.") for op in ops):
            assert case.dialect == "3fe196a751", case.id
        kinds = {step.args.get("kind") for step in case.steps if step.op == "persist.open"}
        assert {f"backend.{kind}" for kind in kinds} <= set(case.features), case.id
        if any(op.startswith("coord.") for op in ops):
            assert "coordinator" in case.features, case.id
    # Appends to an unseeded session and surface reads: every dialect; the same after a seed: pinned.
    assert (by_id["surface.append-links"].dialect, by_id["surface.append-links"].features) == ("every", ())
    assert by_id["surface.replace-single-node"].dialect == "3fe196a751"
    assert by_id["fork.unknown-source"].dialect == "every"

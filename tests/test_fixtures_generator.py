"""The invalid-log fixture generator: exactly one rule broken, the named one; deterministic; every rule.

Each fixture is checked here independently of the generator's own checks:
with the spec (``dsh_spec``) and with the implementation (``dsh_session``),
which must agree on the one violation; stores written by the generator are
loaded by our backends, whose verdict must be the manifest's.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import dsh_spec
from dsh_session import (
    DshSessionError,
    JsonlBackend,
    Session,
    SqliteBackend,
    check_log,
    tool_pairing_balanced,
)
from dsh_session.cli import main
from dsh_session.conformance.adapter import InProcessAdapter
from dsh_session.conformance.cases import load_suite
from dsh_session.conformance.fixtures import (
    OUT_OF_SCOPE,
    Fixture,
    FixtureError,
    generate,
    in_scope,
    write_output,
)
from dsh_session.conformance.protocol import decode_args
from dsh_session.conformance.python_adapter import LibraryAdapter
from dsh_session.conformance.runner import Runner
from dsh_spec.codes import Code

WORKDIR = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


@pytest.fixture(scope="module")
def fixtures() -> list[Fixture]:
    return generate(7, 2, workdir=WORKDIR)


def _impl_violations(records: list[Any]) -> list[tuple[str, int | None]]:
    return [(str(v.code), v.seq) for v in check_log(decode_args(records))]


def _spec_violations(records: list[Any]) -> list[tuple[str, int | None]]:
    return [(r.code.value, r.seq) for r in dsh_spec.check_log(decode_args(records))]


def test_every_code_is_in_scope_or_listed_out_of_scope() -> None:
    scoped = set(in_scope())
    assert scoped | set(OUT_OF_SCOPE) == set(Code)
    assert not scoped & set(OUT_OF_SCOPE)
    assert all(reason for reason in OUT_OF_SCOPE.values())


def test_the_default_run_covers_every_in_scope_rule(fixtures: list[Fixture]) -> None:
    assert {f.rule for f in fixtures} == {"VALID", *(code.value for code in in_scope())}
    assert all(sum(f.rule == rule for f in fixtures) == 2 for rule in {f.rule for f in fixtures})


def test_each_log_fixture_breaks_exactly_its_rule(fixtures: list[Fixture]) -> None:
    for fixture in fixtures:
        if fixture.kind != "log":
            continue
        spec = _spec_violations(fixture.records)
        assert [code for code, _ in spec] == [fixture.rule], fixture.id
        assert spec[0][1] == fixture.seq
        assert _impl_violations(fixture.records) == spec, fixture.id
        assert _spec_violations(fixture.base) == [] and _impl_violations(fixture.base) == []


def test_header_and_pairing_fixtures_break_only_their_rule(fixtures: list[Fixture]) -> None:
    for fixture in fixtures:
        if fixture.kind not in ("header", "pairing"):
            continue
        assert _spec_violations(fixture.records) == [] and _impl_violations(fixture.records) == []
        assert _spec_violations(fixture.base) == []
        session = Session("f", seed=fixture.records, clock=lambda: 0)
        with pytest.raises(DshSessionError) as raised:
            if fixture.kind == "header":
                session.request_header()
            else:
                tool_pairing_balanced(session.surface.nodes, session.events)
        assert raised.value.code == fixture.rule
        base = Session("b", seed=fixture.base, clock=lambda: 0)
        base.request_header()
        tool_pairing_balanced(base.surface.nodes, base.events)


def test_valid_fixtures_keep_every_rule(fixtures: list[Fixture]) -> None:
    for fixture in (f for f in fixtures if f.kind == "valid"):
        assert _spec_violations(fixture.records) == [] == _impl_violations(fixture.records)
        Session("v", seed=fixture.records, invariants=True, clock=lambda: 0)


def test_the_same_seed_gives_the_same_fixtures() -> None:
    first = [f.manifest() | {"records": f.records} for f in generate(11, 1)]
    again = [f.manifest() | {"records": f.records} for f in generate(11, 1)]
    other = [f.manifest() | {"records": f.records} for f in generate(12, 1)]
    assert first == again
    assert first != other


@pytest.mark.parametrize("output", ["jsonl", "sqlite"])
def test_stores_load_in_our_backends_as_the_manifest_says(output: str) -> None:
    with tempfile.TemporaryDirectory(dir=WORKDIR) as scratch:
        _check_stores(Path(scratch), output)


def _check_stores(tmp_path: Path, output: str) -> None:
    made = generate(3, 1, format=output, workdir=WORKDIR)
    write_output(made, output, tmp_path, seed=3, count=1, workdir=WORKDIR)
    manifest = json.loads((tmp_path / "manifest.json").read_text("utf-8"))
    checked = 0
    for entry in manifest["fixtures"]:
        path = tmp_path / entry["path"]
        got: str | None = None
        try:
            backend = JsonlBackend(path) if path.is_dir() else SqliteBackend(path)
            try:
                backend.load(entry["session"])
            finally:
                backend.close()
        except DshSessionError as error:
            got = str(error.code)
        assert got == entry["load"], entry["id"]
        checked += 1
    assert checked == len(made)
    refused = {entry["rule"] for entry in manifest["fixtures"] if entry["load"] == entry["rule"]}
    assert {
        "STORE_CORRUPT",
        "STORE_VERSION_UNSUPPORTED",
        "MISSING_SURFACE_OP",
        "REPLACE_RANGE_REVERSED",
    } <= refused


def test_a_corrupt_store_fixture_is_damaged_before_its_last_turn_end() -> None:
    """The damaged record always lies in the committed region: a damaged final turn/end would
    only be a torn tail, which a load cuts (seed 7 once drew exactly that). The place is drawn
    alike for both formats."""
    for seed in range(6):
        made = generate(seed, 4, [Code.STORE_CORRUPT.value], format="jsonl", workdir=WORKDIR)
        for fixture in made:
            assert fixture.store is not None
            at = fixture.store["damage"]["at"]
            ends = [i for i, r in enumerate(fixture.records) if r["type"] == "turn/end"]
            assert at < ends[-1], fixture.id


def test_the_same_seed_writes_the_same_files(tmp_path: Path) -> None:
    for name in ("a", "b"):
        made = generate(4, 1, format="jsonl", workdir=WORKDIR)
        write_output(made, "jsonl", tmp_path / name, seed=4, count=1, workdir=WORKDIR)
    files_a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert files_a == files_b and len(files_a) > 30
    for relative in files_a:
        assert (tmp_path / "a" / relative).read_bytes() == (tmp_path / "b" / relative).read_bytes()


def test_case_output_is_a_suite_the_library_passes(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        [
            "fixtures",
            "generate",
            "--seed",
            "9",
            "--count",
            "1",
            "--rule",
            "TURN_END_MISMATCH",
            "--rule",
            "store-corrupt",
            "--rule",
            "VALID",
            "--format",
            "case",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    suite = load_suite(tmp_path)
    assert suite.errors == ()
    assert sorted(case.id for case in suite.cases) == [
        "fixtures.store-corrupt-1",
        "fixtures.turn-end-mismatch-1",
        "fixtures.valid-1",
    ]
    report = Runner(InProcessAdapter(LibraryAdapter()), suite.artifacts, workdir=WORKDIR).run(
        suite, suite.cases
    )
    assert [o.status for o in report.outcomes] == ["pass"] * 3


def test_out_of_scope_and_unknown_rules_are_refused() -> None:
    with pytest.raises(FixtureError, match="out of scope"):
        generate(0, 1, ["SESSION_NOT_FOUND"])
    with pytest.raises(FixtureError, match="not a registry code"):
        generate(0, 1, ["NO_SUCH_RULE"])
    with pytest.raises(FixtureError, match="cannot be broken in a jsonl store"):
        generate(0, 1, ["STORE_SCHEMA_MISMATCH"], format="jsonl")
    result = CliRunner().invoke(
        main, ["fixtures", "generate", "--rule", "OPEN_TURN", "--out", "/nonexistent/x"]
    )
    assert result.exit_code == 2
    assert result.output.startswith("dsh-session: error: ") and "out of scope" in result.output
    assert result.output.count("\n") == 1  # one line, no usage text, no traceback


def test_list_rules_names_every_code() -> None:
    result = CliRunner().invoke(main, ["fixtures", "generate", "--list-rules"])
    assert result.exit_code == 0
    assert {line.split(":")[0] for line in result.output.splitlines()} == {code.value for code in Code}
    assert CliRunner().invoke(main, ["fixtures", "generate"]).exit_code == 2

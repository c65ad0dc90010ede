"""The runner against deliberately wrong adapters: every misbehaviour is reported, the run goes on.

Each test runs part of the real suite through ``tests/sabotage_adapter.py``,
which misbehaves on one operation, and checks the outcome of every case
against what the case's own steps say must happen -- computed from the case
file, not from any run.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from dsh_session.cli import main
from dsh_session.conformance.adapter import AdapterUnavailable, InProcessAdapter, SubprocessAdapter
from dsh_session.conformance.cases import Case, Suite, load_suite
from dsh_session.conformance.python_adapter import LibraryAdapter
from dsh_session.conformance.runner import Runner, load_skips, select

ROOT = Path(__file__).resolve().parent.parent
WORKDIR = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
SUITE_DIR = ROOT / "conformance"
SABOTAGE = Path(__file__).resolve().parent / "sabotage_adapter.py"


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite(SUITE_DIR)


def reached(case: Case) -> list[int]:
    """The steps a correct eager implementation is asked to carry out (a window ends the case)."""
    out = []
    for index, step in enumerate(case.steps):
        out.append(index)
        if step.expect.code is not None and step.expect.by is not None and step.expect.by > index:
            break
    return out


def expected_status(case: Case, mode: str, target: str) -> str:
    """What the runner must report for ``case`` when the adapter misbehaves as ``mode`` on ``target``."""
    for index in reached(case):
        step = case.steps[index]
        if step.op != target:
            continue
        expect = step.expect
        if mode == "value":
            return "fail"
        if mode in ("code", "uncoded", "swallow"):
            if expect.code is not None:
                return "fail"
            continue
        if mode == "lazy":
            if expect.code is None:
                continue
            return "pass" if expect.by is not None and expect.by > index else "fail"
        if mode == "unsupported":
            return "unsupported"
        return "error"  # crash, hang, garbage, wrong-id, chatter
    return "pass"


def cases_using(suite: Suite, target: str, limit: int = 4) -> list[Case]:
    """Cases that reach ``target`` and some that do not, so both outcomes are seen."""
    using = [case for case in suite.cases if any(case.steps[i].op == target for i in reached(case))]
    other = [case for case in suite.cases if case not in using]
    chosen = using[:limit] + other[:3]
    assert using, f"no case uses {target}"
    return chosen


@pytest.mark.parametrize(
    ("mode", "target"),
    [
        ("value", "session.surface"),
        ("code", "session.append"),
        ("uncoded", "session.append"),
        ("swallow", "session.append"),
        ("lazy", "session.append"),
        ("unsupported", "session.messages"),
        ("crash", "session.generation"),
        ("garbage", "session.event_message"),
        ("wrong-id", "session.events"),
        ("chatter", "session.surface"),
    ],
)
def test_the_runner_reports_each_misbehaviour_and_goes_on(suite: Suite, mode: str, target: str) -> None:
    cases = cases_using(suite, target)
    adapter = SubprocessAdapter([sys.executable, str(SABOTAGE), mode, target])
    report = Runner(adapter, suite.artifacts, workdir=WORKDIR, timeout=20.0).run(suite, cases)
    got = {o.id: o.status for o in report.outcomes}
    want = {case.id: expected_status(case, mode, target) for case in cases}
    assert got == want
    assert set(want.values()) - {"pass"}, "the sabotage never mattered"
    assert "pass" in want.values()
    assert not report.passed
    for outcome in report.outcomes:
        if outcome.status != "pass":
            assert outcome.step is not None or outcome.status == "error"
            assert outcome.message


def test_a_crash_report_quotes_the_adapters_stderr(suite: Suite) -> None:
    cases = cases_using(suite, "session.generation", limit=1)[:1]
    adapter = SubprocessAdapter([sys.executable, str(SABOTAGE), "crash", "session.generation"])
    outcome = Runner(adapter, suite.artifacts, workdir=WORKDIR).run(suite, cases).outcomes[0]
    assert outcome.status == "error"
    assert "exited (status 3)" in outcome.message
    assert "crashing on purpose" in outcome.message


def test_a_hanging_adapter_times_out_and_the_run_goes_on(suite: Suite) -> None:
    hanging = cases_using(suite, "session.invalidate", limit=1)[:1]
    fine = [case for case in suite.cases if all(step.op != "session.invalidate" for step in case.steps)][:3]
    adapter = SubprocessAdapter([sys.executable, str(SABOTAGE), "hang", "session.invalidate"])
    report = Runner(adapter, suite.artifacts, workdir=WORKDIR, timeout=1.0).run(suite, hanging + fine)
    statuses = [o.status for o in report.outcomes]
    assert statuses == ["error", "pass", "pass", "pass"]
    assert "timeout" in report.outcomes[0].message


def test_an_adapter_program_that_cannot_start_stops_the_run_once(suite: Suite) -> None:
    adapter = SubprocessAdapter([str(ROOT / "no-such-adapter")])
    with pytest.raises(AdapterUnavailable, match=r"cannot start the adapter .*no-such-adapter"):
        Runner(adapter, suite.artifacts, workdir=WORKDIR).run(suite, suite.cases[:5])
    result = CliRunner().invoke(
        main, ["conformance", "run", "--suite", str(SUITE_DIR), "--adapter", str(ROOT / "no-such-adapter")]
    )
    assert result.exit_code == 2
    assert result.output.startswith("dsh-session: error: cannot start the adapter ")
    assert result.output.count("\n") == 1 and "no case was run" in result.output


def test_an_adapter_of_another_protocol_stops_the_run_once(suite: Suite) -> None:
    adapter = SubprocessAdapter([sys.executable, str(SABOTAGE), "protocol", "hello"])
    with pytest.raises(AdapterUnavailable, match="speaks protocol 99"):
        Runner(adapter, suite.artifacts, workdir=WORKDIR).run(suite, suite.cases[:3])


def test_a_runner_step_on_files_the_implementation_did_not_leave_is_a_failure(suite: Suite) -> None:
    """``runner.read`` of a file the adapter should have written: the implementation's fault."""
    case = next(c for c in suite.cases if c.id == "persistence.jsonl-bytes")
    ops = [step.op for step in case.steps]
    assert ops[:4] == ["persist.open", "persist.create", "persist.append", "runner.read"]
    adapter = SubprocessAdapter([sys.executable, str(SABOTAGE), "no-files", "persist.create,persist.append"])
    outcome = Runner(adapter, suite.artifacts, workdir=WORKDIR).run(suite, [case]).outcomes[0]
    assert (outcome.status, outcome.step) == ("fail", 3), outcome
    assert "runner.read failed" in outcome.message and "the files the implementation left" in outcome.message


def test_per_case_timings_and_the_junit_report(tmp_path: Path, suite: Suite) -> None:
    junit = tmp_path / "out" / "report.xml"
    junit.parent.mkdir()
    sabotage = f"{sys.executable} {SABOTAGE} value session.surface"
    result = CliRunner().invoke(
        main,
        ["conformance", "run", "--suite", str(SUITE_DIR), "--adapter", sabotage, "--area", "surface",
         "--json", "--junit", str(junit)],
    )
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    cases = report["cases"]
    assert all(type(c["seconds"]) is float and c["seconds"] >= 0 for c in cases)
    assert sum(c["seconds"] for c in cases) <= report["seconds"] + 0.01
    tree = ElementTree.parse(junit).getroot()
    assert tree.tag == "testsuites"
    testcases = tree.findall("./testsuite/testcase")
    assert [(c.get("classname"), c.get("name")) for c in testcases] == [("surface", c["id"]) for c in cases]
    failed = {c["id"] for c in cases if c["status"] == "fail"}
    assert failed and failed != {c["id"] for c in cases}
    assert {c.get("name") for c in testcases if c.find("failure") is not None} == failed
    assert int(tree.get("failures", "-1")) == len(failed) and int(tree.get("tests", "-1")) == len(cases)
    assert all(float(c.get("time", "-1")) >= 0 for c in testcases)


def test_the_work_directory_is_made_when_missing(tmp_path: Path) -> None:
    workdir = tmp_path / "not" / "yet"
    result = CliRunner().invoke(
        main, ["conformance", "run", "--suite", str(SUITE_DIR), "--area", "store", "--workdir", str(workdir)]
    )
    assert result.exit_code == 0, result.output
    assert workdir.is_dir() and not any(workdir.iterdir())  # made, and left clean


def test_generate_with_a_folder_that_is_not_a_suite_is_a_one_line_user_error(tmp_path: Path) -> None:
    for folder in (tmp_path / "missing", tmp_path):
        result = CliRunner().invoke(main, ["conformance", "generate", "--suite", str(folder)])
        assert result.exit_code == 2, result.output
        assert result.output.startswith("dsh-session: error: ") and result.output.count("\n") == 1
        assert "not a conformance suite" in result.output
    assert not any(tmp_path.iterdir())


def _small_suite(tmp_path: Path, suite: Suite, count: int = 4) -> Path:
    root = tmp_path / "suite"
    (root / "cases").mkdir(parents=True)
    shutil.copy(SUITE_DIR / "VERSION", root / "VERSION")
    (root / "artifacts").mkdir()
    for case in suite.cases[:count]:
        target = root / "cases" / case.area / f"{case.id}.json"
        target.parent.mkdir(exist_ok=True)
        shutil.copy(SUITE_DIR / "cases" / case.area / f"{case.id}.json", target)
    return root


def test_a_malformed_case_file_is_reported_by_name_and_the_run_goes_on(tmp_path: Path, suite: Suite) -> None:
    root = _small_suite(tmp_path, suite)
    area = suite.cases[0].area
    (root / "cases" / area / f"{area}.broken.json").write_text('{"id": "broken", "steps": 3}', "utf-8")
    (root / "cases" / area / f"{area}.not-json.json").write_text("{", "utf-8")
    small = load_suite(root)
    assert len(small.errors) == 2 and len(small.cases) == 4
    report = Runner(InProcessAdapter(LibraryAdapter()), small.artifacts, workdir=WORKDIR).run(
        small, small.cases
    )
    statuses = sorted((o.id, o.status) for o in report.outcomes)
    assert [s for _, s in statuses].count("error") == 2
    assert [s for _, s in statuses].count("pass") == 4
    assert {o.id for o in report.outcomes if o.status == "error"} == {f"{area}.broken", f"{area}.not-json"}
    assert not report.passed


def test_a_filtered_run_still_reports_the_malformed_files_it_would_have_run(
    tmp_path: Path, suite: Suite
) -> None:
    root = _small_suite(tmp_path, suite)
    area = suite.cases[0].area
    (root / "cases" / area / f"{area}.not-json.json").write_text("{", "utf-8")
    runner = CliRunner()
    for options in (["--area", area], ["--id", f"{area}.not-*"], ["--id", f"{area}.*"]):
        result = runner.invoke(main, ["conformance", "run", "--suite", str(root), *options, "--json"])
        assert result.exit_code == 1, (options, result.output)
        report = json.loads(result.output)
        assert report["passed"] is False
        assert f"{area}.not-json" in {o["id"] for o in report["cases"] if o["status"] == "error"}
    other = next(c for c in suite.cases if c.area != area).area
    (root / "cases" / other).mkdir(exist_ok=True)
    shutil.copy(
        SUITE_DIR / "cases" / other / f"{next(c for c in suite.cases if c.area == other).id}.json",
        root / "cases" / other,
    )
    result = runner.invoke(main, ["conformance", "run", "--suite", str(root), "--area", other, "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["summary"]["total"] == 1  # not this area's


def test_a_filter_that_matches_nothing_is_an_error_not_a_pass(tmp_path: Path, suite: Suite) -> None:
    root = _small_suite(tmp_path, suite)
    runner = CliRunner()
    for options in (["--area", "nosuch"], ["--id", "zzz*"]):
        result = runner.invoke(main, ["conformance", "run", "--suite", str(root), *options])
        assert result.exit_code == 2, (options, result.output)
        assert result.output.startswith("dsh-session: error: ") and result.output.count("\n") == 1


def test_skips_fixed_and_unused_entries(tmp_path: Path, suite: Suite) -> None:
    cases = cases_using(suite, "session.surface", limit=2)[:2]
    skip_file = tmp_path / "skips.json"
    skip_file.write_text(
        json.dumps(
            {cases[0].id: "known: surface is wrong", cases[1].id: "stale entry", "nothing.*": "unused"}
        ),
        "utf-8",
    )
    skips = load_skips(skip_file)
    # cases[0] fails under the sabotage (skipped); make cases[1] pass by running it without sabotage.
    adapter = SubprocessAdapter([sys.executable, str(SABOTAGE), "value", "session.surface"])
    report = Runner(adapter, suite.artifacts, workdir=WORKDIR).run(suite, cases[:1], skips=skips)
    assert [o.status for o in report.outcomes] == ["skip"]
    assert report.outcomes[0].reason == "known: surface is wrong"
    assert report.passed
    report = Runner(InProcessAdapter(LibraryAdapter()), suite.artifacts, workdir=WORKDIR).run(
        suite, cases[1:], skips=skips
    )
    assert [o.status for o in report.outcomes] == ["fixed"]
    assert not report.passed
    assert report.unused_skips == sorted([cases[0].id, "nothing.*"])


def test_the_command_line_exit_status_follows_the_claimed_profile(tmp_path: Path, suite: Suite) -> None:
    runner = CliRunner()
    areas = ["--area", "store", "--area", "fork"]
    result = runner.invoke(
        main, ["conformance", "run", "--suite", str(SUITE_DIR), "--profile", "core", *areas, "--json"]
    )
    assert result.exit_code == 0, result.output
    assert result.output.count("\n") == 1  # one line, as every --json
    report = json.loads(result.output)
    assert report["passed"] is True and report["profile"] == "core"
    assert set(report["summary"]["byProfile"]) == {"core"}
    assert report["summary"]["total"] == len(select(suite.cases, "core", areas=["store", "fork"])) > 30
    sabotage = f"{sys.executable} {SABOTAGE} value session.surface"
    result = runner.invoke(
        main, ["conformance", "run", "--suite", str(SUITE_DIR), "--adapter", sabotage, "--area", "surface"]
    )
    assert result.exit_code == 1
    assert "FAIL" in result.output and "surface." in result.output
    result = runner.invoke(main, ["conformance", "run", "--suite", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.startswith("dsh-session: error: ") and result.output.count("\n") == 1

"""``dsh-session conformance run|generate`` and ``dsh-session fixtures generate``."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from dsh_session.cli._app import main
from dsh_session.cli._errors import fail
from dsh_session.cli._options import no_color_option
from dsh_session.cli._output import output

_DEFAULT_SUITE = "conformance"

F = TypeVar("F", bound=Callable[..., Any])


@main.group()
def conformance() -> None:
    """Run the language-neutral conformance suite, or regenerate it from the spec."""


def _suite_path(path: str | None) -> Path:
    """``--suite``, else ``conformance/`` here or in a directory above, else the suite installed
    with this package (``dsh_session/_suite``), else the suite of the source tree this package
    runs from (a clone, installed editable)."""
    if path is not None:
        return Path(path)
    here = Path.cwd()
    package = Path(__file__).resolve().parents[1]
    candidates = [base / _DEFAULT_SUITE for base in (here, *here.parents)]
    candidates += [package / "_suite", package.parents[1] / _DEFAULT_SUITE]
    for candidate in candidates:
        if (candidate / "VERSION").is_file():
            return candidate
    raise click.UsageError("no conformance suite found here or above; give --suite DIR")


def _choice_option(*names: str, choices: list[str], default: str, help: str) -> Callable[[F], F]:
    """An option taking one of ``choices``, with its default shown in ``--help``."""
    return click.option(*names, type=click.Choice(choices), default=default, show_default=True, help=help)


_suite_option = click.option(
    "--suite",
    "suite_dir",
    type=click.Path(file_okay=False),
    help="The suite directory (default: conformance/ here or above, or the source tree's).",
)


@conformance.command("run")
@_suite_option
@click.option(
    "--adapter", "command", help='An adapter program, e.g. "node adapter.js" (default: in process).'
)
@_choice_option(
    "--builtin",
    choices=["python", "spec"],
    default="python",
    help="The in-process adapter when no --adapter is given: this library, or the executable spec.",
)
@_choice_option(
    "--profile",
    choices=["core", "strict"],
    default="strict",
    help="The profile the implementation claims (strict includes core).",
)
@click.option("--skip", "skip_file", type=click.Path(dir_okay=False), help="A skip file (case id -> reason).")
@click.option("--id", "ids", multiple=True, help="Run only cases whose id matches this pattern (repeatable).")
@click.option("--area", "areas", multiple=True, help="Run only cases of this area (repeatable).")
@click.option("--timeout", default=10.0, show_default=True, help="Seconds allowed for one case.")
@click.option("--json", "as_json", is_flag=True, help="Print the machine-readable report.")
@click.option(
    "--junit",
    "junit_file",
    type=click.Path(dir_okay=False),
    help="Also write the report as JUnit XML to this file (for CI systems).",
)
@click.option("--verbose", "-v", is_flag=True, help="List every case, not only the ones that did not pass.")
@click.option("--workdir", type=click.Path(file_okay=False), help="Where each case's temporary files go.")
@no_color_option
def run(
    suite_dir: str | None,
    command: str | None,
    builtin: str,
    profile: str,
    skip_file: str | None,
    ids: tuple[str, ...],
    areas: tuple[str, ...],
    timeout: float,
    as_json: bool,
    junit_file: str | None,
    verbose: bool,
    workdir: str | None,
    no_color: bool,
) -> None:
    """Run the suite and report pass / fail / skip per case, per profile and per area.

    The exit status is 0 when every case of the claimed profile passes (or is
    skipped by the skip file), 1 otherwise, 2 for a usage error.
    """
    from dsh_session.conformance.adapter import (
        Adapter,
        AdapterUnavailable,
        InProcessAdapter,
        SubprocessAdapter,
    )
    from dsh_session.conformance.cases import AREAS, SuiteError, load_suite
    from dsh_session.conformance.report import junit_xml, print_report
    from dsh_session.conformance.runner import Runner, SkipFileError, load_skips, select, select_errors

    root = _suite_path(suite_dir)
    try:
        suite = load_suite(root)
        skips = load_skips(Path(skip_file)) if skip_file else {}
    except (SuiteError, SkipFileError) as error:
        fail(str(error))
    adapter: Adapter
    if command:
        adapter = SubprocessAdapter(command)
    elif builtin == "spec":
        from dsh_session.conformance.spec_adapter import SpecAdapter

        adapter = InProcessAdapter(SpecAdapter())
    else:
        from dsh_session.conformance.python_adapter import LibraryAdapter

        adapter = InProcessAdapter(LibraryAdapter())
    unknown = [area for area in areas if area not in AREAS]
    if unknown:
        fail(f"no area {', '.join(map(repr, unknown))} in the suite; the areas are: {', '.join(AREAS)}")
    cases = select(suite.cases, profile, ids, areas)
    errors = select_errors(suite.errors, ids, areas)
    if not cases and not errors:
        wanted = " ".join([*(f"--id {i}" for i in ids), *(f"--area {a}" for a in areas)])
        fail(f"no case of {root} matches {wanted or 'the suite'} in profile {profile}: nothing to run")
    if workdir is not None:
        try:
            Path(workdir).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            fail(f"cannot make the work directory {workdir}: {error.strerror or error}")
    runner = Runner(adapter, suite.artifacts, timeout=timeout, workdir=workdir)
    try:
        report = runner.run(suite, cases, profile, skips, errors=errors)
    except AdapterUnavailable as error:
        fail(f"{error}; no case was run")
    if junit_file is not None:
        try:
            Path(junit_file).write_text(junit_xml(report), "utf-8")
        except OSError as error:
            fail(f"cannot write the JUnit report {junit_file}: {error.strerror or error}")
    if as_json:
        click.echo(_one_line(report.to_json()))
    else:
        print_report(report, verbose=verbose, console=output(no_color).console)
    sys.exit(0 if report.passed else 1)


@conformance.command("generate")
@_suite_option
@click.option("--check", is_flag=True, help="Only report files that differ from what would be written.")
@click.option("--json", "as_json", is_flag=True, help="Print a one-line JSON summary.")
@no_color_option
def generate(suite_dir: str | None, check: bool, as_json: bool, no_color: bool) -> None:
    """Regenerate the case files from the scenarios, every expected value from the spec.

    ``--json`` prints ``{"suite", "cases", "check", "stale", "written"}``: the
    files that differ (``--check``; ``written`` is null) or the files written or
    removed (``stale`` is null).
    """
    from dsh_session.conformance.cases import SuiteError, read_version
    from dsh_session.conformance.fixtures import FixtureError
    from dsh_session.conformance.generate import GenerationError, generate_suite, stale_files, write_suite

    root = _suite_path(suite_dir)
    try:
        read_version(root)  # a suite to regenerate: its VERSION, and the artifacts beside it
    except SuiteError as error:
        fail(str(error))
    try:
        made = generate_suite(root)
    except (GenerationError, FixtureError) as error:
        fail(str(error))
    summary: dict[str, Any] = {"suite": str(root), "cases": len(made.cases), "check": check}
    if check:
        stale = stale_files(root, made)
        if as_json:
            click.echo(_one_line({**summary, "stale": stale, "written": None}))
        else:
            for name in stale:
                click.echo(f"stale: {name}")
            click.echo(f"{len(made.cases)} cases; {len(stale)} file(s) differ from the scenarios")
        sys.exit(1 if stale else 0)
    changed = write_suite(root, made)
    if as_json:
        click.echo(_one_line({**summary, "stale": None, "written": changed}))
        return
    click.echo(f"{len(made.cases)} cases; {len(changed)} file(s) written or removed")


@main.group()
def fixtures() -> None:
    """Generate logs and stores that break exactly one named rule (and valid ones beside them)."""


@fixtures.command("generate")
@click.option(
    "--seed", type=int, default=0, show_default=True, help="The random seed: same seed, same files."
)
@click.option("--count", type=click.IntRange(min=1), default=1, show_default=True, help="Fixtures per rule.")
@click.option(
    "--rule", "rules", multiple=True, help="A registry code to break, or VALID (repeatable; default: all)."
)
@_choice_option(
    "--format",
    "output",
    choices=["case", "jsonl", "sqlite"],
    default="case",
    help="Conformance cases (a runnable mini-suite), JSONL session stores, or SQLite databases.",
)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), help="The output directory (required).")
@click.option("--list-rules", is_flag=True, help="List the rules fixtures can break, and those out of scope.")
@click.option("--json", "as_json", is_flag=True, help="Print a one-line JSON summary with the manifest.")
@no_color_option
def fixtures_generate(
    seed: int,
    count: int,
    rules: tuple[str, ...],
    output: str,
    out_dir: str | None,
    list_rules: bool,
    as_json: bool,
    no_color: bool,
) -> None:
    """Write fixtures, each invalid one breaking exactly ONE rule (checked against the spec).

    Every output has a manifest.json naming, per fixture, the rule, the seq of
    the bad record, what check_log, seeding and (for stores) loading give.
    ``--json`` prints ``{"out", "format", "seed", "count", "fixtures", "files",
    "manifest"}`` (the manifest as written); with ``--list-rules``,
    ``{"rules": [...], "outOfScope": {code: why}}``.
    """
    from dsh_session.conformance.fixtures import OUT_OF_SCOPE, FixtureError, generate, in_scope, write_output

    if list_rules and as_json:
        out_of_scope = {code.value: why for code, why in OUT_OF_SCOPE.items()}
        click.echo(_one_line({"rules": [code.value for code in in_scope()], "outOfScope": out_of_scope}))
        return
    if list_rules:
        for code in in_scope():
            click.echo(code.value)
        for code, why in OUT_OF_SCOPE.items():
            click.echo(f"{code.value}: out of scope: {why}")
        return
    if out_dir is None:
        raise click.UsageError("--out DIR is required")
    out = Path(out_dir)
    try:
        made = generate(seed, count, rules or None, format=output)
        written = write_output(made, output, out, seed=seed, count=count)
    except FixtureError as error:
        fail(str(error))
    if as_json:
        manifest = json.loads((out / "manifest.json").read_text("utf-8"))
        summary = {
            "out": str(out),
            "format": output,
            "seed": seed,
            "count": count,
            "fixtures": len(made),
            "files": written,
            "manifest": manifest,
        }
        click.echo(_one_line(summary))
        return
    click.echo(f"{len(made)} fixture(s), {len(written)} file(s) written to {out}")


def _one_line(document: Any) -> str:
    """``document`` as one line of JSON (as every ``--json`` prints)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))

"""The suite generator: scenarios in, case files out, every expected value from the spec.

Each scenario (:mod:`.scenarios`) runs step by step through the spec adapter
(:class:`~.spec_adapter.SpecAdapter`); whatever the spec returns becomes the
step's ``{"ok": ...}``, and a step the scenario marks as failing must fail in
the spec with that very code (or generation stops: the scenario says one
thing and the spec another). Values a scenario pins with ``want=`` are
checked too. The output is deterministic: the same scenarios always give the
same bytes, and :func:`stale_files` tells whether the files on disk are what
the generator writes now.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dsh_session.conformance.adapter import Reply, reply_for
from dsh_session.conformance.cases import Case, Expect, Step, case_text, parse_case, schema_text
from dsh_session.conformance.classify import dialect_of, features_of
from dsh_session.conformance.compare import difference
from dsh_session.conformance.protocol import RUNNER_OPS
from dsh_session.conformance.reference_run import profile_of
from dsh_session.conformance.scenario import Scenario
from dsh_session.conformance.spec_adapter import SpecAdapter
from dsh_session.conformance.workspace import Workspace


class GenerationError(Exception):
    """A scenario the spec does not bear out (or that is not a valid case)."""


def build_case(scenario: Scenario, artifacts: Path, workdir: str | None = None) -> Case:
    """Run ``scenario`` through the spec and record every step's expected outcome."""
    spec = SpecAdapter()
    steps: list[Step] = []
    acts = scenario.steps
    with Workspace(artifacts, workdir) as workspace:
        root = str(workspace.root)
        for index, act in enumerate(acts):
            where = f"{scenario.id}: step {index} ({act.op})"
            args = workspace.resolve(act.args)
            reply = (
                Reply("ok", workspace.run(act.op, args))
                if act.op in RUNNER_OPS
                else reply_for(spec, act.op, args)
            )
            if reply.kind == "unsupported":
                raise GenerationError(f"{where}: the spec adapter cannot do it: {reply.message}")
            if act.error is not None:
                if reply.kind != "error" or reply.code != act.error.value:
                    got = f"{reply.code} ({reply.message})" if reply.kind == "error" else "a value"
                    raise GenerationError(
                        f"{where}: the scenario expects {act.error.value}, the spec gives {got}"
                    )
                by = index + act.lazy
                expect = Expect(code=act.error.value, by=by)
                if act.lazy == 0:
                    steps.append(Step(act.op, act.args, expect))
                    continue
                if by != len(acts) - 1:
                    raise GenerationError(f"{where}: an error window must end at the last step")
                steps.extend(Step(later.op, later.args, expect) for later in acts[index : by + 1])
                break
            if reply.kind == "error":
                raise GenerationError(f"{where}: the spec raised {reply.code}: {reply.message}")
            value = _plain(reply.value)
            if root in json.dumps(value):
                raise GenerationError(f"{where}: the value depends on the temporary directory")
            if act.has_want:
                found = difference(value, _plain(act.want))
                if found is not None:
                    raise GenerationError(
                        f"{where}: the scenario pins a value the spec does not give: {found}"
                    )
            steps.append(Step(act.op, act.args, Expect(value=value)))
    made = tuple(steps)
    dialect = dialect_of([(step.op, step.args, step.expect.code is None) for step in made])
    features = features_of((step.op, step.args) for step in made)
    case = Case(
        scenario.id,
        scenario.description,
        scenario.spec,
        profile_of(scenario.id, scenario.profile),
        scenario.area,
        made,
        dialect,
        features,
    )
    try:
        parse_case(case.to_json(), scenario.id)
    except Exception as error:
        raise GenerationError(f"{scenario.id}: not a valid case: {error}") from None
    return case


def _plain(value: Any) -> Any:
    """The JSON value as it reads back from a case file (tuples become lists, and so on)."""
    return json.loads(json.dumps(value, ensure_ascii=True, allow_nan=False))


def build_cases(scenarios: Iterable[Scenario], artifacts: Path, workdir: str | None = None) -> list[Case]:
    cases: list[Case] = []
    seen: set[str] = set()
    for scenario in scenarios:
        if scenario.id in seen:
            raise GenerationError(f"duplicate scenario id {scenario.id}")
        seen.add(scenario.id)
        cases.append(build_case(scenario, artifacts, workdir))
    return sorted(cases, key=lambda case: case.id)


SCHEMA_FILE = "schema/case.schema.json"
FIXTURE_ARTIFACTS = "artifacts/fixtures"
#: The seed and count of the fixtures the suite holds (one per rule, and a valid log).
SUITE_FIXTURES = (0, 1)


@dataclass(frozen=True)
class Generated:
    """What the generator makes: the cases, and the artifact files of the generated fixtures."""

    cases: list[Case]
    artifacts: dict[str, bytes]

    def files(self) -> dict[str, bytes]:
        """Relative path -> bytes of every generated file of the suite."""
        out = {SCHEMA_FILE: schema_text().encode("utf-8")}
        out.update(
            {f"cases/{case.area}/{case.id}.json": case_text(case).encode("utf-8") for case in self.cases}
        )
        out.update({f"artifacts/{name}": data for name, data in self.artifacts.items()})
        return out


def _on_disk(root: Path) -> list[str]:
    """The generated files now on disk: every case file, the schema, the fixtures' artifacts."""
    found = [str(path.relative_to(root)) for path in sorted((root / "cases").glob("*/*.json"))]
    fixtures = root / FIXTURE_ARTIFACTS
    if fixtures.is_dir():
        found += [str(p.relative_to(root)) for p in sorted(fixtures.rglob("*")) if p.is_file()]
    return found + ([SCHEMA_FILE] if (root / SCHEMA_FILE).exists() else [])


def _differing(root: Path, wanted: dict[str, bytes]) -> list[str]:
    """The files under ``root`` that are not what the generator makes: the wanted ones missing or
    changed (in the order made), then the generated ones no longer made."""
    differ = [
        rel for rel, data in wanted.items() if not (root / rel).exists() or (root / rel).read_bytes() != data
    ]
    return differ + [rel for rel in _on_disk(root) if rel not in wanted]


def write_suite(root: Path, made: Generated) -> list[str]:
    """Write the generated files under ``root`` and delete generated files no longer made."""
    wanted = made.files()
    changed = _differing(root, wanted)
    for relative in changed:
        path = root / relative
        if relative in wanted:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(wanted[relative])
        else:
            path.unlink()
    return changed


def stale_files(root: Path, made: Generated) -> list[str]:
    """The generated files that differ from what the generator writes now (missing, changed, extra)."""
    return sorted(_differing(root, made.files()))


def generate_suite(root: Path, workdir: str | None = None) -> Generated:
    """Everything the generator makes for the suite at ``root``: the scenarios' cases, and one fixture
    per rule (``SUITE_FIXTURES``) with its artifacts."""
    from dsh_session.conformance import fixtures
    from dsh_session.conformance.scenarios import all_scenarios

    cases = build_cases(all_scenarios(), root / "artifacts", workdir)
    seed, count = SUITE_FIXTURES
    made = fixtures.generate(seed, count, format="case", workdir=workdir)
    artifacts: dict[str, bytes] = {}
    for fixture in made:
        artifacts.update(fixtures.artifact_files(fixture, workdir))
    with tempfile.TemporaryDirectory(dir=workdir) as scratch:
        for name, data in artifacts.items():
            path = Path(scratch) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        cases += build_cases([fixtures.fixture_scenario(f) for f in made], Path(scratch), workdir)
    return Generated(sorted(cases, key=lambda case: case.id), artifacts)

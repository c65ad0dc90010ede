"""One case from one scenario: every step run through the spec, every expected value the spec's.

Each step of a scenario (:mod:`.scenarios`) runs through the spec adapter
(:class:`~.spec_adapter.SpecAdapter`); whatever the spec returns becomes the
step's ``{"ok": ...}``, and a step the scenario marks as failing must fail in
the spec with that very code (or :class:`GenerationError`: the scenario says one
thing and the spec another). Values a scenario pins with ``want=`` are checked
too. :mod:`.generate` writes the whole suite with it, :mod:`.fixtures` a case
per fixture.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from dsh_session.conformance.adapter import Reply, reply_for
from dsh_session.conformance.cases import Case, Expect, Step, parse_case
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

"""Running a suite against an adapter: outcomes per case, summaries, skips, the verdict.

Each case runs in a fresh :class:`~.workspace.Workspace` after a ``reset``;
the runner sends each step, compares the reply with the step's expectation
(:mod:`.compare`) and stops at the first difference. An expected error may
come at its step or at any later step up to ``by``; a value returned in
between is not compared.

Outcomes: ``pass``; ``fail`` (a wrong value or code, or no error where one
was due); ``error`` (the adapter crashed, hung or wrote garbage -- it is
restarted and the run goes on -- or the case file is malformed);
``unsupported`` (the adapter declined an operation); ``not-applicable`` (the
case pins another dialect of the original than the adapter's, or needs a
feature the adapter does not declare: it is not sent at all); ``skip``
(listed in the skip file and not passing); ``fixed`` (listed in the skip file
but passing: take it off the list). The claimed profile passes when every
case in it passes, is skipped or is not applicable.
"""

from __future__ import annotations

import fnmatch
import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dsh_session.conformance.adapter import Adapter, AdapterFailure, Reply
from dsh_session.conformance.cases import PROFILES, Case, CaseError, Suite
from dsh_session.conformance.compare import difference
from dsh_session.conformance.protocol import EVERY_DIALECT, RUNNER_OPS
from dsh_session.conformance.workspace import Workspace, WorkspaceError

NOT_APPLICABLE = "not-applicable"
OUTCOMES = ("pass", "fail", "error", "unsupported", NOT_APPLICABLE, "skip", "fixed")
#: Outcomes that do not break the claimed profile.
GOOD = frozenset({"pass", "skip", NOT_APPLICABLE})


@dataclass(frozen=True)
class Outcome:
    """What happened to one case."""

    id: str
    area: str
    profile: str
    status: str
    message: str = ""
    step: int | None = None
    reason: str = ""  # the skip file's reason, for skip and fixed
    seconds: float = 0.0  # how long the case took, adapter start-up included

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "area": self.area,
            "profile": self.profile,
            "status": self.status,
            "seconds": round(self.seconds, 4),
        }
        if self.message:
            out["message"] = self.message
        if self.step is not None:
            out["step"] = self.step
        if self.reason:
            out["skipReason"] = self.reason
        return out


class SkipFileError(Exception):
    """A skip file that cannot be read."""


def load_skips(path: Path) -> dict[str, str]:
    """A skip file: a JSON object mapping case ids (or ``fnmatch`` patterns) to reasons."""
    try:
        raw = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise SkipFileError(f"{path}: cannot read the skip file: {error}") from None
    if type(raw) is not dict or not all(type(k) is str and type(v) is str and v for k, v in raw.items()):
        raise SkipFileError(f"{path}: a skip file is a JSON object of case id -> reason (non-empty strings)")
    return dict(raw)


def skip_keys(skips: dict[str, str], case_id: str) -> list[str]:
    """The keys of the skip file that list ``case_id``: its own id first, then matching patterns."""
    matching = [key for key in skips if key != case_id and fnmatch.fnmatchcase(case_id, key)]
    return [case_id, *matching] if case_id in skips else matching


@dataclass
class Report:
    """The outcome of a run."""

    suite_version: str
    implementation: dict[str, Any]
    profile: str
    outcomes: list[Outcome] = field(default_factory=list)
    unused_skips: list[str] = field(default_factory=list)
    seconds: float = 0.0
    dialect: str = ""
    features: frozenset[str] = frozenset()

    def not_applicable(self) -> dict[str, int]:
        """Why cases were not applicable, one line each: the reason -> how many cases."""
        found = Counter(o.message for o in self.outcomes if o.status == NOT_APPLICABLE)
        return dict(sorted(found.items()))

    @property
    def passed(self) -> bool:
        return all(outcome.status in GOOD for outcome in self.outcomes)

    def counts(self, outcomes: Iterable[Outcome] | None = None) -> dict[str, int]:
        found = Counter(outcome.status for outcome in (self.outcomes if outcomes is None else outcomes))
        return {status: found.get(status, 0) for status in OUTCOMES}

    def by(self, key: Callable[[Outcome], str]) -> dict[str, dict[str, int]]:
        groups: dict[str, list[Outcome]] = {}
        for outcome in self.outcomes:
            groups.setdefault(key(outcome), []).append(outcome)
        return {name: self.counts(group) for name, group in sorted(groups.items())}

    def to_json(self) -> dict[str, Any]:
        return {
            "suite": {"version": self.suite_version},
            "implementation": self.implementation,
            "dialect": self.dialect,
            "features": sorted(self.features),
            "profile": self.profile,
            "passed": self.passed,
            "summary": {
                "total": len(self.outcomes),
                "outcomes": self.counts(),
                "byProfile": self.by(lambda outcome: outcome.profile),
                "byArea": self.by(lambda outcome: outcome.area),
                "notApplicable": self.not_applicable(),
            },
            "unusedSkips": self.unused_skips,
            "seconds": round(self.seconds, 3),
            "cases": [outcome.to_json() for outcome in self.outcomes],
        }


def select(
    cases: Sequence[Case],
    profile: str = "strict",
    ids: Sequence[str] = (),
    areas: Sequence[str] = (),
) -> list[Case]:
    """The cases of the claimed profile (``strict`` includes ``core``), filtered by id pattern and area."""
    wanted = PROFILES[: PROFILES.index(profile) + 1]
    return [case for case in cases if case.profile in wanted and _filtered(case.id, case.area, ids, areas)]


def select_errors(
    errors: Sequence[CaseError], ids: Sequence[str] = (), areas: Sequence[str] = ()
) -> list[CaseError]:
    """The malformed case files a filtered run must still report: those the filter would have
    chosen had they parsed -- the file name (a case's id) matching an id pattern, the directory
    (its area) among the areas. Without a filter, all of them."""
    return [error for error in errors if _filtered(_id_of(error), Path(error.path).parent.name, ids, areas)]


def _filtered(case_id: str, area: str, ids: Sequence[str], areas: Sequence[str]) -> bool:
    """Whether a case passes the filter: its id matches an id pattern, its area is among the areas
    (an empty filter lets every case pass)."""
    if ids and not any(fnmatch.fnmatchcase(case_id, pattern) for pattern in ids):
        return False
    return not areas or area in areas


class Runner:
    """Runs cases against one adapter, restarting it after each failure of its own."""

    def __init__(
        self,
        adapter: Adapter,
        artifacts: Path,
        *,
        timeout: float = 10.0,
        start_timeout: float = 30.0,
        progress: Callable[[Outcome], None] | None = None,
        workdir: str | None = None,
    ) -> None:
        self.adapter = adapter
        self.workdir = workdir
        self.artifacts = artifacts
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.progress = progress
        self.implementation: dict[str, Any] = {}
        self.dialect = ""
        self.features: frozenset[str] = frozenset()
        self._start_failures = 0

    def run(
        self,
        suite: Suite,
        cases: Sequence[Case],
        profile: str = "strict",
        skips: dict[str, str] | None = None,
        *,
        errors: Sequence[CaseError] | None = None,
    ) -> Report:
        """Run ``cases``; ``errors`` (default: every malformed file of the suite) are reported first."""
        skips = skips or {}
        begun = time.monotonic()
        report = Report(suite.version, {}, profile)
        for error in suite.errors if errors is None else errors:
            self._emit(report, Outcome(_id_of(error), "?", "?", "error", f"malformed case file: {error}"))
        used: set[str] = set()
        try:
            for case in cases:
                started = time.monotonic()
                outcome = self.run_case(case)
                keys = skip_keys(skips, case.id)
                if keys:
                    reason = skips[keys[0]]
                    used.update(keys)
                    if outcome.status == "pass":
                        outcome = Outcome(
                            case.id,
                            case.area,
                            case.profile,
                            "fixed",
                            "passes, but the skip file lists it: remove it from the skip file",
                            reason=reason,
                        )
                    else:
                        outcome = Outcome(
                            case.id, case.area, case.profile, "skip", outcome.message, outcome.step, reason
                        )
                self._emit(report, replace(outcome, seconds=time.monotonic() - started))
        finally:
            self.adapter.close()
        report.implementation = self.implementation
        report.dialect, report.features = self.dialect, self.features
        report.unused_skips = sorted(key for key in skips if key not in used)
        report.seconds = time.monotonic() - begun
        return report

    def _emit(self, report: Report, outcome: Outcome) -> None:
        report.outcomes.append(outcome)
        if self.progress is not None:
            self.progress(outcome)

    # -- one case ----------------------------------------------------------------------------

    def run_case(self, case: Case) -> Outcome:
        outcome = _Outcomes(case)
        if self._start_failures >= 3:
            return outcome("error", "the adapter failed to start three times; not tried again")
        try:
            hello = self.adapter.start(self.start_timeout)
            self._start_failures = 0
        except AdapterFailure as failure:
            self._start_failures += 1
            self.adapter.restart()
            return outcome("error", f"adapter {failure.kind}: {failure.message}")
        self.implementation, self.dialect, self.features = hello.implementation, hello.dialect, hello.features
        if case.dialect not in (EVERY_DIALECT, hello.dialect):
            return outcome(
                NOT_APPLICABLE, f"pins dialect {case.dialect}; the adapter follows {hello.dialect}"
            )
        missing = [feature for feature in case.features if feature not in hello.features]
        if missing:
            return outcome(NOT_APPLICABLE, f"needs {', '.join(missing)}, which the adapter does not declare")
        deadline = time.monotonic() + self.timeout
        try:
            reset = self.adapter.call("reset", {}, deadline)
            if reset.kind != "ok":
                self.adapter.restart()
                return outcome("error", f"reset was not answered with a value: {reset}")
            with Workspace(self.artifacts, self.workdir) as workspace:
                return self._steps(case, workspace, deadline, outcome)
        except AdapterFailure as failure:
            self.adapter.restart()
            return outcome("error", f"adapter {failure.kind}: {failure.message}")

    def _steps(self, case: Case, workspace: Workspace, deadline: float, outcome: _Outcomes) -> Outcome:
        pending: tuple[str, int] | None = None
        for index, step in enumerate(case.steps):
            where = f"step {index} ({step.op})"
            try:
                args = workspace.resolve(step.args)
            except WorkspaceError as error:
                return outcome("error", f"{where}: {error}", index)  # the suite's own fault
            if step.op in RUNNER_OPS:
                try:
                    reply = Reply("ok", workspace.run(step.op, args))
                except WorkspaceError as error:
                    # The step reads or changes what the implementation left on disk; that it cannot
                    # is the implementation's doing (the spec's run of the same step succeeded).
                    return outcome(
                        "fail",
                        f"{where}: {error} (the files the implementation left are not what the case reads)",
                        index,
                    )
            else:
                reply = self.adapter.call(step.op, args, deadline)
            if reply.kind == "unsupported":
                return outcome("unsupported", f"{where}: {reply.message}", index)
            expect = step.expect
            if pending is not None:
                code, by = pending
                if reply.kind == "error":
                    if reply.code == code:
                        return outcome("pass")
                    return outcome("fail", f"{where}: expected {code}, got {_error_text(reply)}", index)
                if index == by:
                    return outcome(
                        "fail", f"{where}: expected {code} by this step, but nothing raised it", index
                    )
                continue
            if expect.code is None:
                if reply.kind == "error":
                    return outcome("fail", f"{where}: expected a value, got {_error_text(reply)}", index)
                found = difference(reply.value, expect.value)
                if found is not None:
                    return outcome("fail", f"{where}: {found}", index)
                continue
            assert expect.by is not None
            if reply.kind == "error":
                if reply.code != expect.code:
                    return outcome(
                        "fail", f"{where}: expected {expect.code}, got {_error_text(reply)}", index
                    )
                if expect.by == index:
                    continue  # refused as due; the case goes on with the session as it is
                return outcome("pass")
            if expect.by == index:
                return outcome(
                    "fail", f"{where}: expected {expect.code}, got the value {_short(reply.value)}", index
                )
            pending = (expect.code, expect.by)
        return outcome("pass")


class _Outcomes:
    """Makes the outcomes of one case."""

    def __init__(self, case: Case) -> None:
        self.case = case

    def __call__(self, status: str, message: str = "", step: int | None = None) -> Outcome:
        case = self.case
        return Outcome(case.id, case.area, case.profile, status, message, step)


def _error_text(reply: Reply) -> str:
    code = reply.code if reply.code is not None else "an error without a code"
    return f"{code} ({reply.message})" if reply.message else code


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _id_of(error: CaseError) -> str:
    return Path(error.path).stem

"""Mutation testing of the core modules, judged by the stateful machines alone.

    python verify/mutation.py surface _admission       # run (or resume) these modules, then report
    python verify/mutation.py --budget 20 json_value   # at most 20 minutes of mutants for it
    python verify/mutation.py --rerun survived surface # judge its survivors again (machines changed)
    python verify/mutation.py --rerun survived --rerun-only --unlisted json_value
                                                       # only the survivors not listed as equivalent
    python verify/mutation.py --shard 0/2 json_value &  python verify/mutation.py --shard 1/2 json_value
                                                       # two runs at once (one session, a tree each)
    python verify/mutation.py --report                 # the figures so far, every module
    python verify/mutation.py --survivors surface      # each surviving mutant's diff

The tool is cosmic-ray (``pip install -e '.[dev]'`` installs it). For each
module this script keeps a cosmic-ray session (``<workdir>/<module>.sqlite``;
``cr-report`` reads it too) and runs its mutants one by one in a scratch copy
of the checkout (``<workdir>/tree``, laid anew on every run, so the checkout
itself is never edited and a run cut short leaves nothing mutated behind).
A mutant's test command is the module's stateful machines and nothing else
(``MACHINES`` below), on the Python code alone (``DSH_SESSION_PURE=1``: the C fast
paths, which ``tests/c_mutants.py`` plants its own bugs in, would bypass much of what is
mutated), under the ``mutation`` Hypothesis profile: a small,
derandomized search that stops at the first disagreement (``pytest -x``). A
mutant is *killed* when that command fails (a disagreement, a crash, a
timeout); it *survives* when the machines pass.

Mutants inside type annotations are left out before the run and counted
apart: with ``from __future__ import annotations`` an annotation is not code
(only beartype's run-time guard reads it). A survivor that is listed in
``verify/equivalent_mutants.toml`` (module, operator, the line before and
after, and a one-line reason) is *equivalent*: no caller can tell it from
the original. The score is killed / (mutants run - equivalent).

A run is time-boxed per module (``--budget`` minutes) and resumes where it
stopped; it runs under ``nice`` (``--nice``). A session whose module's source
changed since it was made is started again. See docs/verification.md,
"Mutation testing", for the figures.
"""

from __future__ import annotations

import argparse
import ast
import fcntl
import hashlib
import os
import shlex
import shutil
import sys
import time
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import attrs

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "verify" / "equivalent_mutants.toml"

#: The machines that judge each module's mutants (pytest node ids), cheapest killers first.
_CORE = ["tests/test_machine_core.py", "tests/test_machine_parts.py"]
_INVARIANTS = "tests/test_machine_invariants.py::TestLiveInvariants"
_STORE = "tests/test_machine_store.py::TestStoreMachine"
_FILES = [
    f"tests/test_machine_backends.py::test_the_backend_agrees_with_the_storage_model[{kind}]"
    for kind in ("jsonl", "sqlite", "memory")
]
MACHINES: dict[str, list[str]] = {
    "surface": [*_CORE, _INVARIANTS],
    "session": [*_CORE, _INVARIANTS, _STORE],
    "_admission": [*_CORE, _INVARIANTS],
    "projection": _CORE,
    "json_value": [*_CORE, *_FILES],
    "repair": ["tests/test_machine_parts.py", *_FILES],
    "tool_pairing": ["tests/test_machine_parts.py"],
    "request_header": ["tests/test_machine_parts.py", _STORE],
    "fork": [_STORE],
}

#: What the scratch copy leaves out.
_IGNORED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "__pycache__",
    ".hypothesis",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    "*.egg-info",
    "*.so",
)


def target(tree: Path, module: str) -> Path:
    """The module's file in a scratch tree: where its mutants are made."""
    return tree / "src" / "dsh_session" / f"{module}.py"


def source(module: str) -> Path:
    return ROOT / "src" / "dsh_session" / f"{module}.py"


def test_command(tree: Path, module: str) -> str:
    """The command cosmic-ray runs for each mutant of ``module`` (from inside ``tree``)."""
    path = os.pathsep.join(str(tree / part) for part in ("src", "spec", "."))
    return shlex.join(
        [
            "env",
            "DSH_HYPOTHESIS_PROFILE=mutation",
            "DSH_SESSION_PURE=1",  # the Python code is what is mutated: the C fast paths stay off
            f"PYTHONPATH={path}",
            sys.executable,
            "-m",
            "pytest",
            "-x",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            *MACHINES[module],
        ]
    )


def lay_tree(tree: Path) -> None:
    """A fresh copy of the checkout, with its own (unmutated) sources."""
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(ROOT, tree, ignore=_IGNORED)


def annotation_spans(path: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where ``path``'s type annotations are, as (line, column) ranges."""
    spans = []
    for node in ast.walk(ast.parse(path.read_text())):
        found: list[ast.expr | None] = []
        if isinstance(node, ast.arg):
            found.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
        for expr in found:
            if expr is not None and expr.end_lineno is not None and expr.end_col_offset is not None:
                spans.append(((expr.lineno, expr.col_offset), (expr.end_lineno, expr.end_col_offset)))
    return spans


def in_annotation(mutation: Any, spans: list[tuple[tuple[int, int], tuple[int, int]]]) -> bool:
    start, end = tuple(mutation.start_pos), tuple(mutation.end_pos)
    return any(low <= start and end <= high for low, high in spans)


@dataclass(frozen=True)
class Equivalent:
    module: str
    operator: str
    line: str
    mutant: str
    reason: str


def equivalents() -> list[Equivalent]:
    if not EQUIVALENTS.exists():
        return []
    with EQUIVALENTS.open("rb") as handle:
        table = tomllib.load(handle)
    return [Equivalent(**entry) for entry in table.get("equivalent", [])]


def changed_lines(diff: str | None) -> tuple[str, str]:
    """The first line a mutant's diff takes out and the first it puts in, stripped."""
    removed = added = ""
    for line in (diff or "").splitlines():
        if line.startswith("-") and not line.startswith("---") and not removed:
            removed = line[1:].strip()
        elif line.startswith("+") and not line.startswith("+++") and not added:
            added = line[1:].strip()
    return removed, added


def equivalent_reason(module: str, item: Any, result: Any, known: list[Equivalent]) -> str | None:
    removed, added = changed_lines(result.diff)
    operator = item.mutations[0].operator_name
    for entry in known:
        if (entry.module, entry.operator, entry.line, entry.mutant) == (module, operator, removed, added):
            return entry.reason
    return None


def _session(workdir: Path, module: str) -> Path:
    return workdir / f"{module}.sqlite"


def prepare(workdir: Path, tree: Path, module: str) -> None:
    """A cosmic-ray session for ``module`` (made again when its source changed); annotation
    mutants marked skipped."""
    from cosmic_ray.commands import init
    from cosmic_ray.work_db import use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    digest = hashlib.sha256(source(module).read_bytes()).hexdigest()
    stamp = workdir / f"{module}.source"
    db_path = _session(workdir, module)
    if db_path.exists() and stamp.exists() and stamp.read_text() == digest:
        return
    db_path.unlink(missing_ok=True)
    target_path = target(tree, module)
    with use_db(str(db_path)) as db:
        init(iter([target_path]), db, {})
        lazy = "from __future__ import annotations" in target_path.read_text()
        spans = annotation_spans(target_path) if lazy else []
        skipped = WorkResult(worker_outcome=WorkerOutcome.SKIPPED)
        db.set_multiple_results(
            [item.job_id for item in db.work_items if in_annotation(item.mutations[0], spans)], skipped
        )
    stamp.write_text(digest)


def baseline(tree: Path, module: str, timeout: float) -> None:
    from cosmic_ray.testing import run_tests
    from cosmic_ray.work_item import TestOutcome

    outcome, output = run_tests(test_command(tree, module), timeout)
    if outcome != TestOutcome.SURVIVED:
        sys.exit(f"{module}: the machines fail on the unmutated code; no mutant judged\n{output}")


def _position(item: Any) -> tuple[Any, ...]:
    first = item.mutations[0]
    return (tuple(first.start_pos), first.operator_name, first.occurrence)


def run(
    workdir: Path,
    tree: Path,
    module: str,
    budget: float,
    timeout: float,
    rerun: str | None,
    shard: tuple[int, int] = (0, 1),
    rerun_only: bool = False,
    unlisted: bool = False,
) -> None:
    from cosmic_ray.mutating import mutate_and_test
    from cosmic_ray.work_db import use_db

    with (workdir / f"{module}.lock").open("w") as lock:  # shards started together: one prepares
        fcntl.flock(lock, fcntl.LOCK_EX)
        prepare(workdir, tree, module)
    baseline(tree, module, timeout)
    deadline = time.monotonic() + budget * 60
    command = test_command(tree, module)
    with use_db(str(_session(workdir, module))) as db:
        items = [] if rerun_only else list(db.pending_work_items)
        if rerun is not None:
            known = equivalents() if unlisted else []
            items += [
                item
                for item, result in db.completed_work_items
                if result.test_outcome == rerun
                and not (unlisted and equivalent_reason(module, item, result, known))
            ]
        items.sort(key=_position)
        index, shards = shard
        items = items[index::shards]
        print(f"{module}: {len(items)} mutants to judge", flush=True)
        for count, item in enumerate(items, 1):
            if time.monotonic() > deadline:
                print(f"{module}: time box reached; {len(items) - count + 1} left for the next run")
                break
            # made in this run's tree, whichever tree the session was made from (a shard has its own)
            mutations = [attrs.evolve(m, module_path=target(tree, module)) for m in item.mutations]
            result = mutate_and_test(mutations, command, timeout)
            db.set_result(item.job_id, result)
            if result.test_outcome is not None and result.test_outcome.value == "survived":
                print(f"  survived: {changed_lines(result.diff)}", flush=True)


@dataclass
class Figures:
    module: str
    mutants: int = 0
    annotations: int = 0
    pending: int = 0
    killed: int = 0
    equivalent: int = 0
    surviving: int = 0
    errors: int = 0

    @property
    def score(self) -> str:
        judged = self.killed + self.surviving
        return f"{100 * self.killed / judged:.1f} %" if judged else "-"


def results(workdir: Path, module: str) -> Iterator[tuple[Any, Any]]:
    from cosmic_ray.work_db import WorkDB, use_db

    with use_db(str(_session(workdir, module)), WorkDB.Mode.open) as db:
        done = {item.job_id: (item, result) for item, result in db.completed_work_items}
        for item in db.work_items:
            yield done.get(item.job_id, (item, None))


def figures(workdir: Path, module: str, known: list[Equivalent]) -> Figures:
    out = Figures(module)
    for item, result in results(workdir, module):
        out.mutants += 1
        if result is None:
            out.pending += 1
        elif result.worker_outcome.value == "skipped":
            out.annotations += 1
        elif result.test_outcome is None or result.test_outcome.value == "incompetent":
            out.errors += 1
        elif result.test_outcome.value == "killed":
            out.killed += 1
        elif equivalent_reason(module, item, result, known) is not None:
            out.equivalent += 1
        else:
            out.surviving += 1
    return out


def report(workdir: Path, modules: Iterable[str]) -> None:
    known = equivalents()
    print("| module | mutants | in annotations | not yet run | killed | equivalent | surviving | score |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for module in modules:
        if not _session(workdir, module).exists():
            print(f"| `{module}` | not run | | | | | | |")
            continue
        f = figures(workdir, module, known)
        row = [f.mutants, f.annotations, f.pending, f.killed, f.equivalent, f.surviving, f.score]
        print(f"| `{module}` | " + " | ".join(str(cell) for cell in row) + " |")
        if f.errors:
            print(f"  ({module}: {f.errors} mutants could not be run)")


def survivors(workdir: Path, module: str) -> None:
    known = equivalents()
    for item, result in results(workdir, module):
        if result is None or result.test_outcome is None or result.test_outcome.value != "survived":
            continue
        reason = equivalent_reason(module, item, result, known)
        mutation = item.mutations[0]
        label = f"equivalent: {reason}" if reason else "SURVIVING"
        print(f"== {module}:{mutation.start_pos[0]} {mutation.operator_name} ({label})")
        print(result.diff)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("modules", nargs="*", help=f"default: all nine ({', '.join(MACHINES)})")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/dsh-session-mutation"))
    parser.add_argument("--budget", type=float, default=30.0, help="minutes per module (default 30)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant (default 120)")
    parser.add_argument("--nice", type=int, default=10, help="niceness of the run (default 10)")
    parser.add_argument("--rerun", choices=["survived", "killed"], help="judge these results again")
    parser.add_argument(
        "--shard",
        default="0/1",
        help="K/N: judge every N-th mutant from the K-th (N runs at once, one per core; default 0/1)",
    )
    parser.add_argument(
        "--rerun-only", action="store_true", help="with --rerun: judge those again and leave the unrun ones"
    )
    parser.add_argument(
        "--unlisted", action="store_true", help="with --rerun survived: only those not listed as equivalent"
    )
    parser.add_argument("--report", action="store_true", help="only print the figures")
    parser.add_argument("--survivors", action="store_true", help="only print the survivors' diffs")
    args = parser.parse_args(argv)
    modules = args.modules or list(MACHINES)
    unknown = sorted(set(modules) - set(MACHINES))
    if unknown:
        parser.error(f"not a core module: {', '.join(unknown)}")
    workdir: Path = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    index, _, count = args.shard.partition("/")
    if not (index.isdigit() and count.isdigit() and int(index) < int(count)):
        parser.error(f"--shard wants K/N with 0 <= K < N, not {args.shard!r}")
    shard = (int(index), int(count))
    if args.survivors:
        for module in modules:
            survivors(workdir, module)
        return
    if not args.report:
        os.nice(args.nice)
        tree = workdir / ("tree" if shard == (0, 1) else f"tree-{shard[0]}")  # a tree per shard
        lay_tree(tree)
        os.chdir(tree)
        for module in modules:
            run(
                workdir,
                tree,
                module,
                args.budget,
                args.timeout,
                args.rerun,
                shard,
                args.rerun_only,
                args.unlisted,
            )
            lay_tree(tree)  # nothing mutated is left behind, whatever a run did
            os.chdir(tree)
    report(workdir, modules)


if __name__ == "__main__":
    main()

"""CrossHair: the spec's contracts hold, and the implementation's replace behaves as the spec's.

Four bounded runs of ``crosshair`` (subprocesses with a hard timeout, two at a time):

1. ``check`` of every PEP 316 contract in ``dsh_spec.surface`` and
   ``dsh_spec.projection`` -- no counterexample, and every contract analysed;
2. the same contracts on planted bugs -- each one IS reported, so check 1 can fail;
3. ``diffbehavior`` of the implementation's replace step against the spec's
   (``tests/crosshair_targets.py``) -- no difference;
4. ``diffbehavior`` of an off-by-one replace against the spec -- a difference IS found.

Symbolic events come from ``tests/crosshair_plugin.py``. The effort is bounded
by ``--max_uninteresting_iterations`` (scaled up by
``DSH_HYPOTHESIS_PROFILE=thorough``); the whole module takes well under two minutes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from dsh_spec import projection, surface
from tests.support import THOROUGH

ROOT = Path(__file__).resolve().parent.parent
CROSSHAIR = [sys.executable, "-m", "crosshair"]
PLUGIN = str(ROOT / "tests" / "crosshair_plugin.py")
ITERATIONS = "100" if THOROUGH else "20"
DIFF_ITERATIONS = "150" if THOROUGH else "20"
#: A guard against a hung run, not a time limit: a loaded machine may take several times the
#: ~45 s of CPU the default runs need.
TIMEOUT = 1800 if THOROUGH else 900


def crosshair(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [*CROSSHAIR, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


Runs = dict[str, "Future[subprocess.CompletedProcess[str]]"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    """Start the four CrossHair runs at once, two at a time (they are independent)."""
    broken = tmp_path_factory.mktemp("crosshair") / "crosshair_broken.py"
    broken.write_text(
        BROKEN.format(
            fold_replace=_docstring(surface.fold_replace),
            step=_docstring(surface.step),
            derive_event_message=_docstring(projection.derive_event_message),
        ),
        "utf-8",
    )
    check = ["check", "--analysis_kind=PEP316", "--extra_plugin", PLUGIN, "--max_uninteresting_iterations"]
    commands = {
        "contracts": [*check, ITERATIONS, "--report_all", "dsh_spec.surface", "dsh_spec.projection"],
        "planted": [*check, ITERATIONS, str(broken)],
        "diff": ["diffbehavior", "--max_uninteresting_iterations", DIFF_ITERATIONS, *DIFF_TARGETS],
        "diff-planted": ["diffbehavior", "--max_uninteresting_iterations", "8", *DIFF_PLANTED_TARGETS],
    }
    with ThreadPoolExecutor(max_workers=2) as pool:
        yield {name: pool.submit(crosshair, *command) for name, command in commands.items()}


DIFF_TARGETS = ["tests.crosshair_targets.impl_replace", "tests.crosshair_targets.spec_replace"]
DIFF_PLANTED_TARGETS = [
    "tests.crosshair_targets.impl_replace_off_by_one",
    "tests.crosshair_targets.spec_replace",
]


def contract_lines(*modules: object) -> int:
    """How many ``post:`` contracts the modules' docstrings state."""
    count = 0
    for module in modules:
        source = Path(module.__file__).read_text("utf-8")  # type: ignore[attr-defined]
        count += len(re.findall(r"^\s+post: ", source, flags=re.MULTILINE))
    return count


def test_the_spec_contracts_hold(runs: Runs) -> None:
    run = runs["contracts"].result()
    assert run.returncode == 0, run.stdout + run.stderr
    assert "error" not in run.stdout, run.stdout
    analysed = re.findall(r": info: (Not confirmed|Confirmed over all paths)\.", run.stdout)
    expected = contract_lines(surface, projection)
    assert expected >= 20
    assert len(analysed) == expected, run.stdout  # every contract was reached (no unmet precondition)


#: Planted bugs carrying the spec's contracts, verbatim (filled in from the live docstrings).
BROKEN = """
from dsh_spec import projection as spec_projection
from dsh_spec import surface as spec_surface
from dsh_spec.codes import Code
from dsh_spec.events import APPEND, Event, Replace, is_surface_type
from dsh_spec.json_value import Json
from dsh_spec.projection import Message, _empty_assistant, _raw, _tagged_as
from dsh_spec.rejection import Rejection
from dsh_spec.surface import Surface, _refusal, _width, marker


def broken_fold_replace(before: Surface, seq: int, op: Replace) -> Surface | Rejection:
{fold_replace}
    folded = spec_surface.fold_replace(before, seq, op)
    if isinstance(folded, Rejection) or len(before.order) < 3:
        return folded
    return Surface(folded.order + before.order[-1:], folded.generation)  # a shadowed node comes back


def broken_step(surface: Surface, event: Event) -> Surface | Rejection:
{step}
    if event.surface_op == APPEND:
        return Surface((*surface.order, event.seq), surface.generation)  # even a log-only event
    return spec_surface.step(surface, event)


def broken_derive_event_message(event: Event) -> Message | None:
{derive_event_message}
    if _empty_assistant(event) and isinstance(event.data, dict):
        return {{"role": "assistant", "content": []}}  # the empty assistant is not skipped
    return spec_projection.derive_event_message(event)
"""


def _docstring(function: Callable[..., object]) -> str:
    text = function.__doc__
    assert text and "post:" in text
    first, rest = text.split("\n", 1)
    return textwrap.indent('"""' + first + textwrap.dedent("\n" + rest) + '"""', "    ")


def test_the_contracts_catch_planted_bugs(runs: Runs) -> None:
    run = runs["planted"].result()
    assert run.returncode == 1, run.stdout + run.stderr
    for name in ("broken_fold_replace", "broken_step", "broken_derive_event_message"):
        assert re.search(rf"error: .*when calling {name}\(", run.stdout), (name, run.stdout)


def test_the_implementation_replaces_as_the_spec_does(runs: Runs) -> None:
    run = runs["diff"].result()
    assert run.returncode == 0, run.stdout + run.stderr
    found = re.search(r"No differences found\. \(attempted (\d+) iterations\)", run.stdout)
    assert found is not None and int(found.group(1)) >= 20, run.stdout


def test_diffbehavior_finds_an_off_by_one_replace(runs: Runs) -> None:
    run = runs["diff-planted"].result()
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Given:" in run.stdout and "impl_replace_off_by_one" in run.stdout

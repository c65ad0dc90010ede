"""Every machine finds every planted bug it is named for, and passes on the real implementation.

Each run is derandomized (the same examples every time) and stops at the
first disagreement, without shrinking, so a mutant costs a few seconds. The
control runs use exactly the same settings on the unpatched implementation:
a mutant is only "found" if the same search passes without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from dsh_session import DshSessionError
from tests.machine_backends import BackendMachine
from tests.machine_core import CoreMachine
from tests.machine_headers import HeaderMachine
from tests.machine_pairing import PairingMachine
from tests.machine_repair import RepairMachine
from tests.machine_support import Disagreement
from tests.mutants import MUTANTS, Mutant
from tests.python_paths import python_paths

#: The planted bugs and the controls: ``pytest -m mutants`` runs them (``-m machine`` the machines).
pytestmark = pytest.mark.mutants


def _search(examples: int, steps: int) -> settings:
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )


def _backend(kind: str) -> type[RuleBasedStateMachine]:
    return type(f"{kind.title()}Machine", (BackendMachine,), {"kind": kind})


#: Each machine a mutant may name, and the search it is run with.
MACHINES: dict[str, tuple[type[RuleBasedStateMachine], settings]] = {
    "core": (CoreMachine, _search(80, 40)),
    "jsonl": (_backend("jsonl"), _search(20, 25)),
    "sqlite": (_backend("sqlite"), _search(20, 25)),
    "postgres": (_backend("postgres"), _search(12, 30)),
    "repair": (RepairMachine, _search(40, 30)),
    "pairing": (PairingMachine, _search(40, 30)),
    "headers": (HeaderMachine, _search(40, 30)),
}
USED = sorted({mutant.machine for mutant in MUTANTS})


@pytest.mark.parametrize("machine", USED)
def test_the_search_passes_on_the_real_implementation(machine: str) -> None:
    """The control, in the Python code the mutants are planted in (the C fast paths off)."""
    machine_class, search = MACHINES[machine]
    with python_paths():
        run_state_machine_as_test(machine_class, settings=search)


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_the_search_finds_the_mutant(mutant: Mutant) -> None:
    """Found by a comparison: a disagreement that only wraps an unexpected exception (the patch
    itself crashing, say, because what it reaches into has changed) does not count."""
    machine_class, search = MACHINES[mutant.machine]
    with mutant.active(), pytest.raises(Disagreement) as found:
        run_state_machine_as_test(machine_class, settings=search)
    cause = found.value.__cause__
    assert cause is None or isinstance(cause, DshSessionError), f"caught only by a crash: {cause!r}"


def test_there_are_enough_distinct_mutants() -> None:
    assert len(MUTANTS) >= 20
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)
    assert set(USED) <= set(MACHINES)


def test_docs_verification_lists_every_mutant_with_its_machine() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "verification.md").read_text()
    rows = {
        cells[0].strip("` "): cells[2].strip()
        for line in text.splitlines()
        if line.startswith("| `") and len(cells := line.strip("|").split("|")) == 4
    }
    assert {m.name: m.machine for m in MUTANTS} == rows

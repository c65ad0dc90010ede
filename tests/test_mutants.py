"""The state machine finds every planted bug, and passes on the real implementation.

Each run is derandomized (the same examples every time) and stops at the first
disagreement, without shrinking, so the whole module costs a few seconds per
mutant. The control run uses exactly the same settings on the unpatched
implementation: a mutant is only "found" if the same search passes without it.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.machine_core import CoreMachine
from tests.machine_support import Disagreement
from tests.mutants import MUTANTS, Mutant

SEARCH = settings(
    max_examples=40,
    stateful_step_count=40,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
    print_blob=False,
)


def test_the_search_passes_on_the_real_implementation() -> None:
    run_state_machine_as_test(CoreMachine, settings=SEARCH)


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_the_search_finds_the_mutant(mutant: Mutant) -> None:
    with mutant.active(), pytest.raises(Disagreement):
        run_state_machine_as_test(CoreMachine, settings=SEARCH)


def test_there_are_enough_distinct_mutants() -> None:
    assert len(MUTANTS) >= 5
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)

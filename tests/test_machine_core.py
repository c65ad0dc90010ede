"""The implementation agrees with the spec under the stateful machine (see ``machine_core``)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.machine_core import CoreMachine
from tests.support import THOROUGH

#: A stateful machine, or a check that one finds planted bugs: ``pytest -m machine`` runs them all.
pytestmark = pytest.mark.machine

MACHINE_SETTINGS = settings(
    max_examples=300 if THOROUGH else 50,  # test_mutants runs 40 more, derandomized
    stateful_step_count=80 if THOROUGH else 40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def test_implementation_agrees_with_spec() -> None:
    run_state_machine_as_test(CoreMachine, settings=MACHINE_SETTINGS)

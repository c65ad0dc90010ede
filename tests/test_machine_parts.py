"""Crash repair, tool pairing and request headers each agree with the spec under a state machine."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from tests.machine_headers import HeaderMachine
from tests.machine_pairing import PairingMachine
from tests.machine_repair import RepairMachine
from tests.support import THOROUGH

#: A stateful machine, or a check that one finds planted bugs: ``pytest -m machine`` runs them all.
pytestmark = pytest.mark.machine

SETTINGS = settings(
    max_examples=500 if THOROUGH else 40,
    stateful_step_count=60 if THOROUGH else 30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
MACHINES: dict[str, type[RuleBasedStateMachine]] = {
    "repair": RepairMachine,
    "pairing": PairingMachine,
    "headers": HeaderMachine,
}


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_the_implementation_agrees_with_the_spec(name: str) -> None:
    run_state_machine_as_test(MACHINES[name], settings=SETTINGS)

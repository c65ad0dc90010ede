"""Crash repair, tool pairing and request headers each agree with the spec under a state machine."""

from __future__ import annotations

import pytest
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from tests.machine_headers import HeaderMachine
from tests.machine_pairing import PairingMachine
from tests.machine_repair import RepairMachine
from tests.support import machine_settings

#: A stateful machine, or a check that one finds planted bugs: ``pytest -m machine`` runs them all.
pytestmark = pytest.mark.machine

#: (examples, steps): default, thorough, mutation.
SETTINGS = machine_settings((40, 30), (500, 60), (15, 30))
MACHINES: dict[str, type[RuleBasedStateMachine]] = {
    "repair": RepairMachine,
    "pairing": PairingMachine,
    "headers": HeaderMachine,
}


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_the_implementation_agrees_with_the_spec(name: str) -> None:
    run_state_machine_as_test(MACHINES[name], settings=SETTINGS)

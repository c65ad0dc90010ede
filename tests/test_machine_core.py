"""The implementation agrees with the spec under the stateful machine (see ``machine_core``)."""

from __future__ import annotations

import pytest
from hypothesis.stateful import run_state_machine_as_test

from tests.machine_core import CoreMachine
from tests.support import machine_settings

#: A stateful machine, or a check that one finds planted bugs: ``pytest -m machine`` runs them all.
pytestmark = pytest.mark.machine

#: (examples, steps): default (test_mutants runs 40 more, derandomized), thorough, mutation.
MACHINE_SETTINGS = machine_settings((30, 40), (300, 80), (12, 40))


def test_implementation_agrees_with_spec() -> None:
    run_state_machine_as_test(CoreMachine, settings=MACHINE_SETTINGS)

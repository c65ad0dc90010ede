"""Every persistence backend agrees with the spec's storage model, bytes included (``machine_backends``)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.machine_backends import STORAGES, BackendMachine
from tests.support import THOROUGH

#: A stateful machine, or a check that one finds planted bugs: ``pytest -m machine`` runs them all.
pytestmark = pytest.mark.machine

SETTINGS = settings(
    max_examples=200 if THOROUGH else 20,
    stateful_step_count=40 if THOROUGH else 25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


@pytest.mark.parametrize("kind", sorted(STORAGES))
def test_the_backend_agrees_with_the_storage_model(kind: str) -> None:
    machine = type(f"{kind.title()}Machine", (BackendMachine,), {"kind": kind})
    run_state_machine_as_test(machine, settings=SETTINGS)

"""Every persistence backend agrees with the spec's storage model, bytes included (``machine_backends``)."""

from __future__ import annotations

import pytest
from hypothesis.stateful import run_state_machine_as_test

from tests.machine_backends import STORAGES, BackendMachine
from tests.support import machine_settings

#: A stateful machine, or a check that one finds planted bugs: ``pytest -m machine`` runs them all.
pytestmark = pytest.mark.machine

#: (examples, steps): default, thorough, mutation. PostgreSQL's examples cost several times a file
#: backend's (a schema made and dropped, every row read back after each step), so it runs fewer
#: by default; test_mutants runs it again, derandomized.
SETTINGS = machine_settings((12, 25), (200, 40), (4, 20))
POSTGRES_SETTINGS = machine_settings((8, 25), (200, 40), (3, 20))


@pytest.mark.parametrize("kind", sorted(STORAGES))
def test_the_backend_agrees_with_the_storage_model(kind: str) -> None:
    machine = type(f"{kind.title()}Machine", (BackendMachine,), {"kind": kind})
    run_state_machine_as_test(machine, settings=POSTGRES_SETTINGS if kind == "postgres" else SETTINGS)

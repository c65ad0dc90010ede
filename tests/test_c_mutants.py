"""The machines find every planted bug of ``tests/c_mutants.py`` in the C fast paths, and pass on
the C code as it is, built and run through the same harness (the controls)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.c_mutants import C_MUTANTS, ROOT, RUN_SEARCH, CMutant, build

pytestmark = pytest.mark.mutants

#: The control: the real source, through the same copy, build and search.
CONTROL = CMutant("control", "none", "#define MAX_DEPTH 200", "#define MAX_DEPTH 200")


def _search(mutant: CMutant, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = build(mutant, tmp_path)
    return subprocess.run(
        [sys.executable, "-c", RUN_SEARCH, str(path), str(ROOT), mutant.machine],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


@pytest.mark.parametrize("machine", sorted({mutant.machine for mutant in C_MUTANTS}))
def test_the_search_passes_on_the_real_c_code(machine: str, tmp_path: Path) -> None:
    control = CMutant(CONTROL.name, CONTROL.bug, CONTROL.find, CONTROL.plant, machine)
    out = _search(control, tmp_path)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]


@pytest.mark.parametrize("mutant", C_MUTANTS, ids=[m.name for m in C_MUTANTS])
def test_the_machine_finds_the_c_mutant(mutant: CMutant, tmp_path: Path) -> None:
    out = _search(mutant, tmp_path)
    assert out.returncode == 3, (
        f"{mutant.name} ({mutant.bug}) not found:\n{out.stdout[-2000:]}{out.stderr[-4000:]}"
    )


def test_there_are_c_mutants_for_each_fast_path() -> None:
    assert len(C_MUTANTS) >= 6
    assert len({m.name for m in C_MUTANTS}) == len(C_MUTANTS)

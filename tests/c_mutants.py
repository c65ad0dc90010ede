"""Known-bad variants of the C fast paths (``src/dsh_session/_speedups.c``), each a small edit
of its source that the core machine must catch.

``tests/mutants.py`` plants bugs in the Python code; these plant them in the C code, which
cannot be patched at run time: each mutant is the source with one snippet replaced,
compiled into a copy of the package in a temporary directory, and the core machine is run
in a fresh interpreter that imports the copy (``tests/test_c_mutants.py``). A snippet must
occur exactly once in the real source, so an edit of the C code that moves it fails loudly
instead of leaving a mutant that plants nothing.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "dsh_session"
SOURCE = PACKAGE / "_speedups.c"


@dataclass(frozen=True)
class CMutant:
    """A named bug: ``find`` in the C source replaced by ``plant``; ``machine`` must find it
    (a name of ``tests.test_mutants.MACHINES``)."""

    name: str
    bug: str
    find: str
    plant: str
    machine: str = "core"

    def source(self) -> str:
        text = SOURCE.read_text("utf-8")
        count = text.count(self.find)
        if count != 1:
            raise AssertionError(f"{self.name}: its snippet occurs {count} times in {SOURCE.name}, not once")
        return text.replace(self.find, self.plant)


C_MUTANTS = (
    CMutant(
        "c-index-keys-as-plain",
        "the encoder writes keys that may be array indices in insertion order",
        "return ENC_UNUSUAL; /* may be an array index, which JavaScript puts first */",
        "(void)0;",
    ),
    CMutant(
        "c-unsafe-ints-as-plain",
        "the encoder writes integers past 2**53 as they are (JavaScript rounds them)",
        "if (overflow != 0 || value > EXACT || value < -EXACT) {\n        return ENC_UNUSUAL;",
        "if (overflow != 0) {\n        return ENC_UNUSUAL;",
    ),
    CMutant(
        "c-duplicate-provenance",
        "a surface append's provenance may name one seq twice",
        "if (set->sorted[i] == set->sorted[i - 1]) {",
        "if (set->sorted[i] == set->sorted[i - 1] && 0) {",
    ),
    CMutant(
        "c-no-prev-link",
        "a node appended at the tail forgets its previous node",
        "PyDict_SetItem(surface->prev, seq, tail) < 0",
        "PyDict_SetItem(surface->prev, seq, Py_None) < 0",
    ),
    CMutant(
        "c-derive-across-a-replace",
        "the derived history is extended from its cache after a replace",
        "int same = PyObject_RichCompareBool(surface->generation, self->derived_generation, Py_EQ);",
        "int same = 1;",
    ),
    CMutant(
        "c-replace-without-coverage",
        "a replace is admitted whatever its provenance names",
        "int covered = covers(&set, span);",
        "int covered = 1;",
    ),
    CMutant(
        "c-replace-keeps-generation",
        "a replace folded in C leaves the replace generation as it was",
        "PyObject *generation = PyNumber_Add(surface->generation, one);",
        "PyObject *generation = Py_NewRef(surface->generation);",
    ),
    CMutant(
        "c-rows-drop-provenance",
        "a SQLite load's bulk path leaves a surface row's provenance out of its event",
        "                given = tuple;\n",
        "                given = Py_None;\n",
        "sqlite",
    ),
    CMutant(
        "c-tool-result-error-flag",
        "a tool result's message always says isError false",
        'parts[5] = spans->is_error ? (Piece)PIECE("true") : (Piece)PIECE("false");',
        'parts[5] = (Piece)PIECE("false");',
    ),
)


def build(mutant: CMutant, into: Path) -> Path:
    """A copy of the package in ``into`` whose C extension is built from the mutant's source;
    returns the directory to put first on ``sys.path``."""
    copy = into / "dsh_session"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    (copy / "_speedups.c").write_text(mutant.source(), "utf-8")
    script = textwrap.dedent(
        f"""
        from setuptools import Distribution, Extension
        source = {str(copy / "_speedups.c")!r}
        extension = Extension("dsh_session._speedups", [source], extra_compile_args=["-O1"])
        command = Distribution({{"name": "mutant", "ext_modules": [extension]}}).get_command_obj("build_ext")
        command.build_lib, command.build_temp = {str(into)!r}, {str(into / "build")!r}
        command.ensure_finalized()
        command.run()
        """
    )
    built = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    if built.returncode != 0:
        raise AssertionError(f"{mutant.name} does not compile:\n{built.stderr[-4000:]}")
    return into


#: Run in a fresh interpreter with the copy first on ``sys.path``: the search of the machine named
#: by the third argument, exit status 3 when it finds a disagreement, 0 when it passes.
RUN_SEARCH = textwrap.dedent(
    """
    import sys
    sys.path[:0] = [sys.argv[1], sys.argv[2]]
    import dsh_session
    from dsh_session import _accel
    assert dsh_session.__file__.startswith(sys.argv[1]), dsh_session.__file__
    assert _accel.ACCELERATED
    from hypothesis.stateful import run_state_machine_as_test
    from tests.machine_support import Disagreement
    from tests.test_mutants import MACHINES
    machine, search = MACHINES[sys.argv[3]]
    try:
        run_state_machine_as_test(machine, settings=search)
    except Disagreement as found:
        print("found:", str(found)[:500])
        sys.exit(3)
    """
)

"""The mutation run's set-up is sound (the run itself is ``verify/mutation.py``, not part of CI):
it covers the nine core modules, judges each with machine tests that exist, and every mutant
it counts as equivalent is still in its module and listed with its reason in the docs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
CORE = {"surface", "session", "_admission", "projection", "json_value", "repair", "tool_pairing"}
CORE |= {"request_header", "fork"}


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_script", ROOT / "verify" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_core_module_is_judged_by_machines_only() -> None:
    script = _script()
    assert set(script.MACHINES) == CORE
    for module, tests in script.MACHINES.items():
        assert tests, module
        for node in tests:
            path, _, name = node.partition("::")
            assert path.startswith("tests/test_machine_"), node
            text = (ROOT / path).read_text()
            assert not name or name.split("[")[0] in text, node


def test_the_test_command_uses_the_mutation_profile_and_stops_at_the_first_failure() -> None:
    script = _script()
    command = script.test_command(Path("/tree"), "surface")
    assert "DSH_HYPOTHESIS_PROFILE=mutation" in command
    assert "DSH_SESSION_PURE=1" in command  # the Python code that is mutated runs, not the C paths
    assert " -x " in command
    assert command.endswith(" ".join(script.MACHINES["surface"]))
    assert script.MACHINES["surface"][0] == "tests/test_machine_core.py"


def test_annotations_are_found_and_code_is_not() -> None:
    script = _script()
    path = ROOT / "src" / "dsh_session" / "tool_pairing.py"
    spans = script.annotation_spans(path)
    lines = path.read_text().splitlines()
    signature = next(i for i, line in enumerate(lines, 1) if line.startswith("def region_balanced"))
    assert any(start[0] == signature for start, _ in spans)
    body = next(i for i, line in enumerate(lines, 1) if "order = list(nodes)" in line)
    assert not any(start[0] <= body <= end[0] for start, end in spans)


def test_every_equivalent_is_in_its_module_and_in_the_docs() -> None:
    script = _script()
    docs = (ROOT / "docs" / "verification.md").read_text()
    for entry in script.equivalents():
        assert entry.module in CORE
        assert entry.reason
        lines = {line.strip() for line in script.source(entry.module).read_text().splitlines()}
        assert entry.line in lines, f"{entry.module}: {entry.line!r} is no longer in the module"
        assert f"`{entry.line}` → `{entry.mutant}`" in docs, entry

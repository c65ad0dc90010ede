"""The shape of the code: where the spec is, what imports what, what each package exports.

Static checks over the source files (``ast``), and two imports in a fresh interpreter.
"""

from __future__ import annotations

import ast
import importlib
import io
import subprocess
import sys
import tokenize
from pathlib import Path

import dsh_spec

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec" / "dsh_spec"
SRC = ROOT / "src" / "dsh_session"

#: The part of the spec a newcomer reads first (docs/spec.md, "Reading order"), in that order.
CORE = ("codes", "rejection", "json_value", "events", "surface", "validation", "projection")
CORE_LIMIT = 1000


def code_lines(source: str) -> int:
    """Lines holding code: not blank, not only a comment, not part of a docstring."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skipped and token.type != tokenize.ENDMARKER:
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - docstrings)


def test_code_lines_counts_code_only() -> None:
    source = (
        '"""Doc.\n\nMore."""\n\n# a comment\nx = 1  # trailing\n\n\n'
        'def f() -> None:\n    """Doc."""\n    return None\n'
    )
    assert code_lines(source) == 3


def test_the_core_of_the_spec_reads_in_under_a_thousand_lines() -> None:
    counted = {name: code_lines((SPEC / f"{name}.py").read_text("utf-8")) for name in CORE}
    assert sum(counted.values()) <= CORE_LIMIT, counted


def test_the_core_imports_only_the_core() -> None:
    for name in CORE:
        for module in imported_modules(SPEC / f"{name}.py"):
            if module.startswith("dsh_spec"):
                assert module.removeprefix("dsh_spec.") in CORE, (name, module)


def test_the_reading_order_names_every_module_of_the_spec() -> None:
    text = (ROOT / "docs" / "spec.md").read_text("utf-8")
    order = text[text.index("## Reading order") : text.index("## The rules the spec keeps")]
    modules = {path.name for path in SPEC.glob("*.py") if path.name != "__init__.py"}
    assert {name for name in modules if f"`{name}`" not in order} == set()
    assert all(f"`{name}.py`" in order for name in CORE)


# -- imports ------------------------------------------------------------------------------------


def module_name(path: Path) -> str:
    """The dotted name of a source file under spec/ or src/."""
    base = SPEC.parent if path.is_relative_to(SPEC) else SRC.parent
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> list[Path]:
    return sorted([*SPEC.rglob("*.py"), *SRC.rglob("*.py")])


def package_of(path: Path) -> str:
    """The package a source file's relative imports start from."""
    name = module_name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def resolve(package: str, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    base = parts[: len(parts) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.add(resolve(package_of(path), node))
    return found


def test_the_spec_imports_nothing_of_the_implementation() -> None:
    for path in SPEC.rglob("*.py"):
        imported = imported_modules(path)
        assert not {name for name in imported if name.split(".")[0] == "dsh_session"}, path


def _modules_after(statement: str) -> set[str]:
    probe = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return {name for name in done.stdout.split() if name.split(".")[0] == "dsh_spec"}


def test_the_registry_of_codes_imports_alone() -> None:
    assert _modules_after("from dsh_spec.codes import Code") == {"dsh_spec", "dsh_spec.codes"}


def test_importing_the_library_runs_none_of_the_specs_logic() -> None:
    assert _modules_after("import dsh_session") == {"dsh_spec", "dsh_spec.codes"}


def test_the_spec_package_names_where_each_export_lives() -> None:
    modules: dict[str, str] = vars(dsh_spec)["_MODULES"]
    assert sorted(modules) == sorted(dsh_spec.__all__)
    for name, module in modules.items():
        assert getattr(dsh_spec, name) is getattr(importlib.import_module(f"dsh_spec.{module}"), name)
    assert not hasattr(dsh_spec, "no_such_name")
    # A submodule, once imported, is the package's attribute of its name: no export may share it.
    assert not set(modules) & {path.stem for path in SPEC.glob("*.py")}

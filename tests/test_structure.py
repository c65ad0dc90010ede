"""The shape of the code: where the spec is, what imports what, what each package exports.

Static checks over the source files (``ast``), and two imports in a fresh interpreter.
"""

from __future__ import annotations

import ast
import importlib
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

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


def _modules_after(statement: str, package: str = "dsh_spec") -> set[str]:
    """The modules of ``package`` (a top-level name) that ``statement`` imports in a fresh interpreter."""
    probe = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return {name for name in done.stdout.split() if name.split(".")[0] == package}


def test_the_registry_of_codes_imports_alone() -> None:
    assert _modules_after("from dsh_spec.codes import Code") == {"dsh_spec", "dsh_spec.codes"}


def test_importing_the_library_runs_none_of_the_specs_logic() -> None:
    assert _modules_after("import dsh_session") == set()
    assert _modules_after("from dsh_session import Session, SqliteBackend") == {"dsh_spec", "dsh_spec.codes"}


def test_importing_the_library_runs_none_of_its_modules() -> None:
    assert _modules_after("import dsh_session", "dsh_session") == {"dsh_session", "dsh_session._lazy"}


def test_a_session_in_memory_imports_no_backend() -> None:
    loaded = _modules_after("from dsh_session import Session, Event, NotJsonError", "dsh_session")
    assert "dsh_session.session" in loaded
    assert not {name for name in loaded if name.startswith(("dsh_session.persistence", "dsh_session.cli"))}
    assert not _modules_after("from dsh_session import Session", "sqlite3")
    assert not _modules_after("from dsh_session import MemoryBackend", "sqlite3")
    assert _modules_after("from dsh_session import SqliteBackend", "sqlite3")
    assert not _modules_after("from dsh_session import SqliteBackend", "psycopg")


def test_a_submodule_is_reached_through_its_package_as_before_the_lazy_loading() -> None:
    probe = (
        "import dsh_session\n"
        "print(dsh_session.persistence.errors.StoreIOError.__name__, dsh_session.json_value.MAX_DEPTH)\n"
        "for name in ('no_such_module', 'a.b', '__no_such__'):\n"
        "    try:\n"
        "        getattr(dsh_session, name)\n"
        "    except AttributeError as error:\n"
        "        print(type(error).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["StoreIOError", "200", *["AttributeError"] * 3]


@pytest.mark.parametrize("package", ["dsh_session", "dsh_session.persistence"])
def test_the_librarys_packages_name_where_each_export_lives(package: str) -> None:
    root = importlib.import_module(package)
    modules: dict[str, str] = vars(root)["_MODULES"]
    assert sorted(modules) == sorted(set(root.__all__) - {"__version__"})
    for name, module in modules.items():
        assert getattr(root, name) is getattr(importlib.import_module(f"{package}.{module}"), name)
    assert set(root.__all__) <= set(dir(root))
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = root.no_such_name
    # A submodule, once imported, is the package's attribute of its name: no export may share it.
    folder = SRC.joinpath(*package.split(".")[1:])
    submodules = {path.stem for path in folder.glob("*.py")}
    submodules |= {path.name for path in folder.iterdir() if (path / "__init__.py").is_file()}
    assert not set(modules) & submodules


def test_the_spec_package_names_where_each_export_lives() -> None:
    modules: dict[str, str] = vars(dsh_spec)["_MODULES"]
    assert sorted(modules) == sorted(dsh_spec.__all__)
    for name, module in modules.items():
        assert getattr(dsh_spec, name) is getattr(importlib.import_module(f"dsh_spec.{module}"), name)
    assert not hasattr(dsh_spec, "no_such_name")
    # A submodule, once imported, is the package's attribute of its name: no export may share it.
    assert not set(modules) & {path.stem for path in SPEC.glob("*.py")}


def is_private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def is_module(name: str) -> bool:
    """A module or package of the spec or the implementation by that dotted name (a C
    extension module counts by its source, ``name.c``, built or not)."""
    parts = name.split(".")
    base = SPEC.parent if parts[0] == "dsh_spec" else SRC.parent
    path = base.joinpath(*parts)
    sources = (path.with_suffix(".py"), path.with_suffix(".c"), path / "__init__.py")
    return any(source.is_file() for source in sources)


def private_reach_ins(path: Path) -> list[str]:
    """Where a file imports what is private to another package or module.

    The rule: a private module (a part of its dotted name starts with ``_``) may be imported only by
    the modules of the package that holds it (and of that package's subpackages); a private name
    (``from m import _name``, ``_name`` not a module) is the module's own and is imported nowhere.
    """
    package = package_of(path)
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = resolve(package, node)
            for alias in node.names:
                if is_module(f"{module}.{alias.name}"):
                    targets.append(f"{module}.{alias.name}")
                elif is_private(alias.name):
                    found.append(f"{path.relative_to(ROOT)}: takes {alias.name} from {module}")
                else:
                    targets.append(module)
        for target in targets:
            parts = target.split(".")
            for index, part in enumerate(parts):
                if is_private(part):
                    owner = ".".join(parts[:index])
                    if package != owner and not package.startswith(owner + "."):
                        found.append(f"{path.relative_to(ROOT)}: imports {target}")
                    break
    return list(dict.fromkeys(found))


def test_no_module_reaches_into_what_is_private_elsewhere() -> None:
    found = [found for path in sources() for found in private_reach_ins(path)]
    assert found == []


def test_the_private_reach_in_check_finds_one(tmp_path: Path) -> None:
    planted = SRC / "cli" / "planted_reach_in.py"
    assert not planted.exists()
    try:
        planted.write_text(
            "from dsh_session.persistence._codec import event_line\n"
            "from dsh_session.persistence.sqlite import _SELECT_HEADER\n"
            "from dsh_session.cli import _output\n"
        )
        found = private_reach_ins(planted)
    finally:
        planted.unlink()
    assert len(found) == 2, found
    assert "imports dsh_session.persistence._codec" in found[0]
    assert "takes _SELECT_HEADER" in found[1]


def dependencies(path: Path) -> set[str]:
    """The spec's and the implementation's modules a file imports: at module level or deferred into
    a function (a deferred import hides a cycle, it does not remove it); not under ``if TYPE_CHECKING``."""
    package = package_of(path)
    tree = ast.parse(path.read_text("utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        for statement in node.body
        for inner in ast.walk(statement)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = resolve(package, node)
            for alias in node.names:
                # ``from package import submodule`` needs the submodule, not what the package holds.
                found.add(f"{module}.{alias.name}" if is_module(f"{module}.{alias.name}") else module)
    return {name for name in found if name.split(".")[0] in ("dsh_spec", "dsh_session") and is_module(name)}


def import_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph (the names around it, the first one again at the end), or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for child in sorted(graph.get(node, ())):
            if state.get(child) == 1:
                return [*path[path.index(child) :], child]
            if child not in state and (cycle := walk(child)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := walk(node)) is not None:
            return cycle
    return None


def test_the_cycle_check_finds_one() -> None:
    assert import_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert import_cycle({"a": {"b"}, "b": {"c"}, "c": {"b"}}) == ["b", "c", "b"]


def test_no_import_cycles() -> None:
    graph: dict[str, set[str]] = {}
    for path in sources():
        # (Importing a module imports the packages above it first; those edges are not counted: a
        # package's ``__init__`` importing its own modules is no cycle.)
        graph[module_name(path)] = dependencies(path) - {module_name(path)}
    assert import_cycle(graph) is None


# -- exports ------------------------------------------------------------------------------------


def export_order(name: str) -> tuple[int, str]:
    """The order of a sorted ``__all__`` (ruff's RUF022, isort-style): constants, classes, the rest."""
    group = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return group, name


def exports(path: Path) -> list[list[str]]:
    """Every ``__all__`` statement of a file: the names each assigns or adds."""
    found = []
    for node in ast.parse(path.read_text("utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "__all__":
            found.append(list(ast.literal_eval(value)))
    return found


#: The packages that export names (the others export only their modules).
EXPORTING = ("dsh_spec", "dsh_session", "dsh_session.persistence", "dsh_session.cli")


def test_each_package_and_module_has_one_sorted_all() -> None:
    for path in sources():
        found = exports(path)
        assert len(found) == (1 if module_name(path) in EXPORTING else len(found[:1])), path
        for names in found:
            assert names == sorted(names, key=export_order), path
            assert len(set(names)) == len(names), path


def test_the_export_order_is_constants_classes_then_the_rest() -> None:
    names = ["b", "Code", "APPEND", "__version__", "A", "Event"]
    assert sorted(names, key=export_order) == ["APPEND", "A", "Code", "Event", "__version__", "b"]


def test_no_export_is_named_after_a_development_branch() -> None:
    names = "store|coord|cli|clifix|pgcli|postgres|integrate|rules|conformance|persistence"
    branch = re.compile(rf"^\s*# --.*\b({names}) block\b", re.MULTILINE)
    for path in sources():
        assert not branch.search(path.read_text("utf-8")), path

"""The documentation is checked: its examples run, its links resolve, the names it cites exist.

How examples are written so that they can be checked -- ``# => output``,
``# raises CODE``, console transcripts, JSON shapes, ``<!-- no-run: why -->``
-- is the convention in ``tests/doc_examples.py``'s docstring (also summed up
at the top of ``docs/guide.md``). Each document runs in its own temporary
working directory, its blocks in order.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import re
import tempfile
import textwrap
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from dsh_spec.codes import Code
from tests import doc_examples as D

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "conformance" / "README.md"]


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


# -- the examples run ---------------------------------------------------------------------------


@pytest.mark.parametrize("document", DOCUMENTS, ids=_name)
def test_the_examples_run_and_show_what_the_text_says(
    document: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A short directory: the command line prints full paths, and a long one would wrap its tables.
    with tempfile.TemporaryDirectory(prefix="dsh-doc-") as workdir:
        monkeypatch.chdir(workdir)
        D.run_document(document)


def test_the_guide_the_readme_and_the_references_hold_examples_that_run() -> None:
    for name, least in (("README.md", 1), ("docs/guide.md", 10), ("docs/errors.md", 50), ("docs/cli.md", 5)):
        ran = [b for b in D.blocks(ROOT / name) if D.runner(b) is not None]
        assert len(ran) >= least, name


def test_blocks_that_do_not_run_are_few_and_say_why() -> None:
    skipped = [b for doc in DOCUMENTS for b in D.blocks(doc) if b.no_run is not None]
    for block in skipped:
        assert block.no_run, block.where
    assert len(skipped) <= 10, [b.where for b in skipped]


# -- the harness can fail ------------------------------------------------------------------------


def _doc(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(textwrap.dedent(text), "utf-8")
    return path


def test_a_wrong_output_is_caught(tmp_path: Path) -> None:
    doc = _doc(tmp_path, "```python\nprint(1 + 1)  # => 3\n```\n")
    with pytest.raises(D.DocExampleError, match="expected '3'"):
        D.run_document(doc)


def test_an_unannounced_print_is_caught(tmp_path: Path) -> None:
    doc = _doc(tmp_path, "```python\nx = 2\nprint(x)\n```\n")
    with pytest.raises(D.DocExampleError, match="printed without"):
        D.run_document(doc)


def test_output_values_continuations_loops_and_ellipses(tmp_path: Path) -> None:
    doc = _doc(
        tmp_path,
        """\
        ```python
        value = {"a": [1, 2]}
        value["a"]  # => [1, 2]
        for n in range(3):
            print(n)  # => 0
            # => 1
            # => 2
        print("session-1 created at 1767225600000")  # => session-1 created at ...
        ```
        """,
    )
    assert D.run_document(doc) == 1


def test_a_statement_that_should_raise_and_does_not_is_caught(tmp_path: Path) -> None:
    doc = _doc(tmp_path, "```python\nx = 1  # raises NON_JSON_DATA\n```\n")
    with pytest.raises(D.DocExampleError, match="got None"):
        D.run_document(doc)


def test_the_code_raised_is_checked(tmp_path: Path) -> None:
    good = _doc(
        tmp_path,
        """\
        ```python
        from dsh_session import Session
        Session("s").append("todo/write", {"x": (1,)})  # raises NON_JSON_DATA
        ```
        """,
    )
    D.run_document(good)
    bad = _doc(tmp_path, good.read_text().replace("NON_JSON_DATA", "MALFORMED_EVENT"))
    with pytest.raises(D.DocExampleError, match="got NON_JSON_DATA"):
        D.run_document(bad)


def test_an_annotation_on_no_statement_is_caught(tmp_path: Path) -> None:
    doc = _doc(tmp_path, "```python\nx = [\n    1,  # => 1\n]\n```\n")
    with pytest.raises(D.DocExampleError, match="close no statement"):
        D.run_document(doc)


def test_console_output_and_status_are_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    good = _doc(
        tmp_path,
        "```console\n$ dsh-session validate missing  # exit status 2\ndsh-session: error: ...\n```\n",
    )
    D.run_document(good)
    for wrong in ("# exit status 1", ""):
        bad = _doc(tmp_path, good.read_text().replace("# exit status 2", wrong))
        with pytest.raises(D.DocExampleError, match="exit status"):
            D.run_document(bad)
    bad = _doc(tmp_path, good.read_text().replace("error: ...", "warning: ..."))
    with pytest.raises(D.DocExampleError, match="expected"):
        D.run_document(bad)


def test_only_dsh_session_commands_run(tmp_path: Path) -> None:
    for block in ("```console\n$ rm -rf /tmp/x\n```\n", "```sh\npython3 dev.py check\n```\n"):
        with pytest.raises(D.DocExampleError, match="only dsh-session commands run"):
            D.run_document(_doc(tmp_path, block))
    marked = "<!-- no-run: sets up a machine -->\n```sh\npython3 dev.py check\n```\n"
    assert D.run_document(_doc(tmp_path, marked)) == 0
    with pytest.raises(D.DocExampleError, match="say why"):
        D.run_document(_doc(tmp_path, "<!-- no-run -->\n```sh\npython3 dev.py check\n```\n"))


def test_a_transcript_in_a_plain_block_is_refused(tmp_path: Path) -> None:
    with pytest.raises(D.DocExampleError, match="command line"):
        D.run_document(_doc(tmp_path, "```\n$ dsh-session demo\n```\n"))


def test_json_shapes() -> None:
    real = {"a": 1, "b": [{"c": "long text"}, {"c": "x"}], "d": True}
    assert D.shape_problem({"a": 1, "b": [{"c": "long ..."}, "..."], "d": True}, real) is None
    assert D.shape_problem({"a": 1, "...": 0}, real) is None
    assert D.shape_problem({"a": 1, "b": [], "d": True}, real) is not None  # list length
    assert D.shape_problem({"a": 1, "b": real["b"]}, real) is not None  # a key left out
    assert D.shape_problem({"a": 1, "b": real["b"], "d": 1}, real) is not None  # true is not 1
    assert D.shape_problem({"a": 2, "...": 0}, real) is not None
    assert D.shape_problem({"a": "...", "b": "...", "d": "..."}, real) is None


# -- links ---------------------------------------------------------------------------------------

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCED = re.compile(r"^```.*?^```", flags=re.MULTILINE | re.DOTALL)


def _prose(path: Path) -> str:
    return FENCED.sub("", path.read_text("utf-8"))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower()
    text = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6} (.+?)\s*$", _prose(path), flags=re.MULTILINE):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return frozenset(out)


def test_slugs_follow_github() -> None:
    assert slug("The write coordinator") == "the-write-coordinator"
    assert slug("`check_log` reports every violation") == "check_log-reports-every-violation"
    assert slug("D-I2. `check_log`, again (P1-P6)") == "d-i2-check_log-again-p1-p6"


@pytest.mark.parametrize("document", DOCUMENTS, ids=_name)
def test_every_relative_link_resolves(document: Path) -> None:
    broken = []
    for target in LINK.findall(_prose(document)):
        if re.match(r"^[a-z]+:", target):
            continue  # http:, https:, mailto:
        file_part, _, anchor = target.partition("#")
        path = (document.parent / file_part).resolve() if file_part else document
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and (path.suffix != ".md" or anchor not in anchors(path)):
            broken.append(f"{target}: no such heading")
    assert not broken, broken


QUOTED = re.compile(r"`+docs/([\w-]+\.md)`+\)?,? \"([^\"]+)\"")


def test_sections_named_in_quotes_exist() -> None:
    """``docs/x.md``, "Heading" -- in the docs, docstrings and comments -- names a real heading."""
    sources = [*DOCUMENTS, *(ROOT / "src").rglob("*.py"), *(ROOT / "spec").rglob("*.py")]
    broken = []
    for source in sources:
        for name, heading in QUOTED.findall(source.read_text("utf-8")):
            target = ROOT / "docs" / name
            if not target.exists() or slug(heading) not in anchors(target):
                broken.append(f"{source.relative_to(ROOT)}: {name}, {heading!r}")
    assert not broken, broken
    assert QUOTED.findall('see (``docs/errors.md``, "Log invariants")') == [("errors.md", "Log invariants")]


def test_the_readme_links_every_document() -> None:
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in LINK.findall(_prose(ROOT / "README.md"))}
    names = ("guide", "spec", "errors", "deviations", "conformance", "persistence", "performance", "cli")
    wanted = {ROOT / "docs" / f"{name}.md" for name in names}
    assert wanted <= linked, sorted(str(p) for p in wanted - linked)


# -- names cited in the spec walkthrough -----------------------------------------------------------

SPEC_MODULES = {p.stem for p in (ROOT / "spec" / "dsh_spec").glob("*.py") if p.stem != "__init__"}
TICKED = re.compile(r"`([^`\n]+)`")
#: JavaScript names the walkthrough cites for the reference's behaviour.
JAVASCRIPT = {"JSON.stringify", "JSON.parse", "Number.isSafeInteger", "QuoteJSONString"}
#: Standard-library names it cites.
PYTHON = {"StrEnum", "dsh_spec", "dsh_session"}


@cache
def defined_names() -> frozenset[str]:
    """Every function, class and method name defined in the spec, the implementation and the tests."""
    names = set()
    for folder in ("spec", "src", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    names.add(node.name)
    return frozenset(names)


def _member(owner: Any, name: str) -> bool:
    if hasattr(owner, name):
        return True
    fields: Any = getattr(owner, "__dataclass_fields__", None) or getattr(owner, "_fields", ())
    return name in fields or name in getattr(owner, "__annotations__", {})


def resolves(dotted: str) -> bool:
    """A dotted name resolves: ``dsh_spec.x.y``, ``dsh_session.x.y``, a spec module's ``module.name``,
    or ``Class.member`` of a class either package exports."""
    parts = dotted.split(".")
    if parts[0] in SPEC_MODULES:
        parts = ["dsh_spec", *parts]
    if parts[0] in ("dsh_spec", "dsh_session"):
        for cut in range(len(parts), 0, -1):
            try:
                owner: Any = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for index, name in enumerate(parts[cut:]):
                if not _member(owner, name):
                    return False
                if index < len(parts[cut:]) - 1:
                    owner = getattr(owner, name)
            return True
        return False
    for package in ("dsh_spec", "dsh_session"):
        owner = importlib.import_module(package)
        for name in parts:
            if not _member(owner, name):
                break
            owner = getattr(owner, name, None)
        else:
            return True
    return False


def cited(path: Path) -> list[str]:
    return TICKED.findall(_prose(path))


def citation_problem(token: str) -> str | None:
    """Why a backticked token of the walkthrough names nothing, if it looks like a name."""
    name = token.removesuffix("()")
    if token in JAVASCRIPT or token in PYTHON:
        return None
    if re.fullmatch(r"[\w./-]+\.(py|md|json|toml)", token):
        found = (ROOT / token).exists() or (ROOT / "spec" / "dsh_spec" / token).exists()
        return None if found else "no such file"
    if re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", name):
        return None if resolves(name) else "does not resolve"
    if token.endswith("()") and re.fullmatch(r"[A-Za-z_]\w*", name):
        return None if name in defined_names() else "defined nowhere"
    if re.fullmatch(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)+", token):
        known = token in Code.__members__ or resolves(f"dsh_spec.{token}") or resolves(f"dsh_session.{token}")
        return None if known else "neither a code nor a constant"
    if re.fullmatch(r"[A-Za-z_]\w+", token) and ("_" in token.strip("_") or token[0].isupper()):
        known = token in defined_names() or hasattr(builtins, token)
        return None if known else "defined nowhere"
    return None


def test_every_name_the_spec_walkthrough_cites_exists() -> None:
    problems = []
    for token in cited(ROOT / "docs" / "spec.md"):
        problem = citation_problem(token)
        if problem is not None:
            problems.append(f"{token}: {problem}")
    assert not problems, problems


def test_the_name_check_can_fail() -> None:
    assert resolves("validation.admit") and resolves("dsh_session.Session.append")
    assert resolves("Surface.order") and resolves("Event.type") and resolves("SurfaceManager.sync")
    assert not resolves("validation.admits") and not resolves("Session.apend")
    assert not resolves("dsh_spec.nowhere.thing")
    assert citation_problem("check_log") is None and citation_problem("check_logs") is not None
    assert citation_problem("tests/nowhere.py") is not None and citation_problem("NOT_A_CODE") is not None
    assert citation_problem("admit()") is None and citation_problem("admitted()") is not None


# -- the error reference ---------------------------------------------------------------------------


def test_the_error_index_lists_every_code_once_in_the_order_of_the_sections() -> None:
    text = _prose(ROOT / "docs" / "errors.md")
    row = r"^\| `([A-Z0-9_]+)` \| \[([^\]]+)\]\(#([\w-]+)\) \| [^|]+ \| `(\w+)` \|"
    rows = re.findall(row, text, re.MULTILINE)
    sections = re.findall(r"^## ([A-Z][A-Z0-9_]+)\s*$", text, flags=re.MULTILINE)
    assert [row[0] for row in rows] == sections
    assert sorted(sections) == sorted(code.value for code in Code)
    import dsh_session

    for code, _group, _anchor, exception in rows:
        assert isinstance(getattr(dsh_session, exception, None), type), (code, exception)


def test_each_code_sits_under_the_group_its_index_row_names() -> None:
    text = _prose(ROOT / "docs" / "errors.md")
    rows = dict(
        (code, anchor)
        for code, anchor in re.findall(r"^\| `([A-Z0-9_]+)` \| \[[^\]]+\]\(#([\w-]+)\)", text, re.MULTILINE)
    )
    group = None
    for level, heading in re.findall(r"^(#{1,2}) (.+?)\s*$", text, flags=re.MULTILINE):
        if level == "#":
            group = slug(heading)
        elif heading in rows:
            assert rows[heading] == group, heading

"""Running the examples of the documentation and checking what they say they print.

The convention every document follows (``tests/test_docs.py`` applies it to
``README.md`` and ``docs/*.md``):

``python`` blocks
    A document's python blocks run in order, in one namespace, in a fresh
    temporary working directory. A statement whose last line ends in
    ``# => TEXT`` must show TEXT: what the interactive interpreter would show
    for it -- what it prints, then the ``repr`` of its value when it is an
    expression whose value is not ``None``. Comment lines ``# => MORE`` right
    below it continue the expected output line by line. ``...`` in the
    expected text stands for any text. (As in the interpreter, only a
    top-level expression shows its value; one inside a loop, a ``try`` or a
    function shows only what it prints.) A statement ending in
    ``# raises CODE`` must raise an error whose ``.code`` is ``CODE``; the
    block then goes on. Every other statement must print nothing, so no
    output goes unchecked.

``console`` blocks
    ``$ dsh-session ARGS`` lines are commands, run in the same working
    directory (in-process, through click's test runner, not a terminal). The
    lines up to the next ``$`` line are its expected output (stdout, then
    stderr), with ``...`` as above. The exit status must be 0 unless the
    command ends with ``# exit status N``. Only ``dsh-session`` commands run.

``sh`` blocks
    Every command line that starts with ``dsh-session`` runs and must exit
    with status 0; the block may show no output.

``json`` blocks after ``<!-- shape: dsh-session ARGS -->``
    The command runs and its JSON output must have the block's shape: the
    same keys (an object with a ``"..."`` key may leave keys out), lists whose
    last item ``"..."`` stands for the rest, strings with ``...`` as above,
    every other value equal; the string ``"..."`` alone stands for any value.

``<!-- no-run: REASON -->`` on the line before a fence
    The block is not run. Only blocks that cannot run in a test carry it
    (commands that set up a machine or take minutes, an interface listing,
    a server that is not there). A ``python``, ``console`` or ``sh`` block
    with any other command must carry it.

Blocks in any other language (``text``, ``sql``, plain fences) are not code
and are not run; they must not hold ``$`` command lines or ``>>>`` prompts.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import shlex
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.cli_support import run as run_cli

RUN_LANGUAGES = ("python", "console", "sh")
OUTPUT = "# =>"
RAISES = re.compile(r"#\s*raises\s+([A-Za-z_]\w*)\s*$")
EXIT_STATUS = re.compile(r"\s*#\s*exit status (\d+)\s*$")
NO_RUN = re.compile(r"^<!--\s*no-run(?::\s*(.*?))?\s*-->$")
SHAPE = re.compile(r"^<!--\s*shape:\s*(.+?)\s*-->$")
FENCE = re.compile(r"^```(\S*)\s*$")
#: The environment commands run in: a fixed width, no colour.
CLI_ENV = {"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}


class DocExampleError(AssertionError):
    """A documented example did not run, or did not show what the text says."""


@dataclass(frozen=True)
class Block:
    """One fenced block: its language, text, where it starts, and the comment before it."""

    path: Path
    language: str
    text: str
    line: int  # 1-based line of the block's first content line
    no_run: str | None = None  # the reason, when marked
    shape: str | None = None  # the command of a shape block

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """Every fenced block of a Markdown file, in order."""
    lines = path.read_text("utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if match is None:
            index += 1
            continue
        start = index
        end = start + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end == len(lines):
            raise DocExampleError(f"{path.name}:{start + 1}: unclosed code fence")
        before = _line_before(lines, start)
        no_run = NO_RUN.match(before)
        shape = SHAPE.match(before)
        found.append(
            Block(
                path=path,
                language=match.group(1),
                text="\n".join(lines[start + 1 : end]) + "\n",
                line=start + 2,
                no_run=(no_run.group(1) or "") if no_run else None,
                shape=shape.group(1) if shape else None,
            )
        )
        index = end + 1
    return found


def _line_before(lines: list[str], index: int) -> str:
    back = index - 1
    while back >= 0 and not lines[back].strip():
        back -= 1
    return lines[back].strip() if back >= 0 else ""


# -- expected text ------------------------------------------------------------------------------


def matches(expected: str, actual: str) -> bool:
    """``actual`` is ``expected``, ``...`` standing for any text; trailing blanks do not count."""
    expected, actual = _tidy(expected), _tidy(actual)
    pattern = ".*?".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual, flags=re.DOTALL) is not None


def _tidy(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


# -- python blocks ------------------------------------------------------------------------------


@dataclass
class _Expectation:
    line: int  # block-relative line of the statement's end
    output: list[str] | None = None
    raises: str | None = None
    seen: list[str] = field(default_factory=list)
    raised: list[str | None] = field(default_factory=list)


def _comments(source: str) -> dict[int, tuple[str, bool]]:
    """Comments by line: their text, and whether they are alone on their line."""
    found: dict[int, tuple[str, bool]] = {}
    lines = source.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            found[row] = (token.string, not lines[row - 1][:col].strip())
    return found


def expectations(source: str) -> dict[int, _Expectation]:
    """The ``# =>`` and ``# raises`` annotations of a block, keyed by the line they close."""
    found: dict[int, _Expectation] = {}
    last: _Expectation | None = None
    for row, (text, alone) in sorted(_comments(source).items()):
        if alone and text.startswith(OUTPUT) and last is not None and last.output is not None:
            last.output.append(text[len(OUTPUT) :].strip())
            continue
        last = None
        if alone:
            continue
        if text.startswith(OUTPUT):
            last = found[row] = _Expectation(row, output=[text[len(OUTPUT) :].strip()])
        elif (raised := RAISES.match(text)) is not None:
            found[row] = _Expectation(row, raises=raised.group(1))
    return found


class _Instrument(ast.NodeTransformer):
    """Wraps each annotated statement in a ``with`` that captures its output or its error."""

    def __init__(self, wanted: dict[int, _Expectation]) -> None:
        self.wanted = wanted
        self.claimed: set[int] = set()

    def generic_visit(self, node: ast.AST) -> ast.AST:
        top = isinstance(node, ast.Module)
        for name in ("body", "orelse", "finalbody"):
            statements = getattr(node, name, None)
            if isinstance(statements, list) and statements and isinstance(statements[0], ast.stmt):
                setattr(node, name, [self._wrap(s, top) for s in statements])
        for handler in getattr(node, "handlers", ()):
            self.generic_visit(handler)
        return node

    def _wrap(self, statement: ast.stmt, top: bool) -> ast.stmt:
        self.generic_visit(statement)
        line = statement.end_lineno
        if line is None or line not in self.wanted or line in self.claimed or _has_body(statement):
            return statement
        self.claimed.add(line)
        helper = "__doc_output__" if self.wanted[line].output is not None else "__doc_raises__"
        body = statement
        if helper == "__doc_output__" and top and isinstance(statement, ast.Expr):
            call = ast.Call(ast.Name("__doc_show__", ast.Load()), [statement.value], [])
            body = ast.Expr(call)
        item = ast.withitem(ast.Call(ast.Name(helper, ast.Load()), [ast.Constant(line)], []))
        wrapped = ast.With([item], [body])
        return ast.fix_missing_locations(ast.copy_location(wrapped, statement))


def _has_body(statement: ast.stmt) -> bool:
    return isinstance(getattr(statement, "body", None), list)


def run_python(block: Block, namespace: dict[str, Any]) -> None:
    """Run one python block in ``namespace`` and check every annotation in it."""
    wanted = expectations(block.text)
    tree = ast.parse(block.text, filename=str(block.path))
    instrument = _Instrument(wanted)
    tree = instrument.visit(tree)
    stray = sorted(set(wanted) - instrument.claimed)
    if stray:
        lines = [block.line + line - 1 for line in stray]
        raise DocExampleError(f"{block.where}: annotation(s) on line(s) {lines} close no statement")
    ast.increment_lineno(tree, block.line - 1)
    code = compile(tree, str(block.path), "exec")

    @contextlib.contextmanager
    def output(line: int) -> Iterator[None]:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            yield
        wanted[line].seen.append(buffer.getvalue())

    @contextlib.contextmanager
    def raises(line: int) -> Iterator[None]:
        try:
            yield
        except Exception as error:  # the code is checked below
            wanted[line].raised.append(str(getattr(error, "code", None) or type(error).__name__))
        else:
            wanted[line].raised.append(None)

    def show(value: object) -> None:
        if value is not None:
            print(repr(value))

    namespace.update(__doc_output__=output, __doc_raises__=raises, __doc_show__=show)
    stray_output = io.StringIO()
    with contextlib.redirect_stdout(stray_output):
        exec(code, namespace)
    if stray_output.getvalue():
        raise DocExampleError(
            f"{block.where}: a statement printed without a '# =>' saying what: {stray_output.getvalue()!r}"
        )
    for line, expectation in sorted(wanted.items()):
        at = f"{block.path.name}:{block.line + line - 1}"
        if expectation.output is not None:
            if not expectation.seen:
                raise DocExampleError(f"{at}: the annotated statement never ran")
            shown = "".join(expectation.seen)
            expected = "\n".join(expectation.output)
            if not matches(expected, shown):
                raise DocExampleError(f"{at}: expected {expected!r}, it shows {shown.rstrip()!r}")
        else:
            if not expectation.raised:
                raise DocExampleError(f"{at}: the annotated statement never ran")
            for got in expectation.raised:
                if got != expectation.raises:
                    raise DocExampleError(f"{at}: expected it to raise {expectation.raises}, got {got}")


# -- commands -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    args: list[str]
    status: int
    output: str
    line: int


def console_commands(block: Block) -> list[Command]:
    """The ``$`` commands of a console block with their expected output and status."""
    commands: list[Command] = []
    current: tuple[str, int] | None = None
    output: list[str] = []

    def close() -> None:
        if current is None:
            return
        text, line = current
        status = 0
        found = EXIT_STATUS.search(text)
        if found is not None:
            status = int(found.group(1))
            text = text[: found.start()]
        commands.append(Command(_dsh_args(text, block, line), status, "\n".join(output), line))

    for offset, line in enumerate(block.text.splitlines()):
        if line.startswith("$ "):
            close()
            current, output = (line[2:], block.line + offset), []
        elif current is None:
            if line.strip():
                raise DocExampleError(f"{block.where}: console output before any '$' command")
        else:
            output.append(line)
    close()
    if not commands:
        raise DocExampleError(f"{block.where}: a console block with no '$' command")
    return commands


def sh_commands(block: Block) -> list[list[str]]:
    """The command lines of an sh block (each must be a ``dsh-session`` command)."""
    out = []
    for offset, line in enumerate(block.text.splitlines()):
        words = shlex.split(line, comments=True)
        if words:
            out.append(_dsh_args(line, block, block.line + offset))
    return out


def _dsh_args(text: str, block: Block, line: int) -> list[str]:
    words = shlex.split(text, comments=True)
    if not words or words[0] != "dsh-session":
        raise DocExampleError(
            f"{block.path.name}:{line}: only dsh-session commands run; mark the block <!-- no-run: ... -->"
        )
    return words[1:]


def run_command(args: list[str]) -> tuple[int, str, str]:
    ran = run_cli(*args, env=CLI_ENV)
    if ran.status == 3 or (ran.exception is not None and not isinstance(ran.exception, SystemExit)):
        raise DocExampleError(f"dsh-session {shlex.join(args)} crashed: {ran.exception!r}\n{ran.stderr}")
    return ran.status, ran.stdout, ran.stderr


def run_console(block: Block) -> None:
    for command in console_commands(block):
        status, stdout, stderr = run_command(command.args)
        at = f"{block.path.name}:{command.line}"
        if status != command.status:
            raise DocExampleError(f"{at}: exit status {status}, expected {command.status}\n{stdout}{stderr}")
        shown = stdout + stderr
        if not matches(command.output, shown):
            raise DocExampleError(f"{at}: expected\n{command.output}\nit shows\n{shown}")


def run_sh(block: Block) -> None:
    for args in sh_commands(block):
        status, _stdout, stderr = run_command(args)
        if status != 0:
            raise DocExampleError(f"{block.where}: dsh-session {shlex.join(args)} exited {status}\n{stderr}")


# -- JSON shapes --------------------------------------------------------------------------------


def shape_problem(doc: Any, real: Any, path: str = "$") -> str | None:
    """Where the real JSON value does not have the documented shape, if anywhere."""
    if isinstance(doc, dict):
        if not isinstance(real, dict):
            return f"{path}: documented an object, got {real!r}"
        keys = [key for key in doc if key != "..."]
        missing = [key for key in keys if key not in real]
        extra = [key for key in real if key not in doc]
        if missing or (extra and "..." not in doc):
            return f"{path}: keys differ (documented only {missing}, real only {extra})"
        for key in keys:
            found = shape_problem(doc[key], real[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(doc, list):
        if not isinstance(real, list):
            return f"{path}: documented a list, got {real!r}"
        items = doc[:-1] if doc and doc[-1] == "..." else doc
        if len(real) < len(items) or (items is doc and len(real) != len(doc)):
            return f"{path}: documented {len(doc)} item(s), got {len(real)}"
        for index, item in enumerate(items):
            found = shape_problem(item, real[index], f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if doc == "...":
        return None  # any value
    if isinstance(doc, str) and isinstance(real, str):
        return None if matches(doc, real) else f"{path}: documented {doc!r}, got {real!r}"
    if type(doc) is not type(real) or doc != real:
        return f"{path}: documented {doc!r}, got {real!r}"
    return None


def run_shape(block: Block) -> None:
    assert block.shape is not None
    fake = Block(block.path, "console", "", block.line - 2)
    args = _dsh_args(block.shape, fake, block.line - 2)
    _status, stdout, stderr = run_command(args)
    try:
        real = json.loads(stdout)
    except ValueError:
        raise DocExampleError(f"{block.where}: {block.shape} printed no JSON: {stdout}{stderr}") from None
    problem = shape_problem(json.loads(block.text), real)
    if problem is not None:
        raise DocExampleError(f"{block.where}: the output of {block.shape} differs: {problem}")


# -- a whole document ---------------------------------------------------------------------------


def runner(block: Block) -> Callable[[dict[str, Any]], None] | None:
    """What running ``block`` means, or ``None`` when it is not run."""
    if block.no_run is not None:
        return None
    if block.shape is not None:
        return lambda _namespace: run_shape(block)
    if block.language == "python":
        return lambda namespace: run_python(block, namespace)
    if block.language == "console":
        return lambda _namespace: run_console(block)
    if block.language == "sh":
        return lambda _namespace: run_sh(block)
    return None


def run_document(path: Path) -> int:
    """Run every example of a document in order; returns how many blocks ran."""
    namespace: dict[str, Any] = {"__name__": f"doc:{path.name}"}
    count = 0
    for block in blocks(path):
        check_block_is_honest(block)
        run = runner(block)
        if run is not None:
            run(namespace)
            count += 1
    return count


def check_block_is_honest(block: Block) -> None:
    """A block that is not run must not look like one that is."""
    if block.no_run is not None and not block.no_run.strip():
        raise DocExampleError(f"{block.where}: say why the block does not run: <!-- no-run: REASON -->")
    if block.language in RUN_LANGUAGES or block.shape is not None:
        return
    for line in block.text.splitlines():
        if line.startswith(("$ ", ">>> ")):
            raise DocExampleError(
                f"{block.where}: a {block.language or 'plain'} block holds a command line; "
                "use a console block (or mark it <!-- no-run: ... -->)"
            )

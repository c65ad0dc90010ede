"""Writing results: lines for people, one JSON document for machines.

Human output is written line by line as it is made, so the first rows of a
long listing appear at once. It is coloured on a terminal and plain when piped
(never coloured with ``--no-color`` or ``NO_COLOR``); a line never ends in the
padding of a table. Lines are written in a small markup -- ``[bold]...[/bold]``,
``[red]...[/]`` -- that :func:`escape` makes any text safe in; the styles are
turned into terminal escapes here, so rich (and its start-up cost) is imported
only to draw a progress bar (:meth:`Output.progress`), which appears only when
stderr is a terminal and never with ``--json``.

``--json`` output is one line of JSON exactly as JavaScript's ``JSON.stringify``
writes it (so stored numbers and strings come out as they are stored), then a
newline; canonical JSON texts the library already holds (``MessageList.texts``)
are written as they are (:meth:`Output.json_parts`).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any

import click

from dsh_session.cli._bar import Progress
from dsh_session.js_json import dumps

__all__ = [
    "Output",
    "Progress",
    "controls",
    "escape",
    "is_terminal",
    "output",
    "plain",
    "render_content",
    "styled",
    "visible",
]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def is_terminal(stream: IO[Any]) -> bool:
    """True when ``stream`` is a terminal (a person is looking), or ``FORCE_COLOR`` says to write
    as if it were."""
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


class Output:
    """Where a command writes: stdout for its result, stderr for notes and progress."""

    def __init__(self, *, no_color: bool, as_json: bool = False) -> None:
        self.as_json = as_json
        self.stdout: IO[str] = sys.stdout
        self.stderr: IO[str] = sys.stderr
        colour = not no_color and not os.environ.get("NO_COLOR")
        self.color = colour and is_terminal(self.stdout)
        self.notes_color = colour and is_terminal(self.stderr)
        self.terminal = is_terminal(self.stdout)
        #: Columns for laying out a line (a terminal's width; piped, a wide default).
        self.width = _width(self.stdout) if self.terminal else int(os.environ.get("COLUMNS") or _PIPED_WIDTH)

    # -- JSON ---------------------------------------------------------------------------------

    def json(self, document: Any) -> None:
        """Print ``document`` (plain or frozen JSON values) as one line of JSON."""
        self.stdout.write(dumps(document) + "\n")

    def json_parts(self, parts: Iterable[str | bytes]) -> None:
        """Print one line of JSON made of ``parts``: JSON text, as ``str`` or UTF-8 ``bytes``
        (canonical texts the library holds), written as they are, without decoding them."""
        buffer = getattr(self.stdout, "buffer", None)
        self.stdout.flush()
        if buffer is not None:
            for part in parts:
                buffer.write(part if part.__class__ is bytes else part.encode("utf-8", "surrogatepass"))  # type: ignore[union-attr]
            buffer.write(b"\n")
            buffer.flush()
            return
        text = "".join(
            part.decode("utf-8", "surrogatepass") if isinstance(part, bytes) else part for part in parts
        )
        self.stdout.write(text + "\n")

    # -- lines for people -------------------------------------------------------------------

    def print(self, text: str = "") -> None:
        """One line of markup on stdout (``escape`` what is not markup)."""
        self.stdout.write(styled(visible(text)) if self.color else plain(visible(text)))
        self.stdout.write("\n")

    def raw(self, text: str) -> None:
        """``text`` as it is on stdout (no markup), made visible, then a newline."""
        self.stdout.write(visible(text) + "\n")

    def lines(self, lines: Iterable[str]) -> None:
        """Lines of markup on stdout, each written as soon as it is made."""
        for line in lines:
            self.print(line)

    def note(self, text: str) -> None:
        """A remark for people (stderr), not part of the result."""
        line = visible(text)
        self.stderr.write((styled(line) if self.notes_color else plain(line)) + "\n")

    @property
    def console(self) -> Any:
        """A rich console on stdout, for output that rich draws (the conformance report's tables):
        rich is imported here."""
        from rich.console import Console

        system: Any = "auto" if self.color else None
        console = Console(file=self.stdout, color_system=system, highlight=False, soft_wrap=True)
        if not console.is_terminal and "COLUMNS" not in os.environ:
            console.width = _PIPED_WIDTH  # piped: tables need not fit an 80-column default
        return console

    # -- progress ----------------------------------------------------------------------------

    @contextmanager
    def progress(self, what: str, total: int | None = None) -> Iterator[Progress]:
        """A progress bar on stderr for a long read or check: drawn (with rich) only when stderr
        is a terminal and the output is not ``--json``; otherwise a :class:`Progress` that does
        nothing."""
        if self.as_json or not is_terminal(self.stderr):
            yield Progress()
            return
        from dsh_session.cli._progress import bar  # rich is imported here, to draw

        with bar(self.stderr, what, total, color=self.notes_color) as drawn:
            yield drawn


_PIPED_WIDTH = 120


def _width(stream: IO[Any]) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return int(os.environ.get("COLUMNS") or 80)


def output(no_color: bool, as_json: bool = False) -> Output:
    """The output of the running command (``--no-color`` given to it or to the group)."""
    context = click.get_current_context(silent=True)
    root = context.find_root().obj if context is not None else None
    global_no_color = bool(root.get("no_color")) if isinstance(root, dict) else False
    return Output(no_color=no_color or global_no_color, as_json=as_json)


# -- the markup -----------------------------------------------------------------------------------

#: A tag (``[bold red]``, ``[/bold]``, ``[/]``) with the backslashes before it: an odd number
#: escapes it. The same grammar as rich's markup, so text escaped here reads the same in rich.
_TAG = re.compile(r"(\\*)\[([a-z#/@][^[]*?)]")
_ESCAPE = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")

_SGR = {
    "bold": "1",
    "dim": "2",
    "italic": "3",
    "underline": "4",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
}


def escape(text: str) -> str:
    """``text`` (a session id, a path, a type) safe to print as markup: what would read as a tag
    escaped, and control characters -- ESC, newlines, C1, line and paragraph separators --
    written as their escapes (``\\x1b``, ``\\n``), so a hostile id cannot drive the terminal or
    fake a line."""
    text = _ESCAPE.sub(lambda found: f"{found.group(1)}{found.group(1)}\\{found.group(2)}", controls(text))
    if text.endswith("\\") and not text.endswith("\\\\"):
        text += "\\"
    return text


def _render(markup: str, *, color: bool) -> str:
    if "[" not in markup:
        return markup
    out: list[str] = []
    stack: list[str] = []
    at = 0
    for found in _TAG.finditer(markup):
        out.append(markup[at : found.start()])
        at = found.end()
        backslashes, tag = found.group(1), found.group(2)
        out.append(backslashes[: len(backslashes) // 2])
        if len(backslashes) % 2:
            out.append(f"[{tag}]")  # escaped: the text itself
            continue
        if tag.startswith("/"):
            if stack:
                stack.pop()
            if color:
                out.append("\x1b[0m" + "".join(stack))
        else:
            codes = ";".join(_SGR[word] for word in tag.split() if word in _SGR)
            sgr = f"\x1b[{codes}m" if codes else ""
            stack.append(sgr)
            if color:
                out.append(sgr)
    out.append(markup[at:])
    if color and stack:
        out.append("\x1b[0m")
    return "".join(out)


def plain(markup: str) -> str:
    """``markup`` as plain text: tags dropped, escapes undone."""
    return _render(markup, color=False)


def styled(markup: str) -> str:
    """``markup`` with its styles as terminal escapes (SGR)."""
    return _render(markup, color=True)


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def controls(text: str) -> str:
    """``text`` with its control characters (ESC, newlines, C1, U+2028/2029) written as escapes."""
    return _CONTROL.sub(lambda found: found.group().encode("unicode_escape").decode(), text)


def visible(text: str) -> str:
    """``text`` printable in UTF-8: a lone surrogate (which JSON strings may hold) is written as
    its ``\\udXXX`` escape, as JSON text spells it, and control characters that drive a terminal
    (ESC, BEL, CR, C1, ...; not newline and tab, which the output lays itself out with) as theirs."""
    if text.isascii() and text.isprintable():
        return text
    text = _TERMINAL.sub(lambda found: found.group().encode("unicode_escape").decode(), text)
    if text.isascii():
        return text
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def render_content(content: Any) -> str:
    """A message's content blocks as one line of text, for transcripts and tables."""
    if not isinstance(content, list):
        return repr(content)
    parts = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            parts.append(str(block.get("text")))
        elif kind == "reasoning":
            parts.append(f"(reasoning) {block.get('text')}")
        elif kind == "tool-call":
            parts.append(f"-> {block.get('name')}({block.get('arguments')}) [call {block.get('id')}]")
        elif kind == "tool-result":
            error = " error" if block.get("isError") else ""
            parts.append(
                f"<- [result{error} {block.get('toolCallId')}] {render_content(block.get('content'))}"
            )
        else:
            parts.append(f"[{kind}]")
    return "\n".join(parts)

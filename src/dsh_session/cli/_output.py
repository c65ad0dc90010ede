"""Writing results: rich for people, one JSON document for machines.

Human output goes through a rich console: colour on a terminal, plain text
when piped, never colour with ``--no-color`` (or ``NO_COLOR``). ``--json``
output is one line of JSON exactly as JavaScript's ``JSON.stringify`` writes it
(so stored numbers and strings come out as they are stored), then a newline.
"""

from __future__ import annotations

import os
import re
from typing import Any, Literal

import click
from rich.console import Console
from rich.markup import escape as _markup_escape

from dsh_session.js_json import dumps

__all__ = ["Output", "controls", "escape", "output", "render_content", "visible"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

_PIPED_WIDTH = 120


class _Console(Console):
    """A rich console that leaves a reader going away to the command group (which exits quietly
    with status 141), as ``click.echo`` does."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


class Output:
    """Where a command writes: ``console`` (stdout) and ``notes`` (stderr), both rich."""

    def __init__(self, *, no_color: bool) -> None:
        system: Literal["auto"] | None = None if no_color else "auto"
        # soft_wrap: lines are left for the terminal to wrap (paths stay whole); tables fit the width.
        self.console = _Console(color_system=system, highlight=False, soft_wrap=True)
        self.notes = _Console(color_system=system, highlight=False, soft_wrap=True, stderr=True)
        for console in (self.console, self.notes):
            if not console.is_terminal and "COLUMNS" not in os.environ:
                console.width = _PIPED_WIDTH  # piped: tables need not fit an 80-column default

    def json(self, document: Any) -> None:
        """Print ``document`` (plain or frozen JSON values) as one line of JSON."""
        click.echo(dumps(document))

    def print(self, *parts: Any, **kwargs: Any) -> None:
        self.console.print(*(visible(part) if isinstance(part, str) else part for part in parts), **kwargs)

    def note(self, text: str) -> None:
        """A remark for people (stderr), not part of the result."""
        self.notes.print(visible(text), soft_wrap=True)

    def raw(self, text: str) -> None:
        """``text`` as it is: no markup, no wrapping."""
        self.console.print(visible(text), markup=False, soft_wrap=True)


def output(no_color: bool) -> Output:
    """The output of the running command (``--no-color`` given to it or to the group)."""
    context = click.get_current_context(silent=True)
    root = context.find_root().obj if context is not None else None
    global_no_color = bool(root.get("no_color")) if isinstance(root, dict) else False
    return Output(no_color=no_color or global_no_color)


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def controls(text: str) -> str:
    """``text`` with its control characters (ESC, newlines, C1, U+2028/2029) written as escapes."""
    return _CONTROL.sub(lambda found: found.group().encode("unicode_escape").decode(), text)


def escape(text: str) -> str:
    """``text`` (a session id, a path, a type) safe to print in rich markup: markup escaped, and
    control characters -- ESC, newlines, C1, line and paragraph separators -- written as their
    escapes (``\\x1b``, ``\\n``), so a hostile id cannot drive the terminal or fake a line."""
    return _markup_escape(controls(text))


def visible(text: str) -> str:
    """``text`` printable in UTF-8: a lone surrogate (which JSON strings may hold) is written as
    its ``\\udXXX`` escape, as JSON text spells it, and control characters that drive a terminal
    (ESC, BEL, CR, C1, ...; not newline and tab, which the output lays itself out with) as theirs."""
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

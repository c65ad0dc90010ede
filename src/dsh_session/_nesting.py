"""How deep a JSON value nests, checked without recursion: the nesting limit.

A JSON value nests at most :data:`MAX_DEPTH` containers deep (``[]`` and ``{}``
are depth 1, ``[[]]`` is 2, a scalar is 0): ``dsh_spec.json_value``. The checks
here are iterative, so they give the same answer whatever the depth of the
caller's stack and however deep the value is:

- :func:`too_deep_at` -- where a value first holds a container past the limit
  (depth first, in order; a container met again on its own path is a cycle,
  left to the JSON-value rule, and not followed);
- :func:`text_depth` -- how deep the brackets of a JSON text nest (for stored
  text that is too deep to parse).
"""

from __future__ import annotations

import re
from typing import Any, Final

__all__ = ["MAX_DEPTH", "RECORD_DEPTH", "text_depth", "too_deep_at"]

#: The deepest a JSON value may nest, in containers.
MAX_DEPTH: Final = 200

#: How deep a stored event record may nest: the record object around data of ``MAX_DEPTH``.
RECORD_DEPTH: Final = MAX_DEPTH + 1

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(rb"[\[\]{}]")


def _items(container: Any) -> Any:
    return container.items() if isinstance(container, dict) else enumerate(container)


def too_deep_at(value: object, limit: int = MAX_DEPTH) -> list[str | int] | None:
    """The path (keys and indices) to the first container of ``value`` at depth ``limit + 1``,
    or ``None`` when it nests at most ``limit`` deep.

    Any ``dict`` or ``list`` counts, frozen ones included. A container reached
    again at no greater depth than before is not walked again, so a value
    shared by many parents costs at most ``limit`` walks of it.
    """
    if not isinstance(value, dict | list):
        return None
    on_path = {id(value)}
    nodes: list[Any] = [value]
    labels: list[str | int] = []
    walks = [iter(_items(value))]
    entered: dict[int, int] = {}
    while walks:
        depth = len(walks)  # the depth of the container being walked
        for label, child in walks[-1]:
            if not isinstance(child, dict | list):
                continue
            key = id(child)
            if key in on_path:
                continue  # a cycle: not JSON, and not nesting
            if depth >= limit:
                return [*labels, label]
            if entered.get(key, 0) >= depth + 1:
                continue  # walked before from at least this deep: it fits
            entered[key] = depth + 1
            on_path.add(key)
            nodes.append(child)
            labels.append(label)
            walks.append(iter(_items(child)))
            break
        else:
            walks.pop()
            on_path.discard(id(nodes.pop()))
            if labels:
                labels.pop()
    return None


def text_depth(text: bytes | str) -> int:
    """How deep the brackets of a JSON text nest outside its strings (what the value would)."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub(b"", raw)):
        if match.group() in (b"[", b"{"):
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


def where(path: list[str | int], root: str = "data") -> str:
    """A path as a message names it: ``data[0].content``, shortened in the middle when long."""
    parts = [f"[{label}]" if isinstance(label, int) else f".{label}" for label in path]
    if len(parts) > 12:
        parts = [*parts[:6], f"...({len(parts) - 12} more)...", *parts[-6:]]
    return root + "".join(parts)

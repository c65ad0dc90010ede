"""Projection: each event to at most one message, and the history as their fold.

``derive_event_message`` looks at one event alone (not at the surface):

- ``user/message``      -> ``{role: user, content}``
- ``assistant/message`` -> ``{role: assistant, content}``; nothing when content is empty
- ``tool/result``       -> ``{role: user, content: [{type: tool-result, toolCallId,
  content, isError}]}``
- ``context/message``   -> with ``envelope: "raw"``, ``{role: user, content}``;
  otherwise the content between ``<context source=K>`` and ``</context>`` text blocks,
  where ``K`` is ``JSON.stringify(source.kind)``
- ``steering/message``  -> the same envelope with the tag ``steering`` (never raw)
- any other type        -> nothing

``derive_messages`` is the projection of each node of the surface, head to tail,
skipping events that project to nothing.

The ``post:`` lines in ``derive_event_message``'s docstring are contracts (PEP 316
syntax) that CrossHair checks symbolically (``tests/test_crosshair.py``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import TypeAlias

from dsh_spec.events import Event, is_surface_type  # noqa: F401 (is_surface_type: in contracts)
from dsh_spec.json_value import Json, js_string
from dsh_spec.rejection import Rejection
from dsh_spec.surface import fold_surface

Message: TypeAlias = dict[str, Json]


def derive_event_message(event: Event) -> Message | None:
    """The message ``event`` contributes to the history, if any (a fresh copy).

    post: __return__ is None or list(__return__) == ["role", "content"]
    post: (__return__ is None) == (not is_surface_type(event.type) or not isinstance(event.data, dict) or _empty_assistant(event))
    post: __return__ is None or __return__["role"] == ("assistant" if event.type == "assistant/message" else "user")
    post: event.type != "tool/result" or __return__ is None or [b["type"] for b in __return__["content"]] == ["tool-result"]
    post: event.type != "steering/message" or __return__ is None or _tagged_as("steering", __return__["content"])
    post: event.type != "context/message" or __return__ is None or _raw(event) or _tagged_as("context", __return__["content"])
    post: __return__ is None or event.type == "tool/result" or __return__["content"] is not event.data["content"]
    """  # noqa: E501 (a contract is one line)
    data = copy.deepcopy(event.data)
    if not isinstance(data, dict):
        return None
    content = data.get("content")
    if event.type == "user/message":
        return {"role": "user", "content": content}
    if event.type == "assistant/message":
        return {"role": "assistant", "content": content} if content else None
    if event.type == "tool/result":
        block: dict[str, Json] = {
            "type": "tool-result",
            "toolCallId": data.get("callId"),
            "content": content,
            "isError": data.get("isError"),
        }
        return {"role": "user", "content": [block]}
    if event.type == "context/message":
        if data.get("envelope") == "raw":
            return {"role": "user", "content": content}
        return {"role": "user", "content": tagged("context", data.get("source"), content)}
    if event.type == "steering/message":
        return {"role": "user", "content": tagged("steering", data.get("source"), content)}
    return None


def _empty_assistant(event: Event) -> bool:
    """An assistant message with no content (it stays on the surface but projects to nothing)."""
    data = event.data
    return event.type == "assistant/message" and isinstance(data, dict) and not data.get("content")


def _raw(event: Event) -> bool:
    """A context message in the raw envelope (projected without tags)."""
    data = event.data
    return event.type == "context/message" and isinstance(data, dict) and data.get("envelope") == "raw"


def _tagged_as(tag: str, content: Json) -> bool:
    """``content`` opens with ``<tag source=...>`` and closes with ``</tag>`` text blocks (for contracts)."""
    if not isinstance(content, list) or len(content) < 2:
        return False
    first, last = content[0], content[-1]
    return (
        isinstance(first, dict)
        and isinstance(first.get("text"), str)
        and str(first.get("text")).startswith(f"<{tag} source=")
        and last == {"type": "text", "text": f"</{tag}>"}
    )


def tagged(tag: str, source: Json, content: Json) -> list[Json]:
    """``content`` between an opening ``<tag source=K>`` and a closing ``</tag>`` text block."""
    kind = source.get("kind") if isinstance(source, dict) else None
    opening = f"<{tag} source={js_string(kind) if isinstance(kind, str) else 'undefined'}>"
    blocks = list(content) if isinstance(content, list) else []
    return [{"type": "text", "text": opening}, *blocks, {"type": "text", "text": f"</{tag}>"}]


def derive_messages(events: Iterable[Event]) -> tuple[Message, ...] | Rejection:
    """The message history of a log: the projection folded over its surface."""
    log = tuple(events)
    surface = fold_surface(log)
    if isinstance(surface, Rejection):
        return surface
    by_seq = {event.seq: event for event in log}
    messages = (derive_event_message(by_seq[seq]) for seq in surface.order)
    return tuple(message for message in messages if message is not None)

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
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import TypeAlias

from dsh_spec.events import Event
from dsh_spec.json_value import Json, js_string
from dsh_spec.rejection import Rejection
from dsh_spec.surface import fold_surface

Message: TypeAlias = dict[str, Json]


def derive_event_message(event: Event) -> Message | None:
    """The message ``event`` contributes to the history, if any (a fresh copy)."""
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

"""Projection of one event to the message it contributes to the history.

Messages are frozen JSON objects that share their (frozen) content with the
logged event, so projecting copies nothing and a caller can change nothing.
"""

from __future__ import annotations

from typing import Any

from dsh_session._frozen import FrozenDict, FrozenList, _frozen_dict, _frozen_list
from dsh_session.js_json import js_string

#: A derived message: ``{"role": ..., "content": [...]}``, immutable.
Message = FrozenDict


def derive_event_message(event: Any) -> Message | None:
    """The message ``event`` contributes to the history, or ``None``.

    Looks at the event alone, not at the surface: a ``user/message`` projects
    even when it has been shadowed. ``event`` is an :class:`~dsh_session.Event`
    whose data has passed admission (as every logged event has).
    """
    kind = event.type
    data = event.data
    if not isinstance(data, dict):
        return None
    if kind == "user/message":
        return _message("user", data["content"])
    if kind == "assistant/message":
        content = data["content"]
        return _message("assistant", content) if content else None
    if kind == "tool/result":
        block = _frozen_dict(
            (
                ("type", "tool-result"),
                ("toolCallId", data["callId"]),
                ("content", data["content"]),
                ("isError", data["isError"]),
            ),
            _is_plain(data["content"]) and _is_plain_str(data["callId"]),
        )
        return _message("user", _frozen_list((block,), block.plain))
    if kind == "context/message":
        if data.get("envelope") == "raw":
            return _message("user", data["content"])
        return _message("user", _tagged("context", data["source"]["kind"], data["content"]))
    if kind == "steering/message":
        return _message("user", _tagged("steering", data["source"]["kind"], data["content"]))
    return None


def _message(role: str, content: Any) -> Message:
    return _frozen_dict((("role", role), ("content", content)), _is_plain(content))


def _tagged(tag: str, kind: str, content: Any) -> FrozenList:
    opening = _text_block(f"<{tag} source={js_string(kind)}>")
    closing = _text_block(f"</{tag}>")
    blocks = (opening, *content, closing)
    return _frozen_list(blocks, _is_plain(content) and opening.plain)


def _text_block(text: str) -> FrozenDict:
    return _frozen_dict((("type", "text"), ("text", text)), _is_plain_str(text))


def _is_plain(value: Any) -> bool:
    return bool(getattr(value, "plain", True))


def _is_plain_str(text: str) -> bool:
    return text.isascii() or not any(0xD800 <= ord(c) <= 0xDFFF for c in text)

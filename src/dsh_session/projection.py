"""Projection of one event to the message it contributes to the history.

A message is ``{"role": ..., "content": [...]}``. The session keeps each
surface node's message as its canonical JSON text (:func:`message_text`) and
hands out fresh plain copies, so a caller can change nothing it holds.
"""

from __future__ import annotations

from typing import Any

from msgspec.json import encode as _dumps

from dsh_session.js_json import js_string
from dsh_session.json_value import decode, encode

#: A derived message: ``{"role": ..., "content": [...]}`` (a fresh, plain copy).
Message = dict[str, Any]


def derive_event_message(event: Any) -> Message | None:
    """The message ``event`` contributes to the history, or ``None``.

    Looks at the event alone, not at the surface: a ``user/message`` projects
    even when it has been shadowed. ``event`` is an :class:`~dsh_session.Event`
    whose data has passed admission (as every logged event has).
    """
    text = message_text(event)
    return None if text is None else decode(text)


def message_text(event: Any, data: Any = None) -> bytes | None:
    """The canonical JSON text of ``event``'s message, or ``None`` when it has none.

    ``data``, when given, is the event's payload in canonical form (the value
    its text was encoded from), which spares decoding the text.
    """
    kind = event.type
    if data is not None:
        # Made of a canonical value, the message is canonical as it stands.
        message = _project(kind, data) if kind in _ROLES and data.__class__ is dict else None
        return None if message is None else _dumps(message)
    if kind not in _ROLES:
        return None
    value = event.data
    if not isinstance(value, dict):
        return None
    message = _project(kind, value)
    if message is None:
        return None
    text = getattr(event, "text", None)
    if text is not None and text.__class__ is bytes:
        return _dumps(message)  # decoded from plain canonical text: canonical as it stands
    return encode(message)


def _project(kind: str, data: dict[str, Any]) -> Message | None:
    if kind == "user/message":
        return {"role": "user", "content": data["content"]}
    if kind == "assistant/message":
        content = data["content"]
        return {"role": "assistant", "content": content} if content else None
    if kind == "tool/result":
        block = {
            "type": "tool-result",
            "toolCallId": data["callId"],
            "content": data["content"],
            "isError": data["isError"],
        }
        return {"role": "user", "content": [block]}
    if kind == "context/message":
        if data.get("envelope") == "raw":
            return {"role": "user", "content": data["content"]}
        return {"role": "user", "content": _tagged("context", data["source"]["kind"], data["content"])}
    # steering/message
    return {"role": "user", "content": _tagged("steering", data["source"]["kind"], data["content"])}


_ROLES = frozenset(
    {"user/message", "assistant/message", "tool/result", "context/message", "steering/message"}
)


def _tagged(tag: str, kind: str, content: list[Any]) -> list[Any]:
    opening = {"type": "text", "text": f"<{tag} source={js_string(kind)}>"}
    return [opening, *content, {"type": "text", "text": f"</{tag}>"}]



"""The payload shapes a surface type needs, checked a run of payloads at a time.

``_admission._payload_problem`` is the rule; these msgspec types accept a payload
only where it finds no problem (an object whose ``content`` is a list of objects
with a string ``type``; a tool result's string ``callId`` and boolean ``isError``;
a tagged message's ``source`` object with a string ``kind``; a context message's
``envelope``, when present, ``"context"`` or ``"raw"``), and refuse some payloads it
takes (a duplicate key whose first value has the wrong type): refused here means
"the careful path decides", never "refused".
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from typing import Any, Literal

import msgspec

__all__ = ["payloads_fit", "where"]

_DecodeError = msgspec.DecodeError


class _Block(msgspec.Struct, gc=False):
    type: str


class _Message(msgspec.Struct, gc=False):
    content: list[_Block]


class _ToolResult(_Message, gc=False):
    callId: str
    isError: bool


class _Source(msgspec.Struct, gc=False):
    kind: str


class _Tagged(_Message, gc=False):
    source: _Source


class _Context(_Tagged, gc=False):
    envelope: Literal["context", "raw"] = "context"


_SHAPES: dict[str, msgspec.json.Decoder[Any]] = {
    "user/message": msgspec.json.Decoder(list[_Message]),
    "assistant/message": msgspec.json.Decoder(list[_Message]),
    "tool/result": msgspec.json.Decoder(list[_ToolResult]),
    "steering/message": msgspec.json.Decoder(list[_Tagged]),
    "context/message": msgspec.json.Decoder(list[_Context]),
}


def payloads_fit(kind: str, payloads: Sequence[Any]) -> bool:
    """Whether every one of ``payloads`` (raw JSON texts, each one value) has the shape a
    ``kind`` payload needs; false when unsure."""
    try:
        _SHAPES[kind].decode(b"[" + b",".join(payloads) + b"]")
    except (_DecodeError, RecursionError, KeyError):
        return False
    return True


def where(flags: list[bool]) -> list[int]:
    """The indices whose flag is true."""
    return list(compress(range(len(flags)), flags))

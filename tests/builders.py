"""Small builders for unit tests: payloads, records and sessions with a fixed clock."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dsh_session import Session

USER = {"kind": "user"}
PLUGIN = {"kind": "plugin", "plugin": "memory"}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def user(value: str = "hello") -> dict[str, Any]:
    return {"content": [text(value)], "source": dict(USER)}


def assistant(*blocks: dict[str, Any], turn: int = 1, step: int = 1) -> dict[str, Any]:
    return {"turn": turn, "step": step, "content": list(blocks)}


def tool_call(call_id: str = "c1") -> dict[str, Any]:
    return {"type": "tool-call", "id": call_id, "name": "bash", "arguments": "{}"}


def tool_result(call_id: str = "c1", output: str = "ok", is_error: bool = False) -> dict[str, Any]:
    return {"turn": 1, "step": 1, "callId": call_id, "content": [text(output)], "isError": is_error}


def context(value: str = "ctx", source: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"content": [text(value)], "source": dict(PLUGIN if source is None else source), **extra}


def steering(value: str = "steer", source: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"turn": 1, "content": [text(value)], "source": dict(USER if source is None else source), **extra}


def turn_start(turn: int = 1) -> dict[str, Any]:
    return {"turn": turn, "trigger": {"kind": "message", "source": dict(USER)}}


def turn_end(turn: int = 1, kind: str = "completed") -> dict[str, Any]:
    return {"turn": turn, "reason": {"kind": kind}}


class Ticks:
    """A clock that counts: 1000, 1001, ..."""

    def __init__(self, start: int = 1000) -> None:
        self.now = start - 1

    def __call__(self) -> int:
        self.now += 1
        return self.now


def session(seed: Iterable[Any] | None = None, id: str = "s") -> Session:
    return Session(id, seed, clock=Ticks())


def users(count: int) -> Session:
    """A session whose log is ``count`` user messages, each appended to the surface."""
    out = session()
    for index in range(count):
        out.append("user/message", user(f"u{index}"), surface_op="append")
    return out


def replace(start: int, end: int) -> dict[str, Any]:
    return {"op": "replace", "start": start, "end": end}


def record(kind: str, seq: int, data: Any, **surface: Any) -> dict[str, Any]:
    """An event record; ``op=`` and ``refs=`` become ``surfaceOp`` / ``sourceEventSeqs``."""
    out: dict[str, Any] = {"type": kind, "seq": seq, "time": 1000 + seq, "data": data}
    if "refs" in surface:
        out["sourceEventSeqs"] = surface["refs"]
    if "op" in surface:
        out["surfaceOp"] = surface["op"]
    return out

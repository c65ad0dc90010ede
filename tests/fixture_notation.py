"""The shorthand of ``tests/data/invariants_fixtures.json``, expanded to event records.

See the file's ``notation`` key. Every helper here returns fresh plain JSON
records, so a test may hand them to both the spec and the implementation.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"

_USER = {"kind": "user"}


def load_fixtures() -> dict[str, Any]:
    """The fixture catalogue, parsed (``1e400`` becomes infinity, as in JavaScript)."""
    with (DATA / "invariants_fixtures.json").open(encoding="utf-8") as handle:
        catalogue: dict[str, Any] = json.load(handle)
    return catalogue


def text(value: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": value}]


def call_block(call_id: str) -> dict[str, Any]:
    return {"type": "tool-call", "id": call_id, "name": "bash", "arguments": "{}"}


def base(tag: str, args: list[Any]) -> dict[str, Any]:
    """The record a tag stands for, before overrides (no seq, time 0)."""
    if tag == "TS":
        trigger = {"kind": "message", "source": _USER}
        return {"type": "turn/start", "data": {"turn": args[0], "trigger": trigger}}
    if tag == "TE":
        return {"type": "turn/end", "data": {"turn": args[0], "reason": {"kind": "completed"}}}
    if tag == "SS":
        return {"type": "step/start", "data": {"turn": args[0], "step": args[1]}}
    if tag == "SE":
        return {"type": "step/end", "data": {"turn": args[0], "step": args[1]}}
    if tag == "U":
        return {
            "type": "user/message",
            "data": {"content": text(args[0]), "source": _USER},
            "surfaceOp": "append",
        }
    if tag in ("A", "ATC"):
        blocks = ([] if tag == "ATC" else text("r")) + [call_block(c) for c in args[2:]]
        return {
            "type": "assistant/message",
            "data": {"turn": args[0], "step": args[1], "content": blocks},
            "surfaceOp": "append",
        }
    if tag == "CH":
        chunk = {"type": "text-delta", "index": 0, "text": "x"}
        return {"type": "assistant/chunk", "data": {"turn": args[0], "step": args[1], "chunk": chunk}}
    if tag == "TC":
        data = {"turn": args[0], "step": args[1], "callId": args[2], "name": "bash", "arguments": "{}"}
        return {"type": "tool/call", "data": data}
    if tag in ("TR", "TRI"):
        data = {"turn": args[0], "step": args[1], "callId": args[2], "content": text("ok"), "isError": False}
        if tag == "TRI":
            data["isError"] = True
            data["error"] = {"name": "InterruptedError", "code": "interrupted"}
        return {"type": "tool/result", "data": data, "surfaceOp": "append"}
    if tag == "CTX":
        return {
            "type": "context/message",
            "data": {"content": text(args[0]), "source": _USER},
            "surfaceOp": "append",
        }
    if tag == "ST":
        return {
            "type": "steering/message",
            "data": {"turn": args[0], "content": text("go"), "source": _USER},
            "surfaceOp": "append",
        }
    if tag == "EV":
        return {"type": args[0], "data": args[1]}
    raise ValueError(f"unknown fixture tag {tag!r}")


def expand(index: int, spec: list[Any]) -> dict[str, Any]:
    """One shorthand event as a full record at ``index``."""
    spec = copy.deepcopy(spec)
    tag = spec[0]
    if tag == "RAW":
        record: dict[str, Any] = spec[1]
        return record
    args = spec[1:]
    overrides: dict[str, Any] = {}
    if args and isinstance(args[-1], dict) and not (tag == "EV" and len(args) == 2):
        overrides = args.pop()
    record = base(tag, args)
    record = {"type": record["type"], "seq": index, "time": 0, **record}
    for key, value in overrides.items():
        if key in ("seq", "time", "sourceEventSeqs", "surfaceOp"):
            record[key] = value
        elif key == "replace":
            record["surfaceOp"] = {"op": "replace", "start": value[0], "end": value[1]}
        elif key == "data":
            record["data"] = value
        elif key == "set":
            record["data"].update(value)
        elif key == "drop":
            for name in value:
                if name.startswith("data."):
                    del record["data"][name[len("data.") :]]
                else:
                    del record[name]
        else:
            raise ValueError(f"unknown fixture override {key!r}")
    return record


def expand_log(log: list[list[Any]]) -> list[dict[str, Any]]:
    """A shorthand log as full records; seqs default to the index."""
    return [expand(index, spec) for index, spec in enumerate(log)]

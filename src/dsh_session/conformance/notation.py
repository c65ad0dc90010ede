"""A shorthand for event records, for scenarios and fixtures.

Each builder returns a fresh plain JSON record without ``seq`` and ``time``;
:func:`log` numbers a list of them (``seq`` = index, ``time`` = 1000 + index
unless a record sets its own). The names follow the reference notes
(``invariants.md`` §3.1):

``TS(n)`` / ``TE(n)`` turn start / end, ``SS(t, s)`` / ``SE(t, s)`` step
start / end, ``U(x)`` a user message, ``A(t, s, *calls)`` an assistant message
(a text block, then a tool-call block per call id), ``ATC(t, s, *calls)`` one of
tool-call blocks only, ``AE(t, s)`` one with empty content, ``CH(t, s)`` a
chunk, ``TC(t, s, c)`` a tool call, ``TR(t, s, c)`` its result, ``TRI`` the
crash closer's result, ``CTX(x)`` a context message, ``ST(t)`` a steering
message, ``EV(type, data)`` anything else. ``X(record, key=value)`` sets
top-level keys (``RP(a, b)`` / ``SRC(...)`` build the replace marker and the
provenance).
"""

from __future__ import annotations

import copy
from typing import Any

#: The vocabulary: the scenarios and fixtures take all of it with one ``import *``.
__all__ = [
    "AE",
    "ATC",
    "CH",
    "CTX",
    "DROP",
    "EV",
    "RP",
    "SE",
    "SS",
    "ST",
    "TC",
    "TE",
    "TR",
    "TRI",
    "TS",
    "A",
    "D",
    "Record",
    "U",
    "X",
    "call_block",
    "log",
    "replace",
    "text",
]

Record = dict[str, Any]

_USER = {"kind": "user"}


def text(value: str) -> list[Any]:
    """A content list of one text block."""
    return [{"type": "text", "text": value}]


def call_block(call_id: Any, name: str = "bash") -> dict[str, Any]:
    return {"type": "tool-call", "id": call_id, "name": name, "arguments": "{}"}


def TS(n: Any, trigger: Any = None) -> Record:
    data = {"turn": n, "trigger": trigger if trigger is not None else {"kind": "message", "source": _USER}}
    return {"type": "turn/start", "data": data}


def TE(n: Any, reason: Any = None) -> Record:
    return {"type": "turn/end", "data": {"turn": n, "reason": reason or {"kind": "completed"}}}


def SS(t: Any, s: Any) -> Record:
    return {"type": "step/start", "data": {"turn": t, "step": s}}


def SE(t: Any, s: Any) -> Record:
    return {"type": "step/end", "data": {"turn": t, "step": s}}


def U(x: str, kind: str = "user") -> Record:
    return {
        "type": "user/message",
        "data": {"content": text(x), "source": {"kind": kind}},
        "surfaceOp": "append",
    }


def A(t: Any, s: Any, *calls: Any, say: str = "r") -> Record:
    blocks = text(say) + [call_block(c) for c in calls]
    return {
        "type": "assistant/message",
        "data": {"turn": t, "step": s, "content": blocks},
        "surfaceOp": "append",
    }


def ATC(t: Any, s: Any, *calls: Any) -> Record:
    blocks = [call_block(c) for c in calls]
    return {
        "type": "assistant/message",
        "data": {"turn": t, "step": s, "content": blocks},
        "surfaceOp": "append",
    }


def AE(t: Any, s: Any) -> Record:
    return {"type": "assistant/message", "data": {"turn": t, "step": s, "content": []}, "surfaceOp": "append"}


def CH(t: Any, s: Any) -> Record:
    chunk = {"type": "text-delta", "index": 0, "text": "x"}
    return {"type": "assistant/chunk", "data": {"turn": t, "step": s, "chunk": chunk}}


def TC(t: Any, s: Any, c: Any) -> Record:
    return {
        "type": "tool/call",
        "data": {"turn": t, "step": s, "callId": c, "name": "bash", "arguments": "{}"},
    }


def TR(t: Any, s: Any, c: Any, say: str = "ok", error: bool = False) -> Record:
    data = {"turn": t, "step": s, "callId": c, "content": text(say), "isError": error}
    return {"type": "tool/result", "data": data, "surfaceOp": "append"}


def TRI(t: Any, s: Any, c: Any) -> Record:
    record = TR(t, s, c, say="interrupted", error=True)
    record["data"]["error"] = {"name": "InterruptedError", "code": "interrupted"}
    return record


def CTX(x: str, kind: str = "user", envelope: Any = None) -> Record:
    data: dict[str, Any] = {"content": text(x), "source": {"kind": kind}}
    if envelope is not None:
        data["envelope"] = envelope
    return {"type": "context/message", "data": data, "surfaceOp": "append"}


def ST(t: Any, kind: str = "user", say: str = "go") -> Record:
    data = {"turn": t, "content": text(say), "source": {"kind": kind}}
    return {"type": "steering/message", "data": data, "surfaceOp": "append"}


def EV(kind: str, data: Any = None) -> Record:
    return {"type": kind, "data": {} if data is None else data}


def RP(start: Any, end: Any) -> dict[str, Any]:
    """The replace marker, as top-level keys to merge."""
    return {"surfaceOp": {"op": "replace", "start": start, "end": end}}


def X(record: Record, *parts: dict[str, Any], **keys: Any) -> Record:
    """A copy of ``record`` with top-level keys set (``parts`` first, then ``keys``).

    A key given the value :data:`DROP` is removed.
    """
    out = copy.deepcopy(record)
    for part in (*parts, keys):
        for key, value in part.items():
            if value is DROP:
                out.pop(key, None)
            else:
                out[key] = copy.deepcopy(value)
    return out


def D(record: Record, **fields: Any) -> Record:
    """A copy of ``record`` with ``data`` fields set (:data:`DROP` removes one)."""
    out = copy.deepcopy(record)
    for key, value in fields.items():
        if value is DROP:
            out["data"].pop(key, None)
        else:
            out["data"][key] = copy.deepcopy(value)
    return out


class _Drop:
    def __repr__(self) -> str:
        return "DROP"


#: Marks a key to remove in :func:`X` and :func:`D`.
DROP: Any = _Drop()


def replace(record: Record, start: Any, end: Any, *sources: Any) -> Record:
    """``record`` as a replace of ``start``..``end`` naming ``sources`` (none: no provenance)."""
    out = X(record, RP(start, end))
    if sources:
        out["sourceEventSeqs"] = list(sources)
    return out


def log(*records: Record, base_time: int = 1000) -> list[Record]:
    """Number the records: ``seq`` = index and, unless set, ``time`` = ``base_time`` + index.

    Key order is the one ``append`` writes (``type, seq, time, data, sourceEventSeqs, surfaceOp``),
    then any other key.
    """
    out = []
    for index, record in enumerate(records):
        numbered = {"type": record.get("type"), "seq": record.get("seq", index)}
        numbered["time"] = record.get("time", base_time + index)
        for key in ("data", "sourceEventSeqs", "surfaceOp"):
            if key in record:
                numbered[key] = copy.deepcopy(record[key])
        for key, value in record.items():
            if key not in numbered:
                numbered[key] = copy.deepcopy(value)
        if "type" not in record:
            del numbered["type"]
        out.append(numbered)
    return out

"""Hypothesis strategies: plausible agent logs, and the same logs with faults.

``agent_logs()`` draws valid logs shaped like the agent loop's: turns of
user messages, optional compaction (a replace of a surface range with full
provenance), steps of chunks, an assistant message with tool-call blocks,
their ``tool/call`` events and results (some interrupted, some missing),
context and steering messages; the last turn may stop anywhere.

``faulty_logs()`` applies one to three faults to such a log: records dropped,
repeated, swapped, inserted or renumbered; structural fields shifted or
retyped; call ids changed; markers and provenance added, removed or
mangled; records replaced by garbage. Records are plain JSON values.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

Record = dict[str, Any]
Log = list[Any]

CALL_IDS = ("c1", "c2", "c3")
_USER = {"kind": "user"}


def text(value: str) -> list[Any]:
    return [{"type": "text", "text": value}]


class _Builder:
    """Accumulates a valid log and tracks its surface."""

    def __init__(self) -> None:
        self.records: list[Record] = []
        self.surface: list[int] = []

    def add(self, kind: str, data: Any, op: Any = None, refs: list[int] | None = None) -> int:
        seq = len(self.records)
        record: Record = {"type": kind, "seq": seq, "time": seq, "data": data}
        if refs:
            record["sourceEventSeqs"] = refs
        if op is not None:
            record["surfaceOp"] = op
            if op == "append":
                self.surface.append(seq)
            else:
                first = self.surface.index(op["start"])
                last = self.surface.index(op["end"])
                self.surface[first : last + 1] = [seq]
        self.records.append(record)
        return seq


@st.composite
def agent_logs(draw: st.DrawFn, max_turns: int = 3) -> Log:
    """A log that keeps every invariant."""
    log = _Builder()
    turns = draw(st.integers(0, max_turns))
    for turn in range(1, turns + 1):
        last = turn == turns
        trigger = draw(st.sampled_from(["message", "injection"]))
        log.add("turn/start", {"turn": turn, "trigger": {"kind": trigger, "source": _USER}})
        for index in range(draw(st.integers(0, 2))):
            log.add("user/message", {"content": text(f"u{turn}.{index}"), "source": _USER}, "append")
        compact = draw(st.booleans())
        if log.surface and compact:
            first = draw(st.integers(0, len(log.surface) - 1))
            end = draw(st.integers(first, len(log.surface) - 1))
            shadowed = log.surface[first : end + 1]
            start_seq = log.add("compact/start", {"turn": turn})
            summary = log.add("compact/summary", {"summary": text("sum"), "shadowedSeqs": shadowed})
            op = {"op": "replace", "start": shadowed[0], "end": shadowed[-1]}
            data = {"content": text("checkpoint"), "source": {"kind": "plugin", "plugin": "compact"}}
            log.add("user/message", data, op, [start_seq, summary, *shadowed])
            log.add("compact/end", {"turn": turn})
        steps = draw(st.integers(0, 2))
        for step in range(1, steps + 1):
            log.add("step/start", {"turn": turn, "step": step})
            chunks = [
                log.add("assistant/chunk", {"turn": turn, "step": step, "chunk": {"type": "text-delta"}})
                for _ in range(draw(st.integers(0, 1)))
            ]
            calls = draw(st.lists(st.sampled_from(CALL_IDS), max_size=2, unique=True))
            blocks = text("r") + [{"type": "tool-call", "id": c, "name": "x"} for c in calls]
            log.add("assistant/message", {"turn": turn, "step": step, "content": blocks}, "append", chunks)
            for call in calls:
                called = log.add("tool/call", {"turn": turn, "step": step, "callId": call, "name": "x"})
                answer = draw(st.sampled_from(["ok", "ok", "interrupted", "none"]))
                if answer == "none":
                    continue
                result: Record = {
                    "turn": turn,
                    "step": step,
                    "callId": call,
                    "content": text("out"),
                    "isError": answer == "interrupted",
                }
                if answer == "interrupted":
                    result["error"] = {"name": "InterruptedError", "code": "interrupted"}
                log.add("tool/result", result, "append", [called])
            if draw(st.booleans()):
                log.add("context/message", {"content": text("ctx"), "source": _USER}, "append")
            if draw(st.booleans()):
                log.add("steering/message", {"turn": turn, "content": text("go"), "source": _USER}, "append")
            if last and draw(st.integers(0, 4)) == 0:
                return log.records  # stop inside an open step
            log.add("step/end", {"turn": turn, "step": step})
        if draw(st.booleans()):
            log.add("todo/write", {"todos": []})
        if last and draw(st.integers(0, 3)) == 0:
            return log.records  # stop inside an open turn
        log.add("turn/end", {"turn": turn, "reason": {"kind": "completed"}})
    return log.records


# -- faults --------------------------------------------------------------------------------------

_ODD_VALUES: st.SearchStrategy[Any] = st.sampled_from(["1", None, True, 1.5, [], {}, -1, 0, 99])
_TYPES = (
    "turn/start",
    "turn/end",
    "step/start",
    "step/end",
    "assistant/chunk",
    "assistant/message",
    "tool/call",
    "tool/result",
    "user/message",
    "context/message",
    "steering/message",
    "compact/start",
    "todo/write",
    "foo/bar",
)


def renumber(records: Log) -> Log:
    for index, record in enumerate(records):
        if isinstance(record, dict):
            record["seq"] = index
    return records


def _index(draw: st.DrawFn, records: Log) -> int:
    return draw(st.integers(0, len(records) - 1))


def _pick(draw: st.DrawFn, records: Log, wanted: Callable[[Record], bool]) -> Record | None:
    """A record for which ``wanted`` holds, if there is one."""
    candidates = [r for r in records if isinstance(r, dict) and isinstance(r.get("data"), dict) and wanted(r)]
    return draw(st.sampled_from(candidates)) if candidates else None


def _maybe_renumber(draw: st.DrawFn, records: Log) -> Log:
    return renumber(records) if draw(st.integers(0, 3)) else records


def _drop(draw: st.DrawFn, records: Log) -> Log:
    del records[_index(draw, records)]
    return _maybe_renumber(draw, records)


def _repeat(draw: st.DrawFn, records: Log) -> Log:
    index = _index(draw, records)
    records.insert(index + 1, copy.deepcopy(records[index]))
    return _maybe_renumber(draw, records)


def _swap(draw: st.DrawFn, records: Log) -> Log:
    if len(records) < 2:
        return records
    index = draw(st.integers(0, len(records) - 2))
    records[index], records[index + 1] = records[index + 1], records[index]
    return _maybe_renumber(draw, records)


def _insert(draw: st.DrawFn, records: Log) -> Log:
    index = draw(st.integers(0, len(records)))
    kind = draw(st.sampled_from(_TYPES))
    data: dict[str, Any] = {
        "turn": draw(st.integers(0, 3)),
        "step": draw(st.integers(0, 3)),
        "callId": draw(st.sampled_from(CALL_IDS)),
        "content": text("new"),
        "isError": False,
        "source": _USER,
    }
    record: Record = {"type": kind, "seq": index, "time": 0, "data": data}
    if kind in ("assistant/message", "tool/result", "user/message", "context/message", "steering/message"):
        record["surfaceOp"] = "append"
    records.insert(index, record)
    return renumber(records)


def _data_of(draw: st.DrawFn, records: Log) -> dict[str, Any] | None:
    record = records[_index(draw, records)]
    if isinstance(record, dict) and isinstance(record.get("data"), dict):
        data: dict[str, Any] = record["data"]
        return data
    return None


def _shift_field(draw: st.DrawFn, records: Log) -> Log:
    key = draw(st.sampled_from(["turn", "step"]))
    record = _pick(draw, records, lambda r: isinstance(r["data"].get(key), int))
    if record is not None:
        record["data"][key] += draw(st.sampled_from([-1, 1, 2]))
    return records


def _retype_field(draw: st.DrawFn, records: Log) -> Log:
    data = _data_of(draw, records)
    key = draw(st.sampled_from(["turn", "step", "callId"]))
    if data is not None:
        if draw(st.booleans()):
            data.pop(key, None)
        else:
            data[key] = draw(_ODD_VALUES)
    return records


def _call_id(draw: st.DrawFn, records: Log) -> Log:
    wanted = ("tool/call", "tool/result", "assistant/message")
    record = _pick(draw, records, lambda r: r.get("type") in wanted)
    if record is None:
        return records
    data = record["data"]
    if "callId" in data:
        data["callId"] = draw(st.sampled_from([*CALL_IDS, "ghost"]))
    content = data.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool-call":
                block["id"] = draw(st.sampled_from([*CALL_IDS, "ghost"]))
    return records


def _interrupt(draw: st.DrawFn, records: Log) -> Log:
    record = _pick(draw, records, lambda r: "isError" in r["data"])
    if record is not None:
        data = record["data"]
        if data.get("error"):
            data.pop("error")
            data["isError"] = draw(st.booleans())
        else:
            data["isError"] = True
            data["error"] = {"code": draw(st.sampled_from(["interrupted", "other"]))}
    return records


def _provenance(draw: st.DrawFn, records: Log) -> Log:
    record = records[_index(draw, records)]
    if isinstance(record, dict):
        size = len(records)
        record["sourceEventSeqs"] = draw(
            st.one_of(
                st.lists(st.integers(-2, size + 1), max_size=3),
                st.sampled_from([[1, 1], [0.5], "x", None]),
            )
        )
    return records


def _drop_provenance(draw: st.DrawFn, records: Log) -> Log:
    record = records[_index(draw, records)]
    if isinstance(record, dict):
        record.pop("sourceEventSeqs", None)
    return records


def _surface_op(draw: st.DrawFn, records: Log) -> Log:
    record = records[_index(draw, records)]
    if isinstance(record, dict):
        size = len(records)
        record["surfaceOp"] = draw(
            st.one_of(
                st.builds(
                    lambda a, b: {"op": "replace", "start": a, "end": b},
                    st.integers(0, size),
                    st.integers(0, size),
                ),
                st.sampled_from(["append", "Append", None, {"op": "replace"}]),
            )
        )
    return records


def _drop_surface_op(draw: st.DrawFn, records: Log) -> Log:
    record = records[_index(draw, records)]
    if isinstance(record, dict):
        record.pop("surfaceOp", None)
    return records


def _retype(draw: st.DrawFn, records: Log) -> Log:
    record = records[_index(draw, records)]
    if isinstance(record, dict):
        record["type"] = draw(st.one_of(st.sampled_from(_TYPES), st.sampled_from(["", 5, None])))
    return records


def _reseq(draw: st.DrawFn, records: Log) -> Log:
    record = records[_index(draw, records)]
    if isinstance(record, dict):
        record["seq"] = draw(st.one_of(st.integers(-1, len(records) + 2), _ODD_VALUES))
    return records


def _garbage(draw: st.DrawFn, records: Log) -> Log:
    index = _index(draw, records)
    record = records[index]
    choice = draw(st.integers(0, 4))
    if choice == 0:
        records[index] = draw(st.sampled_from([None, 42, "event", [1]]))
    elif isinstance(record, dict) and choice == 1:
        record.pop(draw(st.sampled_from(["type", "seq", "time", "data"])), None)
    elif isinstance(record, dict) and choice == 2:
        record["extra"] = 1
    elif isinstance(record, dict) and choice == 3:
        record["data"] = draw(st.sampled_from([None, [], "x", {}, {"content": [1]}, {"x": float("inf")}]))
    elif isinstance(record, dict):
        record["time"] = draw(st.sampled_from(["now", None, 1.5]))
    return records


def _replace(draw: st.DrawFn, records: Log) -> Log:
    """Make a surface record replace earlier surface records, with full, partial or no provenance."""
    record = _pick(draw, records, lambda r: "surfaceOp" in r)
    if record is None:
        return records
    earlier = [
        r["seq"]
        for r in records
        if isinstance(r, dict)
        and "surfaceOp" in r
        and type(r.get("seq")) is int
        and type(record.get("seq")) is int
        and r["seq"] < record["seq"]
    ]
    if not earlier:
        return records
    start = draw(st.sampled_from(earlier))
    end = draw(st.sampled_from(earlier))
    record["surfaceOp"] = {"op": "replace", "start": start, "end": end}
    named = sorted({start, end} | set(draw(st.lists(st.sampled_from(earlier), max_size=3))))
    choice = draw(st.integers(0, 2))
    if choice == 0:
        record["sourceEventSeqs"] = named
    elif choice == 1:
        record["sourceEventSeqs"] = named[:1]
    else:
        record.pop("sourceEventSeqs", None)
    return records


FAULTS: tuple[Callable[[st.DrawFn, Log], Log], ...] = (
    _replace,
    _replace,
    _drop,
    _repeat,
    _swap,
    _insert,
    _shift_field,
    _retype_field,
    _call_id,
    _interrupt,
    _provenance,
    _drop_provenance,
    _surface_op,
    _drop_surface_op,
    _retype,
    _reseq,
    _garbage,
)


@st.composite
def faulty_logs(draw: st.DrawFn, max_faults: int = 3) -> Log:
    """An agent log with one to ``max_faults`` faults (the result may happen to be valid)."""
    records: Log = draw(agent_logs())
    for _ in range(draw(st.integers(1, max_faults))):
        if not records:
            records = _insert(draw, records)
            continue
        fault = draw(st.sampled_from(FAULTS))
        records = fault(draw, records)
    return records


def mostly_valid_logs() -> st.SearchStrategy[Log]:
    """Valid agent logs, and faulty ones (the latter more often)."""
    return st.one_of(agent_logs(), faulty_logs(), faulty_logs())

"""Request headers: what each LLM request was built under, folded from the log.

A step's request is sent under an *epoch header* -- call config, system
prompt, tool schemas and a message prefix. The log records it with two event
types: ``request/header`` (a full snapshot ``{header, reason}``) and
``request/header-delta`` (an amendment of the header in force). Folding the
header events of a log gives the header in force after its last one.

Canonical form: an empty system prompt, tool list or message prefix is
absent. Equality is text equality of the canonical headers' JSON as
JavaScript writes it (``js_stringify``): key order matters, numbers compare by
value, ``true`` is never ``1``.

The delta codec is the reference's: the system prompt by lines (common prefix
and suffix kept, the middle replaced), tools by name (added / removed /
changed), config and message prefix replaced whole. It cannot express every
change (a reordered tool list, a tool inserted before the end), so the writer
(:func:`next_header_event`) logs a delta only when applying it gives the new
header exactly, and a ``fallback`` snapshot otherwise.

Where this differs from the reference (``docs/deviations.md``, D-H1..D-H3):
config compares as JSON text like everything else; a malformed header event
is a rejection, not a crash; and a bad header event poisons the fold only
until the next valid snapshot.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, TypeAlias, TypeGuard

from dsh_spec.codes import Code
from dsh_spec.events import Event
from dsh_spec.json_value import Json, js_stringify
from dsh_spec.rejection import Rejection

HEADER: Literal["request/header"] = "request/header"
HEADER_DELTA: Literal["request/header-delta"] = "request/header-delta"

JsonObject: TypeAlias = dict[str, Json]


@dataclass(frozen=True, eq=False)
class EpochHeader:
    """``{config, system?, tools?, messagePrefix?}``; ``None`` is an absent field.

    Compare with :func:`header_equals`, never ``==`` (identity here).
    """

    config: JsonObject
    system: str | None = None
    tools: tuple[JsonObject, ...] | None = None
    message_prefix: tuple[JsonObject, ...] | None = None


@dataclass(frozen=True)
class SystemDelta:
    """Keep ``keep_start`` leading and ``keep_end`` trailing lines, put ``insert`` between."""

    keep_start: int
    keep_end: int
    insert: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class ToolsDelta:
    """Tools by name: append ``added``, drop ``removed``, swap in ``changed`` where they stand."""

    added: tuple[JsonObject, ...]
    removed: tuple[str, ...]
    changed: tuple[JsonObject, ...]


@dataclass(frozen=True, eq=False)
class HeaderDelta:
    """A ``request/header-delta`` payload; each field present amends the header in force."""

    system: SystemDelta | None = None
    tools: ToolsDelta | None = None
    config: JsonObject | None = None
    message_prefix: tuple[JsonObject, ...] | None = None


FoldState: TypeAlias = "EpochHeader | Rejection | None"


# -- JSON forms ----------------------------------------------------------------------------------


def header_json(header: EpochHeader) -> JsonObject:
    """The header as logged: ``config, system?, tools?, messagePrefix?`` (present when not None)."""
    out: JsonObject = {"config": header.config}
    if header.system is not None:
        out["system"] = header.system
    if header.tools is not None:
        out["tools"] = list(header.tools)
    if header.message_prefix is not None:
        out["messagePrefix"] = list(header.message_prefix)
    return out


def delta_json(delta: HeaderDelta) -> JsonObject:
    """The delta as logged: ``system?, tools?, config?, messagePrefix?``."""
    out: JsonObject = {}
    if delta.system is not None:
        out["system"] = {
            "keepStart": delta.system.keep_start,
            "keepEnd": delta.system.keep_end,
            "insert": list(delta.system.insert),
        }
    if delta.tools is not None:
        out["tools"] = {
            "added": list(delta.tools.added),
            "removed": list(delta.tools.removed),
            "changed": list(delta.tools.changed),
        }
    if delta.config is not None:
        out["config"] = delta.config
    if delta.message_prefix is not None:
        out["messagePrefix"] = list(delta.message_prefix)
    return out


def _objects(value: Json) -> tuple[JsonObject, ...] | None:
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        return None
    return tuple(item for item in value if isinstance(item, dict))


def _tools(value: Json) -> tuple[JsonObject, ...] | None:
    tools = _objects(value)
    if tools is None or not all(isinstance(tool.get("name"), str) for tool in tools):
        return None
    return tools


def _count(value: Json) -> TypeGuard[int]:
    return type(value) is int and value >= 0


def _strings(value: Json) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def parse_header(value: Json, seq: int | None = None) -> EpochHeader | Rejection:
    """Read a header object: ``config`` an object, ``system`` a string, ``tools`` a
    list of objects with a string ``name``, ``messagePrefix`` a list of objects.
    Other keys are ignored (the reference drops them too)."""

    def bad(why: str) -> Rejection:
        return Rejection(Code.MALFORMED_REQUEST_HEADER, seq, f"request/header at seq {seq}: {why}")

    if not isinstance(value, dict):
        return bad("header must be an object")
    config = value.get("config")
    if not isinstance(config, dict):
        return bad("header.config must be an object")
    system = value.get("system")
    if "system" in value and not isinstance(system, str):
        return bad("header.system must be a string")
    tools = _tools(value["tools"]) if "tools" in value else None
    if "tools" in value and tools is None:
        return bad("header.tools must be a list of objects with a string name")
    prefix = _objects(value["messagePrefix"]) if "messagePrefix" in value else None
    if "messagePrefix" in value and prefix is None:
        return bad("header.messagePrefix must be a list of message objects")
    return EpochHeader(config, system if isinstance(system, str) else None, tools, prefix)


def parse_delta(value: Json, seq: int | None = None) -> HeaderDelta | Rejection:
    """Read a delta object (see :class:`HeaderDelta`); other keys are ignored."""

    def bad(why: str) -> Rejection:
        return Rejection(Code.MALFORMED_HEADER_DELTA, seq, f"request/header-delta at seq {seq}: {why}")

    if not isinstance(value, dict):
        return bad("data must be an object")
    system: SystemDelta | None = None
    if "system" in value:
        raw = value["system"]
        if not isinstance(raw, dict):
            return bad("system must be an object")
        start, end, insert = raw.get("keepStart"), raw.get("keepEnd"), raw.get("insert")
        if not (_count(start) and _count(end)):
            return bad("system.keepStart and system.keepEnd must be non-negative integers")
        if not _strings(insert):
            return bad("system.insert must be a list of strings")
        system = SystemDelta(start, end, tuple(insert))
    tools: ToolsDelta | None = None
    if "tools" in value:
        raw = value["tools"]
        if not isinstance(raw, dict):
            return bad("tools must be an object")
        added, changed = _tools(raw.get("added")), _tools(raw.get("changed"))
        removed = raw.get("removed")
        if added is None or changed is None:
            return bad("tools.added and tools.changed must be lists of objects with a string name")
        if not _strings(removed):
            return bad("tools.removed must be a list of names")
        tools = ToolsDelta(added, tuple(removed), changed)
    config = value.get("config")
    if "config" in value and not isinstance(config, dict):
        return bad("config must be an object")
    prefix = _objects(value["messagePrefix"]) if "messagePrefix" in value else None
    if "messagePrefix" in value and prefix is None:
        return bad("messagePrefix must be a list of message objects")
    return HeaderDelta(system, tools, config if isinstance(config, dict) else None, prefix)


# -- canonical form and equality -----------------------------------------------------------------


def canonical_header(header: EpochHeader) -> EpochHeader:
    """The header with an empty system prompt, tool list and message prefix made absent."""
    return EpochHeader(
        header.config,
        header.system or None,
        header.tools or None,
        header.message_prefix or None,
    )


def header_text(header: EpochHeader) -> str:
    """The JSON text (JavaScript's) of the canonical header: what equality compares."""
    return js_stringify(header_json(canonical_header(header)))


def header_equals(a: EpochHeader, b: EpochHeader) -> bool:
    """Equal canonical headers: the same JSON text, key order and number forms included."""
    return header_text(a) == header_text(b)


# -- the system prompt by lines ------------------------------------------------------------------


def system_lines(system: str | None) -> list[str]:
    """Absent is no lines; otherwise split on ``\\n`` exactly (empty pieces kept)."""
    return [] if system is None else system.split("\n")


def join_lines(lines: list[str]) -> str | None:
    """No lines is absent; otherwise the lines joined with ``\\n``."""
    return None if not lines else "\n".join(lines)


def diff_system(prev: str | None, next: str | None) -> SystemDelta:
    """Longest common prefix, then the longest common suffix of what is left of both."""
    a, b = system_lines(prev), system_lines(next)
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end = 0
    while end < len(a) - start and end < len(b) - start and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1
    return SystemDelta(start, end, tuple(b[start : len(b) - end]))


def apply_system(prev: str | None, delta: SystemDelta) -> str | None:
    """``prev``'s first ``keep_start`` lines, the inserted lines, ``prev``'s last ``keep_end`` lines.

    Out-of-range counts follow JavaScript ``slice`` (which Python slicing matches):
    a ``keep_end`` beyond the line count keeps every line.
    """
    a = system_lines(prev)
    tail = a[len(a) - delta.keep_end :]
    return join_lines(a[: delta.keep_start] + list(delta.insert) + tail)


# -- tools by name -------------------------------------------------------------------------------


def _name_key(tool: JsonObject) -> str:
    """A tool's name as a dictionary key (the JSON text of ``name``, whatever it holds)."""
    return js_stringify(tool.get("name"))


def same_schema(a: JsonObject, b: JsonObject) -> bool:
    """The reference's schema equality: the same JSON text."""
    return js_stringify(a) == js_stringify(b)


def diff_tools(prev: tuple[JsonObject, ...], next: tuple[JsonObject, ...]) -> ToolsDelta:
    """Added (in ``next`` order), removed names (in ``prev`` order), changed schemas.

    With a name given twice in ``prev``, the last of them is the one compared.
    """
    before = {_name_key(tool): tool for tool in prev}
    after = {_name_key(tool) for tool in next}
    added = tuple(tool for tool in next if _name_key(tool) not in before)
    removed = tuple(
        name for tool in prev if _name_key(tool) not in after and isinstance(name := tool.get("name"), str)
    )
    changed = tuple(
        tool for tool in next if _name_key(tool) in before and not same_schema(before[_name_key(tool)], tool)
    )
    return ToolsDelta(added, removed, changed)


def apply_tools(prev: tuple[JsonObject, ...], delta: ToolsDelta) -> tuple[JsonObject, ...]:
    """Drop removed names, swap changed schemas in place, append added ones.

    As in the reference, a changed name not in ``prev`` is ignored and an added
    name already present is added again.
    """
    replacement = {_name_key(tool): tool for tool in delta.changed}
    gone = {js_stringify(name) for name in delta.removed}
    kept = tuple(replacement.get(_name_key(tool), tool) for tool in prev if _name_key(tool) not in gone)
    return kept + delta.added


# -- the delta codec -----------------------------------------------------------------------------


def diff_header(prev: EpochHeader, next: EpochHeader) -> HeaderDelta | None:
    """The delta from ``prev`` to ``next`` (canonical headers), or ``None`` when nothing differs.

    It need not round-trip (see :func:`next_header_event`).
    """
    system = diff_system(prev.system, next.system) if prev.system != next.system else None
    prev_tools, next_tools = prev.tools or (), next.tools or ()
    tools = None
    if js_stringify(list(prev_tools)) != js_stringify(list(next_tools)):
        tools = diff_tools(prev_tools, next_tools)
    config = next.config if js_stringify(prev.config) != js_stringify(next.config) else None
    prefix = None
    if js_stringify(list(prev.message_prefix or ())) != js_stringify(list(next.message_prefix or ())):
        prefix = next.message_prefix or ()
    if system is None and tools is None and config is None and prefix is None:
        return None
    return HeaderDelta(system, tools, config, prefix)


def apply_header_delta(prev: EpochHeader, delta: HeaderDelta) -> EpochHeader:
    """The canonical header ``delta`` turns ``prev`` into."""
    system = apply_system(prev.system, delta.system) if delta.system is not None else prev.system
    tools = apply_tools(prev.tools or (), delta.tools) if delta.tools is not None else prev.tools
    prefix = delta.message_prefix if delta.message_prefix is not None else prev.message_prefix
    config = delta.config if delta.config is not None else prev.config
    return canonical_header(EpochHeader(config, system, tools, prefix))


# -- folding the log -----------------------------------------------------------------------------


def fold_step(state: FoldState, event: Event) -> FoldState:
    """One event of the fold: a snapshot replaces the state, a delta amends it.

    A delta with no header in force, or a malformed header event, makes the
    state a rejection, which only the next valid snapshot clears.
    """
    if event.type == HEADER:
        data = event.data
        if not isinstance(data, dict) or "header" not in data:
            return Rejection(
                Code.MALFORMED_REQUEST_HEADER,
                event.seq,
                f"request/header at seq {event.seq}: data must be an object with a header",
            )
        header = parse_header(data["header"], event.seq)
        return header if isinstance(header, Rejection) else canonical_header(header)
    if event.type == HEADER_DELTA:
        if state is None:
            return Rejection(
                Code.HEADER_DELTA_BEFORE_SNAPSHOT,
                event.seq,
                f"request/header-delta at seq {event.seq} comes before any request/header snapshot",
            )
        if isinstance(state, Rejection):
            return state
        delta = parse_delta(event.data, event.seq)
        return delta if isinstance(delta, Rejection) else apply_header_delta(state, delta)
    return state


def fold_request_header(events: Iterable[Event], start: FoldState = None) -> FoldState:
    """The header in force after ``events`` (continuing from ``start``); ``None`` before any."""
    state = start
    for event in events:
        state = fold_step(state, event)
    return state


# -- the writer ----------------------------------------------------------------------------------

HeaderReason: TypeAlias = Literal["initial", "resume", "fallback"]


def snapshot_data(header: EpochHeader, reason: HeaderReason) -> JsonObject:
    """The ``request/header`` payload: ``{header, reason}``."""
    return {"header": header_json(canonical_header(header)), "reason": reason}


def next_header_event(
    prev: EpochHeader | None, next: EpochHeader, first_request: bool
) -> tuple[str, JsonObject] | None:
    """The header event a step must log before sending a request under ``next``.

    ``prev`` is the header in force (the fold of the log so far). The first
    request of a loop instance always logs a snapshot (``initial`` when no
    header is in force, else ``resume``); so does any request with no header in
    force. Later: nothing when the headers are equal; otherwise the delta when
    applying it gives ``next`` exactly, else a ``fallback`` snapshot.
    """
    target = canonical_header(next)
    if first_request or prev is None:
        return HEADER, snapshot_data(target, "initial" if prev is None else "resume")
    base = canonical_header(prev)
    if header_equals(base, target):
        return None
    delta = diff_header(base, target)
    if delta is not None and header_equals(apply_header_delta(base, delta), target):
        return HEADER_DELTA, delta_json(delta)
    return HEADER, snapshot_data(target, "fallback")

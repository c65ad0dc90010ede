"""Request headers: the call config, system prompt, tools and message prefix a request used.

The log records them as ``request/header`` snapshots (``{header, reason}``) and
``request/header-delta`` amendments; :func:`fold_request_header` (and
:meth:`Session.request_header`, incrementally) gives the header in force.
:func:`next_header_event` is the writer's decision for the next request:
nothing, a delta that provably reproduces the new header, or a snapshot.

Headers are canonical on construction (an empty system prompt, tool list or
prefix is absent) and immutable; ``==`` is the reference's equality: the same
JSON text as JavaScript writes it. Values are frozen JSON shared with the log,
never copied or frozen as a side effect (the log is frozen already).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from dsh_session._frozen import FrozenDict, thaw
from dsh_session.errors import Code, DshSessionError
from dsh_session.event import Event
from dsh_session.js_json import dumps
from dsh_session.json_value import NotJsonError, freeze

__all__ = [
    "HEADER",
    "HEADER_DELTA",
    "EpochHeader",
    "HeaderDelta",
    "HeaderFold",
    "RequestHeaderError",
    "SystemDelta",
    "ToolsDelta",
    "apply_header_delta",
    "apply_system",
    "apply_tools",
    "canonical_header",
    "diff_header",
    "diff_system",
    "diff_tools",
    "fold_request_header",
    "header_equals",
    "next_header_event",
]

HEADER: Final = "request/header"
HEADER_DELTA: Final = "request/header-delta"

HeaderReason = Literal["initial", "resume", "fallback"]


class RequestHeaderError(DshSessionError):
    """A header event cannot be folded; ``seq`` is the event's seq.

    Codes: ``HEADER_DELTA_BEFORE_SNAPSHOT``, ``MALFORMED_REQUEST_HEADER``,
    ``MALFORMED_HEADER_DELTA``.
    """


def _frozen(value: Any, what: str, code: Code, seq: int | None) -> Any:
    try:
        return freeze(list(value) if isinstance(value, tuple) else value)
    except NotJsonError as error:
        raise RequestHeaderError(code, f"{what} is not JSON: {error.reason}", seq=seq) from None


def _object_list(value: Any, what: str, code: Code, seq: int | None, named: bool) -> tuple[FrozenDict, ...]:
    frozen = _frozen(value, what, code, seq)
    if not isinstance(frozen, list):
        raise RequestHeaderError(code, f"{what} must be a list", seq=seq)
    for index, item in enumerate(frozen):
        if not isinstance(item, dict):
            raise RequestHeaderError(code, f"{what}[{index}] must be an object", seq=seq)
        if named and type(item.get("name")) is not str:
            raise RequestHeaderError(code, f"{what}[{index}] must have a string name", seq=seq)
    return tuple(frozen)


@dataclass(frozen=True, slots=True, eq=False, init=False)
class EpochHeader:
    """``{config, system?, tools?, messagePrefix?}``, canonical and immutable.

    ``config`` is a JSON object; ``tools`` objects with a string ``name``;
    ``message_prefix`` message objects. Empty values become ``None`` (absent).
    Raises :class:`RequestHeaderError` (``MALFORMED_REQUEST_HEADER``) on bad parts.
    """

    config: FrozenDict
    system: str | None
    tools: tuple[FrozenDict, ...] | None
    message_prefix: tuple[FrozenDict, ...] | None

    def __init__(
        self,
        config: Mapping[str, Any],
        system: str | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        message_prefix: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        _fill(self, config, system, tools, message_prefix, None)

    @classmethod
    def from_json(cls, value: Any, *, seq: int | None = None) -> EpochHeader:
        """Read a logged header object (other keys are ignored, as by the reference)."""
        if not isinstance(value, Mapping):
            raise RequestHeaderError(Code.MALFORMED_REQUEST_HEADER, "header must be an object", seq=seq)
        if "config" not in value:
            raise RequestHeaderError(Code.MALFORMED_REQUEST_HEADER, "header.config is missing", seq=seq)
        header = object.__new__(cls)
        _fill(
            header,
            value["config"],
            _present(value, "system", Code.MALFORMED_REQUEST_HEADER, seq),
            _present(value, "tools", Code.MALFORMED_REQUEST_HEADER, seq),
            _present(value, "messagePrefix", Code.MALFORMED_REQUEST_HEADER, seq),
            seq,
        )
        return header

    def wire(self) -> dict[str, Any]:
        """The logged form (frozen parts shared): ``config, system?, tools?, messagePrefix?``."""
        out: dict[str, Any] = {"config": self.config}
        if self.system is not None:
            out["system"] = self.system
        if self.tools is not None:
            out["tools"] = list(self.tools)
        if self.message_prefix is not None:
            out["messagePrefix"] = list(self.message_prefix)
        return out

    def to_json(self) -> dict[str, Any]:
        """A plain, mutable copy of the logged form."""
        return thaw(self.wire())  # type: ignore[no-any-return]

    def text(self) -> str:
        """The JSON text JavaScript would write for this header: what ``==`` compares."""
        return dumps(self.wire())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EpochHeader):
            return NotImplemented
        return header_equals(self, other)

    def __hash__(self) -> int:
        return hash(self.text())

    def __repr__(self) -> str:
        return f"EpochHeader({self.text()})"


def _fill(header: EpochHeader, config: Any, system: Any, tools: Any, prefix: Any, seq: int | None) -> None:
    """Check and freeze the parts (raw values welcome) and set them on ``header``."""
    code = Code.MALFORMED_REQUEST_HEADER
    frozen_config = _frozen(config, "header.config", code, seq)
    if not isinstance(frozen_config, dict):
        raise RequestHeaderError(code, "header.config must be an object", seq=seq)
    if system is not None and type(system) is not str:
        raise RequestHeaderError(code, "header.system must be a string", seq=seq)
    set_ = object.__setattr__
    set_(header, "config", frozen_config)
    set_(header, "system", system or None)
    tool_items = () if tools is None else _object_list(tools, "header.tools", code, seq, True)
    prefix_items = () if prefix is None else _object_list(prefix, "header.messagePrefix", code, seq, False)
    set_(header, "tools", tool_items or None)
    set_(header, "message_prefix", prefix_items or None)


def _present(value: Mapping[str, Any], key: str, code: Code, seq: int | None) -> Any:
    """A key's value; a present ``null`` is malformed (absent is ``None``)."""
    if key not in value:
        return None
    item = value[key]
    if item is None:
        raise RequestHeaderError(code, f"{key} is null; leave it out instead", seq=seq)
    return item


@dataclass(frozen=True, slots=True)
class SystemDelta:
    """Keep ``keep_start`` leading and ``keep_end`` trailing lines; ``insert`` goes between."""

    keep_start: int
    keep_end: int
    insert: tuple[str, ...]

    def wire(self) -> dict[str, Any]:
        return {"keepStart": self.keep_start, "keepEnd": self.keep_end, "insert": list(self.insert)}


@dataclass(frozen=True, slots=True, eq=False)
class ToolsDelta:
    """Tools by name: ``added`` go to the end, ``removed`` names go, ``changed`` replace in place."""

    added: tuple[FrozenDict, ...]
    removed: tuple[str, ...]
    changed: tuple[FrozenDict, ...]

    def wire(self) -> dict[str, Any]:
        return {"added": list(self.added), "removed": list(self.removed), "changed": list(self.changed)}


@dataclass(frozen=True, slots=True, eq=False)
class HeaderDelta:
    """A ``request/header-delta`` payload; each field that is not ``None`` amends the header."""

    system: SystemDelta | None = None
    tools: ToolsDelta | None = None
    config: FrozenDict | None = None
    message_prefix: tuple[FrozenDict, ...] | None = None

    @classmethod
    def from_json(cls, value: Any, *, seq: int | None = None) -> HeaderDelta:
        """Read a logged delta; raises :class:`RequestHeaderError` (``MALFORMED_HEADER_DELTA``)."""
        code = Code.MALFORMED_HEADER_DELTA
        if not isinstance(value, Mapping):
            raise RequestHeaderError(code, "request/header-delta data must be an object", seq=seq)
        system = tools = config = prefix = None
        raw = _present(value, "system", code, seq)
        if raw is not None:
            system = _system_delta(raw, seq)
        raw = _present(value, "tools", code, seq)
        if raw is not None:
            if not isinstance(raw, Mapping) or not {"added", "removed", "changed"} <= raw.keys():
                raise RequestHeaderError(code, "tools must be {added, removed, changed}", seq=seq)
            removed = raw["removed"]
            if not isinstance(removed, list) or any(type(name) is not str for name in removed):
                raise RequestHeaderError(code, "tools.removed must be a list of names", seq=seq)
            tools = ToolsDelta(
                _object_list(raw["added"], "tools.added", code, seq, True),
                tuple(removed),
                _object_list(raw["changed"], "tools.changed", code, seq, True),
            )
        raw = _present(value, "config", code, seq)
        if raw is not None:
            config = _frozen(raw, "config", code, seq)
            if not isinstance(config, dict):
                raise RequestHeaderError(code, "config must be an object", seq=seq)
        raw = _present(value, "messagePrefix", code, seq)
        if raw is not None:
            prefix = _object_list(raw, "messagePrefix", code, seq, False)
        return cls(system, tools, config, prefix)

    def wire(self) -> dict[str, Any]:
        """The logged form, keys ``system, tools, config, messagePrefix`` (those present)."""
        out: dict[str, Any] = {}
        if self.system is not None:
            out["system"] = self.system.wire()
        if self.tools is not None:
            out["tools"] = self.tools.wire()
        if self.config is not None:
            out["config"] = self.config
        if self.message_prefix is not None:
            out["messagePrefix"] = list(self.message_prefix)
        return out

    def to_json(self) -> dict[str, Any]:
        """A plain, mutable copy of the logged form."""
        return thaw(self.wire())  # type: ignore[no-any-return]


def _system_delta(raw: Any, seq: int | None) -> SystemDelta:
    code = Code.MALFORMED_HEADER_DELTA
    if not isinstance(raw, Mapping):
        raise RequestHeaderError(code, "system must be {keepStart, keepEnd, insert}", seq=seq)
    start, end, insert = raw.get("keepStart"), raw.get("keepEnd"), raw.get("insert")
    if type(start) is not int or type(end) is not int or start < 0 or end < 0:
        raise RequestHeaderError(code, "system.keepStart and keepEnd must be non-negative integers", seq=seq)
    if not isinstance(insert, list) or any(type(line) is not str for line in insert):
        raise RequestHeaderError(code, "system.insert must be a list of strings", seq=seq)
    return SystemDelta(start, end, tuple(insert))


# -- canonical form and equality -----------------------------------------------------------------


def canonical_header(header: EpochHeader | Mapping[str, Any]) -> EpochHeader:
    """The canonical header: an :class:`EpochHeader` is one already; a mapping is read."""
    return header if isinstance(header, EpochHeader) else EpochHeader.from_json(header)


def header_equals(a: EpochHeader, b: EpochHeader) -> bool:
    """The same JSON text: config, system, tools in order, prefix (key order and number forms count)."""
    if a is b:
        return True
    if a.system != b.system:
        return False
    if (a.tools is None) != (b.tools is None) or (a.message_prefix is None) != (b.message_prefix is None):
        return False
    return a.text() == b.text()


# -- system prompt -------------------------------------------------------------------------------


def _lines(system: str | None) -> list[str]:
    return system.split("\n") if system is not None else []


def diff_system(prev: str | None, next: str | None) -> SystemDelta:
    """Common leading lines, then common trailing lines of the rest, and what goes between."""
    old, new = _lines(prev), _lines(next)
    shortest = min(len(old), len(new))
    start = 0
    while start < shortest and old[start] == new[start]:
        start += 1
    end = 0
    while end < shortest - start and old[-1 - end] == new[-1 - end]:
        end += 1
    return SystemDelta(start, end, tuple(new[start : len(new) - end]))


def apply_system(prev: str | None, delta: SystemDelta) -> str | None:
    """Apply a system delta; counts past the line count act like JavaScript ``slice``."""
    old = _lines(prev)
    lines = old[: delta.keep_start] + list(delta.insert) + old[len(old) - delta.keep_end :]
    return "\n".join(lines) if lines else None


# -- tools ---------------------------------------------------------------------------------------


def diff_tools(prev: Sequence[FrozenDict], next: Sequence[FrozenDict]) -> ToolsDelta:
    """By name: new names (``next`` order), gone names (``prev`` order), different schemas."""
    previous: dict[str, FrozenDict] = {}
    for tool in prev:
        previous[tool["name"]] = tool
    wanted = {tool["name"] for tool in next}
    added: list[FrozenDict] = []
    changed: list[FrozenDict] = []
    for tool in next:
        before = previous.get(tool["name"])
        if before is None:
            added.append(tool)
        elif before is not tool and dumps(before) != dumps(tool):
            changed.append(tool)
    removed = tuple(tool["name"] for tool in prev if tool["name"] not in wanted)
    return ToolsDelta(tuple(added), removed, tuple(changed))


def apply_tools(prev: Sequence[FrozenDict], delta: ToolsDelta) -> tuple[FrozenDict, ...]:
    """Drop removed, replace changed in place (unknown names ignored), append added."""
    swap = {tool["name"]: tool for tool in delta.changed}
    dropped = set(delta.removed)
    kept = [swap.get(tool["name"], tool) for tool in prev if tool["name"] not in dropped]
    return (*kept, *delta.added)


# -- the delta codec -----------------------------------------------------------------------------


def _list_text(items: tuple[FrozenDict, ...] | None) -> str:
    return dumps(list(items)) if items else "[]"


def diff_header(prev: EpochHeader, next: EpochHeader) -> HeaderDelta | None:
    """The delta from ``prev`` to ``next``, or ``None`` when they are equal. May not round-trip."""
    system = diff_system(prev.system, next.system) if prev.system != next.system else None
    tools = None
    if _list_text(prev.tools) != _list_text(next.tools):
        tools = diff_tools(prev.tools or (), next.tools or ())
    config = None if dumps(prev.config) == dumps(next.config) else next.config
    prefix = None
    if _list_text(prev.message_prefix) != _list_text(next.message_prefix):
        prefix = next.message_prefix or ()
    if system is None and tools is None and config is None and prefix is None:
        return None
    return HeaderDelta(system, tools, config, prefix)


def apply_header_delta(prev: EpochHeader, delta: HeaderDelta) -> EpochHeader:
    """The header ``delta`` makes of ``prev``."""
    return EpochHeader(
        delta.config if delta.config is not None else prev.config,
        apply_system(prev.system, delta.system) if delta.system is not None else prev.system,
        apply_tools(prev.tools or (), delta.tools) if delta.tools is not None else prev.tools,
        delta.message_prefix if delta.message_prefix is not None else prev.message_prefix,
    )


# -- folding -------------------------------------------------------------------------------------


class HeaderFold:
    """The request-header fold, fed one event at a time.

    A bad header event (a delta with no header in force, a malformed payload)
    breaks the fold until the next valid snapshot; :meth:`result` raises while
    broken. Feeding costs O(1) for other events and O(header) for header events.
    """

    __slots__ = ("_broken", "_header")

    def __init__(self, start: EpochHeader | None = None) -> None:
        self._header = start
        self._broken: RequestHeaderError | None = None

    def feed(self, event: Event) -> None:
        kind = event.type
        if kind == HEADER:
            data = event.data
            try:
                if not isinstance(data, Mapping) or "header" not in data:
                    raise RequestHeaderError(
                        Code.MALFORMED_REQUEST_HEADER, "data must be {header, reason}", seq=event.seq
                    )
                self._header = EpochHeader.from_json(data["header"], seq=event.seq)
                self._broken = None
            except RequestHeaderError as error:
                self._break(error, HEADER, event.seq)
        elif kind == HEADER_DELTA:
            if self._broken is not None:
                return
            if self._header is None:
                self._broken = RequestHeaderError(
                    Code.HEADER_DELTA_BEFORE_SNAPSHOT,
                    f"request/header-delta at seq {event.seq} comes before any request/header snapshot",
                    seq=event.seq,
                )
                return
            try:
                self._header = apply_header_delta(
                    self._header, HeaderDelta.from_json(event.data, seq=event.seq)
                )
            except RequestHeaderError as error:
                self._break(error, HEADER_DELTA, event.seq)

    def _break(self, error: RequestHeaderError, kind: str, seq: int) -> None:
        self._header = None
        self._broken = RequestHeaderError(error.code, f"{kind} at seq {seq}: {error.message}", seq=seq)

    def result(self) -> EpochHeader | None:
        """The header in force, ``None`` before any; raises :class:`RequestHeaderError` while broken."""
        broken = self._broken
        if broken is not None:
            raise RequestHeaderError(broken.code, broken.message, seq=broken.seq)
        return self._header


def fold_request_header(events: Iterable[Event], start: EpochHeader | None = None) -> EpochHeader | None:
    """The header in force after ``events`` (continuing from ``start``), ``None`` before any.

    Raises :class:`RequestHeaderError` when the last snapshot is malformed or a
    delta after it cannot be applied.
    """
    fold = HeaderFold(start)
    for event in events:
        fold.feed(event)
    return fold.result()


# -- the writer ----------------------------------------------------------------------------------


def next_header_event(
    prev: EpochHeader | None, next: EpochHeader, *, first_request: bool
) -> tuple[str, dict[str, Any]] | None:
    """What to log before a request under ``next``, with ``prev`` the header in force:
    ``None`` or ``(type, data)`` for ``session.append(type, data)``.

    A loop instance's first request, or any request with no header in force,
    logs a snapshot (``initial`` / ``resume``). Otherwise: nothing for an equal
    header, a delta when it reproduces ``next`` exactly, else a ``fallback``
    snapshot -- so every logged delta round-trips.
    """
    if first_request or prev is None:
        reason: HeaderReason = "initial" if prev is None else "resume"
        return HEADER, {"header": next.wire(), "reason": reason}
    if header_equals(prev, next):
        return None
    delta = diff_header(prev, next)
    if delta is not None and header_equals(apply_header_delta(prev, delta), next):
        return HEADER_DELTA, delta.wire()
    return HEADER, {"header": next.wire(), "reason": "fallback"}

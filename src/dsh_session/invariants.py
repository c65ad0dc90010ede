"""Log invariants: check a whole log, and the trace behind live checking.

:func:`check_log` reads a log record by record and returns a
:class:`Violation` for every record that breaks a rule -- the first rule it
breaks -- in log order. The rules and their order: record shape, seq order
(``SEQ_NOT_INCREASING``, ``SEQ_NOT_CONTIGUOUS``), the admission rules every
append passes, then the turn/step structure (``MALFORMED_STRUCTURE_FIELD`` and
R11-R20 of the reference). A violating record is left out of what later
records are checked against, as if it had never been in the log; only the
seq bookkeeping counts it. See ``docs/errors.md`` for every code.

A session created with ``invariants=True`` keeps a :class:`StructureTrace` of its log
and refuses an append that breaks a structural rule before it is stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dsh_session import _admission
from dsh_session._admission import MISSING, Encoded, exact_int
from dsh_session.errors import Code, InvalidEventError
from dsh_session.event import Event, LoggedEvent
from dsh_session.surface import SurfaceManager

__all__ = ["Violation", "check_log"]

_EVENT_KEYS = frozenset({"type", "seq", "time", "data", "sourceEventSeqs", "surfaceOp"})
_REQUIRED = ("type", "seq", "time", "data")

#: What each structured type must carry in its data: a step number, a call id.
_NEEDS_STEP = frozenset(
    {"step/start", "step/end", "assistant/chunk", "assistant/message", "tool/call", "tool/result"}
)
_NEEDS_CALL = frozenset({"tool/call", "tool/result"})
_STRUCTURED = _NEEDS_STEP | {"turn/start", "turn/end"}
_STEP_SCOPED = _NEEDS_STEP - {"step/start"}


@dataclass(frozen=True, slots=True)
class Violation:
    """One record of a log that breaks a rule: the rule's ``code``, the record's
    ``seq`` (``None`` when it has no integer seq), a ``message`` for people and
    the record's ``event_type`` (``None`` when it has no string type)."""

    code: Code
    seq: int | None
    message: str
    event_type: str | None = None


def _name(value: int | None) -> str:
    return "none" if value is None else str(value)


class StructureTrace:
    """The turn/step state of a log's accepted events (the structural rules' memory).

    ``check`` judges the next event without changing anything; ``advance``
    takes in an event that passed. Keeping the two apart is what lets a
    refused event leave no trace.
    """

    __slots__ = ("next_step", "next_turn", "open_step", "open_turn", "pending")

    def __init__(self) -> None:
        self.open_turn: int | None = None
        self.open_step: int | None = None
        self.next_turn = 1
        self.next_step = 1
        self.pending: set[str] = set()

    def check(self, event: Event) -> tuple[Code, str] | None:
        """The structural rule ``event`` breaks, as ``(code, message)``, or ``None``."""
        kind = event.type
        seq = event.seq
        open_turn = self.open_turn
        if kind not in _STRUCTURED:
            if open_turn is None:
                return (
                    Code.EVENT_OUTSIDE_TURN,
                    f"{kind} at seq {seq} is outside any turn; every event must sit inside a turn",
                )
            return None
        data = event.data
        turn = _field(data, "turn")
        if type(turn) is not int:
            return _malformed(kind, seq, "turn", "an integer", turn)
        step: Any = None
        if kind in _NEEDS_STEP:
            step = _field(data, "step")
            if type(step) is not int:
                return _malformed(kind, seq, "step", "an integer", step)
        call_id: Any = None
        if kind in _NEEDS_CALL:
            call_id = _field(data, "callId")
            if type(call_id) is not str:
                return _malformed(kind, seq, "callId", "a string", call_id)
        open_step = self.open_step

        if kind in _STEP_SCOPED:
            if open_step is None or turn != open_turn or step != open_step:
                if open_turn is None:
                    now = "no turn is open"
                elif open_step is None:
                    now = f"no step of turn {open_turn} is open"
                else:
                    now = f"the open step is turn {open_turn} step {open_step}"
                return Code.STEP_NOT_OPEN, f"{kind} at seq {seq} names turn {turn} step {step}, but {now}"
            if kind == "tool/result" and call_id not in self.pending and not _interrupted(data):
                return (
                    Code.TOOL_RESULT_UNPAIRED,
                    f"tool/result at seq {seq}: callId {call_id!r} answers no unanswered tool/call "
                    f"of this step",
                )
            return None
        if kind == "turn/start":
            if open_turn is not None:
                message = f"turn/start {turn} at seq {seq}: turn {open_turn} is still open"
                return Code.TURN_ALREADY_OPEN, message
            if turn != self.next_turn:
                return (
                    Code.TURN_OUT_OF_ORDER,
                    f"turn/start at seq {seq}: expected turn {self.next_turn}, got {turn}",
                )
            return None
        if kind == "turn/end":
            if open_turn is None or turn != open_turn:
                return (
                    Code.TURN_END_MISMATCH,
                    f"turn/end {turn} at seq {seq} does not match the open turn ({_name(open_turn)})",
                )
            if open_step is not None:
                message = f"turn/end {turn} at seq {seq}: step {open_step} is still open"
                return Code.TURN_END_STEP_OPEN, message
            return None
        # step/start
        if open_turn is None or turn != open_turn:
            return (
                Code.STEP_TURN_MISMATCH,
                f"step/start at seq {seq} names turn {turn}, but the open turn is {_name(open_turn)}",
            )
        if open_step is not None:
            return Code.STEP_ALREADY_OPEN, f"step/start {step} at seq {seq}: step {open_step} is still open"
        if step != self.next_step:
            return (
                Code.STEP_OUT_OF_ORDER,
                f"step/start at seq {seq}: expected step {self.next_step} of turn {turn}, got {step}",
            )
        return None

    def advance(self, event: Event) -> None:
        """Take in ``event``, which ``check`` passed."""
        kind = event.type
        if kind not in _STRUCTURED:
            return
        data = event.data
        if kind == "tool/call":
            self.pending.add(data["callId"])
        elif kind == "tool/result":
            self.pending.discard(data["callId"])
        elif kind == "step/start":
            self.open_step = data["step"]
        elif kind == "step/end":
            self.pending.clear()
            self.open_step = None
            self.next_step += 1
        elif kind == "turn/start":
            self.open_turn = data["turn"]
            self.next_step = 1
        elif kind == "turn/end":
            self.open_turn = None
            self.next_turn += 1


def _field(data: Any, key: str) -> Any:
    return data.get(key, MISSING) if isinstance(data, dict) else MISSING


def _malformed(kind: str, seq: int, key: str, what: str, value: object) -> tuple[Code, str]:
    got = "nothing" if value is MISSING else repr(value)
    return Code.MALFORMED_STRUCTURE_FIELD, f"{kind} at seq {seq}: data.{key} must be {what}, got {got}"


def _interrupted(data: Any) -> bool:
    """The synthetic result of crash repair: ``isError`` and ``error.code == 'interrupted'``."""
    error = data.get("error")
    return data.get("isError") is True and isinstance(error, dict) and error.get("code") == "interrupted"


# -- checking a whole log ----------------------------------------------------------------

_Fields = tuple[object, object, object, object, object]


def check_log(events: Iterable[object]) -> list[Violation]:
    """Every record of a log that breaks a rule, with the first rule it breaks, in log order.

    ``events`` are :class:`~dsh_session.Event` objects or JSON event records
    (mappings); anything else is a record that is not an event
    (``MALFORMED_EVENT``). An empty list means the log keeps every invariant; for a log
    whose seqs run 0, 1, 2, ... that is exactly when
    ``Session(id, seed=events, invariants=True)`` accepts it, and the first
    violation is what that constructor raises.
    """
    accepted: list[Event] = []
    surface = SurfaceManager(accepted)
    known: set[int] = set()
    trace = StructureTrace()
    highest = -1
    found: list[Violation] = []
    for index, item in enumerate(events):
        seq, fields = _read(index, item)
        expected = highest + 1
        highest = expected if seq is None else max(highest, seq)
        kind_of = _type_of(item)
        if isinstance(fields, Violation):
            found.append(Violation(fields.code, fields.seq, fields.message, kind_of))
            continue
        assert seq is not None
        if seq < expected:
            message = f"event at index {index} has seq {seq}, not above seq {expected - 1} before it"
            found.append(Violation(Code.SEQ_NOT_INCREASING, seq, message, kind_of))
            continue
        if seq != expected:
            message = f"event at index {index} has seq {seq}; expected {expected} (seqs have no gaps)"
            found.append(Violation(Code.SEQ_NOT_CONTIGUOUS, seq, message, kind_of))
            continue
        kind, time, data, op, refs = fields
        try:
            event, span = _admission.admit(surface, seq, kind, time, data, op, refs, known=known)
        except InvalidEventError as error:
            found.append(Violation(error.code, seq, error.message, kind_of))
            continue
        problem = trace.check(event)
        if problem is not None:
            found.append(Violation(problem[0], seq, problem[1], kind_of))
            continue
        accepted.append(event)
        surface._fold(event, span)
        known.add(seq)
        trace.advance(event)
    return found


def _type_of(item: object) -> str | None:
    """The record's type, when it has one that is a string."""
    kind = item.type if isinstance(item, Event) else item.get("type") if isinstance(item, Mapping) else None
    return kind if isinstance(kind, str) else None


def _read(index: int, item: object) -> tuple[int | None, _Fields | Violation]:
    """The record's seq (when an integer) and its raw fields, or why it is not an event."""
    if isinstance(item, Event):
        op: object = MISSING if item.surface_op is None else item.surface_op
        refs: object = MISSING if item.source_event_seqs is None else item.source_event_seqs
        seq = exact_int(item.seq)
        if seq is None:
            return None, _bad_seq(index, item.seq)
        data = Encoded(item.text) if type(item) is LoggedEvent else item.data
        return seq, (item.type, item.time, data, op, refs)
    if not isinstance(item, Mapping):
        return None, Violation(Code.MALFORMED_EVENT, None, f"event at index {index} is not an object")
    seq = exact_int(item.get("seq", MISSING))
    missing = [key for key in _REQUIRED if key not in item]
    if missing:
        return seq, Violation(Code.MALFORMED_EVENT, seq, f"event at index {index} lacks {', '.join(missing)}")
    unknown = [key for key in item if key not in _EVENT_KEYS]
    if unknown:
        return seq, Violation(
            Code.MALFORMED_EVENT,
            seq,
            f"event at index {index} has unknown key(s) {', '.join(map(repr, unknown))}",
        )
    if seq is None:
        return None, _bad_seq(index, item["seq"])
    return seq, (
        item["type"],
        item["time"],
        item["data"],
        item.get("surfaceOp", MISSING),
        item.get("sourceEventSeqs", MISSING),
    )


def _bad_seq(index: int, raw: object) -> Violation:
    return Violation(
        Code.MALFORMED_EVENT, None, f"event at index {index} has seq {raw!r}; a seq must be an integer"
    )

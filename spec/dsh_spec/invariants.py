"""Log invariants: the contract a whole session log keeps, event by event.

A log is read record by record against a :class:`Trace`, what the rules
remember about the events accepted so far. For one record the rules run in
this order, and the first one broken is the one reported (the reference's
precedence, invariants notes §1.3, where it applies):

1. shape (``MALFORMED_EVENT``): an :class:`Event`, or a JSON object with
   ``type``, ``seq``, ``time``, ``data`` and no key but those and
   ``sourceEventSeqs`` / ``surfaceOp``, whose ``seq`` is an integer;
2. seq order: R1 ``SEQ_NOT_INCREASING`` (the seq is above every seq before it),
   then ``SEQ_NOT_CONTIGUOUS`` (exactly one above the highest: no gap);
3. admission (:func:`dsh_spec.validation.admit`): among others R2 (surface
   markers on a log-only type), R3-R6 (provenance well formed, naming only
   accepted events), R7-R10 (replace endpoints on the surface, in order,
   every shadowed node named);
4. ``MALFORMED_STRUCTURE_FIELD``: a turn, step or tool event carries the
   integer ``turn`` / ``step`` and string ``callId`` its rules read;
5. structure, by type (R11-R20): turns open and close in order, steps open
   and close in order inside the open turn, step-scoped events name the open
   step, a ``tool/result`` answers a ``tool/call`` of the same step (unless it
   is the synthetic ``interrupted`` result), everything else sits in a turn.

After a violation the record is **left out of the trace**: the records after
it are judged as if it had never been in the log, which is exactly what a
session with live invariants does when it refuses an append. Only the seq
bookkeeping looks at every record: the highest seq seen rises with each
integer seq (a record whose seq is unreadable counts as the next one), so a
missing or repeated record is reported once, not with every record after it
(a record numbered too high is reported, and so are the records after it up
to its number). A
refused event is never known, so naming it in ``sourceEventSeqs`` later is
``PROVENANCE_UNKNOWN_SEQ``, and it is never on the surface.

:func:`check_log` returns every refused record, each with the first rule it
breaks, in log order. No rule looks at the end of the log: a log may stop
inside an open turn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from dsh_spec.codes import Code
from dsh_spec.events import Event, Replace, surface_op_json
from dsh_spec.json_value import canonical_number
from dsh_spec.rejection import Rejection
from dsh_spec.surface import Surface, step
from dsh_spec.validation import ABSENT, Draft, admit, fold_seed, key_problem

#: The data fields each structured type must carry, in the order they are checked.
STRUCTURE_FIELDS: Mapping[str, tuple[str, ...]] = {
    "turn/start": ("turn",),
    "turn/end": ("turn",),
    "step/start": ("turn", "step"),
    "step/end": ("turn", "step"),
    "assistant/chunk": ("turn", "step"),
    "assistant/message": ("turn", "step"),
    "tool/call": ("turn", "step", "callId"),
    "tool/result": ("turn", "step", "callId"),
}


@dataclass(frozen=True)
class Trace:
    """What the rules know about the accepted events of a log.

    ``known``: their seqs; ``surface``: their surface; ``open_turn`` /
    ``open_step``: the turn and step open now (``None``: none);
    ``next_turn`` / ``next_step``: the numbers the next ``turn/start`` /
    ``step/start`` must carry; ``pending_calls``: the ``callId`` of every
    ``tool/call`` of the open step not answered yet.
    """

    surface: Surface = field(default_factory=Surface)
    known: frozenset[int] = frozenset()
    open_turn: int | None = None
    open_step: int | None = None
    next_turn: int = 1
    next_step: int = 1
    pending_calls: frozenset[str] = frozenset()


class Fields(NamedTuple):
    """The structural fields of an event's data (``None`` where its type has none)."""

    turn: int | None
    step: int | None
    call_id: str | None


# -- structural fields -------------------------------------------------------------


def structure_fields(event: Event) -> Fields | Rejection:
    """The ``turn``, ``step`` and ``callId`` the event's structural rules read, or why it lacks them."""
    wanted = STRUCTURE_FIELDS.get(event.type, ())
    data = event.data
    found: dict[str, object] = {}
    for key in wanted:
        value = data.get(key, ABSENT) if isinstance(data, dict) else ABSENT
        expected = str if key == "callId" else int
        if type(value) is not expected:
            what = "a string" if expected is str else "an integer"
            got = "nothing" if value is ABSENT else repr(value)
            return Rejection(
                Code.MALFORMED_STRUCTURE_FIELD,
                event.seq,
                f"{event.type} at seq {event.seq}: data.{key} must be {what}, got {got}",
            )
        found[key] = value
    return Fields(found.get("turn"), found.get("step"), found.get("callId"))  # type: ignore[arg-type]


# -- the structural rules, one predicate each ------------------------------------------

Rule = Callable[[Trace, Event, Fields], Rejection | None]


def _name(value: int | None) -> str:
    return "none" if value is None else str(value)


def turn_already_open(trace: Trace, event: Event, fields: Fields) -> Rejection | None:
    """R11: a turn starts only when no turn is open."""
    if trace.open_turn is None:
        return None
    return Rejection(
        Code.TURN_ALREADY_OPEN,
        event.seq,
        f"turn/start {fields.turn} at seq {event.seq}: turn {trace.open_turn} is still open",
    )


def turn_out_of_order(trace: Trace, event: Event, fields: Fields) -> Rejection | None:
    """R12: turns are numbered 1, 2, 3, ... in log order."""
    if fields.turn == trace.next_turn:
        return None
    return Rejection(
        Code.TURN_OUT_OF_ORDER,
        event.seq,
        f"turn/start at seq {event.seq}: expected turn {trace.next_turn}, got {fields.turn}",
    )


def turn_end_mismatch(trace: Trace, event: Event, fields: Fields) -> Rejection | None:
    """R13: ``turn/end`` closes the open turn, by number."""
    if trace.open_turn is not None and fields.turn == trace.open_turn:
        return None
    return Rejection(
        Code.TURN_END_MISMATCH,
        event.seq,
        f"turn/end {fields.turn} at seq {event.seq} does not match the open turn ({_name(trace.open_turn)})",
    )


def turn_end_step_open(trace: Trace, event: Event, fields: Fields) -> Rejection | None:
    """R14: a turn ends only when none of its steps is open."""
    if trace.open_step is None:
        return None
    return Rejection(
        Code.TURN_END_STEP_OPEN,
        event.seq,
        f"turn/end {fields.turn} at seq {event.seq}: step {trace.open_step} is still open",
    )


def step_turn_mismatch(trace: Trace, event: Event, fields: Fields) -> Rejection | None:
    """R15: a step starts inside the open turn, which it names."""
    if trace.open_turn is not None and fields.turn == trace.open_turn:
        return None
    return Rejection(
        Code.STEP_TURN_MISMATCH,
        event.seq,
        f"step/start at seq {event.seq} names turn {fields.turn}, "
        f"but the open turn is {_name(trace.open_turn)}",
    )


def step_already_open(trace: Trace, event: Event, fields: Fields) -> Rejection | None:
    """R16: a step starts only when no step is open."""
    if trace.open_step is None:
        return None
    return Rejection(
        Code.STEP_ALREADY_OPEN,
        event.seq,
        f"step/start {fields.step} at seq {event.seq}: step {trace.open_step} is still open",
    )


def step_out_of_order(trace: Trace, event: Event, fields: Fields) -> Rejection | None:
    """R17: steps are numbered 1, 2, 3, ... within each turn."""
    if fields.step == trace.next_step:
        return None
    return Rejection(
        Code.STEP_OUT_OF_ORDER,
        event.seq,
        f"step/start at seq {event.seq}: expected step {trace.next_step} of turn {fields.turn}, "
        f"got {fields.step}",
    )


def step_not_open(trace: Trace, event: Event, fields: Fields) -> Rejection | None:
    """R18: a step-scoped event names the open turn and step."""
    if trace.open_step is not None and (fields.turn, fields.step) == (trace.open_turn, trace.open_step):
        return None
    if trace.open_turn is None:
        now = "no turn is open"
    elif trace.open_step is None:
        now = f"no step of turn {trace.open_turn} is open"
    else:
        now = f"the open step is turn {trace.open_turn} step {trace.open_step}"
    return Rejection(
        Code.STEP_NOT_OPEN,
        event.seq,
        f"{event.type} at seq {event.seq} names turn {fields.turn} step {fields.step}, but {now}",
    )


def is_interrupted_result(event: Event) -> bool:
    """True for the synthetic result crash repair writes: ``isError`` and ``error.code == 'interrupted'``."""
    data = event.data
    if not isinstance(data, dict) or data.get("isError") is not True:
        return False
    error = data.get("error")
    return isinstance(error, dict) and error.get("code") == "interrupted"


def tool_result_unpaired(trace: Trace, event: Event, fields: Fields) -> Rejection | None:
    """R19: a ``tool/result`` answers an unanswered ``tool/call`` of its step, by ``callId``.

    The synthetic ``interrupted`` result is exempt.
    """
    if fields.call_id in trace.pending_calls or is_interrupted_result(event):
        return None
    return Rejection(
        Code.TOOL_RESULT_UNPAIRED,
        event.seq,
        f"tool/result at seq {event.seq}: callId {fields.call_id!r} answers no unanswered tool/call "
        f"of this step",
    )


def event_outside_turn(trace: Trace, event: Event, fields: Fields) -> Rejection | None:
    """R20: every other event sits inside an open turn (inside or between its steps)."""
    if trace.open_turn is not None:
        return None
    return Rejection(
        Code.EVENT_OUTSIDE_TURN,
        event.seq,
        f"{event.type} at seq {event.seq} is outside any turn; every event must sit inside a turn",
    )


#: The structural rules of each type, in the order they are checked.
STRUCTURE_RULES: Mapping[str, tuple[Rule, ...]] = {
    "turn/start": (turn_already_open, turn_out_of_order),
    "turn/end": (turn_end_mismatch, turn_end_step_open),
    "step/start": (step_turn_mismatch, step_already_open, step_out_of_order),
    "step/end": (step_not_open,),
    "assistant/chunk": (step_not_open,),
    "assistant/message": (step_not_open,),
    "tool/call": (step_not_open,),
    "tool/result": (step_not_open, tool_result_unpaired),
}

#: The rules of every type not in :data:`STRUCTURE_RULES`.
DEFAULT_RULES: tuple[Rule, ...] = (event_outside_turn,)


def structure_problem(trace: Trace, event: Event) -> Rejection | None:
    """The first structural rule (fields, then R11-R20) ``event`` breaks after ``trace``."""
    fields = structure_fields(event)
    if isinstance(fields, Rejection):
        return fields
    for rule in STRUCTURE_RULES.get(event.type, DEFAULT_RULES):
        broken = rule(trace, event, fields)
        if broken is not None:
            return broken
    return None


def advance(trace: Trace, event: Event) -> Trace:
    """The trace once ``event`` (which breaks no rule) is accepted."""
    folded = step(trace.surface, event)
    assert not isinstance(folded, Rejection)  # admission checked the replace
    after = replace(trace, surface=folded, known=trace.known | {event.seq})
    fields = structure_fields(event)
    assert not isinstance(fields, Rejection)
    kind = event.type
    if kind == "turn/start":
        return replace(after, open_turn=fields.turn, next_step=1)
    if kind == "turn/end":
        return replace(after, open_turn=None, next_turn=trace.next_turn + 1)
    if kind == "step/start":
        return replace(after, open_step=fields.step)
    if kind == "step/end":
        return replace(after, open_step=None, next_step=trace.next_step + 1, pending_calls=frozenset())
    if kind == "tool/call":
        assert fields.call_id is not None
        return replace(after, pending_calls=trace.pending_calls | {fields.call_id})
    if kind == "tool/result":
        return replace(after, pending_calls=trace.pending_calls - {fields.call_id})
    return after


# -- events, appends, seeds and whole logs ----------------------------------------------


def check_event(trace: Trace, seq: int, draft: Draft) -> tuple[Event, Trace] | Rejection:
    """Admit ``draft`` as the event at ``seq`` after ``trace`` and apply the structural rules.

    Returns the event and the trace after it, or the first rule broken.
    """
    event = admit(trace.surface, seq, draft, known=trace.known)
    if isinstance(event, Rejection):
        return event
    problem = structure_problem(trace, event)
    if problem is not None:
        return problem
    return event, advance(trace, event)


def event_draft(event: Event) -> Draft:
    """The draft an event was admitted from (its fields as offered)."""
    return Draft(
        type=event.type,
        time=event.time,
        data=event.data,
        surface_op=ABSENT if event.surface_op is None else surface_op_json(event.surface_op),
        source_event_seqs=ABSENT if event.source_event_seqs is None else list(event.source_event_seqs),
    )


def trace_of(log: Iterable[Event]) -> Trace | Rejection:
    """The trace after an admitted log, or the first invariant it breaks."""
    trace = Trace()
    for event in log:
        checked = check_event(trace, event.seq, event_draft(event))
        if isinstance(checked, Rejection):
            return checked
        trace = checked[1]
    return trace


def validate_append_with_invariants(log: tuple[Event, ...], draft: Draft) -> Event | Rejection:
    """What appending ``draft`` to ``log`` gives in a session with live invariants.

    ``log`` is the session's log, which keeps the invariants.
    """
    trace = trace_of(log)
    if isinstance(trace, Rejection):  # pragma: no cover - the log keeps the invariants
        return trace
    checked = check_event(trace, len(log), draft)
    return checked if isinstance(checked, Rejection) else checked[0]


def check_seed_with_invariants(records: Iterable[object]) -> tuple[Event, ...] | Rejection:
    """The events of a seed for a session with live invariants, or the first rule it breaks."""
    return fold_seed(records, Trace(), check_event)


def record_seq(item: object) -> int | None:
    """The seq of an event or event record, when it is an integer."""
    if isinstance(item, Event):
        raw: object = item.seq
    elif isinstance(item, dict):
        raw = item.get("seq")
    else:
        return None
    if type(raw) not in (int, float):
        return None
    number = canonical_number(raw)  # type: ignore[arg-type]
    return number if type(number) is int else None


def read_record(index: int, item: object) -> tuple[int, Draft] | Rejection:
    """The seq and draft of the record at ``index`` of a log, or why it is not an event."""
    record = _as_record(item)
    seq = record_seq(item)
    if not isinstance(record, dict):
        return Rejection(Code.MALFORMED_EVENT, None, f"event at index {index} is not an object")
    problem = key_problem(record, index, seq)
    if problem is not None:
        return problem
    if seq is None:
        return Rejection(
            Code.MALFORMED_EVENT,
            None,
            f"event at index {index} has seq {record['seq']!r}; a seq must be an integer",
        )
    return seq, Draft(
        type=record["type"],
        time=record["time"],
        data=record["data"],
        surface_op=record.get("surfaceOp", ABSENT),
        source_event_seqs=record.get("sourceEventSeqs", ABSENT),
    )


def _as_record(item: object) -> object:
    """An :class:`Event` as the JSON record it stands for; anything else unchanged."""
    if not isinstance(item, Event):
        return item
    record: dict[str, object] = {"type": item.type, "seq": item.seq, "time": item.time, "data": item.data}
    refs = item.source_event_seqs
    if refs is not None:
        record["sourceEventSeqs"] = list(refs) if isinstance(refs, tuple) else refs
    op = item.surface_op
    if op is not None:
        record["surfaceOp"] = surface_op_json(op) if isinstance(op, Replace) else op
    return record


def seq_problem(index: int, seq: int, highest: int) -> Rejection | None:
    """R1 and contiguity: ``seq`` must be exactly one above the highest seq before it."""
    if seq <= highest:
        return Rejection(
            Code.SEQ_NOT_INCREASING,
            seq,
            f"event at index {index} has seq {seq}, not above seq {highest} before it",
        )
    if seq != highest + 1:
        return Rejection(
            Code.SEQ_NOT_CONTIGUOUS,
            seq,
            f"event at index {index} has seq {seq}; expected {highest + 1} (seqs have no gaps)",
        )
    return None


def check_log(records: Iterable[object]) -> tuple[Rejection, ...]:
    """Every record of a log that breaks a rule, with the first rule it breaks, in log order.

    ``records`` are :class:`Event` values or JSON event records. An empty
    result means the log keeps every invariant.
    """
    trace = Trace()
    highest = -1
    found: list[Rejection] = []
    for index, item in enumerate(records):
        verdict = _check_record(trace, highest, index, item)
        seq = record_seq(item)
        highest = highest + 1 if seq is None else max(highest, seq)
        if isinstance(verdict, Rejection):
            found.append(verdict)
        else:
            trace = verdict
    return tuple(found)


def _check_record(trace: Trace, highest: int, index: int, item: object) -> Trace | Rejection:
    read = read_record(index, item)
    if isinstance(read, Rejection):
        return read
    seq, draft = read
    problem = seq_problem(index, seq, highest)
    if problem is not None:
        return problem
    checked = check_event(trace, seq, draft)
    return checked if isinstance(checked, Rejection) else checked[1]


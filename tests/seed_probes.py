"""Fixed seeding probes that the core machine runs at the start of every example.

Seeding is where a session meets records and events made by someone else, and most
of what can go wrong there needs an input that a random search meets rarely: a
``LoggedEvent`` built by hand with a field that is not what admission makes of it
(``True`` for seq 1, a list for a type, a float endpoint, a key order, a surface
operation given as a mapping), a payload only JavaScript's reading takes, or a log
longer than the small-int cache (so that seq objects differ where the values agree).
The probes are deterministic and cheap (a few milliseconds), so every example of
even the shortest search runs them all:

- a session's own events serve a new session as they are, 312 of them, with and
  without the log invariants (``Session._admit`` keeps the given event when the
  event admission makes is the same, field for field);
- each hand-built variant seeds the session the spec's way, type-strictly (the spec
  reads the records), and what is equal field for field is the object given;
- each broken record is refused as the spec refuses it, and the message names what
  is wrong: the missing or unknown keys, and the record's type only when it has a
  usable one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dsh_spec
from dsh_session import InvalidEventError, LoggedEvent, Replace, Session
from dsh_session.event import held
from dsh_spec import Rejection
from tests.machine_support import Disagreement, require, same_json

Clock = Callable[[], int]


def run_seed_probes(clock: Clock) -> None:
    """Every probe of this module; a difference raises :class:`Disagreement`."""
    _own_events_kept(clock)
    records = _short_records()
    events = seeded_alike(records, clock, "the probes' own records")
    _hand_built(events, records, clock)
    _broken_records(records, clock)


# -- a long log of the session's own events ----------------------------------------------


def probe_turn(t: int) -> list[tuple[str, dict[str, Any], str | None, bool]]:
    """One turn that keeps the log invariants: ``(type, data, surfaceOp, names the previous)``."""
    call = f"call-{t}"
    text = [{"type": "text", "text": f"text {t}"}]
    return [
        ("turn/start", {"turn": t, "trigger": {"kind": "message", "source": {"kind": "user"}}}, None, False),
        ("user/message", {"content": text, "source": {"kind": "user"}}, "append", False),
        ("step/start", {"turn": t, "step": 1}, None, False),
        (
            "assistant/message",
            {
                "turn": t,
                "step": 1,
                "content": [*text, {"type": "tool-call", "id": call, "name": "echo", "arguments": "{}"}],
            },
            "append",
            False,
        ),
        ("tool/call", {"turn": t, "step": 1, "callId": call, "name": "echo", "arguments": "{}"}, None, False),
        (
            "tool/result",
            {"turn": t, "step": 1, "callId": call, "content": text, "isError": False},
            "append",
            True,
        ),
        ("step/end", {"turn": t, "step": 1}, None, False),
        ("turn/end", {"turn": t, "reason": {"kind": "completed"}}, None, False),
    ]


def _own_events_kept(clock: Clock) -> None:
    """A log past the small-int cache (312 events), seeded from its own events with and
    without the invariants: the new session holds the very objects it was given."""
    session = Session("probe-long", clock=clock, invariants=True)
    for t in range(1, 40):
        for kind, data, op, names_previous in probe_turn(t):
            session.append(
                kind,
                data,
                surface_op=op,
                source_event_seqs=[session.seq - 1] if names_previous else None,
            )
    events = list(session.events)
    for invariants in (False, True):
        try:
            fresh = Session("probe-long-again", events, clock=clock, invariants=invariants)
        except Exception as error:
            raise Disagreement(f"re-seeding a long log (invariants={invariants}) raised {error!r}") from error
        made = [e.seq for e, given in zip(fresh.events, events, strict=True) if e is not given]
        require(not made, f"re-seeding with invariants={invariants} made new events for seqs {made[:10]}")


# -- hand-built events -------------------------------------------------------------------


def _short_records() -> list[dict[str, Any]]:
    """Log-only events, appends, a replace, and payloads with a lone surrogate (canonical
    text that only JavaScript's reading takes back: the event holds it in a form of its own)."""

    def message(text: str) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": text}], "source": {"kind": "user"}}

    rows: list[tuple[str, dict[str, Any], Any, Any]] = [
        ("probe/note", {"a": 1}, None, None),
        ("probe/note", {"b": [1, 2]}, None, None),
        ("user/message", message("one"), "append", None),
        ("user/message", message("two"), "append", None),
        ("user/message", message("both"), {"op": "replace", "start": 2, "end": 3}, [2, 3]),
        ("probe/note", {"t": "\ud800"}, None, None),
        ("user/message", message("lone \udc00"), "append", [4]),
    ]
    records = []
    for seq, (kind, data, op, refs) in enumerate(rows):
        record: dict[str, Any] = {"type": kind, "seq": seq, "time": 1000 + seq, "data": data}
        if refs is not None:
            record["sourceEventSeqs"] = refs
        if op is not None:
            record["surfaceOp"] = op
        records.append(record)
    return records


def seeded(
    seed: list[Any], clock: Clock, label: str, session_id: str = "probe"
) -> Session | InvalidEventError:
    """A session seeded with ``seed`` (read as an iterator), or the typed refusal; any other
    exception disagrees."""
    try:
        return Session(session_id, iter(seed), clock=clock)
    except InvalidEventError as error:
        return error
    except Exception as error:
        raise Disagreement(f"seeding with {label} raised {type(error).__name__}: {error}") from error


def seeded_alike(records: list[Any], clock: Clock, label: str, seed: list[Any] | None = None) -> list[Any]:
    """Seed a session with ``seed`` (default: ``records``) and the spec with ``records``:
    the same refusal, or the same log type-strictly. The seeded events (empty if refused)."""
    expected = dsh_spec.check_seed(records)
    outcome = seeded(records if seed is None else seed, clock, label)
    if isinstance(outcome, InvalidEventError):
        got = (outcome.code, outcome.seq)
        same = isinstance(expected, Rejection) and got == (expected.code, expected.seq)
        require(same, lambda: f"seed with {label} refused {got}: {outcome.message}; the spec: {expected}")
        return []
    require(not isinstance(expected, Rejection), lambda: f"seed with {label} accepted; the spec: {expected}")
    assert not isinstance(expected, Rejection)
    events = list(outcome.events)
    same_json([e.to_json() for e in events], [dsh_spec.event_json(e) for e in expected], f"seed with {label}")
    return events


def _rebuilt(event: LoggedEvent, **fields: Any) -> LoggedEvent:
    """``event`` built again by hand, with ``fields`` in place of its own."""
    given = {
        "type": event.type,
        "seq": event.seq,
        "time": event.time,
        "refs": event.source_event_seqs,
        "op": event.surface_op,
        "key_order": event.key_order,
        **fields,
    }
    return LoggedEvent(
        given["type"], given["seq"], given["time"], event.text, given["refs"], given["op"], given["key_order"]
    )


def _hand_built(events: list[Any], records: list[dict[str, Any]], clock: Clock) -> None:
    lone = [index for index, event in enumerate(events) if held(event) is None]
    require(lone == [5, 6], lambda: f"the lone-surrogate payloads are held in a form of their own: {lone}")
    replace = events[4].surface_op
    assert isinstance(replace, Replace)
    variants: list[tuple[int, str, dict[str, Any], dict[str, Any]]] = [
        # (index, what, the event's fields, the record's fields)
        (1, "seq True", {"seq": True}, {"seq": True}),
        (1, "a list for its type", {"type": ["probe/note"]}, {"type": ["probe/note"]}),
        (1, "a key order of its own", {"key_order": ("data", "time", "seq", "type")}, {}),
        (2, "a key order of its own", {"key_order": ("surfaceOp", "data", "time", "seq", "type")}, {}),
        (4, "a float replace start", {"op": tuple.__new__(Replace, (float(replace.start), replace.end))}, {}),
        (4, "a float replace end", {"op": tuple.__new__(Replace, (replace.start, float(replace.end)))}, {}),
        (4, "a replace as a mapping", {"op": {"op": "replace", "start": 2, "end": 3}}, {}),
        (5, "a float time", {"time": float(events[5].time)}, {}),
        (6, "a float time", {"time": float(events[6].time)}, {}),
    ]
    for index, what, fields, record_fields in variants:
        label = f"a hand-built event {index} with {what}"
        seed = [*events[:index], _rebuilt(events[index], **fields), *events[index + 1 :]]
        changed = [*records[:index], {**records[index], **record_fields}, *records[index + 1 :]]
        seeded_alike(changed, clock, label, seed)
    # Equal field for field, though not the same "append": the very event given is kept.
    built = _rebuilt(events[2], op="".join(["app", "end"]))
    seeded = seeded_alike(records, clock, "'append' built at run time", [*events[:2], built, *events[3:]])
    require(seeded[2] is built, "a hand-built event equal field for field to admission's is kept as given")


# -- broken records ----------------------------------------------------------------------


def _refused(records: list[Any], clock: Clock, label: str) -> InvalidEventError:
    """The session's refusal of a seed the spec refuses alike (code and seq)."""
    expected = dsh_spec.check_seed(records)
    outcome = seeded(records, clock, label)
    require(isinstance(expected, Rejection), lambda: f"the spec takes the seed with {label}")
    assert isinstance(expected, Rejection)
    require(
        isinstance(outcome, InvalidEventError),
        lambda: f"seed with {label} accepted; the spec refuses it: {expected}",
    )
    assert isinstance(outcome, InvalidEventError)
    got = (outcome.code, outcome.seq)
    require(
        got == (expected.code, expected.seq),
        lambda: f"seed with {label} refused {got}: {outcome.message}; the spec: {expected}",
    )
    return outcome


def _broken_records(records: list[dict[str, Any]], clock: Clock) -> None:
    def with_record(index: int, record: dict[str, Any]) -> list[Any]:
        return [*records[:index], record, *records[index + 1 :]]

    _refused(with_record(2, {**records[2], "seq": 1}), clock, "a seq one too low")
    _refused(with_record(1, {**records[1], "seq": True}), clock, "seq True")
    lacking = {key: value for key, value in records[1].items() if key != "time"}
    message = _refused(with_record(1, lacking), clock, "a record lacking time").message
    require("lacks time" in message, lambda: f"the message names the missing key: {message}")
    message = _refused(with_record(1, {**records[1], "bogus": 1}), clock, "an unknown key").message
    require("has unknown key(s) 'bogus'" in message, lambda: f"the message names the unknown key: {message}")
    message = _refused(with_record(1, {**lacking, "type": 5}), clock, "type 5, lacking time").message
    require(
        message.startswith("event at index 1 "),
        lambda: f"the message names no type when the record has no usable one: {message}",
    )
    for op in ("append", "Replace", ""):
        shaped = {**records[3], "surfaceOp": {"op": op, "start": 2, "end": 2}, "sourceEventSeqs": [2]}
        _refused(with_record(3, shaped), clock, f"a replace-shaped surfaceOp whose op is {op!r}")

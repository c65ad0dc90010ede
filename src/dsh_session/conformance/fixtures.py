"""Invalid-log fixtures: generated logs that break exactly one named rule, and valid ones beside them.

A fixture starts from a random but valid agent log (turns, steps, chunks,
tool calls and results, context and steering messages, compactions; the last
turn may stay open). A *mutation operator* for the chosen rule picks a place
in it and puts there one record that breaks that rule -- built from what the
spec's :class:`~dsh_spec.Trace` knows at that place (the open turn and step,
the surface, the pending calls). Whatever follows is kept as far as it adds
no second violation. Every fixture is checked against the spec before it is
kept:

- log rules (everything ``check_log`` reports): ``check_log`` returns exactly
  one violation, with the rule's code, and ``check_log`` of the base log
  returns none;
- the request-header rules: the fold refuses the log with the rule's code and
  ``check_log`` finds nothing;
- ``TOOL_PAIRING_CORRUPT``: the surface is corrupt for tool pairing and
  ``check_log`` finds nothing;
- store rules (``STORE_CORRUPT``, ``STORE_VERSION_UNSUPPORTED``,
  ``STORE_SCHEMA_MISMATCH``): a store holding a valid log, damaged in one
  place, is refused on load with the rule's code by the spec's model of the
  stores, and the undamaged store loads.

Codes that are not properties of a log or a store (the store and fork API,
runtime conditions) are listed in :data:`OUT_OF_SCOPE` with the reason.
Everything is deterministic for a given seed.
"""

from __future__ import annotations

import copy
import json
import os
import random
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from dsh_session.conformance.notation import *
from dsh_session.conformance.protocol import decode_args
from dsh_spec import (
    Rejection,
    Trace,
    check_event,
    check_log,
    check_seed,
    check_seed_with_invariants,
    cwd_bucket,
    encode_segment,
    fold_request_header,
    parse_record,
    tool_pairing_balanced,
    trace_of,
)
from dsh_spec.codes import Code

Json = Any


#: Registry codes no log or store can break, and why.
def _nested(depth: int) -> Any:
    """A value ``depth`` containers deep (inside ``data`` it is one deeper)."""
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


OUT_OF_SCOPE: Final = {
    Code.SESSION_ALREADY_EXISTS: "a rule of the store and backend API (an id already live or stored)",
    Code.SESSION_ALREADY_ENTERED: "a rule of the store API (one Session object in two stores)",
    Code.CWD_NOT_ABSOLUTE: "a rule of the store API (the cwd a session is created with)",
    Code.OBSERVER_FAILED: "a runtime condition of the store (an observer raising)",
    Code.SESSION_NOT_FOUND: "a lookup failure of the store and backend API",
    Code.SESSION_NOT_LIVE: "a rule of the fork API (a stale Session object)",
    Code.INVALID_BOUNDARY: "a rule of the fork API (the boundary argument)",
    Code.OPEN_TURN: "a rule of the fork API (the boundary must be a turn/end)",
    Code.INVALID_HEADER: "a rule of create (a stored header that no load reads is STORE_CORRUPT)",
    Code.STORE_UNREPRESENTABLE: "a limit of a backend when writing (file-name length, SQLite text)",
    Code.STORE_LOCKED: "a runtime condition (another process holding a lock)",
    Code.STORE_CONFLICT: "a runtime condition (two writers)",
    Code.STORE_IO: "a runtime condition (the operating system refusing a read or write)",
    Code.STORE_CLOSED: "a rule of the backend API (a closed backend)",
    Code.ID_COLLISION_CWD: "a rule of the write coordinator (a live session meeting a stored one)",
    Code.ID_COLLISION_HEADER: "a rule of the write coordinator (a live session meeting a stored one)",
    Code.ID_COLLISION_LOG: "a rule of the write coordinator (a live session meeting a stored one)",
    Code.SESSION_ALREADY_BOUND: "a rule of the write coordinator (one id, two live sessions)",
    Code.DRAIN_FAILED: "a runtime condition of the write coordinator (a write failing on close)",
    Code.STORE_UNREACHABLE: "a runtime condition (no database server answering)",
    Code.STORE_AUTH_FAILED: "a runtime condition (the server refusing the credentials)",
    Code.STORE_CONNECTION_LOST: "a runtime condition (the connection dropping mid-write)",
    Code.COPY_MISMATCH: "a rule of copying between backends (a destination that loads back otherwise)",
    # -- runtime checks, not rules of a log --
    Code.STATUS_REPEATED: "a runtime check of an agent's announced statuses, not of a log",
    Code.STATUS_LEFT_DISPOSED: "a runtime check of an agent's announced statuses, not of a log",
    Code.REQUEST_STEP_START_MISSING: "a runtime check of an LLM request against its log, not of a log",
    Code.REQUEST_HEADER_MISSING: "a runtime check of an LLM request against its log, not of a log",
    Code.REQUEST_MESSAGES_MISMATCH: "a runtime check of an LLM request against its log, not of a log",
    Code.REQUEST_HEADER_MISMATCH: "a runtime check of an LLM request against its log, not of a log",
}

HEADER_RULES: Final = (
    Code.HEADER_DELTA_BEFORE_SNAPSHOT,
    Code.MALFORMED_REQUEST_HEADER,
    Code.MALFORMED_HEADER_DELTA,
)
STORE_RULES: Final = (Code.STORE_CORRUPT, Code.STORE_VERSION_UNSUPPORTED, Code.STORE_SCHEMA_MISMATCH)
VALID: Final = "VALID"
CREATED: Final = 1_767_225_600_000


class FixtureError(Exception):
    """A rule the generator cannot serve, or a fixture the spec does not bear out."""


# -- base logs -------------------------------------------------------------------------------------


class _Builder:
    """A valid agent log under construction, with the surface it has so far."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.records: list[Record] = []
        self.surface: list[int] = []
        self.time = 1_767_225_646_000
        self.headers = False

    def add(self, record: Record) -> int:
        seq = len(self.records)
        self.time += self.rng.randint(1, 900)
        op = record.get("surfaceOp")
        if op == "append":
            self.surface.append(seq)
        elif isinstance(op, dict):
            first, last = self.surface.index(op["start"]), self.surface.index(op["end"])
            self.surface[first : last + 1] = [seq]
        self.records.append(_stamped(record, seq, self.time))
        return seq


def _stamped(record: Record, seq: int, time: int) -> Record:
    """``record``'s type, data and surface keys with ``seq`` and ``time``, in the order append writes."""
    out: Record = {"type": record["type"], "seq": seq, "time": time, "data": record["data"]}
    for key in ("sourceEventSeqs", "surfaceOp"):
        if key in record:
            out[key] = record[key]
    return out


def base_log(rng: random.Random) -> list[Record]:
    """A valid agent log (it keeps every invariant)."""
    b = _Builder(rng)
    turns = rng.randint(1, 3)
    for turn in range(1, turns + 1):
        injection = rng.random() < 0.2
        trigger = {"kind": "injection" if injection else "message", "source": {"kind": "user"}}
        b.add(TS(turn, trigger))
        b.add(CTX(f"note {turn}", kind="plugin") if injection else U(f"question {turn}"))
        if len(b.surface) >= 2 and rng.random() < 0.4:
            start = rng.randrange(len(b.surface) - 1)
            end = rng.randrange(start, len(b.surface))
            shadowed = b.surface[start : end + 1]
            b.add(EV("compact/start", {"turn": turn}))
            b.add(replace(U("summary"), b.surface[start], b.surface[end], *shadowed))
            b.add(EV("compact/end", {"turn": turn}))
        last = turn == turns and rng.random() < 0.3
        for step in range(1, rng.randint(0, 2) + 1):
            b.add(SS(turn, step))
            if not b.headers:
                b.add(
                    EV(
                        "request/header",
                        {"header": {"config": {"model": "m"}, "system": "s"}, "reason": "initial"},
                    )
                )
                b.headers = True
            elif rng.random() < 0.3:
                b.add(EV("request/header-delta", {"config": {"model": f"m{turn}.{step}"}}))
            for _ in range(rng.randint(0, 2)):
                b.add(CH(turn, step))
            calls = [f"t{turn}s{step}c{n}" for n in range(rng.randint(0, 2))]
            b.add(A(turn, step, *calls, say=f"answer {turn}.{step}"))
            for call in calls:
                b.add(TC(turn, step, call))
            for call in calls:
                if rng.random() < 0.85:
                    b.add(TR(turn, step, call, error=rng.random() < 0.2))
            if rng.random() < 0.3:
                b.add(ST(turn) if rng.random() < 0.5 else CTX("mid-step"))
            if last and rng.random() < 0.5:
                return b.records
            b.add(SE(turn, step))
        if rng.random() < 0.3:
            b.add(EV("todo/write", {"todos": [{"content": "x", "status": "pending"}]}))
        if last:
            return b.records
        reason = rng.choice([{"kind": "completed"}, {"kind": "max-tokens"}, {"kind": "aborted"}])
        b.add(TE(turn, reason))
    return b.records


# -- where a record goes, and what the spec knows there --------------------------------------------


@dataclass(frozen=True)
class Place:
    """Position ``index`` of a log (the seq a new record there gets), and the trace before it."""

    index: int
    trace: Trace
    prefix: list[Record]

    @property
    def turn_open(self) -> bool:
        return self.trace.open_turn is not None

    @property
    def step_open(self) -> bool:
        return self.trace.open_step is not None


def places(records: list[Record]) -> list[Place]:
    """Every position of a valid log, with the trace of the records before it."""
    out = []
    trace = Trace()
    for index, record in enumerate(records):
        out.append(Place(index, trace, records[:index]))
        draft = parse_record(index, record)
        assert not isinstance(draft, Rejection)
        checked = check_event(trace, index, draft)
        assert not isinstance(checked, Rejection)
        trace = checked[1]
    out.append(Place(len(records), trace, list(records)))
    return out


def numbered(place: Place, record: Record, **top: Any) -> Record:
    """``record`` as the record at ``place`` (its seq, a time after the one before)."""
    before = place.prefix[-1]["time"] if place.prefix else CREATED
    return X(_stamped(record, place.index, before + 1), top)


def _t(place: Place) -> int:
    turn = place.trace.open_turn
    return turn if turn is not None else place.trace.next_turn


def _s(place: Place) -> int:
    step = place.trace.open_step
    return step if step is not None else place.trace.next_step


def _a_node(place: Place) -> int | None:
    return place.trace.surface.order[-1] if place.trace.surface.order else None


Operator = Callable[[Place, random.Random], Record | None]
"""Builds the bad record for a place, or ``None`` when the place does not suit the rule."""


def _in_turn(make: Operator) -> Operator:
    return lambda place, rng: make(place, rng) if place.turn_open else None


def _in_step(make: Operator) -> Operator:
    return lambda place, rng: make(place, rng) if place.step_open else None


def _between_steps(make: Operator) -> Operator:
    return lambda place, rng: make(place, rng) if place.turn_open and not place.step_open else None


def _between_turns(make: Operator) -> Operator:
    return lambda place, rng: make(place, rng) if not place.turn_open else None


def _with_nodes(count: int, make: Operator) -> Operator:
    return lambda place, rng: (
        make(place, rng) if place.turn_open and len(place.trace.surface.order) >= count else None
    )


def _replace_record(place: Place, start: int, end: int, sources: Sequence[int]) -> Record:
    record = numbered(place, U("summary"), surfaceOp={"op": "replace", "start": start, "end": end})
    if sources:
        record["sourceEventSeqs"] = list(sources)
    return record


def _span(place: Place, rng: random.Random) -> tuple[int, int, list[int]]:
    order = place.trace.surface.order
    first = rng.randrange(len(order))
    last = rng.randrange(first, len(order))
    return order[first], order[last], list(order[first : last + 1])


def _log_only_seq(place: Place) -> int | None:
    surface = set(place.trace.surface.order)
    candidates = [r["seq"] for r in place.prefix if r["seq"] not in surface]
    return candidates[0] if candidates else None


def _operators() -> dict[Code, list[tuple[str, Operator, bool]]]:
    """Per rule: (name, operator, representable as a SQLite row)."""
    c = Code
    n = numbered
    return {
        c.MALFORMED_EVENT: [
            ("missing-time", _in_turn(lambda p, r: n(p, U("x"), time=DROP)), False),
            ("type-not-a-string", _in_turn(lambda p, r: n(p, U("x"), type=7)), False),
            ("type-empty", _in_turn(lambda p, r: n(p, U("x"), type="")), True),
            ("unknown-key", _in_turn(lambda p, r: n(p, U("x"), note="extra")), False),
            (
                "time-a-fraction",
                _in_turn(lambda p, r: n(p, EV("todo/write", {"todos": []}), time=1.5)),
                False,
            ),
        ],
        c.SEQ_NOT_CONTIGUOUS: [
            (
                "gap",
                lambda p, r: n(p, U("x") if p.turn_open else TS(p.trace.next_turn), seq=p.index + 1),
                True,
            ),
        ],
        c.SEQ_NOT_INCREASING: [
            (
                "repeat",
                lambda p, r: (
                    n(p, U("x") if p.turn_open else TS(p.trace.next_turn), seq=p.index - 1)
                    if p.index
                    else None
                ),
                False,
            ),
        ],
        c.NON_JSON_DATA: [
            (
                "infinite-number",
                _in_turn(lambda p, r: n(p, D(U("x"), extra={"v": {"$nonjson": "infinity"}}))),
                True,
            ),
        ],
        c.DATA_TOO_DEEP: [
            ("nested-201-deep", _in_turn(lambda p, r: n(p, D(U("x"), extra=_nested(200)))), True),
        ],
        c.INVALID_PAYLOAD: [
            ("content-a-string", _in_turn(lambda p, r: n(p, D(U("x"), content="x"))), True),
            (
                "result-without-is-error",
                _in_step(lambda p, r: n(p, D(TRI(_t(p), _s(p), "x"), isError=DROP))),
                True,
            ),
            ("context-without-source", _in_turn(lambda p, r: n(p, D(CTX("x"), source=DROP))), True),
        ],
        c.PROVENANCE_ON_LOG_ONLY_TYPE: [
            (
                "on-todo",
                _in_turn(lambda p, r: n(p, EV("todo/write", {"todos": []}), sourceEventSeqs=[0])),
                True,
            ),
        ],
        c.SURFACE_OP_ON_LOG_ONLY_TYPE: [
            (
                "on-todo",
                _in_turn(lambda p, r: n(p, EV("todo/write", {"todos": []}), surfaceOp="append")),
                True,
            ),
            ("on-chunk", _in_step(lambda p, r: n(p, CH(_t(p), _s(p)), surfaceOp="append")), True),
        ],
        c.MISSING_SURFACE_OP: [
            ("user", _in_turn(lambda p, r: n(p, U("x"), surfaceOp=DROP)), True),
            ("assistant", _in_step(lambda p, r: n(p, A(_t(p), _s(p)), surfaceOp=DROP)), True),
        ],
        c.MALFORMED_SURFACE_OP: [
            ("misspelt", _in_turn(lambda p, r: n(p, U("x"), surfaceOp="Append")), True),
            ("null", _in_turn(lambda p, r: n(p, U("x"), surfaceOp=None)), True),
            (
                "other-op",
                _with_nodes(
                    1,
                    lambda p, r: n(
                        p, U("x"), surfaceOp={"op": "delete", "start": _a_node(p), "end": _a_node(p)}
                    ),
                ),
                True,
            ),
        ],
        c.MALFORMED_PROVENANCE: [
            ("string-entry", _in_turn(lambda p, r: n(p, U("x"), sourceEventSeqs=["0"])), True),
            ("null", _in_turn(lambda p, r: n(p, U("x"), sourceEventSeqs=None)), True),
        ],
        c.PROVENANCE_EMPTY: [("empty", _in_turn(lambda p, r: n(p, U("x"), sourceEventSeqs=[])), True)],
        c.PROVENANCE_DUPLICATE: [
            ("twice", _in_turn(lambda p, r: n(p, U("x"), sourceEventSeqs=[p.index - 1, p.index - 1])), True),
        ],
        c.PROVENANCE_NOT_EARLIER: [
            ("self", _in_turn(lambda p, r: n(p, U("x"), sourceEventSeqs=[p.index])), True),
            ("future", _in_turn(lambda p, r: n(p, U("x"), sourceEventSeqs=[p.index + 3])), True),
        ],
        c.PROVENANCE_UNKNOWN_SEQ: [
            ("negative", _in_turn(lambda p, r: n(p, U("x"), sourceEventSeqs=[-1])), True)
        ],
        c.REPLACE_START_NOT_ON_SURFACE: [
            (
                "log-only-start",
                _with_nodes(
                    1,
                    lambda p, r: (
                        _replace_record(p, s, _a_node(p) or 0, [s, *p.trace.surface.order])
                        if (s := _log_only_seq(p)) is not None
                        else None
                    ),
                ),
                True,
            ),
        ],
        c.REPLACE_END_NOT_ON_SURFACE: [
            (
                "end-beyond",
                _with_nodes(
                    1,
                    lambda p, r: _replace_record(
                        p, p.trace.surface.order[0], p.index + 7, list(p.trace.surface.order)
                    ),
                ),
                True,
            ),
        ],
        c.REPLACE_RANGE_REVERSED: [
            (
                "reversed",
                _with_nodes(
                    2,
                    lambda p, r: _replace_record(
                        p, p.trace.surface.order[-1], p.trace.surface.order[0], list(p.trace.surface.order)
                    ),
                ),
                True,
            ),
        ],
        c.REPLACE_PROVENANCE_INCOMPLETE: [
            (
                "one-missing",
                _with_nodes(
                    1, lambda p, r: (lambda s: _replace_record(p, s[0], s[1], s[2][1:]))(_span(p, r))
                ),
                True,
            ),
        ],
        c.MALFORMED_STRUCTURE_FIELD: [
            (
                "turn-a-string",
                _between_turns(lambda p, r: n(p, D(TS(p.trace.next_turn), turn=str(p.trace.next_turn)))),
                True,
            ),
            ("step-missing", _between_steps(lambda p, r: n(p, D(SS(_t(p), _s(p)), step=DROP))), True),
            ("call-id-missing", _in_step(lambda p, r: n(p, D(TC(_t(p), _s(p), "x"), callId=DROP))), True),
        ],
        c.TURN_ALREADY_OPEN: [("second-start", _in_turn(lambda p, r: n(p, TS(p.trace.next_turn + 1))), True)],
        c.TURN_OUT_OF_ORDER: [
            ("skipped", _between_turns(lambda p, r: n(p, TS(p.trace.next_turn + 1))), True),
            (
                "reused",
                _between_turns(
                    lambda p, r: n(p, TS(p.trace.next_turn - 1)) if p.trace.next_turn > 1 else None
                ),
                True,
            ),
        ],
        c.TURN_END_MISMATCH: [
            ("other-turn", _between_steps(lambda p, r: n(p, TE(_t(p) + 1))), True),
            ("none-open", _between_turns(lambda p, r: n(p, TE(p.trace.next_turn))), True),
        ],
        c.TURN_END_STEP_OPEN: [("step-open", _in_step(lambda p, r: n(p, TE(_t(p)))), True)],
        c.STEP_TURN_MISMATCH: [
            ("other-turn", _between_steps(lambda p, r: n(p, SS(_t(p) + 1, _s(p)))), True),
            ("no-turn", _between_turns(lambda p, r: n(p, SS(p.trace.next_turn, 1))), True),
        ],
        c.STEP_ALREADY_OPEN: [("second-start", _in_step(lambda p, r: n(p, SS(_t(p), _s(p) + 1))), True)],
        c.STEP_OUT_OF_ORDER: [("skipped", _between_steps(lambda p, r: n(p, SS(_t(p), _s(p) + 1))), True)],
        c.STEP_NOT_OPEN: [
            ("chunk-between-steps", _between_steps(lambda p, r: n(p, CH(_t(p), _s(p)))), True),
            ("assistant-wrong-step", _in_step(lambda p, r: n(p, A(_t(p), _s(p) + 1))), True),
            ("step-end-none-open", _between_steps(lambda p, r: n(p, SE(_t(p), _s(p)))), True),
        ],
        c.TOOL_RESULT_UNPAIRED: [
            ("no-call", _in_step(lambda p, r: n(p, TR(_t(p), _s(p), "ghost"))), True),
        ],
        c.EVENT_OUTSIDE_TURN: [
            ("user", _between_turns(lambda p, r: n(p, U("x"))), True),
            ("todo", _between_turns(lambda p, r: n(p, EV("todo/write", {"todos": []}))), True),
        ],
        # -- request-header rules: the fold refuses the log ----------------------------------
        c.HEADER_DELTA_BEFORE_SNAPSHOT: [
            (
                "delta-first",
                _in_step(
                    lambda p, r: (
                        n(p, EV("request/header-delta", {"config": {"model": "m"}}))
                        if _no_header(p)
                        else None
                    )
                ),
                True,
            ),
        ],
        c.MALFORMED_REQUEST_HEADER: [
            (
                "no-config",
                _in_step(
                    lambda p, r: n(p, EV("request/header", {"header": {"system": "s"}, "reason": "initial"}))
                ),
                True,
            ),
        ],
        c.MALFORMED_HEADER_DELTA: [
            (
                "negative-keep",
                _in_step(
                    lambda p, r: (
                        n(
                            p,
                            EV(
                                "request/header-delta",
                                {"system": {"keepStart": -1, "keepEnd": 0, "insert": []}},
                            ),
                        )
                        if not _no_header(p)
                        else None
                    )
                ),
                True,
            ),
        ],
        # -- tool pairing: a result on the surface that answers no call block ----------------
        c.TOOL_PAIRING_CORRUPT: [
            ("result-without-block", _pairing_is_made_whole, True),
        ],
    }


def _pairing_is_made_whole(place: Place, rng: random.Random) -> Record | None:
    """Never used: a tool-pairing fixture needs two records (see :func:`_pairing`)."""
    return None


def _no_header(place: Place) -> bool:
    return not any(record.get("type") == "request/header" for record in place.prefix)


# -- fixtures --------------------------------------------------------------------------------------


@dataclass
class Fixture:
    """One generated log (or store) and what the spec says about it."""

    id: str
    rule: str  # a registry code, or VALID
    kind: str  # "valid", "log", "header", "pairing", "store"
    operator: str
    records: list[Json]
    seq: int | None = None
    violations: list[dict[str, Json]] = field(default_factory=list)
    seed_code: str | None = None  # what seeding a session with live invariants refuses it with
    plain_code: str | None = None  # ... and a plain session
    store: dict[str, Json] | None = None  # store fixtures: {format, damage}
    base: list[Json] = field(default_factory=list)  # the valid log it was made from

    def manifest(self) -> dict[str, Json]:
        out: dict[str, Json] = {
            "id": self.id,
            "rule": self.rule,
            "kind": self.kind,
            "operator": self.operator,
            "seq": self.seq,
            "checkLog": self.violations,
            "seedWithInvariants": self.seed_code,
            "seed": self.plain_code,
        }
        if self.store is not None:
            out["store"] = self.store
        return out


def _first_code(result: Any) -> str | None:
    return result.code.value if isinstance(result, Rejection) else None


def _real(records: list[Json]) -> list[Json]:
    """The records with every ``$nonjson`` placeholder made the value it stands for (what the spec sees)."""
    decoded: list[Json] = decode_args(records)
    return decoded


def _describe(records: list[Json]) -> tuple[list[dict[str, Json]], str | None, str | None]:
    real = _real(records)
    found = [{"code": r.code.value, "seq": r.seq} for r in check_log(real)]
    return found, _first_code(check_seed_with_invariants(real)), _first_code(check_seed(real))


def _kind(rule: Code) -> str:
    if rule in HEADER_RULES:
        return "header"
    if rule is Code.TOOL_PAIRING_CORRUPT:
        return "pairing"
    if rule in STORE_RULES:
        return "store"
    return "log"


def in_scope() -> list[Code]:
    return [code for code in Code if code not in OUT_OF_SCOPE]


def _trim(records: list[Json], rule: Code) -> list[Json] | None:
    """Cut the log before a second violation; ``None`` when the first is not ``rule``'s."""
    while True:
        found = check_log(_real(records))
        if not found or found[0].code is not rule:
            return None
        if len(found) == 1:
            return records
        second = found[1]
        cut = next(
            (
                i
                for i, r in enumerate(records)
                if isinstance(r, dict) and r.get("seq") == second.seq and i > 0
            ),
            None,
        )
        if cut is None:
            return None
        records = records[:cut]


def _shifted(records: list[Json], by: int = 1) -> list[Json]:
    """Records moved ``by`` seqs later (their seqs, provenance and replace endpoints)."""
    out = []
    for record in copy.deepcopy(records):
        record["seq"] += by
        refs = record.get("sourceEventSeqs")
        if isinstance(refs, list):
            record["sourceEventSeqs"] = [
                ref + by if isinstance(ref, int) and ref >= 0 else ref for ref in refs
            ]
        op = record.get("surfaceOp")
        if isinstance(op, dict):
            op["start"] += by
            op["end"] += by
        out.append(record)
    return out


def _mutated(
    base: list[Record], rule: Code, rng: random.Random, sqlite: bool
) -> tuple[str, list[Json]] | None:
    """Insert one bad record into ``base`` (keeping what follows where possible)."""
    if rule is Code.TOOL_PAIRING_CORRUPT:
        return _pairing(base, rng)
    options = [(name, op) for name, op, row in _operators()[rule] if row or not sqlite]
    spots = places(base)
    rng.shuffle(spots)
    for place in spots:
        for name, operator in rng.sample(options, len(options)):
            bad = operator(place, rng)
            if bad is None:
                continue
            records = [*place.prefix, bad, *_shifted(base[place.index :])]
            if _kind(rule) == "header":
                if check_log(_real(records)) or _header_code(records) != rule.value:
                    records = [*place.prefix, bad]
                if not check_log(_real(records)) and _header_code(records) == rule.value:
                    return name, records
                continue
            kept = _trim(records, rule)
            if kept is not None:
                return name, kept
    return None


def _header_code(records: list[Json]) -> str | None:
    events = check_seed(_real(records))
    if isinstance(events, Rejection):
        return None
    return _first_code(fold_request_header(events))


def _pairing(base: list[Record], rng: random.Random) -> tuple[str, list[Json]] | None:
    """A tool/call and its result with no tool-call block: the invariants hold, the surface is corrupt."""
    for place in sorted(places(base), key=lambda p: rng.random()):
        if not place.step_open:
            continue
        turn, step = place.trace.open_turn, place.trace.open_step
        call = numbered(place, TC(turn, step, "orphan"))
        result = numbered(
            Place(place.index + 1, place.trace, [*place.prefix, call]), TR(turn, step, "orphan")
        )
        records = [*place.prefix, call, result, *_shifted(base[place.index :], 2)]
        events = check_seed(records)
        if check_log(records) or isinstance(events, Rejection):
            continue
        if _first_code(tool_pairing_balanced(events)) == Code.TOOL_PAIRING_CORRUPT.value:
            return "result-without-block", records
    return None


FORMATS: Final = ("case", "jsonl", "sqlite")


def generate(
    seed: int,
    count: int,
    rules: Iterable[str] | None = None,
    *,
    format: str = "case",
    workdir: str | None = None,
) -> list[Fixture]:
    """``count`` fixtures for every rule asked for (default: every in-scope rule, and valid logs).

    ``format`` is where they go: ``sqlite`` keeps to records a SQLite row can hold and stores the
    store fixtures as databases; ``jsonl`` cannot hold a SQLite schema. Raises :class:`FixtureError`
    for a rule that is out of scope, unknown or not representable, or when no fixture can be made.
    """
    if format not in FORMATS:
        raise FixtureError(f"format must be one of {FORMATS}")
    wanted = _rules(rules)
    if rules is None:
        wanted = [rule for rule in wanted if representable(rule, format)]
    for rule in wanted:
        if not representable(rule, format):
            raise FixtureError(f"{rule} cannot be broken in a {format} store")
    rng = random.Random(seed)
    fixtures: list[Fixture] = []
    for rule in wanted:
        for number in range(1, count + 1):
            name = VALID.lower() if rule == VALID else Code(rule).value.lower().replace("_", "-")
            fixtures.append(_one(f"{name}-{number}", rule, rng, format, workdir))
    return fixtures


def representable(rule: str, format: str) -> bool:
    """Whether a fixture breaking ``rule`` can be written as ``format`` (a SQLite row has typed
    columns and a unique seq; a JSONL tree has no schema)."""
    if rule == VALID:
        return True
    code = Code(rule)
    if code is Code.STORE_SCHEMA_MISMATCH:
        return format != "jsonl"
    if format != "sqlite" or code in STORE_RULES or code is Code.TOOL_PAIRING_CORRUPT:
        return True
    return any(row for _name, _op, row in _operators()[code])


def _rules(rules: Iterable[str] | None) -> list[str]:
    if rules is None:
        return [VALID, *(code.value for code in in_scope())]
    out = []
    for rule in rules:
        name = rule.upper().replace("-", "_")
        if name == VALID:
            out.append(VALID)
            continue
        try:
            code = Code(name)
        except ValueError:
            raise FixtureError(f"{rule!r} is not a registry code") from None
        if code in OUT_OF_SCOPE:
            raise FixtureError(f"{code.value} is out of scope for fixtures: {OUT_OF_SCOPE[code]}")
        out.append(code.value)
    return out


def _one(fixture_id: str, rule: str, rng: random.Random, format: str, workdir: str | None) -> Fixture:
    sqlite = format == "sqlite"
    for _attempt in range(40):
        base = base_log(rng)
        if check_log(base):  # pragma: no cover - the builder makes valid logs
            raise FixtureError(f"{fixture_id}: the base log is not valid: {check_log(base)}")
        if rule == VALID:
            fixture = _fixture(fixture_id, rule, "valid", "none", base)
        elif Code(rule) in STORE_RULES:
            fixture = _store_fixture(fixture_id, Code(rule), base, rng, format, workdir)
        else:
            made = _mutated(base, Code(rule), rng, sqlite)
            if made is None:
                continue
            fixture = _fixture(fixture_id, rule, _kind(Code(rule)), made[0], made[1])
            _verify(fixture, Code(rule))
        fixture.base = base
        return fixture
    raise FixtureError(f"{fixture_id}: no base log suited the rule {rule}")


def _fixture(fixture_id: str, rule: str, kind: str, operator: str, records: list[Json]) -> Fixture:
    violations, seed_code, plain = _describe(records)
    seq = violations[0]["seq"] if violations else None
    return Fixture(fixture_id, rule, kind, operator, records, seq, violations, seed_code, plain)


def _verify(fixture: Fixture, code: Code) -> None:
    """The spec bears the fixture out: exactly one rule broken, the one named."""
    if fixture.kind == "log":
        if [v["code"] for v in fixture.violations] != [code.value]:
            raise FixtureError(f"{fixture.id}: check_log gives {fixture.violations}")
    elif fixture.kind == "header":
        if fixture.violations or _header_code(fixture.records) != code.value:
            raise FixtureError(f"{fixture.id}: not a header-fold fixture for {code.value}")
    elif fixture.kind == "pairing":
        events = check_seed(fixture.records)
        if (
            fixture.violations
            or isinstance(events, Rejection)
            or _first_code(tool_pairing_balanced(events)) != code
        ):
            raise FixtureError(f"{fixture.id}: not a tool-pairing fixture")


# -- store fixtures ----------------------------------------------------------------------------------


def _store_fixture(
    fixture_id: str, code: Code, base: list[Record], rng: random.Random, format: str, workdir: str | None
) -> Fixture:
    """A valid log stored, then damaged in one place that a load refuses with ``code``."""
    records = list(base)
    store = "sqlite" if format == "sqlite" or code is Code.STORE_SCHEMA_MISMATCH else "jsonl"
    if code is Code.STORE_SCHEMA_MISMATCH and format == "jsonl":
        raise FixtureError(f"{fixture_id}: STORE_SCHEMA_MISMATCH is a rule of SQLite stores")
    if code is Code.STORE_CORRUPT:
        if not any(r["type"] == "turn/end" for r in records):
            records = [*records, *_closing(records)]
        last_end = max(i for i, r in enumerate(records) if r["type"] == "turn/end")
        # a line before the last turn/end: damaging that line itself would only tear the tail
        damage: dict[str, Json] = {"kind": "unparsable", "at": rng.randrange(last_end)}
    elif code is Code.STORE_VERSION_UNSUPPORTED:
        damage = {"kind": "header-version", "version": rng.choice([1, 2, 99])}
    else:
        damage = {"kind": "user-version", "version": rng.choice([1, 2, 3])}  # 5+: a later harness
    fixture = _fixture(fixture_id, code.value, "store", damage["kind"], records)
    fixture.store = {"format": store, "damage": damage}
    got = verify_store(fixture, workdir)
    if got != code.value:
        raise FixtureError(f"{fixture_id}: the damaged store loads with {got}, not {code.value}")
    fixture.store = {"format": store, "damage": None}
    if verify_store(fixture, workdir) is not None:
        raise FixtureError(f"{fixture_id}: the undamaged store does not load")
    fixture.store = {"format": store, "damage": damage}
    return fixture


def _closing(records: list[Record]) -> list[Record]:
    """Records that close the log's open step and turn (so a committed region exists)."""
    events = check_seed(records)
    assert isinstance(events, tuple)
    trace = trace_of(events)
    assert isinstance(trace, Trace)
    place = Place(len(records), trace, records)
    out = []
    if trace.open_step is not None:
        out.append(numbered(place, SE(trace.open_turn, trace.open_step)))
        place = Place(place.index + 1, trace, [*records, *out])
    if trace.open_turn is not None:
        out.append(numbered(place, TE(trace.open_turn)))
    return out


def store_header(fixture: Fixture) -> dict[str, Json]:
    return {"version": 0, "id": fixture.id, "createdAt": CREATED}


def _record_text(record: Json) -> str:
    """The JSON text of a stored record as JavaScript writes it; an infinite number as ``1e400``."""
    from dsh_session.js_json import dumps

    marker = "\u0000nonjson-infinity\u0000"

    def swap(value: Json) -> Json:
        if isinstance(value, dict):
            if set(value) == {"$nonjson"}:
                return marker if value["$nonjson"] == "infinity" else value
            return {key: swap(item) for key, item in value.items()}
        if isinstance(value, list):
            return [swap(item) for item in value]
        return value

    return dumps(swap(record)).replace(json.dumps(marker), "1e400")


def write_jsonl(fixture: Fixture, root: Path) -> str:
    """Store the fixture as a JSONL root under ``root`` with our backend (the admissible part),
    the rest as raw lines; returns the log's path relative to ``root``."""
    from dsh_session import JsonlBackend

    header, stored, rest = _store_admissible(JsonlBackend(root), fixture)
    segment = encode_segment(fixture.id)
    assert isinstance(segment, str)
    relative = f"{cwd_bucket(None)}/{segment}.jsonl"
    path = root / relative
    if not stored:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"type": "session", **header}, separators=(",", ":")) + "\n", "utf-8")
    lines = [_record_text(record) for record in rest]
    if lines:
        with path.open("a", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write("".join(line + "\n" for line in lines))
    damage = (fixture.store or {}).get("damage")
    if damage is not None:
        _damage_jsonl(path, damage)
    return relative


def _damage_jsonl(path: Path, damage: dict[str, Json]) -> None:
    lines = path.read_bytes().split(b"\n")
    if damage["kind"] == "unparsable":
        lines[1 + damage["at"]] = lines[1 + damage["at"]][:-7] + b"#broken"
    elif damage["kind"] == "header-version":
        lines[0] = lines[0].replace(b'"version":0', b'"version":%d' % damage["version"], 1)
    path.write_bytes(b"\n".join(lines))


def write_sqlite(fixture: Fixture, database: Path) -> None:
    """Store the fixture in a SQLite database with our backend (the admissible part), the rest as raw rows."""
    from dsh_session import SqliteBackend

    header, stored, rest = _store_admissible(SqliteBackend(database, journal_mode="delete"), fixture)
    conn = sqlite3.connect(str(database), isolation_level=None)
    try:
        if not stored:
            conn.execute(
                "INSERT INTO sessions (id, version, created_at) VALUES (?, 0, ?)",
                (fixture.id, header["createdAt"]),
            )
        for record in rest:
            conn.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", _row(fixture.id, record))
        damage = (fixture.store or {}).get("damage")
        if damage is not None:
            if damage["kind"] == "unparsable":
                conn.execute(
                    "UPDATE events SET data = '{broken' WHERE session_id = ? AND seq = ?",
                    (fixture.id, damage["at"]),
                )
            elif damage["kind"] == "header-version":
                conn.execute("UPDATE sessions SET version = ? WHERE id = ?", (damage["version"], fixture.id))
            elif damage["kind"] == "user-version":
                conn.execute(f"PRAGMA user_version = {int(damage['version'])}")
    finally:
        conn.close()


def _row(session_id: str, record: Json) -> tuple[Any, ...]:
    def text_of(key: str) -> str | None:
        return _record_text(record[key]) if key in record else None

    return (
        session_id,
        record["seq"],
        record["type"],
        record["time"],
        _record_text(record["data"]),
        text_of("sourceEventSeqs"),
        text_of("surfaceOp"),
    )


def _store_admissible(backend: Any, fixture: Fixture) -> tuple[dict[str, Json], bool, list[Json]]:
    """Store the fixture's header and the admissible part of its log with our ``backend`` (closed
    after): the header, whether any event went in, and the records left to write raw."""
    header = store_header(fixture)
    prefix, rest = _admissible_split(fixture.records)
    with backend:
        backend.create(_session_header(header))
        if prefix:
            backend.append(fixture.id, prefix)
    return header, bool(prefix), rest


def _admissible_split(records: list[Json]) -> tuple[list[Any], list[Json]]:
    """The events our backend can store (the longest admissible prefix), and the records after it."""
    from dsh_session import Session

    plain = check_seed(_real(records))
    cut = len(records) if not isinstance(plain, Rejection) else (plain.seq if plain.seq is not None else 0)
    session = Session("fixture", seed=records[:cut], clock=lambda: 0)
    return list(session.events), records[cut:]


def _session_header(header: dict[str, Json]) -> Any:
    from dsh_session import SessionHeader

    return SessionHeader(id=header["id"], created_at=header["createdAt"])


def verify_store(fixture: Fixture, workdir: str | None = None) -> str | None:
    """Write the fixture's store to a temporary place and load it with the spec's model of the stores:
    the code the load refuses it with, or ``None`` when it loads."""
    from dsh_spec.persistence import ModelBackend
    from dsh_spec.refusal import Refused

    with tempfile.TemporaryDirectory(dir=workdir) as scratch:
        sqlite = (fixture.store or {}).get("format") == "sqlite"
        path = os.path.join(scratch, "store.db" if sqlite else "root")
        if sqlite:
            write_sqlite(fixture, Path(path))
        else:
            write_jsonl(fixture, Path(path))
        try:
            backend = ModelBackend.open("sqlite" if sqlite else "jsonl", path, 1.0)
            try:
                backend.load(fixture.id)
            finally:
                backend.close()
        except Refused as error:
            return error.code.value
    return None


# -- output -----------------------------------------------------------------------------------------


def artifact_name(fixture: Fixture) -> str:
    """Where a store fixture's store sits under ``artifacts/``."""
    sqlite = (fixture.store or {}).get("format") == "sqlite"
    return f"fixtures/{fixture.id}.sql" if sqlite else f"fixtures/{fixture.id}"


def artifact_files(fixture: Fixture, workdir: str | None = None) -> dict[str, bytes]:
    """The files (relative to ``artifacts/``) of a store fixture: a JSONL tree, or a SQLite database
    as SQL text; nothing for the others."""
    if fixture.store is None:
        return {}
    with tempfile.TemporaryDirectory(dir=workdir) as scratch:
        if fixture.store["format"] == "sqlite":
            database = Path(scratch) / "store.db"
            write_sqlite(fixture, database)
            return {artifact_name(fixture): sql_text(database).encode("utf-8")}
        root = Path(scratch) / "root"
        relative = write_jsonl(fixture, root)
        return {f"{artifact_name(fixture)}/{relative}": (root / relative).read_bytes()}


def sql_text(database: Path) -> str:
    """A database as SQL text that rebuilds it: ``PRAGMA user_version`` and the dump."""
    conn = sqlite3.connect(str(database))
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        dump = "\n".join(conn.iterdump())
    finally:
        conn.close()
    return f"PRAGMA user_version = {version};\n{dump}\n"


def fixture_scenario(fixture: Fixture) -> Any:
    """The conformance case of a fixture: what ``check_log``, seeding and loading must say."""
    from dsh_session.conformance import scenario as s

    refs = ["dsh_session.conformance.fixtures", "docs/conformance.md (fixtures)"]
    records = fixture.records
    steps: list[s.Act] = []
    if fixture.kind == "valid":
        title = "A generated valid log keeps every rule"
        steps = [s.check(records).gives([]), s.new(records, invariants=True), *s.reads()]
        refs.insert(0, "dsh_spec.invariants.check_log")
    elif fixture.kind == "log":
        title = f"A generated log breaking only {fixture.rule} (the record at seq {fixture.seq})"
        steps = [s.check(records).gives(fixture.violations)]
        assert fixture.seed_code is not None
        steps.append(s.new(records, invariants=True).fails(Code(fixture.seed_code)))
        plain = s.new(records, session="plain")
        steps.append(plain.fails(Code(fixture.plain_code)) if fixture.plain_code else plain)
        refs.insert(0, "dsh_spec.invariants.check_log")
    elif fixture.kind == "header":
        title = f"A generated log whose request headers break {fixture.rule}"
        steps = [s.check(records).gives([]), s.new(records), s.request_header().fails(Code(fixture.rule))]
        refs.insert(0, "dsh_spec.request_header.fold_request_header")
    elif fixture.kind == "pairing":
        title = "A generated log whose surface holds a tool result no call block made"
        steps = [s.check(records).gives([]), s.new(records), s.balanced(None).fails(Code(fixture.rule))]
        refs.insert(0, "dsh_spec.tool_pairing.tool_pairing_balanced")
    else:
        assert fixture.store is not None
        kind = fixture.store["format"]
        title = f"A generated {kind} store damaged to break {fixture.rule} ({fixture.operator})"
        opened = s.Act("persist.open", {"kind": kind, "path": {"$artifact": artifact_name(fixture)}})
        if fixture.rule == Code.STORE_SCHEMA_MISMATCH.value:
            steps = [opened.fails(Code(fixture.rule))]
        else:
            steps = [opened, s.Act("persist.load", {"id": fixture.id}).fails(Code(fixture.rule))]
        refs.insert(0, "dsh_spec.storage.preserved_prefix")
    return s.scenario(f"fixtures.{fixture.id}", title, refs, "strict", *steps)


#: Where the JSON Schema of ``manifest.json`` sits in the suite (``conformance/``).
MANIFEST_SCHEMA: Final = "schema/fixture-manifest.schema.json"


def manifest(fixtures: Sequence[Fixture], seed: int, count: int, format: str) -> dict[str, Json]:
    """The ``manifest.json`` of an output (``MANIFEST_SCHEMA`` states its shape); keys in
    camelCase, as every JSON document the CLI prints."""
    return {
        "generator": "dsh-session fixtures generate",
        "seed": seed,
        "count": count,
        "format": format,
        "outOfScope": {code.value: why for code, why in OUT_OF_SCOPE.items()},
        "fixtures": [fixture.manifest() for fixture in fixtures],
    }


def write_output(
    fixtures: Sequence[Fixture], format: str, out: Path, *, seed: int, count: int, workdir: str | None = None
) -> list[str]:
    """Write fixtures as ``format`` under ``out``; returns the files written (relative to ``out``)."""
    from dsh_session.conformance.build import build_case
    from dsh_session.conformance.cases import SUITE_VERSION, case_text

    written: list[str] = []
    index = manifest(fixtures, seed, count, format)
    if format == "case":
        (out / "artifacts").mkdir(parents=True, exist_ok=True)
        for fixture in fixtures:
            for relative, data in artifact_files(fixture, workdir).items():
                _put(out / "artifacts" / relative, data)
                written.append(f"artifacts/{relative}")
        _put(out / "VERSION", (SUITE_VERSION + "\n").encode())
        written.append("VERSION")
        for fixture in fixtures:
            case = build_case(fixture_scenario(fixture), out / "artifacts", workdir)
            relative = f"cases/{case.area}/{case.id}.json"
            _put(out / relative, case_text(case).encode("utf-8"))
            written.append(relative)
    else:
        for entry, fixture in zip(index["fixtures"], fixtures, strict=True):
            if format == "jsonl" and (fixture.store is None or fixture.store["format"] == "jsonl"):
                relative = f"{fixture.id}/{write_jsonl(fixture, out / fixture.id)}"
                entry["path"] = fixture.id
            else:
                relative = f"{fixture.id}.db"
                database = out / relative
                database.unlink(missing_ok=True)
                write_sqlite(fixture, database)
                entry["path"] = relative
            entry["session"] = fixture.id
            if fixture.store is not None:
                entry["load"] = verify_store(fixture, workdir)
            else:
                entry["load"] = load_outcome(fixture, format, workdir)
            written.append(relative)
    _put(out / "manifest.json", (json.dumps(index, indent=2, ensure_ascii=True) + "\n").encode("utf-8"))
    written.append("manifest.json")
    return written


def load_outcome(fixture: Fixture, format: str, workdir: str | None = None) -> str | None:
    """What loading the stored log gives (the spec's model of the stores): a code, or ``None``."""
    stored = Fixture(**{**fixture.__dict__, "store": {"format": format, "damage": None}})
    return verify_store(stored, workdir)


def _put(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)

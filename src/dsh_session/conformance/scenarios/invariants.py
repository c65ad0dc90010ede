"""Log invariants: the fixture catalogue of the reference notes, three ways.

Each row of ``invariants.md`` §3.2-§3.3 (plus our own field rules) is a log
whose last record breaks one rule. It becomes up to four cases: seeding a
session with live invariants (``invariants.<row>``), appending the last record
to a session seeded with the rest (``invariants.<row>-append``), ``check_log``
over the log (``check-log.<row>``) and, where the rule is one of admission,
seeding a plain session (``admission.seed-<row>``). The must-accept rows
(§3.5) are negative controls: accepted every way, with their surface and
messages.

Profiles: a row is ``core`` when the reference's invariants plugin refuses it
with the same rule; ``strict`` where we name the problem differently
(``docs/deviations.md`` D-I1, D-I3). A plain seed is ``core`` only for the
rules the reference's seed checks itself (seq, JSON, missing marker) or, for
a bad replace, when the error may wait for the first surface read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dsh_session.conformance.notation import *
from dsh_session.conformance.scenario import Act, Scenario, append, check, new, reads, scenario, surface
from dsh_spec.codes import Code

CHECK_EVENT = "dsh_spec.invariants.check_event"
CHECK_LOG = "dsh_spec.invariants.check_log"
SEED_INV = "dsh_spec.invariants.check_seed_with_invariants"
SEED = "dsh_spec.validation.check_seed"

#: Codes the reference's plain seed checks itself (docs/dialect-3fe196a751.md §I2 B).
SEED_CHECKED = frozenset({Code.SEQ_NOT_CONTIGUOUS, Code.NON_JSON_DATA, Code.MISSING_SURFACE_OP})
#: Codes the reference raises lazily, at the first surface read (docs/dialect-3fe196a751.md §I2 D).
LAZY = frozenset(
    {Code.REPLACE_START_NOT_ON_SURFACE, Code.REPLACE_END_NOT_ON_SURFACE, Code.REPLACE_RANGE_REVERSED}
)


@dataclass(frozen=True)
class Row:
    """A catalogue row: a log whose last record breaks ``code``."""

    name: str
    title: str
    records: tuple[Record, ...]
    code: Code
    profile: str = "core"
    refs: tuple[str, ...] = ()
    append: bool = True  # the last record can be offered to append


def row(
    name: str,
    title: str,
    records: list[Record],
    code: Code,
    *,
    profile: str = "core",
    refs: tuple[str, ...] | None = None,
    append: bool = True,
) -> Row:
    """A catalogue row. ``refs`` default to the catalogue entry the row is named after: a row
    named ``s<N>-...`` cites ``§I3.2 S<N>`` of the dialect notes, one named ``i<N>-...`` cites
    ``§I3.3 I<N>``."""
    if refs is None:
        entry = re.match(r"([si])(\d+[a-z]?)-", name)
        assert entry is not None, f"row {name!r} is named after no catalogue entry: give its refs"
        section = "I3.2 S" if entry[1] == "s" else "I3.3 I"
        refs = (f"docs/dialect-3fe196a751.md §{section}{entry[2]}",)
    return Row(name, title, tuple(records), code, profile, refs, append)


def rows() -> list[Row]:
    c = Code
    return [
        row("s1-seq-gap", "A seq gap",
            log(TS(1), X(TE(1), seq=2)), c.SEQ_NOT_CONTIGUOUS, profile="strict", append=False),
        row("s2-seq-repeat", "A repeated seq",
            log(TS(1), X(TE(1), seq=0)), c.SEQ_NOT_INCREASING, append=False,
            refs=("docs/dialect-3fe196a751.md §I3.2 S2", "docs/dialect-3fe196a751.md §I1.3 R1")),
        row("s2-seq-regress", "A seq below the one before",
            log(TS(1), U("a"), X(TE(1), seq=1)), c.SEQ_NOT_INCREASING, append=False),
        row("s3-seq-not-from-zero", "A log that does not start at seq 0",
            log(X(TS(1), seq=1)), c.SEQ_NOT_CONTIGUOUS, profile="strict", append=False),
        row("s4-user-without-marker", "A user/message without surfaceOp",
            log(TS(1), X(U("a"), surfaceOp=DROP)), c.MISSING_SURFACE_OP),
        row("s4-assistant-without-marker", "An assistant/message without surfaceOp",
            log(TS(1), SS(1, 1), X(A(1, 1), surfaceOp=DROP)), c.MISSING_SURFACE_OP),
        row("s4-tool-result-without-marker", "A tool/result without surfaceOp",
            log(TS(1), SS(1, 1), TC(1, 1, "c1"), X(TR(1, 1, "c1"), surfaceOp=DROP)), c.MISSING_SURFACE_OP),
        row("s4-context-without-marker", "A context/message without surfaceOp",
            log(TS(1), X(CTX("n"), surfaceOp=DROP)), c.MISSING_SURFACE_OP),
        row("s4-steering-without-marker", "A steering/message without surfaceOp",
            log(TS(1), X(ST(1), surfaceOp=DROP)), c.MISSING_SURFACE_OP),
        row("s5-infinite-number", "Data holding an infinite number",
            log(TS(1), D(U("a"), x={"$nonjson": "infinity"})), c.NON_JSON_DATA),
        row("i2a-provenance-on-turn-end", "sourceEventSeqs on a log-only type",
            log(TS(1), X(TE(1), sourceEventSeqs=[0])), c.PROVENANCE_ON_LOG_ONLY_TYPE),
        row("i2b-marker-on-turn-end", "A surfaceOp on a log-only type",
            log(TS(1), X(TE(1), surfaceOp="append")), c.SURFACE_OP_ON_LOG_ONLY_TYPE),
        row("i2c-marker-on-plugin-type", "A surfaceOp on a plugin type",
            log(TS(1), X(EV("compact/start", {"turn": 1}), surfaceOp="append")),
            c.SURFACE_OP_ON_LOG_ONLY_TYPE),
        row("i3-empty-provenance", "Empty sourceEventSeqs",
            log(TS(1), X(U("a"), sourceEventSeqs=[])), c.PROVENANCE_EMPTY),
        row("i4-duplicate-provenance", "sourceEventSeqs naming a seq twice",
            log(TS(1), U("a"), X(U("b"), sourceEventSeqs=[1, 1])), c.PROVENANCE_DUPLICATE),
        row("i5a-provenance-self", "sourceEventSeqs naming the event itself",
            log(TS(1), X(U("a"), sourceEventSeqs=[1])), c.PROVENANCE_NOT_EARLIER),
        row("i5b-provenance-future", "sourceEventSeqs naming a later seq",
            log(TS(1), X(U("a"), sourceEventSeqs=[99])), c.PROVENANCE_NOT_EARLIER),
        row("i6a-provenance-negative", "sourceEventSeqs naming a negative seq",
            log(TS(1), X(U("a"), sourceEventSeqs=[-1])), c.PROVENANCE_UNKNOWN_SEQ),
        row("i6b-provenance-fraction", "sourceEventSeqs holding a fraction is malformed",
            log(TS(1), U("a"), X(U("b"), sourceEventSeqs=[0.5])),
            c.MALFORMED_PROVENANCE, profile="strict", append=False,
            refs=("docs/dialect-3fe196a751.md §I3.3 I6b", "docs/deviations.md D-I3")),
        row("provenance-string", "sourceEventSeqs holding a string is malformed",
            log(TS(1), U("a"), X(U("b"), sourceEventSeqs=["1"])),
            c.MALFORMED_PROVENANCE, profile="strict", append=False,
            refs=("docs/deviations.md D-I3", "docs/dialect-3fe196a751.md §C12 B4")),
        row("provenance-not-a-list", "sourceEventSeqs that is not a list is malformed",
            log(TS(1), U("a"), X(U("b"), sourceEventSeqs={"0": 0})),
            c.MALFORMED_PROVENANCE, profile="strict", append=False,
            refs=("docs/deviations.md D-I3", "docs/dialect-3fe196a751.md §C12 B4")),
        row("i7a-replace-start-log-only", "A replace starting at a log-only event",
            log(TS(1), U("a"), replace(U("s"), 0, 1, 0, 1)), c.REPLACE_START_NOT_ON_SURFACE),
        row("i7b-replace-start-shadowed", "A replace starting at a shadowed node",
            log(TS(1), U("a"), replace(U("s"), 1, 1, 1), replace(U("t"), 1, 1, 1)),
            c.REPLACE_START_NOT_ON_SURFACE),
        row("i7c-marker-misspelt", 'A surfaceOp of "Append" is malformed',
            log(TS(1), U("a"), X(U("s"), surfaceOp="Append")), c.MALFORMED_SURFACE_OP, profile="strict",
            refs=("docs/dialect-3fe196a751.md §I3.3 I7c", "docs/deviations.md D-I3")),
        row("i7d-marker-null", "A surfaceOp of null is malformed",
            log(TS(1), X(U("a"), surfaceOp=None)), c.MALFORMED_SURFACE_OP, profile="strict", append=False,
            refs=("docs/dialect-3fe196a751.md §C12 B3", "docs/deviations.md D-I3")),
        row("marker-other-op", "A surfaceOp naming another op is malformed",
            log(TS(1), U("a"), X(U("s"), surfaceOp={"op": "delete", "start": 1, "end": 1})),
            c.MALFORMED_SURFACE_OP, profile="strict",
            refs=("docs/dialect-3fe196a751.md §C12 B3", "docs/deviations.md D-I3")),
        row("marker-string-endpoints", "A replace with string endpoints is malformed",
            log(TS(1), U("a"), X(U("s"), surfaceOp={"op": "replace", "start": "1", "end": "1"})),
            c.MALFORMED_SURFACE_OP, profile="strict",
            refs=("docs/dialect-3fe196a751.md §C12 B3", "docs/deviations.md D-I3")),
        row("marker-extra-key", "A replace with an extra key is malformed",
            log(TS(1), U("a"), X(U("s"), surfaceOp={"op": "replace", "start": 1, "end": 1, "x": 0})),
            c.MALFORMED_SURFACE_OP, profile="strict",
            refs=("docs/errors.md MALFORMED_SURFACE_OP",)),
        row("i8a-replace-end-missing", "A replace ending at a seq not on the surface",
            log(TS(1), U("a"), replace(U("s"), 1, 99, 1)), c.REPLACE_END_NOT_ON_SURFACE),
        row("i8b-replace-end-self", "A replace ending at its own seq",
            log(TS(1), U("a"), replace(U("s"), 1, 2, 1)), c.REPLACE_END_NOT_ON_SURFACE),
        row("i9a-replace-reversed", "A replace whose start comes after its end",
            log(TS(1), U("a"), U("b"), replace(U("s"), 2, 1, 1, 2)), c.REPLACE_RANGE_REVERSED),
        row("i9b-replace-reversed-by-position", "A replace reversed by surface position though not by seq",
            log(TS(1), U("a"), U("b"), replace(U("s"), 1, 1, 1), replace(U("t"), 2, 3, 2, 3)),
            c.REPLACE_RANGE_REVERSED),
        row("i10a-replace-provenance-partial", "A replace whose provenance misses a shadowed node",
            log(TS(1), U("a"), U("b"), replace(U("s"), 1, 2, 1)), c.REPLACE_PROVENANCE_INCOMPLETE),
        row("i10b-replace-provenance-absent", "A replace without provenance",
            log(TS(1), U("a"), U("b"), replace(U("s"), 1, 2)), c.REPLACE_PROVENANCE_INCOMPLETE),
        row("i10c-replace-provenance-positional", "Provenance must cover the shadowed range by position",
            log(TS(1), U("a"), U("b"), U("c"), replace(U("s"), 1, 1, 1), replace(U("t"), 4, 2, 4)),
            c.REPLACE_PROVENANCE_INCOMPLETE),
        row("i11-turn-already-open", "A turn/start while a turn is open",
            log(TS(1), TS(2)), c.TURN_ALREADY_OPEN),
        row("i12a-first-turn-not-one", "The first turn is not turn 1", log(TS(2)), c.TURN_OUT_OF_ORDER),
        row("i12b-turn-skipped", "A turn number skipped", log(TS(1), TE(1), TS(3)), c.TURN_OUT_OF_ORDER),
        row("i12c-turn-reused", "A turn number reused", log(TS(1), TE(1), TS(1)), c.TURN_OUT_OF_ORDER),
        row("i13a-turn-end-wrong-turn", "A turn/end naming another turn",
            log(TS(1), TE(2)), c.TURN_END_MISMATCH),
        row("i13b-turn-end-none-open", "A turn/end with no turn open", log(TE(1)), c.TURN_END_MISMATCH),
        row("i14-turn-end-step-open", "A turn/end while a step is open",
            log(TS(1), SS(1, 1), TE(1)), c.TURN_END_STEP_OPEN),
        row("i15a-step-wrong-turn", "A step/start naming another turn",
            log(TS(1), SS(2, 1)), c.STEP_TURN_MISMATCH),
        row("i15b-step-no-turn", "A step/start with no turn open", log(SS(1, 1)), c.STEP_TURN_MISMATCH),
        row("i16-step-already-open", "A step/start while a step is open",
            log(TS(1), SS(1, 1), SS(1, 2)), c.STEP_ALREADY_OPEN),
        row("i17a-first-step-not-one", "The first step is not step 1",
            log(TS(1), SS(1, 2)), c.STEP_OUT_OF_ORDER),
        row("i17b-step-skipped", "A step number skipped",
            log(TS(1), SS(1, 1), SE(1, 1), SS(1, 3)), c.STEP_OUT_OF_ORDER),
        row("i17c-steps-restart-per-turn", "Steps start again at 1 in every turn",
            log(TS(1), SS(1, 1), SE(1, 1), TE(1), TS(2), SS(2, 2)), c.STEP_OUT_OF_ORDER),
        row("i18a-step-end-none-open", "A step/end with no step open", log(TS(1), SE(1, 1)), c.STEP_NOT_OPEN),
        row("i18b-step-end-wrong-step", "A step/end naming another step",
            log(TS(1), SS(1, 1), SE(1, 2)), c.STEP_NOT_OPEN),
        row("i18c-chunk-no-step", "A chunk with no step open", log(TS(1), CH(1, 1)), c.STEP_NOT_OPEN),
        row("i18d-chunk-no-turn", "A chunk with no turn open is STEP_NOT_OPEN, not EVENT_OUTSIDE_TURN",
            log(CH(1, 1)), c.STEP_NOT_OPEN),
        row("i18e-assistant-wrong-step", "An assistant message naming another step",
            log(TS(1), SS(1, 1), A(1, 2)), c.STEP_NOT_OPEN),
        row("i18f-assistant-outside-step", "An assistant message outside any step",
            log(TS(1), U("a"), A(1, 1)), c.STEP_NOT_OPEN),
        row("i18g-tool-call-outside-step", "A tool/call outside any step",
            log(TS(1), TC(1, 1, "c1")), c.STEP_NOT_OPEN),
        row("i18h-tool-result-outside-step", "A tool/result outside any step: STEP_NOT_OPEN before pairing",
            log(TS(1), TR(1, 1, "c1")), c.STEP_NOT_OPEN),
        row("i18i-chunk-wrong-turn", "A chunk naming another turn",
            log(TS(1), SS(1, 1), CH(2, 1)), c.STEP_NOT_OPEN),
        row("i19a-result-without-call", "A tool/result answering no tool/call",
            log(TS(1), SS(1, 1), TR(1, 1, "ghost")), c.TOOL_RESULT_UNPAIRED),
        row("i19b-result-of-earlier-step", "A tool/result answering a call of an earlier step",
            log(TS(1), SS(1, 1), TC(1, 1, "c1"), SE(1, 1), SS(1, 2), TR(1, 2, "c1")), c.TOOL_RESULT_UNPAIRED),
        row("i19c-result-twice", "A second tool/result for one call",
            log(TS(1), SS(1, 1), TC(1, 1, "c1"), TR(1, 1, "c1"), TR(1, 1, "c1")), c.TOOL_RESULT_UNPAIRED),
        row("i19d-block-is-not-a-call", "A tool-call block is not a tool/call event",
            log(TS(1), SS(1, 1), ATC(1, 1, "c1"), TR(1, 1, "c1")), c.TOOL_RESULT_UNPAIRED),
        row("i20a-user-outside-turn", "A user message outside any turn", log(U("hi")), c.EVENT_OUTSIDE_TURN),
        row("i20b-context-after-turn", "A context message after the turn ended",
            log(TS(1), TE(1), CTX("n")), c.EVENT_OUTSIDE_TURN),
        row("i20c-steering-outside-turn", "A steering message outside any turn",
            log(ST(1)), c.EVENT_OUTSIDE_TURN),
        row("i20d-plugin-type-outside-turn", "A plugin event outside any turn",
            log(EV("compact/start", {"turn": 1})), c.EVENT_OUTSIDE_TURN),
        row("i20d-todo-outside-turn", "A todo/write outside any turn",
            log(EV("todo/write", {"todos": []})), c.EVENT_OUTSIDE_TURN),
        row("i20d-unknown-type-outside-turn", "An unknown type outside any turn",
            log(EV("foo/bar", None)), c.EVENT_OUTSIDE_TURN),
        row("precedence-provenance-before-turn", "An empty provenance outside any turn is PROVENANCE_EMPTY",
            log(X(U("hi"), sourceEventSeqs=[])), c.PROVENANCE_EMPTY,
            refs=("docs/dialect-3fe196a751.md §I3.3 I-prec",)),
        row("precedence-log-only-before-step", "Provenance on a tool/call outside any step is reported first",
            log(TS(1), X(TC(1, 1, "c1"), sourceEventSeqs=[0])), c.PROVENANCE_ON_LOG_ONLY_TYPE,
            refs=("docs/dialect-3fe196a751.md §I1.3 precedence",)),
        row("field-turn-a-string", "A turn number spelled as a string",
            log(D(TS(1), turn="1")), c.MALFORMED_STRUCTURE_FIELD, profile="strict",
            refs=("docs/deviations.md D-I3",)),
        row("field-turn-missing", "A turn/end without its turn",
            log(TS(1), D(TE(1), turn=DROP)), c.MALFORMED_STRUCTURE_FIELD, profile="strict",
            refs=("docs/deviations.md D-I3",)),
        row("field-step-a-bool", "A step number that is a boolean",
            log(TS(1), D(SS(1, 1), step=True)), c.MALFORMED_STRUCTURE_FIELD, profile="strict",
            refs=("docs/deviations.md D-I3",)),
        row("field-call-id-missing", "A tool/call without its callId",
            log(TS(1), SS(1, 1), D(TC(1, 1, "c1"), callId=DROP)),
            c.MALFORMED_STRUCTURE_FIELD, profile="strict",
            refs=("docs/deviations.md D-I3",)),
        row("field-data-not-object", "A turn/start whose data is not an object",
            log(EV("turn/start", [1])), c.MALFORMED_STRUCTURE_FIELD, profile="strict",
            refs=("docs/deviations.md D-I3",)),
        row("field-before-step-rule", "A chunk without a step field: the field rule comes first",
            log(EV("assistant/chunk", {"turn": 1})), c.MALFORMED_STRUCTURE_FIELD, profile="strict",
            refs=("docs/deviations.md D-I3",)),
    ]


def accepted() -> list[tuple[str, str, list[Record], str]]:
    """Must-accept logs (docs/dialect-3fe196a751.md §I3.5): name, title, log, notes reference."""
    compact_summary = {
        "summary": [{"type": "text", "text": "s"}],
        "shadowedRange": {"start": 1, "end": 1},
        "shadowedSeqs": [1],
        "shadowedTokenCount": 10,
        "model": "m",
    }
    return [
        (
            "v1-replace-start-above-end",
            "A replace with start above end by seq, in position order",
            log(TS(1), U("a"), U("b"), replace(U("s"), 1, 1, 1), replace(U("t"), 3, 2, 3, 2)),
            "V1",
        ),
        (
            "v2-call-without-result",
            "A tool call with no result, the turn ended by an error",
            log(
                TS(1), SS(1, 1), TC(1, 1, "c1"), SE(1, 1),
                TE(1, {"kind": "error", "step": 1, "message": "boom"}),
            ),
            "V2",
        ),
        (
            "v3-interrupted-result-exempt",
            "The synthetic interrupted result needs no tool/call",
            log(TS(1), SS(1, 1), ATC(1, 1, "x"), TRI(1, 1, "x"), SE(1, 1), TE(1)),
            "V3",
        ),
        (
            "v3b-interrupted-result-twice",
            "The exemption covers a second result for a call",
            log(TS(1), SS(1, 1), TC(1, 1, "x"), TR(1, 1, "x"), TRI(1, 1, "x"), SE(1, 1), TE(1)),
            "V3",
        ),
        (
            "v4-provenance-names-log-only",
            "Provenance may name log-only events",
            log(
                TS(1), SS(1, 1), CH(1, 1), X(ATC(1, 1, "c1"), sourceEventSeqs=[2]), TC(1, 1, "c1"),
                X(TR(1, 1, "c1"), sourceEventSeqs=[4]), SE(1, 1), TE(1),
            ),
            "V4",
        ),
        (
            "v5-replace-provenance-superset",
            "A replace may name more than it shadows",
            log(
                TS(1), U("a"), EV("compact/start", {"turn": 1}), EV("compact/summary", compact_summary),
                replace(U("summary"), 1, 1, 2, 3, 1), EV("compact/end", {"turn": 1}), TE(1),
            ),
            "V5",
        ),
        (
            "v6-single-node-replace",
            "A single-node replace",
            log(TS(1), U("a"), replace(U("s"), 1, 1, 1)),
            "V6",
        ),
        (
            "v7a-turn-without-steps",
            "A turn needs no step",
            log(TS(1), U("a"), TE(1, {"kind": "rejected", "reason": "r"})),
            "V7",
        ),
        (
            "v7b-injection-turn",
            "An injection turn",
            log(TS(1, {"kind": "injection", "source": {"kind": "user"}}), CTX("n"), TE(1)),
            "V7",
        ),
        (
            "v8-messages-inside-step",
            "Other events may sit inside a step",
            log(TS(1), SS(1, 1), U("late"), CTX("c"), ST(1), A(1, 1), SE(1, 1), TE(1)),
            "V8",
        ),
        ("v9-steering-turn-unchecked", "A steering message's turn is not compared", log(TS(1), ST(7)), "V9"),
        ("v10-open-turn-at-end", "A log may end inside an open turn", log(TS(1), U("a")), "V10"),
        (
            "v11-compact-turn-unchecked",
            "A compact event's turn is not compared",
            log(TS(1), SS(1, 1), EV("compact/start", {"turn": 99}), SE(1, 1), TE(1)),
            "V11",
        ),
        (
            "v12-empty-assistant",
            "An assistant message with empty content",
            log(TS(1), SS(1, 1), D(A(1, 1), content=[]), SE(1, 1), TE(1)),
            "V12",
        ),
        (
            "v13-assistant-replace",
            "Any surface type may carry a replace",
            log(TS(1), SS(1, 1), U("a"), replace(A(1, 1), 2, 2, 2)),
            "V13",
        ),
        ("empty-log", "The empty log", [], "V14"),
        (
            "integral-floats",
            "Integral floats count as integers",
            log(X(D(TS(1), turn=1.0), seq=0.0), D(SS(1, 1), step=1.0)),
            "V15",
        ),
    ]


def _seed_profile(item: Row) -> tuple[str, int]:
    """The profile of seeding a plain session with the row's log, and how lazily it may fail."""
    if item.code in SEED_CHECKED:
        return "core", 0
    if item.code in LAZY:
        return item.profile, 1
    return "strict", 0


def scenarios() -> list[Scenario]:
    out: list[Scenario] = []
    for item in rows():
        records = list(item.records)
        refs = (CHECK_EVENT, *item.refs)
        seed_code = Code.SEQ_NOT_CONTIGUOUS if item.code is Code.SEQ_NOT_INCREASING else item.code
        seed_profile = "core" if seed_code is Code.SEQ_NOT_CONTIGUOUS else item.profile
        out.append(
            scenario(
                f"invariants.{item.name}",
                f"{item.title}: a seed with live invariants is refused with {seed_code.value}",
                (SEED_INV, *refs),
                seed_profile,
                new(records, invariants=True).fails(seed_code),
            )
        )
        if item.append:
            prefix, last = records[:-1], records[-1]
            out.append(
                scenario(
                    f"invariants.{item.name}-append",
                    f"{item.title}: appending it with live invariants is refused with {item.code.value}",
                    ("dsh_spec.invariants.validate_append_with_invariants", *refs),
                    item.profile,
                    new(prefix, invariants=True),
                    append(last, time=last["time"]).fails(item.code),
                )
            )
        out.append(
            scenario(
                f"check-log.{item.name}",
                f"{item.title}: check_log reports {item.code.value} at the bad record, and nothing else",
                (CHECK_LOG, *refs),
                item.profile,
                check(records),
            )
        )
        plain = _plain_seed(item)
        if plain is not None:
            out.append(plain)
    for name, title, records, ref in accepted():
        out.append(
            scenario(
                f"invariants.{name}",
                f"{title}: accepted with live invariants",
                (SEED_INV, CHECK_LOG, f"docs/dialect-3fe196a751.md §I3.5 {ref}"),
                "core",
                new(records, invariants=True),
                *reads(),
                check(records).gives([]),
            )
        )
    out.extend(extra())
    return out


def _seed_tests(code: Code) -> tuple[str, ...]:
    """The reference's seed tests a plain-seed case transcribes (docs/dialect-3fe196a751.md §C11)."""
    return {
        Code.MISSING_SURFACE_OP: ("docs/dialect-3fe196a751.md §C11 #12",),
        Code.NON_JSON_DATA: ("docs/dialect-3fe196a751.md §C11 #10",),
    }.get(code, ())


def _plain_seed(item: Row) -> Scenario | None:
    """Seeding a plain session: refused for admission rules, accepted for structural ones."""
    records = list(item.records)
    structural = item.code.value.startswith(
        ("TURN_", "STEP_", "TOOL_RESULT", "EVENT_OUTSIDE", "MALFORMED_STRUCT")
    )
    if item.code is Code.SEQ_NOT_INCREASING:
        return scenario(
            f"admission.seed-{item.name}",
            f"{item.title}: a plain seed is refused with SEQ_NOT_CONTIGUOUS (seqs must run 0, 1, 2)",
            (SEED, "dsh_spec.validation.parse_record", *item.refs),
            "core",
            new(records).fails(Code.SEQ_NOT_CONTIGUOUS),
        )
    if structural:
        return scenario(
            f"admission.seed-{item.name}",
            f"{item.title}: without live invariants the seed is accepted (a structural rule)",
            (SEED, "docs/errors.md Log invariants", *item.refs),
            "core",
            new(records),
            surface(),
        )
    profile, lazy = _seed_profile(item)
    steps: list[Act] = [new(records).fails(item.code, lazy=lazy)]
    if lazy:
        steps.append(surface())
    return scenario(
        f"admission.seed-{item.name}",
        f"{item.title}: a plain seed is refused with {item.code.value}"
        + (" by the first surface read at the latest" if lazy else ""),
        (SEED, "dsh_spec.validation.admit", *item.refs, *_seed_tests(item.code)),
        profile,
        *steps,
    )


def extra() -> list[Scenario]:
    """Cases beyond the catalogue rows."""
    return [
        scenario(
            "invariants.refused-append-stores-nothing",
            "A refused append with live invariants stores nothing and the session goes on",
            (
                "dsh_spec.invariants.validate_append_with_invariants",
                "docs/deviations.md D-I1",
                "docs/dialect-3fe196a751.md §I0",
            ),
            "strict",
            new(log(TS(1)), invariants=True),
            append(TS(2), time=1001).fails(Code.TURN_ALREADY_OPEN),
            append(U("a"), time=1002),
            append(TE(1), time=1003),
            check(log(TS(1), U("a"), TE(1))).gives([]),
        ),
        scenario(
            "invariants.i6c-refused-event-is-not-known",
            "After a refused append the next event takes its seq: naming that seq is PROVENANCE_NOT_EARLIER",
            ("docs/deviations.md D-I1", "docs/dialect-3fe196a751.md §I3.3 I6c"),
            "strict",
            new(log(TS(1)), invariants=True),
            append(X(U("x"), sourceEventSeqs=[]), time=1001).fails(Code.PROVENANCE_EMPTY),
            append(X(U("y"), sourceEventSeqs=[1]), time=1002).fails(Code.PROVENANCE_NOT_EARLIER),
        ),
        scenario(
            "check-log.i6c-refused-record-is-unknown",
            "check_log leaves a refused record out: naming it later is PROVENANCE_UNKNOWN_SEQ",
            (CHECK_LOG, "docs/deviations.md D-I2", "docs/dialect-3fe196a751.md §I3.3 I6c"),
            "strict",
            check(log(TS(1), X(U("x"), sourceEventSeqs=[]), X(U("y"), sourceEventSeqs=[1]))),
        ),
        scenario(
            "check-log.every-violation",
            "check_log reports every record that breaks a rule, each with the first rule it breaks",
            (CHECK_LOG, "docs/deviations.md D-I2"),
            "strict",
            check(
                log(
                    U("early"), TS(2), TS(1), SS(1, 2), SS(1, 1), TR(1, 1, "c9"), SE(1, 1), TE(1), CTX("late")
                )
            ),
        ),
        scenario(
            "check-log.refused-record-leaves-no-trace",
            "A refused record is never open, on the surface or known to later records",
            (CHECK_LOG, "docs/deviations.md D-I2"),
            "strict",
            check(
                log(
                    TS(1), SS(2, 1), A(1, 1), SE(1, 1), U("a"), replace(U("s"), 2, 4, 4),
                    X(U("t"), sourceEventSeqs=[2]), TE(1),
                )
            ),
        ),
        scenario(
            "check-log.gap-reported-once",
            "A missing record is reported once, not with every record after it",
            (CHECK_LOG, "dsh_spec.invariants.seq_problem", "docs/deviations.md D-I2"),
            "strict",
            check([*log(TS(1), U("a")), X(U("b"), seq=3, time=1003), X(TE(1), seq=4, time=1004)]),
        ),
        scenario(
            "check-log.not-an-object",
            "A record that is not an object is MALFORMED_EVENT, with no seq",
            (CHECK_LOG, "dsh_spec.invariants.read_record"),
            "strict",
            check([*log(TS(1)), [1, 2], *[{**r, "seq": 2} for r in log(TE(1))]]),
        ),
        scenario(
            "check-log.missing-key",
            "A record without time is MALFORMED_EVENT",
            (CHECK_LOG, "dsh_spec.invariants.read_record", "docs/errors.md MALFORMED_EVENT"),
            "strict",
            check([*log(TS(1)), X(log(TS(1), U("a"))[1], time=DROP)]),
        ),
        scenario(
            "check-log.valid-agent-log",
            "A log of two turns with tools, chunks and a compaction keeps every invariant",
            (CHECK_LOG,),
            "core",
            check(_agent_log()).gives([]),
        ),
    ]


def _agent_log() -> list[Record]:
    return log(
        TS(1), U("list the files"), SS(1, 1), CH(1, 1), A(1, 1, "c1", "c2"), TC(1, 1, "c1"), TC(1, 1, "c2"),
        TR(1, 1, "c1"), TR(1, 1, "c2", error=True), SE(1, 1), SS(1, 2), A(1, 2), SE(1, 2), TE(1),
        TS(2), U("summarise"), EV("compact/start", {"turn": 2}),
        replace(U("summary"), 1, 15, 1, 4, 7, 8, 11, 15), EV("compact/end", {"turn": 2}), SS(2, 1), A(2, 1),
        SE(2, 1), TE(2),
    )

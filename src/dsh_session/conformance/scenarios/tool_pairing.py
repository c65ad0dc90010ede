"""Tool pairing on the surface: may the history be cut here (``core.md`` §9, tests 98-117)?

``session.balanced(before)`` asks about the cut just before surface seq
``before`` (``null``: after the tail); ``session.region_balanced(start, end)``
whether a region may be collapsed. Calls and results pair by id here, where
the reference only counts (``docs/deviations.md`` D-P1): cases where the two
agree are ``core``.
"""

from __future__ import annotations

from typing import Any

from dsh_session.conformance.notation import *
from dsh_session.conformance.scenario import Scenario, balanced, new, region, scenario, surface
from dsh_spec.codes import Code

BALANCED = "dsh_spec.tool_pairing.tool_pairing_balanced"
REGION = "dsh_spec.tool_pairing.region_balanced"

#: The reference's fixture: a closed turn of U, a step with A(text + call c1), its tool/call and result.
FIXTURE = log(TS(1), U("q"), SS(1, 1), A(1, 1, "c1"), TC(1, 1, "c1"), TR(1, 1, "c1"), SE(1, 1), TE(1))


def cut(
    name: str, title: str, records: list[Record], before: Any, want: Any, refs: tuple[str, ...]
) -> Scenario:
    return scenario(
        f"tool-pairing.{name}",
        title,
        (BALANCED, "docs/dialect-3fe196a751.md §C9", *refs),
        "core",
        new(records),
        balanced(before).ends(want),
    )


def scenarios() -> list[Scenario]:
    two_calls = log(
        TS(1), SS(1, 1), A(1, 1, "c1", "c2"), TC(1, 1, "c1"), TC(1, 1, "c2"), TR(1, 1, "c1"), TR(1, 1, "c2"),
        SE(1, 1), TE(1),
    )
    mid_step = log(
        TS(1), SS(1, 1), A(1, 1, "c1"), TC(1, 1, "c1"), CTX("note"), TR(1, 1, "c1"), SE(1, 1), TE(1)
    )
    injection = log(TS(1, {"kind": "injection", "source": {"kind": "user"}}), CTX("n"), TE(1))
    head_checkpoint = log(
        TS(1), U("a"), SS(1, 1), A(1, 1), SE(1, 1), TE(1), TS(2), replace(U("checkpoint"), 1, 3, 1, 3)
    )
    out = [
        cut(
            "start-before-user-message",
            "The cut before a pre-step user message is balanced (tests 98, 101)",
            FIXTURE,
            1,
            True,
            ("docs/dialect-3fe196a751.md §C11 #98", "docs/dialect-3fe196a751.md §C11 #101"),
        ),
        cut(
            "start-before-assistant",
            "The cut before a step's assistant message is balanced (test 99)",
            FIXTURE,
            3,
            True,
            ("docs/dialect-3fe196a751.md §C11 #99", "docs/dialect-3fe196a751.md §C11 #104"),
        ),
        cut(
            "start-before-result",
            "The cut between a call and its result is not balanced (tests 100, 103)",
            FIXTURE,
            5,
            False,
            ("docs/dialect-3fe196a751.md §C11 #100", "docs/dialect-3fe196a751.md §C11 #103"),
        ),
        cut(
            "end-after-result",
            "The cut after a closed step's result is balanced (test 102)",
            FIXTURE,
            None,
            True,
            ("docs/dialect-3fe196a751.md §C11 #102",),
        ),
        cut(
            "end-inside-open-step",
            "The cut after an unanswered call at the tail is not balanced (test 105)",
            log(TS(1), SS(1, 1), A(1, 1, "c1")),
            None,
            False,
            ("docs/dialect-3fe196a751.md §C11 #105",),
        ),
        cut(
            "end-after-steering",
            "The cut after a trailing steering node is balanced (test 106)",
            log(TS(1), SS(1, 1), A(1, 1, "c1"), TC(1, 1, "c1"), TR(1, 1, "c1"), SE(1, 1), ST(1)),
            None,
            True,
            ("docs/dialect-3fe196a751.md §C11 #106",),
        ),
        cut(
            "end-no-step",
            "The tail of a turn without steps is balanced (test 107)",
            log(TS(1), U("a")),
            None,
            True,
            ("docs/dialect-3fe196a751.md §C11 #107",),
        ),
        cut(
            "two-calls-one-answered",
            "After the first of two results the cut is not balanced (test 108)",
            two_calls,
            6,
            False,
            ("docs/dialect-3fe196a751.md §C11 #108",),
        ),
        cut(
            "two-calls-both-answered",
            "After both results the cut is balanced (test 109)",
            two_calls,
            None,
            True,
            ("docs/dialect-3fe196a751.md §C11 #109",),
        ),
        cut(
            "mid-step-context-start",
            "The cut before a context message between call and result (test 110)",
            mid_step,
            4,
            False,
            ("docs/dialect-3fe196a751.md §C11 #110",),
        ),
        cut(
            "mid-step-context-end",
            "The cut after a context message between call and result (test 111)",
            mid_step,
            5,
            False,
            ("docs/dialect-3fe196a751.md §C11 #111",),
        ),
        cut(
            "injection-turn-start",
            "An injection turn's start cut is balanced (test 112)",
            injection,
            1,
            True,
            ("docs/dialect-3fe196a751.md §C11 #112",),
        ),
        cut(
            "injection-turn-end",
            "An injection turn's end cut is balanced (test 113)",
            injection,
            None,
            True,
            ("docs/dialect-3fe196a751.md §C11 #113",),
        ),
        cut(
            "head-checkpoint-start",
            "The cut before a head checkpoint node is balanced (tests 114, 115)",
            head_checkpoint,
            7,
            True,
            ("docs/dialect-3fe196a751.md §C11 #114", "docs/dialect-3fe196a751.md §C11 #115"),
        ),
        cut(
            "head-checkpoint-end",
            "The cut after a head checkpoint node is balanced (test 116)",
            head_checkpoint,
            None,
            True,
            ("docs/dialect-3fe196a751.md §C11 #116",),
        ),
        cut(
            "corrupt-result-without-call",
            "A result with no call on the surface is corrupt (test 117)",
            log(TS(1), SS(1, 1), TC(1, 1, "c1"), TR(1, 1, "c1"), SE(1, 1)),
            None,
            Code.TOOL_PAIRING_CORRUPT,
            ("docs/dialect-3fe196a751.md §C11 #117", "docs/dialect-3fe196a751.md §I3.4 G1"),
        ),
        cut(
            "corrupt-only-before-the-cut",
            "A corrupt result after the cut is not looked at",
            log(TS(1), U("a"), SS(1, 1), TC(1, 1, "c1"), TR(1, 1, "c1"), SE(1, 1)),
            4,
            True,
            ("docs/dialect-3fe196a751.md §C9",),
        ),
        cut(
            "seq-not-on-surface-is-tail",
            "A seq that is not on the surface asks about the cut after the tail",
            FIXTURE,
            4,
            True,
            ("docs/dialect-3fe196a751.md §C9",),
        ),
        cut(
            "closed-step-call-stays-open",
            "A call left unanswered in a closed step unbalances every later cut",
            log(
                TS(1), SS(1, 1), A(1, 1, "c1"), SE(1, 1), TE(1, {"kind": "error", "step": 1, "message": "x"}),
                TS(2), U("b"), SS(2, 1), A(2, 1, "c2"), TC(2, 1, "c2"), TR(2, 1, "c2"),
            ),
            None,
            False,
            ("docs/dialect-3fe196a751.md §C12 B15",),
        ),
        cut(
            "shadowed-call-corrupts",
            "A replace that shadows a call but not its result corrupts the surface",
            log(
                TS(1), SS(1, 1), ATC(1, 1, "c1"), TC(1, 1, "c1"), TR(1, 1, "c1"), SE(1, 1), TE(1),
                TS(2), replace(U("s"), 2, 2, 2),
            ),
            None,
            Code.TOOL_PAIRING_CORRUPT,
            ("docs/dialect-3fe196a751.md §I3.4 G2",),
        ),
        cut(
            "empty-assistant-counts-nothing",
            "An empty assistant message counts no call",
            log(TS(1), SS(1, 1), D(A(1, 1), content=[]), SE(1, 1)),
            None,
            True,
            ("docs/dialect-3fe196a751.md §C6.1",),
        ),
    ]
    strict = [
        (
            "ids-must-match",
            "A result for another id does not answer a call: the surface is corrupt",
            log(TS(1), SS(1, 1), ATC(1, 1, "c1"), TC(1, 1, "c2"), TR(1, 1, "c2"), SE(1, 1)),
            None,
            Code.TOOL_PAIRING_CORRUPT,
        ),
        (
            "ids-must-match-before",
            "Before the mismatched result the unanswered call unbalances the cut",
            log(TS(1), SS(1, 1), ATC(1, 1, "c1"), TC(1, 1, "c2"), TR(1, 1, "c2"), SE(1, 1)),
            4,
            False,
        ),
        (
            "results-out-of-order",
            "Results may answer calls in any order when the ids match",
            log(
                TS(1), SS(1, 1), ATC(1, 1, "c1", "c2"), TC(1, 1, "c1"), TC(1, 1, "c2"), TR(1, 1, "c2"),
                TR(1, 1, "c1"), SE(1, 1),
            ),
            None,
            True,
        ),
        (
            "call-id-not-a-string",
            "A call block whose id is not a string is never answered",
            log(
                TS(1), SS(1, 1),
                D(A(1, 1), content=[{"type": "tool-call", "id": 1, "name": "x", "arguments": ""}]),
            ),
            None,
            False,
        ),
    ]
    for name, title, records, before, want in strict:
        out.append(
            scenario(
                f"tool-pairing.{name}",
                title,
                (BALANCED, "docs/deviations.md D-P1", "docs/dialect-3fe196a751.md §C12 B15"),
                "strict",
                new(records),
                balanced(before).ends(want),
            )
        )
    regions = [
        ("region-whole-step", "A region holding a whole step may be collapsed", FIXTURE, 1, 5, True, "core"),
        (
            "region-splits-pair",
            "A region ending between a call and its result may not be collapsed",
            FIXTURE,
            1,
            3,
            False,
            "core",
        ),
        (
            "region-start-unbalanced",
            "A region starting between a call and its result may not be collapsed",
            FIXTURE,
            5,
            5,
            False,
            "core",
        ),
        (
            "region-start-not-on-surface",
            "A region whose start is not on the surface is refused",
            FIXTURE,
            2,
            5,
            Code.REPLACE_START_NOT_ON_SURFACE,
            "strict",
        ),
        (
            "region-end-not-on-surface",
            "A region whose end is not on the surface is refused",
            FIXTURE,
            1,
            99,
            Code.REPLACE_END_NOT_ON_SURFACE,
            "strict",
        ),
        (
            "region-reversed",
            "A region whose start comes after its end is refused",
            FIXTURE,
            5,
            1,
            Code.REPLACE_RANGE_REVERSED,
            "strict",
        ),
        (
            "region-corrupt-before-end",
            "A corrupt result inside the region is reported",
            log(TS(1), U("a"), SS(1, 1), TC(1, 1, "c1"), TR(1, 1, "c1"), SE(1, 1), U("b")),
            1,
            4,
            Code.TOOL_PAIRING_CORRUPT,
            "core",
        ),
    ]
    for name, title, records, start, end, want, profile in regions:
        out.append(
            scenario(
                f"tool-pairing.{name}",
                title,
                (REGION, "dsh_spec.tool_pairing.region_balanced", "docs/dialect-3fe196a751.md §C9"),
                profile,
                new(records),
                surface(),
                region(start, end).ends(want),
            )
        )
    return out

"""Crash repair: the closers that end the turn a crash left open (``core.md`` §8, tests 70-80)."""

from __future__ import annotations

from typing import Any

from dsh_session.conformance.notation import *
from dsh_session.conformance.scenario import Scenario, check, closers, new, scenario
from dsh_spec import closer_json, interrupted_turn_closers
from dsh_spec.validation import check_seed

CLOSERS = "dsh_spec.repair.interrupted_turn_closers"


def repaired(records: list[Record]) -> list[Any]:
    """``records`` followed by the closers the spec gives them (for checking the repaired log)."""
    events = check_seed(records)
    assert isinstance(events, tuple)
    return [*records, *(closer_json(event) for event in interrupted_turn_closers(events))]


def case(
    name: str, title: str, records: list[Record], refs: tuple[str, ...], profile: str = "core"
) -> Scenario:
    return scenario(f"repair.{name}", title, (CLOSERS, *refs), profile, new(records), closers())


def scenarios() -> list[Scenario]:
    out = [
        case(
            "balanced-log",
            "A log whose last turn ended needs no closers (reference test 70)",
            log(TS(1), U("a"), TE(1)),
            ("docs/dialect-3fe196a751.md §C11 #70",),
        ),
        case(
            "empty-log",
            "An empty log needs no closers (reference test 71)",
            [],
            ("docs/dialect-3fe196a751.md §C11 #71",),
        ),
        case(
            "open-turn-no-step",
            "An open turn with no open step gets a turn/end (reference test 72)",
            log(TS(1)),
            ("docs/dialect-3fe196a751.md §C11 #72",),
        ),
        case(
            "open-step",
            "An open step is closed before the turn (reference test 73)",
            log(TS(1), U("a"), SS(1, 1)),
            ("docs/dialect-3fe196a751.md §C11 #73",),
        ),
        case(
            "unanswered-call",
            "A tool call left unanswered gets an error result first (reference test 74)",
            log(TS(1), TE(1), TS(2), SS(2, 1), ATC(2, 1, "call-1")),
            ("docs/dialect-3fe196a751.md §C11 #74",),
        ),
        case(
            "answered-call",
            "A call that has its result gets none (reference test 75)",
            log(TS(1), SS(1, 1), ATC(1, 1, "c1"), TC(1, 1, "c1"), TR(1, 1, "c1")),
            ("docs/dialect-3fe196a751.md §C11 #75",),
        ),
        case(
            "call-of-closed-step",
            "A call of a step that already closed gets no result (reference test 76)",
            log(TS(1), SS(1, 1), ATC(1, 1, "c1"), SE(1, 1)),
            ("docs/dialect-3fe196a751.md §C11 #76", "docs/dialect-3fe196a751.md §C12 B15"),
        ),
        case(
            "only-open-turn",
            "Only calls of the still-open turn get results (reference test 77)",
            log(
                TS(1), SS(1, 1), ATC(1, 1, "old-call"), SE(1, 1), TE(1),
                TS(2), SS(2, 1), ATC(2, 1, "new-call"),
            ),
            ("docs/dialect-3fe196a751.md §C11 #77",),
        ),
        case(
            "several-calls-in-order",
            "Each unanswered call gets a result, in log order (reference test 78)",
            log(
                TS(1), SS(1, 1), ATC(1, 1, "call-a", "call-b", "call-c"), TC(1, 1, "call-a"),
                TR(1, 1, "call-a"),
            ),
            ("docs/dialect-3fe196a751.md §C11 #78",),
        ),
        case(
            "result-names-tool-call",
            "A result for a logged tool/call names it as provenance (reference test 79)",
            log(TS(1), SS(1, 1), ATC(1, 1, "c1"), TC(1, 1, "c1")),
            ("docs/dialect-3fe196a751.md §C11 #79",),
        ),
        case(
            "tool-call-without-block",
            "A tool/call with no tool-call block gets no result (reference test 80)",
            log(TS(1), SS(1, 1), TC(1, 1, "c1")),
            ("docs/dialect-3fe196a751.md §C11 #80",),
        ),
        case(
            "tool-call-before-block",
            "A tool/call logged before its block is not linked",
            log(TS(1), SS(1, 1), TC(1, 1, "c1"), ATC(1, 1, "c1")),
            ("docs/dialect-3fe196a751.md §C12 B16",),
        ),
        case(
            "call-id-reused",
            "A call id registered again keeps its place and drops its provenance",
            log(TS(1), SS(1, 1), ATC(1, 1, "c1", "c2"), TC(1, 1, "c1"), A(1, 1, "c1")),
            ("docs/dialect-3fe196a751.md §C12 B16",),
        ),
        case(
            "result-turn-is-open-turn",
            "The closer's turn is the open turn, not the assistant message's",
            log(TS(1), SS(1, 1), ATC(7, 3, "c1")),
            ("docs/dialect-3fe196a751.md §C8", "docs/dialect-3fe196a751.md §C12 B16"),
        ),
        case(
            "closers-reuse-last-time",
            "Every closer takes the last event's time",
            log(TS(1), SS(1, 1), ATC(1, 1, "c1"), {**CH(1, 1), "time": 99999}),
            ("docs/dialect-3fe196a751.md §C8",),
        ),
        case(
            "turn-null-is-closed",
            "A turn/start with turn null opens no turn",
            log(D(TS(1), turn=None), U("a")),
            ("docs/dialect-3fe196a751.md §C8",),
        ),
        case(
            "turn-missing-is-open",
            "A turn/start without turn opens a turn; the closers carry no turn",
            log(D(TS(1), turn=DROP), SS(1, 1)),
            ("docs/dialect-3fe196a751.md §C12 B16",),
        ),
        case(
            "step-null-is-no-step",
            "A step/start with step null opens no step",
            log(TS(1), D(SS(1, 1), step=None)),
            ("docs/dialect-3fe196a751.md §C8",),
        ),
        case(
            "events-after-turn-end",
            "Events after the last turn/end, outside any turn, get no closers",
            log(TS(1), TE(1), CTX("late"), EV("todo/write", {"todos": []})),
            ("docs/dialect-3fe196a751.md §P7 B31",),
        ),
        case(
            "call-id-not-a-string",
            "A tool-call block whose id is not a string registers no call",
            log(
                TS(1), SS(1, 1),
                D(A(1, 1), content=[{"type": "tool-call", "id": 5, "name": "x", "arguments": ""}]),
            ),
            ("docs/deviations.md P1",),
            profile="strict",
        ),
        case(
            "data-null-has-no-fields",
            "A turn/start whose data is null opens a turn without a number",
            log(EV("turn/start", None), SS(1, 1)),
            ("docs/deviations.md P1",),
            profile="strict",
        ),
    ]
    out.append(
        scenario(
            "repair.repaired-log-keeps-invariants",
            "A log closed by its closers keeps every invariant",
            (CLOSERS, "dsh_spec.invariants.check_log", "docs/dialect-3fe196a751.md §P5.3"),
            "core",
            check(
                repaired(
                    log(
                        TS(1), U("q"), SS(1, 1), A(1, 1, "k1", "k2", "k3"), TC(1, 1, "k1"), TR(1, 1, "k1"),
                        TC(1, 1, "k2"), CH(1, 1),
                    )
                )
            ).gives([]),
        )
    )
    return out

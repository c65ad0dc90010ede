"""Surface: the fold of ``append`` and ``replace`` markers, links, generation, invalidate."""

from __future__ import annotations

from typing import Any

from dsh_session.conformance.notation import *
from dsh_session.conformance.scenario import (
    Act,
    Scenario,
    append,
    event_message,
    events,
    generation,
    invalidate,
    messages,
    new,
    reads,
    scenario,
    surface,
)
from dsh_spec.codes import Code

FOLD = "dsh_spec.surface.fold_surface"
STEP = "dsh_spec.surface.step"


def node(seq: int, prev: int | None, next: int | None) -> dict[str, int | None]:
    return {"seq": seq, "prev": prev, "next": next}


def _replaced(
    name: str, title: str, refs: tuple[str, ...], records: list[Record], marker: Record, nodes: list[Any]
) -> Scenario:
    """``surface.<name>``: a session seeded with ``records`` appends the replace ``marker``; its
    surface is then ``nodes``, and the usual reads follow."""
    steps = new(records), append(marker), surface().gives(nodes), *reads()
    refs = ("docs/dialect-3fe196a751.md §C5.4", *refs)
    return scenario(f"surface.{name}", title, [STEP, *refs], "core", *steps)


def _collapsed(marker: Record, *, seq: int, generation_then: int) -> list[Act]:
    """Append the replace ``marker`` that shadows every node: the surface is then its one node
    ``seq``, the generation ``generation_then``, and the messages are read."""
    one_node = surface().gives([node(seq, None, None)])
    return [append(marker), one_node, generation().gives(generation_then), messages()]


def _answered() -> list[Act]:
    """The reads after a user message (seq 1), an assistant message with a tool call (3) and its
    result (4): the surface of those three nodes, and the history."""
    return [surface().gives([node(1, None, 3), node(3, 1, 4), node(4, 3, None)]), messages()]


def _lazy(name: str, title: str, refs: tuple[str, ...], marker: Record, code: Code, read: Act) -> Scenario:
    """``surface.<name>``: a bad replace ``marker`` appended to the log ``a``, ``b`` is refused with
    ``code`` by the append or, as the reference does, by the ``read`` after it."""
    steps = new(log(U("a"), U("b"))), append(marker).fails(code, lazy=1), read
    return scenario(f"surface.{name}", title, [STEP, *refs], "core", *steps)


def scenarios() -> list[Scenario]:
    return [
        scenario(
            "surface.empty-log",
            "An empty log has an empty surface, generation 0 and no messages",
            [FOLD, "docs/dialect-3fe196a751.md §C5"],
            "core",
            new([]),
            surface().gives([]),
            generation().gives(0),
            messages().gives([]),
        ),
        scenario(
            "surface.append-links",
            "Append markers build a linked list head to tail in log order (reference test 30)",
            [
                STEP,
                "dsh_spec.surface.surface_nodes",
                "docs/dialect-3fe196a751.md §C5.3",
                "docs/dialect-3fe196a751.md §C11 #30",
            ],
            "core",
            new(log(TS(1), U("hi"), A(1, 1), TE(1))),
            surface().gives([node(1, None, 2), node(2, 1, None)]),
            generation().gives(0),
        ),
        scenario(
            "surface.boundaries-only",
            "A log of turn and step boundaries only has no surface nodes (reference test 32)",
            [STEP, "docs/dialect-3fe196a751.md §C11 #32"],
            "core",
            new(log(TS(1), SS(1, 1), SE(1, 1), TE(1))),
            surface().gives([]),
            messages().gives([]),
        ),
        scenario(
            "surface.incremental-append",
            "A node appended after a read joins the tail and links back (reference test 33)",
            [STEP, "docs/dialect-3fe196a751.md §C5.3", "docs/dialect-3fe196a751.md §C11 #33"],
            "core",
            new(log(TS(1), U("a"), SS(1, 1), A(1, 1, "c1"))),
            surface().gives([node(1, None, 3), node(3, 1, None)]),
            append(TR(1, 1, "c1")),
            *_answered(),
        ),
        scenario(
            "surface.seeded-replay",
            "A session seeded with a log holding markers has its surface and history (reference test 34)",
            [STEP, "docs/dialect-3fe196a751.md §C11 #34", "docs/dialect-3fe196a751.md §C11 #5"],
            "core",
            new(log(TS(1), U("hello"), SS(1, 1), A(1, 1, "c1"), TR(1, 1, "c1"))),
            *_answered(),
        ),
        scenario(
            "surface.markers-drive-the-history",
            "With surface markers the history is the user and assistant nodes (reference test 44)",
            [FOLD, "dsh_spec.projection.derive_messages", "docs/dialect-3fe196a751.md §C11 #44"],
            "core",
            new(log(TS(1), U("hello"), SS(1, 1), CH(1, 1), A(1, 1, say="hi"), SE(1, 1), TE(1))),
            messages().gives(
                [
                    {"role": "user", "content": [{"type": "text", "text": "hello"}]},
                    {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
                ]
            ),
        ),
        scenario(
            "surface.replace-rebuilds-history",
            "A replace rebuilds the history: two messages become one (reference tests 59, 62)",
            [
                FOLD,
                "docs/dialect-3fe196a751.md §C6.2",
                "docs/dialect-3fe196a751.md §C11 #59",
                "docs/dialect-3fe196a751.md §C11 #62",
            ],
            "core",
            new(log(U("a"), U("b"))),
            messages(),
            append(replace(U("both"), 0, 1, 0, 1)),
            messages(),
            event_message(2),
        ),
        scenario(
            "surface.replace-whole-range",
            "A replace of every node leaves only the replacement, with no neighbours (reference test 35)",
            [
                STEP,
                "dsh_spec.surface.replace_range",
                "docs/dialect-3fe196a751.md §C5.4",
                "docs/dialect-3fe196a751.md §C11 #35",
            ],
            "core",
            new(log(TS(1), U("a"), U("b"))),
            *_collapsed(replace(U("summary"), 1, 2, 1, 2), seq=3, generation_then=1),
        ),
        _replaced(
            "replace-prefix",
            "A replace of the first two of three nodes links its node to the third (reference test 36)",
            ("docs/dialect-3fe196a751.md §C11 #36",),
            log(U("a"), U("b"), U("c")),
            replace(U("s"), 0, 1, 0, 1),
            [node(3, None, 2), node(2, 3, None)],
        ),
        _replaced(
            "replace-single-node",
            "A replace whose start and end are one node swaps just that node (reference test 37)",
            ("docs/dialect-3fe196a751.md §C11 #37", "docs/dialect-3fe196a751.md §I3.5 V6"),
            log(U("a"), U("b")),
            replace(U("c"), 1, 1, 1),
            [node(0, None, 2), node(2, 0, None)],
        ),
        _replaced(
            "replace-middle-node",
            "A replace in the middle links the replacement to both neighbours (reference test 42)",
            ("docs/dialect-3fe196a751.md §C11 #42",),
            log(U("a"), U("b"), U("c")),
            replace(U("x"), 1, 1, 1),
            [node(0, None, 3), node(3, 0, 2), node(2, 3, None)],
        ),
        scenario(
            "surface.replace-start-after-end-by-seq",
            "A replace whose start seq is above its end seq is fine when start comes first on the surface",
            [STEP, "docs/dialect-3fe196a751.md §C5.4", "docs/dialect-3fe196a751.md §I3.5 V1"],
            "core",
            new(log(TS(1), U("a"), U("b"), replace(U("s"), 1, 1, 1))),
            surface().gives([node(3, None, 2), node(2, 3, None)]),
            *_collapsed(replace(U("t"), 3, 2, 3, 2), seq=4, generation_then=2),
        ),
        scenario(
            "surface.replace-by-any-surface-type",
            "Any surface type may carry a replace, not only user/message",
            [STEP, "docs/dialect-3fe196a751.md §I3.5 V13"],
            "core",
            new(log(TS(1), SS(1, 1), U("a"), replace(A(1, 1), 2, 2, 2))),
            *reads(),
        ),
        _lazy(
            "replace-start-missing-lazy",
            "A replace whose start is not on the surface is refused by the next surface read at the latest",
            (
                "dsh_spec.surface.replace_range",
                "docs/dialect-3fe196a751.md §C5.4",
                "docs/dialect-3fe196a751.md §C11 #38",
            ),
            replace(U("c"), 5, 0, 0),
            Code.REPLACE_START_NOT_ON_SURFACE,
            surface(),
        ),
        _lazy(
            "replace-end-missing-lazy",
            "A replace whose end is not on the surface is refused by the next surface read at the latest",
            ("docs/dialect-3fe196a751.md §C5.4", "docs/dialect-3fe196a751.md §C11 #39"),
            replace(U("c"), 0, 99, 0),
            Code.REPLACE_END_NOT_ON_SURFACE,
            surface(),
        ),
        _lazy(
            "replace-reversed-lazy",
            "A replace whose start comes after its end on the surface is refused by the next read at latest",
            ("docs/dialect-3fe196a751.md §C5.4", "docs/dialect-3fe196a751.md §C11 #40"),
            replace(U("c"), 1, 0, 0, 1),
            Code.REPLACE_RANGE_REVERSED,
            messages(),
        ),
        scenario(
            "surface.replace-start-missing-strict",
            "A replace whose start is not on the surface is refused at append and the log is unchanged",
            [STEP, "docs/deviations.md D1", "docs/dialect-3fe196a751.md §C12 B1"],
            "strict",
            new(log(U("a"), U("b"))),
            append(replace(U("c"), 5, 0, 0)).fails(Code.REPLACE_START_NOT_ON_SURFACE),
        ),
        scenario(
            "surface.refused-replace-leaves-session-usable",
            "After a refused replace the log is unchanged and later appends and reads work",
            [
                STEP,
                "docs/deviations.md D1",
                "docs/deviations.md D3",
                "docs/dialect-3fe196a751.md §C12 B1",
                "docs/dialect-3fe196a751.md §C12 B2",
            ],
            "strict",
            new(log(U("a"), U("b"))),
            surface(),
            append(replace(U("c"), 0, 99, 0)).fails(Code.REPLACE_END_NOT_ON_SURFACE),
            events(),
            append(replace(U("c"), 0, 1, 0, 1)),
            *reads(),
        ),
        scenario(
            "surface.generation-counts-replaces",
            "The generation rises by one for every replace folded (reference test 57)",
            [FOLD, "docs/dialect-3fe196a751.md §C5.6", "docs/dialect-3fe196a751.md §C11 #57"],
            "core",
            new(log(TS(1), CTX("n0"), CTX("n1"))),
            generation().gives(0),
            append(replace(CTX("merged"), 1, 2, 1, 2)),
            generation().gives(1),
            append(replace(CTX("again"), 3, 3, 3)),
            generation().gives(2),
        ),
        scenario(
            "surface.invalidate-refolds",
            "invalidate keeps the nodes and raises the generation by one plus the replaces refolded",
            [
                "docs/dialect-3fe196a751.md §C5.5",
                "docs/dialect-3fe196a751.md §C11 #31",
                "docs/dialect-3fe196a751.md §C11 #57",
                "docs/dialect-3fe196a751.md §C11 #61",
                "docs/dialect-3fe196a751.md §C12 B13",
            ],
            "core",
            new(log(TS(1), U("a"), U("b"), replace(U("s"), 1, 2, 1, 2), U("c"))),
            generation().gives(1),
            invalidate(),
            surface(),
            generation().gives(3),
            invalidate(),
            generation().gives(5),
            messages(),
        ),
        scenario(
            "surface.invalidate-after-unread-replace-strict",
            "A replace counts in the generation when appended, and again in the refold after invalidate",
            ["docs/deviations.md D8", "docs/dialect-3fe196a751.md §C5.5"],
            "strict",
            new(log(TS(1), U("a"), U("b"))),
            append(replace(U("s"), 1, 2, 1, 2)),
            invalidate(),
            generation().gives(3),
        ),
        scenario(
            "surface.non-surface-events-ignored",
            "Events of log-only types never join the surface, whatever else is in the log",
            [STEP, "docs/dialect-3fe196a751.md §C5.3", "docs/dialect-3fe196a751.md §C11 #45"],
            "core",
            new(log(TS(1), U("a"), SS(1, 1), A(1, 1), SE(1, 1), TE(1))),
            surface().gives([node(1, None, 3), node(3, 1, None)]),
        ),
        scenario(
            "surface.empty-assistant-is-a-node",
            "An assistant message with empty content is a surface node that derives no message",
            [
                STEP,
                "dsh_spec.projection.derive_messages",
                "docs/dialect-3fe196a751.md §C6.1",
                "docs/dialect-3fe196a751.md §C11 #49",
            ],
            "core",
            new(log(TS(1), SS(1, 1), AE(1, 1), SE(1, 1), TE(1))),
            surface().gives([node(2, None, None)]),
            messages().gives([]),
        ),
        scenario(
            "surface.steering-and-context-nodes",
            "context/message and steering/message are surface nodes like the others (reference test 47)",
            [STEP, "docs/dialect-3fe196a751.md §C11 #47"],
            "core",
            new(log(TS(1), CTX("note", kind="plugin"), ST(1))),
            *reads(),
        ),
        scenario(
            "surface.replace-shadows-tool-result",
            "A replace may shadow an assistant message and its tool result together",
            [STEP, "docs/dialect-3fe196a751.md §C5.4"],
            "core",
            new(log(TS(1), SS(1, 1), A(1, 1, "c1"), TR(1, 1, "c1"), SE(1, 1))),
            append(replace(X(U("summary")), 2, 3, 2, 3)),
            *reads(),
        ),
    ]

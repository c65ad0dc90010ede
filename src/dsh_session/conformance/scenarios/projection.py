"""Projection: each event's message, and the history as the fold over the surface."""

from __future__ import annotations

from dsh_session.conformance.notation import *
from dsh_session.conformance.scenario import (
    Scenario,
    append,
    event_message,
    events,
    messages,
    new,
    scenario,
    surface,
)

EVENT = "dsh_spec.projection.derive_event_message"
HISTORY = "dsh_spec.projection.derive_messages"


def scenarios() -> list[Scenario]:
    return [
        scenario(
            "projection.turn-with-tool-call",
            "A turn with text, a tool call and its result derives user, assistant, user (reference test 1)",
            [HISTORY, "docs/dialect-3fe196a751.md §C1.10", "docs/dialect-3fe196a751.md §C11 #1"],
            "core",
            new(
                log(
                    TS(1), U("hello"), SS(1, 1), CH(1, 1), A(1, 1, "c1"), TC(1, 1, "c1"), TR(1, 1, "c1"),
                    SE(1, 1), TE(1),
                )
            ),
            messages(),
        ),
        scenario(
            "projection.user-message",
            "user/message projects to a user message with its content",
            [EVENT, "docs/dialect-3fe196a751.md §C1.10"],
            "core",
            new(log(TS(1), U("hi"))),
            event_message(1).gives({"role": "user", "content": [{"type": "text", "text": "hi"}]}),
        ),
        scenario(
            "projection.log-only-projects-nothing",
            "Events of log-only types project to nothing (reference test 64)",
            [EVENT, "docs/dialect-3fe196a751.md §C6.1", "docs/dialect-3fe196a751.md §C11 #64"],
            "core",
            new(log(TS(1), SS(1, 1), CH(1, 1), EV("todo/write", {"todos": []}))),
            event_message(0).gives(None),
            event_message(1).gives(None),
            event_message(2).gives(None),
            event_message(3).gives(None),
        ),
        scenario(
            "projection.empty-assistant-projects-nothing",
            "An assistant message with empty content projects to nothing (reference test 64)",
            [EVENT, "docs/dialect-3fe196a751.md §C6.1", "docs/dialect-3fe196a751.md §C11 #64"],
            "core",
            new(log(TS(1), SS(1, 1), AE(1, 1))),
            event_message(2).gives(None),
        ),
        scenario(
            "projection.tool-result-block",
            "tool/result projects to a user message holding one tool-result block",
            [EVENT, "docs/dialect-3fe196a751.md §C1.10"],
            "core",
            new(log(TS(1), SS(1, 1), A(1, 1, "c1"), TR(1, 1, "c1", say="done", error=True))),
            event_message(3).gives(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool-result",
                            "toolCallId": "c1",
                            "content": [{"type": "text", "text": "done"}],
                            "isError": True,
                        }
                    ],
                }
            ),
        ),
        scenario(
            "projection.context-tagged",
            "A context message is wrapped in <context source=K> text blocks (reference test 3)",
            [
                EVENT,
                "dsh_spec.projection.tagged",
                "docs/dialect-3fe196a751.md §C1.10",
                "docs/dialect-3fe196a751.md §C11 #3",
            ],
            "core",
            new(log(TS(1), CTX("note", kind="plugin"))),
            event_message(1).gives(
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": '<context source="plugin">'},
                        {"type": "text", "text": "note"},
                        {"type": "text", "text": "</context>"},
                    ],
                }
            ),
        ),
        scenario(
            "projection.context-raw",
            "A raw context message projects to its content as is; meta never reaches it (reference test 4)",
            [EVENT, "docs/dialect-3fe196a751.md §C1.10", "docs/dialect-3fe196a751.md §C11 #4"],
            "core",
            new(log(TS(1), D(CTX("raw text", envelope="raw"), meta={"k": [1, 2]}))),
            messages().gives([{"role": "user", "content": [{"type": "text", "text": "raw text"}]}]),
        ),
        scenario(
            "projection.steering-tagged",
            "A steering message is wrapped in <steering source=K> text blocks (reference test 3)",
            [EVENT, "docs/dialect-3fe196a751.md §C1.10", "docs/dialect-3fe196a751.md §C11 #3"],
            "core",
            new(log(TS(1), ST(1))),
            messages(),
        ),
        scenario(
            "projection.steering-ignores-envelope",
            "A steering message is tagged even when it says envelope raw",
            [EVENT, "docs/dialect-3fe196a751.md §C1.10"],
            "core",
            new(log(TS(1), D(ST(1), envelope="raw"))),
            messages(),
        ),
        scenario(
            "projection.context-envelope-context",
            'A context message with envelope "context" is tagged like one without',
            [EVENT, "docs/dialect-3fe196a751.md §C1.10", "docs/dialect-3fe196a751.md §C6.1"],
            "core",
            new(log(TS(1), CTX("a", envelope="context"), CTX("a"))),
            event_message(1),
            event_message(2),
        ),
        scenario(
            "projection.source-kind-is-json-text",
            "The tag's source is the JSON text of source.kind: quotes and backslashes escaped",
            [
                EVENT,
                "dsh_spec.json_value.js_string",
                "docs/dialect-3fe196a751.md §C1.10",
                "docs/dialect-3fe196a751.md §C0.4",
            ],
            "core",
            new(log(TS(1), CTX("a", kind='plug"in\\x'), ST(1, kind="\u00e9"))),
            messages(),
        ),
        scenario(
            "projection.unknown-blocks-pass-through",
            "Content blocks of unknown types reach the message unchanged",
            [EVENT, "docs/dialect-3fe196a751.md §C1.2"],
            "core",
            new(log(TS(1), D(U("a"), content=[{"type": "image", "url": "x", "meta": {"k": [1]}}]))),
            messages(),
        ),
        scenario(
            "projection.fields-that-never-reach-a-message",
            "usage, turn, step, error and meta stay out of the messages",
            [EVENT, "docs/dialect-3fe196a751.md §C1.10"],
            "core",
            new(
                log(
                    TS(1), SS(1, 1), D(A(1, 1, "c1"), usage={"inputTokens": 3, "outputTokens": 4}),
                    TC(1, 1, "c1"),
                    D(TR(1, 1, "c1", error=True), error={"name": "E", "code": "x"}, meta={"ms": 5}),
                )
            ),
            messages(),
        ),
        scenario(
            "projection.todo-write-not-on-surface",
            "todo/write is logged but never on the surface (reference tests 26-28)",
            [
                HISTORY,
                "docs/dialect-3fe196a751.md §C11 #26",
                "docs/dialect-3fe196a751.md §C11 #27",
                "docs/dialect-3fe196a751.md §C11 #28",
            ],
            "core",
            new(log(TS(1), U("a"), EV("todo/write", {"todos": [{"content": "x", "status": "pending"}]}))),
            surface(),
            messages(),
            events(),
        ),
        scenario(
            "projection.max-tokens-reason-round-trips",
            "A turn/end with reason max-tokens is logged unchanged (reference test 2)",
            [HISTORY, "docs/dialect-3fe196a751.md §C11 #2"],
            "core",
            new(log(TS(1), U("a"), TE(1, {"kind": "max-tokens"}))),
            events(),
        ),
        scenario(
            "projection.replay-equals-incremental",
            "The history derived while appending equals the history of a session seeded with the same log "
            "(reference tests 5, 58, 67)",
            [
                HISTORY,
                "docs/dialect-3fe196a751.md §C6.2",
                "docs/dialect-3fe196a751.md §C11 #5",
                "docs/dialect-3fe196a751.md §C11 #58",
                "docs/dialect-3fe196a751.md §C11 #67",
            ],
            "core",
            new(log(TS(1), U("a"))),
            messages(),
            append(SS(1, 1), time=2000),
            append(A(1, 1, "c1"), time=2001),
            messages(),
            append(TC(1, 1, "c1"), time=2002),
            append(TR(1, 1, "c1"), time=2003),
            append(replace(U("summary"), 1, 3, 1, 3), time=2004),
            messages(),
            new(
                [
                    *log(TS(1), U("a")),
                    *[
                        {**r, "seq": i + 2, "time": 2000 + i}
                        for i, r in enumerate(log(SS(1, 1), A(1, 1, "c1"), TC(1, 1, "c1"), TR(1, 1, "c1")))
                    ],
                    {**replace(U("summary"), 1, 3, 1, 3), "seq": 6, "time": 2004},
                ],
                session="replay",
            ),
            messages("replay"),
        ),
        scenario(
            "projection.replace-shows-only-replacement",
            "After a replace the history shows the replacement, not what it shadowed (reference test 46)",
            [HISTORY, "docs/dialect-3fe196a751.md §C11 #46"],
            "core",
            new(log(U("a"), replace(A(1, 1, say="compacted"), 0, 0, 0))),
            messages().gives([{"role": "assistant", "content": [{"type": "text", "text": "compacted"}]}]),
        ),
    ]

"""Projection: each event's message, and the history as the fold over the surface."""

from __future__ import annotations

from dsh_session.conformance.notation import (
    AE,
    CH,
    CTX,
    EV,
    SE,
    SS,
    ST,
    TC,
    TE,
    TR,
    TS,
    A,
    D,
    U,
    log,
    replace,
)
from dsh_session.conformance.scenario import Scenario, event_message, messages, new, scenario

EVENT = "dsh_spec.projection.derive_event_message"
HISTORY = "dsh_spec.projection.derive_messages"


def scenarios() -> list[Scenario]:
    return [
        scenario(
            "projection.turn-with-tool-call",
            "A turn with text, a tool call and its result derives user, assistant, user (reference test 1)",
            [HISTORY, "core.md §1.10", "core.md §11 #1"],
            "core",
            new(
                log(
                    TS(1),
                    U("hello"),
                    SS(1, 1),
                    CH(1, 1),
                    A(1, 1, "c1"),
                    TC(1, 1, "c1"),
                    TR(1, 1, "c1"),
                    SE(1, 1),
                    TE(1),
                )
            ),
            messages(),
        ),
        scenario(
            "projection.user-message",
            "user/message projects to a user message with its content",
            [EVENT, "core.md §1.10"],
            "core",
            new(log(TS(1), U("hi"))),
            event_message(1).gives({"role": "user", "content": [{"type": "text", "text": "hi"}]}),
        ),
        scenario(
            "projection.log-only-projects-nothing",
            "Events of log-only types project to nothing (reference test 64)",
            [EVENT, "core.md §6.1", "core.md §11 #64"],
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
            [EVENT, "core.md §6.1", "core.md §11 #64"],
            "core",
            new(log(TS(1), SS(1, 1), AE(1, 1))),
            event_message(2).gives(None),
        ),
        scenario(
            "projection.tool-result-block",
            "tool/result projects to a user message holding one tool-result block",
            [EVENT, "core.md §1.10"],
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
            [EVENT, "dsh_spec.projection.tagged", "core.md §1.10", "core.md §11 #3"],
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
            [EVENT, "core.md §1.10", "core.md §11 #4"],
            "core",
            new(log(TS(1), D(CTX("raw text", envelope="raw"), meta={"k": [1, 2]}))),
            messages().gives([{"role": "user", "content": [{"type": "text", "text": "raw text"}]}]),
        ),
        scenario(
            "projection.steering-tagged",
            "A steering message is wrapped in <steering source=K> text blocks (reference test 3)",
            [EVENT, "core.md §1.10", "core.md §11 #3"],
            "core",
            new(log(TS(1), ST(1))),
            messages(),
        ),
        scenario(
            "projection.replace-shows-only-replacement",
            "After a replace the history shows the replacement, not what it shadowed (reference test 46)",
            [HISTORY, "core.md §11 #46"],
            "core",
            new(log(U("a"), replace(A(1, 1, say="compacted"), 0, 0, 0))),
            messages().gives([{"role": "assistant", "content": [{"type": "text", "text": "compacted"}]}]),
        ),
    ]

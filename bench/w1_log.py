"""The W1 workload's log in plain mode (``bench-workload.md``), built through ``Session.append``.

One turn is 13 events: turn start, a user message, a step with five chunks,
an assistant reply that calls a tool, the call and its result, step end, turn
end. The persistence benchmarks write this log; the tests that need a long,
realistic log (crash writers, PostgreSQL) build it here too, so there is one
W1 turn to keep in step with the workload description.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from dsh_session import Event, Session, SessionHeader

#: ``createdAt`` of the W1 session's header, and the time of its first event (one ms per event after).
W1_CREATED_AT = 1767225600000
W1_TIME_BASE = 1767225646500


def append_w1_turn(append: Callable[..., Event], t: int) -> None:
    """Append W1 turn ``t`` (13 events) through ``append`` (a session's, or a wrapper of it)."""
    append("turn/start", {"turn": t, "trigger": {"kind": "message", "source": {"kind": "user"}}})
    append(
        "user/message",
        {"content": [{"type": "text", "text": f"user message {t}"}], "source": {"kind": "user"}},
        surface_op="append",
    )
    append("step/start", {"turn": t, "step": 1})
    chunks = [
        append(
            "assistant/chunk",
            {"turn": t, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": f"chunk {k} "}},
        ).seq
        for k in range(5)
    ]
    append(
        "assistant/message",
        {
            "turn": t,
            "step": 1,
            "content": [
                {"type": "text", "text": f"assistant reply {t}"},
                {"type": "tool-call", "id": f"call-{t}", "name": "echo", "arguments": '{"x":1}'},
            ],
        },
        surface_op="append",
        source_event_seqs=chunks,
    )
    call = append(
        "tool/call", {"turn": t, "step": 1, "callId": f"call-{t}", "name": "echo", "arguments": '{"x":1}'}
    )
    append(
        "tool/result",
        {
            "turn": t,
            "step": 1,
            "callId": f"call-{t}",
            "content": [{"type": "text", "text": f"result {t}"}],
            "isError": False,
        },
        surface_op="append",
        source_event_seqs=[call.seq],
    )
    append("step/end", {"turn": t, "step": 1})
    append("turn/end", {"turn": t, "reason": {"kind": "completed"}})


def w1_log(turns: int, session_id: str = "w1") -> list[Event]:
    """The W1 log of ``turns`` turns (``13 * turns`` events), times ``W1_TIME_BASE``, +1, +2, ..."""
    clock = itertools.count(W1_TIME_BASE)
    session = Session(session_id, header=SessionHeader(session_id, W1_CREATED_AT), clock=lambda: next(clock))
    for t in range(1, turns + 1):
        append_w1_turn(session.append, t)
    return list(session.events)

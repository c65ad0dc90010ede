"""Runtime checks: agent status transitions and the loop-built request cross-check.

``agent.status`` feeds one agent's announcements (``invariants.md`` §1.4 and
the reference's tests of it); ``request.check`` checks a request against a
session's log (§1.5, with the end-to-end log of §4.4). The reference's rules
are ``core``; comparing an object in a scalar field as JSON text
(``docs/deviations.md`` D-R1) is ``strict``.
"""

from __future__ import annotations

from typing import Any

from dsh_session.conformance.notation import *
from dsh_session.conformance.scenario import Act, Scenario, append, args_with, new, scenario
from dsh_spec.codes import Code

STATUS = ("dsh_spec.agent_status.check_status_transitions", "docs/dialect-3fe196a751.md §I1.4")
REQUEST = ("dsh_spec.request_check.check_loop_request", "docs/dialect-3fe196a751.md §I1.5")


def status(value: str, agent: str | None = None) -> Act:
    return Act("agent.status", args_with({"status": value}, agent=agent))


def check(request: dict[str, Any], session: str | None = None) -> Act:
    return Act("request.check", args_with({"request": request}, session=session))


def header(config: dict[str, Any], **rest: Any) -> Record:
    return EV("request/header", {"header": {"config": config, **rest}, "reason": "initial"})


def user(what: str) -> dict[str, Any]:
    return {"role": "user", "content": text(what)}


def assistant(what: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text(what)}


CONFIG = {"model": "m", "temperature": 0.5, "maxTokens": 100, "stop": ["x"]}
TOOL = {"name": "read", "description": "read a file", "parameters": {"type": "object"}}

#: Turn 1: a user message, step 1 under a header (with the answer "one"), step 2 open -- the
#: request being checked is step 2's, so its history is the user message and "one".
TWO_STEPS = log(
    TS(1), U("hi"), SS(1, 1), header(CONFIG, system="be brief", tools=[TOOL]), A(1, 1, say="one"), SE(1, 1),
    SS(1, 2), A(1, 2, say="two"),
)
HISTORY = [user("hi"), assistant("one")]
FAITHFUL: dict[str, Any] = {
    "messages": HISTORY,
    "model": "m",
    "system": "be brief",
    "temperature": 0.5,
    "maxTokens": 100,
    "stop": ["x"],
    "tools": [TOOL],
}


def but(**changes: Any) -> dict[str, Any]:
    """The faithful request with fields changed; ``None`` as a value removes the field."""
    return X(FAITHFUL, {key: DROP if value is None else value for key, value in changes.items()})


def _reference_log() -> list[Record]:
    """The end-to-end log of docs/dialect-3fe196a751.md §I4.4 up to turn 2's step/start and answer."""
    checkpoint = X(U("checkpoint"), data={"content": text("summary"), "source": {"kind": "plugin"}})
    return log(
        TS(1),
        U("List the files in the repo."),
        SS(1, 1),
        header({"model": "deepseek-chat"}),
        EV("assistant/chunk", {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "text": "r"}}),
        X(A(1, 1, "c1"), sourceEventSeqs=[4]),
        EV("tool/call", {"turn": 1, "step": 1, "callId": "c1", "name": "bash", "arguments": "{}"}),
        X(
            {
                "type": "tool/result",
                "data": {"turn": 1, "step": 1, "callId": "c1", "content": text("src"), "isError": False},
                "surfaceOp": "append",
            },
            sourceEventSeqs=[6],
        ),
        SE(1, 1),
        SS(1, 2),
        A(1, 2, say="Two entries."),
        SE(1, 2),
        TE(1),
        TS(2),
        U("Now open src."),
        EV("compact/start", {"turn": 2}),
        EV("compact/summary", {"summary": text("summary"), "shadowedRange": {"start": 1, "end": 10}}),
        replace(checkpoint, 1, 10, 15, 16, 1, 5, 7, 10),
        EV("compact/end", {"turn": 2}),
        SS(2, 1),
        A(2, 1, say="src/ contains main.py."),
    )


def agent_status() -> list[Scenario]:
    """Each case feeds one agent's (or several agents') statuses in turn."""
    return [
        _status(
            "legal-transitions",
            "idle and running alternate, either may end in disposed (reference: idle->running->idle, "
            "running->disposed accepted)",
            status("idle"), status("running"), status("idle"), status("running"), status("disposed"),
            status("idle", agent="b"), status("disposed", agent="b"),
        ),
        _status(
            "first-observation-is-accepted",
            "An agent's first status is accepted whatever it is, disposed included",
            status("disposed"), status("running", agent="b"), status("idle", agent="c"),
        ),
        _status(
            "repeat-refused",
            "A status equal to the one in force is a no-op transition (reference: running twice)",
            status("running"), status("running").fails(Code.STATUS_REPEATED), status("idle"),
            status("idle").fails(Code.STATUS_REPEATED),
        ),
        _status(
            "refused-status-is-not-recorded",
            "A refused status leaves the status in force: after idle, idle (refused), idle is refused "
            "again and running is accepted",
            status("idle"), status("idle").fails(Code.STATUS_REPEATED),
            status("idle").fails(Code.STATUS_REPEATED), status("running"),
        ),
        _status(
            "nothing-leaves-disposed",
            "After disposed every other status is refused (reference: disposed then idle); disposed "
            "again is a repeat, checked first",
            status("disposed"), status("idle").fails(Code.STATUS_LEFT_DISPOSED),
            status("running").fails(Code.STATUS_LEFT_DISPOSED),
            status("disposed").fails(Code.STATUS_REPEATED),
        ),
        _status(
            "agents-are-independent",
            "Each agent has its own status (reference: a's running does not make b's running a repeat)",
            status("running", agent="a"), status("running", agent="b"), status("disposed", agent="a"),
            status("idle", agent="b"), status("running", agent="a").fails(Code.STATUS_LEFT_DISPOSED),
        ),
    ]


def _status(name: str, title: str, *steps: Act) -> Scenario:
    """A ``core`` case of the agent-status rules: ``agent-status.<name>``."""
    return scenario(f"agent-status.{name}", title, STATUS, "core", *steps)


def request_check() -> list[Scenario]:
    return [
        scenario(
            "request-check.faithful-request",
            "A request whose messages and fields are what the log rebuilds is accepted; absent or "
            "null tools equal an absent tool list",
            REQUEST,
            "core",
            new(TWO_STEPS),
            check(FAITHFUL),
            new(log(TS(1), U("hi"), SS(1, 1), header({"model": "m"})), session="bare"),
            check({"messages": [user("hi")], "model": "m"}, session="bare"),
            check({"messages": [user("hi")], "model": "m", "tools": None}, session="bare"),
            check({"messages": [user("hi")], "model": "m", "tools": []}, session="bare"),
        ),
        scenario(
            "request-check.no-step-start-then-no-header",
            "A log with no step/start, then one with a step/start but no request header (reference: "
            "rejects a loop-built request with no header event or no step/start)",
            REQUEST,
            "core",
            new(log(TS(1))),
            check({"messages": [], "model": "m"}).fails(Code.REQUEST_STEP_START_MISSING),
            append(SS(1, 1)),
            check({"messages": [], "model": "m"}).fails(Code.REQUEST_HEADER_MISSING),
            append(header({"model": "m"})),
            check({"messages": [], "model": "m"}),
        ),
        scenario(
            "request-check.delta-before-snapshot",
            "A header delta with no snapshot before it: the fold's own refusal",
            (*REQUEST, "docs/dialect-3fe196a751.md §I2 E"),
            "core",
            new(log(TS(1), SS(1, 1), EV("request/header-delta", {"config": {"model": "m"}}))),
            check({"messages": [], "model": "m"}).fails(Code.HEADER_DELTA_BEFORE_SNAPSHOT),
        ),
        scenario(
            "request-check.messages-diverge",
            "Messages with a phantom message, a missing one, none at all, or keys in another order "
            "diverge from the derivation (reference: a phantom message)",
            REQUEST,
            "core",
            new(TWO_STEPS),
            check(but(messages=[*HISTORY, user("phantom")])).fails(Code.REQUEST_MESSAGES_MISMATCH),
            check(but(messages=HISTORY[:1])).fails(Code.REQUEST_MESSAGES_MISMATCH),
            check(but(messages=[])).fails(Code.REQUEST_MESSAGES_MISMATCH),
            check(but(messages=None)).fails(Code.REQUEST_MESSAGES_MISMATCH),
            check(but(messages=[{"content": text("hi"), "role": "user"}, HISTORY[1]])).fails(
                Code.REQUEST_MESSAGES_MISMATCH
            ),
            check(FAITHFUL),
        ),
        scenario(
            "request-check.boundary-is-the-last-step-start",
            "The history is derived from the log before the last step/start: what follows it "
            "(step 2's answer) is not in the request, what precedes it is",
            REQUEST,
            "core",
            new(TWO_STEPS),
            check(but(messages=[*HISTORY, assistant("two")])).fails(Code.REQUEST_MESSAGES_MISMATCH),
            append(SE(1, 2)),
            append(SS(1, 3)),
            check(but(messages=[*HISTORY, assistant("two")])),
            check(FAITHFUL).fails(Code.REQUEST_MESSAGES_MISMATCH),
        ),
        scenario(
            "request-check.message-prefix-first",
            "The header's messagePrefix comes before the derived history",
            REQUEST,
            "core",
            new(log(TS(1), U("hi"), SS(1, 1), header({"model": "m"}, messagePrefix=[user("prefix")]))),
            check({"messages": [user("prefix"), user("hi")], "model": "m"}),
            check({"messages": [user("hi"), user("prefix")], "model": "m"}).fails(
                Code.REQUEST_MESSAGES_MISMATCH
            ),
            check({"messages": [user("hi")], "model": "m"}).fails(Code.REQUEST_MESSAGES_MISMATCH),
        ),
        scenario(
            "request-check.header-fields-diverge",
            "model, system, temperature, maxTokens, stop and tools must be the folded header's; "
            "absent is not null (reference: a request with another model)",
            REQUEST,
            "core",
            new(TWO_STEPS),
            check(but(model="other")).fails(Code.REQUEST_HEADER_MISMATCH),
            check(but(system="be verbose")).fails(Code.REQUEST_HEADER_MISMATCH),
            check(but(system=None)).fails(Code.REQUEST_HEADER_MISMATCH),
            check(but(temperature=0.25)).fails(Code.REQUEST_HEADER_MISMATCH),
            check(but(maxTokens=None)).fails(Code.REQUEST_HEADER_MISMATCH),
            check(but(stop=[])).fails(Code.REQUEST_HEADER_MISMATCH),
            check(but(tools=[{**TOOL, "description": "other"}])).fails(Code.REQUEST_HEADER_MISMATCH),
            check(but(tools=None)).fails(Code.REQUEST_HEADER_MISMATCH),
            check(FAITHFUL),
        ),
        scenario(
            "request-check.header-folds-whole-log",
            "The header is folded over the whole log, header events after the step/start included; "
            "messages are checked before the header's fields",
            REQUEST,
            "core",
            new(TWO_STEPS),
            append(EV("request/header-delta", {"config": {"model": "n"}})),
            check(FAITHFUL).fails(Code.REQUEST_HEADER_MISMATCH),
            check({"messages": HISTORY, "model": "n", "system": "be brief", "tools": [TOOL]}),
            check({"messages": [], "model": "other"}).fails(Code.REQUEST_MESSAGES_MISMATCH),
        ),
        scenario(
            "request-check.reference-end-to-end-log",
            "The end-to-end log of dialect §I4.4: turn 2's request carries the checkpoint and "
            "the new user message",
            (*REQUEST, "docs/dialect-3fe196a751.md §I4.4"),
            "core",
            new(_reference_log()),
            check({"messages": [user("summary"), user("Now open src.")], "model": "deepseek-chat"}),
            check({"messages": [user("Now open src.")], "model": "deepseek-chat"}).fails(
                Code.REQUEST_MESSAGES_MISMATCH
            ),
        ),
        scenario(
            "request-check.object-in-a-scalar-field",
            "An object in model compares as JSON text (D-R1): equal text is equal, key order counts",
            (*REQUEST, "docs/deviations.md D-R1"),
            "strict",
            new(log(TS(1), SS(1, 1), header({"model": {"id": "m", "v": 2}}))),
            check({"messages": [], "model": {"id": "m", "v": 2}}),
            check({"messages": [], "model": {"v": 2, "id": "m"}}).fails(Code.REQUEST_HEADER_MISMATCH),
        ),
    ]


def scenarios() -> list[Scenario]:
    return [*agent_status(), *request_check()]

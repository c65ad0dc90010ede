"""The session store and fork (``core.md`` §7, tests 16-25 and 118-129).

``store.create`` / ``store.fork`` bind the new session to a handle so the
case can read it; ``time`` is the store's clock for that call (``createdAt``).
The reference's behaviour is ``core``; minting, entering, detaching and
observers where we do better (``docs/deviations.md`` D-S1..D-S5) ``strict``.
"""

from __future__ import annotations

from typing import Any

from dsh_session.conformance.notation import *
from dsh_session.conformance.scenario import Act, Scenario, append, args_with, events, messages, new, scenario
from dsh_spec.codes import Code

FORK = "dsh_spec.fork.fork_seed"
STORE = "docs/errors.md SESSION_ALREADY_EXISTS"


def create(
    id: str | None = None,
    *,
    session: str = "s",
    seed: list[Record] | None = None,
    cwd: str | None = None,
    parent: str | None = None,
    store: str | None = None,
    time: int = 1_767_225_600_000,
) -> Act:
    args = args_with(
        {"session": session, "time": time}, id=id, seed=seed, cwd=cwd, parentSession=parent, store=store
    )
    return Act("store.create", args)


def fork(
    source: str | None = None,
    *,
    boundary: Any = None,
    child: str | None = None,
    session: str = "child",
    source_session: str | None = None,
    time: int = 1_767_225_700_000,
) -> Act:
    args = args_with(
        {"session": session, "time": time},
        source=source,
        sourceSession=source_session,
        boundary=boundary,
        childId=child,
    )
    return Act("store.fork", args)


def listing(store: str | None = None) -> Act:
    return Act("store.list", {} if store is None else {"store": store})


def enter(session: str = "s", store: str | None = None) -> Act:
    return Act("store.enter", args_with({"session": session}, store=store))


def remove(session: str = "s") -> Act:
    return Act("store.remove", {"session": session})


def observe(fail: str | None = None, observer: str = "o") -> Act:
    return Act("store.observe", args_with({"observer": observer}, fail=fail))


def heard(observer: str = "o") -> Act:
    return Act("store.observed", {"observer": observer})


TWO_TURN_RECORDS = (TS(1), U("first"), TE(1), TS(2), U("second"), SS(2, 1), A(2, 1), SE(2, 1), TE(2))
TWO_TURNS = log(*TWO_TURN_RECORDS)


def scenarios() -> list[Scenario]:
    return store_scenarios() + fork_scenarios()


def store_scenarios() -> list[Scenario]:
    # A session_event observer that fails ("bad") beside one that does not ("good"), then an append.
    failing_event_observer = (
        observe("event", observer="bad"),
        observe(observer="good"),
        create("a", seed=log(TS(1))),
        append(U("hi"), time=2000),
        events(),
        heard("good"),
    )
    return [
        scenario(
            "store.create-and-list",
            "Created sessions are live and listed in entry order (test 16)",
            (STORE, "docs/dialect-3fe196a751.md §C7.2", "docs/dialect-3fe196a751.md §C11 #16"),
            "core",
            create("a"),
            create("b", session="t"),
            listing().gives(["a", "b"]),
        ),
        scenario(
            "store.header-minimal",
            "A bare created session has a minimal current-version header (test 20)",
            (STORE, "docs/dialect-3fe196a751.md §C7.2", "docs/dialect-3fe196a751.md §C11 #20"),
            "core",
            create("plain").gives({"version": 0, "id": "plain", "createdAt": 1_767_225_600_000}),
        ),
        scenario(
            "store.header-cwd-and-parent",
            "cwd and parentSession go into the header (test 21)",
            (STORE, "docs/dialect-3fe196a751.md §C11 #21"),
            "core",
            create("child", cwd="/srv/repo", parent="parent"),
        ),
        scenario(
            "store.duplicate-id",
            "Creating a live id again is refused (test 17)",
            (STORE, "docs/dialect-3fe196a751.md §C7.2", "docs/dialect-3fe196a751.md §C11 #17"),
            "core",
            create("fixed"),
            create("fixed", session="t").fails(Code.SESSION_ALREADY_EXISTS),
            listing().gives(["fixed"]),
        ),
        scenario(
            "store.create-with-seed",
            "A session created with a seed derives what its source did (test 17)",
            (STORE, "docs/dialect-3fe196a751.md §C11 #17"),
            "core",
            create("src", seed=TWO_TURNS),
            create("copy", seed=TWO_TURNS, session="t"),
            messages(),
            Act("session.messages", {"session": "t"}),
        ),
        scenario(
            "store.create-with-bad-seed",
            "A bad seed is refused with its rule's code and nothing is registered",
            (STORE, "dsh_spec.validation.check_seed", "docs/dialect-3fe196a751.md §C7.2"),
            "core",
            create("x", seed=[{**log(TS(1))[0], "seq": 3}]).fails(Code.SEQ_NOT_CONTIGUOUS),
            listing().gives([]),
        ),
        scenario(
            "store.cwd-not-absolute",
            "A relative cwd is refused and nothing is registered (test 22)",
            (STORE, "docs/errors.md CWD_NOT_ABSOLUTE", "docs/dialect-3fe196a751.md §C11 #22"),
            "core",
            create("a", cwd="relative/dir").fails(Code.CWD_NOT_ABSOLUTE),
            create("b", cwd="").fails(Code.CWD_NOT_ABSOLUTE),
            listing().gives([]),
        ),
        scenario(
            "store.minted-ids",
            "Sessions created without an id get session-1, session-2, ...",
            (STORE, "docs/dialect-3fe196a751.md §C7.2"),
            "core",
            create(),
            create(session="t"),
            listing().gives(["session-1", "session-2"]),
        ),
        scenario(
            "store.observers-hear-creation-and-events",
            "Observers hear each announced session and its appended events (test 16)",
            (STORE, "docs/dialect-3fe196a751.md §C7.4", "docs/dialect-3fe196a751.md §C11 #16"),
            "core",
            observe(),
            create("a", seed=log(TS(1))),
            append(U("hi"), time=2000),
            heard(),
        ),
        scenario(
            "store.observer-failure-rolls-back",
            "A failing session_created observer makes create fail and "
            "roll the session back; the id can be used again (test 25)",
            (STORE, "docs/errors.md OBSERVER_FAILED", "docs/dialect-3fe196a751.md §C11 #25"),
            "core",
            observe("created"),
            create("a").fails(Code.OBSERVER_FAILED),
            listing().gives([]),
        ),
        scenario(
            "store.enter-live-id",
            "Entering a session whose id is live is refused (test 18)",
            (STORE, "docs/dialect-3fe196a751.md §C7.3", "docs/dialect-3fe196a751.md §C11 #18"),
            "core",
            create("racy"),
            new([], id="racy", session="stale"),
            enter("stale").fails(Code.SESSION_ALREADY_EXISTS),
            listing().gives(["racy"]),
        ),
        scenario(
            "store.enter-and-remove",
            "A session entered directly is live until removed (test 19)",
            (
                STORE,
                "docs/dialect-3fe196a751.md §C7.3",
                "docs/dialect-3fe196a751.md §C11 #19",
                "docs/dialect-3fe196a751.md §C11 #24",
            ),
            "core",
            new([], id="manual"),
            enter(),
            listing().gives(["manual"]),
            remove().gives(True),
            listing().gives([]),
        ),
        # -- strict ---------------------------------------------------------------------------
        scenario(
            "store.minting-skips-live-ids",
            "A minted id skips ids already live",
            (STORE, "docs/deviations.md D-S1", "docs/dialect-3fe196a751.md §C12 B17"),
            "strict",
            create("session-1"),
            create(session="t").gives({"version": 0, "id": "session-2", "createdAt": 1_767_225_600_000}),
        ),
        scenario(
            "store.refused-create-mints-nothing",
            "A refused create does not use up a minted id",
            (STORE, "docs/deviations.md D-S1", "docs/dialect-3fe196a751.md §C12 B17"),
            "strict",
            create(cwd="relative").fails(Code.CWD_NOT_ABSOLUTE),
            create(session="t"),
            listing().gives(["session-1"]),
        ),
        scenario(
            "store.announced-id-stays-used",
            "A minted id that observers heard of stays used when one of them fails the create",
            (STORE, "docs/deviations.md D-S1", "docs/errors.md OBSERVER_FAILED"),
            "strict",
            observe(observer="all"),
            observe("created"),
            create().fails(Code.OBSERVER_FAILED),
            create(session="t").fails(Code.OBSERVER_FAILED),
            heard("all").gives([["created", "session-1"], ["created", "session-2"]]),
            listing().gives([]),
        ),
        scenario(
            "store.enter-checks-cwd",
            "Entering a session whose header has a relative cwd is refused",
            (STORE, "docs/deviations.md D-S2", "docs/dialect-3fe196a751.md §C12 B17"),
            "strict",
            new([], id="rel", cwd="relative/dir"),
            enter().fails(Code.CWD_NOT_ABSOLUTE),
            listing().gives([]),
        ),
        scenario(
            "store.enter-twice-in-two-stores",
            "A session object entered in one store cannot enter another",
            (STORE, "docs/errors.md SESSION_ALREADY_ENTERED", "docs/deviations.md D-S2"),
            "strict",
            new([], id="shared"),
            enter(),
            enter(store="other").fails(Code.SESSION_ALREADY_ENTERED),
            listing("other").gives([]),
        ),
        scenario(
            "store.remove-is-identity-safe",
            "Removing a detached session object leaves the live one of the same id alone",
            (STORE, "docs/deviations.md D-S3", "docs/dialect-3fe196a751.md §C12 B18"),
            "strict",
            create("x", session="old"),
            remove("old").gives(True),
            create("x", session="new"),
            remove("old").gives(False),
            listing().gives(["x"]),
        ),
        scenario(
            "store.observer-failure-on-event-is-reported",
            "A failing session_event observer neither fails "
            "the append nor stops the other observers; the failure is reported",
            (
                STORE,
                "docs/deviations.md D-S4",
                "docs/dialect-3fe196a751.md §C12 B11",
                "docs/errors.md OBSERVER_FAILED",
            ),
            "strict",
            *failing_event_observer,
            Act("store.observer_errors", {}),
        ),
        scenario(
            "store.observer-failure-on-event-keeps-the-append",
            "A failing session_event observer does not fail the append: the event is logged and the "
            "other observers hear of it",
            (STORE, "docs/deviations.md D-S4", "docs/dialect-3fe196a751.md §C12 B11"),
            "strict",
            *failing_event_observer,
        ),
    ]


def fork_scenarios() -> list[Scenario]:
    refs = (FORK, "docs/dialect-3fe196a751.md §C7.5")
    reasons: list[dict[str, Any]] = [
        {"kind": "completed"},
        {"kind": "aborted", "reason": "user"},
        {"kind": "error", "step": 1, "message": "boom", "code": "E"},
        {"kind": "disposed"},
        {"kind": "max-tokens"},
        {"kind": "interrupted"},
    ]
    out = [
        scenario(
            "fork.empty-source",
            "Forking an empty session gives an empty child with lineage (test 118)",
            (*refs, "docs/dialect-3fe196a751.md §C11 #118"),
            "core",
            create("empty", cwd="/srv/repo"),
            fork("empty", child="kid"),
            events("child").gives([]),
        ),
        scenario(
            "fork.default-boundary",
            "Without a boundary the child takes the whole log, which ends a turn (test 119)",
            (*refs, "docs/dialect-3fe196a751.md §C11 #119"),
            "core",
            create("p", seed=TWO_TURNS, cwd="/w"),
            fork("p", child="kid"),
            events("child"),
            messages("child"),
        ),
        scenario(
            "fork.earlier-boundary-open-tail",
            "A child forked at an earlier turn/end leaves the open tail behind (test 120)",
            (*refs, "docs/dialect-3fe196a751.md §C11 #120"),
            "core",
            create("p", seed=log(*TWO_TURN_RECORDS, TS(3), U("third"))),
            fork("p", boundary=2, child="kid"),
            events("child"),
            messages("child"),
        ),
        scenario(
            "fork.minted-child-id",
            "A fork without a child id mints one",
            (*refs, "docs/dialect-3fe196a751.md §C7.5"),
            "core",
            create("p", seed=TWO_TURNS),
            fork("p"),
            listing().gives(["p", "session-1"]),
        ),
        scenario(
            "fork.integral-float-boundary",
            "A boundary of 2.0 is the integer 2",
            (*refs, "docs/dialect-3fe196a751.md §C7.5"),
            "core",
            create("p", seed=TWO_TURNS),
            fork("p", boundary=2.0, child="kid"),
            events("child"),
        ),
        scenario(
            "fork.boundary-on-empty-source",
            "A boundary on an empty source names no event (test 122)",
            (*refs, "docs/dialect-3fe196a751.md §C11 #122"),
            "core",
            create("empty"),
            fork("empty", boundary=0, child="kid").fails(Code.INVALID_BOUNDARY),
            listing().gives(["empty"]),
        ),
        scenario(
            "fork.unknown-source",
            "Forking an unknown id is refused (test 124)",
            (*refs, "docs/dialect-3fe196a751.md §C11 #124"),
            "core",
            fork("missing").fails(Code.SESSION_NOT_FOUND),
        ),
        scenario(
            "fork.detached-source",
            "Forking a detached session object is refused (test 125)",
            (*refs, "docs/dialect-3fe196a751.md §C11 #125"),
            "core",
            create("detached", seed=TWO_TURNS),
            remove(),
            fork(source_session="s").fails(Code.SESSION_NOT_FOUND),
        ),
        scenario(
            "fork.stale-source",
            "Forking a stale object whose id is live on another is refused (test 126)",
            (*refs, "docs/errors.md SESSION_NOT_LIVE", "docs/dialect-3fe196a751.md §C11 #126"),
            "core",
            create("same-id", session="old", seed=TWO_TURNS),
            remove("old"),
            create("same-id", session="new", seed=TWO_TURNS),
            fork(source_session="old").fails(Code.SESSION_NOT_LIVE),
        ),
        scenario(
            "fork.child-id-live",
            "A child id that is live is refused (test 128)",
            (*refs, "docs/dialect-3fe196a751.md §C11 #128"),
            "core",
            create("p", seed=TWO_TURNS),
            create("taken", session="t"),
            fork("p", child="taken").fails(Code.SESSION_ALREADY_EXISTS),
        ),
        scenario(
            "fork.child-id-checked-first",
            "A live child id is refused before the boundary is looked at (test 129)",
            (*refs, "docs/dialect-3fe196a751.md §C11 #129"),
            "core",
            create("p", seed=log(TS(1), U("a"))),
            create("taken", session="t"),
            fork("p", child="taken").fails(Code.SESSION_ALREADY_EXISTS),
        ),
        scenario(
            "fork.default-boundary-open-turn",
            "Without a boundary a source ending inside a turn is refused",
            (*refs, "docs/dialect-3fe196a751.md §C12 B17"),
            "core",
            create("p", seed=log(TS(1), U("a"))),
            fork("p").fails(Code.OPEN_TURN),
        ),
    ]
    out += [
        scenario(
            "fork.minted-child-skips-live-ids",
            "A fork without a child id mints the next free id, skipping ids already live",
            (
                *refs,
                "docs/deviations.md D-S5",
                "docs/deviations.md D-S1",
                "docs/dialect-3fe196a751.md §C12 B17",
            ),
            "strict",
            create("p", seed=TWO_TURNS),
            create("session-1", session="t"),
            fork("p"),
            listing().gives(["p", "session-1", "session-2"]),
        ),
        scenario(
            "fork.observer-failure-rolls-back-child",
            "A fork whose session_created observer fails leaves no child behind",
            (*refs, "docs/deviations.md D-S5", "docs/deviations.md D-S4"),
            "strict",
            create("p", seed=TWO_TURNS),
            observe("created"),
            fork("p").fails(Code.OBSERVER_FAILED),
            listing().gives(["p"]),
        ),
    ]
    for index, reason in enumerate(reasons):
        out.append(
            scenario(
                f"fork.turn-end-reason-{reason['kind']}",
                f"A turn/end with reason {reason['kind']} is a valid boundary (test 121)",
                (*refs, "docs/dialect-3fe196a751.md §C11 #121"),
                "core",
                create("p", seed=log(TS(1), U("a"), TE(1, reason))),
                fork("p", boundary=2, child=f"kid-{index}"),
                events("child"),
            )
        )
    for value, label in ((-1, "negative"), (0.5, "fraction"), (9007199254740992, "unsafe"), (True, "bool")):
        out.append(
            scenario(
                f"fork.boundary-{label}",
                f"A boundary of {value!r} is not a non-negative safe integer (test 122)",
                (*refs, "dsh_spec.fork.safe_boundary", "docs/dialect-3fe196a751.md §C11 #122"),
                "core",
                create("p", seed=TWO_TURNS),
                fork("p", boundary=value, child="kid").fails(Code.INVALID_BOUNDARY),
            )
        )
    out.append(
        scenario(
            "fork.boundary-past-end",
            "A boundary at the log's length names no event (test 122)",
            (*refs, "docs/dialect-3fe196a751.md §C11 #122"),
            "core",
            create("p", seed=TWO_TURNS),
            fork("p", boundary=len(TWO_TURNS), child="kid").fails(Code.INVALID_BOUNDARY),
        )
    )
    open_turn = log(TS(1), SS(1, 1), U("a"), A(1, 1, "c1"), TC(1, 1, "c1"))
    for boundary, kind in enumerate(
        ["turn-start", "step-start", "user-message", "assistant-message", "tool-call"]
    ):
        out.append(
            scenario(
                f"fork.boundary-inside-turn-{kind}",
                f"A boundary at a {kind.replace('-', '/', 1)} is inside an open turn (test 127)",
                (*refs, "docs/errors.md OPEN_TURN", "docs/dialect-3fe196a751.md §C11 #127"),
                "core",
                create("p", seed=open_turn),
                fork("p", boundary=boundary, child="kid").fails(Code.OPEN_TURN),
            )
        )
    return out

"""Request headers: the delta codec, equality, the writer's decision and the fold (``core.md`` §10).

``header.*`` operations take headers as JSON (``{config, system?, tools?,
messagePrefix?}``) and read them in canonical form; ``session.request_header``
folds a session's log. The reference's tests 81-97 are ``core``; our changes
(``docs/deviations.md`` D-H1..D-H3) are ``strict``.
"""

from __future__ import annotations

from typing import Any

from dsh_session.conformance.notation import *
from dsh_session.conformance.scenario import Act, Scenario, args_with, new, request_header, scenario
from dsh_spec.codes import Code

DIFF = "dsh_spec.request_header.diff_header"
APPLY = "dsh_spec.request_header.apply_header_delta"
EQUALS = "dsh_spec.request_header.header_equals"
WRITER = "dsh_spec.request_header.next_header_event"
FOLD = "dsh_spec.request_header.fold_request_header"

CONFIG = {"model": "m1", "temperature": 0.2}
READ = {"name": "read", "description": "read a file", "parameters": {"type": "object"}}
WRITE = {"name": "write", "description": "write a file", "parameters": {"type": "object"}}
EDIT = {"name": "edit", "description": "edit a file", "parameters": {"type": "object"}}
PREFIX = [{"role": "user", "content": [{"type": "text", "text": "prefix"}]}]


def h(
    system: str | None = None,
    tools: list[Any] | None = None,
    prefix: list[Any] | None = None,
    config: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return args_with(
        {"config": config if config is not None else CONFIG}, system=system, tools=tools, messagePrefix=prefix
    )


def diff(prev: dict[str, Any], next: dict[str, Any]) -> Act:
    return Act("header.diff", {"prev": prev, "next": next})


def apply(prev: dict[str, Any], delta: dict[str, Any]) -> Act:
    return Act("header.apply", {"prev": prev, "delta": delta})


def equals(a: dict[str, Any], b: dict[str, Any]) -> Act:
    return Act("header.equals", {"a": a, "b": b})


def decide(prev: dict[str, Any] | None, next: dict[str, Any], first: bool = False) -> Act:
    return Act("header.next_event", {"prev": prev, "next": next, "firstRequest": first})


def round_trip(prev: dict[str, Any], next: dict[str, Any]) -> list[Act]:
    """The delta from ``prev`` to ``next``, and ``next`` back from applying it (the spec gives both)."""
    from dsh_spec import delta_json, diff_header, parse_header

    a, b = parse_header(prev), parse_header(next)
    assert not isinstance(a, Exception) and not isinstance(b, Exception)
    delta = diff_header(a, b)  # type: ignore[arg-type]
    assert delta is not None
    return [diff(prev, next), apply(prev, delta_json(delta)), decide(prev, next)]


def snapshot(header: dict[str, Any], reason: str = "initial") -> dict[str, Any]:
    return EV("request/header", {"header": header, "reason": reason})


def delta(data: dict[str, Any]) -> dict[str, Any]:
    return EV("request/header-delta", data)


def _fold(
    name: str, title: str, refs: tuple[str, ...], profile: str, records: list[Record], want: Any
) -> Scenario:
    """``request-header.<name>``: the request header a session seeded with ``records`` folds to is
    ``want`` (a header, ``None``, or the :class:`Code` the read fails with)."""
    steps = new(log(*records)), request_header().ends(want)
    return scenario(f"request-header.{name}", title, (FOLD, *refs), profile, *steps)


def scenarios() -> list[Scenario]:
    system_a = "keep1\nold\nkeep2\nkeep3"
    system_b = "keep1\nnew A\nnew B\nkeep2\nkeep3"
    out = [
        scenario(
            "request-header.canonical-empty-fields",
            "An empty system, tool list and prefix equal absent ones (tests 81, 90, 91)",
            (
                EQUALS,
                "dsh_spec.request_header.canonical_header",
                "docs/dialect-3fe196a751.md §C10.1",
                "docs/dialect-3fe196a751.md §C11 #81",
                "docs/dialect-3fe196a751.md §C11 #90",
                "docs/dialect-3fe196a751.md §C11 #91",
            ),
            "core",
            equals(h("", [], []), h()).gives(True),
            diff(h("", [], []), h()).gives(None),
            equals(h("x"), h()).gives(False),
            equals(h(tools=[READ]), h(tools=[WRITE])).gives(False),
        ),
        scenario(
            "request-header.equal-headers-no-delta",
            "Equal headers have no delta and log nothing (test 82)",
            (DIFF, WRITER, "docs/dialect-3fe196a751.md §C11 #82"),
            "core",
            diff(h("s", [READ]), h("s", [READ])).gives(None),
            decide(h("s", [READ]), h("s", [READ])).gives(None),
        ),
        scenario(
            "request-header.system-mid-change",
            "A changed middle line is a prefix/suffix trim (test 83)",
            (
                DIFF,
                "dsh_spec.request_header.diff_system",
                "docs/dialect-3fe196a751.md §C10.2",
                "docs/dialect-3fe196a751.md §C11 #83",
            ),
            "core",
            diff(h(system_a), h(system_b)).gives(
                {"system": {"keepStart": 1, "keepEnd": 2, "insert": ["new A", "new B"]}}
            ),
            *round_trip(h(system_a), h(system_b)),
        ),
        scenario(
            "request-header.system-from-and-to-absent",
            "A system prompt gained and lost again (test 84)",
            (DIFF, APPLY, "docs/dialect-3fe196a751.md §C11 #84"),
            "core",
            diff(h(), h("x\ny")).gives({"system": {"keepStart": 0, "keepEnd": 0, "insert": ["x", "y"]}}),
            diff(h("x\ny"), h()).gives({"system": {"keepStart": 0, "keepEnd": 0, "insert": []}}),
            *round_trip(h(), h("x\ny")),
            *round_trip(h("x\ny"), h()),
        ),
        scenario(
            "request-header.system-no-double-count",
            "Prefix and suffix never overlap (test 85)",
            (DIFF, APPLY, "docs/dialect-3fe196a751.md §C11 #85"),
            "core",
            *round_trip(h("a\na"), h("a\na\na")),
        ),
        scenario(
            "request-header.system-empty-lines-kept",
            "Lines split on newline exactly, empty ones kept",
            (DIFF, APPLY, "docs/dialect-3fe196a751.md §C10.2"),
            "core",
            *round_trip(h("a\n\nb\r\n"), h("a\n\nc\r\n")),
        ),
        scenario(
            "request-header.tools-by-name",
            "Tools added, removed and changed by name (test 86)",
            (
                DIFF,
                "dsh_spec.request_header.diff_tools",
                "docs/dialect-3fe196a751.md §C10.3",
                "docs/dialect-3fe196a751.md §C11 #86",
            ),
            "core",
            *round_trip(h(tools=[READ, WRITE]), h(tools=[{**READ, "description": "read"}, EDIT])),
        ),
        scenario(
            "request-header.tools-gained-and-lost",
            "A tool set gained from none and lost again (test 87)",
            (DIFF, APPLY, "docs/dialect-3fe196a751.md §C11 #87"),
            "core",
            *round_trip(h(), h(tools=[READ])),
            *round_trip(h(tools=[READ]), h()),
        ),
        scenario(
            "request-header.tools-reorder-falls-back",
            "A pure reordering has a delta that does not round-trip; "
            "the writer logs a fallback snapshot (test 88)",
            (DIFF, WRITER, "docs/dialect-3fe196a751.md §C11 #88", "docs/dialect-3fe196a751.md §C10.6"),
            "core",
            diff(h(tools=[READ, WRITE]), h(tools=[WRITE, READ])),
            apply(h(tools=[READ, WRITE]), {"tools": {"added": [], "removed": [], "changed": []}}),
            decide(h(tools=[READ, WRITE]), h(tools=[WRITE, READ])),
        ),
        scenario(
            "request-header.tool-inserted-first-falls-back",
            "A tool inserted before the others needs a fallback snapshot",
            (WRITER, "docs/dialect-3fe196a751.md §C12 B19"),
            "core",
            decide(h(tools=[READ]), h(tools=[EDIT, READ])),
        ),
        scenario(
            "request-header.config-replaced-whole",
            "A config change replaces the config whole (test 89)",
            (DIFF, "docs/dialect-3fe196a751.md §C10.4", "docs/dialect-3fe196a751.md §C11 #89"),
            "core",
            diff(h("s", [READ]), h("s", [READ], config={"model": "m2", "temperature": 0.1})).gives(
                {"config": {"model": "m2", "temperature": 0.1}}
            ),
            *round_trip(h("s"), h("s", config={"model": "m2", "temperature": 0.1})),
        ),
        scenario(
            "request-header.prefix-replaced-whole",
            "A changed prefix is replaced whole (test 92)",
            (DIFF, "docs/dialect-3fe196a751.md §C11 #92"),
            "core",
            *round_trip(h(prefix=PREFIX), h(prefix=[*PREFIX, {"role": "assistant", "content": []}])),
        ),
        scenario(
            "request-header.prefix-gained-and-lost",
            "A prefix gained from a bare header and lost (test 93)",
            (DIFF, APPLY, "docs/dialect-3fe196a751.md §C11 #93"),
            "core",
            diff(h(), h(prefix=PREFIX)).gives({"messagePrefix": PREFIX}),
            diff(h(prefix=PREFIX), h()).gives({"messagePrefix": []}),
            *round_trip(h(prefix=PREFIX), h()),
        ),
        scenario(
            "request-header.writer-first-request",
            "A loop's first request logs a snapshot: initial with no header in force, resume with one",
            (WRITER, "docs/dialect-3fe196a751.md §C10.6"),
            "core",
            decide(None, h("s"), True),
            decide(h("s"), h("s"), True),
            decide(h("s"), h("t"), True),
        ),
        scenario(
            "request-header.apply-tolerates-foreign-deltas",
            "Applying tolerates an unknown changed name, a duplicate added name and keepEnd beyond the lines",
            (APPLY, "docs/dialect-3fe196a751.md §C12 B19"),
            "core",
            apply(h("a\nb", [READ]), {"tools": {"added": [READ], "removed": [], "changed": [EDIT]}}),
            apply(h("a\nb"), {"system": {"keepStart": 0, "keepEnd": 9, "insert": ["x"]}}),
        ),
        _fold(
            "fold-no-header-events",
            "A log with no header events has no header (test 95)",
            ("docs/dialect-3fe196a751.md §C11 #95",),
            "core",
            [TS(1), U("a"), TE(1)],
            None,
        ),
        scenario(
            "request-header.fold-snapshots-and-deltas",
            "Snapshots and deltas fold into the header in force; a later snapshot replaces it (tests 94, 96)",
            (
                FOLD,
                "docs/dialect-3fe196a751.md §C10.5",
                "docs/dialect-3fe196a751.md §C11 #94",
                "docs/dialect-3fe196a751.md §C11 #96",
            ),
            "core",
            new(
                log(
                    TS(1),
                    SS(1, 1),
                    snapshot(h("s\nt", [READ])),
                    SE(1, 1),
                    SS(1, 2),
                    delta(
                        {"system": {"keepStart": 1, "keepEnd": 0, "insert": ["u"]}, "messagePrefix": PREFIX}
                    ),
                    SE(1, 2),
                    TE(1),
                )
            ),
            request_header(),
            Act(
                "session.append",
                {"type": "request/header", "data": {"header": h("fresh"), "reason": "resume"}, "time": 5000},
            ),
            request_header().gives(h("fresh")),
        ),
        _fold(
            "delta-before-snapshot-lazy",
            "A delta before any snapshot breaks the fold at the next read (test 97)",
            ("docs/dialect-3fe196a751.md §C11 #97", "docs/dialect-3fe196a751.md §I3.2 S10"),
            "core",
            [TS(1), SS(1, 1), delta({"config": {"model": "m"}})],
            Code.HEADER_DELTA_BEFORE_SNAPSHOT,
        ),
    ]
    out += [
        scenario(
            "request-header.config-key-order-is-a-change",
            "Configs compare as JSON text: reordered keys are a change",
            (EQUALS, DIFF, "docs/deviations.md D-H1", "docs/dialect-3fe196a751.md §C12 B19"),
            "strict",
            equals(
                h(config={"model": "m", "temperature": 0.2}), h(config={"temperature": 0.2, "model": "m"})
            ).gives(False),
            diff(h(config={"model": "m", "temperature": 0.2}), h(config={"temperature": 0.2, "model": "m"})),
        ),
        scenario(
            "request-header.config-any-key-is-a-change",
            "A change in any config key is a change, not only the four the reference compares",
            (EQUALS, WRITER, "docs/deviations.md D-H1"),
            "strict",
            equals(h(config={"model": "m", "topP": 0.9}), h(config={"model": "m", "topP": 0.5})).gives(False),
            decide(h(config={"model": "m", "topP": 0.9}), h(config={"model": "m", "topP": 0.5})),
        ),
        scenario(
            "request-header.system-empty-equals-absent",
            "An empty system prompt and an absent one are one representation",
            (EQUALS, "docs/deviations.md D-H1"),
            "strict",
            equals(h(""), h()).gives(True),
        ),
        scenario(
            "request-header.writer-no-header-in-force",
            "A later request with no header in force logs an initial snapshot",
            (WRITER, "docs/deviations.md D-H2"),
            "strict",
            decide(None, h("s"), False),
        ),
        _fold(
            "fold-heals-at-snapshot",
            "A delta before any snapshot breaks the fold only until the next valid snapshot",
            ("docs/deviations.md D-H3", "docs/dialect-3fe196a751.md §C12 B10"),
            "strict",
            [TS(1), SS(1, 1), delta({"config": {"model": "m"}}), snapshot(h("s"))],
            h("s"),
        ),
        _fold(
            "fold-malformed-snapshot",
            "A snapshot without a config is MALFORMED_REQUEST_HEADER",
            ("dsh_spec.request_header.parse_header", "docs/deviations.md D-H3"),
            "strict",
            [TS(1), SS(1, 1), snapshot({"system": "s"})],
            Code.MALFORMED_REQUEST_HEADER,
        ),
        _fold(
            "fold-null-system",
            "A snapshot whose system is null is malformed",
            ("docs/deviations.md D-H3",),
            "strict",
            [TS(1), snapshot({"config": CONFIG, "system": None})],
            Code.MALFORMED_REQUEST_HEADER,
        ),
        _fold(
            "fold-malformed-delta",
            "A delta with a negative keepStart is MALFORMED_HEADER_DELTA",
            ("dsh_spec.request_header.parse_delta", "docs/deviations.md D-H3"),
            "strict",
            [TS(1), snapshot(h("s")), delta({"system": {"keepStart": -1, "keepEnd": 0, "insert": []}})],
            Code.MALFORMED_HEADER_DELTA,
        ),
        _fold(
            "fold-tools-not-named",
            "A delta adding a tool without a name is malformed",
            ("docs/deviations.md D-H3",),
            "strict",
            [TS(1), snapshot(h("s")), delta({"tools": {"added": [{}], "removed": [], "changed": []}})],
            Code.MALFORMED_HEADER_DELTA,
        ),
        scenario(
            "request-header.equals-malformed-header",
            "Comparing a header whose tools are not objects is refused",
            (EQUALS, "dsh_spec.request_header.parse_header"),
            "strict",
            equals(h(tools=["read"]), h()).fails(Code.MALFORMED_REQUEST_HEADER),
        ),
        scenario(
            "request-header.apply-malformed-delta",
            "Applying a delta whose config is not an object is refused",
            (APPLY, "dsh_spec.request_header.parse_delta"),
            "strict",
            apply(h("s"), {"config": "m"}).fails(Code.MALFORMED_HEADER_DELTA),
        ),
    ]
    return out

"""Request headers, implementation against spec: snapshots, deltas and malformed ones, folded.

The machine plays a loop that sends requests under changing headers (config,
system prompt by lines, tools by name, message prefix; numbers and key orders
JavaScript writes its own way). Before each request both sides decide what to
log -- ``next_header_event``: nothing, a delta, or a snapshot -- and must decide
alike; the implementation's choice is appended. Between requests it logs
things a writer should not: snapshots and deltas that are malformed in every
field (a count that is negative, a bool or a float, lines that are not
strings, tools without names, a prefix of non-objects, data that is not an
object), deltas before any snapshot, other events. After every step the
header in force -- ``Session.request_header()``, folded incrementally, and the
fold of a fresh session seeded with the log -- must be the spec's header, or
the same refusal (code and seq).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

import dsh_spec
from dsh_session import EpochHeader, RequestHeaderError, Session, next_header_event
from dsh_spec import Rejection
from tests.machine_logs import JS_KEYS, JS_NUMBERS
from tests.machine_support import Twin, plain, require, same_json

TOOL_NAMES = ("read", "write", "bash", "grep")
LINES = st.lists(
    st.sampled_from(("You are helpful.", "", "Be brief.", "Rules:", "- one", "- two")), max_size=5
)
tools = st.lists(
    st.builds(
        lambda name, n: {
            "name": name,
            "description": f"{name} tool",
            "parameters": {"type": "object", "n": n},
        },
        st.sampled_from(TOOL_NAMES),
        st.sampled_from(JS_NUMBERS[:6]),
    ),
    max_size=4,
)
configs = st.builds(
    lambda model, key, number: {"model": model, key: number},
    st.sampled_from(("m1", "m2")),
    st.sampled_from(JS_KEYS),
    st.sampled_from(JS_NUMBERS),
)
prefixes = st.lists(
    st.builds(lambda text: {"role": "user", "content": text}, st.sampled_from(("a", "b"))), max_size=2
)


@st.composite
def headers(draw: st.DrawFn) -> dict[str, Any]:
    out: dict[str, Any] = {"config": draw(configs)}
    if draw(st.booleans()):
        out["system"] = "\n".join(draw(LINES))
    if draw(st.booleans()):
        out["tools"] = draw(tools)
    if draw(st.booleans()):
        out["messagePrefix"] = draw(prefixes)
    return out


BAD_COUNTS = (-1, True, 1.5, "1", None)
#: Deltas that break the fold (MALFORMED_HEADER_DELTA), and a few that do not (``1.0`` is the
#: integer 1; unknown keys are ignored) but must still be refused before any snapshot.
BAD_DELTAS: tuple[Any, ...] = (
    *({"system": {"keepStart": bad, "keepEnd": 0, "insert": []}} for bad in BAD_COUNTS),
    *({"system": {"keepStart": 0, "keepEnd": bad, "insert": []}} for bad in BAD_COUNTS),
    {"system": {"keepStart": 1.0, "keepEnd": 0, "insert": ["x"]}},
    {"system": {"keepStart": 0, "keepEnd": 0, "insert": [1]}},
    {"system": {"keepStart": 0, "keepEnd": 0}},
    {"system": "replace me"},
    {"tools": {"added": [{"name": 5}], "removed": [], "changed": []}},
    {"tools": {"added": [], "removed": [5], "changed": []}},
    {"tools": {"added": [], "removed": []}},
    {"tools": {"added": [], "removed": [], "changed": [{"description": "no name"}]}},
    {"tools": []},
    {"config": "m3"},
    {"config": None},
    {"messagePrefix": [1]},
    {"messagePrefix": {"role": "user"}},
    {},
    {"unknown": 1},
    {"config": {"model": "m9"}},  # well formed: refused only before any snapshot
    None,
    [],
    "delta",
)
BAD_SNAPSHOTS: tuple[Any, ...] = (
    {"header": {"system": "no config"}, "reason": "initial"},
    {"header": {"config": [], "system": "x"}, "reason": "initial"},
    {"header": {"config": {}, "system": 5}, "reason": "initial"},
    {"header": {"config": {}, "tools": [{"description": "no name"}]}, "reason": "initial"},
    {"header": {"config": {}, "tools": {"name": "t"}}, "reason": "initial"},
    {"header": {"config": {}, "messagePrefix": ["x"]}, "reason": "initial"},
    {"header": None, "reason": "initial"},
    {"reason": "initial"},
    None,
    "header",
)


def impl_fold(call: Any) -> Any:
    """The implementation's header as JSON, or its refusal as ``(code, seq)``."""
    try:
        header = call()
    except RequestHeaderError as error:
        return (str(error.code), error.seq)
    return None if header is None else header.to_json()


def spec_fold(state: Any) -> Any:
    if isinstance(state, Rejection):
        return (str(state.code), state.seq)
    return None if state is None else dsh_spec.header_json(state)


class HeaderMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.twin = Twin("headers")
        self.first_request = True

    @invariant()
    def the_header_in_force_agrees(self) -> None:
        session, log = self.twin.session, self.twin.log
        want = spec_fold(dsh_spec.fold_request_header(log))
        got = impl_fold(session.request_header)
        same_json(got, want, "the header in force")
        fresh = Session("seeded", list(session.events))
        same_json(impl_fold(fresh.request_header), want, "the header of a session seeded with the log")

    @rule(header=headers(), restart=st.booleans())
    def request(self, header: dict[str, Any], restart: bool) -> None:
        """A request under ``header``: log what the writer decides (both must decide alike)."""
        first = self.first_request or restart
        self.first_request = False
        try:
            prev = self.twin.session.request_header()
        except RequestHeaderError:
            prev = None  # a broken fold: the loop starts over with a snapshot
        spec_prev = dsh_spec.fold_request_header(self.twin.log)
        if isinstance(spec_prev, Rejection):
            spec_prev = None
        target = EpochHeader.from_json(header)
        decided = next_header_event(prev, target, first_request=first)
        spec_target = dsh_spec.parse_header(dsh_spec.canonical_json(header))  # type: ignore[arg-type]
        assert not isinstance(spec_target, Rejection)
        expected = dsh_spec.next_header_event(spec_prev, spec_target, first)
        same_json(
            None if decided is None else [decided[0], plain(decided[1])],
            None if expected is None else list(expected),
            "next_header_event",
        )
        if decided is not None:
            kind, data = decided
            require(
                self.twin.offer(kind, data, spec_data=plain(data)) is not None,
                f"the {kind} the writer chose is refused",
            )

    @rule(delta=st.sampled_from(BAD_DELTAS))
    def malformed_delta(self, delta: Any) -> None:
        self.twin.offer("request/header-delta", delta)

    @rule(snapshot=st.sampled_from(BAD_SNAPSHOTS))
    def malformed_snapshot(self, snapshot: Any) -> None:
        self.twin.offer("request/header", snapshot)

    @rule(header=headers())
    def good_snapshot(self, header: dict[str, Any]) -> None:
        self.twin.offer("request/header", {"header": header, "reason": "resume"})

    @rule()
    def something_else(self) -> None:
        self.twin.offer("assistant/chunk", {"text": "x"})

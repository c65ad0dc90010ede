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

import json
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

import dsh_spec
from dsh_session import (
    EpochHeader,
    HeaderDelta,
    RequestHeaderError,
    Session,
    SystemDelta,
    apply_header_delta,
    apply_system,
    canonical_header,
    diff_header,
    diff_system,
    diff_tools,
    fold_request_header,
    header_equals,
    next_header_event,
)
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


@st.composite
def header_pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two headers: unrelated, or the second an edit of the first -- lines replaced in the
    middle of the system prompt (so both ends are shared), tools dropped, added or changed
    (a description, a number that is ``true`` or ``1``, the keys in another order), config
    kept or not. The second is read back from JSON text: equal parts are other objects."""
    prev = draw(headers())
    if draw(st.booleans()):
        return prev, draw(headers())
    nxt = dict(prev)
    if "system" in prev or draw(st.booleans()):
        lines = prev["system"].split("\n") if "system" in prev else []
        first = draw(st.integers(0, len(lines)))
        last = draw(st.integers(first, len(lines)))
        nxt["system"] = "\n".join(lines[:first] + draw(LINES) + lines[last:])
    kept: list[dict[str, Any]] = []
    for tool in prev.get("tools", []):
        change = draw(st.sampled_from(("keep", "keep", "drop", "describe", "flag", "reorder")))
        if change == "describe":
            tool = {**tool, "description": "changed"}
        elif change == "flag":
            tool = {**tool, "parameters": {**tool["parameters"], "n": draw(st.sampled_from((True, 1)))}}
        elif change == "reorder":
            tool = dict(reversed(tool.items()))
        if change != "drop":
            kept.append(tool)
    if "tools" in prev or draw(st.booleans()):
        nxt["tools"] = kept + draw(tools)
    if draw(st.booleans()):
        nxt["config"] = draw(configs)
    return prev, json.loads(json.dumps(nxt))


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
    {"tools": {"added": [], "removed": "read", "changed": []}},
    {"tools": {"added": [], "removed": {"read": 1}, "changed": []}},
    {"tools": {"added": [{"description": "no name"}], "removed": [], "changed": []}},
    {"tools": {"added": [], "removed": [], "changed": [{"name": 7}]}},
    {"system": {"keepStart": 2, "keepEnd": -2, "insert": []}},
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
#: Well-formed deltas a writer may log that ``next_header_event`` rarely or never makes: trailing
#: lines kept, counts past the line count, tools by name with a key the codec ignores or with
#: exactly the three keys it reads.
GOOD_DELTAS: tuple[Any, ...] = (
    {"system": {"keepStart": 1, "keepEnd": 1, "insert": ["Be kind."]}},
    {"system": {"keepStart": 0, "keepEnd": 2, "insert": []}},
    {"system": {"keepStart": 9, "keepEnd": 9, "insert": ["x"]}},
    {
        "tools": {
            "added": [{"name": "edit", "description": "edit tool"}],
            "removed": ["read"],
            "changed": [{"name": "bash", "description": "bash v2"}],
            "note": "ignored",
        }
    },
    {"tools": {"added": [], "removed": [], "changed": [], "extra": True}},
    {"tools": {"added": [{"name": "grep"}], "removed": ["read"], "changed": []}},
    {"messagePrefix": [{"role": "user", "content": "c"}], "config": {"model": "m3"}},
)
_RUN = "\n".join(["same"] * 300)
#: System prompts whose diff is easy to get wrong: the common head and tail overlap (the tail
#: must be sought only in what the head left), or a common run is longer than 256 lines (past
#: the ints Python caches, so an ``is`` where ``<`` or ``==`` belongs shows).
SYSTEM_EDGES: tuple[tuple[str | None, str | None], ...] = (
    ("a\na", "a\nb\na\na"),
    ("a\nb\na\na", "a\na"),
    ("x\nx\nx", "x"),
    ("x", "x\nx\nx"),
    ("a\n\n\nb", "a\n\nb"),
    (_RUN, _RUN + "\nmore"),
    (_RUN, "first\n" + _RUN),
    ("first\n" + _RUN, _RUN),
    (_RUN + "\nmore", _RUN),
    (None, _RUN),
    (_RUN, None),
)
#: Values that are not JSON (the spec's ``canonical_json`` says so) where a header part belongs.
NOT_JSON: tuple[Any, ...] = (float("nan"), float("inf"), {1: "x"}, {"s": {1}}, b"x", (1, 2))


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


def attempt(call: Callable[[], Any]) -> Any:
    """What ``call()`` does: ``"ok"``, or the exception it raises by class name (and code)."""
    try:
        call()
    except Exception as error:
        code = getattr(error, "code", None)
        return type(error).__name__ if code is None else (type(error).__name__, str(code))
    return "ok"


def assignments(target: Any, fields: tuple[str, ...]) -> list[Any]:
    """What an attempt to set each of ``fields`` on ``target`` does."""
    return [attempt(lambda name=name: setattr(target, name, None)) for name in fields]  # type: ignore[misc]


def impl_read(call: Callable[[], Any]) -> Any:
    """A header or delta the implementation read, as JSON, or its refusal as ``(code, seq)``."""
    try:
        value = call()
    except RequestHeaderError as error:
        return (str(error.code), error.seq)
    return value.to_json()


def spec_read(value: Any, to_json: Callable[[Any], Any]) -> Any:
    return (str(value.code), value.seq) if isinstance(value, Rejection) else to_json(value)


def spec_header_json(header: Any) -> Any:
    return dsh_spec.header_json(dsh_spec.canonical_header(header))


HEADER_FIELDS = ("config", "system", "tools", "message_prefix")
DELTA_FIELDS = ("system", "tools", "config", "message_prefix")
SYSTEM_FIELDS = ("keep_start", "keep_end", "insert")
TOOLS_FIELDS = ("added", "removed", "changed")


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
        same_json(impl_fold(lambda: fold_request_header(session.events)), want, "fold_request_header")

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
        positional = attempt(lambda: next_header_event(prev, target, first))  # type: ignore[call-arg]
        require(positional == "TypeError", f"first_request given by position: {positional}, not TypeError")
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

    @rule(header=headers())
    def requests_that_reorder_tools(self, header: dict[str, Any]) -> None:
        """Two requests whose tools differ in their order alone: no delta says that (a delta
        keeps the old order), so the writer must fall back to a snapshot."""
        tools = [
            {"name": name, "description": "d", "parameters": {"type": "object"}} for name in ("read", "bash")
        ]
        self.request({**header, "tools": tools}, False)
        self.request({**header, "tools": tools[::-1]}, False)

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

    @rule(header=headers(), delta=st.sampled_from((*GOOD_DELTAS, *BAD_DELTAS)), again=st.booleans())
    def amend(self, header: dict[str, Any], delta: Any, again: bool) -> None:
        """A delta, well-formed or not, while a header is in force: a snapshot of ``header``
        first when none is (or anyway, ``again``)."""
        in_force = dsh_spec.fold_request_header(self.twin.log)
        if again or in_force is None or isinstance(in_force, Rejection):
            self.twin.offer("request/header", {"header": header, "reason": "resume"})
        self.twin.offer("request/header-delta", delta)

    @rule(seq=st.sampled_from((None, 0, 7, 300)))
    def read_every_payload(self, seq: int | None) -> None:
        """Every delta and header of the lists read by both codecs alone (``from_json`` against
        ``parse_delta`` / ``parse_header``): the same value or the same refusal. The values read
        are frozen as the spec's are, and ``==`` on two readings of one delta is the spec's;
        ``seq`` is keyword-only; a value that is not JSON is refused with the reader's code."""
        for raw in (*GOOD_DELTAS, *BAD_DELTAS):
            value: Any = dsh_spec.canonical_json(raw)  # as a log holds it (``1.0`` is the integer 1)
            got = impl_read(lambda: HeaderDelta.from_json(value, seq=seq))  # noqa: B023
            expected = dsh_spec.parse_delta(value, seq)
            same_json(got, spec_read(expected, dsh_spec.delta_json), f"HeaderDelta.from_json({value!r})")
            if not isinstance(expected, Rejection):
                self.compare_deltas(value)
        for snapshot in BAD_SNAPSHOTS:
            header: Any = dsh_spec.canonical_json(
                snapshot.get("header") if isinstance(snapshot, dict) else snapshot
            )
            got = impl_read(lambda: EpochHeader.from_json(header, seq=seq))  # noqa: B023
            want = spec_read(dsh_spec.parse_header(header, seq), spec_header_json)
            same_json(got, want, f"EpochHeader.from_json({header!r})")
        readers: list[Any] = [EpochHeader.from_json, HeaderDelta.from_json]
        for call in (lambda: readers[0]({"config": {}}, 3), lambda: readers[1]({}, 3)):
            require(attempt(call) == "TypeError", "from_json took seq as a positional argument")
        for bad in NOT_JSON:
            config = {"n": bad}
            assert isinstance(dsh_spec.canonical_json(config), dsh_spec.NotJson)
            for call, code in (
                (lambda: EpochHeader(config), "MALFORMED_REQUEST_HEADER"),  # noqa: B023
                (lambda: HeaderDelta.from_json({"config": config}), "MALFORMED_HEADER_DELTA"),  # noqa: B023
            ):
                got = attempt(call)
                require(got == ("RequestHeaderError", code), f"a config holding {bad!r}: {got}, not {code}")

    def compare_deltas(self, value: Any) -> None:
        """Two readings of one delta on each side: ``==`` between them and between their parts,
        and attempts to set their fields, as the spec's."""
        a, b = HeaderDelta.from_json(value), HeaderDelta.from_json(value)
        spec_a, spec_b = dsh_spec.parse_delta(value), dsh_spec.parse_delta(value)
        assert not isinstance(spec_a, Rejection) and not isinstance(spec_b, Rejection)
        got = [a == a, a == b, a != b, a.system == b.system, a.tools == b.tools, a.tools == a.tools]
        want = [
            spec_a == spec_a,
            spec_a == spec_b,
            spec_a != spec_b,
            spec_a.system == spec_b.system,
            spec_a.tools == spec_b.tools,
            spec_a.tools == spec_a.tools,
        ]
        require(got == want, f"== on readings of {value!r}: {got}, the spec's {want}")
        pairs: list[tuple[Any, Any, tuple[str, ...]]] = [(a, spec_a, DELTA_FIELDS)]
        if a.system is not None:
            pairs.append((a.system, spec_a.system, SYSTEM_FIELDS))
        if a.tools is not None:
            pairs.append((a.tools, spec_a.tools, TOOLS_FIELDS))
        for mine, theirs, fields in pairs:
            got, want = assignments(mine, fields), assignments(theirs, fields)
            require(got == want, f"setting the fields of a {type(mine).__name__}: {got}, the spec's {want}")

    @rule(header=headers(), other=headers())
    def compare_headers(self, header: dict[str, Any], other: dict[str, Any]) -> None:
        """``==``, ``header_equals`` and ``canonical_header`` on headers read from JSON, and on a
        header and things that are none, against the spec's ``header_equals`` (its ``==`` on a
        non-header); attempts to set a header's fields, as on the spec's."""
        one, two, third = (EpochHeader.from_json(raw) for raw in (header, header, other))
        # the same header read from a text of its own: equal strings that are other objects
        afresh = EpochHeader.from_json(json.loads(json.dumps(header)))
        not_headers: list[Any] = [header, "header"]
        text: Any = "header"
        canonical: list[Any] = [dsh_spec.canonical_json(raw) for raw in (header, header, other)]
        spec_one, spec_two, spec_third = (dsh_spec.parse_header(raw) for raw in canonical)
        assert not isinstance(spec_one, Rejection) and not isinstance(spec_two, Rejection)
        assert not isinstance(spec_third, Rejection)
        equals = dsh_spec.header_equals
        got = [one == one, one == two, one != two, one == third, header_equals(one, one)]
        got += [header_equals(one, third), *(one == item for item in not_headers), one != text]
        got += [one == afresh, header_equals(afresh, one)]
        want = [equals(spec_one, spec_one), equals(spec_one, spec_two), not equals(spec_one, spec_two)]
        want += [equals(spec_one, spec_third), equals(spec_one, spec_one), equals(spec_one, spec_third)]
        want += [*(spec_one == item for item in not_headers), spec_one != text]
        want += [equals(spec_one, spec_two), equals(spec_two, spec_one)]
        require(got == want, f"== on headers read from {header!r}, {other!r}: {got}, the spec's {want}")
        want_json = spec_header_json(spec_one)
        same_json(canonical_header(header).to_json(), want_json, "canonical_header of a mapping")
        same_json(canonical_header(one).to_json(), want_json, "canonical_header of a header")
        got, want = assignments(one, HEADER_FIELDS), assignments(spec_one, HEADER_FIELDS)
        require(got == want, f"setting the fields of a header: {got}, the spec's {want}")

    @rule()
    def diff_edge_systems(self) -> None:
        """``diff_system`` and ``apply_system`` of its delta on ``SYSTEM_EDGES``, as the spec's:
        a shared head and a shared tail that overlap, and shared runs of more than 256 lines."""
        for prev, nxt in SYSTEM_EDGES:
            system = diff_system(prev, nxt)
            spec_system = dsh_spec.diff_system(prev, nxt)
            wire = dsh_spec.delta_json(dsh_spec.HeaderDelta(spec_system))["system"]
            same_json(system.wire(), wire, f"diff_system of {prev!r:.30} and {nxt!r:.30}")
            got = apply_system(prev, system)
            want = dsh_spec.apply_system(prev, spec_system)
            require(got == want == nxt, f"apply_system of its diff: {got!r}, the spec's {want!r}")

    @rule(header=headers(), edit=st.sampled_from(("system", "config")))
    def edit_one_part(self, header: dict[str, Any], edit: str) -> None:
        """The codec (``the_delta_codec``) on a header and an edit of one part, its other parts --
        tools and a message prefix among them -- equal but read from a text of their own: a part
        kept must give no part of the delta."""
        tool = {"name": "read", "description": "read tool", "parameters": {"type": "object"}}
        base = {**header, "tools": header.get("tools") or [tool]}
        base["messagePrefix"] = header.get("messagePrefix") or [{"role": "user", "content": "a"}]
        other = json.loads(json.dumps(base))
        if edit == "system":
            other["system"] = other.get("system", "") + "\nedited"
        else:
            other["config"] = {"model": "m9"}
        self.the_delta_codec((base, other), (0, 0))

    @rule(pair=header_pairs(), counts=st.tuples(st.integers(0, 7), st.integers(0, 7)))
    def the_delta_codec(self, pair: tuple[dict[str, Any], dict[str, Any]], counts: tuple[int, int]) -> None:
        """The codec's parts alone, against the spec's: ``diff_system`` and ``apply_system`` (with
        its delta, and counts past the line count), ``diff_tools``, ``diff_header`` and
        ``apply_header_delta`` of its delta -- whether or not that gives the new header back."""
        prev, nxt = (EpochHeader.from_json(raw) for raw in pair)
        spec_prev, spec_next = (dsh_spec.parse_header(dsh_spec.canonical_json(raw)) for raw in pair)  # type: ignore[arg-type]
        assert not isinstance(spec_prev, Rejection) and not isinstance(spec_next, Rejection)
        spec_prev, spec_next = dsh_spec.canonical_header(spec_prev), dsh_spec.canonical_header(spec_next)
        system = diff_system(prev.system, nxt.system)
        spec_system = dsh_spec.diff_system(spec_prev.system, spec_next.system)
        same_json(
            system.wire(), dsh_spec.delta_json(dsh_spec.HeaderDelta(spec_system))["system"], "diff_system"
        )
        for keep_start, keep_end, insert in (
            (*counts, ("x",)),
            (system.keep_start, system.keep_end, system.insert),
        ):
            got = apply_system(prev.system, SystemDelta(keep_start, keep_end, insert))
            want = dsh_spec.apply_system(spec_prev.system, dsh_spec.SystemDelta(keep_start, keep_end, insert))
            require(
                got == want, f"apply_system({prev.system!r}, {keep_start}, {keep_end}): {got!r}, not {want!r}"
            )
        tools = diff_tools(prev.tools or (), nxt.tools or ())
        spec_tools = dsh_spec.diff_tools(spec_prev.tools or (), spec_next.tools or ())
        want_tools = dsh_spec.delta_json(dsh_spec.HeaderDelta(tools=spec_tools))["tools"]
        same_json(plain(tools.wire()), want_tools, "diff_tools")
        delta = diff_header(prev, nxt)
        spec_delta = dsh_spec.diff_header(spec_prev, spec_next)
        same_json(
            None if delta is None else delta.to_json(),
            None if spec_delta is None else dsh_spec.delta_json(spec_delta),
            "diff_header",
        )
        if delta is not None and spec_delta is not None:
            got_header = apply_header_delta(prev, delta).to_json()
            want_header = spec_header_json(dsh_spec.apply_header_delta(spec_prev, spec_delta))
            same_json(got_header, want_header, "apply_header_delta of diff_header")

"""Request headers: canonical form, equality, the delta codec, the fold and the writer.

Every behaviour is run against both the spec and the implementation through
one small adapter each (JSON in, JSON out), then the two are compared on
random input. Reference cases: core.md §11, request-header.spec.ts (81-97).
"""

from __future__ import annotations

import contextlib
import json
from typing import Any, Protocol

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dsh_session as impl
import dsh_spec as spec
from dsh_session.js_json import dumps
from tests.store_support import delta_jsons, fixed_clock, header_jsons

Json = Any
FoldResult = dict[str, Any] | None | tuple[str, int | None]


class Api(Protocol):
    name: str

    def canonical(self, header: Json) -> Json: ...
    def equals(self, a: Json, b: Json) -> bool: ...
    def diff(self, prev: Json, next: Json) -> Json | None: ...
    def apply(self, prev: Json, delta: Json) -> Json: ...
    def fold(self, records: list[Json]) -> FoldResult: ...
    def writer(self, prev: Json | None, next: Json, first: bool) -> tuple[str, Json] | None: ...


class SpecApi:
    name = "spec"

    def header(self, value: Json) -> spec.EpochHeader:
        parsed = spec.parse_header(value)
        assert isinstance(parsed, spec.EpochHeader), parsed
        return parsed

    def canonical(self, header: Json) -> Json:
        return spec.header_json(spec.canonical_header(self.header(header)))

    def equals(self, a: Json, b: Json) -> bool:
        return spec.header_equals(self.header(a), self.header(b))

    def diff(self, prev: Json, next: Json) -> Json | None:
        delta = spec.diff_header(
            spec.canonical_header(self.header(prev)), spec.canonical_header(self.header(next))
        )
        return None if delta is None else spec.delta_json(delta)

    def apply(self, prev: Json, delta: Json) -> Json:
        parsed = spec.parse_delta(delta)
        assert isinstance(parsed, spec.HeaderDelta), parsed
        return spec.header_json(spec.apply_header_delta(spec.canonical_header(self.header(prev)), parsed))

    def fold(self, records: list[Json]) -> FoldResult:
        events = spec.check_seed(records)
        assert not isinstance(events, spec.Rejection), events
        state = spec.fold_request_header(events)
        if isinstance(state, spec.Rejection):
            return (state.code.value, state.seq)
        return None if state is None else spec.header_json(state)

    def writer(self, prev: Json | None, next: Json, first: bool) -> tuple[str, Json] | None:
        return spec.next_header_event(None if prev is None else self.header(prev), self.header(next), first)


class ImplApi:
    name = "impl"

    def canonical(self, header: Json) -> Json:
        return impl.canonical_header(header).to_json()

    def equals(self, a: Json, b: Json) -> bool:
        return impl.header_equals(impl.canonical_header(a), impl.canonical_header(b))

    def diff(self, prev: Json, next: Json) -> Json | None:
        delta = impl.diff_header(impl.canonical_header(prev), impl.canonical_header(next))
        return None if delta is None else delta.to_json()

    def apply(self, prev: Json, delta: Json) -> Json:
        return impl.apply_header_delta(
            impl.canonical_header(prev), impl.HeaderDelta.from_json(delta)
        ).to_json()

    def fold(self, records: list[Json]) -> FoldResult:
        session = impl.Session("fold", records, clock=fixed_clock)
        try:
            whole = impl.fold_request_header(session.events)
        except impl.RequestHeaderError as error:
            with pytest.raises(impl.RequestHeaderError) as again:
                session.request_header()
            assert (again.value.code, again.value.seq) == (error.code, error.seq)
            return (error.code.value, error.seq)
        live = session.request_header()
        assert (live is None) == (whole is None)
        assert live is None or whole is None or live.text() == whole.text()
        return None if whole is None else whole.to_json()

    def writer(self, prev: Json | None, next: Json, first: bool) -> tuple[str, Json] | None:
        draft = impl.next_header_event(
            None if prev is None else impl.canonical_header(prev),
            impl.canonical_header(next),
            first_request=first,
        )
        return draft


APIS: list[Api] = [SpecApi(), ImplApi()]
both = pytest.mark.parametrize("api", APIS, ids=lambda api: api.name)


def js(value: Json) -> str:
    """JSON text as JavaScript writes it (tuples as arrays), by the implementation's writer;
    ``test_js_json_text`` checks it against the spec's own."""
    return dumps(_lists(value))


def _lists(value: Json) -> Json:
    if isinstance(value, tuple | list):
        return [_lists(item) for item in value]
    if isinstance(value, dict):
        return {key: _lists(item) for key, item in value.items()}
    return value


def cfg(model: str = "m1", **rest: Any) -> dict[str, Any]:
    return {"model": model, **rest}


def snapshot(seq: int, header: Json, reason: str = "initial") -> dict[str, Any]:
    return {"type": "request/header", "seq": seq, "time": 1, "data": {"header": header, "reason": reason}}


def delta_event(seq: int, delta: Json) -> dict[str, Any]:
    return {"type": "request/header-delta", "seq": seq, "time": 1, "data": delta}


def other(seq: int) -> dict[str, Any]:
    return {"type": "todo/write", "seq": seq, "time": 1, "data": {"todos": []}}


# -- canonical form (81, 90) ---------------------------------------------------------------------


@both
def test_empty_system_tools_and_prefix_are_absent(api: Api) -> None:
    header = {"config": cfg(stop=[]), "system": "", "tools": [], "messagePrefix": []}
    assert api.canonical(header) == {"config": {"model": "m1", "stop": []}}


@both
def test_canonical_keeps_non_empty_parts_in_reference_order(api: Api) -> None:
    header = {"messagePrefix": [{"role": "user", "content": []}], "tools": [{"name": "t"}], "system": "s"}
    header["config"] = cfg()
    assert list(api.canonical(header)) == ["config", "system", "tools", "messagePrefix"]


# -- equality (82, 91) ---------------------------------------------------------------------------


@both
def test_equal_headers_give_no_delta(api: Api) -> None:
    header = {"config": cfg(temperature=0.5), "system": "a\nb", "tools": [{"name": "t"}]}
    assert api.diff(header, json.loads(json.dumps(header))) is None
    assert api.equals(header, header)


@both
def test_absent_and_empty_are_one_representation(api: Api) -> None:
    bare = {"config": cfg()}
    assert api.equals(bare, {"config": cfg(), "tools": [], "messagePrefix": []})
    assert api.equals(bare, {"config": cfg(), "system": ""})  # the reference says unequal here (D-H1)
    assert not api.equals(bare, {"config": cfg(), "messagePrefix": [{"role": "user", "content": []}]})
    assert not api.equals(bare, {"config": cfg(), "system": "x"})


@both
def test_equality_is_json_text_equality(api: Api) -> None:
    assert api.equals({"config": cfg(temperature=1.0)}, {"config": cfg(temperature=1)})
    assert not api.equals({"config": cfg(temperature=1)}, {"config": cfg(temperature=True)})
    assert not api.equals({"config": cfg(stop=[])}, {"config": cfg()})
    swapped = {"config": {"temperature": 0.5, "model": "m1"}}
    assert not api.equals({"config": cfg(temperature=0.5)}, swapped)  # key order counts (D-H1)
    assert not api.equals({"config": cfg(topP=0.9)}, {"config": cfg()})  # so do other keys (D-H1)
    tool_ab = {"name": "t", "description": "d"}
    tool_ba = {"description": "d", "name": "t"}
    assert not api.equals({"config": cfg(), "tools": [tool_ab]}, {"config": cfg(), "tools": [tool_ba]})


# -- system prompt (83, 84, 85) ------------------------------------------------------------------


@both
def test_mid_prompt_change_keeps_prefix_and_suffix(api: Api) -> None:
    prev = {"config": cfg(), "system": "keep1\nold\nkeep2\nkeep3"}
    next = {"config": cfg(), "system": "keep1\nnew A\nnew B\nkeep2\nkeep3"}
    delta = api.diff(prev, next)
    assert delta == {"system": {"keepStart": 1, "keepEnd": 2, "insert": ["new A", "new B"]}}
    assert api.apply(prev, delta) == next


@both
def test_nothing_shared_is_a_full_replacement_and_absence_round_trips(api: Api) -> None:
    bare, full = {"config": cfg()}, {"config": cfg(), "system": "x\ny"}
    gained = api.diff(bare, full)
    assert gained == {"system": {"keepStart": 0, "keepEnd": 0, "insert": ["x", "y"]}}
    assert api.apply(bare, gained) == full
    lost = api.diff(full, bare)
    assert lost == {"system": {"keepStart": 0, "keepEnd": 0, "insert": []}}
    assert api.apply(full, lost) == bare


@both
def test_prefix_and_suffix_never_overlap(api: Api) -> None:
    prev, next = {"config": cfg(), "system": "a\na"}, {"config": cfg(), "system": "a\na\na"}
    delta = api.diff(prev, next)
    assert delta == {"system": {"keepStart": 2, "keepEnd": 0, "insert": ["a"]}}
    assert api.apply(prev, delta) == next


@both
def test_system_lines_split_on_newline_only(api: Api) -> None:
    prev, next = {"config": cfg(), "system": "a\r\nb\n"}, {"config": cfg(), "system": "a\r\nc\n"}
    delta = api.diff(prev, next)
    assert delta == {"system": {"keepStart": 1, "keepEnd": 1, "insert": ["c"]}}
    assert api.apply(prev, delta) == next


@both
def test_keep_counts_past_the_line_count_act_like_js_slice(api: Api) -> None:
    prev = {"config": cfg(), "system": "a\nb"}
    delta = {"system": {"keepStart": 0, "keepEnd": 5, "insert": ["x"]}}
    assert api.apply(prev, delta)["system"] == "x\na\nb"
    delta = {"system": {"keepStart": 9, "keepEnd": 0, "insert": []}}
    assert api.apply(prev, delta)["system"] == "a\nb"


# -- tools (86, 87, 88) --------------------------------------------------------------------------


def tool(name: str, description: str = "d") -> dict[str, Any]:
    return {"name": name, "description": description, "parameters": {"type": "object"}}


@both
def test_tools_added_removed_and_changed_by_name(api: Api) -> None:
    prev = {"config": cfg(), "tools": [tool("keep"), tool("drop"), tool("edit")]}
    next = {"config": cfg(), "tools": [tool("keep"), tool("edit", "new"), tool("new")]}
    delta = api.diff(prev, next)
    assert delta == {"tools": {"added": [tool("new")], "removed": ["drop"], "changed": [tool("edit", "new")]}}
    assert api.apply(prev, delta) == next


@both
def test_tools_gained_and_lost_round_trip(api: Api) -> None:
    bare, tooled = {"config": cfg()}, {"config": cfg(), "tools": [tool("a"), tool("b")]}
    assert api.apply(bare, api.diff(bare, tooled)) == tooled
    assert api.apply(tooled, api.diff(tooled, bare)) == bare


@both
def test_a_pure_reorder_has_a_delta_that_does_not_round_trip(api: Api) -> None:
    prev = {"config": cfg(), "tools": [tool("a"), tool("b")]}
    next = {"config": cfg(), "tools": [tool("b"), tool("a")]}
    delta = api.diff(prev, next)
    assert delta == {"tools": {"added": [], "removed": [], "changed": []}}
    assert not api.equals(api.apply(prev, delta), next)
    assert api.writer(prev, next, False) == ("request/header", {"header": next, "reason": "fallback"})


@both
def test_a_tool_inserted_before_the_end_needs_a_snapshot(api: Api) -> None:
    prev = {"config": cfg(), "tools": [tool("a")]}
    next = {"config": cfg(), "tools": [tool("c"), tool("a")]}
    assert api.apply(prev, api.diff(prev, next))["tools"] == [tool("a"), tool("c")]
    assert api.writer(prev, next, False) == ("request/header", {"header": next, "reason": "fallback"})


@both
def test_foreign_tool_deltas_are_applied_leniently(api: Api) -> None:
    prev = {"config": cfg(), "tools": [tool("a")]}
    delta = {"tools": {"added": [tool("a")], "removed": [], "changed": [tool("ghost")]}}
    assert api.apply(prev, delta)["tools"] == [tool("a"), tool("a")]


# -- config and prefix (89, 92, 93) --------------------------------------------------------------


@both
def test_config_is_replaced_whole_and_nothing_else_is_touched(api: Api) -> None:
    prev = {"config": cfg(), "system": "s", "tools": [tool("a")]}
    next = {"config": cfg("m2", temperature=0.1), "system": "s", "tools": [tool("a")]}
    assert api.diff(prev, next) == {"config": {"model": "m2", "temperature": 0.1}}


@both
def test_a_changed_prefix_is_replaced_whole(api: Api) -> None:
    old = {"role": "user", "content": [{"type": "text", "text": "old"}]}
    new = {"role": "user", "content": [{"type": "text", "text": "new"}]}
    more = {"role": "assistant", "content": [{"type": "text", "text": "more"}]}
    prev, next = {"config": cfg(), "messagePrefix": [old]}, {"config": cfg(), "messagePrefix": [new, more]}
    assert api.diff(prev, next) == {"messagePrefix": [new, more]}


@both
def test_a_prefix_gained_and_lost_round_trips(api: Api) -> None:
    p = {"role": "user", "content": [{"type": "text", "text": "p"}]}
    bare, prefixed = {"config": cfg()}, {"config": cfg(), "messagePrefix": [p]}
    assert api.diff(bare, prefixed) == {"messagePrefix": [p]}
    assert api.diff(prefixed, bare) == {"messagePrefix": []}
    assert api.apply(prefixed, {"messagePrefix": []}) == bare


@both
def test_delta_keys_come_in_reference_order(api: Api) -> None:
    prev = {"config": cfg(), "system": "a", "tools": [tool("a")]}
    next = {"config": cfg("m2"), "system": "b", "tools": [tool("b")], "messagePrefix": [{"role": "user"}]}
    delta = api.diff(prev, next)
    assert delta is not None
    assert list(delta) == ["system", "tools", "config", "messagePrefix"]


# -- the fold (94-97) ----------------------------------------------------------------------------


@both
def test_no_header_events_fold_to_nothing(api: Api) -> None:
    assert api.fold([]) is None
    assert api.fold([other(0), other(1)]) is None


@both
def test_snapshots_and_deltas_fold_in_log_order(api: Api) -> None:
    p = {"role": "user", "content": []}
    log = [
        other(0),
        snapshot(1, {"config": cfg(), "system": "s1", "tools": []}),
        other(2),
        delta_event(3, {"messagePrefix": [p]}),
        delta_event(4, {"system": {"keepStart": 0, "keepEnd": 0, "insert": ["s2"]}}),
    ]
    assert api.fold(log) == {"config": cfg(), "system": "s2", "messagePrefix": [p]}
    log += [snapshot(5, {"config": cfg("m9")}, "fallback"), other(6)]
    assert api.fold(log) == {"config": cfg("m9")}


@both
def test_a_delta_before_any_snapshot_is_rejected(api: Api) -> None:
    log = [other(0), delta_event(1, {"config": cfg()})]
    assert api.fold(log) == ("HEADER_DELTA_BEFORE_SNAPSHOT", 1)
    assert api.fold([*log, delta_event(2, {"config": cfg("m3")})]) == ("HEADER_DELTA_BEFORE_SNAPSHOT", 1)


@both
def test_a_later_snapshot_heals_the_fold(api: Api) -> None:
    log = [delta_event(0, {"config": cfg()}), snapshot(1, {"config": cfg("m2")})]
    assert api.fold(log) == {"config": cfg("m2")}  # the reference stays broken (B10, D-H3)


@both
@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"reason": "initial"}, "MALFORMED_REQUEST_HEADER"),
        ({"header": {"system": "s"}, "reason": "initial"}, "MALFORMED_REQUEST_HEADER"),
        ({"header": {"config": cfg(), "tools": [{"description": "no name"}]}}, "MALFORMED_REQUEST_HEADER"),
        ({"header": {"config": cfg(), "system": None}}, "MALFORMED_REQUEST_HEADER"),
        ({"header": {"config": cfg(), "messagePrefix": "text"}}, "MALFORMED_REQUEST_HEADER"),
    ],
)
def test_malformed_snapshots_are_rejected(api: Api, data: Json, code: str) -> None:
    log = [{"type": "request/header", "seq": 0, "time": 1, "data": data}]
    assert api.fold(log) == (code, 0)
    assert api.fold([*log, delta_event(1, {})]) == (code, 0)


@both
@pytest.mark.parametrize(
    "delta",
    [
        {"system": {"keepStart": -1, "keepEnd": 0, "insert": []}},
        {"system": {"keepStart": True, "keepEnd": 0, "insert": []}},
        {"system": {"keepStart": 0, "keepEnd": 0, "insert": [1]}},
        {"tools": {"added": [], "removed": []}},
        {"tools": {"added": [{"no": "name"}], "removed": [], "changed": []}},
        {"config": None},
        {"config": "m1"},
        {"messagePrefix": None},
    ],
)
def test_malformed_deltas_are_rejected(api: Api, delta: Json) -> None:
    log = [snapshot(0, {"config": cfg()}), delta_event(1, delta)]
    assert api.fold(log) == ("MALFORMED_HEADER_DELTA", 1)


def test_request_header_is_incremental_and_recovers() -> None:
    session = impl.Session("s", clock=fixed_clock)
    assert session.request_header() is None
    session.append("request/header-delta", {"config": cfg()})
    with pytest.raises(impl.RequestHeaderError) as caught:
        session.request_header()
    assert (caught.value.code, caught.value.seq) == (impl.Code.HEADER_DELTA_BEFORE_SNAPSHOT, 0)
    with pytest.raises(impl.RequestHeaderError):
        session.request_header()  # still broken: nothing new
    session.append("request/header", {"header": {"config": cfg(), "system": "s"}, "reason": "initial"})
    header = session.request_header()
    assert header == impl.EpochHeader(cfg(), "s")
    session.append("request/header-delta", {"config": cfg("m2")})
    assert session.request_header() == impl.EpochHeader(cfg("m2"), "s")


def test_request_header_freezes_nothing_new_and_leaks_nothing_mutable() -> None:
    session = impl.Session("s", clock=fixed_clock)
    event = session.append("request/header", {"header": {"config": cfg(), "tools": [tool("a")]}})
    header = session.request_header()
    assert header is not None and header.tools is not None
    with pytest.raises(TypeError):
        header.config["model"] = "hacked"
    with pytest.raises(TypeError):
        header.tools[0]["name"] = "hacked"
    copy = header.to_json()
    copy["config"]["model"] = "mine"
    assert event.data["header"]["config"]["model"] == "m1"
    assert session.request_header() == impl.EpochHeader(cfg(), tools=[tool("a")])


def test_epoch_header_refuses_bad_parts() -> None:
    with pytest.raises(impl.RequestHeaderError) as caught:
        impl.EpochHeader(cfg(), tools=[{"description": "nameless"}])
    assert caught.value.code is impl.Code.MALFORMED_REQUEST_HEADER
    with pytest.raises(impl.RequestHeaderError):
        impl.EpochHeader({"model": float("nan")})


def test_epoch_header_equality_and_hash_follow_json_text() -> None:
    a = impl.EpochHeader({"model": "m", "temperature": 1.0}, "", [])
    b = impl.EpochHeader({"model": "m", "temperature": 1})
    assert a == b and hash(a) == hash(b)
    assert a.system is None and a.tools is None
    assert a != impl.EpochHeader({"temperature": 1, "model": "m"})
    assert a.to_json() == {"config": {"model": "m", "temperature": 1}}


# -- the writer ----------------------------------------------------------------------------------


@both
def test_the_first_request_always_logs_a_snapshot(api: Api) -> None:
    header = {"config": cfg(), "system": ""}
    assert api.writer(None, header, True) == (
        "request/header",
        {"header": {"config": cfg()}, "reason": "initial"},
    )
    assert api.writer(header, header, True) == (
        "request/header",
        {"header": {"config": cfg()}, "reason": "resume"},
    )
    assert api.writer(None, header, False) == (
        "request/header",
        {"header": {"config": cfg()}, "reason": "initial"},
    )


@both
def test_later_requests_log_nothing_a_delta_or_a_fallback(api: Api) -> None:
    prev = {"config": cfg(), "system": "a\nb"}
    assert api.writer(prev, {"config": cfg(), "system": "a\nb", "tools": []}, False) is None
    changed = {"config": cfg(), "system": "a\nc"}
    assert api.writer(prev, changed, False) == (
        "request/header-delta",
        {"system": {"keepStart": 1, "keepEnd": 0, "insert": ["c"]}},
    )


# -- properties ----------------------------------------------------------------------------------


def fold_text(api: Api, records: list[Json]) -> str:
    folded = api.fold(records)
    assert isinstance(folded, dict), folded
    return js(folded)


@both
@settings(max_examples=150, deadline=None)
@given(prev=header_jsons(), next=header_jsons())
def test_writer_contract(api: Api, prev: Json, next: Json) -> None:
    """Nothing logged and equal, or a delta that round-trips exactly, or a fallback
    snapshot; and folding the logged events always gives ``next``."""
    log = [snapshot(0, prev)]
    decision = api.writer(api.fold(log), next, False)
    target = js(api.canonical(next))
    if decision is None:
        assert api.equals(prev, next)
    else:
        kind, data = decision
        assert not api.equals(prev, next)
        if kind == "request/header-delta":
            assert js(api.apply(prev, data)) == target
        else:
            assert kind == "request/header" and data["reason"] == "fallback"
            assert js(data["header"]) == target
        log.append({"type": kind, "seq": 1, "time": 1, "data": data})
    assert fold_text(api, log) == target


@settings(max_examples=150, deadline=None)
@given(prev=header_jsons(), next=header_jsons(), first=st.booleans(), known=st.booleans())
def test_spec_and_implementation_agree_on_headers(prev: Json, next: Json, first: bool, known: bool) -> None:
    s, i = SpecApi(), ImplApi()
    assert js(s.canonical(next)) == js(i.canonical(next))
    assert s.equals(prev, next) == i.equals(prev, next)
    delta = s.diff(prev, next)
    assert js(delta) == js(i.diff(prev, next))
    if delta is not None:
        assert js(s.apply(prev, delta)) == js(i.apply(prev, delta))
    base = prev if known else None
    assert js(s.writer(base, next, first)) == js(i.writer(base, next, first))


@settings(max_examples=150, deadline=None)
@given(prev=header_jsons(), delta=delta_jsons())
def test_spec_and_implementation_apply_any_delta_alike(prev: Json, delta: Json) -> None:
    assert js(SpecApi().apply(prev, delta)) == js(ImplApi().apply(prev, delta))


def header_logs() -> st.SearchStrategy[list[Json]]:
    item = st.one_of(
        header_jsons().map(lambda h: ("request/header", {"header": h, "reason": "initial"})),
        delta_jsons().map(lambda d: ("request/header-delta", d)),
        st.just(("request/header", {"header": {"system": "no config"}})),
        st.just(("request/header-delta", {"config": 7})),
        st.just(("todo/write", {"todos": []})),
    )
    return st.lists(item, max_size=8).map(
        lambda items: [{"type": t, "seq": n, "time": 1, "data": d} for n, (t, d) in enumerate(items)]
    )


@settings(max_examples=150, deadline=None)
@given(log=header_logs(), cuts=st.lists(st.integers(0, 8), max_size=3))
def test_spec_and_implementation_fold_alike(log: list[Json], cuts: list[int]) -> None:
    expected = SpecApi().fold(log)
    assert js(ImplApi().fold(log)) == js(expected)
    session = impl.Session("incremental", clock=fixed_clock)
    marks = set(cuts)
    for index, record in enumerate(log):
        if index in marks:
            with contextlib.suppress(impl.RequestHeaderError):
                session.request_header()
        session.append(record["type"], record["data"])
    try:
        live = session.request_header()
    except impl.RequestHeaderError as error:
        assert (error.code.value, error.seq) == expected
    else:
        assert js(None if live is None else live.to_json()) == js(expected)


# -- JSON text as JavaScript writes it -----------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (-0.0, "0"),
        (1e-7, "1e-7"),
        (2**60, "1152921504606847000"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (2.5e-5, "0.000025"),
        (0.1, "0.1"),
        (-1.5e-7, "-1.5e-7"),
        (123456.789, "123456.789"),
        (5e-324, "5e-324"),
        ({"b": 1, "10": True, "2": None}, '{"2":null,"10":true,"b":1}'),
        (["\ud800", 'é\n"\\'], '["\\ud800","é\\n\\"\\\\"]'),
    ],
)
def test_js_stringify_table(value: Json, text: str) -> None:
    assert spec.js_stringify(value) == text
    assert dumps(value) == text


json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**53), 2**53),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(st.characters(codec=None, exclude_categories=[]), max_size=6),
    ),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(value=json_values)
def test_js_json_text(value: Json) -> None:
    """The spec's JSON writer and the implementation's are written apart and agree."""
    assert spec.js_stringify(value) == dumps(value)

"""Every promise of docs/deviations.md D1-D5, on the reference's own failure scenarios (core.md §12).

Each test replays a weak spot of the TypeScript reference (B1, B2, ...) and
checks what we promise instead.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dsh_spec
from dsh_session import Code, InvalidEventError, Session, SurfaceManager
from dsh_session.js_json import dumps, loads
from tests import builders as B
from tests import strategies as S
from tests.support import assert_same_json, is_fresh_copy, property_settings


def state(s: Session) -> tuple[Any, ...]:
    return (s.seq, [e.to_json() for e in s.events], s.surface.nodes, s.surface.replace_generation)


# -- D1. Reject before the log ----------------------------------------------------------------


def test_d1_b1_a_poison_replace_never_enters_the_log() -> None:
    s = B.users(2)
    with pytest.raises(InvalidEventError) as caught:
        s.append(
            "assistant/message", B.assistant(B.text("x")), surface_op=B.replace(99, 0), source_event_seqs=[0]
        )
    assert caught.value.code is Code.REPLACE_START_NOT_ON_SURFACE
    # every later read works, and so do more appends, invalidate and re-seeding
    s.append("user/message", B.user("c"), surface_op="append")
    s.surface.invalidate()
    assert [n.seq for n in s.surface.nodes] == [0, 1, 2]
    assert len(s.derive_messages()) == 3
    assert Session("again", s.events).derive_messages() == s.derive_messages()


def test_d1_a_replace_without_provenance_is_refused() -> None:
    """The reference accepts it (its test 114 relies on that); coverage is our rule, not a dev plugin's."""
    s = B.users(2)
    with pytest.raises(InvalidEventError) as caught:
        s.append("user/message", B.user("sum"), surface_op=B.replace(0, 0))
    assert caught.value.code is Code.REPLACE_PROVENANCE_INCOMPLETE
    assert "missing 0" in caught.value.message


def test_d1_a_refused_event_changes_nothing_and_the_session_stays_usable() -> None:
    s = B.users(3)
    before = state(s)
    attempts: list[dict[str, Any]] = [
        {"surface_op": B.replace(2, 0), "source_event_seqs": [0, 1, 2]},
        {"surface_op": "Append"},
        {"surface_op": "append", "source_event_seqs": [5]},
        {"surface_op": B.replace(0, 1), "source_event_seqs": [1]},
        {},
    ]
    for kwargs in attempts:
        with pytest.raises(InvalidEventError):
            s.append("user/message", B.user(), **kwargs)
        assert state(s) == before
    s.append("user/message", B.user(), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    assert [n.seq for n in s.surface.nodes] == [3, 2]


def test_d1_seeds_pass_the_same_rules() -> None:
    s = B.users(2)
    records = [e.to_json() for e in s.events]
    bad = B.record("user/message", 2, B.user(), op=B.replace(0, 1), refs=[0])
    with pytest.raises(InvalidEventError) as from_seed:
        Session("x", [*records, bad])
    with pytest.raises(InvalidEventError) as from_append:
        s.append("user/message", B.user(), surface_op=B.replace(0, 1), source_event_seqs=[0])
    assert (from_seed.value.code, from_seed.value.seq) == (from_append.value.code, from_append.value.seq)


# -- D2. Payloads that cannot be projected are refused ----------------------------------------------


_ANY_PAYLOAD = st.one_of(
    S.json_values,
    st.sampled_from(S.SURFACE_KINDS).flatmap(S.payloads),
    st.sampled_from(S.SURFACE_KINDS).flatmap(S.broken_payloads),
)


@given(st.lists(st.tuples(st.sampled_from(S.SURFACE_KINDS), _ANY_PAYLOAD), max_size=8))
@property_settings(150)
def test_d2_derivation_never_fails_on_an_accepted_log(offers: list[tuple[str, Any]]) -> None:
    s = B.session()
    for kind, data in offers:
        try:
            s.append(kind, data, surface_op="append")
        except InvalidEventError as error:
            assert error.code is Code.INVALID_PAYLOAD
    messages = s.derive_messages()
    assert all(m["role"] in ("user", "assistant") for m in messages)
    assert len(messages) <= s.seq


# -- D3. Atomic folds -----------------------------------------------------------------------------------


def test_d3_b2_a_failed_replace_leaves_no_half_folded_surface() -> None:
    """B2 (a)-(c): duplicate nodes, a drifting error, a climbing generation -- none of it here."""
    s = B.users(1)
    held = s.surface.nodes
    s.append("user/message", B.user("b"), surface_op="append")
    s.append("user/message", B.user("r"), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    for _ in range(3):
        with pytest.raises(InvalidEventError) as caught:
            s.append("user/message", B.user(), surface_op=B.replace(0, 0), source_event_seqs=[0])
        assert caught.value.code is Code.REPLACE_START_NOT_ON_SURFACE  # the same error every time
        assert [tuple(n) for n in s.surface.nodes] == [(2, None, None)]
        assert s.surface.replace_generation == 1
    assert held == ((0, None, None),)


def test_d3_b7_a_failed_append_does_not_grow_the_derived_cache() -> None:
    s = B.users(1)
    s.derive_messages()
    s.append("user/message", B.user("b"), surface_op="append")
    for _ in range(3):
        with pytest.raises(InvalidEventError):
            s.append("assistant/message", {"turn": 1, "step": 1}, surface_op="append")
        assert [m["content"][0]["text"] for m in s.derive_messages()] == ["u0", "b"]


# -- D4. Nothing mutable leaks ---------------------------------------------------------------------------


def test_d4_b8_the_returned_event_cannot_change_the_log() -> None:
    s = B.session()
    event = s.append("user/message", B.user("orig"), surface_op="append")
    s.derive_messages()
    event.data["content"][0]["text"] = "HACKED"  # changes a fresh copy only
    with pytest.raises(AttributeError):
        event.data = {}  # type: ignore[misc]
    assert event.data["content"][0]["text"] == "orig"
    assert s.derive_messages()[0]["content"][0]["text"] == "orig"
    assert Session("scratch", s.events).derive_messages() == s.derive_messages()


def test_d4_events_and_nodes_are_snapshots_not_live_structures() -> None:
    s = B.users(2)
    events, nodes, messages = s.events, s.surface.nodes, s.derive_messages()
    s.append("user/message", B.user("sum"), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    assert (len(events), len(nodes), len(messages)) == (2, 2, 2)
    with pytest.raises(TypeError):
        events[0] = events[1]  # type: ignore[index]
    with pytest.raises(TypeError):
        nodes[0] = nodes[1]  # type: ignore[index]
    with pytest.raises(AttributeError):
        s.header.id = "other"  # type: ignore[misc]


def test_d4_no_public_member_of_the_surface_hands_out_its_internal_structures() -> None:
    """A live link table would let a caller relink the surface or swap a cached message."""
    s = B.users(3)
    s.derive_messages()
    surface = s.surface
    internals = [surface._rank, surface._prev, surface._next, surface._messages]
    seen: list[str] = []
    for name in dir(SurfaceManager):
        if name.startswith("_") or name == "invalidate":
            continue
        member = getattr(surface, name)
        if callable(member):
            params = [p for p in inspect.signature(member).parameters.values() if p.default is p.empty]
            results = [member(*args) for args in ((), (0,), (0, 1), (1, 1)) if len(args) == len(params)]
        else:
            results = [member]
        for result in results:
            assert not _holds_one_of(result, internals), name
        seen.append(name)
    assert {"nodes", "replace_generation", "node", "seqs"} <= set(seen)
    assert not hasattr(surface, "head") and not hasattr(surface, "span") and not hasattr(surface, "fold")


def _holds_one_of(value: Any, internals: list[Any]) -> bool:
    if any(value is internal for internal in internals):
        return True
    if isinstance(value, list | tuple):
        return any(_holds_one_of(item, internals) for item in value)
    return False


def test_d4_the_callers_objects_are_copied_on_the_way_in() -> None:
    data = B.user("orig")
    refs = [0]
    s = B.users(1)
    s.append("user/message", data, surface_op="append", source_event_seqs=refs)
    data["content"].clear()
    refs.append(99)
    assert s.events[1].data == B.user("orig") and s.events[1].source_event_seqs == (0,)
    assert is_fresh_copy(lambda: s.events[1].data)


# -- D5. One canonical form for JSON values --------------------------------------------------------------


@given(S.json_values)
@property_settings(200)
def test_d5_what_is_in_memory_is_what_a_reload_gives_back(value: Any) -> None:
    event = B.session().append("hook/x", value)
    reloaded = loads(dumps(event.to_json()))["data"]
    assert_same_json(event.data, reloaded)
    spec = dsh_spec.canonical_json(value)
    assert_same_json(event.data, spec)


def test_d5_an_integer_no_double_holds_is_refused_not_rounded() -> None:
    s = B.session()
    with pytest.raises(InvalidEventError) as caught:
        s.append("hook/x", {"n": 2**53 + 1})
    assert caught.value.code is Code.NON_JSON_DATA and "data.n" in caught.value.message
    assert s.append("hook/x", {"n": 2**53 + 2}).data["n"] == 2.0**53 + 2


# -- D6 is a cost promise: measured by bench/, not asserted here ------------------------------------------

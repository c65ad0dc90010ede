"""The surface (core.md §5) and test cases 30-57, against the implementation and the spec.

Our replace is checked at append time (decision 1): the reference's fold-time
errors (cases 38-40) become append-time refusals with codes, and the session
stays usable. Every scenario is also folded by the spec, which must agree.
"""

from __future__ import annotations

from typing import Any

import pytest

import dsh_spec
from dsh_session import SURFACE_TYPES, Code, InvalidEventError, Replace, Session, SurfaceNode
from tests import builders as B


def links(session: Session) -> list[tuple[int, int | None, int | None]]:
    nodes = [tuple(node) for node in session.surface.nodes]
    spec = dsh_spec.fold_surface(_spec_events(session))
    assert isinstance(spec, dsh_spec.Surface)
    assert nodes == [tuple(node) for node in dsh_spec.surface_nodes(spec)], "spec and implementation differ"
    return nodes  # type: ignore[return-value]


def _spec_events(session: Session) -> tuple[dsh_spec.Event, ...]:
    events = dsh_spec.check_seed([e.to_json() for e in session.events])
    assert not isinstance(events, dsh_spec.Rejection), events
    return events


def refused(code: Code, session: Session, kind: str, data: Any, **kwargs: Any) -> None:
    before = (session.seq, session.surface.nodes, session.surface.replace_generation)
    with pytest.raises(InvalidEventError) as caught:
        session.append(kind, data, **kwargs)
    assert (caught.value.code, caught.value.seq) == (code, session.seq)
    assert (session.seq, session.surface.nodes, session.surface.replace_generation) == before
    spec = dsh_spec.validate_append(
        _spec_events(session),
        dsh_spec.Draft(
            kind,
            0,
            data,
            kwargs.get("surface_op", dsh_spec.ABSENT),
            kwargs.get("source_event_seqs", dsh_spec.ABSENT),
        ),
    )
    assert isinstance(spec, dsh_spec.Rejection) and spec.code == code and spec.seq == session.seq


# -- building the list -----------------------------------------------------------------------


def refused_replace(code: Code, session: Session, start: int, end: int, sources: list[int]) -> None:
    """A user message replacing ``start..end`` and citing ``sources`` is refused with ``code``."""
    refused(
        code, session, "user/message", B.user(), surface_op=B.replace(start, end), source_event_seqs=sources
    )


def test_case_30_append_markers_build_a_linked_list() -> None:
    s = B.session()
    s.append("turn/start", B.turn_start())
    s.append("user/message", B.user(), surface_op="append")
    s.append("assistant/message", B.assistant(B.text("hi")), surface_op="append")
    s.append("turn/end", B.turn_end())
    assert links(s) == [(1, None, 2), (2, 1, None)]
    assert s.surface.nodes == (SurfaceNode(1, None, 2), SurfaceNode(2, 1, None))


def test_case_31_invalidate_rebuilds_the_same_nodes() -> None:
    s = B.users(2)
    before = s.surface.nodes
    s.surface.invalidate()
    assert s.surface.nodes == before
    assert s.surface.replace_generation == 1


def test_case_32_an_empty_surface() -> None:
    s = B.session()
    for kind in ("turn/start", "step/start", "step/end", "turn/end"):
        s.append(kind, {})
    assert links(s) == [] and s.derive_messages().to_json() == []
    assert len(s.surface) == 0 and s.surface.seqs() == []


def test_case_33_new_events_are_picked_up_incrementally() -> None:
    s = B.session()
    s.append("turn/start", B.turn_start())
    s.append("user/message", B.user(), surface_op="append")
    s.append("assistant/message", B.assistant(B.tool_call()), surface_op="append")
    assert len(s.surface.nodes) == 2
    s.append("tool/call", {"callId": "c1"})
    s.append("tool/result", B.tool_result(), surface_op="append")
    nodes = s.surface.nodes
    assert len(nodes) == 3 and nodes[2] == SurfaceNode(4, 2, None) and nodes[1].next == 4


def test_case_34_a_seeded_log_replays_its_surface() -> None:
    s = B.session()
    s.append("turn/start", B.turn_start())
    s.append("user/message", B.user(), surface_op="append")
    s.append("assistant/message", B.assistant(B.tool_call()), surface_op="append")
    s.append("tool/call", {"callId": "c1"})
    s.append("tool/result", B.tool_result(), surface_op="append")
    replay = Session("r", s.events)
    assert [n.seq for n in replay.surface.nodes] == [1, 2, 4]
    assert replay.derive_messages() == s.derive_messages()


# -- replace -------------------------------------------------------------------------------------


def test_case_35_a_replace_splices_out_the_shadowed_nodes() -> None:
    s = B.session()
    s.append("turn/start", B.turn_start())
    s.append("user/message", B.user(), surface_op="append")
    s.append("assistant/message", B.assistant(B.text("a")), surface_op="append")
    s.append("compact/start", {})
    s.append("user/message", B.user("summary"), surface_op=B.replace(1, 2), source_event_seqs=[3, 1, 2])
    assert links(s) == [(4, None, None)]
    assert s.seq == 5 and s.events[1].type == "user/message"  # shadowed events stay in the log


def test_case_36_a_replace_of_the_head_keeps_the_rest() -> None:
    s = B.users(3)
    s.append("user/message", B.user("sum"), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    assert links(s) == [(3, None, 2), (2, 3, None)]


def test_case_37_a_single_node_replace() -> None:
    s = B.users(2)
    s.append("user/message", B.user("sum"), surface_op=B.replace(1, 1), source_event_seqs=[1])
    assert links(s) == [(0, None, 2), (2, 0, None)]


def test_case_42_a_replace_in_the_middle_links_both_neighbours() -> None:
    s = B.users(3)
    s.append("user/message", B.user("sum"), surface_op=B.replace(1, 1), source_event_seqs=[1])
    assert links(s) == [(0, None, 3), (3, 0, 2), (2, 3, None)]


def test_a_replace_takes_the_range_by_position_not_seq_order() -> None:
    """After a compaction the head has a high seq; a range from it to a lower seq is in order."""
    s = B.users(3)
    s.append("user/message", B.user("sum"), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    assert [n.seq for n in s.surface.nodes] == [3, 2]
    s.append("user/message", B.user("sum2"), surface_op=B.replace(3, 2), source_event_seqs=[3, 2])
    assert links(s) == [(4, None, None)]
    assert s.surface.replace_generation == 2


def test_a_replace_may_take_the_whole_surface_or_be_given_as_a_replace_value() -> None:
    s = B.users(3)
    s.append("context/message", B.context(), surface_op=Replace(0, 2), source_event_seqs=(2, 1, 0))
    assert links(s) == [(3, None, None)]


def test_the_replacement_can_be_any_surface_type() -> None:
    for kind, data in [
        ("user/message", B.user()),
        ("assistant/message", B.assistant(B.text("a"))),
        ("tool/result", B.tool_result()),
        ("context/message", B.context()),
        ("steering/message", B.steering()),
    ]:
        s = B.users(2)
        s.append(kind, data, surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
        assert links(s) == [(2, None, None)]


# -- replace refusals (reference: fold-time errors that poison the session) --------------------


def test_case_38_a_start_not_on_the_surface_is_refused_at_append() -> None:
    s = B.users(2)
    refused(
        Code.REPLACE_START_NOT_ON_SURFACE,
        s,
        "assistant/message",
        B.assistant(B.text("x")),
        surface_op=B.replace(5, 0),
        source_event_seqs=[0],
    )
    s.append("user/message", B.user(), surface_op="append")
    assert len(s.surface.nodes) == 3


def test_case_39_an_end_not_on_the_surface_is_refused() -> None:
    s = B.users(2)
    refused_replace(Code.REPLACE_END_NOT_ON_SURFACE, s, 0, 99, [0, 1])


def test_case_40_a_reversed_range_is_refused() -> None:
    s = B.users(2)
    refused_replace(Code.REPLACE_RANGE_REVERSED, s, 1, 0, [0, 1])


def test_a_shadowed_endpoint_is_stale() -> None:
    s = B.users(3)
    s.append("user/message", B.user("sum"), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    refused_replace(Code.REPLACE_START_NOT_ON_SURFACE, s, 0, 2, [0, 2, 3])
    refused_replace(Code.REPLACE_END_NOT_ON_SURFACE, s, 3, 1, [1, 2, 3])


def test_a_replace_cannot_name_itself_or_a_log_only_event() -> None:
    s = B.users(1)
    s.append("turn/end", {})
    refused_replace(Code.REPLACE_END_NOT_ON_SURFACE, s, 0, 2, [0])
    refused_replace(Code.REPLACE_START_NOT_ON_SURFACE, s, 1, 0, [0, 1])
    refused_replace(Code.REPLACE_START_NOT_ON_SURFACE, s, -1, 0, [0])


@pytest.mark.parametrize(
    "op",
    [
        {"op": "replace", "start": True, "end": True},
        {"op": "replace", "start": "0", "end": "0"},
        {"op": "replace", "start": 0},
        {"op": "replace", "start": 0, "end": 0, "extra": 0},
        {"op": "delete", "start": 0, "end": 0},
        {"op": "Replace", "start": 0, "end": 0},
        {"start": 0, "end": 0},
        {},
        {"op": "replace", "start": 0.5, "end": 0},
        {"op": "replace", "start": 2**53 + 1, "end": 0},
        "Append",
        "prepend",
        "",
        Replace(True, 0),
    ],
    ids=repr,
)
def test_b3_a_malformed_surface_op_is_refused(op: Any) -> None:
    """The reference stores these and fails (or silently replaces) at fold time; bool is never 1."""
    s = B.users(2)
    with pytest.raises(InvalidEventError) as caught:
        s.append("user/message", B.user(), surface_op=op, source_event_seqs=[0, 1])
    assert caught.value.code is Code.MALFORMED_SURFACE_OP and caught.value.seq == 2
    assert s.seq == 2


def test_an_integral_float_endpoint_is_the_integer() -> None:
    s = B.users(2)
    event = s.append(
        "user/message",
        B.user(),
        surface_op={"op": "replace", "start": 1.0, "end": 1},
        source_event_seqs=iter([1.0]),  # type: ignore[arg-type]
    )
    assert event.surface_op == Replace(1, 1) and type(event.surface_op.start) is int
    assert event.source_event_seqs is not None
    assert event.source_event_seqs == (1,) and type(event.source_event_seqs[0]) is int


# -- provenance ---------------------------------------------------------------------------------


def test_provenance_must_cover_every_shadowed_node() -> None:
    s = B.users(3)
    refused_replace(Code.REPLACE_PROVENANCE_INCOMPLETE, s, 0, 2, [0, 2])
    refused(Code.REPLACE_PROVENANCE_INCOMPLETE, s, "user/message", B.user(), surface_op=B.replace(0, 0))
    s.append(
        "user/message", B.user(), surface_op=B.replace(0, 0), source_event_seqs=[2, 0, 1]
    )  # a superset is fine
    assert links(s) == [(3, None, 1), (1, 3, 2), (2, 1, None)]


@pytest.mark.parametrize(
    ("refs", "code"),
    [
        ([], Code.PROVENANCE_EMPTY),
        ([0, 0], Code.PROVENANCE_DUPLICATE),
        ([0, 2], Code.PROVENANCE_NOT_EARLIER),
        ([0, 9], Code.PROVENANCE_NOT_EARLIER),
        ([-1], Code.PROVENANCE_UNKNOWN_SEQ),
        ([True], Code.MALFORMED_PROVENANCE),
        (iter([0.5]), Code.MALFORMED_PROVENANCE),
        (iter(["0"]), Code.MALFORMED_PROVENANCE),
        (iter([None]), Code.MALFORMED_PROVENANCE),
    ],
    ids=repr,
)
def test_b4_malformed_provenance_is_refused(refs: Any, code: Code) -> None:
    s = B.users(2)
    with pytest.raises(InvalidEventError) as caught:
        s.append("user/message", B.user(), surface_op="append", source_event_seqs=refs)
    assert (caught.value.code, caught.value.seq) == (code, 2)


# -- the generation -----------------------------------------------------------------------------


def test_case_57_the_generation_counts_replaces_and_invalidations() -> None:
    s = B.users(2)
    assert s.surface.replace_generation == 0
    s.append("context/message", B.context(), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    assert s.surface.replace_generation == 1
    s.surface.invalidate()
    assert s.surface.replace_generation == 3  # +1, and the refold counts the replace again


def test_invalidate_follows_the_reference_arithmetic() -> None:
    """§5.5: 1 -> 3 -> 5; a fresh session over the same log says 1; back-to-back invalidations add 1 each."""
    s = B.users(2)
    s.append("user/message", B.user(), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    seen = [s.surface.replace_generation]
    for _ in range(2):
        s.surface.invalidate()
        seen.append(s.surface.replace_generation)
    assert seen == [1, 3, 5]
    assert Session("fresh", s.events).surface.replace_generation == 1
    s.surface.invalidate()
    s.surface.invalidate()
    s.surface.invalidate()
    assert s.surface.replace_generation == 5 + 3 + 1


def test_an_unchanged_generation_means_only_tail_appends() -> None:
    s = B.users(2)
    generation, seen = s.surface.replace_generation, s.surface.nodes
    s.append("user/message", B.user(), surface_op="append")
    s.append("turn/end", {})
    assert s.surface.replace_generation == generation
    assert s.surface.nodes[: len(seen) - 1] == seen[:-1] and [
        n.seq for n in s.surface.nodes[len(seen) :]
    ] == [2]


# -- reading the surface ---------------------------------------------------------------------------


def test_nodes_is_an_immutable_snapshot() -> None:
    s = B.users(2)
    held = s.surface.nodes
    s.append("user/message", B.user(), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    assert held == (SurfaceNode(0, None, 1), SurfaceNode(1, 0, None))
    with pytest.raises(TypeError):
        held[0] = SurfaceNode(9, None, None)  # type: ignore[index]
    with pytest.raises(AttributeError):
        held[0].seq = 9  # type: ignore[misc]


def test_lookups_are_type_strict() -> None:
    s = B.users(3)
    assert s.surface.node(1) == SurfaceNode(1, 0, 2)
    assert s.surface.node(True) is None and True not in s.surface and 1.0 not in s.surface
    assert s.surface.node(7) is None and 7 not in s.surface and 1 in s.surface
    assert s.surface.seqs() == [0, 1, 2] and len(s.surface) == 3
    assert list(s.surface) == list(s.surface.nodes)
    assert repr(s.surface) == "<SurfaceManager nodes=[0, 1, 2] generation=0>"


# -- type guards (cases 52-56) ---------------------------------------------------------------------


def test_cases_53_to_56_the_surface_types() -> None:
    expected = {"user/message", "assistant/message", "tool/result", "context/message", "steering/message"}
    assert expected == SURFACE_TYPES == dsh_spec.SURFACE_TYPES
    for kind in expected:
        assert dsh_spec.is_surface_type(kind)
    for other in ("turn/start", "assistant/chunk", "compact/start", "User/Message", 5, None):
        assert not dsh_spec.is_surface_type(other)


def test_case_52_a_marker_less_surface_event_never_reaches_the_log() -> None:
    """The reference logs it and leaves it off the surface; we refuse it (MISSING_SURFACE_OP)."""
    s = B.session()
    with pytest.raises(InvalidEventError) as caught:
        s.append("user/message", B.user())
    assert caught.value.code is Code.MISSING_SURFACE_OP
    event = s.append("user/message", B.user(), surface_op="append")
    assert s.surface.node(event.seq) is not None
    assert s.derive_event_message(event) is not None


def test_position() -> None:
    s = B.users(4)
    s.append("user/message", B.user("sum"), surface_op=B.replace(1, 2), source_event_seqs=[1, 2])
    surface = s.surface
    assert [surface.position(node.seq) for node in surface.nodes] == [0, 1, 2]
    assert surface.replace_generation == 1


def test_the_spec_surface_helpers() -> None:
    order = (5, 0, 3, 1)
    assert dsh_spec.surface.replace_range(order, 9, dsh_spec.Replace(5, 3)) == (0, 2)
    assert dsh_spec.shadowed(order, 9, dsh_spec.Replace(0, 1)) == (0, 3, 1)
    refused = dsh_spec.shadowed(order, 9, dsh_spec.Replace(3, 0))
    assert isinstance(refused, dsh_spec.Rejection)
    assert (refused.code, refused.seq) == (Code.REPLACE_RANGE_REVERSED, 9)
    assert dsh_spec.surface.position(order, True) is None and dsh_spec.surface.position(order, 3) == 2
    assert dsh_spec.surface_op_json(dsh_spec.Replace(1, 2)) == {"op": "replace", "start": 1, "end": 2}
    assert dsh_spec.surface_op_json("append") == "append"
    nodes = dsh_spec.surface_nodes(dsh_spec.Surface(order, 0))
    assert [tuple(n) for n in nodes] == [(5, None, 0), (0, 5, 3), (3, 0, 1), (1, 3, None)]


def test_shadowed_reports_what_a_replace_would_take_off_as_the_spec_does() -> None:
    """``SurfaceManager.shadowed`` answers the spec's ``shadowed`` question without folding anything."""
    session = Session("shadowed", clock=lambda: 0)
    for text in "abcd":
        session.append(
            "user/message",
            {"content": [{"type": "text", "text": text}], "source": {"kind": "user"}},
            surface_op="append",
        )
    session.append(
        "user/message",
        {"content": [{"type": "text", "text": "s"}], "source": {"kind": "user"}},
        surface_op={"op": "replace", "start": 1, "end": 2},
        source_event_seqs=[1, 2],
    )
    log = tuple(dsh_spec.check_seed([event.to_json() for event in session.events]))  # type: ignore[arg-type]
    order = dsh_spec.fold_surface(log)
    assert isinstance(order, dsh_spec.Surface)
    for start, end in [(0, 3), (4, 3), (0, 0), (3, 4), (1, 2), (2, 2), (3, 0), (True, 3)]:
        expected = dsh_spec.shadowed(order.order, 5, dsh_spec.Replace(start, end))
        got = session.surface.shadowed(start, end)
        if isinstance(expected, dsh_spec.Rejection):
            assert got is None
        else:
            assert got == expected
    assert session.surface.replace_generation == 1  # asking folded nothing
    assert [node.seq for node in session.surface.nodes] == [0, 4, 3]

"""Derivation (core.md §1.10, §6): the projection of one event, and the history over the surface.

Cases 1, 3, 4, 6, 44-47, 49 and 58-69. Each projection is checked on the
implementation (``Session.derive_event_message`` and the module function) and
on the spec, with the exact JSON the reference produces.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dsh_session
import dsh_spec
from dsh_session import Event, Session, freeze
from tests import builders as B
from tests import strategies as S
from tests.support import assert_same_json, is_fresh_copy, property_settings


def project(kind: str, data: Any, op: Any = "append") -> Any:
    """The message of one event, by the implementation and by the spec (they must agree)."""
    session = B.session()
    event = (
        session.append(kind, data, surface_op=op)
        if kind in dsh_session.SURFACE_TYPES
        else session.append(kind, data)
    )
    impl = session.derive_event_message(event)
    assert_same_json(dsh_session.derive_event_message(event), impl)
    spec_event = dsh_spec.check_seed([event.to_json()])
    assert not isinstance(spec_event, dsh_spec.Rejection)
    assert_same_json(impl, dsh_spec.derive_event_message(spec_event[0]))
    return impl


# -- one event ---------------------------------------------------------------------------------


def test_user_message() -> None:
    assert_same_json(project("user/message", B.user("hi")), {"role": "user", "content": [B.text("hi")]})


def test_assistant_message_and_the_empty_skip() -> None:
    data = {**B.assistant(B.text("a"), B.tool_call()), "usage": {"inputTokens": 1, "outputTokens": 2}}
    assert_same_json(
        project("assistant/message", data), {"role": "assistant", "content": [B.text("a"), B.tool_call()]}
    )
    assert (
        project("assistant/message", {**B.assistant(), "usage": {"inputTokens": 1, "outputTokens": 0}})
        is None
    )


def test_tool_result_becomes_a_tool_result_block() -> None:
    data = {**B.tool_result("c7", "boom", True), "error": {"name": "E", "code": "x"}, "meta": {"exit": 1}}
    expected = {
        "role": "user",
        "content": [
            {"type": "tool-result", "toolCallId": "c7", "content": [B.text("boom")], "isError": True}
        ],
    }
    message = project("tool/result", data)
    assert_same_json(message, expected)
    assert list(message["content"][0]) == ["type", "toolCallId", "content", "isError"]


def test_case_3_context_and_steering_are_tagged() -> None:
    context = project("context/message", B.context("facts", B.PLUGIN))
    assert_same_json(
        context,
        {
            "role": "user",
            "content": [B.text('<context source="plugin">'), B.text("facts"), B.text("</context>")],
        },
    )
    steering = project("steering/message", B.steering("go", B.USER))
    assert steering["content"][0] == B.text('<steering source="user">')
    assert steering["content"][-1] == B.text("</steering>")


def test_case_4_raw_context_is_untagged_and_meta_stays_in_the_log() -> None:
    meta = {"origin": "memory", "score": 0.5}
    session = B.session()
    event = session.append(
        "context/message", B.context("raw text", envelope="raw", meta=meta), surface_op="append"
    )
    assert session.derive_messages().to_json() == [{"role": "user", "content": [B.text("raw text")]}]
    assert event.data["meta"] == meta


def test_the_envelope_context_is_the_default_and_steering_ignores_its_envelope() -> None:
    assert project("context/message", B.context(envelope="context")) == project(
        "context/message", B.context()
    )
    assert project("steering/message", B.steering(envelope="raw")) == project(
        "steering/message", B.steering()
    )
    assert project("steering/message", B.steering(envelope="bogus")) == project(
        "steering/message", B.steering()
    )


@pytest.mark.parametrize(
    ("kind", "tag"),
    [
        ('a"b', '"a\\"b"'),
        ("back\\slash", '"back\\\\slash"'),
        ("new\nline", '"new\\nline"'),
        ("", '""'),
        ("\ud800", '"\\ud800"'),
        ("😀", '"😀"'),
    ],
)
def test_the_tag_quotes_the_source_kind_like_json_stringify(kind: str, tag: str) -> None:
    message = project("context/message", B.context(source={"kind": kind, "plugin": "ignored"}))
    assert message["content"][0] == B.text(f"<context source={tag}>")


def test_fields_that_never_reach_a_message() -> None:
    data = {**B.steering(), "meta": {"secret": 1}, "envelope": "context"}
    message = project("steering/message", data)
    text = str(message)
    for absent in ("secret", "turn", "meta", "envelope", "plugin"):
        assert absent not in text


def test_case_64_log_only_events_project_to_nothing() -> None:
    for kind in ("step/start", "turn/start", "tool/call", "assistant/chunk", "compact/start", "todo/write"):
        assert project(kind, {"content": [B.text("looks like a message")], "source": B.USER}) is None


def test_projection_ignores_the_surface() -> None:
    """A shadowed event still projects when asked directly."""
    s = B.users(2)
    s.append("user/message", B.user("sum"), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    assert s.surface.node(0) is None
    assert_same_json(s.derive_event_message(s.events[0]), {"role": "user", "content": [B.text("u0")]})


def test_messages_are_fresh_copies_of_the_events_content() -> None:
    """A projected message holds the event's content, as a copy of its own."""
    s = B.session()
    event = s.append("user/message", B.user(), surface_op="append")
    message = s.derive_event_message(event)
    assert message is not None and message["content"] == event.data["content"] == B.user()["content"]
    message["content"].append(B.text("x"))
    assert s.derive_event_message(event) == {"role": "user", "content": B.user()["content"]}
    assert event.data == B.user()


def test_case_63_the_spec_projection_is_a_fresh_copy() -> None:
    events = dsh_spec.check_seed([B.record("user/message", 0, B.user("orig"), op="append")])
    assert not isinstance(events, dsh_spec.Rejection)
    message = dsh_spec.derive_event_message(events[0])
    assert message is not None
    message["content"][0]["text"] = "HACKED"  # type: ignore[index,call-overload]
    assert events[0].data == B.user("orig")


# -- the history -----------------------------------------------------------------------------------


def test_case_1_a_turn_derives_user_assistant_user() -> None:
    s = B.session()
    s.append("turn/start", B.turn_start())
    s.append("user/message", B.user("hello"), surface_op="append")
    s.append(
        "assistant/chunk", {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "x"}}
    )
    s.append("assistant/message", B.assistant(B.text("calling"), B.tool_call("c1")), surface_op="append")
    s.append("tool/result", B.tool_result("c1"), surface_op="append")
    s.append("turn/end", B.turn_end())
    messages = s.derive_messages()
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert len(messages[1]["content"]) == 2
    assert (
        messages[2]["content"][0]["type"] == "tool-result" and messages[2]["content"][0]["toolCallId"] == "c1"
    )


def test_cases_44_to_47_the_surface_decides_the_history() -> None:
    s = B.session()
    s.append("turn/start", B.turn_start())
    s.append("user/message", B.user("hello"), surface_op="append")
    s.append("step/start", {"turn": 1, "step": 1})
    s.append("assistant/message", B.assistant(B.text("hi")), surface_op="append")
    s.append("context/message", B.context("c", B.PLUGIN), surface_op="append")
    s.append("steering/message", B.steering("s", B.USER), surface_op="append")
    assert [m["content"][0]["text"] for m in s.derive_messages()] == [
        "hello",
        "hi",
        '<context source="plugin">',
        '<steering source="user">',
    ]
    s.append(
        "assistant/message",
        B.assistant(B.text("compacted")),
        surface_op=B.replace(1, 5),
        source_event_seqs=[1, 3, 4, 5],
    )
    assert s.derive_messages().to_json() == [{"role": "assistant", "content": [B.text("compacted")]}]


def test_case_49_a_node_that_projects_to_nothing_is_skipped() -> None:
    s = Session("x", [B.record("assistant/message", 0, B.assistant(), op="append")])
    assert len(s.surface.nodes) == 1 and s.derive_messages().to_json() == []


def test_an_empty_assistant_node_is_still_a_replace_endpoint() -> None:
    s = B.users(1)
    s.append("assistant/message", B.assistant(), surface_op="append")
    s.append("user/message", B.user("sum"), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    assert [n.seq for n in s.surface.nodes] == [2]


def test_case_58_incremental_derivation_equals_a_replay_as_the_log_grows() -> None:
    s = B.session()
    steps: list[tuple[str, Any, Any]] = [
        ("turn/start", B.turn_start(), None),
        ("user/message", B.user("a"), "append"),
        ("assistant/message", {**B.assistant(), "usage": {"inputTokens": 3, "outputTokens": 0}}, "append"),
        ("assistant/message", B.assistant(B.text("b")), "append"),
        ("tool/result", B.tool_result(), "append"),
        ("context/message", B.context(envelope="raw"), "append"),
        ("turn/end", B.turn_end(), None),
    ]
    for kind, data, op in steps:
        if op is None:
            s.append(kind, data)
        else:
            s.append(kind, data, surface_op=op)
        assert s.derive_messages() == Session("replay", s.events).derive_messages()


def test_case_59_a_replace_rebuilds_and_an_earlier_list_is_kept() -> None:
    s = B.users(2)
    before = s.derive_messages()
    assert len(before) == 2
    s.append("user/message", B.user("sum"), surface_op=B.replace(0, 1), source_event_seqs=[0, 1])
    after = s.derive_messages()
    assert after.to_json() == [{"role": "user", "content": [B.text("sum")]}]
    assert after == Session("replay", s.events).derive_messages()
    assert len(before) == 2 and before[1]["content"][0]["text"] == "u1"


def test_case_60_each_call_returns_a_new_list_of_the_same_messages() -> None:
    s = B.users(1)
    first = s.derive_messages()
    s.append("user/message", B.user(), surface_op="append")
    second = s.derive_messages()
    assert len(first) == 1 and len(second) == 2
    assert second[0] == first[0]
    second[0]["content"].append(B.text("x"))  # a copy: the next read is as it was
    assert s.derive_messages()[0] == first[0] and len(first[0]["content"]) == 1


def test_a_replace_does_not_project_untouched_events_again() -> None:
    """The history after a replace re-uses the messages of the nodes it did not shadow."""
    from tests.test_cost import projections

    s = B.users(4)
    before = s.derive_messages()
    with projections() as seen:
        s.append("user/message", B.user("sum"), surface_op=B.replace(1, 2), source_event_seqs=[1, 2])
        after = s.derive_messages()
    assert seen == [4]
    assert after[0] == before[0] and after[2] == before[3]


def test_case_61_invalidate_rebuilds_equal_messages() -> None:
    s = B.users(2)
    before = s.derive_messages()
    s.surface.invalidate()
    after = s.derive_messages()
    assert after == before
    assert is_fresh_copy(lambda: after[0]) and is_fresh_copy(lambda: after[1])


def test_case_62_one_event_projects_as_the_history_projects_its_node() -> None:
    s = B.users(1)
    event = s.append("tool/result", B.tool_result(), surface_op="append")
    assert s.derive_messages()[-1] == s.derive_event_message(event)


def test_case_6_derived_messages_cannot_be_changed() -> None:
    s = B.session()
    s.append("user/message", B.user("orig"), surface_op="append")
    s.append("tool/result", B.tool_result(), surface_op="append")
    messages = s.derive_messages()
    log_before = [e.to_json() for e in s.events]
    history = messages.to_json()
    first, second = messages[0], messages[1]
    changes: list[Callable[[], object]] = [  # each changes a fresh copy of a message
        lambda: _set(first["content"][0], "text", "HACKED"),
        lambda: second["content"][0]["content"].append(B.text("x")),
        lambda: first["content"].append(B.text("x")),
        lambda: _set(first, "role", "system"),
    ]
    for change in changes:
        change()
    with pytest.raises(TypeError):
        _set(messages, 0, {})  # the view itself cannot be changed
    assert messages.to_json() == history and s.derive_messages().to_json() == history
    assert next(reversed(messages)) == messages[1]  # reading in another order is fine
    assert [e.to_json() for e in s.events] == log_before
    assert s.derive_messages() == messages


def test_to_json_gives_plain_mutable_messages() -> None:
    s = B.users(1)
    plain = s.derive_messages().to_json()
    plain[0]["content"].append(B.text("mine"))
    assert len(s.derive_messages()[0]["content"]) == 1


# -- properties (cases 65-69) --------------------------------------------------------------------


@st.composite
def logs(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A valid log of up to 25 events: surface appends, replaces and log-only events."""
    records: list[dict[str, Any]] = []
    order: list[int] = []
    for seq in range(draw(st.integers(0, 25))):
        what = draw(st.integers(0, 4))
        if what == 0:
            records.append(B.record(draw(st.sampled_from(S.LOG_ONLY_KINDS)), seq, draw(S.json_objects)))
            continue
        kind = draw(st.sampled_from(S.SURFACE_KINDS))
        data = draw(S.payloads(kind))
        if what == 1 and order:
            first = draw(st.integers(0, len(order) - 1))
            last = draw(st.integers(first, len(order) - 1))
            records.append(
                B.record(
                    kind, seq, data, op=B.replace(order[first], order[last]), refs=order[first : last + 1]
                )
            )
            order[first : last + 1] = [seq]
        else:
            records.append(B.record(kind, seq, data, op="append"))
            order.append(seq)
    return records


@given(logs())
@property_settings(60)
def test_case_65_67_derivation_is_deterministic_and_replays(records: list[dict[str, Any]]) -> None:
    s = Session("p", records)
    first = s.derive_messages()
    assert s.derive_messages() == first
    assert Session("replay", s.events).derive_messages() == first
    spec = dsh_spec.check_seed(records)
    assert not isinstance(spec, dsh_spec.Rejection)
    assert_same_json(list(first), list(dsh_spec.derive_messages(spec)))  # type: ignore[arg-type]


@given(logs())
@property_settings(40)
def test_case_66_seqs_are_contiguous_from_zero(records: list[dict[str, Any]]) -> None:
    s = B.session()
    for record in records:
        kwargs = {
            k: record[v]
            for k, v in (("surface_op", "surfaceOp"), ("source_event_seqs", "sourceEventSeqs"))
            if v in record
        }
        event = s.append(record["type"], record["data"], **kwargs)
        assert event.seq == s.seq - 1
    assert [e.seq for e in s.events] == list(range(len(records))) and s.seq == len(records)


@given(logs(), st.data())
@property_settings(40)
def test_case_68_log_only_events_never_change_the_history(
    records: list[dict[str, Any]], data: st.DataObject
) -> None:
    plain = Session("plain", records).derive_messages()
    s = B.session()
    renumber: dict[int, int] = {}
    for record in records:
        for _ in range(data.draw(st.integers(0, 2))):
            s.append(data.draw(st.sampled_from(S.LOG_ONLY_KINDS)), data.draw(S.json_values))
        op = record.get("surfaceOp")
        if isinstance(op, dict):
            op = B.replace(renumber[op["start"]], renumber[op["end"]])
        refs = [renumber[r] for r in record.get("sourceEventSeqs", [])] or None
        if op is None:
            event = s.append(record["type"], record["data"])
        else:
            event = s.append(record["type"], record["data"], surface_op=op, source_event_seqs=refs)
        renumber[record["seq"]] = event.seq
    assert s.derive_messages() == plain


@given(logs())
@property_settings(40)
def test_case_69_every_message_has_a_known_role_and_is_frozen(records: list[dict[str, Any]]) -> None:
    s = Session("p", records)
    log_before = [e.to_json() for e in s.events]
    for message in s.derive_messages():
        assert message["role"] in ("user", "assistant")
        message["content"].append(B.text("x"))  # a fresh copy: nothing else changes
    assert [e.to_json() for e in s.events] == log_before
    assert s.derive_messages() == Session("p2", records).derive_messages()


def test_the_module_projection_accepts_any_logged_event() -> None:
    event = Event("user/message", 0, 0, freeze(B.user()), None, "append")
    assert dsh_session.derive_event_message(event) == {"role": "user", "content": [B.text("hello")]}


def _set(target: Any, key: Any, value: Any) -> None:
    target[key] = value

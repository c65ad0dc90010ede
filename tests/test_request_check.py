"""The loop-built request cross-check (invariants.md §1.5) in the spec and the implementation.

Unit tests pin each condition of the reference's check (and its order) on
small logs and on the end-to-end log of invariants.md §4.4; property tests
build faithful requests from random agent logs with request headers -- both
sides must accept them -- and perturb them, where both must refuse with the
same code at the same seq.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dsh_session as impl
import dsh_spec as spec
from dsh_spec import Code
from tests.invariant_logs import agent_logs
from tests.store_support import delta_jsons, header_jsons
from tests.support import property_settings

Record = dict[str, Any]
Outcome = tuple[str, int | None] | None

# -- building logs and running both sides ---------------------------------------------------------


def numbered(*records: Record) -> list[Record]:
    """The records with seq 0, 1, 2, ... and time = seq."""
    return [{**record, "seq": seq, "time": seq} for seq, record in enumerate(records)]


def spec_event(record: Record) -> spec.Event:
    op = record.get("surfaceOp")
    surface_op: spec.SurfaceOp | None = None
    if op == "append":
        surface_op = "append"
    elif op is not None:
        surface_op = spec.Replace(op["start"], op["end"])
    refs = record.get("sourceEventSeqs")
    data = spec.canonical_json(record["data"])
    assert not isinstance(data, spec.NotJson)
    return spec.Event(
        record["type"], record["seq"], record["time"], data, None if refs is None else tuple(refs), surface_op
    )


def impl_event(record: Record) -> impl.Event:
    op = record.get("surfaceOp")
    surface_op: impl.SurfaceOp | None = None
    if op == "append":
        surface_op = "append"
    elif op is not None:
        surface_op = impl.Replace(op["start"], op["end"])
    refs = record.get("sourceEventSeqs")
    return impl.Event(
        record["type"],
        record["seq"],
        record["time"],
        impl.freeze(record["data"]),
        None if refs is None else tuple(refs),
        surface_op,
    )


def spec_outcome(records: list[Record], request: Record, session_id: str | None = "s") -> Outcome:
    found = spec.check_loop_request([spec_event(r) for r in records], request, session_id)
    return None if found is None else (found.code.value, found.seq)


def impl_outcome(records: list[Record], request: Record, session_id: str | None = "s") -> Outcome:
    try:
        impl.check_loop_request([impl_event(r) for r in records], request, session_id=session_id)
    except impl.DshSessionError as error:
        return (error.code.value, error.seq)
    return None


def both(records: list[Record], request: Record) -> Outcome:
    found = spec_outcome(records, request)
    assert impl_outcome(records, request) == found
    return found


def text(value: str) -> list[Any]:
    return [{"type": "text", "text": value}]


def TS(turn: int) -> Record:
    return {"type": "turn/start", "data": {"turn": turn}}


def TE(turn: int) -> Record:
    return {"type": "turn/end", "data": {"turn": turn}}


def SS(turn: int, step: int) -> Record:
    return {"type": "step/start", "data": {"turn": turn, "step": step}}


def SE(turn: int, step: int) -> Record:
    return {"type": "step/end", "data": {"turn": turn, "step": step}}


def U(what: str) -> Record:
    return {
        "type": "user/message",
        "data": {"content": text(what), "source": {"kind": "user"}},
        "surfaceOp": "append",
    }


def A(turn: int, step: int, what: str) -> Record:
    data = {"turn": turn, "step": step, "content": text(what)}
    return {"type": "assistant/message", "data": data, "surfaceOp": "append"}


def H(header: Record, reason: str = "initial") -> Record:
    return {"type": "request/header", "data": {"header": header, "reason": reason}}


def HD(delta: Record) -> Record:
    return {"type": "request/header-delta", "data": delta}


def user(what: str) -> Record:
    return {"role": "user", "content": text(what)}


def assistant(what: str) -> Record:
    return {"role": "assistant", "content": text(what)}


CONFIG = {"model": "m", "temperature": 0.5, "maxTokens": 100, "stop": ["x"]}
TOOL = {"name": "read", "description": "read a file", "parameters": {"type": "object"}}
HEADER = {"config": CONFIG, "system": "be brief", "tools": [TOOL]}

#: Turn 1 with two steps; the request belongs to step 2 (the last step/start, seq 6).
LOG = numbered(TS(1), U("hi"), SS(1, 1), H(HEADER), A(1, 1, "one"), SE(1, 1), SS(1, 2), A(1, 2, "two"))
MESSAGES = [user("hi"), assistant("one")]
REQUEST: Record = {
    "messages": MESSAGES,
    "model": "m",
    "system": "be brief",
    "temperature": 0.5,
    "maxTokens": 100,
    "stop": ["x"],
    "tools": [TOOL],
}


def but(**changes: Any) -> Record:
    """REQUEST with fields changed; a value of ``...`` removes the field."""
    out = copy.deepcopy(REQUEST)
    for key, value in changes.items():
        if value is ...:
            out.pop(key, None)
        else:
            out[key] = value
    return out


# -- the order and each condition -------------------------------------------------------------------


def test_a_faithful_request_is_accepted() -> None:
    assert both(LOG, REQUEST) is None


def test_no_step_start_comes_first() -> None:
    records = numbered(TS(1), U("hi"))
    assert both(records, {}) == ("REQUEST_STEP_START_MISSING", None)
    # even with a header and the right messages: the step is what bounds the request
    assert both(numbered(TS(1), U("hi"), H(HEADER)), but(messages=[user("hi")])) == (
        "REQUEST_STEP_START_MISSING",
        None,
    )


def test_no_header_event() -> None:
    records = numbered(TS(1), U("hi"), SS(1, 1))
    assert both(records, {"messages": [user("hi")], "model": "m"}) == ("REQUEST_HEADER_MISSING", None)


def test_a_delta_before_any_snapshot_is_the_fold_rejection() -> None:
    records = numbered(TS(1), SS(1, 1), HD({"config": {"model": "m"}}))
    assert both(records, {"messages": [], "model": "m"}) == ("HEADER_DELTA_BEFORE_SNAPSHOT", 2)
    records = numbered(TS(1), SS(1, 1), H({"system": "no config"}))
    assert both(records, {"messages": []}) == ("MALFORMED_REQUEST_HEADER", 2)


def test_the_header_folds_over_the_whole_log_even_after_the_boundary() -> None:
    later = numbered(
        *[{k: v for k, v in r.items() if k not in ("seq", "time")} for r in LOG],
        HD({"config": {"model": "n"}}),
    )
    assert both(later, REQUEST) == ("REQUEST_HEADER_MISMATCH", 8)
    assert both(later, but(model="n", temperature=..., maxTokens=..., stop=...)) is None


def test_the_messages_are_derived_from_the_log_before_the_last_step_start() -> None:
    # "two" (after the boundary) is not part of the request; everything before it is.
    assert both(LOG, but(messages=[*MESSAGES, assistant("two")])) == ("REQUEST_MESSAGES_MISMATCH", 6)
    assert both(LOG, but(messages=MESSAGES[:1])) == ("REQUEST_MESSAGES_MISMATCH", 6)
    assert both(LOG, but(messages=...)) == ("REQUEST_MESSAGES_MISMATCH", 6)
    assert both(LOG, but(messages=None)) == ("REQUEST_MESSAGES_MISMATCH", 6)


def test_the_header_message_prefix_comes_first() -> None:
    prefix = [{"role": "user", "content": text("session prefix")}]
    records = numbered(TS(1), U("hi"), SS(1, 1), H({**HEADER, "messagePrefix": prefix}))
    assert both(records, but(messages=[*prefix, user("hi")])) is None
    assert both(records, but(messages=[user("hi"), *prefix])) == ("REQUEST_MESSAGES_MISMATCH", 2)
    assert both(records, but(messages=[user("hi")])) == ("REQUEST_MESSAGES_MISMATCH", 2)


def test_messages_compare_as_javascript_json_text() -> None:
    flipped = [{"content": text("hi"), "role": "user"}, assistant("one")]
    assert both(LOG, but(messages=flipped)) == ("REQUEST_MESSAGES_MISMATCH", 6)
    numbers = numbered(
        TS(1),
        {**U("x"), "data": {"content": [{"type": "n", "v": 1}], "source": {"kind": "user"}}},
        SS(1, 1),
        H(HEADER),
    )
    assert both(numbers, but(messages=[{"role": "user", "content": [{"type": "n", "v": 1.0}]}])) is None
    assert both(numbers, but(messages=[{"role": "user", "content": [{"type": "n", "v": True}]}])) == (
        "REQUEST_MESSAGES_MISMATCH",
        2,
    )


def test_messages_are_checked_before_the_header_fields() -> None:
    assert both(LOG, but(messages=[], model="other")) == ("REQUEST_MESSAGES_MISMATCH", 6)


@pytest.mark.parametrize(
    "changes",
    [
        {"model": "other"},
        {"model": ...},
        {"model": None},
        {"system": "be verbose"},
        {"system": ...},
        {"temperature": 0.6},
        {"temperature": ...},
        {"temperature": "0.5"},
        {"maxTokens": 101},
        {"maxTokens": True},
        {"stop": ["y"]},
        {"stop": ...},
        {"stop": None},
        {"stop": []},
        {"tools": []},
        {"tools": [{**TOOL, "description": "other"}]},
        {"tools": [{"description": TOOL["description"], "name": "read", "parameters": {"type": "object"}}]},
    ],
)
def test_each_header_field_must_match(changes: dict[str, Any]) -> None:
    assert both(LOG, but(**changes)) == ("REQUEST_HEADER_MISMATCH", 3)


def test_numbers_compare_by_value_and_absent_tools_are_empty() -> None:
    assert both(LOG, but(temperature=0.5, maxTokens=100.0)) is None
    bare = numbered(TS(1), U("hi"), SS(1, 1), H({"config": {"model": "m"}}))
    no_tools: list[Record] = [{}, {"tools": None}, {"tools": []}]
    for tools in no_tools:
        assert both(bare, {"messages": [user("hi")], "model": "m", **tools}) is None
    # the header's empty system prompt is absent: a request must not send ""
    empty = numbered(TS(1), U("hi"), SS(1, 1), H({"config": {"model": "m"}, "system": ""}))
    assert both(empty, {"messages": [user("hi")], "model": "m"}) is None
    assert both(empty, {"messages": [user("hi")], "model": "m", "system": ""}) == (
        "REQUEST_HEADER_MISMATCH",
        3,
    )
    # a config without model matches a request without model only
    nomodel = numbered(TS(1), SS(1, 1), H({"config": {}}))
    assert both(nomodel, {"messages": []}) is None
    assert both(nomodel, {"messages": [], "model": None}) == ("REQUEST_HEADER_MISMATCH", 2)


def test_objects_in_scalar_fields_compare_as_json_text() -> None:
    records = numbered(TS(1), SS(1, 1), H({"config": {"model": {"id": "m", "v": 2}}}))
    assert both(records, {"messages": [], "model": {"id": "m", "v": 2.0}}) is None
    assert both(records, {"messages": [], "model": {"v": 2, "id": "m"}}) == ("REQUEST_HEADER_MISMATCH", 2)


def test_a_prefix_that_is_no_valid_seed_is_refused_by_the_seed_rules() -> None:
    gap = numbered(TS(1), U("hi"), SS(1, 1), H(HEADER))
    gap[1] = {**gap[1], "seq": 5}
    assert both(gap, but(messages=[user("hi")])) == ("SEQ_NOT_CONTIGUOUS", 1)
    marker = numbered(TS(1), {**TS(1), "surfaceOp": "append"}, SS(1, 1), H(HEADER))
    assert both(marker, but(messages=[])) == ("SURFACE_OP_ON_LOG_ONLY_TYPE", 1)
    # after the boundary nothing is rebuilt
    tail = numbered(TS(1), SS(1, 1), H(HEADER), {**TS(1), "surfaceOp": "append"})
    assert both(tail, but(messages=[])) is None


def test_the_implementation_names_the_session_and_the_fields() -> None:
    events = [impl_event(r) for r in LOG]
    with pytest.raises(impl.LoopRequestError) as raised:
        impl.check_loop_request(events, but(model="x", stop=[]), session_id="abc")
    error = raised.value
    assert isinstance(error, ValueError)
    assert error.code is Code.REQUEST_HEADER_MISMATCH
    assert (error.session_id, error.seq, error.fields) == ("abc", 3, ("model", "stop"))
    assert 'session "abc"' in error.message and "model, stop" in error.message
    with pytest.raises(impl.LoopRequestError) as raised:
        impl.check_loop_request(events[:2], {})
    assert raised.value.session_id is None and raised.value.code is Code.REQUEST_STEP_START_MISSING
    rejection = spec.check_loop_request([spec_event(r) for r in LOG], but(model="x"), "abc")
    assert rejection is not None and 'session "abc"' in rejection.message


def test_a_non_json_request_field_is_refused_by_the_implementation() -> None:
    events = [impl_event(r) for r in LOG]
    with pytest.raises(impl.NotJsonError):
        impl.check_loop_request(events, but(temperature=float("nan")))


def test_a_live_session_log_checks_as_is() -> None:
    session = impl.Session("live", clock=lambda: 0)
    for record in LOG:
        session.append(record["type"], record["data"], surface_op=record.get("surfaceOp"))
    impl.check_loop_request(session.events, REQUEST, session_id=session.id)


# -- the end-to-end log of invariants.md §4.4 ---------------------------------------------------------

CHECKPOINT = [
    {"type": "text", "text": "<checkpoint>"},
    {"type": "text", "text": "summary"},
]
REFERENCE_LOG = numbered(
    {"type": "turn/start", "data": {"turn": 1, "trigger": {"kind": "message", "source": {"kind": "user"}}}},
    U("List the files in the repo."),
    SS(1, 1),
    H({"config": {"model": "deepseek-chat"}}),
    {
        "type": "assistant/chunk",
        "data": {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "Listing."}},
    },
    {
        "type": "assistant/message",
        "data": {
            "turn": 1,
            "step": 1,
            "content": [
                *text("Listing."),
                {"type": "tool-call", "id": "c1", "name": "bash", "arguments": "{}"},
            ],
        },
        "surfaceOp": "append",
        "sourceEventSeqs": [4],
    },
    {"type": "tool/call", "data": {"turn": 1, "step": 1, "callId": "c1", "name": "bash", "arguments": "{}"}},
    {
        "type": "tool/result",
        "data": {"turn": 1, "step": 1, "callId": "c1", "content": text("README.md\nsrc"), "isError": False},
        "surfaceOp": "append",
        "sourceEventSeqs": [6],
    },
    SE(1, 1),
    SS(1, 2),
    A(1, 2, "Two entries: README.md and src/."),
    SE(1, 2),
    TE(1),
    {"type": "turn/start", "data": {"turn": 2, "trigger": {"kind": "message", "source": {"kind": "user"}}}},
    U("Now open src."),
    {"type": "compact/start", "data": {"turn": 2}},
    {
        "type": "compact/summary",
        "data": {"summary": text("summary"), "shadowedRange": {"start": 1, "end": 10}},
    },
    {
        "type": "user/message",
        "data": {"content": CHECKPOINT, "source": {"kind": "plugin", "plugin": "compact"}},
        "surfaceOp": {"op": "replace", "start": 1, "end": 10},
        "sourceEventSeqs": [15, 16, 1, 5, 7, 10],
    },
    {"type": "compact/end", "data": {"turn": 2}},
    SS(2, 1),
    A(2, 1, "src/ contains main.py."),
)


def test_the_reference_end_to_end_log() -> None:
    # Turn 2's request rebuilds events[0..19): the checkpoint, then "Now open src.".
    request = {
        "messages": [{"role": "user", "content": CHECKPOINT}, user("Now open src.")],
        "model": "deepseek-chat",
    }
    assert both(REFERENCE_LOG, request) is None
    # Turn 1 step 2's request (the log up to seq 9) saw the tool round trip.
    early = REFERENCE_LOG[:10]
    tool_round = [
        user("List the files in the repo."),
        {"role": "assistant", "content": REFERENCE_LOG[5]["data"]["content"]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "content": text("README.md\nsrc"),
                    "isError": False,
                }
            ],
        },
    ]
    assert both(early, {"messages": tool_round, "model": "deepseek-chat"}) is None
    assert both(early, {"messages": tool_round[:2], "model": "deepseek-chat"}) == (
        "REQUEST_MESSAGES_MISMATCH",
        9,
    )


# -- random logs ------------------------------------------------------------------------------------


def insert(records: list[Record], index: int, record: Record) -> list[Record]:
    """``record`` put at ``index``; later seqs (and references to them) move up by one."""

    def moved(seq: int) -> int:
        return seq + 1 if seq >= index else seq

    out: list[Record] = []
    for record_ in records[:index]:
        out.append(record_)
    out.append({**record, "seq": index, "time": index})
    for old in records[index:]:
        new = {**old, "seq": old["seq"] + 1, "time": old["time"] + 1}
        if "sourceEventSeqs" in new:
            new["sourceEventSeqs"] = [moved(seq) for seq in new["sourceEventSeqs"]]
        op = new.get("surfaceOp")
        if isinstance(op, dict):
            new["surfaceOp"] = {**op, "start": moved(op["start"]), "end": moved(op["end"])}
        out.append(new)
    return out


@st.composite
def logged_requests(draw: st.DrawFn) -> tuple[list[Record], str]:
    """A random agent log with a request header (and maybe a delta after it), a step/start at
    the end when it has none; and how a request says "no tools" when the header has none."""
    records: list[Record] = draw(agent_logs())
    if not any(r["type"] == "step/start" for r in records) or draw(st.booleans()):
        records = insert(records, len(records), SS(1, 1))
    header = draw(header_jsons())
    at = draw(st.integers(0, len(records)))
    records = insert(records, at, H(header))
    if draw(st.booleans()):
        records = insert(records, draw(st.integers(at + 1, len(records))), HD(draw(delta_jsons())))
    return records, draw(st.sampled_from(["absent", "null", "empty"]))


def faithful(records: list[Record], no_tools: str) -> Record:
    """The request the log's last step must send, built by the implementation (in the test body:
    beartype's sampling uses ``random``, which Hypothesis forbids inside strategies)."""
    events = [impl_event(r) for r in records]
    folded = impl.fold_request_header(events)
    assert folded is not None
    canonical = folded.to_json()
    cut = max(i for i, r in enumerate(records) if r["type"] == "step/start")
    derived = impl.Session("rebuild", seed=events[:cut]).derive_messages().to_json()
    request: Record = {"messages": [*canonical.get("messagePrefix", []), *derived]}
    config = canonical["config"]
    for key in ("model", "temperature", "maxTokens", "stop"):
        if key in config:
            request[key] = config[key]
    if "system" in canonical:
        request["system"] = canonical["system"]
    if "tools" in canonical:
        request["tools"] = canonical["tools"]
    elif no_tools != "absent":
        request["tools"] = None if no_tools == "null" else []
    # The request's own key order never matters.
    return dict(reversed(list(request.items())))


@property_settings(60)
@given(logged_requests())
def test_a_request_built_from_the_log_is_accepted_by_both(drawn: tuple[list[Record], str]) -> None:
    records, request = drawn[0], faithful(*drawn)
    assert spec_outcome(records, request) is None
    assert impl_outcome(records, request) is None


def _perturbations(request: Record) -> list[tuple[str, Any]]:
    messages = request["messages"]
    out: list[tuple[str, Any]] = [
        ("messages", [*messages, user("extra")]),
        ("messages", json.loads(json.dumps(messages).replace('"user"', '"assistant"'))),
        ("model", "another-model"),
        ("system", "another system"),
        ("temperature", 0.75),
        ("maxTokens", 7),
        ("stop", ["zz"]),
        ("tools", [{"name": "zz"}]),
        ("stop", None),
    ]
    if messages:
        out.append(("messages", messages[:-1]))
        out.append(
            ("messages", [{key: message[key] for key in reversed(list(message))} for message in messages])
        )
    for key in ("model", "system", "temperature", "maxTokens", "stop", "messages"):
        if key in request:
            out.append((key, ...))
    return out


@property_settings(60)
@given(logged_requests(), st.data())
def test_perturbed_requests_and_logs_get_the_same_answer(
    drawn: tuple[list[Record], str], data: st.DataObject
) -> None:
    records, request = drawn[0], faithful(*drawn)
    choices = _perturbations(request)
    key, value = data.draw(st.sampled_from(choices))
    changed = dict(request)
    if value is ...:
        del changed[key]
    else:
        changed[key] = value
    found = both(records, changed)
    if found is not None:
        assert found[0] in {"REQUEST_MESSAGES_MISMATCH", "REQUEST_HEADER_MISMATCH"}
    if key == "messages" and found is not None:
        assert found[0] == "REQUEST_MESSAGES_MISMATCH"
    # The log perturbed: no step/start, no header, a delta before the snapshot.
    no_steps = [r for r in records if r["type"] != "step/start"]
    renumbered = [{**r, "seq": i} for i, r in enumerate(no_steps)]
    assert spec_outcome(renumbered, request) == ("REQUEST_STEP_START_MISSING", None)
    assert impl_outcome(renumbered, request) == ("REQUEST_STEP_START_MISSING", None)
    headerless = [r for r in records if not r["type"].startswith("request/")]
    headerless = [{**r, "seq": i} for i, r in enumerate(headerless)]
    if any(r["type"] == "step/start" for r in headerless):
        assert both(headerless, request) == ("REQUEST_HEADER_MISSING", None)
        # A delta with no snapshot before it (and none after it to heal the fold).
        early_delta = insert(headerless, 0, HD({"config": {"model": "m"}}))
        assert both(early_delta, request) == ("HEADER_DELTA_BEFORE_SNAPSHOT", 0)

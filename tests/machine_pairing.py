"""Tool pairing, implementation against spec: may the history be cut here?

The machine grows a surface of assistant messages with tool-call blocks (ids
that repeat, and ids no result can answer: a number, ``null``, none at all),
results that answer them -- a call still waiting, one answered already, one
not made yet -- other messages of every surface type, and compactions that
fold a range of the surface into one node, a range that may split a call
from its result. After every step it asks both sides, at every cut of the
surface, whether the log is balanced there (``tool_pairing_balanced``), and
whether a region may be collapsed (``region_balanced``): each node alone,
each node to the tail, and regions between seqs of every kind -- on the
surface (as a fresh ``int`` object), off it, ``None``, ``True``/``False``,
integral floats and huge ints. The answers, or the codes and seqs of the
refusals, must be equal.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import dsh_spec
from dsh_session import Event, ToolPairingError
from dsh_session import tool_pairing as pairing
from dsh_spec import Rejection
from dsh_spec.tool_pairing import answered_id, call_ids
from tests.machine_core import seq_probes
from tests.machine_support import Twin, require, unguarded

CALL_IDS = ("c1", "c2", "c3")
#: Ids for calls, ``c1`` most often (the same id waiting two or three times over).
MADE_IDS = st.sampled_from(("c1", "c1", "c1", "c2", "c3"))
#: A call block without an ``id``; no odd id in a reply, or no odd answer asked about.
MISSING, NO_ODD = object(), object()
#: Ids no result can answer (now and then: such a call leaves the log unbalanced for good).
ODD_IDS = st.sampled_from((NO_ODD, NO_ODD, NO_ODD, NO_ODD, NO_ODD, NO_ODD, 1, None, True, MISSING))
#: Block types that are not a tool call, sorting before and after ``tool-call``.
OTHER_BLOCKS = st.sampled_from(("reasoning", "tool-result", "tool-calls", "x-call", "text"))
#: Surface messages that neither call nor answer, sorting before and after the types that do.
OTHER_MESSAGES: dict[str, dict[str, Any]] = {
    "user/message": {"content": [], "source": {"kind": "user"}},
    "context/message": {"content": [{"type": "text", "text": "c"}], "source": {"kind": "file"}},
    "steering/message": {"content": [{"type": "text", "text": "s"}], "source": {"kind": "user"}},
}


def answer(call: Any, *args: Any) -> Any:
    """What ``call(*args)`` gives: the value, or the refusal as ``(code, seq)``."""
    try:
        return call(*args)
    except ToolPairingError as error:
        return (str(error.code), error.seq)


def spec_answer(value: bool | Rejection) -> Any:
    return (str(value.code), value.seq) if isinstance(value, Rejection) else value


def result_data(call: str) -> dict[str, Any]:
    return {"turn": 1, "step": 1, "callId": call, "content": [], "isError": False}


def fresh(seq: int) -> int:
    """``seq`` as a new ``int`` object (past the small ints Python caches)."""
    return int(str(seq))


class PairingMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.twin = Twin("pairing")
        self.checked: tuple[int, ...] = ()

    @initialize(
        long=st.booleans(),
        turns=st.lists(
            st.tuples(st.lists(MADE_IDS, min_size=1, max_size=4), st.lists(OTHER_BLOCKS, max_size=2)),
            min_size=1,
            max_size=2,
        ),
    )
    def start(self, long: bool, turns: list[tuple[list[str], list[str]]]) -> None:
        """Maybe start after 300 log-only events, so that every seq on the surface is past the
        small ints Python caches (a cut compared with ``is`` where ``==`` belongs then fails);
        then a turn or two whose calls (an id often made twice or more) are all answered, and
        every stray result tried after them."""
        if long:
            time = 1_767_225_600_000
            self.twin.seed([{"type": "note/log", "seq": n, "time": time, "data": {}} for n in range(300)])
        for calls, others in turns:
            self.reply(calls, others, answered=True)
        self.try_strays()

    def made_calls(self) -> tuple[list[str], list[str]]:
        """The string ids of the calls on the surface still waiting (as often as they wait), and
        of those answered."""
        waiting: list[str] = []
        answered: list[str] = []
        by_seq = {event.seq: event for event in self.twin.log}
        for seq in self.twin.order:
            event = by_seq[seq]
            waiting += [call for call in call_ids(event) if isinstance(call, str)]
            done = answered_id(event)
            if done in waiting:
                waiting.remove(done)
                answered.append(done)
        return waiting, answered

    @rule(
        calls=st.lists(MADE_IDS, max_size=4),
        odd=ODD_IDS,
        others=st.lists(OTHER_BLOCKS, max_size=2),
        answered=st.sampled_from((True, True, False)),
    )
    def assistant_calls(self, calls: list[Any], odd: Any, others: list[str], answered: bool) -> None:
        """A reply with tool calls (an id may repeat one still waiting, or be no string, or be
        left out), and maybe blocks of other types that carry an id too (a ``tool-result`` or
        ``tool-calls`` block in a reply is no call); maybe answered at once, call by call, as a
        turn goes."""
        self.reply(calls if odd is NO_ODD else [*calls, odd], others, answered)

    def reply(self, calls: list[Any], others: list[str], answered: bool) -> None:
        content: list[Any] = [{"type": "text", "text": "ok"}]
        for call in calls:
            block = {"type": "tool-call", "id": call, "name": "t", "arguments": "{}"}
            if call is MISSING:
                del block["id"]
            content.append(block)
        content += [{"type": kind, "id": "c1", "name": "t", "arguments": "{}"} for kind in others]
        self.twin.offer("assistant/message", {"turn": 1, "step": 1, "content": content}, "append")
        for call in calls if answered else []:
            if isinstance(call, str):
                self.result(call)

    def result(self, call: str) -> None:
        self.twin.offer("tool/result", result_data(call), "append")

    @rule(data=st.data(), every=st.booleans())
    def tool_result(self, data: st.DataObject, every: bool) -> None:
        """Results for the calls still waiting: one of them, or each in turn."""
        waiting, _ = self.made_calls()
        if every:
            for call in waiting:
                self.result(call)
        elif waiting:
            self.result(data.draw(st.sampled_from(waiting), label="callId"))

    @rule(data=st.data(), kept=st.sampled_from((False, False, True)))
    def stray_result(self, data: st.DataObject, kept: bool) -> None:
        """Results no waiting call takes: a second answer to a call answered already, or an
        answer to an id no call has (ever) made. The surface is corrupt from there on (up to a
        compaction that folds the result), so each of them is tried on a copy of the log (a
        session seeded with its events), the cuts after it asked there, and the log goes on
        without them -- or, now and then, one is kept."""
        if kept:
            self.result(data.draw(st.sampled_from(self.strays()), label="callId"))
        else:
            self.try_strays()

    def strays(self) -> list[str]:
        waiting, answered = self.made_calls()
        return [call for call in dict.fromkeys([*answered, "c9"]) if call not in waiting]

    def try_strays(self) -> None:
        for call in self.strays():
            copy = self.twin.copy()
            copy.offer("tool/result", result_data(call), "append")
            self.check_cuts(copy, len(copy.order) - 1)

    @rule(kind=st.sampled_from(sorted(OTHER_MESSAGES)))
    def other_message(self, kind: str) -> None:
        self.twin.offer(kind, OTHER_MESSAGES[kind], "append")

    @rule(data=st.data())
    def compaction(self, data: st.DataObject) -> None:
        order = self.twin.order
        if not order:
            return
        first = data.draw(st.integers(0, len(order) - 1))
        last = data.draw(st.integers(first, len(order) - 1))
        kind = data.draw(st.sampled_from(("user/message", "assistant/message")))
        payload: dict[str, Any] = (
            {"content": [], "source": {"kind": "user"}}
            if kind == "user/message"
            else {
                "turn": 1,
                "step": 1,
                "content": [{"type": "tool-call", "id": "c1", "name": "t", "arguments": ""}],
            }
        )
        op = {"op": "replace", "start": order[first], "end": order[last]}
        self.twin.offer(kind, payload, op, order[first : last + 1])

    def compare(
        self, nodes: Any, events: Any, log: Any, cuts: list[Any], regions: list[tuple[Any, Any]]
    ) -> None:
        # looked up now, not at import: a planted variant (tests/mutants.py) is what runs
        balanced, region = unguarded(pairing.tool_pairing_balanced), unguarded(pairing.region_balanced)
        for before in cuts:
            got = answer(balanced, nodes, events, before)
            want = spec_answer(dsh_spec.tool_pairing_balanced(log, before))
            require(got == want, f"tool_pairing_balanced(before={before!r}) is {got}, the spec says {want}")
        for start, end in regions:
            got = answer(region, nodes, events, start, end)
            want = spec_answer(dsh_spec.region_balanced(log, start, end))
            require(got == want, f"region_balanced({start!r}, {end!r}) is {got}, the spec says {want}")

    @invariant()
    def every_cut_agrees(self) -> None:
        """Every cut of the surface, and each node alone as a region. A cut's answer depends on
        the surface before it only, so after appends just the new nodes' cuts (and the cut
        after the tail) are asked; after a compaction, every cut again."""
        order = self.twin.order
        seen = self.checked
        self.checked = order
        if seen == order:
            return
        self.check_cuts(self.twin, max(len(seen) - 1, 0) if order[: len(seen)] == seen else 0)

    def check_cuts(self, twin: Twin, first: int) -> None:
        """The cuts before the surface's nodes from position ``first`` on, and after its tail."""
        tail = twin.order[first:]
        cuts: list[Any] = [fresh(seq) for seq in tail] + [None]
        regions = [(fresh(seq), fresh(seq)) for seq in tail]
        self.compare(twin.session.surface, twin.session.events, twin.log, cuts, regions)

    @rule(data=st.data(), as_nodes=st.booleans(), odd_answer=st.sampled_from((NO_ODD, 5, None, True)))
    def ask(self, data: st.DataObject, as_nodes: bool, odd_answer: Any) -> None:
        """Cuts and regions named by seqs of every kind, on the surface or its nodes; maybe
        with events built by hand where one result answers an id that is no string (a log no
        session holds: the spec calls that result corrupt)."""
        session, log = self.twin.session, self.twin.log
        nodes: Any = session.surface.nodes if as_nodes else session.surface
        events: Any = session.events
        results = [seq for seq in self.twin.order if log[seq].type == "tool/result"]
        if odd_answer is not NO_ODD and results:
            seq = data.draw(st.sampled_from(results), label="odd result")
            payload: dict[str, Any] = dict(log[seq].data)  # type: ignore[arg-type]
            spec_event = dataclasses.replace(log[seq], data={**payload, "callId": odd_answer})
            log = (*log[:seq], spec_event, *log[seq + 1 :])
            events = list(events)
            events[seq] = Event(
                spec_event.type, seq, spec_event.time, spec_event.data, surface_op=events[seq].surface_op
            )
        probe = seq_probes(self.twin.order, len(log))
        cuts = [data.draw(probe) for _ in range(3)]
        self.compare(nodes, events, log, [*cuts, None], list(itertools.pairwise(cuts)))

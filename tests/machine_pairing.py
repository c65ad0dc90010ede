"""Tool pairing, implementation against spec: may the history be cut here?

The machine grows a surface of assistant messages with tool-call blocks,
results that answer them (or answer nothing, or answer twice), other
messages, and compactions that fold a range of the surface into one node --
a range that may split a call from its result. After every step it asks both
sides, at several cuts, whether the log is balanced there
(``tool_pairing_balanced``) and whether a region may be collapsed
(``region_balanced``), with every kind of seq: on the surface (as a fresh
``int`` object), off it, ``None``, ``True``/``False``, integral floats and huge
ints; the answers, or the codes and seqs of the refusals, must be equal.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

import dsh_spec
from dsh_session import ToolPairingError
from dsh_session import tool_pairing as pairing
from dsh_spec import Rejection
from tests.machine_core import seq_probes
from tests.machine_support import Twin, require, unguarded

CALL_IDS = st.sampled_from(("c1", "c2", "c3"))
#: Block types that are not a tool call, sorting before and after ``tool-call``.
OTHER_BLOCKS = st.sampled_from(("reasoning", "tool-result", "tool-calls", "x-call"))


def answer(call: Any, *args: Any) -> Any:
    """What ``call(*args)`` gives: the value, or the refusal as ``(code, seq)``."""
    try:
        return call(*args)
    except ToolPairingError as error:
        return (str(error.code), error.seq)


def spec_answer(value: bool | Rejection) -> Any:
    return (str(value.code), value.seq) if isinstance(value, Rejection) else value


class PairingMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.twin = Twin("pairing")

    @initialize(long=st.booleans())
    def start(self, long: bool) -> None:
        """Maybe start after 300 log-only events, so that every seq on the surface is past the
        small ints Python caches (a cut compared with ``is`` where ``==`` belongs then fails)."""
        if long:
            time = 1_767_225_600_000
            self.twin.seed([{"type": "note/log", "seq": n, "time": time, "data": {}} for n in range(300)])

    @rule(calls=st.lists(CALL_IDS, max_size=3), others=st.lists(OTHER_BLOCKS, max_size=2))
    def assistant_calls(self, calls: list[str], others: list[str]) -> None:
        """A reply with tool calls, and maybe blocks of other types that carry an id too (a
        ``tool-result`` or ``tool-calls`` block in a reply is no call)."""
        content: list[Any] = [{"type": "text", "text": "ok"}]
        content += [{"type": "tool-call", "id": call, "name": "t", "arguments": "{}"} for call in calls]
        content += [{"type": kind, "id": "c1", "name": "t", "arguments": "{}"} for kind in others]
        self.twin.offer("assistant/message", {"turn": 1, "step": 1, "content": content}, "append")

    @rule(call=CALL_IDS)
    def tool_result(self, call: str) -> None:
        data = {"turn": 1, "step": 1, "callId": call, "content": [], "isError": False}
        self.twin.offer("tool/result", data, "append")

    @rule()
    def user_message(self) -> None:
        self.twin.offer("user/message", {"content": [], "source": {"kind": "user"}}, "append")

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

    @rule(data=st.data(), as_nodes=st.booleans())
    def ask(self, data: st.DataObject, as_nodes: bool) -> None:
        session, log = self.twin.session, self.twin.log
        nodes: Any = session.surface.nodes if as_nodes else session.surface
        probe = seq_probes(self.twin.order, len(log))
        cuts = [data.draw(probe) for _ in range(3)] + [None]
        # looked up now, not at import: a planted variant (tests/mutants.py) is what runs
        balanced, region = unguarded(pairing.tool_pairing_balanced), unguarded(pairing.region_balanced)
        for before in cuts:
            got = answer(balanced, nodes, session.events, before)
            want = spec_answer(dsh_spec.tool_pairing_balanced(log, before))
            require(got == want, f"tool_pairing_balanced(before={before!r}) is {got}, the spec says {want}")
        for start, end in itertools.pairwise(cuts[:3]):
            got = answer(region, nodes, session.events, start, end)
            want = spec_answer(dsh_spec.region_balanced(log, start, end))
            require(got == want, f"region_balanced({start!r}, {end!r}) is {got}, the spec says {want}")

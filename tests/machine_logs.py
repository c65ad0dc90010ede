"""Whole turns and bulk runs of events for the stateful machines, at a bounded cost.

The machines need logs of several hundred events without drawing every event
from Hypothesis one value at a time (that is what kept them at about sixty).
So a rule draws one seed and hands it to :func:`w1_like_turn` or :func:`bulk`,
which build the events with a ``random.Random`` of that seed and append them
through an ``append(kind, data, surface_op=..., source_event_seqs=...)``
callable -- ``Session.append``, or a machine's offer to both sides.

The events are W1-like (``bench/workload-w1.md``): turn and step markers,
chunks named as the assistant message's provenance, tool calls with their
results (some left unanswered, some answering a call that does not exist),
request headers and deltas, now and then a compaction -- a replace of a range
of the surface, often a long one. Their payloads carry what JavaScript writes
in its own way: numbers like ``1e+21``, ``1e-7``, ``5e-324``, ``-0``,
``2**53 ± 1`` and ``0.1 + 0.2``, and object keys from ``"10"`` upward mixed
with ``"2"`` and names (JavaScript puts array-index keys first, ascending).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

#: Numbers JavaScript spells in a way of its own (all JSON values: 2**53 + 1 is not, it is refused).
JS_NUMBERS: tuple[int | float, ...] = (
    1e21,
    1e-7,
    5e-324,
    -0.0,
    2**53 - 1,
    2**53,
    -(2**53) + 1,
    2.0**53 + 2,
    2**60,
    0.1 + 0.2,
    1e20,
    123e-20,
    1.7976931348623157e308,
    1e16,
    1.5e-7,
    0.000001,
    100.0,
    -1.5,
    4.35,
    1 / 3,
)
#: Keys JavaScript orders in its own way: array indices (ascending, first), then the rest.
JS_KEYS: tuple[str, ...] = (
    "10",
    "11",
    "2",
    "100",
    "19",
    "0",
    "01",
    "a",
    "b",
    "-1",
    "1.5",
    "4294967294",
    "4294967295",
    "type",
    "é",
)

Append = Callable[..., Any]


def js_traps(rng: random.Random, size: int = 4) -> dict[str, Any]:
    """An object whose keys and numbers JavaScript writes in its own order and spelling."""
    keys = rng.sample(JS_KEYS, k=min(size, len(JS_KEYS)))
    out: dict[str, Any] = {}
    for key in keys:
        roll = rng.random()
        if roll < 0.6:
            out[key] = rng.choice(JS_NUMBERS)
        elif roll < 0.8:
            out[key] = [rng.choice(JS_NUMBERS) for _ in range(rng.randint(0, 3))]
        else:
            out[key] = {
                rng.choice(JS_KEYS): rng.choice(JS_NUMBERS),
                "s": rng.choice(("x", "\ud800", "😀", "")),
            }
    return out


def _seq(event: Any) -> int | None:
    seq = getattr(event, "seq", None)
    return seq if type(seq) is int else None


class TurnWriter:
    """Appends W1-like turns through ``append``, tracking just enough to make them valid.

    ``surface`` tells the writer the surface seqs now (head to tail), so that
    its compactions name a real range and a provenance that covers it.
    """

    def __init__(self, append: Append, surface: Callable[[], Sequence[int]], rng: random.Random) -> None:
        self.append = append
        self.surface = surface
        self.rng = rng

    def turn(self, number: Any, *, finish: bool = True, steps: int | None = None) -> None:
        """One turn; ``finish=False`` stops it somewhere inside (a crash), which repair must close."""
        rng = self.rng
        steps = rng.randint(1, 3) if steps is None else steps
        stop = rng.randint(1, 6 * steps + 2) if not finish else -1
        done = 0

        def go(kind: str, data: Any, **options: Any) -> Any:
            nonlocal done
            done += 1
            if done == stop:
                raise _Stop
            return self.append(kind, data, **options)

        try:
            go("turn/start", {"turn": number, "trigger": {"kind": "message", "source": {"kind": "user"}}})
            go(
                "user/message",
                {
                    "content": [{"type": "text", "text": f"user {number}"}],
                    "source": {"kind": "user"},
                    "meta": js_traps(rng),
                },
                surface_op="append",
            )
            for step in range(1, steps + 1):
                self._step(go, number, step)
            if rng.random() < 0.25:
                self.compaction(go)
            go("turn/end", {"turn": number, "reason": {"kind": rng.choice(("completed", "error"))}})
        except _Stop:
            return

    def _step(self, go: Append, turn: Any, step: int) -> None:
        rng = self.rng
        go("step/start", {"turn": turn, "step": step})
        if rng.random() < 0.3:
            go(
                "request/header",
                {"header": {"config": {"model": "m", "n": rng.choice(JS_NUMBERS)}}, "reason": "initial"},
            )
        chunks = [
            _seq(go("assistant/chunk", {"turn": turn, "step": step, "chunk": {"text": f"c{k}"}}))
            for k in range(rng.randint(0, 4))
        ]
        calls = [f"call-{turn}-{step}-{k}" for k in range(rng.choice((0, 1, 1, 2, 3)))]
        content: list[Any] = [{"type": "text", "text": f"reply {turn}.{step}"}]
        content += [{"type": "tool-call", "id": c, "name": "echo", "arguments": "{}"} for c in calls]
        refs = [seq for seq in chunks if seq is not None]
        options: dict[str, Any] = {"surface_op": "append"}
        if refs:
            options["source_event_seqs"] = refs
        go(
            "assistant/message",
            {"turn": turn, "step": step, "content": content, "usage": js_traps(rng, 2)},
            **options,
        )
        for call in calls:
            if rng.random() < 0.1:
                continue  # a call whose result never comes
            made = go(
                "tool/call",
                {"turn": turn, "step": step, "callId": call, "name": "echo", "arguments": js_traps(rng)},
            )
            answered = call if rng.random() < 0.95 else "no-such-call"
            result: dict[str, Any] = {"surface_op": "append"}
            if _seq(made) is not None:
                result["source_event_seqs"] = [_seq(made)]
            go(
                "tool/result",
                {
                    "turn": turn,
                    "step": step,
                    "callId": answered,
                    "content": [{"type": "text", "text": "ok"}],
                    "isError": rng.random() < 0.2,
                },
                **result,
            )
        go("step/end", {"turn": turn, "step": step})

    def compaction(self, go: Append | None = None) -> None:
        """Replace a range of the surface (a long one now and then) by one summary message."""
        go = go or self.append
        order = list(self.surface())
        if not order:
            return
        rng = self.rng
        first = rng.randrange(len(order))
        width = rng.choice((1, 2, 3, len(order) - first))
        last = min(len(order) - 1, first + width - 1)
        covered = order[first : last + 1]
        go(
            "user/message",
            {"content": [{"type": "text", "text": f"summary of {len(covered)}"}], "source": {"kind": "user"}},
            surface_op={"op": "replace", "start": order[first], "end": order[last]},
            source_event_seqs=rng.sample(covered, k=len(covered)),
        )

    def bulk(self, count: int) -> None:
        """``count`` events of the commoner kinds, a few of them surface messages."""
        rng = self.rng
        for index in range(count):
            roll = rng.random()
            if roll < 0.5:
                self.append("assistant/chunk", {"chunk": {"text": f"b{index}"}, "n": rng.choice(JS_NUMBERS)})
            elif roll < 0.8:
                self.append(
                    "user/message",
                    {"content": [{"type": "text", "text": f"bulk {index}"}], "source": {"kind": "user"}},
                    surface_op="append",
                )
            elif roll < 0.95:
                self.append("todo/write", {"todos": [], "meta": js_traps(rng, 3)})
            else:
                self.compaction()


class _Stop(Exception):
    """The turn ends here (a crash mid-turn)."""

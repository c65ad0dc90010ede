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


#: The deepest a payload may nest (``dsh_spec.MAX_DEPTH``), here so that the edges below need
#: no import of the code under test.
DEPTH_LIMIT = 200


def nested(depth: int, shape: str) -> Any:
    """A JSON value whose deepest path holds exactly ``depth`` containers (``depth >= 1``):
    a chain of lists, of objects, the two alternating, or a chain that shares each level
    with a shallow sibling before it (so the deep path is not the first one walked)."""
    value: Any = [] if shape in ("lists", "siblings") else {}
    for level in range(depth - 1):
        if shape == "lists":
            value = [value]
        elif shape == "objects":
            value = {"k": value}
        elif shape == "alternating":
            value = [value] if level % 2 else {"k": value}
        else:
            value = [0, [], value]
    return value


#: Scalars that are a whole payload in the edges below: at and next to the exact integers'
#: ends, integral and huge floats, a lone surrogate, the plain ones.
TOP_SCALARS: tuple[Any, ...] = (
    2**53,
    -(2**53),
    2**53 - 1,
    2**60,
    -(2**60),
    2.0,
    -0.0,
    1e21,
    "\ud800",
    "é",
    "",
    None,
    True,
    0,
)

#: Payloads at the edges of the JSON-value rule that a log accepts (each at most
#: ``DEPTH_LIMIT`` deep), with a label: depths at and next to the limit in every shape; lone
#: surrogates and pairs held as two code points, in values and keys; numbers JavaScript spells
#: as it does; keys it orders first; long and non-ASCII keys; shared references.
EDGE_PAYLOADS: tuple[tuple[str, Callable[[], Any]], ...] = (
    *(
        (f"nested {depth} deep ({shape})", lambda depth=depth, shape=shape: nested(depth, shape))
        for depth in (DEPTH_LIMIT - 1, DEPTH_LIMIT)
        for shape in ("lists", "objects", "alternating", "siblings")
    ),
    ("a deep value after a long path", lambda: {"a": nested(150, "lists"), "b": nested(199, "objects")}),
    ("lone surrogates", lambda: {"s": "\ud800", "t": "x\udc00y", "u": ["\udfff", "\ud800\ud800"]}),
    ("a pair held as two code points", lambda: {"s": "\ud83d\ude00", "t": ["a\ud83d\ude00b"]}),
    ("surrogates in keys", lambda: {"\ud800": 1, "\ud83d\ude00": 2, "k\udc00": {"\udbff": [3]}}),
    ("non-ASCII text and keys", lambda: {"é": "😀", "ключ": ["ü", "中"], "a": "\u2028\u2029"}),
    (
        "numbers JavaScript spells its way",
        lambda: {"n": list(JS_NUMBERS), "f": [2.0, -0.0, 1e300, 2.0**53, -(2.0**53), 1e-300, 3.0e21]},
    ),
    ("integers at the exact edge", lambda: [2**53, -(2**53), 2**53 - 1, 2**60, -(2**63), 2**1000]),
    ("keys JavaScript orders first", lambda: {key: index for index, key in enumerate(JS_KEYS)}),
    ("index keys only, unsorted", lambda: {"10": 1, "9": 2, "0": 3, "4294967294": 4, "1": 5}),
    ("keys past the last index", lambda: {"4294967296": 1, "4294967295": 2, "99999999999": 3, "7": 4}),
    ("a long key", lambda: {"k" * 65: 1, "k" * 64: 2, "": 3}),
    ("a shared value", lambda: _shared()),
    ("scalars alone", lambda: [None, True, False, "", 0, -1, 0.5]),
    ("floats alone", lambda: [1e-07, 1.5e-08, 0.5, 1e300, 1.5e16]),
    ("a float alone in an object", lambda: {"f": 1e-07, "g": {"h": 2.5e-7}}),
    *((f"the scalar {value!r} as the whole payload", lambda value=value: value) for value in TOP_SCALARS),
    ("an empty object and list", lambda: {"o": {}, "l": [], "ol": [{}], "lo": {"l": []}}),
)


def depth_of(value: Any) -> int:
    """How many containers ``value``'s deepest path holds (walked without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _shared() -> Any:
    shared: dict[str, Any] = {"k": [1, 2.0, "\ud800"]}
    return {"a": shared, "b": shared, "c": [shared, [shared]]}


def _seq(event: Any) -> int | None:
    seq = getattr(event, "seq", None)
    return seq if type(seq) is int else None


class TurnWriter:
    """Appends W1-like turns through ``append``, tracking just enough to make them valid.

    ``surface`` tells the writer the surface seqs now (head to tail), so that
    its compactions name a real range and a provenance that covers it. With
    ``traps=False`` every number is a small int and no key is an array index, as
    in W1 itself: the payloads the fast paths (C appends, bulk loads) take as
    they are. (The writer draws from ``rng`` alike either way.)
    """

    def __init__(
        self, append: Append, surface: Callable[[], Sequence[int]], rng: random.Random, *, traps: bool = True
    ) -> None:
        self.append = append
        self.surface = surface
        self.rng = rng
        self.traps = traps

    def _traps(self, size: int = 4) -> Any:
        drawn = js_traps(self.rng, size)
        return drawn if self.traps else {"n": len(drawn)}

    def _number(self) -> Any:
        drawn = self.rng.choice(JS_NUMBERS)
        return drawn if self.traps else 7

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
                    "meta": self._traps(),
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
                {"header": {"config": {"model": "m", "n": self._number()}}, "reason": "initial"},
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
            {"turn": turn, "step": step, "content": content, "usage": self._traps(2)},
            **options,
        )
        for call in calls:
            if rng.random() < 0.1:
                continue  # a call whose result never comes
            made = go(
                "tool/call",
                {"turn": turn, "step": step, "callId": call, "name": "echo", "arguments": self._traps()},
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
                self.append("assistant/chunk", {"chunk": {"text": f"b{index}"}, "n": self._number()})
            elif roll < 0.8:
                self.append(
                    "user/message",
                    {"content": [{"type": "text", "text": f"bulk {index}"}], "source": {"kind": "user"}},
                    surface_op="append",
                )
            elif roll < 0.95:
                self.append("todo/write", {"todos": [], "meta": self._traps(3)})
            else:
                self.compaction()

    def edges(self) -> None:
        """One log-only event for each of :data:`EDGE_PAYLOADS`, and a surface message carrying
        every third (that fits) as an extra field of its content block."""
        for index, (_label, make) in enumerate(EDGE_PAYLOADS):
            self.append("assistant/chunk", make())
            if index % 3 == 0 and depth_of(make()) + 3 <= DEPTH_LIMIT:  # (data, content, block)
                block = {"type": "text", "text": f"edge {index}", "extra": make()}
                self.append(
                    "user/message", {"content": [block], "source": {"kind": "user"}}, surface_op="append"
                )


class _Stop(Exception):
    """The turn ends here (a crash mid-turn)."""

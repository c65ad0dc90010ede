"""Workload W1, defined once, run against any session-log target.

W1 (``bench/workload-w1.md``, copied from the project's shared benchmark
definition) is a fresh session driven for ``T`` turns of 13 events each -- a
user message, five assistant chunks folded into an assistant message with a
tool call, the tool call and its result -- with the message history derived
once per turn after the assistant message. In ``compact`` mode every 50th
turn also appends a summary that replaces the first half of the surface.

The workload is written once, in :func:`run_w1`, against the small
:class:`Target` interface; :class:`ImplTarget` drives ``dsh_session.Session``
and :class:`SpecTarget` drives the executable specification (``dsh_spec``),
which re-validates against and re-derives from the whole growing log, so it
is quadratic and only fit for small ``T``. The benchmark (``bench/w1.py``) and
the digest test (``tests/test_w1_digests.py``) both use this module.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol

import dsh_spec
from dsh_session import Session

Mode = Literal["plain", "compact"]
MODES: tuple[Mode, ...] = ("plain", "compact")

#: In compact mode, a compaction closes every turn ``t`` with ``t % COMPACT_EVERY == 0``.
COMPACT_EVERY = 50


@dataclass(frozen=True)
class Expected:
    """What the TypeScript reference reported for one W1 run."""

    events: int
    surface: int
    generation: int
    messages_sha256: str
    surface_sha256: str


#: The reference's digests for W1, copied as data from the table "Digests of the
#: TypeScript reference" in the project's benchmark definition
#: (``/work/shared/bench-workload.md``, copied to ``bench/workload-w1.md``). They
#: were computed by the TypeScript original, not by this project.
REFERENCE: dict[tuple[int, Mode], Expected] = {
    (1000, "plain"): Expected(
        13000,
        3000,
        0,
        "c35f9b352b5094c0703a186416ca42c6c7ce154de1bdcb2468fd7134f8a250a0",
        "57eaf955ecf20a811702bdf8004094fc3b7c818be04704f8c1a6584cfaac3b7c",
    ),
    (1000, "compact"): Expected(
        13020,
        152,
        20,
        "058dbb39b894dcf480f7a34731d5a2a3f8dad0c502404a599af40e9bc5bb1a06",
        "e60f2467e964de8e1bf3524851bc94cddb425ede00730fe9048274a756674622",
    ),
    (10000, "plain"): Expected(
        130000,
        30000,
        0,
        "a60aed3799f495d0ad86ced0fa4949881b6b0e44da8c68269614d0820577708c",
        "05fdff154e8f78e90eba666e019df4df1c7011006422edbd3557389059c6dfb7",
    ),
    (10000, "compact"): Expected(
        130200,
        152,
        200,
        "0dec3d1cf3f2fff1efed80d651f56edff25af1893ab9e0f0b5e5ccb8b802df1a",
        "e2235dd9011d363166bffb5962fa0d30e0d661de4d5bcd6df23e42b332cf6a03",
    ),
}

#: The reference's published W1 wall times in seconds at T = 10 000 on a 2-core
#: machine like ours (same source as :data:`REFERENCE`).
REFERENCE_SECONDS: dict[tuple[int, Mode], float] = {(10000, "plain"): 1.6, (10000, "compact"): 0.9}


class Target(Protocol):
    """What W1 needs from a session log."""

    name: str

    def append(self, kind: str, data: dict[str, Any], op: object, refs: list[int] | None) -> int:
        """Append one event (``op`` is ``None`` for no surface marker); return its seq."""
        ...

    def derive(self) -> object:
        """Derive the message history."""
        ...

    def surface_seqs(self) -> list[int]:
        """The seqs on the surface, head to tail."""
        ...

    def final(self) -> State:
        """The final state, as JSON-ready values."""
        ...


@dataclass(frozen=True)
class State:
    """The end state of a run: event count, messages, surface nodes, generation."""

    events: int
    messages: list[Any]
    surface: list[dict[str, int | None]]
    generation: int


def _sha256_json(value: object) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ImplTarget:
    """W1 over :class:`dsh_session.Session` (the implementation)."""

    name = "impl"

    def __init__(self) -> None:
        self.session = Session("w1")

    def append(self, kind: str, data: dict[str, Any], op: object, refs: list[int] | None) -> int:
        return self.session.append(kind, data, surface_op=op, source_event_seqs=refs).seq  # type: ignore[arg-type]

    def derive(self) -> object:
        return self.session.derive_messages()

    def surface_seqs(self) -> list[int]:
        return self.session.surface.seqs()

    def final(self) -> State:
        session = self.session
        return State(
            events=session.seq,
            messages=session.derive_messages().to_json(),
            surface=[node._asdict() for node in session.surface.nodes],
            generation=session.surface.replace_generation,
        )


class SpecTarget:
    """W1 over the executable specification: the log is a tuple, every append is
    validated against the whole log and every derive folds it from the start."""

    name = "spec"

    def __init__(self) -> None:
        self.log: tuple[dsh_spec.Event, ...] = ()

    def append(self, kind: str, data: dict[str, Any], op: object, refs: list[int] | None) -> int:
        draft = dsh_spec.Draft(
            type=kind,
            time=time.time_ns() // 1_000_000,
            data=data,
            surface_op=dsh_spec.ABSENT if op is None else op,
            source_event_seqs=dsh_spec.ABSENT if refs is None else refs,
        )
        event = dsh_spec.validate_append(self.log, draft)
        if isinstance(event, dsh_spec.Rejection):
            raise RuntimeError(f"the spec refused a W1 event: {event}")
        self.log = (*self.log, event)
        return event.seq

    def derive(self) -> object:
        messages = dsh_spec.derive_messages(self.log)
        if isinstance(messages, dsh_spec.Rejection):
            raise RuntimeError(f"the spec refused to derive: {messages}")
        return messages

    def _surface(self) -> dsh_spec.Surface:
        surface = dsh_spec.fold_surface(self.log)
        if isinstance(surface, dsh_spec.Rejection):
            raise RuntimeError(f"the spec refused to fold: {surface}")
        return surface

    def surface_seqs(self) -> list[int]:
        return list(self._surface().order)

    def final(self) -> State:
        surface = self._surface()
        return State(
            events=len(self.log),
            messages=list(self.derive()),  # type: ignore[call-overload]
            surface=[node._asdict() for node in dsh_spec.surface_nodes(surface)],
            generation=surface.generation,
        )


TARGETS: dict[str, Callable[[], Target]] = {"impl": ImplTarget, "spec": SpecTarget}


@dataclass(frozen=True)
class Report:
    """One W1 run: what was done, where the time went (ns), and the end state's digests."""

    target: str
    mode: Mode
    turns: int
    events: int
    compactions: int
    append_ns: int
    appends: int
    derive_ns: int
    derives: int
    compaction_ns: int
    total_ns: int
    surface_length: int
    message_count: int
    generation: int
    messages_sha256: str
    surface_sha256: str

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    def expected(self) -> Expected | None:
        """The reference's figures for this run, if it published them."""
        return REFERENCE.get((self.turns, self.mode))

    def matches_reference(self) -> bool | None:
        """Whether the end state equals the reference's (``None``: nothing published)."""
        want = self.expected()
        if want is None:
            return None
        return want == Expected(
            self.events, self.surface_length, self.generation, self.messages_sha256, self.surface_sha256
        )


def turn_events(t: int) -> tuple[dict[str, Any], ...]:
    """The data of turn ``t``'s events 1-14 in the order W1 appends them (the
    compaction summary, event 13, is built by :func:`run_w1` since it depends on
    the surface). Index: 0 turn/start, 1 user, 2 step/start, 3-7 chunks,
    8 assistant, 9 tool/call, 10 tool/result, 11 step/end, 12 turn/end."""
    call = f"call-{t}"
    return (
        {"turn": t, "trigger": {"kind": "message", "source": {"kind": "user"}}},
        {"content": [{"type": "text", "text": f"user message {t}"}], "source": {"kind": "user"}},
        {"turn": t, "step": 1},
        *(
            {"turn": t, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": f"chunk {k} "}}
            for k in range(5)
        ),
        {
            "turn": t,
            "step": 1,
            "content": [
                {"type": "text", "text": f"assistant reply {t}"},
                {"type": "tool-call", "id": call, "name": "echo", "arguments": '{"x":1}'},
            ],
        },
        {"turn": t, "step": 1, "callId": call, "name": "echo", "arguments": '{"x":1}'},
        {
            "turn": t,
            "step": 1,
            "callId": call,
            "content": [{"type": "text", "text": f"result {t}"}],
            "isError": False,
        },
        {"turn": t, "step": 1},
        {"turn": t, "reason": {"kind": "completed"}},
    )


def run_w1(target: Target, turns: int, mode: Mode, clock: Callable[[], int] = time.perf_counter_ns) -> Report:
    """Run W1 for ``turns`` turns in ``mode`` against ``target``; time each call with ``clock``."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    append = target.append
    append_ns = derive_ns = compaction_ns = 0
    appends = derives = compactions = 0

    def timed(kind: str, data: dict[str, Any], op: object = None, refs: list[int] | None = None) -> int:
        nonlocal append_ns, appends
        started = clock()
        seq = append(kind, data, op, refs)
        append_ns += clock() - started
        appends += 1
        return seq

    begun = clock()
    for t in range(1, turns + 1):
        d = turn_events(t)
        timed("turn/start", d[0])
        timed("user/message", d[1], "append")
        timed("step/start", d[2])
        chunks = [timed("assistant/chunk", d[3 + k]) for k in range(5)]
        timed("assistant/message", d[8], "append", chunks)

        started = clock()
        target.derive()
        derive_ns += clock() - started
        derives += 1

        call = timed("tool/call", d[9])
        timed("tool/result", d[10], "append", [call])
        timed("step/end", d[11])

        if mode == "compact" and t % COMPACT_EVERY == 0:
            started = clock()
            seqs = target.surface_seqs()
            half = len(seqs) // 2
            summary = {
                "content": [{"type": "text", "text": f"summary of {half} nodes at turn {t}"}],
                "source": {"kind": "plugin", "plugin": "compact"},
            }
            op = {"op": "replace", "start": seqs[0], "end": seqs[half - 1]}
            append("user/message", summary, op, seqs[:half])
            compaction_ns += clock() - started
            compactions += 1

        timed("turn/end", d[12])
    total_ns = clock() - begun

    state = target.final()
    return Report(
        target=target.name,
        mode=mode,
        turns=turns,
        events=state.events,
        compactions=compactions,
        append_ns=append_ns,
        appends=appends,
        derive_ns=derive_ns,
        derives=derives,
        compaction_ns=compaction_ns,
        total_ns=total_ns,
        surface_length=len(state.surface),
        message_count=len(state.messages),
        generation=state.generation,
        messages_sha256=_sha256_json(state.messages),
        surface_sha256=_sha256_json(state.surface),
    )

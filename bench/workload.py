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

#: The reference's digests at T = 100 000, which it did not publish: obtained by
#: running the TypeScript original (pinned commit) on this project's machine
#: through our driver ``bench/reference/w1.ts``, with the reference laid out
#: outside this repository (``docs/performance.md``, "Against the TypeScript
#: reference"). Data only; nothing of the reference is here.
REFERENCE.update(
    {
        (100000, "plain"): Expected(
            1300000,
            300000,
            0,
            "b0d8a98f0e058e3c3672eebecaecc2d75da98a14a871825520b377603b4aae98",
            "a176985e1ddee86c05368d80ee7c9b1acdb3da76a25ae7c8d3f59e9c4feb60f3",
        ),
        (100000, "compact"): Expected(
            1302000,
            152,
            2000,
            "fe609d060cda1bc46db5774e1411e032d21db1150335b5e8dcadfe0bc560184c",
            "d642c1a0b135e514f3fb9830ae242b1c490ecc3259612ff1684c5d7f2e0d65e9",
        ),
    }
)

#: The reference's published W1 wall times in seconds at T = 10 000 on a 2-core
#: machine like ours (same source as :data:`REFERENCE`).
REFERENCE_SECONDS: dict[tuple[int, Mode], float] = {(10000, "plain"): 1.6, (10000, "compact"): 0.9}


class Appended(Protocol):
    """What an append returns: the event, whose seq W1 reads."""

    @property
    def seq(self) -> int: ...


class Target(Protocol):
    """What W1 needs from a session log.

    ``append`` and ``derive`` are called as a user calls the library --
    ``append(type, data, surface_op=..., source_event_seqs=...)``, ``None`` for an absent
    marker or provenance -- so a target may hand over its log's own methods, with no
    wrapper between the workload and the library (the original's driver has none either).
    """

    name: str

    def append(
        self, type: str, data: Any, *, surface_op: Any = None, source_event_seqs: Any = None
    ) -> Appended:
        """Append one event; return it."""
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
    append: Callable[..., Appended]
    derive: Callable[[], object]

    def __init__(self) -> None:
        self.session = Session("w1")
        self.append = self.session.append  # the library's own methods, called directly
        self.derive = self.session.derive_messages

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

    def append(
        self, type: str, data: Any, *, surface_op: Any = None, source_event_seqs: Any = None
    ) -> dsh_spec.Event:
        draft = dsh_spec.Draft(
            type=type,
            time=time.time_ns() // 1_000_000,
            data=data,
            surface_op=dsh_spec.ABSENT if surface_op is None else surface_op,
            source_event_seqs=dsh_spec.ABSENT if source_event_seqs is None else source_event_seqs,
        )
        event = dsh_spec.validate_append(self.log, draft)
        if isinstance(event, dsh_spec.Rejection):
            raise RuntimeError(f"the spec refused a W1 event: {event}")
        self.log = (*self.log, event)
        return event

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


class _Appended:
    __slots__ = ("seq",)

    def __init__(self, seq: int) -> None:
        self.seq = seq


class DriverTarget:
    """W1's driver alone: a target whose ``append`` and ``derive`` are Python methods that keep
    nothing, so that a run costs what building each turn's input, the loop and its timers
    cost, plus a call of an empty Python method per event (docs/performance.md, "What stands
    between us and the goals")."""

    name = "driver"

    def __init__(self) -> None:
        self.count = 0

    def append(
        self, type: str, data: Any, *, surface_op: Any = None, source_event_seqs: Any = None
    ) -> _Appended:
        seq = self.count
        self.count = seq + 1
        return _Appended(seq)

    def derive(self) -> object:
        return None

    def surface_seqs(self) -> list[int]:
        return list(range(self.count - 152, self.count)) if self.count >= 152 else list(range(self.count))

    def final(self) -> State:
        return State(events=self.count, messages=[], surface=[], generation=0)


TARGETS: dict[str, Callable[[], Target]] = {"impl": ImplTarget, "spec": SpecTarget, "driver": DriverTarget}


@dataclass(frozen=True)
class Report:
    """One W1 run: what was done, where the time went (ns), and the end state's digests.

    ``total_ns`` is the time of the turns' work (appends, derives, compactions and
    the loop around them) without building each turn's input data; ``wall_ns``
    is the whole run, input building included; ``cpu_ns`` is the process's CPU
    time over that whole run (``time.process_time_ns``).
    """

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
    wall_ns: int
    cpu_ns: int
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


#: One append of a W1 turn: ``(type, data, surfaceOp, refs)``, where ``refs`` are
#: positions, within the turn, of the events whose seqs form ``sourceEventSeqs``
#: (empty: no provenance). Plain tuples: building the input is the caller's work,
#: and it is timed in ``cpu``, so it is kept as lean as the reference's driver's.
Step = tuple[str, dict[str, Any], str | None, tuple[int, ...]]

#: W1 derives the history right after this step of each turn (the assistant message).
DERIVE_AFTER = 8
#: In compact mode the compaction (event 13) comes right before this step (turn/end).
COMPACT_BEFORE = 12

_CHUNK_REFS = (3, 4, 5, 6, 7)
_RESULT_REFS = (9,)


def turn_steps(t: int) -> tuple[Step, ...]:
    """The appends of turn ``t``: W1's events 1-12 and 14, in order. Event 13, the
    compaction, depends on the surface, so :func:`run_w1` builds it."""
    call = f"call-{t}"
    return (
        ("turn/start", {"turn": t, "trigger": {"kind": "message", "source": {"kind": "user"}}}, None, ()),
        (
            "user/message",
            {"content": [{"type": "text", "text": f"user message {t}"}], "source": {"kind": "user"}},
            "append",
            (),
        ),
        ("step/start", {"turn": t, "step": 1}, None, ()),
        (
            "assistant/chunk",
            {"turn": t, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "chunk 0 "}},
            None,
            (),
        ),
        (
            "assistant/chunk",
            {"turn": t, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "chunk 1 "}},
            None,
            (),
        ),
        (
            "assistant/chunk",
            {"turn": t, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "chunk 2 "}},
            None,
            (),
        ),
        (
            "assistant/chunk",
            {"turn": t, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "chunk 3 "}},
            None,
            (),
        ),
        (
            "assistant/chunk",
            {"turn": t, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "chunk 4 "}},
            None,
            (),
        ),
        (
            "assistant/message",
            {
                "turn": t,
                "step": 1,
                "content": [
                    {"type": "text", "text": f"assistant reply {t}"},
                    {"type": "tool-call", "id": call, "name": "echo", "arguments": '{"x":1}'},
                ],
            },
            "append",
            _CHUNK_REFS,
        ),
        (
            "tool/call",
            {"turn": t, "step": 1, "callId": call, "name": "echo", "arguments": '{"x":1}'},
            None,
            (),
        ),
        (
            "tool/result",
            {
                "turn": t,
                "step": 1,
                "callId": call,
                "content": [{"type": "text", "text": f"result {t}"}],
                "isError": False,
            },
            "append",
            _RESULT_REFS,
        ),
        ("step/end", {"turn": t, "step": 1}, None, ()),
        ("turn/end", {"turn": t, "reason": {"kind": "completed"}}, None, ()),
    )


def compaction(t: int, surface: list[int]) -> tuple[str, dict[str, Any], dict[str, Any], list[int]]:
    """W1's event 13 at turn ``t`` over ``surface`` (seqs head to tail): a summary
    replacing the first half of the surface, as ``(type, data, surfaceOp, sourceEventSeqs)``."""
    half = len(surface) // 2
    data = {
        "content": [{"type": "text", "text": f"summary of {half} nodes at turn {t}"}],
        "source": {"kind": "plugin", "plugin": "compact"},
    }
    return (
        "user/message",
        data,
        {"op": "replace", "start": surface[0], "end": surface[half - 1]},
        surface[:half],
    )


def run_w1(
    target: Target,
    turns: int,
    mode: Mode,
    clock: Callable[[], int] = time.perf_counter_ns,
    after_turn: Callable[[], object] | None = None,
) -> Report:
    """Run W1 for ``turns`` turns in ``mode`` against ``target``; time each call with ``clock``.

    ``after_turn``, if given, is called at the end of every turn, inside the
    turn's timed region (the benchmark uses it for an application's collector
    policy, such as ``gc.freeze`` once per turn).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    append, derive = target.append, target.derive
    append_ns = derive_ns = compaction_ns = total_ns = 0
    appends = derives = compactions = 0
    compacting = mode == "compact"

    # Appends are timed in runs between the points where W1 does something else
    # (derive, compaction), which keeps the timer's own cost out of the figures.
    runs = ((0, DERIVE_AFTER + 1), (DERIVE_AFTER + 1, COMPACT_BEFORE), (COMPACT_BEFORE, None))
    cpu_begun = time.process_time_ns()
    begun = clock()
    for t in range(1, turns + 1):
        steps = turn_steps(t)  # the input data: built outside the timed region
        seqs: list[int] = []
        turn_started = clock()
        for first, last in runs:
            if first == COMPACT_BEFORE and compacting and t % COMPACT_EVERY == 0:
                started = clock()
                summary = compaction(t, target.surface_seqs())
                append(summary[0], summary[1], surface_op=summary[2], source_event_seqs=summary[3])
                compaction_ns += clock() - started
                compactions += 1
            started = clock()
            for kind, data, op, positions in steps[first:last]:
                given = [seqs[i] for i in positions] if positions else None
                seqs.append(append(kind, data, surface_op=op, source_event_seqs=given).seq)
            append_ns += clock() - started
            if last == DERIVE_AFTER + 1:
                started = clock()
                derive()
                derive_ns += clock() - started
                derives += 1
        if after_turn is not None:
            after_turn()
        total_ns += clock() - turn_started
        appends += len(steps)
    wall_ns = clock() - begun
    cpu_ns = time.process_time_ns() - cpu_begun

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
        wall_ns=wall_ns,
        cpu_ns=cpu_ns,
        surface_length=len(state.surface),
        message_count=len(state.messages),
        generation=state.generation,
        messages_sha256=_sha256_json(state.messages),
        surface_sha256=_sha256_json(state.surface),
    )

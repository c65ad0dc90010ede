"""Stateful comparison: a live-invariants Session against the spec, append by append.

The machine offers events that are mostly valid -- turn and step numbers,
call ids and surface ranges drawn around what the log expects -- and often
not: wrong numbers, wrong types, missing fields, stray markers, bad
provenance, replaces off the surface. Each offer goes to
``Session(..., invariants=True).append`` and to
``dsh_spec.validate_append_with_invariants``; both must store the same event
or refuse with the same code and seq, and a refusal must leave the session
exactly as it was. Seeding (the whole log, or the log plus one more record)
is compared too.

The mutant tests at the end run the same machine against broken copies of
the implementation and insist it finds each one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

import dsh_session
import dsh_session.session
import dsh_spec
from dsh_session import Event, InvalidEventError, InvariantViolationError, Session, _admission
from dsh_session.invariants import StructureTrace
from dsh_spec import ABSENT, Code, Draft, Rejection, Trace
from tests.support import machine_settings
from tests.test_invariants_fixtures import STRUCTURAL

#: A stateful machine, or a check that one finds planted bugs: ``pytest -m machine`` runs them all.
pytestmark = pytest.mark.machine

#: Stands for a key left out of ``data``.
OMIT: Any = object()
ODD = st.sampled_from(["1", None, 1.5, True, OMIT])
CALL_IDS = ("c1", "c2", "c3")
USER = {"kind": "user"}


def text(value: str) -> list[Any]:
    return [{"type": "text", "text": value}]


def near(data: st.DataObject, good: int | None) -> Any:
    """Mostly ``good``; otherwise a nearby number or a value of the wrong type."""
    choice = data.draw(st.integers(0, 9), label="near")
    if choice < 7 and good is not None:
        return good
    if choice < 9:
        return data.draw(st.integers(0, 4))
    return data.draw(ODD)


def fields(**values: Any) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not OMIT}


class LiveInvariantsMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.session = Session("machine", invariants=True, clock=lambda: 0)
        self.log: tuple[dsh_spec.Event, ...] = ()
        self.trace = Trace()  # the spec's trace of ``log``, folded along with it

    def snapshot(self) -> tuple[Any, ...]:
        session = self.session
        return (
            session.events.to_json(),
            session.surface.seqs(),
            session.surface.replace_generation,
            session.derive_messages().to_json(),
        )

    def offer(self, kind: str, data: Any, surface_op: Any = None, refs: list[int] | None = None) -> None:
        draft = Draft(
            kind,
            0,
            data,
            surface_op=ABSENT if surface_op is None else surface_op,
            source_event_seqs=ABSENT if refs is None else list(refs),
        )
        checked = dsh_spec.check_event(self.trace, len(self.log), draft)
        expected = checked if isinstance(checked, Rejection) else checked[0]
        before = self.snapshot()
        try:
            event = self.session.append(kind, data, surface_op=surface_op, source_event_seqs=refs)
        except InvalidEventError as error:
            assert isinstance(expected, Rejection), f"refused what the spec stores: {error}"
            assert (error.code, error.seq) == (expected.code, expected.seq), (error, expected)
            assert isinstance(error, InvariantViolationError) == (error.code.value in STRUCTURAL)
            assert self.snapshot() == before, "a refused append changed the session"
        else:
            assert not isinstance(expected, Rejection), f"stored what the spec refuses: {expected}"
            assert event.to_json() == dsh_spec.event_json(expected)
            assert not isinstance(checked, Rejection)
            self.log = (*self.log, expected)
            self.trace = checked[1]

    def turn_step(self, data: st.DataObject) -> tuple[Any, Any]:
        trace = self.trace
        turn = near(data, trace.open_turn if trace.open_turn is not None else trace.next_turn)
        step = near(data, trace.open_step if trace.open_step is not None else trace.next_step)
        return turn, step

    def provenance(self, data: st.DataObject) -> list[int] | None:
        choice = data.draw(st.integers(0, 5), label="provenance")
        if choice < 3 or not self.log:
            return None
        if choice < 5:
            known = [event.seq for event in self.log]
            return data.draw(st.lists(st.sampled_from(known), min_size=1, max_size=3, unique=True))
        return data.draw(st.sampled_from([[], [len(self.log)], [-1], [0, 0]]))

    # -- turns and steps --------------------------------------------------------------------------

    @rule(data=st.data())
    def turn_start(self, data: st.DataObject) -> None:
        turn = near(data, self.trace.next_turn)
        self.offer("turn/start", fields(turn=turn, trigger={"kind": "message", "source": USER}))

    @rule(data=st.data())
    def turn_end(self, data: st.DataObject) -> None:
        turn, _step = self.turn_step(data)
        self.offer("turn/end", fields(turn=turn, reason={"kind": "completed"}))

    @rule(data=st.data())
    def step_start(self, data: st.DataObject) -> None:
        trace = self.trace
        turn = near(data, trace.open_turn)
        step = near(data, trace.next_step)
        self.offer("step/start", fields(turn=turn, step=step))

    @rule(data=st.data())
    def step_end(self, data: st.DataObject) -> None:
        turn, step = self.turn_step(data)
        self.offer("step/end", fields(turn=turn, step=step))

    @rule(data=st.data())
    def chunk(self, data: st.DataObject) -> None:
        turn, step = self.turn_step(data)
        self.offer("assistant/chunk", fields(turn=turn, step=step, chunk={"type": "text-delta"}))

    @rule(data=st.data())
    def proceed(self, data: st.DataObject) -> None:
        self._proceed(data)

    @rule(data=st.data())
    def proceed_again(self, data: st.DataObject) -> None:
        self._proceed(data)

    def _proceed(self, data: st.DataObject) -> None:
        """The agent loop's next structural event, valid: opens and closes turns and steps."""
        trace = self.trace
        turn, step = trace.open_turn, trace.open_step
        if turn is None:
            trigger = {"kind": "message", "source": USER}
            self.offer("turn/start", {"turn": trace.next_turn, "trigger": trigger})
        elif step is None and data.draw(st.booleans(), label="close turn"):
            self.offer("turn/end", {"turn": turn, "reason": {"kind": "completed"}})
        elif step is None:
            self.offer("step/start", {"turn": turn, "step": trace.next_step})
        else:
            self.offer("step/end", {"turn": turn, "step": step})

    # -- the assistant and its tools -----------------------------------------------------------------

    @rule(data=st.data(), calls=st.lists(st.sampled_from(CALL_IDS), max_size=2))
    def assistant(self, data: st.DataObject, calls: list[str]) -> None:
        turn, step = self.turn_step(data)
        blocks = text("r") + [{"type": "tool-call", "id": c, "name": "x", "arguments": "{}"} for c in calls]
        payload = fields(turn=turn, step=step, content=blocks)
        self.offer("assistant/message", payload, "append", self.provenance(data))

    @rule(data=st.data(), call_id=st.sampled_from([*CALL_IDS, OMIT, 7]))
    def tool_call(self, data: st.DataObject, call_id: Any) -> None:
        turn, step = self.turn_step(data)
        self.offer("tool/call", fields(turn=turn, step=step, callId=call_id, name="x"))

    @rule(data=st.data(), interrupted=st.integers(0, 4))
    def tool_result(self, data: st.DataObject, interrupted: int) -> None:
        turn, step = self.turn_step(data)
        pending = sorted(self.trace.pending_calls)
        call_id = data.draw(st.sampled_from([*pending, *pending, *CALL_IDS]))
        payload = fields(turn=turn, step=step, callId=call_id, content=text("out"), isError=interrupted == 0)
        if interrupted == 0:
            payload["error"] = {"name": "InterruptedError", "code": "interrupted"}
        self.offer("tool/result", payload, "append", self.provenance(data))

    # -- messages and the surface --------------------------------------------------------------------

    @rule(
        data=st.data(),
        kind=st.sampled_from(["user/message", "context/message", "steering/message"]),
    )
    def message(self, data: st.DataObject, kind: str) -> None:
        payload: dict[str, Any] = {"content": text("m"), "source": USER}
        if kind == "steering/message":
            payload["turn"] = data.draw(st.integers(0, 9))
        order = dsh_spec.fold_surface(self.log)
        assert not isinstance(order, Rejection)
        seqs = order.order
        if not seqs or data.draw(st.integers(0, 2)):
            self.offer(kind, payload, "append", self.provenance(data))
            return
        first = data.draw(st.integers(0, len(seqs) - 1))
        last = data.draw(st.integers(0, len(seqs) - 1))
        start, end = seqs[first], seqs[last]
        if data.draw(st.integers(0, 5)) == 0:
            start = data.draw(st.sampled_from([start, len(self.log), -1]))
        covered = list(seqs[min(first, last) : max(first, last) + 1])
        refs = data.draw(st.sampled_from([covered, covered[:1], None]))
        self.offer(kind, payload, {"op": "replace", "start": start, "end": end}, refs)

    @rule(
        kind=st.sampled_from(["compact/start", "todo/write", "request/header", "foo/bar"]),
        marker=st.integers(0, 5),
    )
    def log_only(self, kind: str, marker: int) -> None:
        surface_op = "append" if marker == 0 else None
        refs = [0] if marker == 1 and self.log else None
        self.offer(kind, {"turn": 1}, surface_op, refs)

    # -- seeding ----------------------------------------------------------------------------------------

    @rule()
    def reseed(self) -> None:
        copy = Session("copy", seed=self.session.events, invariants=True)
        assert copy.events == self.session.events
        assert copy.surface.seqs() == self.session.surface.seqs()

    @rule(data=st.data())
    def seed_with_one_more(self, data: st.DataObject) -> None:
        turn, step = self.turn_step(data)
        kinds = ["turn/start", "turn/end", "step/start", "step/end", "user/message"]
        kind = data.draw(st.sampled_from(kinds))
        record: dict[str, Any] = {
            "type": kind,
            "seq": len(self.log),
            "time": 0,
            "data": fields(turn=turn, step=step, content=text("s"), source=USER),
        }
        if kind == "user/message":
            record["surfaceOp"] = "append"
        records = [*self.session.events.to_json(), record]
        expected = dsh_spec.check_seed_with_invariants(records)
        try:
            seeded = Session("seeded", seed=records, invariants=True)
        except InvalidEventError as error:
            assert isinstance(expected, Rejection), error
            assert (error.code, error.seq) == (expected.code, expected.seq)
        else:
            assert not isinstance(expected, Rejection), expected
            assert seeded.events.to_json() == [dsh_spec.event_json(event) for event in expected]

    # -- always ----------------------------------------------------------------------------------------------

    @invariant()
    def logs_agree_and_keep_the_invariants(self) -> None:
        assert self.session.events.to_json() == [dsh_spec.event_json(event) for event in self.log]
        assert dsh_session.check_log(self.session.events) == []
        assert dsh_spec.check_log(self.log) == ()
        assert dsh_spec.trace_of(self.log) == self.trace


#: (examples, steps): default, thorough, mutation.
MACHINE_SETTINGS = machine_settings((40, 40), (400, 80), (10, 40))

TestLiveInvariants = LiveInvariantsMachine.TestCase
TestLiveInvariants.settings = MACHINE_SETTINGS


# -- mutants: the machine must catch each one ----------------------------------------------------------


class _SkipsUnpairedResults(StructureTrace):
    """Mutant: rule R19 (TOOL_RESULT_UNPAIRED) is never enforced."""

    def check(self, event: Event) -> tuple[Code, str] | None:
        problem = super().check(event)
        return None if problem is not None and problem[0] is Code.TOOL_RESULT_UNPAIRED else problem


class _LeaksRefusedEvents(StructureTrace):
    """Mutant: a refused event still moves the trace on (no rollback)."""

    def check(self, event: Event) -> tuple[Code, str] | None:
        problem = super().check(event)
        if problem is not None and problem[0] is not Code.MALFORMED_STRUCTURE_FIELD:
            self.advance(event)
        return problem


class _ForgetsStepNumbers(StructureTrace):
    """Mutant: steps restart at 1 only in the first turn (``next_step`` not reset at turn/start)."""

    def advance(self, event: Event) -> None:
        next_step = self.next_step
        super().advance(event)
        if event.type == "turn/start":
            self.next_step = next_step


def _stores_before_checking(
    self: Session, kind: object, time: object, data: object, op: object, refs: object
) -> Event:
    """Mutant: the reference's order -- store the event, then check the invariants (B2)."""
    surface = self.surface
    surface.sync()
    event: Event
    event, _span = _admission.admit(surface, len(self._log), kind, time, data, op, refs)
    self._log.append(event)
    surface.sync()
    trace = self._trace
    if trace is not None:
        problem = trace.check(event)
        if problem is not None:
            raise InvariantViolationError(problem[0], problem[1], seq=event.seq, event_type=event.type)
        trace.advance(event)
    return event


@contextmanager
def _trace_mutant(mutant: type[StructureTrace]) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dsh_session.session, "StructureTrace", mutant)
        yield


@contextmanager
def _session_mutant() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Session, "_admit", _stores_before_checking)
        yield


#: Each mutant, and what the machine must say when it catches it.
MUTANTS: dict[str, tuple[Callable[[], Any], str]] = {
    "skips-unpaired-results": (lambda: _trace_mutant(_SkipsUnpairedResults), "stored what the spec refuses"),
    "leaks-refused-events": (lambda: _trace_mutant(_LeaksRefusedEvents), r"spec|InvariantViolationError"),
    "forgets-step-numbers": (lambda: _trace_mutant(_ForgetsStepNumbers), "refused what the spec stores"),
    "stores-before-checking": (_session_mutant, "a refused append changed the session"),
}

MUTANT_SETTINGS = settings(
    MACHINE_SETTINGS,
    max_examples=150,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    print_blob=False,
)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_machine_catches_the_mutant(name: str) -> None:
    mutate, complaint = MUTANTS[name]
    with mutate(), pytest.raises(AssertionError, match=complaint):
        run_state_machine_as_test(LiveInvariantsMachine, settings=MUTANT_SETTINGS)


def test_the_machine_passes_the_real_implementation_with_mutant_settings() -> None:
    """The control: the settings the mutants are caught with do not fail the real code."""
    run_state_machine_as_test(LiveInvariantsMachine, settings=settings(MUTANT_SETTINGS, max_examples=20))

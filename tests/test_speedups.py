"""The C fast paths (``dsh_session._speedups``) against the Python code they stand in for.

The promise (``dsh_session/_accel.py``): each C path does exactly what the Python path
does, or declines having changed nothing and leaves the event to the Python path. Here
a session with the C paths and one with the Python code alone (``tests/python_paths.py``)
are driven through the same random operations with the same clock, and must return and
raise the same things and end with the same state -- log, surface links and ranks, cached
messages, derived history, the clock's last reading. ``plain_text`` must equal the Python
lean pass on any value. The stateful machines then hold the C paths to the specification
(they run with them on; ``test_mutants`` runs its planted bugs with them off).
"""

from __future__ import annotations

import contextlib
import copy
import gc
import inspect
import itertools
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh_session import NULL, DshSessionError, Replace, Session, SessionHeader, _accel
from dsh_session import json_value as json_value_module
from dsh_session import session as session_module
from dsh_session._accel import PySessionCore, PySurfaceCore
from dsh_session.event import LoggedEvent, held
from dsh_session.persistence import _bulk
from dsh_session.persistence._admit import LogAdmitter
from tests import builders as B
from tests.machine_logs import nested
from tests.machine_support import unguarded
from tests.python_paths import python_paths
from tests.strategies import (
    LOG_ONLY_KINDS,
    NAMED_NON_JSON,
    SURFACE_KINDS,
    broken_payloads,
    json_values,
    non_json_values,
    payloads,
)
from tests.test_bulk_rows import PLAIN, described, edited_rows

ROOT = Path(__file__).resolve().parent.parent
def test_the_c_code_is_built_and_in_use() -> None:
    """The dev setup compiles the extension, and this suite tests it: a build that silently fell
    back would lose the speed and leave the C code untested. (The Python code alone is run by
    ``DSH_SESSION_PURE=1`` in a process of its own, below, and by mutation testing.)"""
    assert _accel.ACCELERATED
    # the base's C methods answer (and show the Python methods' signatures)
    assert "append" not in Session.__dict__ and "derive_messages" not in Session.__dict__
    shown = "(self, /, type, data, *, surface_op=None, source_event_seqs=None)"
    assert str(inspect.signature(Session.append)) == shown
    assert "Admit one event at the end of the log" in (Session.append.__doc__ or "")


def test_the_python_code_alone_runs_w1_to_the_originals_digests() -> None:
    """``DSH_SESSION_PURE=1``: nothing of the C code is loaded, and W1 ends in the original's state."""
    code = (
        "import sys; sys.path.insert(0, '.')\n"
        "from dsh_session import _accel\n"
        "assert not _accel.ACCELERATED and 'dsh_session._speedups' not in sys.modules\n"
        "from bench.workload import ImplTarget, run_w1\n"
        "for mode in ('plain', 'compact'):\n"
        "    report = run_w1(ImplTarget(), 1000, mode)\n"
        "    assert report.matches_reference() is True, report\n"
        "assert 'dsh_session._speedups' not in sys.modules\n"
        "print('ok')\n"
    )
    env = {**os.environ, "DSH_SESSION_PURE": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]


# -- plain_text ------------------------------------------------------------------------------

#: Keys that are not plain (a leading digit, non-ASCII, a lone surrogate) and ones that are.
_KEYS = st.sampled_from(["", "a", "type", "0", "9x", "-1", " 1", "é", "\ud800", "a\x00", 'q"', "\\"])

_ANY: st.SearchStrategy[Any] = st.deferred(
    lambda: (
        json_values
        | non_json_values()
        | st.sampled_from(sorted(NAMED_NON_JSON)).map(lambda name: NAMED_NON_JSON[name]())
        | st.lists(_ANY, max_size=3)
        | st.dictionaries(_KEYS | st.text(max_size=3), _ANY, max_size=3)
        | st.integers()
        | st.text()
    )
)


def _python_lean(value: object) -> bytes | None:
    return json_value_module._lean_text(value)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(_ANY)
def test_plain_text_is_the_python_lean_pass(value: Any) -> None:
    fast = json_value_module._plain
    assert fast is not None
    got, want = fast(value), _python_lean(value)
    assert got == want
    assert type(got) is type(want)


@pytest.mark.parametrize("depth", [1, 2, 199, 200, 201, 202, 1000])
@pytest.mark.parametrize("shape", ["list", "dict", "mixed", "siblings"])
def test_plain_text_takes_the_depth_limit_as_python_does(depth: int, shape: str) -> None:
    value = nested(depth, shape)
    fast = json_value_module._plain
    assert fast is not None
    assert fast(value) == _python_lean(value)
    assert (fast(value) is None) is (depth > json_value_module.MAX_DEPTH)


@pytest.mark.parametrize(
    "value",
    [
        "".join(map(chr, range(0x80))),
        "\u2028\u2029\x7f\u00e9\U0001f600",
        {"a\x01": "\x1f\x08\x0c\n\r\t"},
        [2**53, -(2**53), 2**53 + 1, 0, -1],
        {"": {"": []}},
        "x" * 5000 + "\x00" * 700 + "é" * 300,
    ],
)
def test_plain_text_spells_strings_and_numbers_as_python_does(value: Any) -> None:
    fast = json_value_module._plain
    assert fast is not None
    assert fast(value) == _python_lean(value)


def test_a_cyclic_value_is_left_to_the_careful_pass() -> None:
    cyclic: list[Any] = [1]
    cyclic.append(cyclic)
    assert json_value_module.lean_text(cyclic) is None


# -- sessions: the C paths against the Python code -------------------------------------------


#: A clock reading that is a failure: the clock raises.
FAILS = "the clock fails"


class Clock:
    """A clock that reads its values from a script (raising at :data:`FAILS`), then counts on."""

    def __init__(self, readings: list[Any]) -> None:
        self.readings = list(readings)
        self.after = 1000

    def __call__(self) -> Any:
        if self.readings:
            reading = self.readings.pop(0)
            if reading == FAILS:
                raise RuntimeError(FAILS)
            return reading
        self.after += 1
        return self.after


Op = tuple[str, Any]

_readings = st.lists(
    st.sampled_from([5, 5, 6, 7, 2**53, 2**53 + 1, -(2**53), 5.0, 7.5, True, None, "x", FAILS]), max_size=8
)


class _Iterated(tuple[int, ...]):
    """Provenance to be given as an iterator: each side gets a fresh one over these seqs."""


@st.composite
def _appends(draw: st.DrawFn) -> Op:
    kind = draw(st.sampled_from(SURFACE_KINDS + LOG_ONLY_KINDS) | st.sampled_from([5, None, "", b"x"]))
    if isinstance(kind, str) and kind in SURFACE_KINDS:
        data = draw(payloads(kind) | broken_payloads(kind) | non_json_values())
    elif isinstance(kind, str) and kind in LOG_ONLY_KINDS:
        data = draw(json_values | non_json_values() | payloads("user/message"))
    else:
        data = draw(json_values)
    op = draw(
        st.sampled_from([None, None, "append", "append", NULL, "Append", 5, ("append",)])
        | st.builds(Replace, st.integers(-1, 12), st.integers(-1, 12))
        | st.builds(
            lambda a, b: {"op": "replace", "start": a, "end": b}, st.integers(0, 12), st.integers(0, 12)
        )
    )
    refs = draw(
        st.none()
        | st.just(NULL)
        | st.lists(st.integers(-2, 14), max_size=5)
        | st.lists(st.integers(-2, 14), max_size=5).map(tuple)
        | st.lists(st.sampled_from([0, 1, True, 1.0, 2**70, "1"]), max_size=3)
        | st.just(list(range(70)))
        | st.just(_Iterated((0,)))
    )
    return ("append", (kind, data, op, refs))


#: A replace of a real range of the surface as it stands, as a compaction writes one: where it
#: starts and how wide it is (fractions of the surface), the op's form, the provenance's order.
_compactions = st.tuples(
    st.floats(0, 1),
    st.floats(0, 1),
    st.sampled_from(["dict", "Replace"]),
    st.sampled_from(["in order", "reversed", "extra"]),
).map(lambda drawn: ("compact", drawn))

_ops = st.lists(
    _appends()
    | _compactions
    | st.just(("derive", None))
    | st.just(("invalidate", None))
    | st.just(("hook", None))
    | st.just(("unhook", None)),
    min_size=1,
    max_size=30,
)


def _outcome(session: Session, operation: Callable[[], Any]) -> Any:
    """What an operation returned (as comparable data) or raised (its type, code and message)."""
    try:
        result = operation()
    except DshSessionError as error:
        return ("error", type(error).__name__, error.code, str(error), getattr(error, "seq", None))
    except Exception as error:  # a hook's own failure, a clock's TypeError: the same on both sides
        return ("raised", type(error).__name__, str(error))
    if isinstance(result, LoggedEvent):
        return ("event", _event(result), result.time is session._last_time)
    return ("value", result.to_json() if hasattr(result, "to_json") else result)


def _event(event: LoggedEvent) -> Any:
    return (
        event.type,
        event.seq,
        type(event.time).__name__,
        event.time,
        held(event),
        event.source_event_seqs,
        event.surface_op,
        event.key_order,
    )


def _state(session: Session) -> Any:
    surface = session._surface
    return (
        [_event(event) for event in session._log],  # type: ignore[arg-type]
        (surface._head, surface._tail, surface._generation, surface._folded, surface._snapshot is None),
        (dict(surface._rank), dict(surface._prev), dict(surface._next), dict(surface._messages)),
        (type(session._last_time).__name__, session._last_time),
        (list(session._messages), session._derived_generation, session._derived_last),
    )


class _Hook:
    """An append hook that records what it was called with, and fails on its third call."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def __call__(self, session: Session, event: Any) -> None:
        self.seen.append(event.seq)
        if len(self.seen) == 3:
            raise RuntimeError("the hook failed")


def _apply(session: Session, op: Op, hook: _Hook) -> Any:
    name, args = op
    if name == "append":
        kind, data, surface_op, refs = args
        if isinstance(refs, _Iterated):
            refs = iter(tuple(refs))  # a fresh iterator for each side: it is consumed
        append = unguarded(Session.append)
        return _outcome(
            session, lambda: append(session, kind, data, surface_op=surface_op, source_event_seqs=refs)
        )
    if name == "compact":
        at, width, form, order = args
        surface = session.surface.seqs()
        if not surface:
            return None
        first = min(int(at * len(surface)), len(surface) - 1)
        last = min(first + int(width * (len(surface) - first)), len(surface) - 1)
        shadowed = surface[first : last + 1]
        start, end = surface[first], surface[last]
        marker: Any = Replace(start, end)
        if form == "dict":
            marker = {"op": "replace", "start": start, "end": end}
        refs = shadowed[::-1] if order == "reversed" else shadowed + [0] if order == "extra" else shadowed
        summary = {
            "content": [{"type": "text", "text": f"summary of {len(shadowed)}"}],
            "source": {"kind": "user"},
        }
        return _apply(session, ("append", ("user/message", summary, marker, list(dict.fromkeys(refs)))), hook)
    if name == "derive":
        return _outcome(session, session.derive_messages)
    if name == "invalidate":
        session.surface.invalidate()
    elif name == "hook":
        session._append_hook = hook
    else:
        session._append_hook = None
    return None


def _copy_op(op: Op) -> Op:
    """The same operation with fresh containers (the two sides must not share mutable input;
    a cyclic value stays cyclic)."""
    name, args = op
    return op if name != "append" else (name, copy.deepcopy(args))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=_ops, readings=_readings, invariants=st.booleans())
def test_a_session_with_the_c_paths_does_what_the_python_code_does(
    ops: list[Op], readings: list[Any], invariants: bool
) -> None:
    header = SessionHeader("s", 0)  # the clock is read by appends alone
    fast = Session("s", header=header, clock=Clock(readings), invariants=invariants)
    slow = Session("s", header=header, clock=Clock(readings), invariants=invariants)
    fast_hook, slow_hook = _Hook(), _Hook()
    for op in ops:
        mine = _apply(fast, _copy_op(op), fast_hook)
        with python_paths():
            theirs = _apply(slow, _copy_op(op), slow_hook)
        assert mine == theirs, op
        assert _state(fast) == _state(slow), op
    assert fast_hook.seen == slow_hook.seen
    assert fast.derive_messages().to_json() == slow.derive_messages().to_json()


def test_the_c_paths_take_the_common_events() -> None:
    """A control for the comparison above: the W1-like events -- log-only events, surface
    appends with and without provenance, a compaction's replace, the derives after each --
    never reach the Python code, so the comparison compares two different codes."""
    session = B.users(3)
    session.derive_messages()
    reached: list[object] = []
    python_append, python_derive = Session._append_at, Session._python_derive_messages  # type: ignore[attr-defined]

    def append_at(self: Session, time: Any, kind: Any, *rest: Any) -> Any:
        reached.append(kind)
        return python_append(self, time, kind, *rest)

    def derive(self: Session) -> Any:
        reached.append("derive")
        return python_derive(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Session, "_append_at", append_at)
        patch.setattr(Session, "_python_derive_messages", derive)
        session.append("turn/start", B.turn_start())
        session.append("user/message", B.user("x"), surface_op="append")
        session.append("tool/result", B.tool_result(), surface_op="append", source_event_seqs=[0, 1])
        session.append("assistant/message", B.assistant(B.text("a")), surface_op="append")
        session.derive_messages()
        session.append("user/message", B.user("sum"), surface_op=B.replace(1, 4), source_event_seqs=[4, 2, 1])
        session.append("user/message", B.user("sum"), surface_op=Replace(0, 7), source_event_seqs=[0, 7])
        assert [node.seq for node in session.surface.nodes] == [8, 5, 6]
        assert len(session.derive_messages()) == 3
        assert reached == []
        session.append("context/message", B.context(), surface_op="append")  # declined: Python's
        assert reached == ["context/message"]


def test_the_wall_clock_gives_milliseconds_and_one_int_per_millisecond() -> None:
    session = Session("s")
    before = session_module.now_ms()
    events = [session.append("turn/start", B.turn_start()) for _ in range(200)]
    after = session_module.now_ms()
    assert all(before <= event.time <= after for event in events)
    assert [e.time for e in events] == sorted(e.time for e in events)
    for first, second in itertools.pairwise(events):
        assert (first.time is second.time) is (first.time == second.time)


# -- state a caller took apart ---------------------------------------------------------------

_SESSION_SLOTS = PySessionCore.__slots__
_SURFACE_SLOTS = PySurfaceCore.__slots__


def _calls(session: Session) -> list[Callable[[], object]]:
    return [
        lambda: session.append("turn/start", B.turn_start()),
        lambda: session.append("user/message", B.user("x"), surface_op="append", source_event_seqs=[0]),
        lambda: session.append(
            "user/message", B.user("s"), surface_op=B.replace(1, 1), source_event_seqs=[1]
        ),
        session.derive_messages,
    ]


@pytest.mark.parametrize("owner", ["session", "surface"])
def test_a_session_whose_state_was_taken_apart_raises_and_does_not_crash(owner: str) -> None:
    """Private state deleted or replaced by something else: each call raises an exception or
    works, in the C paths as in the Python code -- never a crash (the C code checks every
    field it reads)."""
    names = _SESSION_SLOTS if owner == "session" else _SURFACE_SLOTS
    for name in names:
        replacements: tuple[Any, ...] = (None, 5, "x", [], {})
        for replacement in replacements:
            results = []
            for python in (False, True):
                session = B.users(2)
                session.derive_messages()
                target = session if owner == "session" else session.surface
                if replacement is None:
                    delattr(target, name)
                else:
                    setattr(target, name, replacement)
                outcome = []
                with python_paths() if python else contextlib.nullcontext():
                    for call in _calls(session):
                        try:
                            call()
                            outcome.append("ok")
                        except Exception as error:
                            outcome.append(type(error).__name__)
                results.append(outcome)
            assert len(results[0]) == len(results[1]) == 4, (name, replacement)


# -- a load's rows ----------------------------------------------------------------------------


def _rows_taken(rows: list[tuple[Any, ...]], start_rows: list[tuple[Any, ...]]) -> Any:
    """What ``rows_run`` makes of ``rows`` after the plain ``start_rows``: the events as
    described, or None, and the admitter's state after it."""
    admitter = LogAdmitter()
    if start_rows and _bulk.rows_run(admitter, start_rows) is None:
        raise AssertionError("the plain rows were declined")
    taken = _bulk.rows_run(admitter, rows)
    events = None if taken is None else [described(event) for event in taken]
    return events, admitter.next_seq, admitter._surface.seqs(), admitter._last_time


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(rows=edited_rows(), split=st.integers(0, 13))
def test_a_run_of_rows_is_taken_in_c_exactly_when_the_python_code_takes_it(
    rows: list[tuple[Any, ...]], split: int
) -> None:
    """The C rows path and ``rows_run``'s Python code take the same runs and make the same
    events of them, a run at the start and a run after plain ones (seqs and provenance are
    judged from where the log stands)."""
    for before, run in (([], rows), (list(PLAIN[:split]), _renumbered(rows, split))):
        mine = _rows_taken(run, before)
        with python_paths():
            theirs = _rows_taken(run, before)
        assert mine == theirs


def _renumbered(rows: list[tuple[Any, ...]], by: int) -> list[tuple[Any, ...]]:
    """The rows with each int seq moved on by ``by`` (the rest as they are)."""
    return [(row[0] + by, *row[1:]) if type(row[0]) is int else row for row in rows]


def test_the_c_rows_path_takes_a_plain_run() -> None:
    """A control: plain rows are taken (not declined) by both."""
    mine = _rows_taken(list(PLAIN), [])
    assert mine[0] is not None and len(mine[0]) == len(PLAIN)


# -- references and memory -------------------------------------------------------------------


def _w1_like(session: Session, turns: int) -> None:
    for t in range(turns):
        session.append("turn/start", B.turn_start(t))
        user = session.append("user/message", B.user(f"u{t}"), surface_op="append")
        session.append("tool/call", {"turn": t, "callId": f"c{t}"})
        session.append(
            "tool/result", B.tool_result(f"c{t}"), surface_op="append", source_event_seqs=[user.seq]
        )
        session.derive_messages()


def test_the_c_paths_leak_no_references() -> None:
    """What a session is given or holds is released with it: no reference is kept too many."""
    kind, data = "turn/start", {"turn": 1}
    payload = B.user("x")
    counted = (kind, data, payload, payload["content"], LoggedEvent)
    for _ in range(2):  # warm caches (interned strings, small ints)
        session = Session("s", clock=B.Ticks())
        _w1_like(session, 5)
        del session
    gc.collect()
    before = [sys.getrefcount(item) for item in counted]
    for _ in range(50):
        session = Session("s", clock=B.Ticks())
        for _ in range(20):
            session.append(kind, data)
            session.append("user/message", payload, surface_op="append", source_event_seqs=[0])
        _w1_like(session, 10)
        session.derive_messages()
        del session
    gc.collect()
    assert [sys.getrefcount(item) for item in counted] == before


def test_a_session_with_c_state_is_collected_with_its_cycles() -> None:
    """A session in a cycle (a hook that holds it) is freed by the collector."""
    freed: list[bool] = []

    class Holder:
        def __init__(self, session: Session) -> None:
            self.session = session

        def __call__(self, session: Session, event: Any) -> None:
            pass

        def __del__(self) -> None:
            freed.append(True)

    session = Session("s")
    session._append_hook = Holder(session)
    session.append("turn/start", B.turn_start())
    del session
    gc.collect()
    assert freed == [True]

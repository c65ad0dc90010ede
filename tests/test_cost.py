"""The cost promises of issue 2, checked by counting work, never by timing it.

The measure is the number of lines of ``dsh_session`` that an operation executes
(``sys.settrace`` line events in the package's own files): a deterministic count
that grows with any loop over the history. Each promise is checked as "the same
operation costs the same at a short and at a long history" -- append O(1),
replace O(k) in the nodes it shadows whatever the surface's length,
``derive_messages()`` after an append O(new nodes) -- plus a direct count of
projections (each event is projected once, a replace projects only its new node).
After a replace, ``derive_messages()`` links the cached messages anew (one pass
over the surface, no projection): that pass is the one O(history) step, and the
issue allows it ("a replace must not force re-projecting untouched events").

Lines are counted in the Python code, the reference for the C fast paths
(``dsh_session/_accel.py``), which do the same work and are turned off here; their
cost across history lengths is measured, not tested (``bench/scaling.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import dsh_session
from dsh_session import Session
from dsh_session import session as session_module
from tests import builders as B
from tests.python_paths import python_paths

PACKAGE = str(Path(dsh_session.__file__).resolve().parent)
SHORT, LONG = 50, 3000


@pytest.fixture(autouse=True)
def _python_code_only() -> Iterator[None]:
    with python_paths():
        yield


def lines_run(operation: Callable[[], object]) -> int:
    """How many lines of dsh_session's own files ``operation`` executes."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def global_(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "call" and frame.f_code.co_filename.startswith(PACKAGE):
            return local
        return None

    previous = sys.gettrace()
    sys.settrace(global_)
    try:
        operation()
    finally:
        sys.settrace(previous)
    return count


def history(n: int) -> Session:
    """A session of ``n`` surfaced user messages, its history derived once."""
    s = B.users(n)
    s.derive_messages()
    return s


def append_one(s: Session) -> Callable[[], object]:
    return lambda: s.append("user/message", B.user("one more"), surface_op="append")


def test_an_append_costs_the_same_at_any_history_length() -> None:
    short, long = history(SHORT), history(LONG)
    for _ in range(3):  # warm any per-session first-time work
        append_one(short)()
        append_one(long)()
    assert lines_run(append_one(long)) == lines_run(append_one(short))


def test_deriving_after_an_append_costs_the_same_at_any_history_length() -> None:
    costs = []
    for n in (SHORT, LONG):
        s = history(n)
        append_one(s)()
        costs.append(lines_run(s.derive_messages))
    assert costs[0] == costs[1]


def replace_op(s: Session, start: int, end: int) -> Callable[[], object]:
    """Append a summary that replaces surface nodes ``start`` .. ``end`` (seqs of ``B.users``)."""
    refs = list(range(start, end + 1))
    return lambda: s.append(
        "user/message", B.user("summary"), surface_op=B.replace(start, end), source_event_seqs=refs
    )


@pytest.mark.parametrize("k", [1, 4, 16])
def test_a_replace_of_k_nodes_costs_the_same_at_any_surface_length(k: int) -> None:
    costs = []
    for n in (SHORT, LONG):
        s = history(n)
        costs.append(lines_run(replace_op(s, n // 2, n // 2 + k - 1)))
    assert costs[0] == costs[1]


def test_a_replace_of_more_nodes_costs_more() -> None:
    """The measure sees work that grows: a control for the equalities above."""
    assert lines_run(replace_op(history(SHORT), 1, 40)) > lines_run(replace_op(history(SHORT), 1, 2))


@contextmanager
def projections() -> Iterator[list[int]]:
    """The seqs of the events the session projects to messages, in order (in the Python code,
    which projects through ``message_text``; the C fast paths are off within)."""
    with python_paths(), _counted() as seen:
        yield seen


@contextmanager
def _counted() -> Iterator[list[int]]:
    seen: list[int] = []
    original = session_module.message_text  # type: ignore[attr-defined]

    def counting(event: Any, data: Any = None) -> Any:
        seen.append(event.seq)
        return original(event, data)

    session_module.message_text = counting  # type: ignore[attr-defined]
    try:
        yield seen
    finally:
        session_module.message_text = original  # type: ignore[attr-defined]


def test_each_event_is_projected_once_and_a_replace_projects_only_its_new_node() -> None:
    with projections() as seen:
        s = B.users(10)
        s.derive_messages()
        assert sorted(seen) == list(range(10))
        append_one(s)()
        s.derive_messages()
        s.derive_messages()
        assert seen[10:] == [10]
        s.append("user/message", B.user("sum"), surface_op=B.replace(2, 6), source_event_seqs=[2, 3, 4, 5, 6])
        s.derive_messages()
        assert seen[11:] == [11]

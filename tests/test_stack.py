"""``_stack.with_headroom``: work that cannot be retried runs once, on a fresh stack when
the caller is near the recursion limit and here otherwise, with its result or exception."""

from __future__ import annotations

import sys
import threading

import pytest

from dsh_session._stack import HEADROOM, with_headroom
from tests.test_nesting_limit import DEEP, from_deep_stack


def _where(tag: object) -> tuple[object, threading.Thread]:
    return tag, threading.current_thread()


def test_from_a_shallow_stack_the_work_runs_here() -> None:
    assert with_headroom(_where, "x") == ("x", threading.current_thread())


def test_near_the_limit_the_work_runs_once_on_a_fresh_stack() -> None:
    assert sys.getrecursionlimit() - DEEP < HEADROOM
    calls: list[int] = []

    def work(tag: str) -> tuple[object, threading.Thread]:
        calls.append(1)
        return _where(tag)

    tag, thread = from_deep_stack(lambda: with_headroom(work, tag="y"))
    assert tag == "y"
    assert thread is not threading.current_thread()
    assert calls == [1]


def test_an_exception_of_the_work_reaches_the_caller_as_it_was_raised() -> None:
    problem = KeyError("gone")

    def fail() -> None:
        raise problem

    for frames in (0, DEEP):
        with pytest.raises(KeyError) as raised:
            from_deep_stack(lambda: with_headroom(fail), frames)
        assert raised.value is problem

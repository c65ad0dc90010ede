"""Running a walk over a value on a fresh stack, so its outcome never depends on the caller's.

Every walk over event data is bounded (values nest at most ``MAX_DEPTH``
containers deep, ``_nesting``), but a bounded recursive walk still fails when
the *caller* is already deep in its own stack. :func:`stack_safe` retries such
a walk -- once, and only after a ``RecursionError`` -- in a new thread, whose
stack starts empty: the result is the same from any caller. The walks it wraps
are pure (they build new values or compare), so running one again is safe.

Work that is not pure (a backend's load, which admits records as it reads and
may repair the store) cannot be retried; :func:`with_headroom` runs it once,
on a fresh stack from the start when the caller has too little of its own left.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["HEADROOM", "on_fresh_stack", "stack_safe", "with_headroom"]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


def on_fresh_stack(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` run in a new thread (an empty stack); its result or its exception."""
    outcome: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            outcome.append((True, fn(*args, **kwargs)))
        except BaseException as error:  # handed to the caller below
            outcome.append((False, error))

    thread = threading.Thread(target=run, name="dsh-session fresh stack", daemon=True)
    thread.start()
    thread.join()
    done, value = outcome[0]
    if not done:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]


def stack_safe(fn: F) -> F:
    """``fn``, retried on a fresh stack when it runs out of the caller's (see the module doc)."""

    @functools.wraps(fn)
    def safe(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RecursionError:
            return on_fresh_stack(fn, *args, **kwargs)

    return safe  # type: ignore[return-value]


#: The frames :func:`with_headroom` leaves to the work it runs: far more than a load's
#: deepest chain of calls (about 50, checks of the payloads at their nesting limit
#: included), so a chain that grows by a few calls still fits.
HEADROOM = 250


def with_headroom(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``, run once: here when the caller's stack has :data:`HEADROOM`
    frames left below the recursion limit, else on a fresh stack (:func:`on_fresh_stack`)."""
    try:
        sys._getframe(max(sys.getrecursionlimit() - HEADROOM, 0))
    except ValueError:  # the stack is not that deep: room enough here
        return fn(*args, **kwargs)
    return on_fresh_stack(fn, *args, **kwargs)

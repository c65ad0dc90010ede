"""Which code runs the hot paths: the C extension ``dsh_session._speedups``, or Python.

The C code is optional. Where it was built (``pip install`` compiles it when a C
compiler is at hand) and the environment variable ``DSH_SESSION_PURE`` is not
set to a non-empty value other than ``0``, a session's state lives in the C base
classes :data:`SessionCore` and :data:`SurfaceCore`, and the common appends,
derives and payload encodings run in C. Otherwise the same classes are plain
slotted Python classes and every path is Python's.

The Python code is complete on its own and is the reference for the C code:
each C fast path does exactly what the Python path would do, or declines having
changed nothing (``tests/test_speedups.py`` holds the two to the same results;
the stateful machines hold the C paths to the specification, and the planted
bugs of ``tests/mutants.py`` and mutation testing run on the Python code).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

_speedups: ModuleType | None
if os.environ.get("DSH_SESSION_PURE", "") not in ("", "0"):
    _speedups = None
else:
    try:
        from dsh_session import _speedups  # type: ignore[no-redef]
    except ImportError:  # not built (no C compiler at install time): Python alone
        _speedups = None

#: True when the C hot paths are in use.
ACCELERATED: bool = _speedups is not None


class PySurfaceCore:
    """A surface's state as slots (the Python twin of ``_speedups.SurfaceCore``)."""

    __slots__ = (
        "_folded",
        "_generation",
        "_head",
        "_log",
        "_messages",
        "_next",
        "_owned",
        "_prev",
        "_rank",
        "_snapshot",
        "_tail",
    )


class PySessionCore:
    """A session's state as slots (the Python twin of ``_speedups.SessionCore``)."""

    __slots__ = (
        "_append_hook",
        "_clock",
        "_derived_generation",
        "_derived_last",
        "_header",
        "_header_cursor",
        "_header_fold",
        "_id",
        "_last_time",
        "_log",
        "_messages",
        "_surface",
        "_trace",
    )


if TYPE_CHECKING:
    SurfaceCore = PySurfaceCore
    SessionCore = PySessionCore
else:
    SurfaceCore = PySurfaceCore if _speedups is None else _speedups.SurfaceCore
    SessionCore = PySessionCore if _speedups is None else _speedups.SessionCore

#: ``plain_text(value)``: the canonical text of a plain JSON value, or ``None`` (see
#: ``json_value.lean_text``, its Python twin); ``None`` when not accelerated.
plain_text: Callable[[object], bytes | None] | None = None if _speedups is None else _speedups.plain_text

#: ``rows_events(rows, start, kinds, kinds_limit, append_text, stored, raws, provenance)``: a
#: load's run of plain database rows as events (see ``persistence._bulk.rows_run``, its
#: Python twin), or ``None``; ``None`` when not accelerated.
rows_events: Callable[..., Any] | None = None if _speedups is None else _speedups.rows_events


def method_doc(name: str, python: Callable[..., Any]) -> str:
    """The docstring of a C method that stands in for the Python method ``python``: its
    signature (read by ``inspect``) and its docstring."""
    parts = ["$self"]
    for parameter in list(inspect.signature(python).parameters.values())[1:]:
        if parameter.kind is parameter.KEYWORD_ONLY and "*" not in parts:
            parts.append("*")
        default = parameter.default
        parts.append(parameter.name if default is parameter.empty else f"{parameter.name}={default!r}")
    return f"{name}({', '.join(parts)})\n--\n\n{inspect.cleandoc(python.__doc__ or '')}"


def configure(
    logged_event: type,
    surface_types: frozenset[str],
    append: str,
    canonical: int,
    views: type,
    replace: type,
    append_doc: str,
    derive_doc: str,
) -> None:
    """Hand the C code the objects it builds events and histories from, and its methods' docs."""
    if _speedups is not None:
        _speedups.configure(
            logged_event, surface_types, append, canonical, views, replace, append_doc, derive_doc
        )

"""Turning the C fast paths off for a test: the Python code, the reference for the C code, alone.

``dsh_session._speedups`` (see ``dsh_session/_accel.py``) runs the common appends, derives
and payload encodings when it is built. Tests that observe *how* the library does its work
-- lines of Python executed, Python functions patched into a known-bad variant -- run
inside :func:`python_paths`, where every operation takes the Python path; the stateful
machines run in both ways (``tests/test_speedups.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from dsh_session import json_value
from dsh_session import session as session_module

#: Each module global through which the library reaches a C fast path.
FAST_PATHS = ((session_module, "_fast_append"), (session_module, "_fast_derive"), (json_value, "_plain"))


@contextmanager
def python_paths() -> Iterator[None]:
    """Within the block, the library runs its Python code only (the C state classes stay)."""
    saved = [(module, name, getattr(module, name)) for module, name in FAST_PATHS]
    for module, name, _ in saved:
        setattr(module, name, None)
    try:
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)

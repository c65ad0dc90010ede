"""Turning the C fast paths off for a test: the Python code, the reference for the C code, alone.

``dsh_session._speedups`` (see ``dsh_session/_accel.py``) runs the common appends, derives
and payload encodings when it is built: ``Session.append`` and ``derive_messages`` are then
methods of its C base class, ``json_value`` encodes plain payloads with it and a SQLite or
PostgreSQL load takes its plain rows through it (``persistence._bulk``). Tests that
observe *how* the library does its work -- lines of Python executed, Python functions
patched into a known-bad variant -- run inside :func:`python_paths`, where every operation
takes the Python path; the stateful machines run with the C paths (``tests/test_speedups.py``
compares the two).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from dsh_session import Session, json_value
from dsh_session.persistence import _bulk

#: The Python methods kept beside the C ones, by the name they stand in for.
PYTHON_METHODS = (("append", "_python_append"), ("derive_messages", "_python_derive_messages"))


@contextmanager
def python_paths() -> Iterator[None]:
    """Within the block, the library runs its Python code only (the C state classes stay).
    Blocks nest: each puts back what it found."""
    saved_plain, saved_rows = json_value._plain, _bulk._rows_events
    found = {name: Session.__dict__.get(name) for name, _ in PYTHON_METHODS}
    json_value._plain = _bulk._rows_events = None
    for name, python in PYTHON_METHODS:
        if hasattr(Session, python):
            setattr(Session, name, getattr(Session, python))
    try:
        yield
    finally:
        json_value._plain, _bulk._rows_events = saved_plain, saved_rows
        for name, _ in PYTHON_METHODS:
            if found[name] is not None:
                setattr(Session, name, found[name])
            elif name in Session.__dict__:
                delattr(Session, name)  # the C method of the base answers again

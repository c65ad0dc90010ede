"""Every rule a would-be seed breaks, not only the first.

``Session(seed=...)`` and a backend's load refuse a log at its first bad
record; a person checking a log wants all of them. :func:`seed_violations`
judges every record with the seed's rules (``_admission``) and recovers after
each refusal by the rule of the specification
(``dsh_spec.validation.seed_violations``): the refused record keeps its place
-- the record at index ``i`` is always judged as seq ``i`` -- and is left out
of what later records are judged against: not on the surface, not a seq that
``sourceEventSeqs`` may name (``PROVENANCE_UNKNOWN_SEQ``), as ``check_log``
does. The list is empty exactly when the records seed a session, and its first
item is the error that seeding raises.
"""

from __future__ import annotations

from collections.abc import Iterable

from dsh_session import _admission
from dsh_session.errors import InvalidEventError
from dsh_session.invariants import Violation
from dsh_session.surface import SurfaceManager

__all__ = ["seed_violations"]


def seed_violations(records: Iterable[object]) -> list[Violation]:
    """Every record of ``records`` that a seed refuses, with the first rule it breaks
    (``code``, ``seq`` = its index, ``message``), in log order; ``[]`` when it seeds a session.

    Records are ``Event`` objects or JSON mappings, as for ``Session(seed=...)``;
    anything else is ``MALFORMED_EVENT``.
    """
    surface = SurfaceManager(())  # spans and folds only: its log is never read
    known: set[int] = set()
    found: list[Violation] = []
    for index, record in enumerate(records):
        try:
            kind, time, data, op, refs = _admission.read_record(index, record)
            event, span = _admission.admit(surface, index, kind, time, data, op, refs, known=known)
        except InvalidEventError as error:
            kind = error.event_type
            found.append(Violation(error.code, index, error.message, kind if isinstance(kind, str) else None))
            continue
        surface._fold(event, span)  # the span admission found: not looked up again
        known.add(index)
    return found

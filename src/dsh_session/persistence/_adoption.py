"""Whether a live session owns what a backend stores under its id (the coordinator's adoption rule).

The rule (``dsh_spec.adoption``): nothing stored -- the session is new; a
stored log with the live header and a prefix of the live events -- the session
continues it; anything else is another session with the same id. "Same" is
JSON semantics: key order aside, ``1 == 1.0`` but ``true != 1``, absent is not
``null`` nor ``0``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, no_type_check

from dsh_session._stack import stack_safe
from dsh_session.errors import Code
from dsh_session.event import SESSION_FORMAT_VERSION, Event, Replace, SessionHeader
from dsh_session.persistence.errors import IncompatibleStoreError, SessionCollisionError
from dsh_session.persistence.protocol import StoredSession

#: Header fields as (attribute, JSON name), in the order the reference writes them.
_FIELDS = (
    ("version", "version"),
    ("id", "id"),
    ("created_at", "createdAt"),
    ("cwd", "cwd"),
    ("parent_session", "parentSession"),
    ("seed_length", "seedLength"),
)


def durable_prefix(
    stored: StoredSession | None, header: SessionHeader, events: Sequence[Event]
) -> int | None:
    """How many of the live ``events`` ``stored`` already holds; ``None`` when nothing is stored.

    Raises :class:`IncompatibleStoreError` (``STORE_VERSION_UNSUPPORTED``) or
    :class:`SessionCollisionError` (``ID_COLLISION_CWD``, ``ID_COLLISION_HEADER``,
    ``ID_COLLISION_LOG``) when the session may not be bound.
    """
    sid = header.id
    if not _same(header.version, SESSION_FORMAT_VERSION):
        raise IncompatibleStoreError(
            Code.STORE_VERSION_UNSUPPORTED,
            f"session {sid!r}: the live header has format version {header.version!r}; only "
            f"{SESSION_FORMAT_VERSION} can be stored",
        )
    if stored is None:
        return None
    found = stored.header
    if not _same(found.version, SESSION_FORMAT_VERSION):
        raise IncompatibleStoreError(
            Code.STORE_VERSION_UNSUPPORTED,
            f"session {sid!r}: the stored log has format version {found.version!r}; open it with the "
            "build that wrote it",
        )
    if not _same(found.cwd, header.cwd):
        raise SessionCollisionError(
            Code.ID_COLLISION_CWD,
            f"session {sid!r} is stored for cwd {found.cwd!r}, the live session runs in {header.cwd!r}: "
            "another session has this id (id collision); give the live session another id",
            session_id=sid,
        )
    differing = [name for attr, name in _FIELDS if not _same(getattr(found, attr), getattr(header, attr))]
    if differing:
        detail = ", ".join(
            f"{name} stored {getattr(found, attr)!r} / live {getattr(header, attr)!r}"
            for attr, name in _FIELDS
            if name in differing
        )
        raise SessionCollisionError(
            Code.ID_COLLISION_HEADER,
            f"session {sid!r}: the stored header differs from the live session's ({detail}): another "
            "session has this id (id collision); give the live session another id",
            session_id=sid,
        )
    kept = stored.events
    for seq, event in enumerate(kept[: len(events)]):
        if not same_event(event, events[seq]):
            raise SessionCollisionError(
                Code.ID_COLLISION_LOG,
                f"session {sid!r}: stored event {seq} ({event.type}) is not the live session's event "
                f"{seq} ({events[seq].type}): another session has this id (id collision); give the "
                "live session another id, or resume the stored one",
                session_id=sid,
                seq=seq,
            )
    if len(kept) > len(events):
        raise SessionCollisionError(
            Code.ID_COLLISION_LOG,
            f"session {sid!r}: the stored log has {len(kept)} event(s), the live session only "
            f"{len(events)}: another session has this id (id collision); give the live session "
            "another id, or resume the stored one",
            session_id=sid,
            seq=len(events),
        )
    return len(kept)


@stack_safe
def same_event(a: Event, b: Event) -> bool:
    """The same event as JSON (``key_order`` aside); from any caller's stack (values nest
    at most ``MAX_DEPTH`` deep, so the walk fits in a fresh one)."""
    if a is b:
        return True
    if a.type != b.type or not _same(a.seq, b.seq) or not _same(a.time, b.time):
        return False
    if not _same(a.data, b.data):
        return False
    refs_a, refs_b = a.source_event_seqs, b.source_event_seqs
    if refs_a is None or refs_b is None:
        if refs_a is not refs_b:
            return False
    elif not _same(list(refs_a), list(refs_b)):
        return False
    op_a, op_b = a.surface_op, b.surface_op
    if isinstance(op_a, Replace) and isinstance(op_b, Replace):
        return bool(_same(op_a.start, op_b.start) and _same(op_a.end, op_b.end))
    return type(op_a) is type(op_b) and op_a == op_b


@no_type_check  # recursive walk: no run-time type-checking wrapper per level (tests)
def _same(a: Any, b: Any) -> bool:
    """JSON equality as JavaScript sees it (see the module docstring)."""
    if a is b:
        return True
    if type(a) is bool or type(b) is bool:
        return False  # not the same object, so not the same boolean (or one is no boolean)
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(key in b and _same(value, b[key]) for key, value in a.items())
    return False

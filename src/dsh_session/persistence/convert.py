"""Copying sessions from one backend to another, checked.

:func:`copy_sessions` loads each session from the source (as ``load`` returns
it: torn tail cut, an open turn closed), registers it in the destination with
the same header and stores its events there in one batch -- so each session is
copied whole or not at all. With ``verify`` (the default) every copy is loaded
back from the destination and must equal the source: the same header, the same
events (JSON values: key order is each backend's own, ``1`` is ``1.0``, but
``true`` is never ``1``) and the same derived message history. Otherwise
:class:`CopyMismatchError` (``COPY_MISMATCH``) names the session and the first
difference.

Any backend works on either side (``SessionBackend``): JSONL to SQLite, SQLite
to JSONL, memory to either, and any later backend.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from dsh_session.errors import Code
from dsh_session.event import Event, SessionHeader
from dsh_session.persistence._adoption import _same as same_json
from dsh_session.persistence._adoption import same_event
from dsh_session.persistence.errors import PersistenceError
from dsh_session.persistence.protocol import SessionBackend
from dsh_session.session import Session

__all__ = ["CopyMismatchError", "copy_sessions"]


class CopyMismatchError(PersistenceError):
    """``COPY_MISMATCH``: a copied session does not load back equal to its source.

    ``session_id`` names the session; the copy stays in the destination so that
    it can be examined (remove it by hand before copying again).
    """

    def __init__(self, session_id: str, message: str, *, seq: int | None = None) -> None:
        super().__init__(Code.COPY_MISMATCH, message, seq=seq)
        self.session_id = session_id


def copy_sessions(
    src: SessionBackend,
    dst: SessionBackend,
    ids: Iterable[str] | None = None,
    *,
    verify: bool = True,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[str]:
    """Copy sessions ``ids`` (default: every session ``src`` lists) from ``src`` to ``dst``.

    Returns the ids copied, in order. ``progress(id, done, total)`` is called
    after each session is stored (and verified). Errors of either backend
    propagate unchanged (for example ``SESSION_ALREADY_EXISTS`` when ``dst``
    already holds the id, ``SESSION_NOT_FOUND`` for an id ``src`` lacks);
    sessions copied before the error stay copied.
    """
    wanted = [header.id for header in src.list()] if ids is None else list(ids)
    total = len(wanted)
    done: list[str] = []
    for session_id in wanted:
        header, events = src.load(session_id)
        dst.create(header)
        if events:
            dst.append(session_id, events)
        if verify and events:
            _verify(dst, session_id, header, events)
        done.append(session_id)
        if progress is not None:
            progress(session_id, len(done), total)
    return done


def _verify(dst: SessionBackend, session_id: str, header: SessionHeader, events: Sequence[Event]) -> None:
    """Load the copy back from ``dst`` and compare it with what was copied."""
    copy_header, copy_events = dst.load(session_id)
    if copy_header != header:
        raise CopyMismatchError(
            session_id,
            f"session {session_id!r}: the copy's header {copy_header.to_json()} differs from the "
            f"source's {header.to_json()}",
        )
    if len(copy_events) != len(events):
        raise CopyMismatchError(
            session_id,
            f"session {session_id!r}: the copy holds {len(copy_events)} event(s), the source {len(events)}",
        )
    for mine, theirs in zip(events, copy_events, strict=True):
        if not same_event(mine, theirs):  # JSON values: a boolean is never a number, unlike ==
            raise CopyMismatchError(
                session_id,
                f"session {session_id!r}: event seq {mine.seq} of the copy differs from the source's",
                seq=mine.seq,
            )
    ours = Session(session_id, seed=events, header=header).derive_messages().to_json()
    copied = Session(session_id, seed=copy_events, header=copy_header).derive_messages().to_json()
    if not same_json(ours, copied):
        raise CopyMismatchError(
            session_id, f"session {session_id!r}: the copy derives another message history than the source"
        )

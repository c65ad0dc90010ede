"""Copying sessions from one backend to another, verified: the library side of
``dsh-session convert``.

:func:`copy_sessions` works between any two :class:`SessionBackend` instances
(memory, JSONL, SQLite, PostgreSQL, either way). Each session is loaded from
the source -- so a source log that needs a crash repair is repaired there
first, as any load does -- and written to the destination as one batch, which
every backend publishes atomically: a session is in the destination whole or
not at all. With ``verify`` each copied session is then loaded back from the
destination and compared with what the source loaded: the header, every
event's fields (as JSON values: key order aside, ``1`` equals ``1.0``, ``true``
is not ``1``), and the derived messages; a difference raises ``COPY_MISMATCH``.
:func:`verify_copy` makes that comparison alone, for a copy made earlier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from dsh_session.errors import Code
from dsh_session.persistence._adoption import same_event
from dsh_session.persistence.errors import CopyMismatchError, SessionExistsError
from dsh_session.persistence.protocol import SessionBackend, StoredSession
from dsh_session.session import Session

__all__ = ["CopyMismatchError", "copy_sessions", "verify_copy"]


def copy_sessions(
    src: SessionBackend,
    dst: SessionBackend,
    ids: Iterable[str] | None = None,
    *,
    verify: bool = True,
    progress: Callable[[str, int, int], None] | None = None,
    on_stage: Callable[[str, str, int], None] | None = None,
) -> list[str]:
    """Copy the sessions ``ids`` (default: every session ``src.list()`` shows, by id) from
    ``src`` to ``dst``; return the ids copied, in order (an id given twice is copied once).

    Nothing is copied when ``dst`` already holds any of them
    (``SESSION_ALREADY_EXISTS``, naming them). An unknown id raises
    ``SESSION_NOT_FOUND`` when its turn comes; the sessions before it stay
    copied. With ``verify`` (the default) every copied session must load back
    equal from ``dst`` (``COPY_MISMATCH`` otherwise; the copy stays in ``dst``
    for inspection). ``progress(session_id, done, total)`` is called after each
    session. ``on_stage(session_id, stage, events)`` is called as each stage of a
    session's copy ends -- ``"loaded"`` from ``src``, ``"written"`` to ``dst``,
    ``"verified"`` (with ``verify``) -- with the session's event count, so that
    progress can be shown in events (one large session is one batch: its stages
    are the steps there are). A stored session without events (possible in a
    database whose rows were deleted by hand) is registered in ``dst`` and, like
    any session without events, leaves no trace there.
    """
    wanted = _wanted(src, ids)
    present = sorted({header.id for header in dst.list()}.intersection(wanted))
    if present:
        shown = ", ".join(map(repr, present[:5])) + (
            f" and {len(present) - 5} more" if len(present) > 5 else ""
        )
        raise SessionExistsError(
            Code.SESSION_ALREADY_EXISTS,
            f"the destination {describe(dst)} already holds {len(present)} of the sessions to copy "
            f"({shown}); nothing was copied -- leave them out (ids=...) or copy into an empty store",
        )
    for done, session_id in enumerate(wanted, start=1):
        stored = src.load(session_id)
        count = len(stored.events)
        if on_stage is not None:
            on_stage(session_id, "loaded", count)
        dst.create(stored.header)
        if stored.events:
            dst.append(session_id, stored.events)
        if on_stage is not None:
            on_stage(session_id, "written", count)
        if stored.events and verify:
            check_copy(stored, dst.load(session_id), src=src, dst=dst)
        if verify and on_stage is not None:
            on_stage(session_id, "verified", count)
        if progress is not None:
            progress(session_id, done, len(wanted))
    return wanted


def verify_copy(src: SessionBackend, dst: SessionBackend, ids: Iterable[str] | None = None) -> list[str]:
    """Check that the sessions ``ids`` (default: every session ``src.list()`` shows) load from
    ``dst`` exactly as they load from ``src``, as :func:`copy_sessions` checks a copy it has just
    made; return the ids compared, in order.

    Raises ``COPY_MISMATCH`` for the first session that differs and ``SESSION_NOT_FOUND``
    for one that either side lacks. A source session without events is skipped: a copy
    stores nothing for it. Both loads repair what they read, as every load does.
    """
    wanted = _wanted(src, ids)
    for session_id in wanted:
        original = src.load(session_id)
        if original.events:
            check_copy(original, dst.load(session_id), src=src, dst=dst)
    return wanted


def _wanted(src: SessionBackend, ids: Iterable[str] | None) -> list[str]:
    """The ids to copy or compare: ``ids`` without repeats, in order, or every session ``src`` lists."""
    return [header.id for header in src.list()] if ids is None else list(dict.fromkeys(ids))


def check_copy(
    original: StoredSession, copy: StoredSession, *, src: SessionBackend, dst: SessionBackend
) -> None:
    """Raise ``COPY_MISMATCH`` unless ``copy`` loads exactly as ``original`` did."""
    session_id = original.header.id

    def mismatch(what: str, seq: int | None = None) -> CopyMismatchError:
        return CopyMismatchError(
            session_id,
            f"session {session_id!r} copied from {describe(src)} to {describe(dst)} does not load back "
            f"equal: {what}; the copy is left in the destination for inspection -- remove it there and "
            "report the difference",
            seq=seq,
        )

    if copy.header != original.header:
        raise mismatch(f"the header differs ({original.header!r} became {copy.header!r})")
    for before, after in zip(original.events, copy.events, strict=False):
        if not same_event(before, after):
            raise mismatch(f"the event at seq {before.seq} differs", before.seq)
    if len(copy.events) != len(original.events):
        raise mismatch(f"{len(original.events)} event(s) became {len(copy.events)}")
    before_messages = _messages(original)
    after_messages = _messages(copy)
    if before_messages != after_messages:
        first = next(
            (i for i, (a, b) in enumerate(zip(before_messages, after_messages, strict=False)) if a != b),
            min(len(before_messages), len(after_messages)),
        )
        raise mismatch(f"the derived messages differ from message {first} on")


def _messages(stored: StoredSession) -> Sequence[bytes]:
    session = Session(stored.header.id, seed=stored.events, header=stored.header)
    return session.derive_messages().texts()


def describe(backend: SessionBackend) -> str:
    """A backend's kind and where its store is, for messages."""
    where = getattr(backend, "path", None) or getattr(backend, "root", None)
    return f"{type(backend).__name__}({where})" if where else type(backend).__name__

"""A session: its append-only event log, the surface over it and the derived history."""

from __future__ import annotations

import time as _time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from dsh_session import _accel, _admission
from dsh_session._admission import MISSING
from dsh_session.errors import InvalidEventError, InvariantViolationError
from dsh_session.event import (
    APPEND,
    NULL,
    SURFACE_TYPES,
    Event,
    JsonNull,
    LoggedEvent,
    Replace,
    SessionHeader,
    SurfaceOp,
)
from dsh_session.invariants import StructureTrace
from dsh_session.json_value import CANONICAL, lean_text
from dsh_session.projection import Message, derive_event_message, message_text
from dsh_session.request_header import EpochHeader, HeaderFold
from dsh_session.surface import SurfaceManager
from dsh_session.views import EventLog, MessageList


def now_ms() -> int:
    """Milliseconds since the epoch, like JavaScript's ``Date.now()``."""
    return _time_ns() // 1_000_000


_time_ns = _time.time_ns
_EXACT = 2**53


class Session(_accel.SessionCore):
    """One session: an append-only log of admitted events.

    Every event is checked before it is stored (see ``docs/errors.md`` for the
    rules and their codes); a refused event raises
    :class:`~dsh_session.InvalidEventError` and changes nothing. Nothing this
    object returns can be used to change its log or its cached history.

    ``seed`` is a list of event records (``Event`` objects or JSON mappings)
    held to the same rules as appends; ``clock`` supplies ``time`` for appends.
    With ``invariants=True`` every append and seed event must also keep the
    log's turn/step structure (``docs/errors.md``, "Log invariants"); one that
    does not raises :class:`~dsh_session.InvariantViolationError` and is not
    stored.
    """

    # The state lives in the base's slots (C fields where dsh_session._speedups is built).
    __slots__ = ()

    def __init__(
        self,
        id: str,
        seed: Iterable[Event | Mapping[str, Any]] | None = None,
        header: SessionHeader | None = None,
        *,
        clock: Callable[[], int] | None = None,
        invariants: bool = False,
    ) -> None:
        self._id = id
        self._trace = StructureTrace() if invariants else None
        #: ``None``: the wall clock in milliseconds (read inline, the common case).
        self._clock = clock
        self._last_time: object = None
        self._log: list[Event] = []
        self._surface = SurfaceManager(self._log, owned=True)
        #: The canonical JSON text of each derived message, head to tail.
        self._messages: list[bytes] = []
        self._derived_generation = -1
        #: The seq of the last surface node whose message is in ``_messages``.
        self._derived_last: int | None = None
        #: Set by a SessionStore while the session is entered: called after each append.
        self._append_hook: Callable[[Session, Event], None] | None = None
        self._header_fold = HeaderFold()
        self._header_cursor = 0
        log = self._log
        plain = invariants is False
        try:
            for index, record in enumerate(seed or ()):
                if plain and record.__class__ is LoggedEvent and _admission.kept_as_is(record, index):
                    log.append(record)  # every rule it must pass holds already: keep it as it is
                    continue
                kind, time, data, op, refs = _admission.read_record(index, record)
                self._admit(kind, time, data, op, refs, record)
        except InvalidEventError as error:
            error.session_id = id
            raise
        if header is None:
            header = SessionHeader(id=id, created_at=now_ms() if clock is None else clock())
        self._header = header

    # -- identity ---------------------------------------------------------------

    @property
    def id(self) -> str:
        return self._id

    @property
    def header(self) -> SessionHeader:
        return self._header

    @property
    def seq(self) -> int:
        """The number of events in the log, which is the seq of the next one."""
        return len(self._log)

    @property
    def events(self) -> EventLog[Event]:
        """The log as of now: an immutable view that later appends do not change."""
        return EventLog(self._log)

    @property
    def surface(self) -> SurfaceManager:
        return self._surface

    @property
    def invariants(self) -> bool:
        """True when every append is checked against the log invariants before it is stored."""
        return self._trace is not None

    # -- writing --------------------------------------------------------------------

    def append(
        self,
        type: str,
        data: Any,
        *,
        surface_op: SurfaceOp | Mapping[str, Any] | str | JsonNull | None = None,
        source_event_seqs: Iterable[int] | JsonNull | None = None,
    ) -> Event:
        """Admit one event at the end of the log and return it.

        ``surface_op`` is ``"append"``, a :class:`~dsh_session.Replace` or
        ``{"op": "replace", "start": s, "end": e}``; ``None`` (the default) means
        no marker, and :data:`~dsh_session.NULL` a marker that is JSON ``null``
        (refused as a record holding it is). ``data`` and ``source_event_seqs``
        are copied, so changing them afterwards changes nothing here.
        """
        clock = self._clock
        time = _time_ns() // 1_000_000 if clock is None else clock()
        return self._append_at(time, type, data, surface_op, source_event_seqs)

    def _append_at(
        self, time: Any, type: Any, data: Any, surface_op: Any, source_event_seqs: Any
    ) -> LoggedEvent:
        """:meth:`append` of an event whose time has been read: the C ``append`` goes on here
        for every event it leaves to the Python code."""
        clock = self._clock
        if time == self._last_time and time.__class__ is int:
            time = self._last_time  # one int object for the events of a millisecond
        elif time.__class__ is int:
            self._last_time = time
        if self._trace is None and self._surface._folded is None:
            text = lean_text(data)  # None: the careful pass decides, below
            if text is not None:
                if (
                    surface_op is None
                    and source_event_seqs is None
                    and type.__class__ is str
                    and type not in SURFACE_TYPES
                    and type
                    and (clock is None or (time.__class__ is int and -_EXACT <= time <= _EXACT))
                ):
                    # The common case, a log-only event: the checks above are every
                    # rule it must pass but the payload's, and the lean pass took that.
                    log = self._log
                    event: LoggedEvent = LoggedEvent(type, len(log), time, text)
                    log.append(event)
                else:
                    event = self._admit_encoded(type, time, data, text, surface_op, source_event_seqs)
                hook = self._append_hook
                if hook is not None:
                    hook(self, event)
                return event
        op = _op(surface_op)
        try:
            event = self._admit(type, time, data, op, _refs(source_event_seqs))
        except InvalidEventError as error:
            error.session_id = self._id
            raise
        hook = self._append_hook
        if hook is not None:
            hook(self, event)
        return event

    def _admit_encoded(
        self, kind: object, time: object, data: object, text: bytes, surface_op: object, refs: object
    ) -> LoggedEvent:
        """Admit an event whose payload the lean encoder took (so ``data`` is canonical
        as it stands), on a surface in step with the log and with no invariants to keep."""
        log = self._log
        surface = self._surface
        op = _op(surface_op)
        try:
            event, span = _admission.admit(surface, len(log), kind, time, data, op, _refs(refs), text=text)
        except InvalidEventError as error:
            error.session_id = self._id
            raise
        log.append(event)
        if event.surface_op is not None:
            surface._fold_event(event, span)
            # Project now, from the value at hand, rather than decode the text later.
            surface._messages[event.seq] = message_text(event, data)
        return event

    def _admit(
        self, kind: object, time: object, data: object, op: object, refs: object, given: object = None
    ) -> LoggedEvent:
        """Admit one event; ``given`` is the seed record it was read from, kept in the log
        in place of the event admission made when the two are the same field for field
        (a loaded log's events then serve the session too: one object, not two)."""
        surface = self._surface
        log = self._log
        surface.sync()
        event, span = _admission.admit(surface, len(log), kind, time, data, op, refs)
        if type(given) is LoggedEvent and _admission.same_event(event, given):
            event = given
        trace = self._trace
        if trace is not None:
            problem = trace.check(event)
            if problem is not None:
                code, message = problem
                raise InvariantViolationError(code, message, seq=event.seq, event_type=event.type)
        log.append(event)
        surface._fold_event(event, span)
        if trace is not None:
            trace.advance(event)
        return event

    # -- reading ----------------------------------------------------------------------

    def derive_messages(self) -> MessageList[Message]:
        """The message history: each surface node's message, head to tail.

        Each message is kept as its canonical JSON text; reading an item of the
        result decodes a fresh, plain copy (``MessageList.text()`` gives the
        whole history as JSON text without decoding).

        Costs O(nodes new since the last call) while no replace happened; after a
        replace it re-links the cached messages without projecting them again.
        """
        surface = self._surface
        surface.sync()
        generation = surface._generation
        after = surface._next
        if generation != self._derived_generation:
            self._messages = []
            self._derived_generation = generation
            self._derived_last = None
            seq = surface._head
        else:
            last = self._derived_last
            seq = surface._head if last is None else after[last]
        messages = self._messages
        keep = messages.append
        cache = surface._messages
        log = self._log
        last = self._derived_last
        try:
            while seq is not None:
                text = cache.get(seq, _UNPROJECTED)
                if text is _UNPROJECTED:
                    text = cache[seq] = message_text(log[seq])
                if text is not None:
                    keep(text)
                last = seq
                seq = after[seq]
        finally:
            self._derived_last = last  # consistent with ``messages`` even if a projection raised
        return MessageList(messages)

    def request_header(self) -> EpochHeader | None:
        """The request header in force after the last event (``None`` before any header event).

        Folds only the events since the last call. Raises
        :class:`~dsh_session.RequestHeaderError` while the last snapshot is
        malformed or a delta after it cannot be applied; a later valid snapshot
        clears that. Nothing in the log is frozen or copied by this call.
        """
        fold, log = self._header_fold, self._log
        for index in range(self._header_cursor, len(log)):
            fold.feed(log[index])
        self._header_cursor = len(log)
        return fold.result()

    def derive_event_message(self, seq: int | Event) -> Message | None:
        """The message the event at ``seq`` projects to, regardless of the surface
        (``None`` when its type has none); ``IndexError`` when the log has no such seq.

        An :class:`~dsh_session.Event` is taken as well, for the 0.1 form; the
        module-level :func:`~dsh_session.derive_event_message` takes any event.
        """
        if isinstance(seq, Event):
            return derive_event_message(seq)
        log = self._log
        if seq.__class__ is not int:
            if not isinstance(seq, int) or isinstance(seq, bool):
                raise TypeError(f"seq must be an int, not {type(seq).__name__}")
            seq = int(seq)
        if not 0 <= seq < len(log):
            raise IndexError(f"session {self._id!r} has no event at seq {seq} (seqs 0..{len(log) - 1})")
        return derive_event_message(log[seq])

    def __repr__(self) -> str:
        return f"<Session {self._id!r} events={len(self._log)}>"


#: Marks a surface node whose message has not been projected yet.
_UNPROJECTED: Any = object()

if _accel.ACCELERATED and not TYPE_CHECKING:
    # ``append`` and ``derive_messages`` are then the C methods of the base: they do the same
    # work, and go on in ``_append_at`` and ``_python_derive_messages`` for what they leave to
    # Python. The Python methods stay, for the tests that compare the two.
    Session._python_append = Session.append
    Session._python_derive_messages = Session.derive_messages
    del Session.append, Session.derive_messages
    _accel.configure(
        LoggedEvent,
        SURFACE_TYPES,
        APPEND,
        CANONICAL,
        MessageList,
        Replace,
        _accel.method_doc("append", Session._python_append),
        _accel.method_doc("derive_messages", Session._python_derive_messages),
    )


def _op(surface_op: object) -> object:
    """``surfaceOp`` as admission takes it (:data:`MISSING` when absent, ``None`` for NULL)."""
    if surface_op is None:
        return MISSING
    return None if surface_op is NULL else surface_op


def _refs(refs: object) -> object:
    """``sourceEventSeqs`` as admission takes it (:data:`MISSING` when absent); whatever the
    caller gave, which admission judges (so the annotation is ``object``, not ``append``'s)."""
    if refs is None:
        return MISSING
    if isinstance(refs, JsonNull):
        return None
    if refs.__class__ is list:
        return refs  # admission reads it once into a tuple of its own
    return _as_list(refs)


def _as_list(refs: object) -> object:
    if isinstance(refs, list | tuple):
        return list(refs)
    if isinstance(refs, str | bytes | Mapping):
        return refs  # refused by admission as malformed
    try:
        return list(refs)  # type: ignore[call-overload]  # any iterable; TypeError if not one
    except TypeError:
        return refs

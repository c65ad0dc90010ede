"""Holding stored and appended events to the seed's rules, one event at a time.

A backend admits every event it loads or is asked to append with exactly the
rules ``Session(seed=...)`` applies (``_admission.read_record`` then
``_admission.admit``), so that a stored log can always seed a session. Only the
surface is kept -- not the events -- so the cost of tracking a session is its
surface, not its log.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from typing import Any

import msgspec

from dsh_session import _admission
from dsh_session.errors import InvalidEventError
from dsh_session.event import APPEND, EVENT_KEY_ORDER, Event, LoggedEvent
from dsh_session.json_value import CANONICAL, MAX_DEPTH, STORED, STORED_RECORD, lean_text
from dsh_session.persistence._codec import js_envelope
from dsh_session.persistence._fast_freeze import Unusual, freeze_parsed
from dsh_session.persistence._shapes import payloads_fit, where
from dsh_session.surface import SurfaceManager


class LogAdmitter:
    """The surface of a log as far as it has been admitted, and the next seq."""

    __slots__ = ("_last_time", "_next", "_surface")

    def __init__(self) -> None:
        # The manager never reads its (empty) log: admit() only asks it for spans,
        # and events are folded in explicitly below.
        self._surface = SurfaceManager(())
        self._next = 0
        self._last_time: object = None

    @property
    def next_seq(self) -> int:
        return self._next

    def admit(self, record: Event | Mapping[str, Any], text: bytes | None = None) -> Event:
        """The admitted event for ``record`` (an ``Event`` or a JSON object) at the next seq.

        ``text``, when given, is the canonical text of the record's ``data``,
        which is then canonical as it stands (the loaders' fast path). Raises
        :class:`~dsh_session.InvalidEventError` exactly as seeding would. A
        record's key order is kept on the event when it is not the usual one.
        """
        seq = self._next
        if text is None and type(record) is LoggedEvent and _admission.kept_as_is(record, seq):
            # A log-only event a log holds already (a batch appended from a session): every
            # rule it must pass holds, and admitting it would make the same event.
            self._last_time = record.time
            self._next = seq + 1
            return record
        kind, time, data, op, refs = _admission.read_record(seq, record)
        if time == self._last_time and time.__class__ is int:
            time = self._last_time  # one int object for the events of a millisecond
        elif time.__class__ is int:
            self._last_time = time
        event, span = _admission.admit(self._surface, seq, kind, time, data, op, refs, text=text)
        if event.surface_op is not None:
            self._surface._fold_event(event, span)
        self._next = seq + 1
        order = record.key_order if isinstance(record, Event) else _key_order(record)
        if order is not None:
            event = msgspec.structs.replace(event, key_order=order)
        return event


    def admit_parsed(self, record: dict[str, Any], stored: bytes | None = None, whole: bool = False) -> Event:
        """:meth:`admit` for a record fresh from the stored-text parser (a load's hot path);
        see :meth:`_admit_parsed`. A record refused while its envelope holds an int beyond
        +-2**53 (which orjson reads exactly) is judged again as JavaScript reads it
        (``_codec.js_envelope``): the reference rounds such a number to a double."""
        try:
            return self._admit_parsed(record, stored, whole)
        except InvalidEventError:
            wide = js_envelope(record)
            if wide is None:
                raise
        return self._admit_parsed(wide)

    def _admit_parsed(
        self, record: dict[str, Any], stored: bytes | None = None, whole: bool = False
    ) -> Event:
        """The body of :meth:`admit_parsed`.

        A record with the keys ``append`` writes, in its order, whose payload the
        lean pass takes goes to the rules directly (a log-only one is built at
        once); every other takes :meth:`admit`'s way, with JavaScript's reading
        of numbers (``_fast_freeze``) when the lean pass cannot take its payload.

        ``stored``, when given, is the text the store holds for the payload (what
        the parser read ``data`` from; with ``whole``, the whole record's text): the
        event keeps it as it is, and it is put in canonical form when first needed
        (``LoggedEvent._form``), so a load encodes nothing. A
        payload that may nest too deep is checked now.
        """
        seq = self._next
        if tuple(record) in _USUAL_ORDERS and record["seq"] == seq and record["seq"].__class__ is int:
            text: bytes | None
            if stored is not None and stored.count(b"[") + stored.count(b"{") <= MAX_DEPTH:
                # Brackets (in strings too) bound the depth: not too deep.
                text, form = bytes(stored), STORED_RECORD if whole else STORED
            else:
                text, form = lean_text(record["data"]), CANONICAL
            if text is not None:
                kind, time = record["type"], record["time"]
                shared = KINDS.get(kind) if kind.__class__ is str else kind
                if shared is None and len(KINDS) < KINDS_LIMIT:
                    KINDS[kind] = kind
                elif shared is not None:
                    kind = shared  # one string object per event type
                if time == self._last_time and time.__class__ is int:
                    time = self._last_time  # one int object for the events of a millisecond
                elif time.__class__ is int:
                    self._last_time = time
                if len(record) == 4 and _admission.plain_log_only(kind, time):
                    self._next = seq + 1
                    return LoggedEvent(kind, seq, time, text, None, None, None, form)
                event, span = _admission.admit(
                    self._surface,
                    seq,
                    kind,
                    time,
                    record["data"],
                    record.get("surfaceOp", _admission.MISSING),
                    record.get("sourceEventSeqs", _admission.MISSING),
                    text=text,
                    form=form,
                )
                if event.surface_op is not None:
                    self._surface._fold_event(event, span)
                self._next = seq + 1
                return event
        if "data" in record and lean_text(record["data"]) is None:
            with contextlib.suppress(Unusual):
                record = {**record, "data": freeze_parsed(record["data"])}
        return self.admit(record)


    def admit_run(
        self,
        kinds: Sequence[Any],
        times: Sequence[Any],
        payloads: Sequence[Any],
        on_surface: list[int],
        ops: list[Any],
        refs: list[Any],
        append: Any,
    ) -> list[Event] | None:
        """The events of a run of stored records at the next seqs, admitted at once (a load's
        bulk path, ``persistence._bulk``), or ``None`` -- nothing changed -- unless every one
        is a record the one-at-a-time path takes as it stands and makes the same event of.

        The sequences hold each record's type (a ``str``), time (an ``int``) and the raw text of
        its payload (JSON that parses, read as ``JSON.parse`` reads it); ``on_surface`` the
        indices of the records of a surface type, ``ops`` and ``refs`` their surface
        operations (equal to ``append`` for an append) and provenances (a list of ints, or
        ``None``). The caller has made sure no other record carries a surface field. Then
        each surface record must append, name distinct earlier seqs and carry a payload of
        the shape its type needs, and no payload may nest too deep.
        """
        count = len(kinds)
        if not count:
            return []
        start = self._next
        kind_set = set(kinds)
        if "" in kind_set or any(kind.__class__ is not str for kind in kind_set):
            return None
        if min(times) < -_EXACT or max(times) > _EXACT:
            return None
        ops_out: list[Any] = [None] * count
        refs_out: list[Any] = [None] * count
        for index, op, given in zip(on_surface, ops, refs, strict=True):
            if op != append:
                return None
            ops_out[index] = APPEND
            if given is not None:
                if not given or min(given) < 0 or max(given) >= start + index or (
                    len(given) > 1 and len(set(given)) != len(given)
                ):
                    return None
                refs_out[index] = tuple(given)
        if not _shapes_fit(kinds, on_surface, payloads):
            return None
        lengths = list(map(len, payloads))
        if max(lengths) > 2 * MAX_DEPTH:  # a payload nests at most half its length deep
            for index in where(list(map(int.__lt__, repeat(2 * MAX_DEPTH), lengths))):
                text = bytes(payloads[index])
                if text.count(b"[") + text.count(b"{") > MAX_DEPTH:
                    return None  # may nest too deep: the careful path decides
        for kind in kind_set - KINDS.keys():
            if len(KINDS) < KINDS_LIMIT:
                KINDS[kind] = kind
        kinds = list(map(KINDS.get, kinds, kinds))  # one string object per event type
        texts = list(map(bytes, payloads))
        events: list[Event] = list(
            map(
                LoggedEvent,
                kinds,
                range(start, start + count),
                times,
                texts,
                refs_out,
                ops_out,
                repeat(None),
                repeat(STORED),
            )
        )
        return self._taken(events, on_surface)

    def take_run(self, events: list[Any], surface: list[int], texts: list[bytes]) -> list[Event] | None:
        """The events of a run the C bulk path built at the next seqs (``_speedups.rows_events``:
        each one plain, but for the shapes of the surface payloads ``texts``, which are checked
        here), now admitted; or ``None`` -- nothing changed -- when a payload's shape is not one
        the bulk path takes (the careful path decides)."""
        if not events:
            return []
        kinds = [events[index].type for index in surface]
        if not _shapes_fit(kinds, range(len(surface)), texts):
            return None
        return self._taken(events, surface)

    def _taken(self, events: list[Event], on_surface: list[int]) -> list[Event]:
        """``events``, a run at the next seqs that passed every rule, now admitted: the surface
        nodes ``on_surface`` (indices in the run) appended, the next seq and last time moved on."""
        start = self._next
        self._surface._append_run([start + index for index in on_surface])
        self._next = start + len(events)
        self._last_time = events[-1].time
        return events

    def admit_line(self, record: dict[str, Any], line: bytes | None) -> Event:
        """:meth:`admit_parsed` for a JSONL line (kept whole when orjson read it)."""
        return self.admit_parsed(record, line, True)


def _shapes_fit(kinds: Sequence[Any], indices: Iterable[int], texts: Sequence[Any]) -> bool:
    """Whether the payload text at each of ``indices`` has the shape its record's type (at the
    same index of ``kinds``) needs, checked a type at a time (``_shapes.payloads_fit``)."""
    groups: dict[str, list[Any]] = {}
    for index in indices:
        kind = kinds[index]
        group = groups.get(kind)
        if group is None:
            groups[kind] = group = []
        group.append(texts[index])
    return all(payloads_fit(kind, group) for kind, group in groups.items())


#: One string object per event type a load meets (bounded: types beyond it are not shared).
KINDS: dict[str, str] = {}
KINDS_LIMIT = 4096

#: The key orders ``append`` writes (the surface fields are optional).
_EXACT = 2**53
_USUAL_ORDERS = frozenset(
    tuple(key for key in EVENT_KEY_ORDER if key not in left_out)
    for left_out in ((), ("sourceEventSeqs",), ("surfaceOp",), ("sourceEventSeqs", "surfaceOp"))
)


def _key_order(record: Mapping[str, Any]) -> tuple[str, ...] | None:
    keys = tuple(record)
    return None if keys in _USUAL_ORDERS else keys

"""Holding stored and appended events to the seed's rules, one event at a time.

A backend admits every event it loads or is asked to append with exactly the
rules ``Session(seed=...)`` applies (``_admission.read_record`` then
``_admission.admit``), so that a stored log can always seed a session. Only the
surface is kept -- not the events -- so the cost of tracking a session is its
surface, not its log.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from dsh_session import _admission
from dsh_session.event import EVENT_KEY_ORDER, Event
from dsh_session.surface import SurfaceManager


class LogAdmitter:
    """The surface of a log as far as it has been admitted, and the next seq."""

    __slots__ = ("_next", "_surface")

    def __init__(self) -> None:
        # The manager never reads its (empty) log: admit() only asks it for spans,
        # and events are folded in explicitly below.
        self._surface = SurfaceManager(())
        self._next = 0

    @property
    def next_seq(self) -> int:
        return self._next

    def admit(self, record: Event | Mapping[str, Any]) -> Event:
        """The admitted event for ``record`` (an ``Event`` or a JSON object) at the next seq.

        Raises :class:`~dsh_session.InvalidEventError` exactly as seeding would.
        A record's key order is kept on the event when it is not the usual one.
        """
        seq = self._next
        kind, time, data, op, refs = _admission.read_record(seq, record)
        event, span = _admission.admit(self._surface, seq, kind, time, data, op, refs)
        self._surface._fold(event, span)
        self._next = seq + 1
        order = record.key_order if isinstance(record, Event) else _key_order(record)
        if order is not None:
            event = msgspec.structs.replace(event, key_order=order)
        return event


#: The key orders ``append`` writes (the surface fields are optional).
_USUAL_ORDERS = frozenset(
    tuple(key for key in EVENT_KEY_ORDER if key not in left_out)
    for left_out in ((), ("sourceEventSeqs",), ("surfaceOp",), ("sourceEventSeqs", "surfaceOp"))
)


def _key_order(record: Mapping[str, Any]) -> tuple[str, ...] | None:
    keys = tuple(record)
    return None if keys in _USUAL_ORDERS else keys

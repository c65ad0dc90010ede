"""Adoption: may a live session take over what a backend stores under its id?

A write coordinator persists a live session by appending, batch by batch, the
events the backend does not hold yet. Before its first write it reads what is
stored under the session's id and decides, by :func:`adoption`:

- nothing is stored: the session is new; its header is published with its
  first batch (:class:`Adopt` with ``create=True``, ``stored=0``);
- a log is stored and it is this session's own past -- same header, and its
  events are the first events of the live log -- the session continues it
  (``stored`` = how many of the live events are already durable);
- anything else is another session that happens to share the id, and writing
  would mix two histories: a :class:`Rejection`.

"Same" is JSON semantics, the way a JavaScript reader sees the values: object
key order does not count (a SQLite row reads back with its keys in another
order than the JSONL line they came from), numbers compare by value, but
``true`` is not ``1`` and an absent header field is not any present value
(``seedLength: 0`` is not an absent ``seedLength``). The reference compares
JSON *text* instead, so a log it repaired itself can fail to match the very
events it returned (its weak spot B1); it ignores every header field but the
cwd (B15), and on SQLite ignores the cwd too (B2).

Headers are given in their JSON form (``version``, ``id``, ``createdAt``,
``cwd?``, ``parentSession?``, ``seedLength?``); the stored log is the one a
load returns *without* closing an open turn -- the live session is the
authority on how its turn ends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple, TypeAlias

from dsh_spec.codes import Code
from dsh_spec.events import SESSION_FORMAT_VERSION, Event, Replace, SurfaceOp
from dsh_spec.json_value import Json
from dsh_spec.rejection import Rejection

#: A stored session: its header (JSON form) and its events.
StoredLog: TypeAlias = "tuple[Mapping[str, Json], tuple[Event, ...]]"

#: The header fields, in the order the reference writes them.
HEADER_FIELDS = ("version", "id", "createdAt", "cwd", "parentSession", "seedLength")


class Adopt(NamedTuple):
    """The live session may be bound: ``stored`` of its events are durable already;
    ``create`` when nothing is stored and the header must be published first."""

    stored: int
    create: bool


def adoption(
    stored: StoredLog | None, live_header: Mapping[str, Json], live_events: Sequence[Event]
) -> Adopt | Rejection:
    """Whether the live session (``live_header``, ``live_events``) owns what is ``stored``
    under its id (``None``: nothing is), and how much of it is durable already.

    Checked in this order: the live header's format version, then -- when a log
    is stored -- its format version, its cwd (``ID_COLLISION_CWD``), the other
    header fields (``ID_COLLISION_HEADER``), its events (``ID_COLLISION_LOG``,
    ``seq`` = the first stored event the live log does not repeat).
    """
    live_version = live_header.get("version")
    if not same_json(live_version, SESSION_FORMAT_VERSION):
        return Rejection(
            Code.STORE_VERSION_UNSUPPORTED,
            None,
            f"the live session's header has format version {live_version!r}; only 0 can be stored",
        )
    if stored is None:
        return Adopt(0, True)
    header, events = stored
    version = header.get("version")
    if not same_json(version, SESSION_FORMAT_VERSION):
        return Rejection(
            Code.STORE_VERSION_UNSUPPORTED, None, f"the stored log has format version {version!r}"
        )
    if not same_field(header, live_header, "cwd"):
        return Rejection(
            Code.ID_COLLISION_CWD,
            None,
            f"the stored session has cwd {header.get('cwd')!r}, the live one {live_header.get('cwd')!r}",
        )
    differing = [
        name for name in header_fields(header, live_header) if not same_field(header, live_header, name)
    ]
    if differing:
        return Rejection(
            Code.ID_COLLISION_HEADER,
            None,
            f"the stored header differs from the live one in {', '.join(differing)}",
        )
    for index, event in enumerate(events):
        if index >= len(live_events):
            return Rejection(
                Code.ID_COLLISION_LOG,
                index,
                f"the stored log has {len(events)} event(s), the live session only {len(live_events)}",
            )
        if not same_event(event, live_events[index]):
            return Rejection(
                Code.ID_COLLISION_LOG, index, f"stored event {index} is not the live session's event {index}"
            )
    return Adopt(len(events), False)


def header_fields(a: Mapping[str, Json], b: Mapping[str, Json]) -> list[str]:
    """Every field either header has: the known ones in their order, then any others sorted."""
    names = set(a) | set(b)
    return [name for name in HEADER_FIELDS if name in names] + sorted(names - set(HEADER_FIELDS))


def same_field(a: Mapping[str, Json], b: Mapping[str, Json], name: str) -> bool:
    """Both headers lack the field, or both have it with the same JSON value."""
    if (name in a) != (name in b):
        return False
    return name not in a or same_json(a[name], b[name])


def same_event(a: Event, b: Event) -> bool:
    """The same event as JSON: every field equal, key order aside."""
    return (
        a.type == b.type
        and same_json(a.seq, b.seq)
        and same_json(a.time, b.time)
        and same_json(a.data, b.data)
        and same_refs(a.source_event_seqs, b.source_event_seqs)
        and same_op(a.surface_op, b.surface_op)
    )


def same_refs(a: tuple[int, ...] | None, b: tuple[int, ...] | None) -> bool:
    if a is None or b is None:
        return a is b
    return same_json(list(a), list(b))


def same_op(a: SurfaceOp | None, b: SurfaceOp | None) -> bool:
    if isinstance(a, Replace) and isinstance(b, Replace):
        return same_json(a.start, b.start) and same_json(a.end, b.end)
    if isinstance(a, Replace) or isinstance(b, Replace):
        return False
    return a == b


def same_json(a: object, b: object) -> bool:
    """JSON equality as JavaScript sees it: one number type (``1 == 1.0``), but a
    boolean is never a number; object key order does not count; lists are ordered."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, str) or isinstance(b, str):
        return type(a) is type(b) and a == b
    if a is None or b is None:
        return a is b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[key], b[key]) for key in a)
    return False

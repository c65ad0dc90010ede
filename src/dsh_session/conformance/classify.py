"""What a case needs and which dialect it pins, read off its steps (the generator writes both).

:func:`features_of` names the optional capabilities (:data:`~.protocol.FEATURES`)
a case's steps use: a backend kind, the write coordinator and its options,
copying, the header writer, the runtime checks. :func:`dialect_of` decides
whether a case holds in every dialect of the original or pins
:data:`~.protocol.DIALECT`: later dialects (``docs/dialect-3fe196a751.md``,
"Later dialects") change the payload shapes a message is derived from, log a
``session/end-seed`` event after every seed, drop ``context/message`` and
``steering/message`` from the surface types and ``request/header-delta`` from
the vocabulary, and lay stores out differently. So a case pins the dialect
when it derives messages or request headers, repairs or checks requests,
touches a store or the runner's view of one, seeds a session and then reads
its log or appends to it (or forks), or uses one of those event types; anything else -- the
surface fold, provenance, the turn and step rules on an unseeded session,
tool pairing, fork refusals, the store's ids -- holds in every dialect.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from dsh_session.conformance.protocol import DIALECT, EVERY_DIALECT

#: Operations whose answers depend on the dialect's payload shapes or store layouts.
_PINNING_OPS: Final = frozenset(
    {
        "session.messages",
        "session.event_message",
        "session.closers",
        "session.request_header",
        "request.check",
        "header.equals",
        "header.diff",
        "header.apply",
        "header.next_event",
    }
)
_PINNING_PREFIXES: Final = ("persist.", "coord.", "runner.")
#: What a session/end-seed event after a seed would change: the log, and the seq of what is appended.
_AFTER_A_SEED: Final = frozenset({"session.append", "session.events", "store.fork", "log.check"})
#: Event types that later dialects dropped or reshaped.
_PINNING_TYPES: Final = frozenset(
    {"context/message", "steering/message", "request/header", "request/header-delta"}
)
_OP_FEATURES: Final = {
    "persist.copy": "copy",
    "persist.verify": "copy",
    "coord.flushed": "coordinator.flushed",
    "coord.refused": "coordinator.refused",
    "coord.release": "coordinator.release",
    "store.remove": "store.remove",
    "store.observer_errors": "store.observer-errors",
    "header.next_event": "header.writer",
    "session.region_balanced": "tool-pairing.region",
    "agent.status": "agent-status",
    "request.check": "request-check",
}


def features_of(steps: Iterable[tuple[str, dict[str, Any]]]) -> tuple[str, ...]:
    """The features the steps ``(op, args)`` need, sorted."""
    found: set[str] = set()
    for op, args in steps:
        if op in _OP_FEATURES:
            found.add(_OP_FEATURES[op])
        if op.startswith("coord."):
            found.add("coordinator")
        if op == "coord.attach" and ("flushOn" in args or "maxPending" in args):
            found.add("coordinator.flush-policy")
        if op == "persist.open" and type(args.get("kind")) is str:
            found.add(f"backend.{args['kind']}")
    return tuple(sorted(found))


def dialect_of(steps: Sequence[tuple[str, dict[str, Any], bool]]) -> str:
    """:data:`~.protocol.DIALECT` or :data:`~.protocol.EVERY_DIALECT` for the steps
    ``(op, args, succeeds)``."""
    for index, (op, args, succeeds) in enumerate(steps):
        if op in _PINNING_OPS or op.startswith(_PINNING_PREFIXES):
            return DIALECT
        # A later dialect logs session/end-seed after a seed: what is read or appended after it shifts.
        seeded = op in ("session.new", "store.create") and args.get("seed") and succeeds
        if seeded and any(later in _AFTER_A_SEED for later, _args, _ok in steps[index + 1 :]):
            return DIALECT
        if op == "store.fork" and succeeds:
            return DIALECT
        if _types_in(args) & _PINNING_TYPES:
            return DIALECT
    return EVERY_DIALECT


def _types_in(value: Any) -> set[str]:
    """Every ``type`` string of an object in ``value`` (event records and appended events)."""
    found: set[str] = set()
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) is dict:
            if type(item.get("type")) is str:
                found.add(item["type"])
            pending.extend(item.values())
        elif type(item) is list:
            pending.extend(item)
    return found

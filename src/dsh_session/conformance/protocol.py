"""The adapter protocol: what the runner sends an implementation and what it answers.

One long-lived adapter process per run speaks JSON lines over stdin/stdout.
Each request is one line ``{"id": n, "op": name, "args": {...}}``; each reply
is one line naming the same ``id`` and exactly one of

- ``{"id": n, "ok": value}`` -- the operation returned ``value``;
- ``{"id": n, "error": {"code": CODE, "message": text}}`` -- it raised; ``CODE``
  is a registry code (``docs/errors.md``), ``null`` when the implementation's
  error has none (reported as a failure);
- ``{"id": n, "unsupported": reason}`` -- the implementation cannot do this.

``hello`` opens the conversation: the adapter answers with the protocol
version, the implementation's name, version and language, the **dialect** of
the original whose behaviour it has (:data:`DIALECT`, or a later one) and the
**features** it has (:data:`FEATURES`). A case pinned to another dialect, or
needing a feature the adapter did not declare, is *not applicable* to it.
``reset`` comes before every case (forget every session, store and backend),
``bye`` asks the adapter to exit.

Values in ``args`` are plain JSON except one placeholder: an object whose only
key is ``"$nonjson"`` stands for a value no JSON text can spell, which the
adapter builds in its own language (see :data:`NONJSON_KINDS`). The runner
resolves its own placeholders (``$artifact``, ``$scratch``: paths; ``$port``:
a loopback port where the runner plays a server, see :data:`PORT_KINDS`)
before a request is sent.

:data:`OPS` is the vocabulary: every operation of the protocol (their
arguments and results are in the implementers' guide, ``conformance/README.md``).
Operations named ``runner.*`` are carried out by the runner itself (reading the
files an adapter wrote, damaging or locking a store) and never reach the adapter.
"""

from __future__ import annotations

import math
from typing import Any, Final

#: The protocol version this runner speaks.
PROTOCOL_VERSION: Final = 2

#: The dialect of the TypeScript original the suite pins: its commit at 2026-07-10. A case names
#: this dialect, or :data:`EVERY_DIALECT` when it holds for the original's later dialects too.
DIALECT: Final = "3fe196a751"
EVERY_DIALECT: Final = "every"

#: What an implementation may have or lack. A case needing a feature the adapter does not declare
#: in ``hello`` is not applicable to it (``not-applicable``, which does not fail a profile).
FEATURES: Final = {
    "backend.jsonl": "a JSONL store (persist.open kind jsonl)",
    "backend.sqlite": "a SQLite store (persist.open kind sqlite)",
    "backend.memory": "a store in memory (persist.open kind memory)",
    "backend.postgres": "a PostgreSQL store (persist.open kind postgres)",
    "copy": "copying sessions between stores and verifying copies (persist.copy, persist.verify)",
    "coordinator": "a write coordinator keeping a store's sessions in a backend (coord.*)",
    "coordinator.flush-policy": "a coordinator that writes by itself (coord.attach flushOn, maxPending)",
    "coordinator.flushed": "how many of a session's events are durable (coord.flushed)",
    "coordinator.refused": "the live sessions a coordinator could not bind (coord.refused)",
    "coordinator.release": "releasing a session from its coordinator (coord.release)",
    "store.remove": "detaching a live session from its store (store.remove)",
    "store.observer-errors": "observer failures reported from appends (store.observer_errors)",
    "header.writer": "the request-header writer (header.next_event)",
    "tool-pairing.region": "whether a surface region may be collapsed (session.region_balanced)",
    "agent-status": "checking an agent's announced statuses (agent.status)",
    "request-check": "checking a loop-built request against its log (request.check)",
}

#: The placeholder key for values that JSON text cannot hold.
NONJSON_KEY: Final = "$nonjson"

#: The kinds of ``{"$nonjson": kind}``; ``integer:<digits>`` is an integer no IEEE double holds.
NONJSON_KINDS: Final = ("nan", "infinity", "-infinity", "cycle", "integer:<digits>")

#: Placeholders the runner resolves to paths before a request is sent.
ARTIFACT_KEY: Final = "$artifact"
SCRATCH_KEY: Final = "$scratch"
PORT_KEY: Final = "$port"

#: The kinds of ``{"$port": kind}``: a TCP port on 127.0.0.1 where, until the case ends,
#: nothing accepts connections (``closed``), or the runner plays a PostgreSQL server that
#: refuses every login (``pg-refuses-credentials``: SQLSTATE 28P01 in answer to the startup
#: message) or that lets a client log in and drops the connection at its first query
#: (``pg-drops-connection``).
PORT_KINDS: Final = ("closed", "pg-refuses-credentials", "pg-drops-connection")


#: Every operation of the protocol, by area; what each takes and gives back is in the table of
#: operations of the implementers' guide (``conformance/README.md``), which a test holds to this
#: list. ``session`` / ``store`` / ``backend`` / ``observer`` / ``coordinator`` / ``agent``
#: arguments name handles the adapter keeps until the next ``reset`` (defaults: "s", "main", "db",
#: "o", "c", "a"). ``time`` is the clock reading the operation must use, in milliseconds.
OPS: Final = (
    # control
    "hello", "reset", "bye",
    # a session
    "session.new", "session.append", "session.events", "session.surface", "session.generation",
    "session.invalidate", "session.messages", "session.event_message", "session.closers",
    "session.request_header", "session.balanced", "session.region_balanced",
    # pure functions
    "log.check", "header.equals", "header.diff", "header.apply", "header.next_event",
    # the session store
    "store.create", "store.fork", "store.enter", "store.remove", "store.list", "store.observe",
    "store.observed", "store.observer_errors",
    # persistence
    "persist.open", "persist.create", "persist.append", "persist.load", "persist.list", "persist.close",
    "persist.copy", "persist.verify",
    # the write coordinator
    "coord.attach", "coord.flush", "coord.flush_all", "coord.flushed", "coord.refused", "coord.load",
    "coord.resume", "coord.release", "coord.close",
    # runtime checks
    "agent.status", "request.check",
    # carried out by the runner
    "runner.read", "runner.files", "runner.write", "runner.sql", "runner.lock",
)

#: Operations the runner itself carries out.
RUNNER_OPS: Final = frozenset(name for name in OPS if name.startswith("runner."))

#: Operations of the conversation itself, never used by a case.
CONTROL_OPS: Final = frozenset({"hello", "reset", "bye"})

#: Operations a case may use.
CASE_OPS: Final = frozenset(OPS) - CONTROL_OPS


def nonjson_kind(value: Any) -> str | None:
    """The kind a ``{"$nonjson": kind}`` placeholder names, or ``None`` for any other value."""
    if type(value) is dict and len(value) == 1 and NONJSON_KEY in value and type(value[NONJSON_KEY]) is str:
        kind: str = value[NONJSON_KEY]
        return kind
    return None


def build_nonjson(kind: str) -> Any:
    """The Python value a placeholder stands for: NaN, infinities, a self-containing list,
    or an integer beyond what a double holds exactly. ``ValueError`` for an unknown kind."""
    if kind == "nan":
        return math.nan
    if kind == "infinity":
        return math.inf
    if kind == "-infinity":
        return -math.inf
    if kind == "cycle":
        loop: list[Any] = []
        loop.append(loop)
        return loop
    if kind.startswith("integer:"):
        return int(kind.removeprefix("integer:"))
    raise ValueError(f"unknown $nonjson kind {kind!r}")


def decode_args(value: Any) -> Any:
    """``value`` with every ``$nonjson`` placeholder replaced by the Python value it stands for."""
    kind = nonjson_kind(value)
    if kind is not None:
        return build_nonjson(kind)
    if type(value) is dict:
        return {key: decode_args(item) for key, item in value.items()}
    if type(value) is list:
        return [decode_args(item) for item in value]
    return value

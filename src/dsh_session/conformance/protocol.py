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

:data:`OPS` is the vocabulary: every operation a case may use, with its
arguments and result. Operations named ``runner.*`` are carried out by the
runner itself (reading the files an adapter wrote, damaging or locking a
store) and never reach the adapter.
"""

from __future__ import annotations

import math
from typing import Any, Final, NamedTuple

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


class Op(NamedTuple):
    """An operation of the protocol: its arguments and what it returns (for the docs and checks)."""

    name: str
    args: str
    returns: str


def _ops(*ops: Op) -> dict[str, Op]:
    return {op.name: op for op in ops}


#: Every operation a case may use. ``session`` / ``store`` / ``backend`` / ``observer`` /
#: ``coordinator`` / ``agent`` arguments name handles the adapter keeps until the next ``reset``
#: (defaults: "s", "main", "db", "o", "c", "a"). ``time`` is the clock reading the operation must use, in
#: milliseconds.
OPS: Final = _ops(
    # -- control ----------------------------------------------------------------------------
    Op(
        "hello",
        "{protocol}",
        "{protocol, implementation: {name, version, language}, dialect, features: [feature]}",
    ),
    Op("reset", "{}", "null"),
    Op("bye", "{}", "null (then exit)"),
    # -- a session --------------------------------------------------------------------------
    Op(
        "session.new",
        "{session?, id, seed?: [record], invariants?: bool, createdAt?, cwd?}",
        "null; a bare session seeded with the records (checked like appends)",
    ),
    Op(
        "session.append",
        "{session?, type, data, time, surfaceOp?, sourceEventSeqs?}",
        "the appended event record",
    ),
    Op("session.events", "{session?}", "[event record] (the log)"),
    Op("session.surface", "{session?}", "[{seq, prev, next}] head to tail"),
    Op("session.generation", "{session?}", "int: the replace generation"),
    Op("session.invalidate", "{session?}", "null"),
    Op("session.messages", "{session?}", "[message]: the derived history"),
    Op("session.event_message", "{session?, seq}", "message | null: one event's projection"),
    Op("session.closers", "{session?}", "[event record]: the crash closers the log needs"),
    Op("session.request_header", "{session?}", "header | null: the request header in force"),
    Op("session.balanced", "{session?, before: seq | null}", "bool: tool pairing at the cut"),
    Op("session.region_balanced", "{session?, start, end}", "bool: the region may be collapsed"),
    # -- pure functions ---------------------------------------------------------------------
    Op("log.check", "{records: [record]}", "[{code, seq}]: every record breaking a rule"),
    Op("header.equals", "{a: header, b: header}", "bool"),
    Op("header.diff", "{prev: header, next: header}", "delta | null"),
    Op("header.apply", "{prev: header, delta}", "header"),
    Op(
        "header.next_event",
        "{prev: header | null, next: header, firstRequest: bool}",
        "{type, data} | null: what the writer logs",
    ),
    # -- the session store ------------------------------------------------------------------
    Op(
        "store.create",
        "{store?, session?, id?, seed?, cwd?, parentSession?, seedLength?, time}",
        "the new session's header",
    ),
    Op(
        "store.fork",
        "{store?, session?, source?: id, sourceSession?: handle, boundary?, childId?, time}",
        "the child's header",
    ),
    Op("store.enter", "{store?, session?}", "null"),
    Op("store.remove", "{store?, session?}", "bool: it was live and is detached"),
    Op("store.list", "{store?}", "[id] in entry order"),
    Op("store.observe", "{store?, observer?, fail?: 'created' | 'event'}", "null"),
    Op("store.observed", "{observer?}", "[['created', id] | ['event', id, seq]]"),
    Op("store.observer_errors", "{store?}", "[{code, session, seq}] reported from appends"),
    # -- persistence ------------------------------------------------------------------------
    Op(
        "persist.open",
        "{backend?, kind: 'jsonl' | 'sqlite' | 'memory', path?, lockTimeout?: seconds} | "
        "{backend?, kind: 'postgres', host, port, user, database, password?, connectTimeout?: seconds}",
        "null",
    ),
    Op("persist.create", "{backend?, header}", "null"),
    Op("persist.append", "{backend?, id, events: [record]}", "null"),
    Op("persist.load", "{backend?, id, session?}", "{header, events}; binds the session"),
    Op("persist.list", "{backend?}", "[header] sorted by id"),
    Op("persist.close", "{backend?}", "null"),
    Op(
        "persist.copy",
        "{src: backend, dst: backend, ids?: [id], verify?: bool}",
        "[id] copied, in order (default: every session src lists; verify defaults to true)",
    ),
    Op(
        "persist.verify",
        "{src: backend, dst: backend, ids?: [id]}",
        "[id] compared: each loads from dst as it loads from src",
    ),
    # -- the write coordinator --------------------------------------------------------------
    Op(
        "coord.attach",
        "{coordinator?, store?, backend?, flushOn?: [type], maxPending?: int | null}",
        "null; persist the store's sessions in the backend (without flushOn/maxPending: only flushes write)",
    ),
    Op("coord.flush", "{coordinator?, session?}", "null, once every event of the session is durable"),
    Op("coord.flush_all", "{coordinator?}", "null"),
    Op("coord.flushed", "{coordinator?, session?}", "int: how many of the session's events are durable"),
    Op("coord.refused", "{coordinator?}", "[{id, code}] live sessions that could not be bound, by id"),
    Op("coord.load", "{coordinator?, id}", "{header, events}: the stored session, repaired"),
    Op("coord.resume", "{coordinator?, id, session?}", "the resumed live session's header"),
    Op("coord.release", "{coordinator?, session?, discard?: bool}", "null"),
    Op("coord.close", "{coordinator?}", "null"),
    # -- runtime checks ---------------------------------------------------------------------
    Op(
        "agent.status",
        "{agent?, status}",
        "null: the agent announces a status (refused: a no-op transition, or leaving disposed)",
    ),
    Op(
        "request.check",
        "{session?, request: {messages?, model?, system?, temperature?, maxTokens?, stop?, tools?}}",
        "null: the request is what the session's log reconstructs",
    ),
    # -- carried out by the runner ----------------------------------------------------------
    Op("runner.read", "{path, file}", "the file's text (invalid UTF-8 as \\xNN)"),
    Op("runner.files", "{path}", "[relative path] of every file under path, sorted"),
    Op("runner.write", "{path, file, text, append?: bool}", "null"),
    Op("runner.sql", "{path, sql}", "[[column]]: the rows of a statement"),
    Op("runner.lock", "{path, file?}", "null: hold a lock until the case ends"),
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

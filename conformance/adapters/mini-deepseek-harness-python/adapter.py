#!/usr/bin/env python3
"""The conformance adapter for mini-deepseek-harness-python, an independent Python port.

The port (github.com/ZZKeepCurious/mini-deepseek-harness-python, package
``miniharness``) follows the TypeScript original as it was in August 2026, a
later dialect than the one the suite pins. This is our own code: it speaks the
suite's JSON-lines protocol (conformance/README.md) and carries each operation
out with the port's session API -- ``Session``, ``SessionStore`` and the
``Context`` its store lives in -- loaded from a checkout you give:

    python3 adapter.py CHECKOUT

with a Python that has the port's one dependency (``httpx``) installed. Standard
library only otherwise; nothing of the port is in this repository.

What it declares in ``hello``: dialect ``611615650f`` (the original of
2026-08-20, which the port follows), so every case pinned to ``3fe196a751`` is
not applicable to it; no optional features (the port has backends, but none
with the suite's operations: see README.md). The port's errors are plain
exceptions with messages; ``ERRORS`` maps them onto registry codes where a
message says which rule was broken.
"""

from __future__ import annotations

import json
import math
import re
import sys
from types import MappingProxyType
from typing import Any

PROTOCOL = 2
DIALECT = "611615650f"

if len(sys.argv) != 2:
    sys.stderr.write("usage: python3 adapter.py CHECKOUT\n")
    sys.exit(2)
sys.path.insert(0, sys.argv[1])

import miniharness  # noqa: E402
from miniharness.core.scope import Context  # noqa: E402
from miniharness.core.session import session as session_module  # noqa: E402
from miniharness.core.session import Session, repair_interrupted_turn  # noqa: E402
from miniharness.core.session_store import SessionForkError, SessionStore  # noqa: E402

# -- the clock: every operation's `time` ------------------------------------------------------
NOW = [0]
session_module.now_ms = lambda: NOW[0]  # Session.append stamps events with it


# -- the port's error messages -> registry codes ----------------------------------------------
ERRORS: list[tuple[str, str]] = [
    (r"observer told to fail", "OBSERVER_FAILED"),
    (r"seq 必须从 0 连续", "SEQ_NOT_CONTIGUOUS"),
    (r"可无损 JSON 序列化", "NON_JSON_DATA"),
    (r"is not surface-eligible and cannot carry surfaceOp", "SURFACE_OP_ON_LOG_ONLY_TYPE"),
    (r"不允许携带 sourceEventSeqs", "PROVENANCE_ON_LOG_ONLY_TYPE"),
    (r"不允许携带 surfaceOp$", "SURFACE_OP_ON_LOG_ONLY_TYPE"),
    (r"requires a surfaceOp marker", "MISSING_SURFACE_OP"),
    (r"carries an invalid surfaceOp", "MALFORMED_SURFACE_OP"),
    (r"must not be empty except on assistant/message", "PROVENANCE_EMPTY"),
    (r"must not contain duplicates", "PROVENANCE_DUPLICATE"),
    (r"must reference earlier events", "PROVENANCE_NOT_EARLIER"),
    (r"必须是非负整数序列|must densely contain|must be an array when present", "MALFORMED_PROVENANCE"),
    (r"must include every shadowed surface node", "REPLACE_PROVENANCE_INCOMPLETE"),
    (r"顺序颠倒", "REPLACE_RANGE_REVERSED"),
    (r"cwd must be an absolute path", "CWD_NOT_ABSOLUTE"),
    (r'session "[^"]*" already exists', "SESSION_ALREADY_EXISTS"),
    (r"is not live in this store", "SESSION_NOT_LIVE"),
]


class Unsupported(Exception):
    pass


def code_of(error: BaseException) -> str | None:
    if isinstance(error, SessionForkError):
        return error.code
    message = str(error)
    for pattern, code in ERRORS:
        if re.search(pattern, message):
            return code
    return None


def _valid_marker(op: Any) -> bool:
    return op == "append" or (isinstance(op, dict) and op.get("op") == "replace")


def seed_code(error: BaseException, seed: list[Any]) -> str | None:
    """A seed's refusal. Two of the port's messages name a rule for two codes at once; the first
    record of the type they name that breaks it says which: a log-only type carrying surfaceOp or
    sourceEventSeqs, a surface type whose surfaceOp is missing or not a marker."""
    message = str(error)
    records = [record for record in seed if isinstance(record, dict)]
    found = re.search(r"非 surface 事件 (\S+) 不允许携带 surfaceOp/sourceEventSeqs", message)
    if found is not None:
        for record in records:
            if record.get("type") == found.group(1):
                if "surfaceOp" in record:
                    return "SURFACE_OP_ON_LOG_ONLY_TYPE"
                if "sourceEventSeqs" in record:
                    return "PROVENANCE_ON_LOG_ONLY_TYPE"
        return None
    found = re.search(r"surface 事件 (\S+) 必须带合法 surfaceOp", message)
    if found is not None:
        for record in records:
            if record.get("type") == found.group(1) and not _valid_marker(record.get("surfaceOp")):
                return "MALFORMED_SURFACE_OP" if "surfaceOp" in record else "MISSING_SURFACE_OP"
        return None
    return code_of(error)


# -- values ------------------------------------------------------------------------------------


def decode(value: Any) -> Any:
    """The protocol's ``{"$nonjson": kind}`` placeholders made the values they stand for."""
    if isinstance(value, dict):
        if len(value) == 1 and isinstance(value.get("$nonjson"), str):
            kind = value["$nonjson"]
            if kind == "nan":
                return math.nan
            if kind in ("infinity", "-infinity"):
                return math.inf if kind == "infinity" else -math.inf
            if kind == "cycle":
                loop: list[Any] = []
                loop.append(loop)
                return loop
            if kind.startswith("integer:"):
                return int(kind.removeprefix("integer:"))
            raise ValueError(f"unknown $nonjson kind {kind!r}")
        return {key: decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decode(item) for item in value]
    return value


def plain(value: Any) -> Any:
    """A frozen value of the port as plain JSON (mapping proxies and tuples thawed)."""
    if isinstance(value, (dict, MappingProxyType)):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def header_of(session: Session) -> dict[str, Any]:
    out: dict[str, Any] = {"version": 0, "id": session.session_id, "createdAt": session.created_at}
    for key in ("cwd", "parentSession", "seedLength"):
        if key in session.meta:
            out[key] = session.meta[key]
    return out


# -- the operations ----------------------------------------------------------------------------


class Port:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.sessions: dict[str, Session] = {}
        self.stores: dict[str, SessionStore] = {}
        self.observers: dict[str, list[Any]] = {}
        self.detach: dict[int, Any] = {}

    def session(self, args: dict[str, Any]) -> Session:
        name = args.get("session", "s")
        if name not in self.sessions:
            raise KeyError(f"no session {name!r}")
        return self.sessions[name]

    def store(self, args: dict[str, Any]) -> SessionStore:
        name = args.get("store", "main")
        if name not in self.stores:
            self.stores[name] = SessionStore(Context())
        return self.stores[name]

    def op_session_new(self, args: dict[str, Any]) -> None:
        if args.get("invariants") is True:
            raise Unsupported("the port has no live log invariants")
        meta = {"cwd": args["cwd"]} if "cwd" in args else None
        seed = args.get("seed", [])
        try:
            made = Session(args["id"], seed=seed, created_at=args.get("createdAt", 0), meta=meta)
        except (ValueError, TypeError, KeyError) as error:
            raise Coded(seed_code(error, seed), str(error)) from None
        self.sessions[args.get("session", "s")] = made

    def op_session_append(self, args: dict[str, Any]) -> Any:
        target = self.session(args)
        return plain(
            target.append(
                args["type"],
                args["data"],
                surfaceOp=args.get("surfaceOp"),
                sourceEventSeqs=args.get("sourceEventSeqs"),
            )
        )

    def op_session_events(self, args: dict[str, Any]) -> Any:
        return plain(self.session(args).events)

    def op_session_surface(self, args: dict[str, Any]) -> Any:
        seqs = [node["seq"] for node in self.session(args).surface_nodes()]
        return [
            {
                "seq": seq,
                "prev": seqs[index - 1] if index else None,
                "next": seqs[index + 1] if index + 1 < len(seqs) else None,
            }
            for index, seq in enumerate(seqs)
        ]

    def op_session_generation(self, args: dict[str, Any]) -> Any:
        return self.session(args).replace_generation

    def op_session_invalidate(self, args: dict[str, Any]) -> None:
        self.session(args)  # the port folds the surface on every read: nothing is cached

    def op_session_closers(self, args: dict[str, Any]) -> Any:
        return plain(repair_interrupted_turn(list(self.session(args).events)))

    def op_store_create(self, args: dict[str, Any]) -> Any:
        meta = {key: args[key] for key in ("cwd", "parentSession", "seedLength") if key in args}
        meta["createdAt"] = NOW[0]
        options = {"seed": args.get("seed"), "meta": meta}
        made = self.store(args).create(args.get("id"), options)
        self.sessions[args.get("session", "s")] = made
        return header_of(made)

    def op_store_list(self, args: dict[str, Any]) -> Any:
        return [entry.session_id for entry in self.store(args).list()]

    def op_store_enter(self, args: dict[str, Any]) -> None:
        target = self.session(args)
        self.detach[id(target)] = self.store(args).enter(target)

    def op_store_fork(self, args: dict[str, Any]) -> Any:
        source: Any = args["source"] if "source" in args else self.session({"session": args["sourceSession"]})
        made = self.store(args).fork(source, args.get("boundary"), args.get("childId"))
        self.sessions[args.get("session", "s")] = made
        return header_of(made)

    def op_store_observe(self, args: dict[str, Any]) -> None:
        heard: list[Any] = []
        self.observers[args.get("observer", "o")] = heard
        fail = args.get("fail")
        ctx = self.store(args).ctx

        def created(payload: Any) -> None:
            heard.append(["created", payload["session"].session_id])
            if fail == "created":
                raise RuntimeError("observer told to fail on session/created")

        def event(payload: Any) -> None:
            heard.append(["event", payload["session"].session_id, payload["event"]["seq"]])
            if fail == "event":
                raise RuntimeError("observer told to fail on session/event")

        ctx.on("session/created", created)
        ctx.on("session/event", event)

    def op_store_observed(self, args: dict[str, Any]) -> Any:
        return self.observers[args.get("observer", "o")]


class Coded(Exception):
    def __init__(self, code: str | None, message: str) -> None:
        super().__init__(message)
        self.code = code


def answer(port: Port, op: str, args: dict[str, Any]) -> dict[str, Any]:
    if op == "hello":
        implementation = {
            "name": "mini-deepseek-harness-python",
            "version": getattr(miniharness, "__version__", "unknown"),
            "language": "python",
        }
        return {"ok": {"protocol": PROTOCOL, "implementation": implementation, "dialect": DIALECT,
                       "features": []}}
    if op in ("reset", "bye"):
        port.reset()
        return {"ok": None}
    method = getattr(port, "op_" + op.replace(".", "_"), None)
    if method is None:
        return {"unsupported": f"the port has no operation for {op}"}
    if isinstance(args.get("time"), int):
        NOW[0] = args["time"]
    try:
        value = method(decode(args))
    except Unsupported as reason:
        return {"unsupported": str(reason)}
    except Coded as error:
        return {"error": {"code": error.code, "message": str(error)}}
    except Exception as error:  # the port raises plain exceptions; the message says which rule
        return {"error": {"code": code_of(error), "message": f"{type(error).__name__}: {error}"}}
    return {"ok": value}


def main() -> None:
    port = Port()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        reply = answer(port, request["op"], request.get("args", {}))
        text = json.dumps({"id": request["id"], **reply}, ensure_ascii=True, default=str)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        if request["op"] == "bye":
            return


if __name__ == "__main__":
    main()

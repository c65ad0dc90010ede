"""The adapter over this library: each protocol operation as a call of ``dsh_session``'s public API.

This is the worked example of an adapter (``conformance/adapters/python/``
runs it as a program): keep handles by name, feed the clock the step's
``time``, turn JSON arguments into the library's values and results back into
JSON, and report every error by its registry code. Nothing here decides a
result; the library does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import dsh_session
from dsh_session import (
    AgentStatusMonitor,
    DshSessionError,
    EpochHeader,
    Event,
    HeaderDelta,
    JsonlBackend,
    MemoryBackend,
    NotJsonError,
    PersistenceCoordinator,
    Replace,
    Session,
    SessionBackend,
    SessionHeader,
    SessionMeta,
    SessionStore,
    SqliteBackend,
    StoredSession,
    StoreObserver,
    apply_header_delta,
    check_log,
    check_loop_request,
    copy_sessions,
    diff_header,
    freeze,
    header_equals,
    interrupted_turn_closers,
    next_header_event,
    region_balanced,
    thaw,
    tool_pairing_balanced,
    verify_copy,
)
from dsh_session.conformance.adapter import CodedError, Unsupported, named, op_method
from dsh_session.conformance.protocol import DIALECT, FEATURES, decode_args
from dsh_session.errors import Code


class _Clock:
    """The time the current step said to use."""

    def __init__(self) -> None:
        self.now = 0

    def __call__(self) -> int:
        return self.now


class _Recorder(StoreObserver):
    """An observer that writes down what it hears and raises where it was told to."""

    def __init__(self, fail: str | None) -> None:
        self.fail = fail
        self.heard: list[list[Any]] = []

    def session_created(self, session: Session) -> None:
        self.heard.append(["created", session.id])
        if self.fail == "created":
            raise RuntimeError("observer told to fail on session_created")

    def session_event(self, session: Session, event: Event) -> None:
        self.heard.append(["event", session.id, event.seq])
        if self.fail == "event":
            raise RuntimeError("observer told to fail on session_event")


class _StoreState:
    def __init__(self, clock: _Clock) -> None:
        self.errors: list[dict[str, Any]] = []
        self.store = SessionStore(clock=clock, on_observer_error=self._report)

    def _report(self, error: dsh_session.ObserverError) -> None:
        self.errors.append({"code": str(error.code), "session": error.session_id, "seq": error.seq})


class LibraryAdapter:
    """The conformance handler for ``dsh_session`` (see :class:`~.adapter.Handler`)."""

    dialect = DIALECT
    features = frozenset(FEATURES)

    def __init__(self) -> None:
        self.reset()

    def describe(self) -> dict[str, Any]:
        return {"name": "dsh-session", "version": dsh_session.__version__, "language": "python"}

    def reset(self) -> None:
        self.clock = _Clock()
        self.sessions: dict[str, Session] = {}
        self.stores: dict[str, _StoreState] = {}
        self.backends: dict[str, SessionBackend] = {}
        self.observers: dict[str, _Recorder] = {}
        self.coordinators: dict[str, PersistenceCoordinator] = {}
        self.agents: dict[str, AgentStatusMonitor] = {}

    def classify(self, error: Exception) -> CodedError | None:
        if isinstance(error, DshSessionError):
            return CodedError(str(error.code), error.message)
        if isinstance(error, NotJsonError):
            return CodedError(Code.NON_JSON_DATA.value, error.reason)
        return None

    def handle(self, op: str, args: dict[str, Any]) -> Any:
        method = op_method(self, op, "is not implemented")
        if "time" in args:
            self.clock.now = _int(args["time"], "time")
        return method(decode_args(args))

    # -- handles ---------------------------------------------------------------------------

    def _session(self, args: Mapping[str, Any]) -> Session:
        return named(self.sessions, args, "session", "s")

    def _store(self, args: Mapping[str, Any]) -> _StoreState:
        name = args.get("store", "main")
        if name not in self.stores:
            self.stores[name] = _StoreState(self.clock)
        return self.stores[name]

    def _backend(self, args: Mapping[str, Any]) -> SessionBackend:
        return named(self.backends, args, "backend", "db")

    # -- a session -------------------------------------------------------------------------

    def op_session_new(self, args: dict[str, Any]) -> None:
        created = args.get("createdAt", 0)
        header = SessionHeader(id=args["id"], created_at=created, cwd=args.get("cwd"))
        self.sessions[args.get("session", "s")] = Session(
            args["id"],
            seed=args.get("seed", []),
            header=header,
            clock=self.clock,
            invariants=args.get("invariants", False) is True,
        )

    def op_session_append(self, args: dict[str, Any]) -> Any:
        session = self._session(args)
        if "surfaceOp" in args and args["surfaceOp"] is None:
            raise Unsupported("the Python API cannot pass a present null surfaceOp to append")
        if "sourceEventSeqs" in args and args["sourceEventSeqs"] is None:
            raise Unsupported("the Python API cannot pass a present null sourceEventSeqs to append")
        event = session.append(
            args["type"],
            args["data"],
            surface_op=args.get("surfaceOp"),
            source_event_seqs=args.get("sourceEventSeqs"),
        )
        return event.to_json()

    def op_session_events(self, args: dict[str, Any]) -> Any:
        return self._session(args).events.to_json()

    def op_session_surface(self, args: dict[str, Any]) -> Any:
        return [node._asdict() for node in self._session(args).surface.nodes]

    def op_session_generation(self, args: dict[str, Any]) -> Any:
        return self._session(args).surface.replace_generation

    def op_session_invalidate(self, args: dict[str, Any]) -> None:
        self._session(args).surface.invalidate()

    def op_session_messages(self, args: dict[str, Any]) -> Any:
        return self._session(args).derive_messages().to_json()

    def op_session_event_message(self, args: dict[str, Any]) -> Any:
        session = self._session(args)
        seq = _int(args["seq"], "seq")
        if not 0 <= seq < session.seq:
            raise Unsupported(f"no event with seq {seq}")
        return thaw(session.derive_event_message(session.events[seq]))

    def op_session_closers(self, args: dict[str, Any]) -> Any:
        return [event.to_json() for event in interrupted_turn_closers(self._session(args).events)]

    def op_session_request_header(self, args: dict[str, Any]) -> Any:
        header = self._session(args).request_header()
        return None if header is None else header.to_json()

    def op_session_balanced(self, args: dict[str, Any]) -> Any:
        session = self._session(args)
        return tool_pairing_balanced(session.surface.nodes, session.events, args.get("before"))

    def op_session_region_balanced(self, args: dict[str, Any]) -> Any:
        session = self._session(args)
        return region_balanced(session.surface.nodes, session.events, args["start"], args["end"])

    # -- pure functions ----------------------------------------------------------------------

    def op_log_check(self, args: dict[str, Any]) -> Any:
        return [{"code": str(v.code), "seq": v.seq} for v in check_log(args["records"])]

    def op_header_equals(self, args: dict[str, Any]) -> Any:
        return header_equals(EpochHeader.from_json(args["a"]), EpochHeader.from_json(args["b"]))

    def op_header_diff(self, args: dict[str, Any]) -> Any:
        delta = diff_header(EpochHeader.from_json(args["prev"]), EpochHeader.from_json(args["next"]))
        return None if delta is None else delta.to_json()

    def op_header_apply(self, args: dict[str, Any]) -> Any:
        prev = EpochHeader.from_json(args["prev"])
        return apply_header_delta(prev, HeaderDelta.from_json(args["delta"])).to_json()

    def op_header_next_event(self, args: dict[str, Any]) -> Any:
        prev = None if args.get("prev") is None else EpochHeader.from_json(args["prev"])
        decided = next_header_event(
            prev, EpochHeader.from_json(args["next"]), first_request=args["firstRequest"] is True
        )
        return None if decided is None else {"type": decided[0], "data": thaw(decided[1])}

    # -- the session store -------------------------------------------------------------------

    def op_store_create(self, args: dict[str, Any]) -> Any:
        state = self._store(args)
        meta = SessionMeta(
            cwd=args.get("cwd"),
            parent_session=args.get("parentSession"),
            created_at=args.get("time"),
            seed_length=args.get("seedLength"),
        )
        session = state.store.create(args.get("id"), seed=args.get("seed"), meta=meta)
        self.sessions[args.get("session", "s")] = session
        return session.header.to_json()

    def op_store_fork(self, args: dict[str, Any]) -> Any:
        state = self._store(args)
        source: Session | str
        if "sourceSession" in args:
            source = self._session({"session": args["sourceSession"]})
        else:
            source = args["source"]
        boundary = args.get("boundary")
        if boundary is not None and (type(boundary) not in (int, float, bool) or not _finite(boundary)):
            raise Unsupported(f"a boundary of {boundary!r} cannot be passed to SessionStore.fork")
        child = state.store.fork(source, boundary, args.get("childId"))
        self.sessions[args.get("session", "s")] = child
        return child.header.to_json()

    def op_store_enter(self, args: dict[str, Any]) -> None:
        self._store(args).store.enter(self._session(args))

    def op_store_remove(self, args: dict[str, Any]) -> Any:
        return self._store(args).store.remove(self._session(args))

    def op_store_list(self, args: dict[str, Any]) -> Any:
        return [session.id for session in self._store(args).store.list()]

    def op_store_observe(self, args: dict[str, Any]) -> None:
        recorder = _Recorder(args.get("fail"))
        self.observers[args.get("observer", "o")] = recorder
        self._store(args).store.subscribe(recorder)

    def op_store_observed(self, args: dict[str, Any]) -> Any:
        return self.observers[args.get("observer", "o")].heard

    def op_store_observer_errors(self, args: dict[str, Any]) -> Any:
        return self._store(args).errors

    # -- persistence -------------------------------------------------------------------------

    def op_persist_open(self, args: dict[str, Any]) -> None:
        kind = args["kind"]
        raw_timeout = args.get("lockTimeout", 5.0)
        if type(raw_timeout) not in (int, float):
            raise Unsupported(f"lockTimeout must be a number of seconds, got {raw_timeout!r}")
        timeout = float(raw_timeout)
        backend: SessionBackend
        if kind == "jsonl":
            backend = JsonlBackend(args["path"], lock_timeout=timeout)
        elif kind == "sqlite":
            backend = SqliteBackend(args["path"], busy_timeout=timeout)
        elif kind == "memory":
            backend = MemoryBackend()
        elif kind == "postgres":
            backend = _postgres(args)
        else:
            raise Unsupported(f"no backend kind {kind!r}")
        self.backends[args.get("backend", "db")] = backend

    def op_persist_create(self, args: dict[str, Any]) -> None:
        self._backend(args).create(_header(args["header"]))

    def op_persist_append(self, args: dict[str, Any]) -> None:
        self._backend(args).append(args["id"], [_event(record) for record in args["events"]])

    def op_persist_load(self, args: dict[str, Any]) -> Any:
        stored = self._backend(args).load(args["id"])
        if "session" in args:
            self.sessions[args["session"]] = Session(
                stored.header.id, seed=stored.events, header=stored.header, clock=self.clock
            )
        return _stored_json(stored)

    def op_persist_list(self, args: dict[str, Any]) -> Any:
        return [header.to_json() for header in self._backend(args).list()]

    def op_persist_close(self, args: dict[str, Any]) -> None:
        self._backend(args).close()

    def op_persist_copy(self, args: dict[str, Any]) -> Any:
        src, dst = self._backend({"backend": args["src"]}), self._backend({"backend": args["dst"]})
        return copy_sessions(src, dst, args.get("ids"), verify=args.get("verify", True) is not False)

    def op_persist_verify(self, args: dict[str, Any]) -> Any:
        src, dst = self._backend({"backend": args["src"]}), self._backend({"backend": args["dst"]})
        return verify_copy(src, dst, args.get("ids"))

    # -- the write coordinator ---------------------------------------------------------------

    def _coordinator(self, args: Mapping[str, Any]) -> PersistenceCoordinator:
        return named(self.coordinators, args, "coordinator", "c")

    def op_coord_attach(self, args: dict[str, Any]) -> None:
        # Without flushOn / maxPending the protocol asks for explicit flushes only (the library's own
        # defaults are a policy of ours, asked for by naming them).
        coordinator = PersistenceCoordinator(
            self._store(args).store,
            self._backend(args),
            flush_on=args.get("flushOn", ()),
            max_pending=args.get("maxPending"),
        )
        self.coordinators[args.get("coordinator", "c")] = coordinator

    def op_coord_flush(self, args: dict[str, Any]) -> None:
        self._coordinator(args).flush(self._session(args))

    def op_coord_flush_all(self, args: dict[str, Any]) -> None:
        self._coordinator(args).flush_all()

    def op_coord_flushed(self, args: dict[str, Any]) -> Any:
        return self._coordinator(args).flushed(self._session(args))

    def op_coord_refused(self, args: dict[str, Any]) -> Any:
        refused = self._coordinator(args).refused
        return [{"id": sid, "code": _code(refused[sid])} for sid in sorted(refused)]

    def op_coord_load(self, args: dict[str, Any]) -> Any:
        return _stored_json(self._coordinator(args).load(args["id"]))

    def op_coord_resume(self, args: dict[str, Any]) -> Any:
        session = self._coordinator(args).resume(args["id"])
        self.sessions[args.get("session", "s")] = session
        return session.header.to_json()

    def op_coord_release(self, args: dict[str, Any]) -> None:
        self._coordinator(args).release(self._session(args), discard=args.get("discard") is True)

    def op_coord_close(self, args: dict[str, Any]) -> None:
        self._coordinator(args).close()

    # -- runtime checks ----------------------------------------------------------------------

    def op_agent_status(self, args: dict[str, Any]) -> None:
        name = args.get("agent", "a")
        monitor = self.agents.setdefault(name, AgentStatusMonitor(name))
        monitor.observe(args["status"])

    def op_request_check(self, args: dict[str, Any]) -> None:
        session = self._session(args)
        check_loop_request(session.events, args["request"], session_id=session.id)


def _int(value: Any, what: str) -> int:
    if type(value) is not int:
        raise Unsupported(f"{what} must be an integer, got {value!r}")
    return value


def _finite(value: int | float) -> bool:
    return type(value) is not float or math.isfinite(value)


def _code(error: Exception) -> str | None:
    return str(error.code) if isinstance(error, DshSessionError) else None


def _postgres(args: Mapping[str, Any]) -> SessionBackend:
    """A PostgreSQL backend for ``{host, port, user, database, password?, connectTimeout?}``."""
    try:
        from dsh_session import PostgresBackend
    except ImportError as error:  # pragma: no cover - psycopg missing
        raise Unsupported(f"no PostgreSQL backend here: {error}") from None
    parts = {"host": args["host"], "port": args["port"], "user": args["user"], "dbname": args["database"]}
    if "password" in args:
        parts["password"] = args["password"]
    dsn = " ".join(f"{key}={_conninfo_value(value)}" for key, value in parts.items())
    timeout = args.get("connectTimeout", 10)
    if type(timeout) not in (int, float):
        raise Unsupported(f"connectTimeout must be a number of seconds, got {timeout!r}")
    try:
        return PostgresBackend(dsn, connect_timeout=float(timeout))
    except ImportError as error:  # pragma: no cover - psycopg missing
        raise Unsupported(f"no PostgreSQL backend here: {error}") from None


def _conninfo_value(value: Any) -> str:
    """A libpq connection-string value: quoted, backslashes and quotes escaped."""
    text = str(value)
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _stored_json(stored: StoredSession) -> dict[str, Any]:
    """A loaded session as ``{header, events}``."""
    return {"header": stored.header.to_json(), "events": [event.to_json() for event in stored.events]}


def _header(raw: Mapping[str, Any]) -> SessionHeader:
    """A header from its JSON form (``version, id, createdAt, cwd?, parentSession?, seedLength?``)."""
    return SessionHeader(
        id=raw["id"],
        created_at=raw["createdAt"],
        version=raw.get("version", 0),
        cwd=raw.get("cwd"),
        parent_session=raw.get("parentSession"),
        seed_length=raw.get("seedLength"),
    )


def _event(record: Mapping[str, Any]) -> Event:
    """An :class:`Event` holding a record's fields as given (the backend admits it)."""
    kind, seq, time, data = record["type"], record["seq"], record["time"], record["data"]
    if type(kind) is not str or type(seq) is not int or type(time) is not int:
        raise Unsupported("a batch event needs a string type and integer seq and time")
    refs = record.get("sourceEventSeqs")
    if refs is not None and (type(refs) is not list or any(type(ref) is not int for ref in refs)):
        raise Unsupported("a batch event's sourceEventSeqs must be a list of integers here")
    raw_op = record.get("surfaceOp")
    op: Any = None
    if raw_op == "append":
        op = "append"
    elif type(raw_op) is dict and set(raw_op) == {"op", "start", "end"} and raw_op["op"] == "replace":
        op = Replace(raw_op["start"], raw_op["end"])
    elif raw_op is not None:
        raise Unsupported(f"a batch event cannot carry the surfaceOp {raw_op!r} here")
    order = tuple(record)
    return Event(
        kind,
        seq,
        time,
        freeze(data),
        None if refs is None else tuple(refs),
        op,
        None if order == tuple(key for key in _ORDER if key in record) else order,
    )


_ORDER = ("type", "seq", "time", "data", "sourceEventSeqs", "surfaceOp")

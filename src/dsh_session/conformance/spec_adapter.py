"""The spec adapter: every protocol operation answered by the executable specification.

This handler imports nothing from ``dsh_session``'s implementation: sessions
are tuples of ``dsh_spec`` events and every answer comes from a ``dsh_spec``
function (``check_seed``, ``validate_append``, ``fold_surface``,
``derive_messages``, ``check_log``, ``interrupted_turn_closers``,
``fork_seed``, the request-header codec, ...). What the spec leaves to the
API -- handles, the store's ids and observers, the replace generation's
``invalidate`` offset -- is modelled in a few lines each, from
``docs/errors.md`` and ``docs/deviations.md``, by the spec's models: the store
in :mod:`dsh_spec.store`, the stores on disk in :mod:`dsh_spec.persistence`, the
write coordinator in :mod:`dsh_spec.coordinator`, PostgreSQL connections in
:mod:`dsh_spec.postgres`. A model's :class:`~dsh_spec.refusal.Refused` is a
coded error of the protocol, its :class:`~dsh_spec.refusal.Unmodelled` an
unsupported operation.

The generator runs every scenario through this adapter to write the
expected values of the suite.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import dsh_spec
from dsh_session.conformance.adapter import CodedError, Unsupported, named, op_method
from dsh_session.conformance.protocol import DIALECT, FEATURES, decode_args
from dsh_spec import (
    ABSENT,
    Draft,
    check_log,
    check_seed,
    check_seed_with_invariants,
    closer_json,
    derive_event_message,
    derive_messages,
    fold_request_header,
    fold_surface,
    interrupted_turn_closers,
    region_balanced,
    surface_nodes,
    tool_pairing_balanced,
)
from dsh_spec.coordinator import SpecCoordinator
from dsh_spec.persistence import Loaded, ModelBackend, copy_sessions, verify_copy
from dsh_spec.postgres import open_postgres
from dsh_spec.refusal import Refused, Unmodelled, checked
from dsh_spec.store import Recorder, SpecSession, SpecStore, make_header


def draft_of(args: Mapping[str, Any]) -> Draft:
    return Draft(
        type=args.get("type"),
        time=args.get("time"),
        data=args.get("data"),
        surface_op=args.get("surfaceOp", ABSENT),
        source_event_seqs=args.get("sourceEventSeqs", ABSENT),
    )


class SpecAdapter:
    """The conformance handler backed by ``dsh_spec`` (see :class:`~.adapter.Handler`)."""

    dialect = DIALECT
    features = frozenset(FEATURES)

    def __init__(self) -> None:
        self.reset()

    def describe(self) -> dict[str, Any]:
        return {"name": "dsh_spec", "version": "executable specification", "language": "python"}

    def reset(self) -> None:
        self.sessions: dict[str, SpecSession] = {}
        self.stores: dict[str, SpecStore] = {}
        self.observers: dict[str, Recorder] = {}
        self.backends: dict[str, ModelBackend] = {}
        self.coordinators: dict[str, SpecCoordinator] = {}
        self.statuses: dict[str, list[str]] = {}

    def classify(self, error: Exception) -> CodedError | None:
        if isinstance(error, Refused):
            return CodedError(error.code.value, error.message)
        return None

    def handle(self, op: str, args: dict[str, Any]) -> Any:
        try:
            return op_method(self, op, "is not modelled")(decode_args(args))
        except Unmodelled as error:
            raise Unsupported(str(error)) from None

    # -- handles ---------------------------------------------------------------------------

    def session(self, args: Mapping[str, Any]) -> SpecSession:
        return named(self.sessions, args, "session", "s")

    def store(self, args: Mapping[str, Any]) -> SpecStore:
        return self.stores.setdefault(args.get("store", "main"), SpecStore())

    # -- a session -------------------------------------------------------------------------

    def op_session_new(self, args: dict[str, Any]) -> None:
        records = args.get("seed", [])
        check = check_seed_with_invariants if args.get("invariants") is True else check_seed
        events = checked(check(records))
        meta = {"cwd": args.get("cwd")}
        header = make_header(args["id"], args.get("createdAt", 0), meta)
        session = SpecSession(args["id"], header, events, invariants=args.get("invariants") is True)
        self.sessions[args.get("session", "s")] = session

    def op_session_append(self, args: dict[str, Any]) -> Any:
        session = self.session(args)
        return session.record(session.append(draft_of(args)))

    def op_session_events(self, args: dict[str, Any]) -> Any:
        session = self.session(args)
        return [session.record(event) for event in session.log]

    def _surface(self, session: SpecSession) -> dsh_spec.Surface:
        surface = checked(fold_surface(session.log))
        assert isinstance(surface, dsh_spec.Surface)
        return surface

    def op_session_surface(self, args: dict[str, Any]) -> Any:
        surface = self._surface(self.session(args))
        return [node._asdict() for node in surface_nodes(surface)]

    def op_session_generation(self, args: dict[str, Any]) -> Any:
        session = self.session(args)
        return self._surface(session).generation + session.offset

    def op_session_invalidate(self, args: dict[str, Any]) -> None:
        # The reference's rule (docs/dialect-3fe196a751.md §C5.5): invalidating adds one, and the
        # refold counts every replace of the log again.
        session = self.session(args)
        session.offset += self._surface(session).generation + 1

    def op_session_messages(self, args: dict[str, Any]) -> Any:
        return list(checked(derive_messages(self.session(args).log)))

    def op_session_event_message(self, args: dict[str, Any]) -> Any:
        log = self.session(args).log
        seq = args["seq"]
        if type(seq) is not int or not 0 <= seq < len(log):
            raise Unsupported(f"no event with seq {seq!r}")
        return derive_event_message(log[seq])

    def op_session_closers(self, args: dict[str, Any]) -> Any:
        return [closer_json(event) for event in interrupted_turn_closers(self.session(args).log)]

    def op_session_request_header(self, args: dict[str, Any]) -> Any:
        header = checked(fold_request_header(self.session(args).log))
        return None if header is None else dsh_spec.header_json(header)

    def op_session_balanced(self, args: dict[str, Any]) -> Any:
        return checked(tool_pairing_balanced(self.session(args).log, args.get("before")))

    def op_session_region_balanced(self, args: dict[str, Any]) -> Any:
        return checked(region_balanced(self.session(args).log, args["start"], args["end"]))

    # -- pure functions --------------------------------------------------------------------

    def op_log_check(self, args: dict[str, Any]) -> Any:
        return [{"code": found.code.value, "seq": found.seq} for found in check_log(args["records"])]

    def _header(self, value: Any) -> dsh_spec.EpochHeader:
        header = checked(dsh_spec.parse_header(value))
        assert isinstance(header, dsh_spec.EpochHeader)
        return dsh_spec.canonical_header(header)

    def op_header_equals(self, args: dict[str, Any]) -> Any:
        return dsh_spec.header_equals(self._header(args["a"]), self._header(args["b"]))

    def op_header_diff(self, args: dict[str, Any]) -> Any:
        delta = dsh_spec.diff_header(self._header(args["prev"]), self._header(args["next"]))
        return None if delta is None else dsh_spec.delta_json(delta)

    def op_header_apply(self, args: dict[str, Any]) -> Any:
        delta = checked(dsh_spec.parse_delta(args["delta"]))
        return dsh_spec.header_json(dsh_spec.apply_header_delta(self._header(args["prev"]), delta))

    def op_header_next_event(self, args: dict[str, Any]) -> Any:
        prev = None if args.get("prev") is None else self._header(args["prev"])
        decided = dsh_spec.next_header_event(prev, self._header(args["next"]), args["firstRequest"] is True)
        return None if decided is None else {"type": decided[0], "data": decided[1]}

    # -- the session store -----------------------------------------------------------------

    def op_store_create(self, args: dict[str, Any]) -> Any:
        session = self.store(args).create(args.get("id"), args.get("seed") or [], args, args["time"])
        self.sessions[args.get("session", "s")] = session
        return session.header

    def op_store_fork(self, args: dict[str, Any]) -> Any:
        source: str | SpecSession
        source = (
            self.session({"session": args["sourceSession"]}) if "sourceSession" in args else args["source"]
        )
        child = self.store(args).fork(source, args.get("boundary"), args.get("childId"), args["time"])
        self.sessions[args.get("session", "s")] = child
        return child.header

    def op_store_enter(self, args: dict[str, Any]) -> None:
        self.store(args).enter(self.session(args))

    def op_store_remove(self, args: dict[str, Any]) -> Any:
        return self.store(args).remove(self.session(args))

    def op_store_list(self, args: dict[str, Any]) -> Any:
        return list(self.store(args).live)

    def op_store_observe(self, args: dict[str, Any]) -> None:
        recorder = Recorder(args.get("fail"))
        self.observers[args.get("observer", "o")] = recorder
        self.store(args).observers.append(recorder)

    def op_store_observed(self, args: dict[str, Any]) -> Any:
        return self.observers[args.get("observer", "o")].heard

    def op_store_observer_errors(self, args: dict[str, Any]) -> Any:
        return self.store(args).errors

    # -- persistence -----------------------------------------------------------------------

    def _backend(self, args: Mapping[str, Any]) -> ModelBackend:
        return named(self.backends, args, "backend", "db")

    def op_persist_open(self, args: dict[str, Any]) -> None:
        if args.get("kind") == "postgres":
            open_postgres(args)  # raises: the spec models the connection, not a store on a server
        backend = ModelBackend.open(args["kind"], args.get("path"), args.get("lockTimeout", 5.0))
        self.backends[args.get("backend", "db")] = backend

    def op_persist_create(self, args: dict[str, Any]) -> None:
        self._backend(args).create(args["header"])

    def op_persist_append(self, args: dict[str, Any]) -> None:
        self._backend(args).append(args["id"], args["events"])

    def op_persist_load(self, args: dict[str, Any]) -> Any:
        session = _loaded(self._backend(args).load(args["id"]))
        if "session" in args:
            self.sessions[args["session"]] = session
        return _stored_json(session)

    def op_persist_list(self, args: dict[str, Any]) -> Any:
        return self._backend(args).list_headers()

    def op_persist_close(self, args: dict[str, Any]) -> None:
        self._backend(args).close()

    def op_persist_copy(self, args: dict[str, Any]) -> Any:
        src, dst = self._backend({"backend": args["src"]}), self._backend({"backend": args["dst"]})
        return copy_sessions(src, dst, args.get("ids"), args.get("verify", True) is not False)

    def op_persist_verify(self, args: dict[str, Any]) -> Any:
        src, dst = self._backend({"backend": args["src"]}), self._backend({"backend": args["dst"]})
        return verify_copy(src, dst, args.get("ids"))

    # -- the write coordinator -------------------------------------------------------------

    def _coordinator(self, args: Mapping[str, Any]) -> SpecCoordinator:
        return named(self.coordinators, args, "coordinator", "c")

    def op_coord_attach(self, args: dict[str, Any]) -> None:
        # Without flushOn / maxPending only explicit flushes write (the protocol's default).
        flush_on = args.get("flushOn", ())
        max_pending = args.get("maxPending")
        coordinator = SpecCoordinator(self.store(args), self._backend(args), flush_on, max_pending)
        self.coordinators[args.get("coordinator", "c")] = coordinator

    def op_coord_flush(self, args: dict[str, Any]) -> None:
        self._coordinator(args).flush(self.session(args))

    def op_coord_flush_all(self, args: dict[str, Any]) -> None:
        self._coordinator(args).flush_all()

    def op_coord_flushed(self, args: dict[str, Any]) -> Any:
        return self._coordinator(args).flushed(self.session(args))

    def op_coord_refused(self, args: dict[str, Any]) -> Any:
        return self._coordinator(args).refusals()

    def op_coord_load(self, args: dict[str, Any]) -> Any:
        return _stored_json(_loaded(self._coordinator(args).load(args["id"])))

    def op_coord_resume(self, args: dict[str, Any]) -> Any:
        session = self._coordinator(args).resume(args["id"])
        self.sessions[args.get("session", "s")] = session
        return session.header

    def op_coord_release(self, args: dict[str, Any]) -> None:
        self._coordinator(args).release(self.session(args), args.get("discard") is True)

    def op_coord_close(self, args: dict[str, Any]) -> None:
        self._coordinator(args).close()

    # -- runtime checks --------------------------------------------------------------------

    def op_agent_status(self, args: dict[str, Any]) -> None:
        # Every announcement is kept; the spec judges each against the last accepted one.
        seen = self.statuses.setdefault(args.get("agent", "a"), [])
        seen.append(args["status"])
        refused = dsh_spec.check_status_transitions(seen)
        if refused and refused[-1].seq == len(seen) - 1:
            checked(refused[-1])

    def op_request_check(self, args: dict[str, Any]) -> None:
        session = self.session(args)
        checked(dsh_spec.check_loop_request(session.log, args["request"], session.id))


def _loaded(loaded: Loaded) -> SpecSession:
    """The session a store loaded."""
    header, events, orders = loaded
    return SpecSession(header["id"], header, events, orders=orders)


def _stored_json(session: SpecSession) -> dict[str, Any]:
    """A loaded session as ``{header, events}``."""
    return {"header": session.header, "events": [session.record(event) for event in session.log]}

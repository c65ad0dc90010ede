"""What the write-coordinator tests share: a recording backend wrapper, a clock, turn builders."""

from __future__ import annotations

import builtins
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from dsh_session import (
    Event,
    ObserverError,
    PersistenceError,
    Session,
    SessionBackend,
    SessionHeader,
    StoredSession,
    StoreIOError,
)

#: Options that turn the automatic flushes off: only explicit flushes write.
MANUAL: dict[str, Any] = {"flush_on": (), "max_pending": None}


class Clock:
    """Milliseconds 1, 2, 3, ... (deterministic event times and createdAt)."""

    def __init__(self, start: int = 1000) -> None:
        self.now = start - 1

    def __call__(self) -> int:
        self.now += 1
        return self.now


@dataclass
class Call:
    op: str
    session_id: str
    seqs: tuple[int, ...] = ()
    close_turn: bool = True


@dataclass
class RecordingBackend:
    """A backend that forwards to ``inner``, records every call, and fails on request.

    ``fail_appends``: the next so many ``append`` calls raise ``STORE_IO``
    without reaching ``inner``.
    """

    inner: SessionBackend
    calls: list[Call] = field(default_factory=list)
    fail_appends: int = 0
    failed: int = 0  # appends refused by fail_appends so far
    lock: threading.Lock = field(default_factory=threading.Lock)

    def create(self, header: SessionHeader) -> None:
        self.calls.append(Call("create", header.id))
        self.inner.create(header)

    def append(self, session_id: str, events: Iterable[Event]) -> None:
        batch = list(events)
        with self.lock:
            if self.fail_appends:
                self.fail_appends -= 1
                self.failed += 1
                raise StoreIOError("injected failure: no space left", path=None, errno=28)
        self.inner.append(session_id, batch)
        self.calls.append(Call("append", session_id, tuple(event.seq for event in batch)))

    def load(self, session_id: str, *, close_turn: bool = True) -> StoredSession:
        self.calls.append(Call("load", session_id, close_turn=close_turn))
        return self.inner.load(session_id, close_turn=close_turn)

    def list(self) -> tuple[SessionHeader, ...]:
        return self.inner.list()

    def close(self) -> None:
        self.calls.append(Call("close", ""))
        self.inner.close()

    def appends(self, session_id: str) -> builtins.list[tuple[int, ...]]:
        """The seqs of each batch appended (successfully) for the session, in order."""
        return [call.seqs for call in self.calls if call.op == "append" and call.session_id == session_id]

    def probes(self, session_id: str) -> int:
        """How often the coordinator read the session to bind it (a load that closes no turn)."""
        return sum(
            1 for c in self.calls if c.op == "load" and c.session_id == session_id and not c.close_turn
        )


def refusal(error: BaseException) -> PersistenceError:
    """The coordinator's refusal behind a store's ``ObserverError`` (from create / fork / resume)."""
    assert isinstance(error, ObserverError), repr(error)
    cause = error.__cause__
    assert isinstance(cause, PersistenceError), repr(cause)
    return cause


# -- events appended through a live session ------------------------------------------------------


def turn_start(session: Session, turn: int = 1) -> Event:
    return session.append(
        "turn/start", {"turn": turn, "trigger": {"kind": "message", "source": {"kind": "user"}}}
    )


def user(session: Session, text: str = "hi") -> Event:
    return session.append(
        "user/message",
        {"content": [{"type": "text", "text": text}], "source": {"kind": "user"}},
        surface_op="append",
    )


def step_start(session: Session, turn: int = 1, step: int = 1) -> Event:
    return session.append("step/start", {"turn": turn, "step": step})


def step_end(session: Session, turn: int = 1, step: int = 1) -> Event:
    return session.append("step/end", {"turn": turn, "step": step})


def assistant(session: Session, turn: int = 1, text: str = "ok", calls: Iterable[str] = ()) -> Event:
    content: list[Any] = [{"type": "text", "text": text}]
    content += [{"type": "tool-call", "id": call, "name": "bash", "arguments": "{}"} for call in calls]
    return session.append(
        "assistant/message", {"turn": turn, "step": 1, "content": content}, surface_op="append"
    )


def turn_end(session: Session, turn: int = 1, kind: str = "completed") -> Event:
    return session.append("turn/end", {"turn": turn, "reason": {"kind": kind}})


def one_turn(session: Session, turn: int = 1, text: str = "hi") -> list[Event]:
    """A finished turn: user message, one step with an assistant reply: 6 events."""
    return [
        turn_start(session, turn),
        user(session, text),
        step_start(session, turn),
        assistant(session, turn, f"re: {text}"),
        step_end(session, turn),
        turn_end(session, turn),
    ]

"""Building admissible event logs for tests, with a deterministic clock.

``LogBuilder`` appends through a real ``Session``, so every log it builds has
passed admission; times are 1, 2, 3, ... unless given.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dsh_session import Event, Session, SessionHeader

CREATED_AT = 1767225600000


class LogBuilder:
    """A session under construction; each method appends one event and returns it."""

    def __init__(self, session_id: str = "s", *, start_time: int = 1) -> None:
        self._time = start_time - 1
        self.session = Session(session_id, header=header(session_id), clock=self._tick)

    def _tick(self) -> int:
        self._time += 1
        return self._time

    @property
    def events(self) -> list[Event]:
        return list(self.session.events)

    def add(self, kind: str, data: Any, **options: Any) -> Event:
        return self.session.append(kind, data, **options)

    def turn_start(self, turn: int = 1) -> Event:
        return self.add(
            "turn/start", {"turn": turn, "trigger": {"kind": "message", "source": {"kind": "user"}}}
        )

    def turn_end(self, turn: int = 1, kind: str = "completed") -> Event:
        return self.add("turn/end", {"turn": turn, "reason": {"kind": kind}})

    def step_start(self, turn: int = 1, step: int = 1) -> Event:
        return self.add("step/start", {"turn": turn, "step": step})

    def step_end(self, turn: int = 1, step: int = 1) -> Event:
        return self.add("step/end", {"turn": turn, "step": step})

    def user(self, text: str = "hi") -> Event:
        return self.add(
            "user/message",
            {"content": [{"type": "text", "text": text}], "source": {"kind": "user"}},
            surface_op="append",
        )

    def chunk(self, turn: int = 1, step: int = 1, text: str = "x") -> Event:
        return self.add(
            "assistant/chunk",
            {"turn": turn, "step": step, "chunk": {"type": "text-delta", "index": 0, "text": text}},
        )

    def assistant(
        self, turn: int = 1, step: int = 1, text: str = "ok", calls: Iterable[str] = (), **options: Any
    ) -> Event:
        content: list[Any] = [{"type": "text", "text": text}]
        content += [{"type": "tool-call", "id": call, "name": "bash", "arguments": "{}"} for call in calls]
        return self.add(
            "assistant/message",
            {"turn": turn, "step": step, "content": content},
            surface_op="append",
            **options,
        )

    def tool_call(self, call_id: str, turn: int = 1, step: int = 1) -> Event:
        return self.add("tool/call", {"turn": turn, "step": step, "callId": call_id, "name": "bash"})

    def tool_result(self, call_id: str, turn: int = 1, step: int = 1, **options: Any) -> Event:
        return self.add(
            "tool/result",
            {
                "turn": turn,
                "step": step,
                "callId": call_id,
                "content": [{"type": "text", "text": "done"}],
                "isError": False,
            },
            surface_op="append",
            **options,
        )

    def one_turn(self, turn: int = 1, text: str = "hi") -> list[Event]:
        """user message, step with an assistant reply, turn end: 6 events."""
        return [
            self.turn_start(turn),
            self.user(text),
            self.step_start(turn),
            self.assistant(turn, text=f"re: {text}"),
            self.step_end(turn),
            self.turn_end(turn),
        ]


def one_turn_log(session_id: str = "s", turns: int = 1) -> list[Event]:
    builder = LogBuilder(session_id)
    for turn in range(1, turns + 1):
        builder.one_turn(turn, text=f"message {turn}")
    return builder.events


def header(session_id: str = "s", **fields: Any) -> SessionHeader:
    return SessionHeader(id=session_id, created_at=CREATED_AT, **fields)

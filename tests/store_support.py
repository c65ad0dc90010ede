"""Builders and strategies shared by the store, fork and request-header tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from hypothesis import strategies as st

import dsh_spec
from dsh_session import Event, Session
from dsh_session.js_json import dumps

FIXED_TIME = 1_767_225_600_000


def fixed_clock() -> int:
    return FIXED_TIME


# -- event payloads ------------------------------------------------------------------------------

TURN_END_REASONS: list[dict[str, Any]] = [
    {"kind": "completed"},
    {"kind": "aborted"},
    {"kind": "error", "step": 1, "message": "boom"},
    {"kind": "disposed"},
    {"kind": "max-tokens"},
    {"kind": "interrupted"},
]


def text(value: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": value}]


def user_data(value: str) -> dict[str, Any]:
    return {"content": text(value), "source": {"kind": "user"}}


def assistant_data(value: str, turn: int = 1, step: int = 1) -> dict[str, Any]:
    return {"turn": turn, "step": step, "content": text(value)}


def closed_turn(session: Session, turn: int, said: str, reason: dict[str, Any] | None = None) -> Event:
    """``turn/start``, a user message, ``turn/end``; returns the ``turn/end``."""
    session.append("turn/start", {"turn": turn, "trigger": {"kind": "message", "source": {"kind": "user"}}})
    session.append("user/message", user_data(said), surface_op="append")
    return session.append("turn/end", {"turn": turn, "reason": reason or {"kind": "completed"}})


def spec_events(events: Iterable[Event]) -> tuple[dsh_spec.Event, ...]:
    """The implementation's events as the spec's (read back through the spec's seed rules)."""
    parsed = dsh_spec.check_seed([event.to_json() for event in events])
    assert not isinstance(parsed, dsh_spec.Rejection), parsed
    return parsed


def records(events: Iterable[Event]) -> list[dict[str, Any]]:
    return [event.to_json() for event in events]


def messages_text(messages: Sequence[Any]) -> str:
    return dumps(list(messages))


# -- request headers -----------------------------------------------------------------------------

LINES = ["alpha", "beta", "gamma", "", "beta"]


def _system() -> st.SearchStrategy[str | None]:
    return st.one_of(st.none(), st.just(""), st.lists(st.sampled_from(LINES), max_size=5).map("\n".join))


def _config() -> st.SearchStrategy[dict[str, Any]]:
    entries = st.fixed_dictionaries(
        {"model": st.sampled_from(["m1", "m2"])},
        optional={
            "temperature": st.sampled_from([0, 0.1, 1.0, 0.5]),
            "maxTokens": st.sampled_from([100, 200]),
            "stop": st.lists(st.sampled_from(["x", "y"]), max_size=2),
        },
    )
    return entries.flatmap(
        lambda config: st.permutations(list(config)).map(lambda keys: {key: config[key] for key in keys})
    )


def _tool() -> st.SearchStrategy[dict[str, Any]]:
    def build(name: str, description: str, flipped: bool) -> dict[str, Any]:
        tool = {"name": name, "description": description, "parameters": {"type": "object"}}
        if flipped:
            return {"description": description, "name": name, "parameters": {"type": "object"}}
        return tool

    return st.builds(build, st.sampled_from(["a", "b", "c", "d"]), st.sampled_from(["x", "y"]), st.booleans())


def _tools() -> st.SearchStrategy[list[dict[str, Any]] | None]:
    return st.one_of(st.none(), st.lists(_tool(), max_size=4))


def _prefix() -> st.SearchStrategy[list[dict[str, Any]] | None]:
    message = st.builds(lambda t: {"role": "user", "content": text(t)}, st.sampled_from(["p", "q"]))
    return st.one_of(st.none(), st.lists(message, max_size=2))


def header_jsons() -> st.SearchStrategy[dict[str, Any]]:
    """Header objects as a writer might build them (not necessarily canonical)."""

    def build(
        config: dict[str, Any],
        system: str | None,
        tools: list[dict[str, Any]] | None,
        prefix: list[dict[str, Any]] | None,
    ) -> dict[str, Any]:
        out: dict[str, Any] = {"config": config}
        if system is not None:
            out["system"] = system
        if tools is not None:
            out["tools"] = tools
        if prefix is not None:
            out["messagePrefix"] = prefix
        return out

    return st.builds(build, _config(), _system(), _tools(), _prefix())


def delta_jsons() -> st.SearchStrategy[dict[str, Any]]:
    """Well-shaped deltas, including ones no writer would produce (unknown names, long keeps)."""
    system = st.fixed_dictionaries(
        {
            "keepStart": st.integers(0, 6),
            "keepEnd": st.integers(0, 6),
            "insert": st.lists(st.sampled_from(LINES), max_size=3),
        }
    )
    tools = st.fixed_dictionaries(
        {
            "added": st.lists(_tool(), max_size=2),
            "removed": st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=2),
            "changed": st.lists(_tool(), max_size=2),
        }
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "system": system,
            "tools": tools,
            "config": _config(),
            "messagePrefix": _prefix().map(list_or_empty),
        },
    )


def list_or_empty(value: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    return value or []

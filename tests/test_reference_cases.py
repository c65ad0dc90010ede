"""Real logs written and derived by the TypeScript reference: we derive exactly what it derived.

Each case (the ``expected.json`` of every reference case that loaded, see
``tests/reference.py``) holds the events the reference
loaded and what it made of them: the surface nodes with their links, the
replace generation of a fresh session, and the message history. Both the
implementation and the spec must reproduce all of it, type-strictly. (Crash
closers are stored with ``surfaceOp`` before ``sourceEventSeqs``; an event
record here always has ``append``'s key order, so the comparison of events
puts the reference's records in that order first. Keeping a stored line's
bytes is the persistence layer's business.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import dsh_spec
from dsh_session import Session
from dsh_session.js_json import loads
from tests.reference import CASES, RECORDS
from tests.support import assert_same_json

#: What the reference loaded and derived, for every case it loaded (a rejected store has no such record).
CASE_FILES = [RECORDS / case / "expected.json" for case in CASES if not case.startswith("reject-")]


def load_case(path: Path) -> dict[str, Any]:
    case: dict[str, Any] = loads(path.read_bytes())
    return case


def test_the_cases_are_there() -> None:
    assert len(CASE_FILES) >= 16


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.parent.name for p in CASE_FILES])
def test_the_implementation_derives_what_the_reference_derived(path: Path) -> None:
    case = load_case(path)
    session = Session(case["meta"]["id"], case["events"])
    assert session.seq == len(case["events"])
    assert_same_json([e.to_json() for e in session.events], _in_append_order(case["events"]))
    assert_same_json([n._asdict() for n in session.surface.nodes], case["surface"])
    assert session.surface.replace_generation == case["generation"]
    assert_same_json(list(session.derive_messages()), case["messages"])


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.parent.name for p in CASE_FILES])
def test_the_spec_derives_what_the_reference_derived(path: Path) -> None:
    case = load_case(path)
    plain = [_thawed(record) for record in case["events"]]
    events = dsh_spec.check_seed(plain)
    assert not isinstance(events, dsh_spec.Rejection), events
    surface = dsh_spec.fold_surface(events)
    assert isinstance(surface, dsh_spec.Surface)
    assert_same_json([n._asdict() for n in dsh_spec.surface_nodes(surface)], case["surface"])
    assert surface.generation == case["generation"]
    messages = dsh_spec.derive_messages(events)
    assert not isinstance(messages, dsh_spec.Rejection)
    assert_same_json(list(messages), case["messages"])
    assert_same_json([dsh_spec.event_json(e) for e in events], _in_append_order(case["events"]))


def _thawed(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _thawed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_thawed(item) for item in value]
    return value


def _in_append_order(records: list[Any]) -> list[dict[str, Any]]:
    return [{key: record[key] for key in dsh_spec.EVENT_KEYS if key in record} for record in records]

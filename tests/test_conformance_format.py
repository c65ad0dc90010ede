"""The suite's comparison rules and the checks a case file must pass."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dsh_session.conformance.cases import CaseError, parse_case
from dsh_session.conformance.compare import difference
from dsh_session.conformance.protocol import build_nonjson, decode_args


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        (1, 1.0),
        (1.0, 1),
        (-0.0, 0),
        (2**53, 9007199254740992.0),
        ({"a": 1, "b": [True, None]}, {"b": [True, None], "a": 1.0}),
        ("\ud800", "\ud800"),
        ([], []),
    ],
)
def test_equal_values(actual: Any, expected: Any) -> None:
    assert difference(actual, expected) is None


@pytest.mark.parametrize(
    ("actual", "expected", "where"),
    [
        (True, 1, "$"),
        (1, True, "$"),
        (0, False, "$"),
        (None, 0, "$"),
        ({"a": None}, {}, "unexpected key(s) 'a'"),
        ({}, {"a": None}, "missing key(s) 'a'"),
        ([1, 2], [2, 1], "$[0]"),
        ([1], [1, 1], "expected 2 item(s)"),
        ("1", 1, "$"),
        ({"a": {"b": [1, {"c": 2}]}}, {"a": {"b": [1, {"c": 3}]}}, "$.a.b[1].c"),
        (0.1 + 0.2, 0.3, "$"),
    ],
)
def test_unequal_values_name_where(actual: Any, expected: Any, where: str) -> None:
    found = difference(actual, expected)
    assert found is not None and where in found


def _case(**changes: Any) -> dict[str, Any]:
    case: dict[str, Any] = {
        "id": "surface.example",
        "description": "An example",
        "spec": ["dsh_spec.surface.step"],
        "profile": "core",
        "area": "surface",
        "dialect": "every",
        "features": [],
        "steps": [
            {"op": "session.new", "args": {"id": "s"}, "expect": {"ok": None}},
            {"op": "session.surface", "args": {}, "expect": {"ok": []}},
        ],
    }
    case.update(changes)
    return case


def test_a_valid_case_parses() -> None:
    case = parse_case(_case(), "x")
    assert case.to_json() == json.loads(json.dumps(_case()))


def _steps(*expects: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"op": "session.events", "args": {}, "expect": expect} for expect in expects]


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"id": "Surface.Example"}, "lower-case"),
        ({"id": "json-value.example"}, "must start with its area"),
        ({"description": "two\nlines"}, "one non-empty line"),
        ({"spec": []}, "spec"),
        ({"profile": "lenient"}, "profile"),
        ({"area": "elsewhere", "id": "elsewhere.x"}, "area"),
        ({"steps": []}, "steps"),
        ({"steps": [{"op": "session.fly", "args": {}, "expect": {"ok": None}}]}, "unknown operation"),
        ({"steps": _steps({"error": "NOT_A_CODE", "by": 0})}, "not a registry error code"),
        ({"steps": _steps({"ok": 1}, {"error": "OPEN_TURN", "by": 0})}, "by must be"),
        (
            {"steps": _steps({"error": "OPEN_TURN", "by": 1}, {"ok": 1}, {"ok": 2})},
            "must end at the last step",
        ),
        ({"steps": _steps({"error": "OPEN_TURN", "by": 1}, {"ok": 1})}, "must expect the same"),
        ({"steps": _steps({"error": "OPEN_TURN", "by": 5})}, "must end at the last step"),
        ({"steps": _steps({"ok": 9007199254740993})}, "beyond 2**53"),
        ({"steps": _steps({"ok": {"$nonjson": "huge"}})}, "unknown $nonjson kind"),
        ({"steps": _steps({"ok": 1, "error": "OPEN_TURN"})}, "expect is"),
        ({"extra": 1}, "unknown key"),
        ({"dialect": "611615650f"}, "dialect must be one of"),
        ({"features": ["backend.floppy"]}, "known features"),
        ({"features": ["copy", "backend.jsonl"]}, "sorted"),
        ({"features": "copy"}, "known features"),
    ],
)
def test_malformed_cases_are_refused(changes: dict[str, Any], problem: str) -> None:
    with pytest.raises(CaseError, match=problem.replace("*", r"\*").replace("$", r"\$")):
        parse_case(_case(**changes), "x")


def test_an_error_due_at_its_step_may_be_followed_by_more_steps() -> None:
    case = parse_case(_case(steps=_steps({"error": "OPEN_TURN", "by": 0}, {"ok": []})), "x")
    assert case.steps[0].expect.code == "OPEN_TURN" and case.steps[1].expect.value == []


def test_nonjson_placeholders_become_the_values_they_name() -> None:
    decoded = decode_args({"a": [{"$nonjson": "nan"}, {"$nonjson": "integer:9007199254740993"}], "b": 1})
    assert decoded["a"][0] != decoded["a"][0]  # NaN
    assert decoded["a"][1] == 2**53 + 1 and decoded["b"] == 1
    loop = build_nonjson("cycle")
    assert loop[0] is loop
    assert build_nonjson("-infinity") < -1e308
    with pytest.raises(ValueError, match="unknown"):
        build_nonjson("nothing")
    assert decode_args({"$nonjson": "nan", "other": 1}) == {"$nonjson": "nan", "other": 1}

"""The error-code registry and its documentation agree."""

from __future__ import annotations

import re
from pathlib import Path

import dsh_session
import dsh_spec
from dsh_spec.codes import Code

DOCS = Path(__file__).resolve().parent.parent / "docs"


def documented_codes() -> list[str]:
    text = (DOCS / "errors.md").read_text("utf-8")
    return re.findall(r"^## ([A-Z][A-Z0-9_]+)\s*$", text, flags=re.MULTILINE)


def test_every_code_is_documented_once() -> None:
    documented = documented_codes()
    assert sorted(documented) == sorted(code.value for code in Code)
    assert len(documented) == len(set(documented))


def test_code_values_are_their_names() -> None:
    for code in Code:
        assert code.value == code.name


def test_spec_and_implementation_share_constants() -> None:
    assert dsh_spec.SURFACE_TYPES == dsh_session.SURFACE_TYPES
    assert dsh_spec.SESSION_FORMAT_VERSION == dsh_session.SESSION_FORMAT_VERSION == 0
    assert dsh_session.Code is Code

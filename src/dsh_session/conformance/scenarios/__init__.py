"""The scenarios the suite is generated from, one module per area."""

from __future__ import annotations

from dsh_session.conformance.scenario import Scenario


def all_scenarios() -> list[Scenario]:
    """Every scenario of the suite, in a stable order."""
    from dsh_session.conformance.scenarios import (
        admission,
        coordinator,
        invariants,
        persistence,
        projection,
        repair,
        request_header,
        runtime_checks,
        store,
        surface,
        tool_pairing,
    )

    found: list[Scenario] = []
    for module in (
        admission,
        surface,
        projection,
        invariants,
        repair,
        tool_pairing,
        request_header,
        store,
        persistence,
        coordinator,
        runtime_checks,
    ):
        found.extend(module.scenarios())
    return found

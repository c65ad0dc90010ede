"""The profiles the run of the original decided: ``core`` is exactly what the original does.

A scenario says ``core`` or ``strict`` from our reading of the original. Running
the suite against the original itself (the TypeScript adapter,
``conformance/adapters/typescript-reference/``, at ``3fe196a751``; see
``docs/conformance.md``, "The original's run") showed where that reading was
wrong: strict cases the original passes -- so they pin nothing that differs --
and core cases it fails. The generator gives those cases the profile the run
showed; ``conformance/adapters/typescript-reference/check_report.py`` checks a
new run of the original against the suite.
"""

from __future__ import annotations

from typing import Final

#: Strict by our reading; the original does the same.
TO_CORE: Final = frozenset(
    {
        "check-log.gap-reported-once",
        "check-log.s1-seq-gap",
        "check-log.s3-seq-not-from-zero",
        "fork.observer-failure-rolls-back-child",
        "persistence.jsonl-infinite-number-refused",
        "persistence.jsonl-marker-less-event-refused",
        "persistence.sqlite-negative-seq",
        "repair.data-null-has-no-fields",
        "store.announced-id-stays-used",
        "store.remove-is-identity-safe",
        "tool-pairing.call-id-not-a-string",
        "tool-pairing.ids-must-match-before",
        "tool-pairing.results-out-of-order",
        # Generated fixtures whose rule the original enforces the same way.
        "fixtures.event-outside-turn-1",
        "fixtures.header-delta-before-snapshot-1",
        "fixtures.missing-surface-op-1",
        "fixtures.non-json-data-1",
        "fixtures.seq-not-contiguous-1",
        "fixtures.seq-not-increasing-1",
        "fixtures.step-already-open-1",
        "fixtures.step-not-open-1",
        "fixtures.step-out-of-order-1",
        "fixtures.step-turn-mismatch-1",
        "fixtures.store-corrupt-1",
        "fixtures.store-schema-mismatch-1",
        "fixtures.store-version-unsupported-1",
        "fixtures.tool-pairing-corrupt-1",
        "fixtures.tool-result-unpaired-1",
        "fixtures.turn-already-open-1",
        "fixtures.turn-end-mismatch-1",
        "fixtures.turn-end-step-open-1",
        "fixtures.turn-out-of-order-1",
        "fixtures.valid-1",
    }
)

#: Core by our reading; the original differs (docs/deviations.md says how).
TO_STRICT: Final = frozenset(
    {
        "request-header.canonical-empty-fields",  # D-H1: the original's system "" is not an absent one
        "coordinator.live-session-at-another-cwd",  # C8: the original refuses it as already stored
    }
)


def profile_of(case_id: str, profile: str) -> str:
    """The profile of the case ``case_id`` whose scenario says ``profile``."""
    if case_id in TO_CORE:
        return "core"
    if case_id in TO_STRICT:
        return "strict"
    return profile

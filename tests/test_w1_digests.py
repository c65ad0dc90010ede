"""Workload W1 ends in the same state as in the TypeScript reference, and as in the spec.

The expected values are the reference's published results for T = 1 000
(``bench/workload-w1.md``, table "Digests of the TypeScript reference"): they
were computed by the TypeScript original, not by this project. The workload
itself is defined once, in ``bench/workload.py``, which the benchmark uses too.
"""

from __future__ import annotations

import pytest

from bench.workload import ImplTarget, Mode, SpecTarget, run_w1

#: mode -> (events, surface length, replace generation, messagesSha256, surfaceSha256),
#: copied from the reference's table for T = 1000.
REFERENCE_T1000: dict[str, tuple[int, int, int, str, str]] = {
    "plain": (
        13000,
        3000,
        0,
        "c35f9b352b5094c0703a186416ca42c6c7ce154de1bdcb2468fd7134f8a250a0",
        "57eaf955ecf20a811702bdf8004094fc3b7c818be04704f8c1a6584cfaac3b7c",
    ),
    "compact": (
        13020,
        152,
        20,
        "058dbb39b894dcf480f7a34731d5a2a3f8dad0c502404a599af40e9bc5bb1a06",
        "e60f2467e964de8e1bf3524851bc94cddb425ede00730fe9048274a756674622",
    ),
}


@pytest.mark.parametrize("mode", ["plain", "compact"])
def test_implementation_matches_the_reference_at_1000_turns(mode: Mode) -> None:
    report = run_w1(ImplTarget(), 1000, mode)
    events, surface, generation, messages_sha, surface_sha = REFERENCE_T1000[mode]
    assert report.events == events
    assert report.surface_length == surface
    assert report.generation == generation
    assert report.messages_sha256 == messages_sha
    assert report.surface_sha256 == surface_sha
    # Every W1 surface node projects to a message (no empty assistant message).
    assert report.message_count == surface
    assert report.derives == 1000
    assert report.compactions == (20 if mode == "compact" else 0)


@pytest.mark.parametrize(("mode", "turns"), [("plain", 30), ("compact", 101)])
def test_specification_and_implementation_end_in_the_same_state(mode: Mode, turns: int) -> None:
    # compact with 101 turns: two compactions, the second over a surface that
    # starts with the first summary, then one more turn appended after it.
    impl, spec = ImplTarget(), SpecTarget()
    impl_report = run_w1(impl, turns, mode)
    spec_report = run_w1(spec, turns, mode)
    assert impl.final() == spec.final()
    assert impl_report.messages_sha256 == spec_report.messages_sha256
    assert impl_report.surface_sha256 == spec_report.surface_sha256
    assert (impl_report.events, impl_report.generation) == (spec_report.events, spec_report.generation)
    assert impl_report.compactions == spec_report.compactions == (2 if mode == "compact" else 0)

"""Fixed load probes that the core machine runs at the start of its first example.

A load folds the surface of a stored log as it admits it, and its bulk path folds a
whole run of plain records at once (``SurfaceManager._append_run``, through
``persistence._bulk.rows_run``); the backend then judges every later batch against
that surface. No rule of the core machine loads a log, so these probes hold the
folded surface to the spec's. They are deterministic, so they run once a process
(about 20 ms), in the first example of the machine's first test:

- a log of several hundred events, appends and replaces, is admitted as a load
  admits it, twice, in runs of varying length (one load begins with a whole turn,
  the other with a single surface record; a run with a replace in it is declined by
  the bulk path and admitted record by record, as the careful load does); after
  every run the surface is the spec's: its nodes, seqs, length, generation, the
  position of both ends, and ``shadowed`` over the pairs around the run,
  both ways round (the ranks a run gives its nodes order them after the old tail);
- a surface built over a list the caller keeps (not owned) folds what is appended
  to the list after its first read.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import dsh_spec
from dsh_session import Session, SurfaceManager
from dsh_session.persistence._admit import LogAdmitter
from dsh_session.persistence._bulk import rows_run
from dsh_session.persistence._rows import event_row
from dsh_spec import Rejection
from tests.machine_support import Disagreement, require
from tests.machine_support import fresh_int as _fresh
from tests.seed_probes import probe_turn

#: The runs each probe load offers the bulk path, in turn. One begins with a whole turn
#: (three surface records onto the empty surface), the other with one surface record
#: (a tail of rank 0 for the next run); then short runs (a run of log-only records folds
#: nothing), long ones, and lengths that cut turns anywhere.
_RUN_SIZES = ((8, 1, 2, 3, 5, 13, 21, 34, 55, 7, 4), (2, 1, 3, 5, 8, 13, 21, 34, 55, 7, 4))
#: Turns after which the probe log compacts, and which part of the surface it replaces
#: (as fractions of its length: from the head, in the middle, up to the tail).
_COMPACTIONS = {6: (0.0, 0.5), 13: (0.25, 0.75), 20: (0.5, 1.0), 27: (0.0, 1.0), 34: (0.3, 0.4)}
_SUMMARY = {
    "content": [{"type": "text", "text": "summary"}],
    "source": {"kind": "plugin", "plugin": "compact"},
}


@functools.cache
def run_load_probes() -> None:
    """Every probe of this module; a difference raises :class:`Disagreement`. Deterministic,
    so it runs once a process (a disagreement is not cached: it is raised every time)."""
    log = _probe_log()
    spec_log = _spec_log(log)
    for sizes in _RUN_SIZES:
        _loaded_in_runs(log, spec_log, sizes)
    _standalone_follows_its_list(log, spec_log)


def _probe_log() -> list[Any]:
    """40 turns (past the small-int cache) with five compactions over different ranges."""
    session = Session("probe-load", clock=itertools.count(1767225600000).__next__)
    for t in range(1, 41):
        for kind, data, op, names_previous in probe_turn(t):
            session.append(
                kind, data, surface_op=op, source_event_seqs=[session.seq - 1] if names_previous else None
            )
        if t in _COMPACTIONS:
            order = session.surface.seqs()
            low, high = _COMPACTIONS[t]
            first, last = int(low * (len(order) - 1)), int(high * (len(order) - 1))
            shadowed = order[first : last + 1]
            session.append(
                "user/message",
                _SUMMARY,
                surface_op={"op": "replace", "start": shadowed[0], "end": shadowed[-1]},
                source_event_seqs=shadowed,
            )
    return list(session.events)


def _spec_log(log: list[Any]) -> tuple[Any, ...]:
    spec_log = dsh_spec.check_seed([event.to_json() for event in log])
    if isinstance(spec_log, Rejection):
        raise Disagreement(f"the spec refuses the probe log: {spec_log}")
    return tuple(spec_log)


def _loaded_in_runs(log: list[Any], spec_log: tuple[Any, ...], sizes: tuple[int, ...]) -> None:
    rows = [event_row(event) for event in log]
    admitter = LogAdmitter()
    surface = admitter._surface
    spec = dsh_spec.Surface()
    at = 0
    for size in itertools.cycle(sizes):
        run = rows[at : at + size]
        before = spec.order
        surface.nodes  # noqa: B018 (a snapshot taken: folding the run must drop it)
        label = f"the probe load in runs of {sizes[:2]}...: the run of seqs {at}..{at + len(run) - 1}"
        try:
            taken = rows_run(admitter, run)
        except Exception as error:
            raise Disagreement(f"{label}: the bulk path raised {error!r}") from error
        if taken is None:
            replaces = [row for row in run if row[5] is not None and row[5] != '"append"']
            require(bool(replaces), f"{label}: the bulk path declined a run of plain appends")
            for event in log[at : at + len(run)]:
                admitter.admit(event)  # the careful way, record by record
        for event in spec_log[at : at + len(run)]:
            folded = dsh_spec.surface.step(spec, event)
            assert not isinstance(folded, Rejection)
            spec = folded
        at += len(run)
        _same_surface(surface, spec, at, before, label)
        if at >= len(rows):
            break


def _same_surface(
    surface: SurfaceManager, spec: Any, length: int, before: tuple[int, ...], label: str
) -> None:
    """``surface`` is the spec's ``spec`` over a log of ``length`` events; ``before`` is the
    spec's order before the last run, whose new nodes (and the old tail) ``shadowed`` is
    asked about pairwise."""
    order = spec.order
    try:
        nodes = [tuple(node) for node in surface.nodes]
        require(nodes == [tuple(n) for n in dsh_spec.surface_nodes(spec)], f"{label}: the surface's nodes")
        require(surface.seqs() == list(order), f"{label}: the surface's seqs()")
        require(len(surface) == len(order), f"{label}: the surface's length")
        require(surface.replace_generation == spec.generation, f"{label}: the surface's generation")
        if not order:
            return
        for seq in (order[0], order[-1]):
            where = surface.position(_fresh(seq))
            require(where == dsh_spec.surface.position(order, seq), f"{label}: position({seq})")
        kept = len(before) if before == order[: len(before)] else 0  # else a replace: all of it
        window = order[max(kept - 1, 0) :]
        pairs = [*itertools.pairwise(window), (order[0], order[-1])]
        for start, end in [*pairs, *((end, start) for start, end in pairs)]:
            got = surface.shadowed(_fresh(start), _fresh(end))
            span = dsh_spec.shadowed(order, length, dsh_spec.Replace(start, end))
            want = None if isinstance(span, Rejection) else span
            require(got == want, f"{label}: shadowed({start}, {end}) is {got}, expected {want}")
    except Disagreement:
        raise
    except Exception as error:
        raise Disagreement(f"{label}: reading the surface raised {error!r}") from error


def _standalone_follows_its_list(log: list[Any], spec_log: tuple[Any, ...]) -> None:
    """A surface over a list it does not own folds what the list gains after each read."""
    events: list[Any] = []
    surface = SurfaceManager(events)
    for cut in (0, len(log) // 3, len(log)):
        events.extend(log[len(events) : cut])
        spec = dsh_spec.fold_surface(spec_log[:cut])
        assert not isinstance(spec, Rejection)
        require(surface.seqs() == list(spec.order), f"a surface over a list of {cut} events: seqs()")
        require(len(surface) == len(spec.order), f"a surface over a list of {cut} events: its length")

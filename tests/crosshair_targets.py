"""Small, simply typed entry points for CrossHair (``tests/test_crosshair.py``).

``impl_replace`` and ``spec_replace`` fold the same replace, one through the
implementation's ``SurfaceManager`` and one through ``dsh_spec.surface.step``,
and report the outcome in the same plain form: a verdict (``"ok"`` or the
failed check), the nodes with their links, and the replace generation.
``crosshair diffbehavior`` looks for inputs on which they differ.

The surface is built from ``order`` (made distinct by construction, so no
input is wasted); an endpoint in ``0 .. len-1`` names the node at that position,
any other value is used as a seq as it is (so it may miss the surface).
"""

from __future__ import annotations

from dsh_session.event import APPEND
from dsh_session.event import Event as ImplEvent
from dsh_session.event import Replace as ImplReplace
from dsh_session.surface import SurfaceManager
from dsh_spec import surface as spec_surface
from dsh_spec.codes import Code
from dsh_spec.events import Event, Replace
from dsh_spec.rejection import Rejection
from dsh_spec.surface import Surface

Outcome = tuple[str, tuple[tuple[int, "int | None", "int | None"], ...], int]

_VERDICTS = {
    Code.REPLACE_START_NOT_ON_SURFACE: "start",
    Code.REPLACE_END_NOT_ON_SURFACE: "end",
    Code.REPLACE_RANGE_REVERSED: "order",
}


def _surface_seqs(order: list[int]) -> list[int]:
    """Distinct seqs from any ints (at most 8): unequal residues mod 8 keep them apart."""
    return [abs(value) * 8 + index for index, value in enumerate(order[:8])]


def _endpoint(seqs: list[int], at: int) -> int:
    return seqs[at] if 0 <= at < len(seqs) else at


def impl_replace(order: list[int], start: int, end: int) -> Outcome:
    """The implementation: fold ``order`` as appends, then one replace."""
    return _impl_replace(order, start, end, off_by_one=False)


def spec_replace(order: list[int], start: int, end: int) -> Outcome:
    """The spec: the same surface, the same replace, folded by ``dsh_spec.surface.step``."""
    seqs = _surface_seqs(order)
    first, last = _endpoint(seqs, start), _endpoint(seqs, end)
    surface = Surface(tuple(seqs), 0)
    new = max(seqs) + 1 if seqs else 0
    folded = spec_surface.step(surface, Event("user/message", new, 0, {}, None, Replace(first, last)))
    if isinstance(folded, Rejection):
        return _VERDICTS[folded.code], _spec_nodes(surface), surface.generation
    return "ok", _spec_nodes(folded), folded.generation


def impl_replace_off_by_one(order: list[int], start: int, end: int) -> Outcome:
    """The implementation with a planted bug: a replace of 2+ nodes leaves the last one."""
    return _impl_replace(order, start, end, off_by_one=True)


def _impl_replace(order: list[int], start: int, end: int, *, off_by_one: bool) -> Outcome:
    seqs = _surface_seqs(order)
    first, last = _endpoint(seqs, start), _endpoint(seqs, end)
    log = [ImplEvent("user/message", seq, 0, {}, None, APPEND) for seq in seqs]
    manager = SurfaceManager(log)
    manager.sync()
    span = manager._span(first, last)
    if isinstance(span, str):
        return span, _impl_nodes(manager), manager.replace_generation
    if off_by_one and len(span) > 1:
        last = span[-2]
    log.append(ImplEvent("user/message", max(seqs) + 1, 0, {}, None, ImplReplace(first, last)))
    return "ok", _impl_nodes(manager), manager.replace_generation


def _impl_nodes(manager: SurfaceManager) -> tuple[tuple[int, int | None, int | None], ...]:
    return tuple((node.seq, node.prev, node.next) for node in manager.nodes)


def _spec_nodes(surface: Surface) -> tuple[tuple[int, int | None, int | None], ...]:
    return tuple((node.seq, node.prev, node.next) for node in spec_surface.surface_nodes(surface))

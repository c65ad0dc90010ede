"""Agent status transitions (invariants.md §1.4): the one state machine an agent's status follows.

An agent announces its status each time it changes: ``idle``, ``running`` or
``disposed``. Read as a sequence of observations of one agent:

- the first observation is accepted, whatever it is (there is no history
  before it: the reference starts its baseline afresh when its check is
  installed);
- a status equal to the one in force is a no-op transition:
  ``STATUS_REPEATED`` (checked first, so ``disposed`` twice is a repeat);
- any status after ``disposed`` leaves a terminal state: ``STATUS_LEFT_DISPOSED``;
- every other transition is accepted (``idle`` <-> ``running``, either to
  ``disposed``).

A refused observation does not change the status in force: the reference
checks a status before it records it, so after ``idle, idle, running`` the
second ``idle`` is refused and ``running`` is accepted. Statuses compare as
strings; a string outside the three is not refused (the reference's type
system keeps such values out, its runtime check does not), it is simply a
status that is not ``disposed``.

A rejection's ``seq`` is the index of the observation in the sequence.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from dsh_spec.codes import Code
from dsh_spec.rejection import Rejection

#: The statuses an agent announces.
STATUSES: Final = ("idle", "running", "disposed")

#: The terminal status.
DISPOSED: Final = "disposed"


def status_transition(current: str | None, status: str, index: int | None = None) -> Rejection | None:
    """Why ``status`` may not follow ``current`` (``None``: no status yet), or ``None`` when it may."""
    if current is None:
        return None
    if status == current:
        return Rejection(Code.STATUS_REPEATED, index, f"agent/status repeated {status} (no-op transition)")
    if current == DISPOSED:
        return Rejection(
            Code.STATUS_LEFT_DISPOSED, index, f"agent/status left terminal state disposed \u2192 {status}"
        )
    return None


def check_status_transitions(statuses: Iterable[str]) -> tuple[Rejection, ...]:
    """Every refused observation of one agent's status sequence, in order.

    Each is judged against the status in force: the last accepted one.
    """
    current: str | None = None
    refused: list[Rejection] = []
    for index, status in enumerate(statuses):
        rejection = status_transition(current, status, index)
        if rejection is None:
            current = status
        else:
            refused.append(rejection)
    return tuple(refused)

"""Agent status transitions: ``idle`` and ``running`` alternate, ``disposed`` is final.

An :class:`AgentStatusMonitor` watches one agent's announcements and refuses
a no-op transition (``STATUS_REPEATED``) or any status after ``disposed``
(``STATUS_LEFT_DISPOSED``) with :class:`AgentStatusError`. The first
announcement is always accepted, and a refused one leaves the status in force
unchanged -- the reference's rules (``docs/errors.md``, "Runtime checks").
:func:`check_status_transitions` reports every refusal of a whole sequence.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NoReturn

from dsh_session.errors import Code, DshSessionError
from dsh_session.invariants import Violation

__all__ = ["AgentStatusError", "AgentStatusMonitor", "check_status_transitions"]

_TERMINAL = "disposed"


class AgentStatusError(DshSessionError, ValueError):
    """An agent announced a status that may not follow the one in force; nothing changed.

    ``status`` is the refused status, ``previous`` the one in force, ``agent``
    the monitor's label (``None`` when it has none). ``seq`` is unused.
    """

    def __init__(self, code: Code, message: str, *, status: str, previous: str, agent: str | None) -> None:
        super().__init__(code, message)
        self.status = status
        self.previous = previous
        self.agent = agent


class AgentStatusMonitor:
    """The status in force for one agent, and the transitions it may take next."""

    __slots__ = ("_agent", "_status")

    def __init__(self, agent: str | None = None) -> None:
        self._agent = agent
        self._status: str | None = None

    @property
    def agent(self) -> str | None:
        """The label messages name the agent by."""
        return self._agent

    @property
    def status(self) -> str | None:
        """The last accepted status; ``None`` before the first announcement."""
        return self._status

    def observe(self, status: str) -> None:
        """Take in an announced ``status``, or raise :class:`AgentStatusError` and keep the old one."""
        previous = self._status
        if previous is not None:
            if status == previous:
                self._refuse(Code.STATUS_REPEATED, f"repeated {status} (no-op transition)", status, previous)
            if previous == _TERMINAL:
                what = f"left terminal state disposed \u2192 {status}"
                self._refuse(Code.STATUS_LEFT_DISPOSED, what, status, previous)
        self._status = status

    def _refuse(self, code: Code, what: str, status: str, previous: str) -> NoReturn:
        who = "" if self._agent is None else f" of agent {self._agent!r}"
        raise AgentStatusError(
            code, f"agent/status{who} {what}", status=status, previous=previous, agent=self._agent
        )

    def __repr__(self) -> str:
        return f"AgentStatusMonitor(agent={self._agent!r}, status={self._status!r})"


def check_status_transitions(statuses: Iterable[str]) -> list[Violation]:
    """Every refused announcement of one agent's status sequence, in order; a violation's
    ``seq`` is the announcement's index."""
    monitor = AgentStatusMonitor()
    found: list[Violation] = []
    for index, status in enumerate(statuses):
        try:
            monitor.observe(status)
        except AgentStatusError as error:
            found.append(Violation(error.code, index, error.message))
    return found

"""Cross-check a loop-built LLM request against the session log it was built from.

:func:`check_loop_request` raises unless the request is exactly what the log
reconstructs: the log has a ``step/start`` (the last one bounds the step the
request belongs to), a request header is in force, the messages are the
header's ``messagePrefix`` then the history of a session rebuilt from the log
before that ``step/start``, and ``model`` / ``system`` / ``temperature`` /
``maxTokens`` / ``stop`` / ``tools`` are the header's. Values compare as the
JSON text JavaScript writes (key order counts, ``1`` is ``1.0``, ``true`` is
not ``1``, absent is not ``null``; ``tools`` absent or ``None`` is ``[]``).

The caller decides when to check: the reference checks only the requests its
agent loop builds (frozen, naming a live session) and skips one-shot calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from dsh_session.errors import Code, DshSessionError
from dsh_session.event import Event, SessionHeader
from dsh_session.js_json import dumps
from dsh_session.json_value import freeze
from dsh_session.request_header import HEADER, HEADER_DELTA, EpochHeader, fold_request_header
from dsh_session.session import Session

__all__ = ["LoopRequestError", "check_loop_request"]

#: The request fields that must match the folded header, in the order they are compared.
_FIELDS: Final = ("model", "system", "temperature", "maxTokens", "stop", "tools")


class LoopRequestError(DshSessionError, ValueError):
    """A request is not what its session log reconstructs.

    ``session_id`` names the session (``None`` when the caller gave none);
    ``seq`` is the bounding ``step/start`` for ``REQUEST_MESSAGES_MISMATCH`` and
    the last header event for ``REQUEST_HEADER_MISMATCH``; ``fields`` lists the
    request fields that differ from the header (``REQUEST_HEADER_MISMATCH``).
    """

    def __init__(
        self,
        code: Code,
        message: str,
        *,
        session_id: str | None,
        seq: int | None = None,
        fields: tuple[str, ...] = (),
    ) -> None:
        super().__init__(code, message, seq=seq)
        self.session_id = session_id
        self.fields = fields


def _text(request: Mapping[str, Any], name: str) -> str | None:
    """The JSON text of a request field; ``None`` when absent (``tools``: absent or None is [])."""
    if name == "tools":
        tools = request.get("tools")
        return "[]" if tools is None else dumps(freeze(tools))
    return dumps(freeze(request[name])) if name in request else None


def _header_text(header: EpochHeader, name: str) -> str | None:
    if name == "system":
        return None if header.system is None else dumps(header.system)
    if name == "tools":
        return dumps(list(header.tools)) if header.tools else "[]"
    config = header.config
    return dumps(config[name]) if name in config else None


def check_loop_request(
    events: Sequence[Event], request: Mapping[str, Any], *, session_id: str | None = None
) -> None:
    """Raise unless ``request`` is what the log ``events`` reconstructs.

    ``request`` holds the reference's option keys (``messages``, ``model``,
    ``system``, ``temperature``, ``maxTokens``, ``stop``, ``tools``; a missing
    key is absent). Raises :class:`LoopRequestError` (``REQUEST_*`` codes),
    :class:`~dsh_session.RequestHeaderError` when the header does not fold,
    :class:`~dsh_session.InvalidEventError` when the log before the step is not
    a valid seed, :class:`~dsh_session.NotJsonError` for a non-JSON field.
    """
    whose = "" if session_id is None else f' for session "{session_id}"'
    cut = next((i for i in range(len(events) - 1, -1, -1) if events[i].type == "step/start"), None)
    if cut is None:
        raise LoopRequestError(
            Code.REQUEST_STEP_START_MISSING,
            f"a loop-built request{whose} with no step/start in its session log",
            session_id=session_id,
        )
    header = fold_request_header(events)
    if header is None:
        raise LoopRequestError(
            Code.REQUEST_HEADER_MISSING,
            f"a loop-built request{whose} with no request/header event in its session log",
            session_id=session_id,
        )
    rebuilt = Session(
        f"{session_id or 'request'}-invariant-rebuild",
        seed=events[:cut],
        header=SessionHeader(id=f"{session_id or 'request'}-invariant-rebuild", created_at=0),
    )
    expected = [*(header.message_prefix or ()), *rebuilt.derive_messages()]
    bound = events[cut].seq
    if _text(request, "messages") != dumps(expected):
        raise LoopRequestError(
            Code.REQUEST_MESSAGES_MISMATCH,
            f"llm request{whose} diverges from the history derived from the log before step/start "
            f"at seq {bound} (log-reconstruction desync)",
            session_id=session_id,
            seq=bound,
        )
    differing = tuple(name for name in _FIELDS if _text(request, name) != _header_text(header, name))
    if differing:
        last = next(e.seq for e in reversed(events) if e.type == HEADER or e.type == HEADER_DELTA)
        raise LoopRequestError(
            Code.REQUEST_HEADER_MISMATCH,
            f"llm request{whose} diverges from the folded request header: {', '.join(differing)}",
            session_id=session_id,
            seq=last,
            fields=differing,
        )

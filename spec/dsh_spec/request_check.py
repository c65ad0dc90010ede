"""The loop-built request cross-check (invariants.md §1.5): a request must be what its log rebuilds.

An agent loop logs ``step/start`` and the request header it will use, then
sends the LLM a request built from the log. :func:`check_loop_request` says
whether a request is exactly what the session log reconstructs, in the
reference's order (the first failure is the answer):

1. the log has a ``step/start`` (``REQUEST_STEP_START_MISSING``); the last one
   is the *boundary*: the step the request belongs to;
2. the request header folds over the whole log (a fold rejection such as
   ``HEADER_DELTA_BEFORE_SNAPSHOT`` is returned as is) and one is in force
   (``REQUEST_HEADER_MISSING``);
3. the messages are the header's ``messagePrefix`` followed by the history
   derived from the log *before* the boundary, rebuilt from scratch as a seed
   (a prefix the seed rules refuse gives that rejection) -- compared as JSON
   text (``REQUEST_MESSAGES_MISMATCH``): key order counts, numbers compare
   as JavaScript writes them, ``true`` is never ``1``;
4. ``model``, ``system``, ``temperature`` and ``maxTokens`` equal the folded
   header's (``config.model``, ``system``, ``config.temperature``,
   ``config.maxTokens``), ``stop`` equals ``config.stop`` and ``tools`` (absent
   or ``null``: ``[]``) the header's tools (absent: ``[]``)
   (``REQUEST_HEADER_MISMATCH``). Absent equals only absent; a present
   ``null`` is a value.

The request is the reference's options object as JSON: ``{messages, model,
system?, temperature?, maxTokens?, stop?, tools?}``; an absent key is
``undefined``. The reference compares the four scalar fields with ``===`` and
the rest as JSON text; for JSON primitives the two agree (``1`` and ``1.0`` are
one number, ``true`` is not ``1``, ``null`` is not absent), and an object or
array in a scalar field is compared here as JSON text too
(``docs/deviations.md`` D-R2).

When to apply the check is the caller's decision: the reference checks only
requests its loop built (a frozen options object naming a live session, with a
frozen message array) and skips one-shot calls such as compaction's summary.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from dsh_spec.codes import Code
from dsh_spec.events import Event, event_json
from dsh_spec.json_value import Json, js_stringify
from dsh_spec.projection import derive_messages
from dsh_spec.rejection import Rejection
from dsh_spec.request_header import HEADER, HEADER_DELTA, EpochHeader, fold_request_header
from dsh_spec.validation import check_seed

STEP_START: Final = "step/start"

#: The request fields compared with the folded header, in the reference's order.
HEADER_FIELDS: Final = ("model", "system", "temperature", "maxTokens", "stop", "tools")


def boundary(events: tuple[Event, ...]) -> int | None:
    """The index of the last ``step/start`` of the log, or ``None`` when there is none."""
    for index in range(len(events) - 1, -1, -1):
        if events[index].type == STEP_START:
            return index
    return None


def _text(value: Json, present: bool) -> str | None:
    """The JSON text of a field, ``None`` for an absent one (JavaScript's ``undefined``)."""
    return js_stringify(value) if present else None


def _header_side(header: EpochHeader, name: str) -> str | None:
    config = header.config
    if name == "system":
        return _text(header.system, header.system is not None)
    if name == "tools":
        return js_stringify(list(header.tools or ()))
    return _text(config.get(name), name in config)


def _request_side(request: Mapping[str, Json], name: str) -> str | None:
    if name == "tools":
        tools = request.get("tools")
        return js_stringify([] if tools is None else tools)
    return _text(request.get(name), name in request)


def header_mismatches(request: Mapping[str, Json], header: EpochHeader) -> tuple[str, ...]:
    """The request fields that differ from the folded header, in :data:`HEADER_FIELDS` order."""
    return tuple(name for name in HEADER_FIELDS if _request_side(request, name) != _header_side(header, name))


def expected_messages(events: Iterable[Event], header: EpochHeader) -> list[Json] | Rejection:
    """What a request's messages must be: the header's prefix, then the history derived from
    ``events`` (the log before the boundary) rebuilt from scratch as a seed."""
    seeded = check_seed([event_json(event) for event in events])
    if isinstance(seeded, Rejection):
        return seeded
    derived = derive_messages(seeded)
    if isinstance(derived, Rejection):
        return derived
    return [*(header.message_prefix or ()), *derived]


def _last_header_seq(events: tuple[Event, ...]) -> int | None:
    for event in reversed(events):
        if event.type in (HEADER, HEADER_DELTA):
            return event.seq
    return None


def check_loop_request(
    events: Iterable[Event], request: Mapping[str, Json], session_id: str | None = None
) -> Rejection | None:
    """Why ``request`` is not what the log ``events`` reconstructs, or ``None`` when it is.

    ``session_id`` only names the session in messages. A rejection's ``seq`` is
    the boundary ``step/start`` for ``REQUEST_MESSAGES_MISMATCH``, the last
    header event for ``REQUEST_HEADER_MISMATCH``, ``None`` for the missing ones.
    """
    log = tuple(events)
    whose = "" if session_id is None else f' for session "{session_id}"'
    cut = boundary(log)
    if cut is None:
        return Rejection(
            Code.REQUEST_STEP_START_MISSING,
            None,
            f"a loop-built request{whose} with no step/start in its session log",
        )
    header = fold_request_header(log)
    if isinstance(header, Rejection):
        return header
    if header is None:
        return Rejection(
            Code.REQUEST_HEADER_MISSING,
            None,
            f"a loop-built request{whose} with no request/header event in its session log",
        )
    expected = expected_messages(log[:cut], header)
    if isinstance(expected, Rejection):
        return expected
    sent = _text(request.get("messages"), "messages" in request)
    if sent != js_stringify(expected):
        return Rejection(
            Code.REQUEST_MESSAGES_MISMATCH,
            log[cut].seq,
            f"llm request{whose} diverges from the history derived from the log before step/start "
            f"at seq {log[cut].seq} (log-reconstruction desync)",
        )
    differing = header_mismatches(request, header)
    if differing:
        return Rejection(
            Code.REQUEST_HEADER_MISMATCH,
            _last_header_seq(log),
            f"llm request{whose} diverges from the folded request header: {', '.join(differing)}",
        )
    return None

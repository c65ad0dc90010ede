"""dsh_spec: the executable specification of the dsh session log and its surface.

Pure, total functions over tuples of frozen events. Nothing here mutates,
caches or raises on bad input: every refusal is a :class:`Rejection` carrying a
registry :class:`Code` and the seq where it happened. Readability beats speed.
The models of what keeps state (:mod:`dsh_spec.store`, :mod:`dsh_spec.persistence`,
:mod:`dsh_spec.coordinator`, :mod:`dsh_spec.postgres`) are imported by module.

The package loads lazily: ``import dsh_spec`` runs no module of the spec, and
each name below is imported from its module when it is first asked for, so
``from dsh_spec.codes import Code`` reads the registry alone. Two functions share
their module's name and are not exported here, as the package's attribute is the
module: ``dsh_spec.adoption.adoption`` and ``dsh_spec.repair.repair``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dsh_spec.adoption import Adopt, StoredLog, same_event, same_json
    from dsh_spec.agent_status import STATUSES, check_status_transitions, status_transition
    from dsh_spec.codes import Code
    from dsh_spec.events import (
        APPEND,
        EVENT_KEYS,
        SESSION_FORMAT_VERSION,
        SURFACE_TYPES,
        Event,
        Replace,
        SurfaceOp,
        event_json,
        is_surface_type,
        surface_op_json,
    )
    from dsh_spec.fork import MAX_SAFE_INTEGER, fork_seed, safe_boundary
    from dsh_spec.invariants import (
        Trace,
        check_event,
        check_log,
        check_seed_with_invariants,
        trace_of,
        validate_append_with_invariants,
    )
    from dsh_spec.json_value import (
        MAX_DEPTH,
        Json,
        NotJson,
        TooDeep,
        canonical_json,
        is_json_value,
        js_number,
        js_string,
        js_stringify,
        text_depth,
        too_deep_at,
    )
    from dsh_spec.projection import Message, derive_event_message, derive_messages
    from dsh_spec.rejection import Rejection
    from dsh_spec.repair import (
        CLOSER_KEYS,
        INTERRUPTED_RESULT_TEXT,
        closer_json,
        interrupted_turn_closers,
    )
    from dsh_spec.request_check import check_loop_request, header_mismatches
    from dsh_spec.request_header import (
        HEADER,
        HEADER_DELTA,
        EpochHeader,
        HeaderDelta,
        SystemDelta,
        ToolsDelta,
        apply_header_delta,
        apply_system,
        apply_tools,
        canonical_header,
        delta_json,
        diff_header,
        diff_system,
        diff_tools,
        fold_request_header,
        fold_step,
        header_equals,
        header_json,
        next_header_event,
        parse_delta,
        parse_header,
    )
    from dsh_spec.storage import HOLE, RECORD_DEPTH, TOO_DEEP, cwd_bucket, encode_segment, preserved_prefix
    from dsh_spec.surface import Surface, SurfaceNode, fold_surface, shadowed, surface_nodes
    from dsh_spec.tool_pairing import region_balanced, tool_pairing_balanced
    from dsh_spec.validation import (
        ABSENT,
        Draft,
        admit,
        check_seed,
        parse_record,
        payload_problem,
        seed_violations,
        validate_append,
    )

#: Where each public name lives: the module of the spec that defines it.
_MODULES: dict[str, str] = {
    "Adopt": "adoption",
    "StoredLog": "adoption",
    "same_event": "adoption",
    "same_json": "adoption",
    "STATUSES": "agent_status",
    "check_status_transitions": "agent_status",
    "status_transition": "agent_status",
    "Code": "codes",
    "APPEND": "events",
    "EVENT_KEYS": "events",
    "Event": "events",
    "Replace": "events",
    "SESSION_FORMAT_VERSION": "events",
    "SURFACE_TYPES": "events",
    "SurfaceOp": "events",
    "event_json": "events",
    "is_surface_type": "events",
    "surface_op_json": "events",
    "MAX_SAFE_INTEGER": "fork",
    "fork_seed": "fork",
    "safe_boundary": "fork",
    "Trace": "invariants",
    "check_event": "invariants",
    "check_log": "invariants",
    "check_seed_with_invariants": "invariants",
    "trace_of": "invariants",
    "validate_append_with_invariants": "invariants",
    "Json": "json_value",
    "MAX_DEPTH": "json_value",
    "NotJson": "json_value",
    "TooDeep": "json_value",
    "canonical_json": "json_value",
    "is_json_value": "json_value",
    "js_number": "json_value",
    "js_string": "json_value",
    "js_stringify": "json_value",
    "text_depth": "json_value",
    "too_deep_at": "json_value",
    "Message": "projection",
    "derive_event_message": "projection",
    "derive_messages": "projection",
    "Rejection": "rejection",
    "CLOSER_KEYS": "repair",
    "INTERRUPTED_RESULT_TEXT": "repair",
    "closer_json": "repair",
    "interrupted_turn_closers": "repair",
    "check_loop_request": "request_check",
    "header_mismatches": "request_check",
    "EpochHeader": "request_header",
    "HEADER": "request_header",
    "HEADER_DELTA": "request_header",
    "HeaderDelta": "request_header",
    "SystemDelta": "request_header",
    "ToolsDelta": "request_header",
    "apply_header_delta": "request_header",
    "apply_system": "request_header",
    "apply_tools": "request_header",
    "canonical_header": "request_header",
    "delta_json": "request_header",
    "diff_header": "request_header",
    "diff_system": "request_header",
    "diff_tools": "request_header",
    "fold_request_header": "request_header",
    "fold_step": "request_header",
    "header_equals": "request_header",
    "header_json": "request_header",
    "next_header_event": "request_header",
    "parse_delta": "request_header",
    "parse_header": "request_header",
    "HOLE": "storage",
    "RECORD_DEPTH": "storage",
    "TOO_DEEP": "storage",
    "cwd_bucket": "storage",
    "encode_segment": "storage",
    "preserved_prefix": "storage",
    "Surface": "surface",
    "SurfaceNode": "surface",
    "fold_surface": "surface",
    "shadowed": "surface",
    "surface_nodes": "surface",
    "region_balanced": "tool_pairing",
    "tool_pairing_balanced": "tool_pairing",
    "ABSENT": "validation",
    "Draft": "validation",
    "admit": "validation",
    "check_seed": "validation",
    "parse_record": "validation",
    "payload_problem": "validation",
    "seed_violations": "validation",
    "validate_append": "validation",
}

__all__ = [
    "ABSENT",
    "APPEND",
    "CLOSER_KEYS",
    "EVENT_KEYS",
    "HEADER",
    "HEADER_DELTA",
    "HOLE",
    "INTERRUPTED_RESULT_TEXT",
    "MAX_DEPTH",
    "MAX_SAFE_INTEGER",
    "RECORD_DEPTH",
    "SESSION_FORMAT_VERSION",
    "STATUSES",
    "SURFACE_TYPES",
    "TOO_DEEP",
    "Adopt",
    "Code",
    "Draft",
    "EpochHeader",
    "Event",
    "HeaderDelta",
    "Json",
    "Message",
    "NotJson",
    "Rejection",
    "Replace",
    "StoredLog",
    "Surface",
    "SurfaceNode",
    "SurfaceOp",
    "SystemDelta",
    "TooDeep",
    "ToolsDelta",
    "Trace",
    "admit",
    "apply_header_delta",
    "apply_system",
    "apply_tools",
    "canonical_header",
    "canonical_json",
    "check_event",
    "check_log",
    "check_loop_request",
    "check_seed",
    "check_seed_with_invariants",
    "check_status_transitions",
    "closer_json",
    "cwd_bucket",
    "delta_json",
    "derive_event_message",
    "derive_messages",
    "diff_header",
    "diff_system",
    "diff_tools",
    "encode_segment",
    "event_json",
    "fold_request_header",
    "fold_step",
    "fold_surface",
    "fork_seed",
    "header_equals",
    "header_json",
    "header_mismatches",
    "interrupted_turn_closers",
    "is_json_value",
    "is_surface_type",
    "js_number",
    "js_string",
    "js_stringify",
    "next_header_event",
    "parse_delta",
    "parse_header",
    "parse_record",
    "payload_problem",
    "preserved_prefix",
    "region_balanced",
    "safe_boundary",
    "same_event",
    "same_json",
    "seed_violations",
    "shadowed",
    "status_transition",
    "surface_nodes",
    "surface_op_json",
    "text_depth",
    "too_deep_at",
    "tool_pairing_balanced",
    "trace_of",
    "validate_append",
    "validate_append_with_invariants",
]


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'dsh_spec' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"dsh_spec.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

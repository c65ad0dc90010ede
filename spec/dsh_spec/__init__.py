"""dsh_spec: the executable specification of the dsh session log and its surface.

Pure, total functions over tuples of frozen events. Nothing here mutates,
caches or raises on bad input: every refusal is a :class:`Rejection` carrying a
registry :class:`Code` and the seq where it happened. Readability beats speed.
"""

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
    js_string,
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
    repair,
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
    validate_append,
)

# isort: split
# -- store block: fork, request headers, JS JSON text --------------------------------
from dsh_spec.fork import MAX_SAFE_INTEGER, fork_seed, safe_boundary
from dsh_spec.json_value import js_number, js_stringify
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

# isort: split
# -- coord block: the write coordinator's adoption rule ------------------------------
from dsh_spec.adoption import Adopt, StoredLog, adoption, same_event, same_json

# isort: split
# -- rules block: runtime checks (agent status, loop-built requests) -----------------
from dsh_spec.agent_status import STATUSES, check_status_transitions, status_transition
from dsh_spec.request_check import check_loop_request, header_mismatches

__all__ = [
    "ABSENT",
    "APPEND",
    "CLOSER_KEYS",
    "EVENT_KEYS",
    "HOLE",
    "INTERRUPTED_RESULT_TEXT",
    "MAX_DEPTH",
    "RECORD_DEPTH",
    "SESSION_FORMAT_VERSION",
    "SURFACE_TYPES",
    "TOO_DEEP",
    "Code",
    "Draft",
    "Event",
    "Json",
    "Message",
    "NotJson",
    "Rejection",
    "Replace",
    "Surface",
    "SurfaceNode",
    "SurfaceOp",
    "TooDeep",
    "Trace",
    "admit",
    "canonical_json",
    "check_event",
    "check_log",
    "check_seed",
    "check_seed_with_invariants",
    "closer_json",
    "cwd_bucket",
    "derive_event_message",
    "derive_messages",
    "encode_segment",
    "event_json",
    "fold_surface",
    "interrupted_turn_closers",
    "is_json_value",
    "is_surface_type",
    "js_string",
    "parse_record",
    "payload_problem",
    "preserved_prefix",
    "region_balanced",
    "repair",
    "shadowed",
    "surface_nodes",
    "surface_op_json",
    "text_depth",
    "too_deep_at",
    "tool_pairing_balanced",
    "trace_of",
    "validate_append",
    "validate_append_with_invariants",
]

# -- store block --
__all__ += [
    "HEADER",
    "HEADER_DELTA",
    "MAX_SAFE_INTEGER",
    "EpochHeader",
    "HeaderDelta",
    "SystemDelta",
    "ToolsDelta",
    "apply_header_delta",
    "apply_system",
    "apply_tools",
    "canonical_header",
    "delta_json",
    "diff_header",
    "diff_system",
    "diff_tools",
    "fold_request_header",
    "fold_step",
    "fork_seed",
    "header_equals",
    "header_json",
    "js_number",
    "js_stringify",
    "next_header_event",
    "parse_delta",
    "parse_header",
    "safe_boundary",
]

# -- coord block --
__all__ += ["Adopt", "StoredLog", "adoption", "same_event", "same_json"]

# -- clifix block: every violation of a would-be seed --
from dsh_spec.validation import seed_violations  # noqa: E402

__all__ += ["seed_violations"]
# -- rules block --
__all__ += [
    "STATUSES",
    "check_loop_request",
    "check_status_transitions",
    "header_mismatches",
    "status_transition",
]

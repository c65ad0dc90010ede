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
from dsh_spec.json_value import Json, NotJson, canonical_json, is_json_value, js_string
from dsh_spec.projection import Message, derive_event_message, derive_messages
from dsh_spec.rejection import Rejection
from dsh_spec.repair import (
    CLOSER_KEYS,
    INTERRUPTED_RESULT_TEXT,
    closer_json,
    interrupted_turn_closers,
    repair,
)
from dsh_spec.storage import HOLE, cwd_bucket, encode_segment, preserved_prefix
from dsh_spec.surface import Surface, SurfaceNode, fold_surface, shadowed, surface_nodes
from dsh_spec.validation import (
    ABSENT,
    Draft,
    admit,
    check_seed,
    parse_record,
    payload_problem,
    validate_append,
)

__all__ = [
    "ABSENT",
    "APPEND",
    "CLOSER_KEYS",
    "EVENT_KEYS",
    "HOLE",
    "INTERRUPTED_RESULT_TEXT",
    "SESSION_FORMAT_VERSION",
    "SURFACE_TYPES",
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
    "admit",
    "canonical_json",
    "check_seed",
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
    "repair",
    "shadowed",
    "surface_nodes",
    "surface_op_json",
    "validate_append",
]

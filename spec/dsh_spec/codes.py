"""The closed registry of error codes.

Codes are the contract: the spec, the implementation and the conformance cases
all name rejections by these strings. A code is never renamed once released;
new codes may be added. ``docs/errors.md`` documents every member and a test
keeps the two in step.
"""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    """A stable error code. The value is the code's wire spelling."""

    # -- event records (seed / load) -------------------------------------
    MALFORMED_EVENT = "MALFORMED_EVENT"
    SEQ_NOT_CONTIGUOUS = "SEQ_NOT_CONTIGUOUS"
    # -- payload ----------------------------------------------------------
    NON_JSON_DATA = "NON_JSON_DATA"
    DATA_TOO_DEEP = "DATA_TOO_DEEP"
    INVALID_PAYLOAD = "INVALID_PAYLOAD"
    # -- surface metadata -------------------------------------------------
    PROVENANCE_ON_LOG_ONLY_TYPE = "PROVENANCE_ON_LOG_ONLY_TYPE"
    SURFACE_OP_ON_LOG_ONLY_TYPE = "SURFACE_OP_ON_LOG_ONLY_TYPE"
    MISSING_SURFACE_OP = "MISSING_SURFACE_OP"
    MALFORMED_SURFACE_OP = "MALFORMED_SURFACE_OP"
    MALFORMED_PROVENANCE = "MALFORMED_PROVENANCE"
    PROVENANCE_EMPTY = "PROVENANCE_EMPTY"
    PROVENANCE_DUPLICATE = "PROVENANCE_DUPLICATE"
    PROVENANCE_NOT_EARLIER = "PROVENANCE_NOT_EARLIER"
    PROVENANCE_UNKNOWN_SEQ = "PROVENANCE_UNKNOWN_SEQ"
    REPLACE_START_NOT_ON_SURFACE = "REPLACE_START_NOT_ON_SURFACE"
    REPLACE_END_NOT_ON_SURFACE = "REPLACE_END_NOT_ON_SURFACE"
    REPLACE_RANGE_REVERSED = "REPLACE_RANGE_REVERSED"
    REPLACE_PROVENANCE_INCOMPLETE = "REPLACE_PROVENANCE_INCOMPLETE"
    # -- log invariants: seq order, turn/step structure, tool pairing ------
    SEQ_NOT_INCREASING = "SEQ_NOT_INCREASING"
    MALFORMED_STRUCTURE_FIELD = "MALFORMED_STRUCTURE_FIELD"
    TURN_ALREADY_OPEN = "TURN_ALREADY_OPEN"
    TURN_OUT_OF_ORDER = "TURN_OUT_OF_ORDER"
    TURN_END_MISMATCH = "TURN_END_MISMATCH"
    TURN_END_STEP_OPEN = "TURN_END_STEP_OPEN"
    STEP_TURN_MISMATCH = "STEP_TURN_MISMATCH"
    STEP_ALREADY_OPEN = "STEP_ALREADY_OPEN"
    STEP_OUT_OF_ORDER = "STEP_OUT_OF_ORDER"
    STEP_NOT_OPEN = "STEP_NOT_OPEN"
    TOOL_RESULT_UNPAIRED = "TOOL_RESULT_UNPAIRED"
    EVENT_OUTSIDE_TURN = "EVENT_OUTSIDE_TURN"
    TOOL_PAIRING_CORRUPT = "TOOL_PAIRING_CORRUPT"
    # -- session store (store block) ---------------------------------------
    SESSION_ALREADY_EXISTS = "SESSION_ALREADY_EXISTS"
    SESSION_ALREADY_ENTERED = "SESSION_ALREADY_ENTERED"
    CWD_NOT_ABSOLUTE = "CWD_NOT_ABSOLUTE"
    OBSERVER_FAILED = "OBSERVER_FAILED"
    # -- fork (store block) --------------------------------------------------
    SESSION_NOT_FOUND = "SESSION_NOT_FOUND"
    SESSION_NOT_LIVE = "SESSION_NOT_LIVE"
    INVALID_BOUNDARY = "INVALID_BOUNDARY"
    OPEN_TURN = "OPEN_TURN"
    # -- request headers (store block) --------------------------------------
    HEADER_DELTA_BEFORE_SNAPSHOT = "HEADER_DELTA_BEFORE_SNAPSHOT"
    MALFORMED_REQUEST_HEADER = "MALFORMED_REQUEST_HEADER"
    MALFORMED_HEADER_DELTA = "MALFORMED_HEADER_DELTA"
    # -- sessions and stores (persistence) ---------------------------------
    # SESSION_NOT_FOUND and SESSION_ALREADY_EXISTS (above) serve persistence too.
    INVALID_HEADER = "INVALID_HEADER"
    STORE_CORRUPT = "STORE_CORRUPT"
    STORE_VERSION_UNSUPPORTED = "STORE_VERSION_UNSUPPORTED"
    STORE_SCHEMA_MISMATCH = "STORE_SCHEMA_MISMATCH"
    STORE_UNREPRESENTABLE = "STORE_UNREPRESENTABLE"
    STORE_LOCKED = "STORE_LOCKED"
    STORE_CONFLICT = "STORE_CONFLICT"
    STORE_IO = "STORE_IO"
    STORE_CLOSED = "STORE_CLOSED"
    # -- write coordinator (coord block) -----------------------------------
    ID_COLLISION_CWD = "ID_COLLISION_CWD"
    ID_COLLISION_HEADER = "ID_COLLISION_HEADER"
    ID_COLLISION_LOG = "ID_COLLISION_LOG"
    SESSION_ALREADY_BOUND = "SESSION_ALREADY_BOUND"
    DRAIN_FAILED = "DRAIN_FAILED"
    # -- copying between backends (cli block) ------------------------------
    # -- database servers and copying stores (postgres block) ---------------
    STORE_UNREACHABLE = "STORE_UNREACHABLE"
    STORE_AUTH_FAILED = "STORE_AUTH_FAILED"
    STORE_CONNECTION_LOST = "STORE_CONNECTION_LOST"
    COPY_MISMATCH = "COPY_MISMATCH"
    # -- runtime checks: agent status, loop-built requests (rules block) ---
    STATUS_REPEATED = "STATUS_REPEATED"
    STATUS_LEFT_DISPOSED = "STATUS_LEFT_DISPOSED"
    REQUEST_STEP_START_MISSING = "REQUEST_STEP_START_MISSING"
    REQUEST_HEADER_MISSING = "REQUEST_HEADER_MISSING"
    REQUEST_MESSAGES_MISMATCH = "REQUEST_MESSAGES_MISMATCH"
    REQUEST_HEADER_MISMATCH = "REQUEST_HEADER_MISMATCH"

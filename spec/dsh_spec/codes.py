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
    # -- sessions and stores (persistence) ---------------------------------
    # SESSION_NOT_FOUND and SESSION_ALREADY_EXISTS are also fork's codes (same meaning).
    SESSION_NOT_FOUND = "SESSION_NOT_FOUND"
    SESSION_ALREADY_EXISTS = "SESSION_ALREADY_EXISTS"
    INVALID_HEADER = "INVALID_HEADER"
    STORE_CORRUPT = "STORE_CORRUPT"
    STORE_VERSION_UNSUPPORTED = "STORE_VERSION_UNSUPPORTED"
    STORE_SCHEMA_MISMATCH = "STORE_SCHEMA_MISMATCH"
    STORE_UNREPRESENTABLE = "STORE_UNREPRESENTABLE"
    STORE_LOCKED = "STORE_LOCKED"
    STORE_CONFLICT = "STORE_CONFLICT"
    STORE_IO = "STORE_IO"
    STORE_CLOSED = "STORE_CLOSED"

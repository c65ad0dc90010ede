"""The rule behind each violation code, as ``validate`` names it.

Admission rules (every append and seed passes them) are named by what they
check; the log invariants by the reference's rule numbers (R1, R11-R20,
``docs/errors.md``, "Log invariants"); the request-header fold and tool pairing
(``validate --rules all``) by what they check; store damage by ``store``.
"""

from __future__ import annotations

from typing import Final

from dsh_session.errors import Code

__all__ = ["rule_of"]

_RULES: Final[dict[Code, str]] = {
    Code.MALFORMED_EVENT: "record: an event object with type, seq, time and data",
    Code.SEQ_NOT_CONTIGUOUS: "record: seqs run 0, 1, 2, ... without gaps",
    Code.NON_JSON_DATA: "payload: data is a JSON value",
    Code.INVALID_PAYLOAD: "payload: a surface event's data has its type's shape",
    Code.PROVENANCE_ON_LOG_ONLY_TYPE: "R2: no sourceEventSeqs on a log-only type",
    Code.SURFACE_OP_ON_LOG_ONLY_TYPE: "R2: no surfaceOp on a log-only type",
    Code.MISSING_SURFACE_OP: "surface: a surface type carries a surfaceOp",
    Code.MALFORMED_SURFACE_OP: "surface: surfaceOp is 'append' or a replace of integer seqs",
    Code.MALFORMED_PROVENANCE: "provenance: sourceEventSeqs is a list of integer seqs",
    Code.PROVENANCE_EMPTY: "R3: sourceEventSeqs is not empty",
    Code.PROVENANCE_DUPLICATE: "R4: sourceEventSeqs names each seq once",
    Code.PROVENANCE_NOT_EARLIER: "R5: sourceEventSeqs names earlier events",
    Code.PROVENANCE_UNKNOWN_SEQ: "R6: sourceEventSeqs names events of the log",
    Code.REPLACE_START_NOT_ON_SURFACE: "R7: a replace starts on the surface",
    Code.REPLACE_END_NOT_ON_SURFACE: "R8: a replace ends on the surface",
    Code.REPLACE_RANGE_REVERSED: "R9: a replace's start is not after its end",
    Code.REPLACE_PROVENANCE_INCOMPLETE: "R10: a replace names every event it shadows",
    Code.SEQ_NOT_INCREASING: "R1: seqs increase",
    Code.MALFORMED_STRUCTURE_FIELD: "structure: turn, step and callId fields are present",
    Code.TURN_ALREADY_OPEN: "R11: one turn open at a time",
    Code.TURN_OUT_OF_ORDER: "R12: turns are numbered 1, 2, 3, ...",
    Code.TURN_END_MISMATCH: "R13: turn/end closes the open turn",
    Code.TURN_END_STEP_OPEN: "R14: a turn ends with no step open",
    Code.STEP_TURN_MISMATCH: "R15: a step starts in the open turn",
    Code.STEP_ALREADY_OPEN: "R16: one step open at a time",
    Code.STEP_OUT_OF_ORDER: "R17: steps are numbered 1, 2, 3, ... in each turn",
    Code.STEP_NOT_OPEN: "R18: step events name the open step",
    Code.TOOL_RESULT_UNPAIRED: "R19: a tool/result answers an open tool/call of its step",
    Code.EVENT_OUTSIDE_TURN: "R20: other events sit inside a turn",
    Code.DATA_TOO_DEEP: "payload: data nests at most 200 containers",
    Code.HEADER_DELTA_BEFORE_SNAPSHOT: "request headers: a delta follows a snapshot",
    Code.MALFORMED_REQUEST_HEADER: "request headers: a snapshot has a header's shape",
    Code.MALFORMED_HEADER_DELTA: "request headers: a delta applies to the header in force",
    Code.TOOL_PAIRING_CORRUPT: "tool pairing: a result on the surface answers a call before it",
}


def rule_of(code: Code) -> str:
    """The rule a violation with ``code`` breaks, in a few words."""
    if code == Code.STORE_CORRUPT:
        return "store: committed lines and rows parse and continue the log"
    return _RULES.get(code, "store: the stored log can be read")

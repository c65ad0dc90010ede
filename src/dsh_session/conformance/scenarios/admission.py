"""Admission: what ``append`` and seeding accept, one rule at a time, and the JSON-value rule.

The reference itself refuses non-JSON data and a surface event without a
marker before the event is logged, and checks a seed's seqs: those cases are
``core``, and the session must still work afterwards. Everything else it
accepts and fails on later, or never (``core.md`` §12 B3-B6): refusing it at
once is our rule (``docs/deviations.md`` D1, D2), so those cases are
``strict``.
"""

from __future__ import annotations

from typing import Any

from dsh_session.conformance.notation import *
from dsh_session.conformance.scenario import Scenario, append, events, messages, new, scenario, surface
from dsh_spec.codes import Code

ADMIT = "dsh_spec.validation.admit"
APPEND = "dsh_spec.validation.validate_append"
SEED = "dsh_spec.validation.check_seed"
RECORD = "dsh_spec.validation.parse_record"
PAYLOAD = "dsh_spec.validation.payload_problem"
JSON_RULE = "dsh_spec.json_value.canonical_json"

NONJSON = {
    "nan": "NaN",
    "infinity": "infinity",
    "-infinity": "negative infinity",
    "cycle": "a list holding itself",
    "integer:9007199254740993": "2**53 + 1, which no double holds",
}


def _refused_append(
    name: str,
    title: str,
    record: Record,
    code: Code,
    profile: str,
    refs: tuple[str, ...],
    prefix: list[Record] | None = None,
) -> Scenario:
    """Appending ``record`` is refused; the log is unchanged and the next append works."""
    seed = prefix if prefix is not None else log(TS(1), U("a"))
    return scenario(
        f"admission.{name}",
        f"{title}: append refuses it with {code.value}; the log is unchanged and the session goes on",
        (ADMIT, APPEND, *refs),
        profile,
        new(seed),
        append(record, time=2000).fails(code),
        events(),
        append(U("next"), time=2001),
        messages(),
    )


def scenarios() -> list[Scenario]:
    out: list[Scenario] = []
    for kind, what in NONJSON.items():
        slug = kind.replace(":", "-").replace("integer-9007199254740993", "unsafe-integer").lstrip("-")
        slug = "negative-infinity" if kind == "-infinity" else slug
        out.append(
            _refused_append(
                f"append-non-json-{slug}",
                f"Data holding {what}",
                D(U("x"), extra={"$nonjson": kind}),
                Code.NON_JSON_DATA,
                "core",
                (
                    JSON_RULE,
                    "docs/dialect-3fe196a751.md §C2",
                    "docs/dialect-3fe196a751.md §C3 step 1",
                    "docs/dialect-3fe196a751.md §C11 #7",
                ),
            )
        )
        out.append(
            scenario(
                f"json-value.seed-non-json-{slug}",
                f"A seed whose data holds {what} deep inside is refused with NON_JSON_DATA",
                (SEED, JSON_RULE, "docs/dialect-3fe196a751.md §C4", "docs/dialect-3fe196a751.md §C11 #10"),
                "core",
                new(log(TS(1), D(U("x"), extra={"deep": [1, {"v": {"$nonjson": kind}}]}))).fails(
                    Code.NON_JSON_DATA
                ),
            )
        )
    deep: Any = {}
    for _ in range(199):
        deep = {"k": deep}
    out.append(
        scenario(
            "admission.append-data-at-the-nesting-limit",
            "Data nesting exactly 200 containers deep is appended and read back like any other",
            (ADMIT, APPEND, JSON_RULE, "dsh_spec.json_value.MAX_DEPTH"),
            "core",
            new(log(TS(1), U("a"))),
            append(EV("todo/write", deep), time=2000),
            events(),
        )
    )
    out.append(
        _refused_append(
            "append-data-past-the-nesting-limit",
            "Data nesting 201 containers deep",
            EV("todo/write", {"k": deep}),
            Code.DATA_TOO_DEEP,
            "strict",
            (JSON_RULE, "docs/deviations.md D7", "docs/errors.md DATA_TOO_DEEP"),
        )
    )
    for record, label in (
        (X(U("a"), surfaceOp=DROP), "user"),
        (X(CTX("n"), surfaceOp=DROP), "context"),
        (X(ST(1), surfaceOp=DROP), "steering"),
        (X(TR(1, 1, "c1"), surfaceOp=DROP), "tool-result"),
        (X(A(1, 1), surfaceOp=DROP), "assistant"),
    ):
        out.append(
            _refused_append(
                f"append-{label}-without-marker",
                f"A {record['type']} without surfaceOp",
                record,
                Code.MISSING_SURFACE_OP,
                "core",
                ("docs/dialect-3fe196a751.md §C3 step 2", "docs/dialect-3fe196a751.md §C11 #8"),
                prefix=log(TS(1), SS(1, 1)),
            )
        )
    strict: list[tuple[str, str, Record, Code, tuple[str, ...]]] = [
        (
            "append-empty-type",
            "An event type that is the empty string",
            EV("", {}),
            Code.MALFORMED_EVENT,
            ("docs/dialect-3fe196a751.md §C12 B6", "docs/errors.md MALFORMED_EVENT"),
        ),
        (
            "append-marker-on-log-only",
            "A surfaceOp on a log-only type",
            X(EV("todo/write", {"todos": []}), surfaceOp="append"),
            Code.SURFACE_OP_ON_LOG_ONLY_TYPE,
            ("docs/dialect-3fe196a751.md §C12 B5", "docs/deviations.md D1"),
        ),
        (
            "append-provenance-on-log-only",
            "sourceEventSeqs on a log-only type",
            X(EV("compact/start", {"turn": 1}), sourceEventSeqs=[1]),
            Code.PROVENANCE_ON_LOG_ONLY_TYPE,
            ("docs/dialect-3fe196a751.md §C12 B5", "docs/deviations.md D1"),
        ),
        (
            "append-marker-misspelt",
            'A surfaceOp of "Append"',
            X(U("b"), surfaceOp="Append"),
            Code.MALFORMED_SURFACE_OP,
            ("docs/dialect-3fe196a751.md §C12 B3", "docs/deviations.md D1"),
        ),
        (
            "append-marker-other-op",
            "A surfaceOp naming the op delete",
            X(U("b"), surfaceOp={"op": "delete", "start": 1, "end": 1}),
            Code.MALFORMED_SURFACE_OP,
            ("docs/dialect-3fe196a751.md §C12 B3",),
        ),
        (
            "append-marker-empty-object",
            "A surfaceOp that is an empty object",
            X(U("b"), surfaceOp={}),
            Code.MALFORMED_SURFACE_OP,
            ("docs/dialect-3fe196a751.md §C12 B3",),
        ),
        (
            "append-marker-string-endpoints",
            "A replace with string endpoints",
            X(U("b"), surfaceOp={"op": "replace", "start": "1", "end": "1"}),
            Code.MALFORMED_SURFACE_OP,
            ("docs/dialect-3fe196a751.md §C12 B3",),
        ),
        (
            "append-provenance-empty",
            "Empty sourceEventSeqs",
            X(U("b"), sourceEventSeqs=[]),
            Code.PROVENANCE_EMPTY,
            ("docs/dialect-3fe196a751.md §C12 B4", "docs/deviations.md D1"),
        ),
        (
            "append-provenance-duplicate",
            "sourceEventSeqs naming a seq twice",
            X(U("b"), sourceEventSeqs=[0, 0]),
            Code.PROVENANCE_DUPLICATE,
            ("docs/dialect-3fe196a751.md §C12 B4",),
        ),
        (
            "append-provenance-future",
            "sourceEventSeqs naming a later seq",
            X(U("b"), sourceEventSeqs=[9]),
            Code.PROVENANCE_NOT_EARLIER,
            ("docs/dialect-3fe196a751.md §C12 B4",),
        ),
        (
            "append-provenance-negative",
            "sourceEventSeqs naming seq -1",
            X(U("b"), sourceEventSeqs=[-1]),
            Code.PROVENANCE_UNKNOWN_SEQ,
            ("docs/dialect-3fe196a751.md §C12 B4",),
        ),
        (
            "append-replace-without-provenance",
            "A replace that names none of the nodes it shadows",
            replace(U("s"), 1, 1),
            Code.REPLACE_PROVENANCE_INCOMPLETE,
            ("docs/dialect-3fe196a751.md §C12 B4", "docs/dialect-3fe196a751.md §C5.7"),
        ),
        (
            "append-replace-provenance-partial",
            "A replace that names only some of the nodes it shadows",
            replace(U("s"), 0, 1, 1),
            Code.REPLACE_PROVENANCE_INCOMPLETE,
            ("docs/dialect-3fe196a751.md §C12 B4",),
        ),
    ]
    for name, title, record, code, refs in strict:
        prefix = log(U("z"), U("a")) if name.startswith("append-replace") else None
        out.append(_refused_append(name, title, record, code, "strict", refs, prefix=prefix))
    payloads: list[tuple[str, str, Record]] = [
        ("user-data-null", "A user/message whose data is null", X(U("b"), data=None)),
        ("user-no-content", "A user/message without content", D(U("b"), content=DROP)),
        ("user-content-not-list", "A user/message whose content is a string", D(U("b"), content="hi")),
        ("user-block-not-object", "A content block that is not an object", D(U("b"), content=["hi"])),
        ("user-block-without-type", "A content block without a type", D(U("b"), content=[{"text": "hi"}])),
        ("assistant-no-content", "An assistant/message without content", D(A(1, 1), content=DROP)),
        ("tool-result-no-call-id", "A tool/result without callId", D(TR(1, 1, "c1"), callId=DROP)),
        ("tool-result-no-is-error", "A tool/result without isError", D(TR(1, 1, "c1"), isError=DROP)),
        (
            "tool-result-is-error-string",
            "A tool/result whose isError is a string",
            D(TR(1, 1, "c1"), isError="false"),
        ),
        ("context-no-source", "A context/message without source", D(CTX("n"), source=DROP)),
        ("context-source-kind-missing", "A context/message whose source has no kind", D(CTX("n"), source={})),
        (
            "context-envelope-unknown",
            'A context/message with the envelope "RAW"',
            D(CTX("n"), envelope="RAW"),
        ),
        ("steering-source-empty", "A steering/message whose source has no kind", D(ST(1), source={})),
    ]
    for name, title, record in payloads:
        out.append(
            _refused_append(
                f"append-payload-{name}",
                title,
                record,
                Code.INVALID_PAYLOAD,
                "strict",
                (
                    PAYLOAD,
                    "docs/dialect-3fe196a751.md §C12 B6",
                    "docs/dialect-3fe196a751.md §C12 B20",
                    "docs/deviations.md D2",
                ),
                prefix=log(TS(1), SS(1, 1)),
            )
        )
    out.extend(_seed_records())
    out.extend(_accepted())
    return out


def _seed_records() -> list[Scenario]:
    """Seed records that are not events, and seqs that are not their index."""
    base = log(TS(1), U("a"))
    event, seq, marker, provenance = (
        Code.MALFORMED_EVENT,
        Code.SEQ_NOT_CONTIGUOUS,
        Code.MALFORMED_SURFACE_OP,
        Code.MALFORMED_PROVENANCE,
    )
    # name, title, the keys the second record has instead, the code, the profile
    bad: list[tuple[str, str, dict[str, Any], Code, str]] = [
        ("record-without-time", "A seed record without time", {"time": DROP}, event, "strict"),
        ("record-without-data", "A seed record without data", {"data": DROP}, event, "strict"),
        ("record-unknown-key", "A seed record with an unknown key", {"extra": 1}, event, "strict"),
        ("record-type-not-string", "A seed record whose type is a number", {"type": 7}, event, "strict"),
        ("record-time-fraction", "A seed record whose time is 1.5", {"time": 1.5}, event, "strict"),
        ("record-time-string", "A seed record whose time is a string", {"time": "1001"}, event, "strict"),
        ("seq-string", 'A seed record whose seq is the string "1"', {"seq": "1"}, seq, "core"),
        ("seq-bool", "A seed record whose seq is true", {"seq": True}, seq, "core"),
        ("seq-gap", "Seed seqs 0, 5 (reference test 11)", {"seq": 5}, seq, "core"),
        ("null-marker", "A seed record whose surfaceOp is null", {"surfaceOp": None}, marker, "strict"),
        (
            "null-provenance",
            "A seed record whose sourceEventSeqs is null",
            {"sourceEventSeqs": None},
            provenance,
            "strict",
        ),
    ]
    out = []
    for name, title, keys, code, profile in bad:
        refs: tuple[str, ...] = (
            SEED,
            RECORD,
            "docs/dialect-3fe196a751.md §C4",
            "docs/errors.md " + code.value,
        )
        if name == "seq-gap":
            refs = (*refs, "docs/dialect-3fe196a751.md §C11 #11")
        out.append(
            scenario(
                f"admission.seed-{name}",
                f"{title} is refused with {code.value}",
                refs,
                profile,
                new([base[0], X(base[1], **keys)]).fails(code),
            )
        )
    return out


def _accepted() -> list[Scenario]:
    return [
        scenario(
            "admission.seed-then-events",
            "A seeded session holds exactly the seeded events (reference tests 5, 13)",
            (
                SEED,
                "docs/dialect-3fe196a751.md §C4",
                "docs/dialect-3fe196a751.md §C11 #5",
                "docs/dialect-3fe196a751.md §C11 #13",
            ),
            "core",
            new(log(TS(1), U("a"), SS(1, 1), A(1, 1), SE(1, 1), TE(1))),
            events(),
            messages(),
        ),
        scenario(
            "admission.seed-empty",
            "An empty seed gives an empty log",
            (SEED, "docs/dialect-3fe196a751.md §C4"),
            "core",
            new([]),
            events().gives([]),
        ),
        scenario(
            "admission.seed-integral-float-seq-and-time",
            "A seq and time of 1.0 count as the integer 1",
            (SEED, RECORD, "docs/dialect-3fe196a751.md §C14.2"),
            "core",
            new([X(log(TS(1))[0], seq=0.0, time=1.0)]),
            events(),
        ),
        scenario(
            "admission.seed-log-only-null-data",
            "A log-only event may carry any JSON data, null included (reference test 29)",
            (SEED, "docs/dialect-3fe196a751.md §C1.6", "docs/dialect-3fe196a751.md §C11 #29"),
            "core",
            new(log(TS(1), EV("todo/write", None), EV("hook/x", [1, "a"]))),
            events(),
            surface().gives([]),
        ),
        scenario(
            "admission.append-returns-the-event",
            "append returns the logged event: seq, time, data, and the surface keys only when given",
            (
                APPEND,
                "docs/dialect-3fe196a751.md §C3",
                "docs/dialect-3fe196a751.md §C11 #48",
                "docs/dialect-3fe196a751.md §C11 #50",
                "docs/dialect-3fe196a751.md §C11 #51",
            ),
            "core",
            new(log(TS(1), SS(1, 1), CH(1, 1), CH(1, 1))),
            append(X(U("b"), sourceEventSeqs=[2, 3]), time=7000),
            append(TE(1), time=7001),
            events(),
        ),
        scenario(
            "admission.append-dense-nested-data",
            "Dense arrays and nested objects, null and booleans are JSON (reference test 9)",
            (JSON_RULE, "docs/dialect-3fe196a751.md §C11 #9"),
            "core",
            new(log(TS(1))),
            append(D(U("b"), extra=[1, 2, [3, {"a": None, "b": True}]]), time=2000),
            events(),
        ),
        scenario(
            "json-value.edge-numbers-accepted",
            "Integers up to 2**53, tiny and huge doubles, -0 and 1e21 are JSON values",
            (JSON_RULE, "dsh_spec.json_value.canonical_number", "docs/dialect-3fe196a751.md §C2.2"),
            "core",
            new(log(TS(1))),
            append(
                D(
                    U("n"),
                    extra=[
                        9007199254740992,
                        -9007199254740992,
                        5e-324,
                        1.7976931348623157e308,
                        -0.0,
                        1e21,
                        0.1,
                    ],
                ),
                time=2000,
            ),
            events(),
        ),
        scenario(
            "json-value.lone-surrogates-accepted",
            "Strings holding lone surrogates are JSON values",
            (JSON_RULE, "docs/dialect-3fe196a751.md §C2.1"),
            "core",
            new(log(TS(1))),
            append(D(U("\ud800 and \udc00"), extra={"\udfff": "\ud83d"}), time=2000),
            events(),
            messages(),
        ),
        scenario(
            "json-value.shared-value-accepted",
            "A value shared by two parents is not a cycle",
            (JSON_RULE, "docs/dialect-3fe196a751.md §C2.1"),
            "core",
            new(log(TS(1))),
            append(D(U("s"), extra={"a": {"k": [1]}, "b": {"k": [1]}}), time=2000),
            events(),
        ),
        scenario(
            "admission.replace-provenance-superset",
            "A replace may name more than the nodes it shadows",
            (ADMIT, "docs/dialect-3fe196a751.md §I3.5 V5"),
            "core",
            new(log(TS(1), U("a"), U("b"))),
            append(replace(U("s"), 1, 1, 0, 1, 2), time=2000),
            surface(),
        ),
    ]

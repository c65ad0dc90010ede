"""Conformance cases: reading, checking and writing the case files.

A suite is a directory with ``VERSION`` (semver), ``cases/<area>/<id>.json``
(one case per file), ``artifacts/`` (stores the cases load), ``schema/`` and
``skips/``. A case is::

    {"id": "surface.replace-single-node",        stable, unique; the file's name
     "description": "one line",
     "spec": ["dsh_spec.surface.step", "docs/dialect-3fe196a751.md §C5.4"],
     "profile": "core" | "strict",
     "area": "surface",                            the directory it sits in
     "dialect": "3fe196a751" | "every",            the original's dialect it pins, or every one
     "features": ["backend.jsonl", ...],           what an adapter must declare for it to apply
     "steps": [{"op": ..., "args": {...}, "expect": EXPECT}, ...]}

and ``EXPECT`` is ``{"ok": value}`` (the step returns ``value``) or
``{"error": CODE, "by": k}``: this step, or at the latest step ``k`` (0-based),
must raise ``CODE``. When ``k`` is a later step, that is an *error window*:
every step from this one to ``k`` carries the same expectation, ``k`` is the
last step, and the case ends when the error is seen -- so an implementation
that refuses at ``append`` and one that refuses at the next read both pass.
An error due at its own step (``k`` = this step) may be followed by more
steps: the session must still work after the refusal.

:func:`load_case` checks all of that without a JSON Schema library, so a
malformed file is reported by name and the run goes on
(``schema/case.schema.json`` states the same rules for other tools).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from dsh_session.conformance.protocol import CASE_OPS, DIALECT, EVERY_DIALECT, FEATURES, nonjson_kind
from dsh_spec.codes import Code

#: The two profiles. ``core``: what the TypeScript reference does too; ``strict``: our stricter rules.
PROFILES: Final = ("core", "strict")

#: The areas, each a directory of ``cases/``.
AREAS: Final = (
    "json-value",
    "admission",
    "surface",
    "projection",
    "invariants",
    "check-log",
    "repair",
    "tool-pairing",
    "request-header",
    "store",
    "fork",
    "persistence",
    "coordinator",
    "fixtures",
    "agent-status",
    "request-check",
)

#: The major version of the case format this code reads.
FORMAT_MAJOR: Final = 2

#: The version of the suite this code generates (``conformance/VERSION``).
SUITE_VERSION: Final = "2.2.0"

#: The dialects a case may name.
DIALECTS: Final = (DIALECT, EVERY_DIALECT)

ID_PATTERN: Final = re.compile(r"^[a-z0-9]+(?:[.-][a-z0-9]+)*$")
_CODES = frozenset(code.value for code in Code)
_EXACT = 2**53
_CASE_KEYS = ("id", "description", "spec", "profile", "area", "dialect", "features", "steps")


class CaseError(Exception):
    """A case file that is not a valid case; ``path`` names it."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


@dataclass(frozen=True)
class Expect:
    """What a step must do: return ``value`` (``code`` is ``None``) or raise ``code`` by step ``by``."""

    value: Any = None
    code: str | None = None
    by: int | None = None

    @property
    def is_error(self) -> bool:
        return self.code is not None

    def to_json(self) -> dict[str, Any]:
        if self.code is None:
            return {"ok": self.value}
        return {"error": self.code, "by": self.by}


@dataclass(frozen=True)
class Step:
    op: str
    args: dict[str, Any]
    expect: Expect

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "args": self.args, "expect": self.expect.to_json()}


@dataclass(frozen=True)
class Heading:
    """What names a case, and the scenario it is generated from: its id, what it checks in words,
    the spec references it rests on and its profile (``core`` or ``strict``)."""

    id: str
    description: str
    spec: tuple[str, ...]
    profile: str


@dataclass(frozen=True)
class Case(Heading):
    area: str
    steps: tuple[Step, ...]
    dialect: str = DIALECT
    features: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "description": self.description,
            "spec": list(self.spec),
            "profile": self.profile,
            "area": self.area,
            "dialect": self.dialect,
            "features": list(self.features),
            "steps": [step.to_json() for step in self.steps],
        }


@dataclass(frozen=True)
class Suite:
    """A suite on disk: its version, its readable cases (sorted by id) and its unreadable files."""

    root: Path
    version: str
    cases: tuple[Case, ...]
    errors: tuple[CaseError, ...]

    @property
    def artifacts(self) -> Path:
        return self.root / "artifacts"


class SuiteError(Exception):
    """The directory is not a suite this runner can read (no VERSION, another major version)."""


def read_version(root: Path) -> str:
    """The suite's version, refused when its major version is not :data:`FORMAT_MAJOR`."""
    try:
        version = (root / "VERSION").read_text("utf-8").strip()
    except OSError as error:
        raise SuiteError(f"{root} is not a conformance suite: cannot read VERSION ({error})") from None
    parts = version.split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        raise SuiteError(f"{root}/VERSION: {version!r} is not a semantic version")
    if int(parts[0]) != FORMAT_MAJOR:
        raise SuiteError(
            f"{root}: suite version {version} is not readable by this runner (it reads {FORMAT_MAJOR}.x.y)"
        )
    return version


def case_files(root: Path) -> Iterator[Path]:
    """Every ``cases/<area>/*.json`` file, sorted."""
    base = root / "cases"
    if base.is_dir():
        yield from sorted(base.glob("*/*.json"))


def load_suite(root: Path) -> Suite:
    """Read a suite: its version and every case; bad files are collected, not raised."""
    version = read_version(root)
    cases: list[Case] = []
    errors: list[CaseError] = []
    seen: dict[str, str] = {}
    for path in case_files(root):
        try:
            case = load_case(path)
        except CaseError as error:
            errors.append(error)
            continue
        if case.id in seen:
            errors.append(CaseError(str(path), f"duplicate case id {case.id!r} (also in {seen[case.id]})"))
            continue
        seen[case.id] = str(path)
        cases.append(case)
    cases.sort(key=lambda case: case.id)
    return Suite(root, version, tuple(cases), tuple(errors))


def load_case(path: Path) -> Case:
    """Read and check one case file; :class:`CaseError` names what is wrong."""
    try:
        raw = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise CaseError(str(path), f"not a readable JSON file: {error}") from None
    case = parse_case(raw, str(path))
    if path.stem != case.id:
        raise CaseError(str(path), f"the file name must be the case id ({case.id}.json)")
    if path.parent.name != case.area:
        raise CaseError(str(path), f"a case of area {case.area!r} belongs in cases/{case.area}/")
    return case


def parse_case(raw: Any, where: str) -> Case:
    """Check a case's JSON (see the module notes) and build it."""

    bad = _Complaint(where)
    if type(raw) is not dict:
        raise bad("a case is a JSON object")
    missing = [key for key in _CASE_KEYS if key not in raw]
    unknown = [key for key in raw if key not in _CASE_KEYS]
    if missing or unknown:
        raise bad(f"missing key(s) {missing}, unknown key(s) {unknown}")
    case_id, description, spec = raw["id"], raw["description"], raw["spec"]
    if type(case_id) is not str or not ID_PATTERN.match(case_id):
        raise bad(f"id {case_id!r} must be lower-case words joined by '.' or '-'")
    if type(description) is not str or not description.strip() or "\n" in description:
        raise bad("description must be one non-empty line")
    if type(spec) is not list or not spec or not all(type(ref) is str and ref for ref in spec):
        raise bad("spec must be a non-empty list of references")
    if raw["profile"] not in PROFILES:
        raise bad(f"profile must be one of {PROFILES}")
    if raw["area"] not in AREAS:
        raise bad(f"area {raw['area']!r} is not one of {AREAS}")
    if not case_id.startswith(raw["area"] + "."):
        raise bad(f"id {case_id!r} must start with its area ({raw['area']}.)")
    if raw["dialect"] not in DIALECTS:
        raise bad(f"dialect must be one of {DIALECTS}")
    features = raw["features"]
    if type(features) is not list or any(f not in FEATURES for f in features):
        raise bad(f"features must be a list of known features ({', '.join(FEATURES)})")
    if features != sorted(set(features)):
        raise bad("features must be sorted and without repeats")
    steps_raw = raw["steps"]
    if type(steps_raw) is not list or not steps_raw:
        raise bad("steps must be a non-empty list")
    steps = tuple(_parse_step(index, item, bad) for index, item in enumerate(steps_raw))
    _check_windows(steps, bad)
    _check_numbers(steps_raw, "$.steps", bad)
    return Case(
        case_id, description, tuple(spec), raw["profile"], raw["area"], steps, raw["dialect"], tuple(features)
    )


class _Complaint:
    """Builds the :class:`CaseError` of one file (a class, not a closure: nothing is made per call)."""

    def __init__(self, where: str) -> None:
        self.where = where

    def __call__(self, message: str) -> CaseError:
        return CaseError(self.where, message)


def _parse_step(index: int, raw: Any, bad: Any) -> Step:
    where = f"step {index}"
    if type(raw) is not dict or set(raw) != {"op", "args", "expect"}:
        raise bad(f"{where}: a step is exactly {{op, args, expect}}")
    op, args, expect = raw["op"], raw["args"], raw["expect"]
    if op not in CASE_OPS:
        raise bad(f"{where}: unknown operation {op!r}")
    if type(args) is not dict:
        raise bad(f"{where}: args must be an object")
    if type(expect) is not dict:
        raise bad(f"{where}: expect must be an object")
    if set(expect) == {"ok"}:
        return Step(op, args, Expect(value=expect["ok"]))
    if set(expect) != {"error", "by"}:
        raise bad(f"{where}: expect is {{ok}} or {{error, by}}")
    code, by = expect["error"], expect["by"]
    if code not in _CODES:
        raise bad(f"{where}: {code!r} is not a registry error code")
    if type(by) is not int or by < index:
        raise bad(f"{where}: by must be this step's index or a later one")
    return Step(op, args, Expect(code=code, by=by))


def _check_windows(steps: tuple[Step, ...], bad: Any) -> None:
    """An error window (``by`` after its step) runs to the last step, every step in it expecting
    the same; an error due at its own step may be followed by more steps."""
    for index, step in enumerate(steps):
        expect = step.expect
        if expect.code is None or expect.by == index:
            continue
        assert expect.by is not None
        if expect.by != len(steps) - 1:
            raise bad(f"step {index}: an error window (by {expect.by}) must end at the last step")
        for later in range(index + 1, expect.by + 1):
            if steps[later].expect != expect:
                raise bad(f"step {later}: inside the error window of step {index} it must expect the same")
        return


def _check_numbers(value: Any, path: str, bad: Any) -> None:
    """No integer beyond 2**53 (languages read it differently; use ``$nonjson``), placeholders known."""
    kind = nonjson_kind(value)
    if kind is not None:
        if kind not in ("nan", "infinity", "-infinity", "cycle") and not re.fullmatch(
            r"integer:-?[0-9]+", kind
        ):
            raise bad(f"{path}: unknown $nonjson kind {kind!r}")
        return
    if type(value) is int and abs(value) > _EXACT:
        raise bad(f"{path}: integer {value} is beyond 2**53; spell it as a $nonjson placeholder")
    if type(value) is dict:
        for key, item in value.items():
            _check_numbers(item, f"{path}.{key}", bad)
    elif type(value) is list:
        for index, item in enumerate(value):
            _check_numbers(item, f"{path}[{index}]", bad)


def case_text(case: Case) -> str:
    """The case file's text: top-level keys one per line, one line per step, UTF-8 (lone
    surrogates escaped)."""
    data = case.to_json()
    lines = ["{"]
    for key in _CASE_KEYS[:-1]:
        lines.append(f"  {json.dumps(key)}: {_dumps(data[key])},")
    lines.append('  "steps": [')
    steps = data["steps"]
    for index, step in enumerate(steps):
        comma = "," if index + 1 < len(steps) else ""
        lines.append(f"    {_dumps(step)}{comma}")
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _dumps(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def case_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of a case file: what :func:`parse_case` checks, for other tools."""
    from dsh_session.conformance.protocol import CASE_OPS as ops

    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://dsh-session.invalid/conformance/case.schema.json",
        "title": "dsh-session conformance case",
        "description": f"One case of the dsh-session conformance suite (format {FORMAT_MAJOR}.x). "
        "See conformance/README.md.",
        "type": "object",
        "additionalProperties": False,
        "required": list(_CASE_KEYS),
        "properties": {
            "id": {
                "type": "string",
                "pattern": ID_PATTERN.pattern,
                "description": "Stable, unique: the area, a dot, a name; the file is cases/<area>/<id>.json.",
            },
            "description": {
                "type": "string",
                "minLength": 1,
                "pattern": "^[^\\n]+$",
                "description": "One line.",
            },
            "spec": {
                "type": "array",
                "minItems": 1,
                "items": {"type": "string", "minLength": 1},
                "description": "What the case pins: dsh_spec functions, sections of the notes and docs.",
            },
            "profile": {
                "enum": list(PROFILES),
                "description": "core: what the TypeScript reference does too; strict: our stricter rules.",
            },
            "area": {"enum": list(AREAS)},
            "dialect": {
                "enum": list(DIALECTS),
                "description": f"The dialect of the original the case pins ({DIALECT}: the commit of "
                "2026-07-10), or every: it holds in the later dialects too.",
            },
            "features": {
                "type": "array",
                "uniqueItems": True,
                "items": {"enum": sorted(FEATURES)},
                "description": "What an adapter must declare in hello for the case to apply to it.",
            },
            "steps": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/step"}},
        },
        "$defs": {
            "step": {
                "type": "object",
                "additionalProperties": False,
                "required": ["op", "args", "expect"],
                "properties": {
                    "op": {"enum": sorted(ops)},
                    "args": {"type": "object"},
                    "expect": {
                        "oneOf": [
                            {
                                "type": "object",
                                "additionalProperties": False,
                                "required": ["ok"],
                                "properties": {"ok": True},
                            },
                            {
                                "type": "object",
                                "additionalProperties": False,
                                "required": ["error", "by"],
                                "properties": {
                                    "error": {"$ref": "#/$defs/code"},
                                    "by": {
                                        "type": "integer",
                                        "minimum": 0,
                                        "description": "The last step (0-based) by which it must come.",
                                    },
                                },
                            },
                        ]
                    },
                },
            },
            "code": {
                "enum": sorted(_CODES),
                "description": "The closed registry of error codes (docs/errors.md).",
            },
        },
    }


def schema_text() -> str:
    return json.dumps(case_schema(), indent=2, ensure_ascii=False) + "\n"

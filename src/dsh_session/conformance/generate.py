"""The suite generator: scenarios in, case files out, every expected value from the spec.

Each scenario (:mod:`.scenarios`), and each generated fixture, becomes a case
through :func:`~.build.build_case`, which runs it step by step through the spec
adapter. The output is deterministic: the same scenarios always give the
same bytes, and :func:`stale_files` tells whether the files on disk are what
the generator writes now.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from dsh_session.conformance import fixtures
from dsh_session.conformance.build import GenerationError, build_cases
from dsh_session.conformance.cases import Case, case_text, schema_text

SCHEMA_FILE = "schema/case.schema.json"
FIXTURE_ARTIFACTS = "artifacts/fixtures"
#: The seed and count of the fixtures the suite holds (one per rule, and a valid log).
SUITE_FIXTURES = (0, 1)


@dataclass(frozen=True)
class Generated:
    """What the generator makes: the cases, and the artifact files of the generated fixtures."""

    cases: list[Case]
    artifacts: dict[str, bytes]

    def files(self) -> dict[str, bytes]:
        """Relative path -> bytes of every generated file of the suite."""
        out = {SCHEMA_FILE: schema_text().encode("utf-8")}
        out.update(
            {f"cases/{case.area}/{case.id}.json": case_text(case).encode("utf-8") for case in self.cases}
        )
        out.update({f"artifacts/{name}": data for name, data in self.artifacts.items()})
        return out


def _on_disk(root: Path) -> list[str]:
    """The generated files now on disk: every case file, the schema, the fixtures' artifacts."""
    found = [str(path.relative_to(root)) for path in sorted((root / "cases").glob("*/*.json"))]
    fixtures = root / FIXTURE_ARTIFACTS
    if fixtures.is_dir():
        found += [str(p.relative_to(root)) for p in sorted(fixtures.rglob("*")) if p.is_file()]
    return found + ([SCHEMA_FILE] if (root / SCHEMA_FILE).exists() else [])


def _differing(root: Path, wanted: dict[str, bytes]) -> list[str]:
    """The files under ``root`` that are not what the generator makes: the wanted ones missing or
    changed (in the order made), then the generated ones no longer made."""
    differ = [
        rel for rel, data in wanted.items() if not (root / rel).exists() or (root / rel).read_bytes() != data
    ]
    return differ + [rel for rel in _on_disk(root) if rel not in wanted]


def write_suite(root: Path, made: Generated) -> list[str]:
    """Write the generated files under ``root`` and delete generated files no longer made."""
    wanted = made.files()
    changed = _differing(root, wanted)
    for relative in changed:
        path = root / relative
        if relative in wanted:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(wanted[relative])
        else:
            path.unlink()
    return changed


def stale_files(root: Path, made: Generated) -> list[str]:
    """The generated files that differ from what the generator writes now (missing, changed, extra)."""
    return sorted(_differing(root, made.files()))


def generate_suite(root: Path, workdir: str | None = None) -> Generated:
    """Everything the generator makes for the suite at ``root``: the scenarios' cases, and one fixture
    per rule (``SUITE_FIXTURES``) with its artifacts."""
    from dsh_session.conformance.scenarios import all_scenarios

    cases = build_cases(all_scenarios(), root / "artifacts", workdir)
    seed, count = SUITE_FIXTURES
    made = fixtures.generate(seed, count, format="case", workdir=workdir)
    artifacts: dict[str, bytes] = {}
    for fixture in made:
        artifacts.update(fixtures.artifact_files(fixture, workdir))
    with tempfile.TemporaryDirectory(dir=workdir) as scratch:
        for name, data in artifacts.items():
            path = Path(scratch) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        cases += build_cases([fixtures.fixture_scenario(f) for f in made], Path(scratch), workdir)
    return Generated(sorted(cases, key=lambda case: case.id), artifacts)


__all__ = [
    "FIXTURE_ARTIFACTS",
    "SCHEMA_FILE",
    "SUITE_FIXTURES",
    "Generated",
    "GenerationError",
    "generate_suite",
    "stale_files",
    "write_suite",
]

"""A JSONL root that holds only a later TypeScript harness's files is not "empty and valid":
``validate``, ``inspect`` and ``repair`` name what they found (``STORE_VERSION_UNSUPPORTED``)
and exit 2, touching nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_support import run, tree_digest


def _later_layout(root: Path) -> Path:
    log = root / "--home-me--" / "abc" / "session.jsonl"
    log.parent.mkdir(parents=True)
    log.write_bytes(b'{"version":0,"id":"abc","createdAt":0}\n')
    return log


def _zstd_log(root: Path) -> Path:
    log = root / "_no-cwd" / "abc.jsonl.zstd"
    log.parent.mkdir(parents=True)
    log.write_bytes(b"\x28\xb5\x2f\xfd\x00\x00")
    return log


@pytest.mark.parametrize("make", [_later_layout, _zstd_log], ids=["layout", "zstd"])
@pytest.mark.parametrize("command", [["validate"], ["validate", "--json"], ["inspect"], ["repair"]])
def test_a_later_harness_root_is_named_not_passed(
    make: Callable[[Path], Path], command: list[str], tmp_path: Path
) -> None:
    root = tmp_path / "root"
    found = make(root)
    before = tree_digest(root)
    ran = run(*command, str(root))
    said = ran.stdout + ran.stderr
    assert ran.status == 2, said
    assert "STORE_VERSION_UNSUPPORTED" in said
    assert str(found.parent.parent if found.name == "session.jsonl" else found) in said
    assert tree_digest(root) == before

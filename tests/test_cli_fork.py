"""``dsh-session fork``: a stored child that is a prefix of its parent, as the reference forks."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_support import jsonl_file, run, tree_digest
from tests.reference import copy_case

FORK_CASE = "forked-child-at-turn-boundary-cwd"


def _parent_store(tmp_path: Path) -> tuple[Path, Path]:
    """A JSONL root holding the fork case's parent (its log.json: 63 events, 3 turns)."""
    case_dir = copy_case(FORK_CASE, tmp_path)
    root = tmp_path / "root"
    ran = run("convert", str(case_dir / "log.json"), str(root))
    assert ran.status == 0, ran.stderr
    return case_dir, root


def test_fork_at_the_reference_boundary_gives_the_reference_child(tmp_path: Path) -> None:
    case_dir, root = _parent_store(tmp_path)
    log = json.loads((case_dir / "log.json").read_text("utf-8"))
    assert log["id"] == "parent-session-7"
    ran = run("fork", str(root), "--boundary", "41", "--json")
    assert ran.status == 0, ran.stderr
    document = ran.json()
    assert document["parent"] == "parent-session-7"
    assert document["child"] == "parent-session-7-fork-1"  # the reference's child id, too
    assert document["boundary"] == 41 and document["seedLength"] == 42
    assert document["store"] == str(root)
    header = document["header"]
    assert {k: header[k] for k in ("version", "id", "cwd", "parentSession", "seedLength")} == {
        "version": 0,
        "id": "parent-session-7-fork-1",
        "cwd": "/srv/repo",
        "parentSession": "parent-session-7",
        "seedLength": 42,
    }
    # The child's events are the reference child's lines (its header differs: createdAt is now).
    reference = jsonl_file(case_dir / "jsonl")
    (ours,) = [p for p in root.glob("*/*.jsonl") if p.name == reference.name]
    assert ours.read_bytes().split(b"\n")[1:] == reference.read_bytes().split(b"\n")[1:]


def test_default_boundary_and_child_ids(tmp_path: Path) -> None:
    _, root = _parent_store(tmp_path)
    first = run("fork", str(root), "--id", "parent-session-7", "--json").json()
    assert first["boundary"] == 62 and first["seedLength"] == 63  # the last turn/end: the whole log
    second = run("fork", str(root), "--id", "parent-session-7", "--json").json()
    assert second["child"] == "parent-session-7-fork-2"
    named = run("fork", str(root), "--id", "parent-session-7", "--child", "mine", "--boundary", "41")
    assert named.status == 0
    assert "forked parent-session-7 at seq 41 into mine (42 events)" in named.stdout
    summary = run("inspect", str(root), "--id", "mine", "--json").json()
    assert summary["lineage"] == {"parentSession": "parent-session-7", "seedLength": 42}


def test_fork_into_another_store(tmp_path: Path) -> None:
    case_dir, root = _parent_store(tmp_path)
    before = tree_digest(root)
    target = tmp_path / "children.db"
    ran = run("fork", str(root), "--boundary", "41", "--to", str(target), "--child", "c", "--json")
    assert ran.status == 0, ran.stderr
    assert ran.json()["store"] == str(target)
    assert tree_digest(root) == before  # the parent's store is only read
    reference = json.loads((case_dir / "expected.json").read_text("utf-8"))  # the reference child's load
    assert run("derive", str(target), "--json").json()["messages"] == reference["messages"]


def test_refused_forks_exit_2_with_the_code(tmp_path: Path) -> None:
    _, root = _parent_store(tmp_path)
    before = tree_digest(root)
    not_an_end = run("fork", str(root), "--boundary", "40")
    assert not_an_end.status == 2
    (line,) = not_an_end.error_lines
    assert line.endswith("[OPEN_TURN]") and "must be turn/end" in line
    beyond = run("fork", str(root), "--boundary", "63")
    assert beyond.status == 2 and beyond.error_lines[0].endswith("[INVALID_BOUNDARY]")
    negative = run("fork", str(root), "--boundary", "-1")
    assert negative.status == 2 and negative.error_lines[0].endswith("[INVALID_BOUNDARY]")
    taken = run("fork", str(root), "--child", "parent-session-7")
    assert taken.status == 2 and taken.error_lines[0].endswith("[SESSION_ALREADY_EXISTS]")
    assert tree_digest(root) == before


def test_a_log_without_a_turn_end_cannot_be_forked(tmp_path: Path) -> None:
    log = tmp_path / "open.jsonl"
    log.write_text(
        '{"type":"turn/start","seq":0,"time":1,"data":{"turn":1,"trigger":{"kind":"message"}}}\n', "utf-8"
    )
    ran = run("fork", str(log), "--to", str(tmp_path / "t"))
    assert ran.status == 2
    (line,) = ran.error_lines
    assert "no turn/end to fork at" in line and line.endswith("[OPEN_TURN]")


def test_an_event_list_needs_a_target(tmp_path: Path) -> None:
    case_dir = copy_case(FORK_CASE, tmp_path)
    ran = run("fork", str(case_dir / "log.json"), "--boundary", "41")
    assert ran.status == 2
    (line,) = ran.error_lines
    assert "fork needs a session store" in line
    into = run("fork", str(case_dir / "log.json"), "--boundary", "41", "--to", str(tmp_path / "t.db"))
    assert into.status == 0, into.stderr


def _refusals() -> list[tuple[list[str], str]]:
    """Forks of the fork case's parent that are refused: the arguments and the code."""
    return [
        (["--boundary", "40"], "[OPEN_TURN]"),
        (["--boundary", "63"], "[INVALID_BOUNDARY]"),
        (["--child", "parent-session-7"], "[SESSION_ALREADY_EXISTS]"),
    ]


def test_a_refused_fork_to_a_new_target_leaves_nothing_behind(tmp_path: Path) -> None:
    _, root = _parent_store(tmp_path)
    for name in ("new.db", "new.sqlite", "newroot"):
        target = tmp_path / name
        for args, code in _refusals():
            ran = run("fork", str(root), *args, "--to", str(target))
            assert ran.status == 2, (name, args)
            (line,) = ran.error_lines
            assert line.endswith(code), line
            assert not target.exists(), (name, args)
            assert not [p for p in tmp_path.iterdir() if p.name.startswith(name)], (name, args)


def test_a_refused_fork_leaves_an_existing_target_as_it_was(tmp_path: Path) -> None:
    _, root = _parent_store(tmp_path)
    target = tmp_path / "children.db"
    ok = run("fork", str(root), "--boundary", "41", "--to", str(target), "--child", "first")
    assert ok.status == 0, ok.stderr
    before = tree_digest(tmp_path)
    for args, code in _refusals():
        ran = run("fork", str(root), *args, "--to", str(target))
        assert ran.status == 2 and ran.error_lines[0].endswith(code)
    assert tree_digest(tmp_path) == before


def test_a_taken_sibling_id_is_refused_before_the_boundary(tmp_path: Path) -> None:
    _, root = _parent_store(tmp_path)
    first = run("fork", str(root), "--boundary", "41", "--json")
    assert first.status == 0, first.stderr
    sibling = first.json()["child"]
    assert sibling == "parent-session-7-fork-1"
    before = tree_digest(root)
    # Boundary 40 is not a turn/end (OPEN_TURN), but the taken id is checked first, as the reference does.
    for boundary in ("40", "41"):
        ran = run("fork", str(root), "--id", "parent-session-7", "--child", sibling, "--boundary", boundary)
        assert ran.status == 2
        (line,) = ran.error_lines
        assert line.endswith("[SESSION_ALREADY_EXISTS]"), line
        assert repr(sibling) in line and str(root) in line and "choose another --child" in line
        assert "load it instead" not in line
    assert tree_digest(root) == before


def test_a_taken_sibling_id_in_another_target_is_refused_before_the_boundary(tmp_path: Path) -> None:
    _, root = _parent_store(tmp_path)
    for name in ("children.db", "children"):
        target = tmp_path / name
        first = run("fork", str(root), "--boundary", "41", "--to", str(target), "--child", "kid")
        assert first.status == 0, first.stderr
        before = tree_digest(tmp_path)
        ran = run("fork", str(root), "--child", "kid", "--boundary", "40", "--to", str(target))
        assert ran.status == 2
        (line,) = ran.error_lines
        assert line.endswith("[SESSION_ALREADY_EXISTS]") and "choose another --child" in line, line
        assert str(target) in line
        assert tree_digest(tmp_path) == before


def test_an_empty_child_id_is_refused(tmp_path: Path) -> None:
    _, root = _parent_store(tmp_path)
    before = tree_digest(tmp_path)
    ran = run("fork", str(root), "--child", "", "--boundary", "41")
    assert ran.status == 2
    (line,) = ran.error_lines
    assert line == "dsh-session: error: --child: a session id cannot be empty"
    assert tree_digest(tmp_path) == before

"""``dsh-session convert``: JSONL <-> SQLite on the reference stores, checked against the reference."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh_session import CopyMismatchError, copy_sessions
from dsh_session.cli import convert as convert_module
from dsh_session.persistence.errors import StoreIOError
from tests.cli_support import expected, jsonl_file, run, store_of, tree_digest
from tests.reference import VALID, copy_case

#: INDEX.md: "JSONL vs SQLite load: byte-identical" for every valid case but this one.
KEY_ORDER_DIFFERS = {"previously-interrupted-turn-resumed-cwd"}


@pytest.mark.parametrize("case", VALID)
def test_jsonl_to_sqlite_loads_what_the_reference_loaded(case: str, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    before = tree_digest(case_dir)
    target = tmp_path / "out.db"
    ran = run("convert", str(case_dir / "jsonl"), str(target), "--json")
    assert ran.status == 0, ran.stderr
    reference = expected(case_dir, "jsonl")
    assert ran.json() == {
        "src": str(case_dir / "jsonl"),
        "dst": str(target),
        "srcBackend": "jsonl",
        "dstBackend": "sqlite",
        "copied": [reference["meta"]["id"]],
        "verified": True,
    }
    derived = run("derive", str(target), "--json").json()
    assert derived["messages"] == reference["messages"]
    assert derived["generation"] == reference["generation"]
    assert tree_digest(case_dir) == before


@pytest.mark.parametrize("case", VALID)
def test_sqlite_to_jsonl_writes_the_reference_file(case: str, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    target = tmp_path / "root"
    ran = run("convert", str(case_dir / "sqlite" / "session.db"), str(target))
    assert ran.status == 0, ran.stderr
    assert (
        "copied 1 session(s)" in ran.stdout
        and "(sqlite) to" in ran.stdout
        and "loaded back equal" in ran.stdout
    )
    ours = jsonl_file(target)
    reference = jsonl_file(case_dir / "jsonl")
    assert ours.relative_to(target) == reference.relative_to(case_dir / "jsonl")  # same bucket, same name
    if case in KEY_ORDER_DIFFERS:
        ours_lines = [json.loads(line) for line in ours.read_text("utf-8").splitlines()]
        reference_lines = [json.loads(line) for line in reference.read_text("utf-8").splitlines()]
        assert ours_lines == reference_lines
    else:
        assert ours.read_bytes() == reference.read_bytes()


@pytest.mark.parametrize("case", VALID)
def test_jsonl_to_jsonl_is_byte_for_byte(case: str, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    target = tmp_path / "copy"
    assert run("convert", str(case_dir / "jsonl"), str(target), "--to-backend", "jsonl").status == 0
    assert jsonl_file(target).read_bytes() == jsonl_file(case_dir / "jsonl").read_bytes()


@pytest.mark.parametrize(
    "case",
    [
        "crash-sqlite-open-turn-unanswered-toolcalls-open-step",
        "crash-jsonl-torn-last-line-unanswered-toolcall",
    ],
)
def test_a_crashed_session_is_copied_repaired_and_its_source_left_alone(case: str, tmp_path: Path) -> None:
    case_dir = copy_case(case, tmp_path)
    backend = "sqlite" if "sqlite" in case else "jsonl"
    before = tree_digest(case_dir)
    target = tmp_path / ("out" if backend == "sqlite" else "out.sqlite3")
    assert run("convert", str(store_of(case_dir, backend)), str(target)).status == 0
    assert tree_digest(case_dir) == before
    reference = expected(case_dir, backend)
    derived = run("derive", str(target), "--json").json()
    assert derived["messages"] == reference["messages"]
    assert derived["events"] == len(reference["events"])


def _store_of_three(tmp_path: Path) -> Path:
    root = tmp_path / "three"
    for case in ("single-turn-text-cwd", "compaction-once-cwd", "all-surface-types-no-cwd"):
        for path in copy_case(case, tmp_path).glob("jsonl/*/*.jsonl"):
            target = root / path.parent.name / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    return root


def test_several_sessions_and_a_choice_of_ids(tmp_path: Path) -> None:
    root = _store_of_three(tmp_path)
    every = run("convert", str(root), str(tmp_path / "all.db"), "--json")
    assert every.json()["copied"] == ["all-surface-types", "compaction-once", "single-turn-text"]
    some = run(
        "convert",
        str(root),
        str(tmp_path / "some.db"),
        "--id",
        "single-turn-text",
        "--id",
        "compaction-once",
        "--json",
    )
    assert some.json()["copied"] == ["single-turn-text", "compaction-once"]
    assert (
        run("inspect", str(tmp_path / "some.db"), "--id", "compaction-once", "--json").json()["events"] == 29
    )
    # Converting again into the same store: the first id is taken.
    again = run("convert", str(root), str(tmp_path / "some.db"), "--id", "single-turn-text")
    assert again.status == 2
    (line,) = again.error_lines
    assert line.endswith("[SESSION_ALREADY_EXISTS]")


def test_an_unknown_id_and_a_bad_target(tmp_path: Path) -> None:
    root = _store_of_three(tmp_path)
    unknown = run("convert", str(root), str(tmp_path / "x.db"), "--id", "nope")
    assert unknown.status == 2 and unknown.error_lines[-1].endswith("[SESSION_NOT_FOUND]")
    text = tmp_path / "notes.txt"
    text.write_text("hello\n", "utf-8")
    bad = run("convert", str(root), str(text))
    assert bad.status == 2
    (line,) = bad.error_lines
    assert "is not a SQLite database" in line
    assert text.read_text("utf-8") == "hello\n"


def test_a_verification_failure_exits_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def lossy(*_args: object, **_kwargs: object) -> list[str]:
        raise CopyMismatchError("s", "session 's': the copy holds 3 event(s), the source 4")

    monkeypatch.setattr(convert_module, "copy_sessions", lossy)
    case_dir = copy_case("single-turn-text-cwd", tmp_path)
    ran = run("convert", str(case_dir / "jsonl"), str(tmp_path / "out.db"))
    assert ran.status == 1
    assert ran.error_lines == [
        "dsh-session: error: session 's': the copy holds 3 event(s), the source 4 -- no session was "
        f"written to {tmp_path / 'out.db'} before it [COPY_MISMATCH]"
    ]


def test_a_failure_midway_says_what_is_in_the_destination(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = copy_sessions

    def failing_second(src: Any, dst: Any, ids: list[str], **kwargs: Any) -> list[str]:
        real(src, dst, ids[:1], **kwargs)  # the first session goes over, then the store fails
        raise StoreIOError("writing the destination failed: disk full", path="x", errno=None)

    monkeypatch.setattr(convert_module, "copy_sessions", failing_second)
    root = _store_of_three(tmp_path)
    target = tmp_path / "half.db"
    ran = run("convert", str(root), str(target))
    assert ran.status == 2
    (line,) = ran.error_lines
    assert line == (
        "dsh-session: error: writing the destination failed: disk full -- already written to "
        f"{target}: 1 session(s) (all-surface-types) [STORE_IO]"
    )
    assert run("validate", str(target), "--json").json()["sessions"][0]["id"] == "all-surface-types"


def test_an_event_list_converts_into_a_store(tmp_path: Path) -> None:
    case_dir = copy_case("tool-calls-parallel-multistep-cwd", tmp_path)
    target = tmp_path / "root"
    ran = run("convert", str(case_dir / "log.json"), str(target), "--json")
    assert ran.status == 0, ran.stderr
    assert ran.json()["srcBackend"] == "events"
    # log.json holds the same events the reference stored; its header lacks createdAt, which
    # defaults to the first event's time, so only the event lines are compared.
    ours = jsonl_file(target).read_bytes().split(b"\n")[1:]
    assert ours == jsonl_file(case_dir / "jsonl").read_bytes().split(b"\n")[1:]


def test_a_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    root = _store_of_three(tmp_path)
    piped = run("convert", str(root), str(tmp_path / "a.db"))
    assert piped.stderr == ""
    terminal = run("convert", str(root), str(tmp_path / "b.db"), env={"FORCE_COLOR": "1", "TERM": "xterm"})
    assert terminal.status == 0
    assert "copying" in terminal.stderr and "3/3 sessions" in terminal.stderr
    assert "copied 3 session(s)" in terminal.stdout
    # One session: the bar still shows, and it counts events to the end.
    (tmp_path / "one").mkdir()
    case_dir = copy_case("compaction-once-cwd", tmp_path / "one")
    alone = run(
        "convert", str(case_dir / "jsonl"), str(tmp_path / "c.db"), env={"FORCE_COLOR": "1", "TERM": "xterm"}
    )
    assert alone.status == 0
    assert "1/1 sessions" in alone.stderr and "100%" in alone.stderr
    assert run("convert", str(case_dir / "jsonl"), str(tmp_path / "d.db")).stderr == ""


class _Recorder:
    """Stands in for convert's rich bar: what it was told."""

    def __init__(self) -> None:
        self.totals: list[int] = []
        self.advanced = 0

    def __enter__(self) -> _Recorder:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None

    def add_task(self, _description: str, *, total: int, **_fields: Any) -> int:
        self.totals.append(total)
        return 0

    def update(self, _task: int, *, advance: int = 0, **_fields: Any) -> None:
        self.advanced += advance


@pytest.mark.parametrize("verify", [True, False])
def test_the_progress_bar_counts_events(
    verify: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dsh_session.cli import _progress

    root = _store_of_three(tmp_path)
    # The events each session is copied with: as a load returns it (the cases load unrepaired).
    events = sum(
        len(expected(tmp_path / case, "jsonl")["events"])
        for case in ("single-turn-text-cwd", "compaction-once-cwd", "all-surface-types-no-cwd")
    )
    recorder = _Recorder()
    monkeypatch.setattr(_progress, "copy_bar", lambda *_args, **_kwargs: recorder)
    args = ["convert", str(root), str(tmp_path / "out.db"), *([] if verify else ["--no-verify"])]
    ran = run(*args, env={"FORCE_COLOR": "1"})
    assert ran.status == 0, ran.stderr
    stages = 3 if verify else 2  # loaded from SRC, written to DST (and loaded back)
    assert recorder.totals == [events * stages]
    assert recorder.advanced == events * stages


def test_a_destination_that_holds_the_sessions_is_named_in_the_message(tmp_path: Path) -> None:
    root = _store_of_three(tmp_path)
    for dst in (root, tmp_path / "copy.db"):
        if dst != root:
            first = run("convert", str(root), str(dst), "--id", "single-turn-text")
            assert first.status == 0, first.stderr
        before = tree_digest(tmp_path)
        ran = run("convert", str(root), str(dst))
        assert ran.status == 2
        (line,) = ran.error_lines
        assert line.endswith("[SESSION_ALREADY_EXISTS]"), line
        assert f"{dst} already holds" in line and "'single-turn-text'" in line
        assert "--id" in line and "nothing was copied" in line
        assert "Backend(" not in line and "ids=" not in line and "before it" not in line
        assert tree_digest(tmp_path) == before

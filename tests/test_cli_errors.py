"""Bad input gives one line on stderr and exit status 2 -- never a traceback -- for every command;
``--debug`` shows the traceback; the installed ``dsh-session`` and ``python -m dsh_session`` agree."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import click
import pytest

from dsh_session import MemoryBackend, MemoryStore
from dsh_session.cli import _common as common_module
from dsh_session.cli import _errors, _output, _resolve, main
from tests.cli_support import run
from tests.reference import copy_case

#: Every command, with the arguments it needs besides PATH.
COMMANDS = {
    "validate": [],
    "derive": [],
    "surface": [],
    "inspect": [],
    "repair": [],
    "fork": [],
    "convert": ["{tmp}/out.db"],
}


def invoke(command: str, path: Path | str, tmp_path: Path, *extra: str) -> tuple[int, list[str], str]:
    args = [command, str(path), *(arg.format(tmp=tmp_path) for arg in COMMANDS[command]), *extra]
    ran = run(*args)
    assert ran.exception is None or isinstance(ran.exception, SystemExit), ran.exception
    return ran.status, ran.error_lines, ran.stdout


def check_one_line(status: int, lines: list[str], *, code: str | None = None, mentions: str = "") -> str:
    assert status == 2, lines
    assert len(lines) == 1, lines
    (line,) = lines
    assert line.startswith("dsh-session: error: ")
    assert "Traceback" not in line
    if code is not None:
        assert line.endswith(f"[{code}]"), line
    assert mentions in line
    return line


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_missing_path(command: str, tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such.db"
    status, lines, _ = invoke(command, missing, tmp_path)
    check_one_line(status, lines, mentions=f"{missing}: no such file or directory")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_garbage_json(command: str, tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.json"
    garbage.write_text('[{"type": "turn/start", "seq": 0,\n', "utf-8")
    status, lines, _ = invoke(command, garbage, tmp_path)
    check_one_line(status, lines, code="STORE_CORRUPT", mentions=str(garbage))


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_binary_garbage(command: str, tmp_path: Path) -> None:
    garbage = tmp_path / "noise.bin"
    garbage.write_bytes(bytes(range(256)) * 4)
    status, lines, _ = invoke(command, garbage, tmp_path)
    check_one_line(status, lines, code="STORE_CORRUPT")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_wrong_id(command: str, tmp_path: Path) -> None:
    case_dir = copy_case("single-turn-text-cwd", tmp_path)
    for store in (case_dir / "jsonl", case_dir / "sqlite" / "session.db"):
        status, lines, _ = invoke(command, store, tmp_path, "--id", "no-such-session")
        check_one_line(status, lines, code="SESSION_NOT_FOUND", mentions="'no-such-session'")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_wrong_version(command: str, tmp_path: Path) -> None:
    case_dir = copy_case("reject-jsonl-header-version-1", tmp_path)
    status, lines, _ = invoke(command, case_dir / "jsonl", tmp_path, "--id", "version-one")
    check_one_line(status, lines, code="STORE_VERSION_UNSUPPORTED", mentions="format version 1")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_foreign_database(command: str, tmp_path: Path) -> None:
    case_dir = copy_case("reject-sqlite-user-version-5", tmp_path)
    status, lines, _ = invoke(command, case_dir / "sqlite" / "session.db", tmp_path)
    check_one_line(status, lines, code="STORE_VERSION_UNSUPPORTED", mentions="schema version 5")


@pytest.mark.parametrize("command", sorted(set(COMMANDS) - {"validate"}))
def test_a_corrupt_file(command: str, tmp_path: Path) -> None:
    case_dir = copy_case("reject-jsonl-null-line-mid-file", tmp_path)
    status, lines, _ = invoke(command, case_dir / "jsonl", tmp_path)
    check_one_line(status, lines, code="STORE_CORRUPT", mentions="null-line.jsonl:7")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_truncated_database(command: str, tmp_path: Path) -> None:
    case_dir = copy_case("single-turn-text-cwd", tmp_path)
    database = case_dir / "sqlite" / "session.db"
    database.write_bytes(database.read_bytes()[:1024])  # the magic, then half a page
    status, lines, _ = invoke(command, database, tmp_path)
    check_one_line(status, lines, mentions=str(database))


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_event_that_breaks_a_rule(command: str, tmp_path: Path) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text(
        '{"type":"user/message","seq":0,"time":1,"data":{"content":[],"source":{"kind":"user"}}}\n'
    )
    status, lines, _ = invoke(command, log, tmp_path)
    if command == "validate":
        assert status == 1 and lines == []
    else:
        check_one_line(status, lines, code="MISSING_SURFACE_OP", mentions="line 1")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_not_a_file_nor_a_directory(command: str, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opening it to read would block: it must not be opened at all
    status, lines, _ = invoke(command, fifo, tmp_path)
    check_one_line(status, lines, mentions="not a regular file or a directory")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_empty_file(command: str, tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    status, lines, _ = invoke(command, empty, tmp_path)
    check_one_line(status, lines, mentions="the file is empty")


def test_a_directory_forced_to_be_a_database(tmp_path: Path) -> None:
    status, lines, _ = invoke("inspect", tmp_path, tmp_path, "--backend", "sqlite")
    check_one_line(status, lines, mentions="is a directory")


def test_a_bucket_given_as_the_root(tmp_path: Path) -> None:
    case_dir = copy_case("single-turn-text-cwd", tmp_path)
    bucket = next((case_dir / "jsonl").iterdir())
    status, lines, _ = invoke("derive", bucket, tmp_path)
    check_one_line(status, lines, mentions="one directory deeper")


def test_a_store_of_several_sessions_needs_an_id(tmp_path: Path) -> None:
    root = tmp_path / "root"
    for case in ("single-turn-text-cwd", "compaction-once-cwd"):
        shutil.copytree(copy_case(case, tmp_path) / "jsonl", root, dirs_exist_ok=True)
    status, lines, _ = invoke("derive", root, tmp_path)
    check_one_line(
        status, lines, mentions="holds 2 sessions (compaction-once, single-turn-text); choose one with --id"
    )
    empty = tmp_path / "empty-root"
    empty.mkdir()
    status, lines, _ = invoke("inspect", empty, tmp_path)
    check_one_line(status, lines, mentions="no sessions stored here")


def test_a_live_writer_does_not_stop_a_reader(tmp_path: Path) -> None:
    case_dir = copy_case("crash-sqlite-open-turn-after-compaction", tmp_path)
    database = case_dir / "sqlite" / "session.db"
    holder = sqlite3.connect(database, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another process in the middle of a write (WAL database)
        holder.execute("DELETE FROM events WHERE seq > 5")
        status, lines, out = invoke("inspect", database, tmp_path, "--json")
        assert status == 0, lines
        assert '"events":31' in out  # the committed log, not the uncommitted delete
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    ran = run("--debug", "derive", str(tmp_path / "missing"))
    assert ran.status != 0
    assert isinstance(ran.exception, _errors.CliError)
    assert "no such file or directory" in str(ran.exception)


def test_an_unexpected_exception_is_a_bug_with_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(common_module, "read_snapshot", broken)
    case_dir = copy_case("single-turn-text-cwd", tmp_path)
    ran = run("derive", str(case_dir / "jsonl"))
    assert ran.status == 3
    assert ran.error_lines == [
        "dsh-session: error: internal error: RuntimeError: boom (run with --debug for the traceback)"
    ]
    debug = run("--debug", "derive", str(case_dir / "jsonl"))
    assert isinstance(debug.exception, RuntimeError)


def test_usage_errors_are_one_line_with_exit_2() -> None:
    ran = run("derive")
    assert ran.status == 2
    assert ran.error_lines == ["dsh-session: error: missing argument 'PATH' (see dsh-session derive --help)"]
    assert ran.stdout == ""
    for args in (
        ("derive", "x", "--backend", "nosuch"),
        ("inspect", "x", "--nosuch"),
        ("nosuch",),
        ("--nosuch", "derive", "x"),
        ("validate", "x", "--json", "--backend", "nosuch"),
    ):
        ran = run(*args)
        assert ran.status == 2, args
        (line,) = ran.error_lines
        assert line.startswith("dsh-session: error: ") and "Usage:" not in ran.stderr, (args, ran.stderr)
        assert "--help" in line, line
    assert "'nosuch'" in run("nosuch").stderr


def test_with_json_a_failure_prints_one_json_object_as_well(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    for command in ("validate", "derive", "surface", "inspect", "repair", "fork", "convert"):
        args = [command, str(missing), *(["out.db"] if command == "convert" else []), "--json"]
        ran = run(*args)
        assert ran.status == 2, (command, ran.stderr)
        if command == "validate":  # its report names the unreadable PATH
            assert ran.json()["sessions"][0]["status"] == "unreadable"
            continue
        assert len(ran.error_lines) == 1 and ran.error_lines[0].startswith("dsh-session: error: ")
        assert ran.json() == {
            "error": {"code": None, "message": f"{missing}: no such file or directory"},
            "status": 2,
        }, command
    case_dir = copy_case("single-turn-text-cwd", tmp_path)
    ran = run("derive", str(case_dir / "jsonl"), "--id", "nobody", "--json")
    assert ran.status == 2
    assert ran.json()["error"]["code"] == "SESSION_NOT_FOUND"
    assert ran.json()["status"] == 2
    assert "nobody" in ran.json()["error"]["message"]
    usage = run("derive", "--json")
    assert usage.status == 2
    assert usage.json() == {
        "error": {"code": None, "message": "missing argument 'PATH' (see dsh-session derive --help)"},
        "status": 2,
    }
    assert run("derive", str(missing)).stdout == ""  # without --json, stdout stays empty


def test_version_names_the_program() -> None:
    from importlib.metadata import version

    assert run("--version").stdout == f"dsh-session {version('dsh-session')}\n"


def test_help_is_plain_text() -> None:
    for path, _command in _commands(main):
        ran = run(*path, "--help")
        assert ran.status == 0, path
        assert "``" not in ran.stdout, (path, ran.stdout)
    assert "``" not in run("--help").stdout


def test_colour_only_on_a_terminal_and_never_with_no_color(tmp_path: Path) -> None:
    case_dir = copy_case("compaction-once-cwd", tmp_path)
    store = str(case_dir / "jsonl")
    assert "\x1b[" not in run("validate", store).stdout  # piped
    forced = {"FORCE_COLOR": "1", "TERM": "xterm-256color"}
    assert "\x1b[" in run("validate", store, env=forced).stdout  # a terminal
    assert "\x1b[" not in run("validate", store, "--no-color", env=forced).stdout
    assert "\x1b[" not in run("--no-color", "validate", store, env=forced).stdout


def _commands(
    group: click.Group, prefix: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], click.Command]]:
    found: list[tuple[tuple[str, ...], click.Command]] = []
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += _commands(command, (*prefix, name))
        else:
            found.append(((*prefix, name), command))
    return found


def test_every_command_takes_no_color() -> None:
    """cli.md: ``--no-color`` is an option every command shares."""
    missing = [
        " ".join(path)
        for path, command in _commands(main)
        if not any("--no-color" in getattr(p, "opts", ()) for p in command.params)
    ]
    assert missing == []


def test_demo_and_conformance_run_colour_only_without_no_color() -> None:
    forced = {"FORCE_COLOR": "1", "TERM": "xterm-256color"}
    for args in (("demo",), ("conformance", "run", "--area", "store")):
        assert "\x1b[" in run(*args, env=forced).stdout, args
        assert "\x1b[" not in run(*args, "--no-color", env=forced).stdout, args


# -- the installed command and python -m ----------------------------------------------------------------


def _entry_points() -> list[list[str]]:
    script = Path(sys.executable).parent / "dsh-session"
    assert script.exists(), "dsh-session is installed beside the interpreter"
    return [[str(script)], [sys.executable, "-m", "dsh_session"]]


@pytest.mark.parametrize("entry", _entry_points(), ids=["dsh-session", "python -m dsh_session"])
def test_real_processes(entry: list[str], tmp_path: Path) -> None:
    case_dir = copy_case("single-turn-text-cwd", tmp_path)
    env = {**os.environ, "NO_COLOR": "1"}
    ok = subprocess.run(
        [*entry, "derive", str(case_dir / "sqlite" / "session.db"), "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert '"role":"assistant"' in ok.stdout
    missing = subprocess.run(
        [*entry, "inspect", str(tmp_path / "missing")], capture_output=True, text=True, env=env, check=False
    )
    assert missing.returncode == 2
    assert missing.stdout == ""
    assert missing.stderr == f"dsh-session: error: {tmp_path / 'missing'}: no such file or directory\n"
    damaged = copy_case("reject-jsonl-null-line-mid-file", tmp_path)
    invalid = subprocess.run(
        [*entry, "validate", str(damaged / "jsonl")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert invalid.returncode == 1 and "STORE_CORRUPT" in invalid.stdout
    piped = subprocess.run([*entry, "--help"], capture_output=True, text=True, env=env, check=False)
    for command in ("validate", "derive", "surface", "inspect", "repair", "convert", "fork"):
        assert command in piped.stdout


def test_a_registered_url_scheme_is_read_and_written_through_its_backend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case_dir = copy_case("single-turn-text-cwd", tmp_path)
    storage = MemoryStore()
    monkeypatch.setattr(_resolve, "_SCHEMES", {})
    _resolve.register_scheme(
        "Mem",
        source=lambda url, schema: _resolve.resolve(str(case_dir / url.removeprefix("mem://"))),
        target=lambda url, schema: MemoryBackend(storage),
    )
    assert run("inspect", "mem://jsonl", "--json").json()["id"] == "single-turn-text"
    assert run("convert", "mem://sqlite/session.db", "MEM://anything").status == 0
    assert [header.id for header in MemoryBackend(storage).list()] == ["single-turn-text"]


@pytest.mark.parametrize("as_json", [False, True], ids=["transcript", "json"])
def test_a_reader_that_goes_away_ends_the_command_quietly(
    as_json: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def gone(*_args: object, **_kwargs: object) -> None:
        raise BrokenPipeError

    # What writing to a closed pipe raises, wherever the output is written.
    for name in ("print", "raw", "json", "json_parts"):
        monkeypatch.setattr(_output.Output, name, gone)
    case_dir = copy_case("single-turn-text-cwd", tmp_path)
    ran = run("derive", str(case_dir / "jsonl"), *(["--json"] if as_json else []))
    assert ran.status == 141
    assert ran.stderr == ""


# -- sessions that cannot be read are reported, never dropped ---------------------------------------------

#: Why each kind of store below cannot be read, as the error line ends.
_V1 = "[STORE_VERSION_UNSUPPORTED]"


def _v1_jsonl_root(tmp_path: Path) -> tuple[Path, str]:
    """A JSONL root whose only session file has header version 1, and that file."""
    root = copy_case("reject-jsonl-header-version-1", tmp_path) / "jsonl"
    (log,) = root.glob("*/*.jsonl")
    return root, str(log)


def _v1_sqlite(tmp_path: Path) -> tuple[Path, str]:
    """A SQLite store whose only session row has version 1."""
    database = copy_case("single-turn-text-cwd", tmp_path) / "sqlite" / "session.db"
    with sqlite3.connect(database) as conn:
        conn.execute("UPDATE sessions SET version = 1")
    conn.close()
    return database, str(database)


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_only_session_cannot_be_read(command: str, kind: str, tmp_path: Path) -> None:
    store, where = (_v1_jsonl_root if kind == "jsonl" else _v1_sqlite)(tmp_path)
    status, lines, out = invoke(command, store, tmp_path)
    line = check_one_line(status, lines, code="STORE_VERSION_UNSUPPORTED", mentions=where)
    assert "format version 1" in line
    if command in ("derive", "surface", "inspect", "fork"):
        assert f"{store}: the only session stored here cannot be read" in line
        assert "no sessions stored here" not in line
    if command == "repair":
        assert out == "0 session(s) checked, 0 repaired; 1 cannot be read\n"
    if command == "convert":
        assert "nothing copied: 1 of 1 session(s)" in out
        assert not (tmp_path / "out.db").exists()


def _mixed_jsonl_root(tmp_path: Path, damage: str) -> tuple[Path, str]:
    """A JSONL root with a crashed session (a load repairs it) and a session file that cannot be
    read, damaged as ``damage`` says; and that file."""
    root = tmp_path / "mixed"
    shutil.copytree(copy_case("crash-jsonl-torn-turn-end-line", tmp_path) / "jsonl", root)
    if damage == "version":
        other = copy_case("reject-jsonl-header-version-1", tmp_path) / "jsonl"
        shutil.copytree(other, root, dirs_exist_ok=True)
        (bad,) = root.glob("cwd-*/version-one.jsonl")
    elif damage == "header":
        bad = root / "_no-cwd" / "garbled.jsonl"
        bad.write_bytes(b'{"type":"session","version":0,\n')
    else:  # a sound session in a directory its header does not name
        other = copy_case("single-turn-text-cwd", tmp_path) / "jsonl"
        (log,) = other.glob("*/*.jsonl")
        bad = root / "cwd-000000000000" / log.name
        bad.parent.mkdir()
        shutil.copy(log, bad)
    return root, str(bad)


def _mixed_sqlite(tmp_path: Path) -> tuple[Path, str]:
    """A SQLite store of a crashed session (a load repairs it) and a session row of format
    version 1 (``version-one``)."""
    database = copy_case("crash-sqlite-open-turn-after-compaction", tmp_path) / "sqlite" / "session.db"
    with sqlite3.connect(database) as conn:
        conn.execute("INSERT INTO sessions (id, version, created_at) VALUES ('version-one', 1, 0)")
    conn.close()
    return database, "'version-one'"


_MIXED = ["jsonl-version", "jsonl-header", "jsonl-place", "sqlite-version"]
_MIXED_CODE = {
    "jsonl-version": "STORE_VERSION_UNSUPPORTED",
    "jsonl-header": "STORE_CORRUPT",
    "jsonl-place": "STORE_CORRUPT",
    "sqlite-version": "STORE_VERSION_UNSUPPORTED",
}


#: The session of each mixed store that can be read.
_READABLE = {store: "crash-torn-turn-end" for store in _MIXED} | {"sqlite-version": "crash-after-compaction"}


def _mixed(store: str, tmp_path: Path) -> tuple[Path, str]:
    kind, damage = store.split("-")
    return _mixed_jsonl_root(tmp_path, damage) if kind == "jsonl" else _mixed_sqlite(tmp_path)


@pytest.mark.parametrize("store", _MIXED)
def test_convert_of_a_store_with_an_unreadable_session_writes_nothing(store: str, tmp_path: Path) -> None:
    source, where = _mixed(store, tmp_path)
    target = tmp_path / "copy.db"
    ran = run("convert", str(source), str(target))
    check_one_line(ran.status, ran.error_lines, code=_MIXED_CODE[store], mentions=where)
    assert "nothing copied: 1 of 2 session(s)" in ran.stdout
    assert not target.exists()
    as_json = run("convert", str(source), str(target), "--json")
    assert as_json.status == 2 and as_json.stderr == ""
    document = as_json.json()
    assert document["copied"] == [] and len(document["unreadable"]) == 1
    assert document["unreadable"][0]["code"] == _MIXED_CODE[store]
    assert not target.exists()
    # The readable one alone converts.
    alone = run("convert", str(source), str(target), "--id", _READABLE[store])
    assert alone.status == 0, alone.stderr


@pytest.mark.parametrize("store", _MIXED)
def test_repair_of_a_store_with_an_unreadable_session_repairs_the_rest(store: str, tmp_path: Path) -> None:
    source, where = _mixed(store, tmp_path)
    ran = run("repair", str(source))
    check_one_line(ran.status, ran.error_lines, code=_MIXED_CODE[store], mentions=where)
    assert ran.stdout.endswith("1 session(s) checked, 1 repaired; 1 cannot be read\n")
    again = run("repair", str(source), "--json")
    assert again.status == 2 and again.stderr == ""
    document = again.json()
    assert document["checked"] == 1 and document["sessions"] == []  # repaired the first time
    (unreadable,) = document["unreadable"]
    assert unreadable["code"] == _MIXED_CODE[store] and where.strip("'") in unreadable["message"]


@pytest.mark.parametrize("store", _MIXED)
def test_choosing_among_sessions_some_unreadable_needs_an_id(store: str, tmp_path: Path) -> None:
    source, _ = _mixed(store, tmp_path)
    status, lines, _ = invoke("derive", source, tmp_path)
    check_one_line(
        status,
        lines,
        mentions=f"holds 2 sessions ({_READABLE[store]}; 1 cannot be read, see dsh-session validate); "
        "choose one with --id",
    )
    validated = run("validate", str(source), "--json")
    assert validated.status == 2
    assert sorted(item["status"] for item in validated.json()["sessions"]) == ["unreadable", "valid"]


def test_several_sessions_none_readable(tmp_path: Path) -> None:
    root, _ = _v1_jsonl_root(tmp_path)
    (root / "_no-cwd").mkdir()
    (root / "_no-cwd" / "empty.jsonl").write_bytes(b"")
    status, lines, _ = invoke("inspect", root, tmp_path)
    check_one_line(
        status,
        lines,
        code="STORE_CORRUPT",
        mentions="none of the 2 sessions stored here can be read; the first",
    )

"""How the commands write (docs/cli.md, "Options every command shares"): plain lines when piped,
without trailing spaces; colour and progress bars only on a terminal, never with --json; rich
imported only to draw; readable times; the view commands' one preamble; the markup's escapes."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dsh_session.cli import _output, main
from dsh_session.cli.inspect import readable_time
from tests.cli_support import run
from tests.reference import copy_case

#: Every human-readable view of a session, with what it needs besides PATH.
VIEWS = (
    ("inspect",),
    ("derive",),
    ("surface",),
    ("validate",),
    ("validate", "--invariants"),
    ("repair", "--dry-run"),
)


@pytest.mark.parametrize("view", VIEWS, ids=" ".join)
def test_piped_lines_end_without_spaces(view: tuple[str, ...], tmp_path: Path) -> None:
    case_dir = copy_case("crash-jsonl-torn-last-line-unanswered-toolcall", tmp_path)
    ran = run(view[0], str(case_dir / "jsonl"), *view[1:])
    assert ran.status == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert len(lines) >= 2
    assert [line for line in lines if line != line.rstrip()] == []
    assert "\x1b[" not in ran.stdout


def test_demo_lines_end_without_spaces() -> None:
    lines = run("demo").stdout.splitlines()
    assert len(lines) > 5
    assert [line for line in lines if line != line.rstrip()] == []


def test_inspect_shows_the_creation_time_in_utc_and_json_keeps_the_number(tmp_path: Path) -> None:
    case_dir = copy_case("forked-child-at-turn-boundary-cwd", tmp_path)
    store = str(case_dir / "sqlite" / "session.db")
    lines = run("inspect", store).stdout.splitlines()
    assert "created      2026-01-01 00:00:00.000 UTC" in lines
    assert "1767225600000" not in run("inspect", store).stdout
    assert run("inspect", store, "--json").json()["header"]["createdAt"] == 1767225600000


def test_readable_times() -> None:
    assert readable_time(0) == "1970-01-01 00:00:00.000 UTC"
    assert readable_time(1767225600123) == "2026-01-01 00:00:00.123 UTC"
    assert readable_time(-1) == "1969-12-31 23:59:59.999 UTC"
    assert readable_time(10**20) == "100000000000000000000 ms since the epoch"  # beyond any calendar
    assert readable_time(1.5) == "1.5"


def test_derive_surface_and_inspect_share_one_preamble() -> None:
    views = [main.commands[name] for name in ("derive", "surface", "inspect")]
    shapes = [[(param.name, param.opts, param.default) for param in command.params] for command in views]
    assert shapes[0] == shapes[1] == shapes[2]
    assert [opts for _name, opts, _default in shapes[0]] == [
        ["path"],
        ["--id"],
        ["--repaired"],
        ["--backend"],
        ["--pg-schema"],
        ["--json"],
        ["--no-color"],
    ]


@pytest.mark.parametrize("command", ["inspect", "derive", "surface"])
def test_a_progress_bar_only_on_a_terminal_and_never_with_json(command: str, tmp_path: Path) -> None:
    case_dir = copy_case("compaction-once-cwd", tmp_path)
    store = str(case_dir / "jsonl")
    terminal = run(command, store, env={"FORCE_COLOR": "1"})
    assert terminal.status == 0
    assert "reading" in terminal.stderr and "100%" in terminal.stderr  # drawn, then cleared
    assert run(command, store).stderr == ""  # piped
    as_json = run(command, store, "--json", env={"FORCE_COLOR": "1"})
    assert as_json.stderr == ""
    assert as_json.json()["id"] == "compaction-once"


def test_validate_shows_its_check_on_a_terminal(tmp_path: Path) -> None:
    case_dir = copy_case("compaction-once-cwd", tmp_path)
    store = str(case_dir / "jsonl")
    assert "checking" in run("validate", store, env={"FORCE_COLOR": "1"}).stderr
    assert run("validate", store).stderr == ""
    assert run("validate", store, "--json", env={"FORCE_COLOR": "1"}).stderr == ""


_PIPED_RUN = """
import sys
from dsh_session.cli import main
try:
    main(sys.argv[1:])
except SystemExit as stop:
    assert stop.code in (0, None), stop.code
drawn = any(name == "rich" or name.startswith("rich.") for name in sys.modules)
print("rich imported" if drawn else "no rich", file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args",
    [
        ("validate",),
        ("validate", "--invariants"),
        ("inspect",),
        ("derive",),
        ("surface",),
        ("derive", "--json"),
        ("surface", "--json"),
        ("repair", "--dry-run"),
    ],
    ids=" ".join,
)
def test_a_piped_run_does_not_import_rich(args: tuple[str, ...], tmp_path: Path) -> None:
    case_dir = copy_case("compaction-once-cwd", tmp_path)
    env = {key: value for key, value in os.environ.items() if key not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    done = subprocess.run(
        [sys.executable, "-c", _PIPED_RUN, args[0], str(case_dir / "jsonl"), *args[1:]],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout
    assert done.stderr.splitlines()[-1] == "no rich"


def test_convert_imports_rich_only_to_draw(tmp_path: Path) -> None:
    case_dir = copy_case("compaction-once-cwd", tmp_path)
    env = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    done = subprocess.run(
        [sys.executable, "-c", _PIPED_RUN, "convert", str(case_dir / "jsonl"), str(tmp_path / "copy.db")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "no rich"
    drawn = subprocess.run(
        [sys.executable, "-c", _PIPED_RUN, "convert", str(case_dir / "jsonl"), str(tmp_path / "drawn.db")],
        capture_output=True,
        text=True,
        env={**env, "FORCE_COLOR": "1"},
        check=False,
    )
    assert drawn.returncode == 0, drawn.stderr
    assert drawn.stderr.splitlines()[-1].endswith("rich imported")


# -- the markup ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "plain",
        "[bold]not a tag[/bold]",
        "a\\",
        "ends with [/]",
        "\\[x]",
        "[red]",
        "a\\\\[b]",
        "[[]]",
        "x\x1b[31my",
    ],
)
def test_escaped_text_reads_as_itself(text: str) -> None:
    if not text.endswith("\\"):  # (a trailing backslash is doubled, for the tag that may follow)
        assert _output.plain(_output.escape(text)) == _output.controls(text)
    assert _output.plain(f"[bold]{_output.escape(text)}[/bold]") == _output.controls(text)
    assert "\x1b[1m" + _output.controls(text) in _output.styled(f"[bold]{_output.escape(text)}[/bold]")


def test_markup_styles() -> None:
    assert _output.plain("[bold red]INVALID[/bold red] x") == "INVALID x"
    assert _output.styled("[bold red]INVALID[/] x") == "\x1b[1;31mINVALID\x1b[0m x"
    assert _output.styled("[green]valid[/green]") == "\x1b[32mvalid\x1b[0m"
    assert _output.styled("[dim]a[bold]b[/bold]c[/dim]") == "\x1b[2ma\x1b[1mb\x1b[0m\x1b[2mc\x1b[0m"


def test_a_command_runs_with_the_collector_off_and_puts_it_back(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    real = _output.Output.print

    def noting(self: _output.Output, text: str = "") -> None:
        seen.append(gc.isenabled())
        real(self, text)

    monkeypatch.setattr(_output.Output, "print", noting)
    assert gc.isenabled()
    assert run("demo").status == 0
    assert seen and not any(seen)  # off while the command ran (the command line's policy)
    assert gc.isenabled()  # and back as it was
    gc.disable()
    try:
        assert run("demo").status == 0
        assert not gc.isenabled()  # a caller's own setting is left as it was
    finally:
        gc.enable()

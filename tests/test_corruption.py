"""The corruption suite (issue 11): stores cut short at many offsets and damaged by byte flips.

Bounded in CI (a few hundred cuts and flips); ``DSH_HYPOTHESIS_PROFILE=thorough``
runs many more (docs/persistence.md, "Crash and corruption testing", gives the
command and the figures). For every cut or flip:

- the outcome is a load or a coded error (``DshSessionError``) -- never another
  exception;
- a load that fails changes no byte of the store;
- nothing that was intact is lost: a JSONL load keeps every line that ends
  before the damage (a cut keeps every complete line); a SQLite load never
  removes a row (a row is never torn) and never writes into a file that reads
  back short (SQLite can read a damaged page short without an error: the load
  then returns what it read and changes nothing).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench.w1_log import w1_log
from dsh_session import DshSessionError, Event, JsonlBackend, SessionHeader, SqliteBackend
from tests.support import THOROUGH

CUTS = 2_000 if THOROUGH else 120
FLIPS = 6_000 if THOROUGH else 300
TURNS = 6


def jsonl_store(root: Path, events: list[Event]) -> Path:
    backend = JsonlBackend(root)
    backend.create(SessionHeader("w1", 1, cwd="/w"))
    backend.append("w1", events)
    (path,) = root.glob("*/w1.jsonl")
    return path


def line_ends(data: bytes) -> list[int]:
    """The offset just past each line's newline."""
    return [index + 1 for index, byte in enumerate(data) if byte == 0x0A]


def load_jsonl(root: Path) -> list[Event] | DshSessionError:
    try:
        with JsonlBackend(root) as backend:
            return list(backend.load("w1").events)
    except DshSessionError as error:
        return error


@pytest.mark.parametrize("closed", [True, False], ids=["closed-log", "open-turn"])
def test_a_jsonl_log_cut_short_keeps_every_complete_line(tmp_path: Path, closed: bool) -> None:
    events = w1_log(TURNS)[: None if closed else -3]
    whole = jsonl_store(tmp_path / "src", events).read_bytes()
    ends = line_ends(whole)
    rng = random.Random(f"cuts-{closed}")
    for round_, size in enumerate(sorted(rng.sample(range(len(whole)), min(CUTS, len(whole))))):
        root = tmp_path / f"cut-{round_}"
        path = jsonl_store(root, events)
        path.write_bytes(whole[:size])
        outcome = load_jsonl(root)
        complete = sum(1 for end in ends[1:] if end <= size)  # event lines wholly kept by the cut
        if size < ends[0]:
            assert isinstance(outcome, DshSessionError)  # the header itself is torn
            assert path.read_bytes() == whole[:size]
            continue
        assert not isinstance(outcome, DshSessionError), (size, outcome)
        assert outcome[:complete] == events[:complete], size


@pytest.mark.parametrize("closed", [True, False], ids=["closed-log", "open-turn"])
def test_a_jsonl_log_with_a_flipped_byte_keeps_what_precedes_the_damage(tmp_path: Path, closed: bool) -> None:
    events = w1_log(TURNS)[: None if closed else -3]
    whole = jsonl_store(tmp_path / "src", events).read_bytes()
    ends = line_ends(whole)
    rng = random.Random(f"flips-{closed}")
    for round_ in range(FLIPS // 2):
        offset = rng.randrange(len(whole))
        damaged = bytearray(whole)
        damaged[offset] ^= rng.randrange(1, 256)
        root = tmp_path / f"flip-{round_ % 8}"
        path = jsonl_store(root, events) if not root.exists() else next(root.glob("*/w1.jsonl"))
        path.write_bytes(bytes(damaged))
        outcome = load_jsonl(root)
        before = sum(1 for end in ends[1:] if end <= offset)  # event lines wholly before the flip
        if isinstance(outcome, DshSessionError):
            assert path.read_bytes() == bytes(damaged), offset  # a refused load changed nothing
        else:
            assert outcome[:before] == events[:before], offset


def sqlite_store(path: Path, events: list[Event]) -> None:
    with SqliteBackend(path, journal_mode="delete") as backend:
        backend.create(SessionHeader("w1", 1))
        backend.append("w1", events)


def test_a_sqlite_database_with_a_flipped_byte_gives_a_load_or_a_coded_error(tmp_path: Path) -> None:
    events = w1_log(TURNS)  # ends on a committed turn/end: no row may be cut
    source = tmp_path / "src.db"
    sqlite_store(source, events)
    whole = source.read_bytes()
    rng = random.Random("sqlite-flips")
    loaded = refused = 0
    for round_ in range(FLIPS // 2):
        offset = rng.randrange(len(whole))
        damaged = bytearray(whole)
        damaged[offset] ^= rng.randrange(1, 256)
        path = tmp_path / f"flip-{round_ % 8}.db"
        path.write_bytes(bytes(damaged))
        try:
            with SqliteBackend(path, journal_mode="delete") as backend:
                got = backend.load("w1").events
        except DshSessionError:
            refused += 1
            assert path.read_bytes() == bytes(damaged), offset
            continue
        loaded += 1
        if len(got) < len(events):  # SQLite read a damaged page short, without an error:
            assert path.read_bytes() == bytes(damaged), offset  # nothing was removed, or written
    assert loaded and refused  # both kinds of outcome were met


def test_a_sqlite_database_cut_short_gives_a_load_or_a_coded_error(tmp_path: Path) -> None:
    events = w1_log(TURNS)
    source = tmp_path / "src.db"
    sqlite_store(source, events)
    whole = source.read_bytes()
    rng = random.Random("sqlite-cuts")
    for round_, size in enumerate(sorted(rng.sample(range(len(whole)), min(CUTS, len(whole))))):
        path = tmp_path / f"cut-{round_ % 8}.db"
        path.write_bytes(whole[:size])
        try:
            with SqliteBackend(path, journal_mode="delete") as backend:
                got = backend.load("w1").events
        except DshSessionError:
            assert path.read_bytes() == whole[:size], size
            continue
        if len(got) < len(events):
            assert path.read_bytes() == whole[:size], size  # read short; nothing removed or written

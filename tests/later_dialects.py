"""Stores as later versions of the TypeScript harness write them (for tests and conformance artifacts).

Facts from /work/shared/reference/later-dialects.md: zstd-framed logs (one
Zstandard frame for the header and one per batch), the one-directory-per-session
layout ``<root>/--<cwd>--/<segment>/session.jsonl[.zstd]``, format v3
(``session.v3.jsonl.zstd``), and SQLite databases stamped ``application_id``
0x44534850 ("DSHP") or a ``user_version`` above 4. The frames are real
Zstandard frames (raw blocks, no compression): ``zstd -d`` reads them.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from dsh_session import Event, SessionHeader
from dsh_session.persistence import cwd_bucket, encode_segment
from dsh_session.persistence._codec import event_line, header_line

#: The largest content of one raw block (Block_Maximum_Size for a 128 KiB window).
_BLOCK = 1 << 17


def zstd_frame(content: bytes) -> bytes:
    """One Zstandard frame holding ``content`` in raw blocks (single segment, 4-byte size)."""
    descriptor = 0b1010_0000  # Frame_Content_Size_flag 2 (4 bytes), Single_Segment_flag 1
    out = bytearray(b"\x28\xb5\x2f\xfd" + bytes([descriptor]) + len(content).to_bytes(4, "little"))
    blocks = [content[i : i + _BLOCK] for i in range(0, len(content), _BLOCK)] or [b""]
    for index, block in enumerate(blocks):
        last = 1 if index == len(blocks) - 1 else 0
        out += (last | (0 << 1) | (len(block) << 3)).to_bytes(3, "little") + block
    return bytes(out)


def jsonl_text(header: SessionHeader, events: list[Event]) -> tuple[bytes, bytes]:
    """The header line and the lines of the events, as the harness writes them."""
    lines = "".join(event_line(event) + "\n" for event in events)
    return (header_line(header) + "\n").encode(), lines.encode()


def zstd_log(header: SessionHeader, events: list[Event]) -> bytes:
    head, lines = jsonl_text(header, events)
    return zstd_frame(head) + zstd_frame(lines)


def write_zstd_flat(root: Path, header: SessionHeader, events: list[Event]) -> Path:
    """``<root>/cwd-<h12>/<segment>.jsonl.zstd``."""
    path = root / cwd_bucket(header.cwd) / f"{encode_segment(header.id)}.jsonl.zstd"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(zstd_log(header, events))
    return path


def write_directory_layout(root: Path, header: SessionHeader, events: list[Event], name: str) -> Path:
    """``<root>/--<cwd>--/<segment>/<name>`` (``session.jsonl``, ``session.jsonl.zstd`` or
    ``session.v3.jsonl.zstd``)."""
    assert header.cwd is not None
    bucket = "--" + header.cwd.strip("/").replace("/", "-") + "--"
    path = root / bucket / encode_segment(header.id) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    head, lines = jsonl_text(header, events)
    path.write_bytes(head + lines if name == "session.jsonl" else zstd_frame(head) + zstd_frame(lines))
    return path


def later_sqlite_sql(user_version: int, application_id: int | None) -> str:
    """SQL text for a database a later harness wrote (its layout reduced to what tells it)."""
    pragmas = f"PRAGMA user_version = {user_version};\n"
    if application_id is not None:
        pragmas += f"PRAGMA application_id = {application_id};\n"
    return pragmas + (
        "CREATE TABLE persistence_state (store_id TEXT NOT NULL) STRICT;\n"
        "INSERT INTO persistence_state VALUES ('a1b2c3');\n"
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL, created_at INTEGER NOT NULL, "
        "cwd TEXT, parent_session TEXT, seed_length INTEGER, incarnation INTEGER NOT NULL, "
        "revision INTEGER NOT NULL) STRICT;\n"
        "INSERT INTO sessions VALUES ('later', 0, 1, '/w', NULL, NULL, 1, 3);\n"
    )


def write_later_sqlite(path: Path, user_version: int, application_id: int | None) -> Path:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.executescript(later_sqlite_sql(user_version, application_id))
    finally:
        conn.close()
    return path


#: The session the later-dialect artifacts hold (``conformance/artifacts/later/``).
LATER_HEADER = SessionHeader("later", 1_767_225_600_000, cwd="/w")


def later_artifacts(out: Path) -> None:
    """Write the later-dialect stores the conformance cases load into ``out`` (``artifacts/later``)."""
    from tests.logs import one_turn_log

    events = one_turn_log("later")
    write_zstd_flat(out / "jsonl-zstd", LATER_HEADER, events)
    named = out / "jsonl-zstd-named-jsonl" / cwd_bucket("/w") / f"{encode_segment('later')}.jsonl"
    named.parent.mkdir(parents=True)
    named.write_bytes(zstd_log(LATER_HEADER, events))
    for folder, name in (
        ("jsonl-directory-layout", "session.jsonl"),
        ("jsonl-directory-layout-zstd", "session.jsonl.zstd"),
        ("jsonl-v3", "session.v3.jsonl.zstd"),
    ):
        write_directory_layout(out / folder, LATER_HEADER, events, name)
    (out / "sqlite-application-id.sql").write_text(later_sqlite_sql(10, LATER_APPLICATION_ID), "utf-8")
    (out / "sqlite-user-version-17.sql").write_text(later_sqlite_sql(17, None), "utf-8")


#: ``PRAGMA application_id`` of a later harness's database ("DSHP").
LATER_APPLICATION_ID = 0x44534850

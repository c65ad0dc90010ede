"""What a stored log keeps after a crash, and where the JSONL layout puts it.

**The committed region.** A stored log is a header and a list of records, one
per event: a JSONL line or a SQLite row. A record that does not parse is a
*hole*. A crash can only damage the end of a log -- the write that was in
flight -- so the last ``turn/end`` on record marks everything before it as
committed: a hole, or a record whose ``seq`` is not its index (a *gap*), at or
before it means the log was damaged and the load is refused
(``STORE_CORRUPT``). After it, the first hole or gap is where the crash tore
the log: that record and everything after it are cut away. A record that
parses but is not an object counts as a gap (the reference crashes on a
``null`` line; we do not). Whether the kept records are valid events is the
seed's business (``validation.check_seed``), not this rule's.

**Too deep is not torn.** A record whose text nests deeper than an event
record can (:data:`RECORD_DEPTH`: data of ``json_value.MAX_DEPTH`` inside the
record object) is not parsed (:data:`TOO_DEEP`); it, or a record that parses to
a value nesting that deep, is complete: a crash did not make it. It is refused
with ``DATA_TOO_DEEP`` wherever it is -- after the last ``turn/end`` too, and
after a torn boundary too -- and nothing is cut.

**The JSONL layout.** A session with working directory ``cwd`` lives in the
directory ``cwd-<h12>`` (the first 12 hex digits of SHA-256 of ``cwd`` in
UTF-8, a lone surrogate counting as U+FFFD, as Node encodes it), or
``_no-cwd`` without one; its file is ``<encode_segment(id)>.jsonl``.

**Later dialects.** Later versions of the TypeScript harness changed their
files but kept the session format version at 0, so only names, bytes and
database metadata tell their stores apart (:func:`later_jsonl_entry`,
:func:`later_database`). Such a store is refused with
``STORE_VERSION_UNSUPPORTED`` -- a load of a session it holds, a first
publish into a JSONL root holding one (told by names: a later-layout
directory, a ``*.jsonl.zstd`` file), any open of such a database -- and
nothing is changed; a listing passes its entries over.

**No write through a link.** A store never writes through a symbolic link
below its root (a bucket directory, a log, a first publish's temporary file,
a database's ``-wal`` / ``-shm`` / ``-journal``): such a write is refused with
``STORE_IO`` and nothing is written. Reads may follow a link to a regular file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Final

from dsh_spec.codes import Code
from dsh_spec.json_value import MAX_DEPTH, too_deep_at
from dsh_spec.rejection import Rejection


class _Hole:
    """The type of :data:`HOLE`."""

    def __repr__(self) -> str:
        return "HOLE"


#: A stored record that did not parse as JSON.
HOLE: Final = _Hole()


class _TooDeep:
    """The type of :data:`TOO_DEEP`."""

    def __repr__(self) -> str:
        return "TOO_DEEP"


#: A stored record whose text nests deeper than :data:`RECORD_DEPTH` (it is not parsed).
TOO_DEEP: Final = _TooDeep()

#: How deep a stored event record may nest: the record object around data of ``MAX_DEPTH``.
RECORD_DEPTH: Final = MAX_DEPTH + 1

NO_CWD_BUCKET = "_no-cwd"

_LITERAL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def preserved_prefix(records: Sequence[object], *, tearable: bool = True) -> int | Rejection:
    """How many leading records a load keeps, or why the log is refused.

    ``records`` are the parsed JSON values of the stored records in order,
    :data:`HOLE` for one that did not parse, :data:`TOO_DEEP` for one whose text
    nests too deep to be read. ``tearable`` is false for a database's rows: a
    transaction stores a row whole or not at all, so no crash tears one, and a
    hole or gap anywhere is damage (``STORE_CORRUPT``) -- nothing is ever cut.
    """
    last_turn_end = -1
    for index, record in enumerate(records):
        if isinstance(record, dict) and record.get("type") == "turn/end":
            last_turn_end = index
    for index, record in enumerate(records):
        if record is TOO_DEEP:
            return _too_deep(index)
        if record is HOLE:
            problem = "does not parse"
        elif not has_seq(record, index):
            problem = f"is not the event with seq {index}"
        else:
            continue
        if index <= last_turn_end or not tearable:
            return Rejection(
                Code.STORE_CORRUPT,
                index,
                f"record {index} {problem}, before the turn/end at record {last_turn_end}"
                if index <= last_turn_end
                else f"row {index} {problem}: a database row is never torn",
            )
        for later in range(index, len(records)):  # what would be cut: nothing too deep
            if records[later] is TOO_DEEP or too_deep_at(records[later], RECORD_DEPTH) is not None:
                return _too_deep(later)
        return index
    return len(records)


def _too_deep(index: int) -> Rejection:
    return Rejection(
        Code.DATA_TOO_DEEP,
        index,
        f"record {index} nests deeper than {MAX_DEPTH} containers: it is complete, not torn",
    )


def has_seq(record: object, index: int) -> bool:
    """True when ``record`` is an object whose ``seq`` is the number ``index``
    (``1.0`` is 1, ``true`` is not)."""
    if not isinstance(record, dict):
        return False
    seq = record.get("seq")
    return type(seq) in (int, float) and seq == index


def encode_segment(name: str) -> str | Rejection:
    """The file-name segment for a session id: injective, and never a path.

    ASCII letters, digits, ``.``, ``_`` and ``-`` stand for themselves; every
    other UTF-16 code unit (``~`` included) becomes ``~`` and four upper-case
    hex digits. The names ``.`` and ``..`` are escaped whole. The empty id has
    no segment.
    """
    if name == "":
        return Rejection(Code.INVALID_HEADER, None, "an empty session id has no file name")
    if name in (".", ".."):
        return "~002E" * len(name)
    out = []
    for unit in utf16_units(name):
        char = chr(unit)
        out.append(char if char in _LITERAL else f"~{unit:04X}")
    return "".join(out)


def cwd_bucket(cwd: str | None) -> str:
    """The directory (under the root) that holds the sessions of working directory ``cwd``."""
    if cwd is None:
        return NO_CWD_BUCKET
    units = b"".join(unit.to_bytes(2, "little") for unit in utf16_units(cwd))
    text = units.decode("utf-16-le", "replace")  # a lone surrogate becomes U+FFFD
    return "cwd-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def utf16_units(text: str) -> list[int]:
    """The UTF-16 code units of ``text`` (a lone surrogate is one unit)."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


#: The first bytes of a Zstandard frame (a later harness's ``*.jsonl.zstd`` logs).
ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"
#: ``PRAGMA application_id`` of a later harness's databases (schema 10 on): ASCII "DSHP".
LATER_APPLICATION_ID: Final = 0x44534850
#: The SQLite schema version of the pinned dialect.
SCHEMA_VERSION: Final = 4
_LATER_SESSION_FILES: Final = {
    "session.jsonl": "a log in the later one-directory-per-session layout",
    "session.jsonl.zstd": "a Zstandard-framed log in the later one-directory-per-session layout",
    "session.v3.jsonl.zstd": "a format-v3 log (Zstandard-framed, one directory per session)",
}


def is_later_bucket(name: str) -> bool:
    """A directory under the root named ``--<cwd>--``: the later one-directory-per-session layout."""
    return len(name) > 4 and name.startswith("--") and name.endswith("--")


def later_jsonl_entry(parts: Sequence[str], head: bytes) -> str | None:
    """What a later harness's file at ``parts`` (its path below the root) is, or None for a
    file of ours (or of nobody). ``head`` is the file's first bytes.

    - ``--<cwd>--/<segment>/session.jsonl`` (or ``.jsonl.zstd``, ``session.v3.jsonl.zstd``):
      the later layout;
    - ``<bucket>/<segment>.jsonl.zstd``: a Zstandard-framed log;
    - ``<bucket>/<segment>.jsonl`` that begins with :data:`ZSTD_MAGIC`: the same, misnamed.
    """
    if len(parts) == 3 and is_later_bucket(parts[0]) and parts[2] in _LATER_SESSION_FILES:
        return _LATER_SESSION_FILES[parts[2]]
    if len(parts) == 2 and not is_later_bucket(parts[0]):
        if parts[1].endswith(".jsonl.zstd"):
            return "a Zstandard-framed log (*.jsonl.zstd)"
        if parts[1].endswith(".jsonl") and head.startswith(ZSTD_MAGIC):
            return "a log of Zstandard frames (magic 28 B5 2F FD)"
    return None


def later_database(user_version: int, application_id: int) -> str | None:
    """What marks a database as a later harness's, or None: its application id, or a schema
    version above :data:`SCHEMA_VERSION` (an earlier one is another layout, not a later one)."""
    if application_id == LATER_APPLICATION_ID:
        return f'application_id 0x{LATER_APPLICATION_ID:08X} ("DSHP") and schema version {user_version}'
    if user_version > SCHEMA_VERSION:
        return f"schema version {user_version}"
    return None

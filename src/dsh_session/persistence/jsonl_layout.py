"""Where the JSONL backend keeps a session: the reference's directory layout.

``<root>/cwd-<h12>/<segment>.jsonl`` for a session with a working directory
(``h12``: the first 12 hex digits of SHA-256 of the cwd as UTF-8, a lone
surrogate counting as U+FFFD, as Node encodes strings), ``<root>/_no-cwd/...``
without one. The segment is the id with every UTF-16 code unit outside
``[A-Za-z0-9._-]`` written ``~XXXX`` (upper-case hex), and ``.`` / ``..``
escaped whole: injective, and never a path. The temporary file of a first
publish is ``<segment>.jsonl.<12 hex>.tmp``.

Later versions of the TypeScript harness kept ``SESSION_FORMAT_VERSION`` at 0
but changed the files: Zstandard-framed logs (``<segment>.jsonl.zstd``, files
beginning with the frame magic ``28 B5 2F FD``), one directory per session
(``<root>/--<cwd>--/<segment>/session.jsonl`` or ``session.jsonl.zstd``) and
format v3 (``session.v3.jsonl.zstd``). Only these names and bytes tell such a
store apart; :func:`later_log_name` and :func:`is_later_bucket` recognise them.
"""

from __future__ import annotations

import hashlib
import re
from typing import Final

from dsh_session.errors import Code
from dsh_session.persistence.errors import IncompatibleStoreError

__all__ = [
    "LATER_SESSION_FILES",
    "NO_CWD",
    "ZSTD_MAGIC",
    "cwd_bucket",
    "encode_segment",
    "is_later_bucket",
    "later_log_name",
    "later_refusal",
    "log_name",
    "name_fits",
]

NO_CWD: Final = "_no-cwd"
SUFFIX: Final = ".jsonl"
#: ``.<12 hex>.tmp`` after the log's name.
TMP_SUFFIX_LENGTH: Final = 1 + 12 + 4
#: The longest file name most file systems take, in bytes.
NAME_MAX: Final = 255

#: The first bytes of a Zstandard frame.
ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"
#: A later harness's zstd-framed log in a bucket: ``<segment>.jsonl.zstd``.
LATER_SUFFIX: Final = SUFFIX + ".zstd"
#: The file of a session's own directory in the later layout, with what each one is.
LATER_SESSION_FILES: Final = {
    "session.jsonl": "a log in the later one-directory-per-session layout",
    "session.jsonl.zstd": "a Zstandard-framed log in the later one-directory-per-session layout",
    "session.v3.jsonl.zstd": "a format-v3 log (Zstandard-framed, one directory per session)",
}

_PLAIN = re.compile(r"[A-Za-z0-9._-]*")
_SURROGATE = re.compile("[\ud800-\udfff]")


def encode_segment(session_id: str) -> str:
    """The file-name segment of ``session_id`` (``ValueError`` for the empty id)."""
    if not session_id:
        raise ValueError("an empty session id has no file name")
    if session_id == "." or session_id == "..":
        return session_id.replace(".", "~002E")
    if _PLAIN.fullmatch(session_id):
        return session_id
    raw = session_id.encode("utf-16-be", "surrogatepass")
    out = []
    for index in range(0, len(raw), 2):
        unit = raw[index] << 8 | raw[index + 1]
        char = chr(unit)
        out.append(char if unit < 0x80 and _PLAIN.fullmatch(char) else f"~{unit:04X}")
    return "".join(out)


def cwd_bucket(cwd: str | None) -> str:
    """The directory name under the root for sessions of working directory ``cwd``."""
    if cwd is None:
        return NO_CWD
    if _SURROGATE.search(cwd):
        # Join surrogate pairs, then write each lone surrogate as U+FFFD (what Node hashes).
        joined = cwd.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        cwd = _SURROGATE.sub("\ufffd", joined)
    return "cwd-" + hashlib.sha256(cwd.encode("utf-8")).hexdigest()[:12]


def log_name(session_id: str) -> str:
    """The log's file name (``ValueError`` for the empty id)."""
    return encode_segment(session_id) + SUFFIX


def name_fits(session_id: str) -> bool:
    """True when the log's temporary file name fits in ``NAME_MAX`` bytes."""
    return len(log_name(session_id)) + TMP_SUFFIX_LENGTH <= NAME_MAX


def later_log_name(session_id: str) -> str:
    """The name a later harness gives the zstd-framed log of ``session_id`` in a bucket."""
    return encode_segment(session_id) + LATER_SUFFIX


def is_later_bucket(name: str) -> bool:
    """Whether a directory name under the root is the later layout's ``--<cwd>--``."""
    return len(name) > 4 and name.startswith("--") and name.endswith("--")


def later_refusal(path: str, what: str, writing: bool = False) -> IncompatibleStoreError:
    """``STORE_VERSION_UNSUPPORTED`` for ``what`` a later version of the TypeScript harness left
    at ``path``."""
    action = "nothing was written" if writing else "it was left untouched"
    return IncompatibleStoreError(
        Code.STORE_VERSION_UNSUPPORTED,
        f"{path}: {what}: a later version of the TypeScript harness wrote this store (its "
        "sessions still say format version 0, so only the file names and bytes tell); this build "
        "reads and writes only the flat layout of plain JSONL files (<root>/cwd-<hash>/<id>.jsonl) "
        f"-- {action}; open it with the harness that wrote it",
        path=path,
    )

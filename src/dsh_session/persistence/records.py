"""Stored records one at a time, for tools that read and write them without a backend.

The command line shows, checks and repairs stores record by record; this is what
the persistence package offers it, the same code the backends run:

- JSONL lines: :func:`event_line` and :func:`header_line` write an event and a
  session header as ``JSON.stringify`` does; :func:`parse_bytes` reads one stored
  line (a hole or a value too deep comes back as a marker, :data:`HOLE` or
  :data:`TOO_DEEP`, never an exception);
  :func:`header_from_json` turns a parsed header record into a
  :class:`~dsh_session.SessionHeader` or refuses it with a coded error;
- files: :func:`read_first_line` reads a header line without blocking on what is
  not a regular file, and :func:`io_error` names an operating-system failure with
  its code;
- admission: a :class:`LogAdmitter` takes a log's events in order as a load does,
  and :func:`close_open_turn` appends the closers of a turn a crash left open;
  :class:`Where` says where a stored record sits, for messages.
"""

from __future__ import annotations

from dsh_session.persistence._admit import LogAdmitter
from dsh_session.persistence._base import Where, close_open_turn
from dsh_session.persistence._codec import (
    HOLE,
    TOO_DEEP,
    event_line,
    header_from_json,
    header_line,
    parse_bytes,
)
from dsh_session.persistence._files import io_error, read_first_line

__all__ = [
    "HOLE",
    "TOO_DEEP",
    "LogAdmitter",
    "Where",
    "close_open_turn",
    "event_line",
    "header_from_json",
    "header_line",
    "io_error",
    "parse_bytes",
    "read_first_line",
]

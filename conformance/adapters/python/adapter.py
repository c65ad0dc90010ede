#!/usr/bin/env python3
"""The example adapter: dsh-session's Python library behind the conformance protocol.

Run the suite through it with

    dsh-session conformance run --adapter "python3 conformance/adapters/python/adapter.py"

An adapter is a loop: read one JSON request per line from stdin, carry the
operation out with your implementation, write one JSON reply per line to
stdout (and flush). This file is that loop, written out; the operations
themselves are in ``dsh_session.conformance.python_adapter.LibraryAdapter``
(one short method per operation, each a call of the library's public API).
Nothing but replies may go to stdout -- log to stderr.
"""

from __future__ import annotations

import json
import sys

from dsh_session.conformance.adapter import reply_for
from dsh_session.conformance.python_adapter import LibraryAdapter

PROTOCOL = 2


def main() -> None:
    library = LibraryAdapter()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        request_id, op, args = request["id"], request["op"], request.get("args", {})
        if op == "hello":
            # Say what it is, which dialect of the original it has and which optional features.
            hello = {
                "protocol": PROTOCOL,
                "implementation": library.describe(),
                "dialect": library.dialect,
                "features": sorted(library.features),
            }
            reply = {"ok": hello}
        elif op == "reset":
            library.reset()  # forget every session, store and backend
            reply = {"ok": None}
        elif op == "bye":
            reply = {"ok": None}
        else:
            # Run the operation; map the library's exceptions onto registry codes.
            answer = reply_for(library, op, args)
            if answer.kind == "ok":
                reply = {"ok": answer.value}
            elif answer.kind == "unsupported":
                reply = {"unsupported": answer.message}
            else:
                reply = {"error": {"code": answer.code, "message": answer.message}}
        # ensure_ascii keeps lone surrogates (which JSON strings may hold) writable as \\udXXX.
        sys.stdout.write(json.dumps({"id": request_id, **reply}, ensure_ascii=True) + "\n")
        sys.stdout.flush()
        if op == "bye":
            return


if __name__ == "__main__":
    main()

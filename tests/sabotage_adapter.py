"""A deliberately wrong adapter program, for testing the conformance runner.

``python sabotage_adapter.py MODE OP`` serves the library's adapter but, for
operation ``OP``, misbehaves as ``MODE`` says:

- ``value``: answers ``["sabotaged"]`` instead of the value;
- ``code``: answers any error with a code that is not in the registry;
- ``uncoded``: answers any error without a code;
- ``swallow``: answers ``null`` instead of raising;
- ``lazy``: an error of ``OP`` is held back and raised by the next operation instead;
- ``unsupported``: declines the operation;
- ``crash``: exits with status 3 without answering;
- ``hang``: never answers;
- ``garbage``: writes a line that is not JSON;
- ``wrong-id``: answers with another request id;
- ``chatter``: writes a stray line before the reply;
- ``protocol`` (``OP`` ``hello``): answers hello with protocol 99;
- ``no-files``: answers ``null`` for ``OP`` (operations separated by commas) without carrying it out.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from dsh_session.conformance.adapter import reply_for
from dsh_session.conformance.protocol import PROTOCOL_VERSION
from dsh_session.conformance.python_adapter import LibraryAdapter


def main() -> None:
    mode, target = sys.argv[1], sys.argv[2]
    library = LibraryAdapter()
    held: dict[str, Any] | None = None
    for line in sys.stdin:
        request = json.loads(line)
        request_id, op, args = request["id"], request["op"], request.get("args", {})
        reply: dict[str, Any]
        if op == "hello":
            implementation = {"name": "sabotage", "version": mode, "language": "python"}
            protocol = 99 if mode == "protocol" else PROTOCOL_VERSION
            hello = {"protocol": protocol, "implementation": implementation, "dialect": library.dialect}
            reply = {"ok": {**hello, "features": sorted(library.features)}}
        elif op in ("reset", "bye"):
            library.reset()
            held = None
            reply = {"ok": None}
        elif held is not None:
            reply, held = {"error": held}, None
        elif mode == "no-files" and op in target.split(","):
            reply = {"ok": None}
        else:
            answer = reply_for(library, op, args)
            if answer.kind == "ok":
                reply = {"ok": answer.value}
            elif answer.kind == "unsupported":
                reply = {"unsupported": answer.message}
            else:
                reply = {"error": {"code": answer.code, "message": answer.message}}
            if op == target:
                reply = sabotage(mode, reply, request_id)
                if mode == "lazy" and "error" in reply:
                    held, reply = reply["error"], {"ok": None}
        sys.stdout.write(json.dumps({"id": request_id, **reply}) + "\n")
        sys.stdout.flush()
        if op == "bye":
            return


def sabotage(mode: str, reply: dict[str, Any], request_id: int) -> dict[str, Any]:
    if mode == "value":
        return {"ok": ["sabotaged"]}
    if mode == "code" and "error" in reply:
        return {"error": {"code": "NOT_A_REGISTRY_CODE", "message": "sabotaged"}}
    if mode == "uncoded" and "error" in reply:
        return {"error": {"code": None, "message": "sabotaged"}}
    if mode == "swallow" and "error" in reply:
        return {"ok": None}
    if mode == "unsupported":
        return {"unsupported": "sabotaged"}
    if mode == "crash":
        sys.stderr.write("sabotage: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    if mode == "hang":
        time.sleep(3600)
    if mode == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
        return reply
    if mode == "wrong-id":
        sys.stdout.write(json.dumps({"id": request_id + 100, "ok": None}) + "\n")
        sys.stdout.flush()
        return reply
    if mode == "chatter":
        sys.stdout.write("debug: about to answer\n")
        sys.stdout.flush()
        return reply
    return reply


if __name__ == "__main__":
    main()

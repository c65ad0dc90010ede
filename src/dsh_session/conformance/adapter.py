"""Talking to an implementation: in this process, or through an adapter program.

:class:`Handler` is what an implementation provides in Python: ``handle(op,
args)`` returns a JSON value or raises. :class:`InProcessAdapter` drives a
handler directly; :class:`SubprocessAdapter` drives any program that speaks
the JSON-lines protocol (:mod:`.protocol`) -- with a deadline on every reply,
and a clear :class:`AdapterFailure` when the program crashes, hangs or writes
something that is not a reply. :func:`reply_for` turns a handler's outcome
into a reply (the example adapter program uses it too).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import subprocess
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import IO, Any, Protocol, TypeVar, runtime_checkable

from dsh_session.conformance.protocol import PROTOCOL_VERSION


class Unsupported(Exception):
    """Raised by a handler for an operation (or argument) it cannot carry out."""


class CodedError(Exception):
    """Raised by a handler for an error of the implementation, with its registry code."""

    def __init__(self, code: str | None, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@runtime_checkable
class Handler(Protocol):
    """An implementation seen from the runner.

    ``handle`` carries out one operation and returns its JSON value; it raises
    :class:`CodedError` (or any exception :meth:`classify` maps to one) for an
    error of the implementation and :class:`Unsupported` for what it cannot do.
    """

    #: The dialect of the original it has (``protocol.DIALECT``, or a later one) and its features.
    dialect: str
    features: frozenset[str]

    def describe(self) -> dict[str, Any]:
        """``{name, version, language}``."""
        ...

    def reset(self) -> None: ...

    def handle(self, op: str, args: dict[str, Any]) -> Any: ...

    def classify(self, error: Exception) -> CodedError | None:
        """The coded error an exception stands for; ``None``: not an error of the implementation."""
        ...


_T = TypeVar("_T")


def op_method(handler: object, op: str, missing: str) -> Callable[[dict[str, Any]], Any]:
    """The handler's method for ``op`` (``op_`` and the name, dots as underscores); an operation
    without one is unsupported: "operation ``op`` ``missing``"."""
    method: Callable[[dict[str, Any]], Any] | None = getattr(handler, "op_" + op.replace(".", "_"), None)
    if method is None:
        raise Unsupported(f"operation {op} {missing}")
    return method


def named(table: Mapping[str, _T], args: Mapping[str, Any], kind: str, default: str) -> _T:
    """The handle ``args[kind]`` (default ``default``) names; a name without one is unsupported."""
    name = args.get(kind, default)
    if name not in table:
        raise Unsupported(f"no {kind} named {name!r}")
    return table[name]


@dataclass(frozen=True)
class Hello:
    """What an adapter said of itself: the implementation, its dialect, its features."""

    implementation: dict[str, Any]
    dialect: str
    features: frozenset[str]


@dataclass(frozen=True)
class Reply:
    """One answer: ``kind`` is ``"ok"`` (``value``), ``"error"`` (``code``, ``message``) or
    ``"unsupported"`` (``message``)."""

    kind: str
    value: Any = None
    code: str | None = None
    message: str = ""


class AdapterUnavailable(Exception):
    """The adapter cannot be used at all: its program cannot be started, or it speaks another
    protocol. The run stops at once (one message, not one failure per case)."""


class AdapterFailure(Exception):
    """The adapter did not answer properly: ``kind`` is ``crash``, ``timeout`` or ``protocol``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@runtime_checkable
class Adapter(Protocol):
    """What the runner drives."""

    def start(self, timeout: float) -> Hello:
        """Start (if needed) and shake hands; returns what the adapter says of itself."""
        ...

    def call(self, op: str, args: dict[str, Any], deadline: float) -> Reply: ...

    def restart(self) -> None:
        """Throw the current process (or state) away; the next :meth:`start` begins afresh."""
        ...

    def close(self) -> None: ...


def reply_for(handler: Handler, op: str, args: dict[str, Any]) -> Reply:
    """Run one operation on a handler and turn the outcome into a reply."""
    try:
        return Reply("ok", handler.handle(op, args))
    except Unsupported as error:
        return Reply("unsupported", message=str(error) or op)
    except CodedError as error:
        return Reply("error", code=error.code, message=error.message)
    except Exception as error:
        coded = handler.classify(error)
        if coded is not None:
            return Reply("error", code=coded.code, message=coded.message)
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        return Reply("error", code=None, message=f"uncoded error: {detail}")


class InProcessAdapter:
    """A handler in this process; a timeout cannot interrupt it, so none applies."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self._described: Hello | None = None

    def start(self, timeout: float) -> Hello:
        if self._described is None:
            handler = self.handler
            self._described = Hello(handler.describe(), handler.dialect, handler.features)
        return self._described

    def call(self, op: str, args: dict[str, Any], deadline: float) -> Reply:
        if op == "reset":
            self.handler.reset()
            return Reply("ok")
        return reply_for(self.handler, op, args)

    def restart(self) -> None:
        self.handler.reset()

    def close(self) -> None:
        return None


_EOF = object()
_STDERR_TAIL = 1500


class SubprocessAdapter:
    """An adapter program, started with ``command`` and spoken to over its stdin and stdout.

    Its stderr goes to a temporary file whose tail is quoted when it fails.
    """

    def __init__(self, command: str | list[str], *, cwd: str | None = None) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("the adapter command is empty")
        self.cwd = cwd
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr: IO[bytes] | None = None
        self._next_id = 0
        self._implementation: Hello | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self, timeout: float) -> Hello:
        if self._process is not None and self._implementation is not None:
            return self._implementation
        self._spawn()
        reply = self.call("hello", {"protocol": PROTOCOL_VERSION}, time.monotonic() + timeout)
        if reply.kind != "ok" or type(reply.value) is not dict:
            raise AdapterFailure("protocol", f"hello was not answered with a value: {reply}")
        value = reply.value
        if value.get("protocol") != PROTOCOL_VERSION:
            self._stop(kill=True)
            raise AdapterUnavailable(
                f"the adapter {shlex.join(self.argv)} speaks protocol {value.get('protocol')!r}; "
                f"this runner speaks protocol {PROTOCOL_VERSION}"
            )
        implementation, dialect, features = (value.get(k) for k in ("implementation", "dialect", "features"))
        if type(implementation) is not dict:
            raise AdapterFailure("protocol", "hello must name the implementation: {name, version, language}")
        if type(dialect) is not str or not dialect:
            raise AdapterFailure("protocol", "hello must name the dialect of the original it follows")
        if type(features) is not list or not all(type(f) is str for f in features):
            raise AdapterFailure("protocol", "hello must list the features it has: [string]")
        self._implementation = Hello(implementation, dialect, frozenset(features))
        return self._implementation

    def _spawn(self) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by _stop
        try:
            self._process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                cwd=self.cwd,
            )
        except OSError as error:
            self._stderr.close()
            self._stderr = None
            reason = error.strerror or str(error)
            raise AdapterUnavailable(f"cannot start the adapter {shlex.join(self.argv)}: {reason}") from None
        self._lines = queue.Queue()
        stdout = self._process.stdout
        assert stdout is not None
        threading.Thread(target=_pump, args=(stdout, self._lines), daemon=True).start()

    def restart(self) -> None:
        self._stop(kill=True)

    def close(self) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            with contextlib.suppress(AdapterFailure, OSError):
                self._send(self._next_id + 1, "bye", {})
                self._next_id += 1
        self._stop(kill=False)

    def _stop(self, *, kill: bool) -> None:
        process, self._process = self._process, None
        self._implementation = None
        if process is not None:
            with contextlib.suppress(OSError):
                if process.stdin is not None:
                    process.stdin.close()
            try:
                process.wait(timeout=0.2 if kill else 2)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    # -- requests --------------------------------------------------------------------------

    def call(self, op: str, args: dict[str, Any], deadline: float) -> Reply:
        if self._process is None:
            raise AdapterFailure("crash", "the adapter is not running")
        self._next_id += 1
        request_id = self._next_id
        self._send(request_id, op, args)
        line = self._receive(deadline, op)
        return _parse_reply(line, request_id, op)

    def _send(self, request_id: int, op: str, args: dict[str, Any]) -> None:
        process = self._process
        assert process is not None and process.stdin is not None
        text = json.dumps({"id": request_id, "op": op, "args": args}, ensure_ascii=True, allow_nan=False)
        try:
            process.stdin.write(text.encode("ascii") + b"\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise AdapterFailure("crash", self._died(f"while {op} was being sent")) from None

    def _receive(self, deadline: float, op: str) -> bytes:
        remaining = deadline - time.monotonic()
        try:
            item = self._lines.get(timeout=max(remaining, 0.0))
        except queue.Empty:
            raise AdapterFailure(
                "timeout", f"no reply to {op} within the time allowed; the adapter was stopped"
            ) from None
        if item is _EOF:
            raise AdapterFailure("crash", self._died(f"before answering {op}"))
        assert isinstance(item, bytes)
        return item

    def _died(self, when: str) -> str:
        process = self._process
        status = None
        if process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                status = process.wait(timeout=1)
        tail = self._stderr_tail()
        detail = (
            f"the adapter exited (status {status}) {when}"
            if status is not None
            else (f"the adapter closed its output {when}")
        )
        return detail + (f"; its stderr ends with:\n{tail}" if tail else "")

    def _stderr_tail(self) -> str:
        handle = self._stderr
        if handle is None:
            return ""
        try:
            handle.flush()
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - _STDERR_TAIL))
            return handle.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""


def _pump(stream: IO[bytes], lines: queue.Queue[object]) -> None:
    """Move the adapter's output lines into a queue (then an end marker)."""
    try:
        for line in iter(stream.readline, b""):
            lines.put(line)
    except (OSError, ValueError):
        pass
    lines.put(_EOF)


def _parse_reply(line: bytes, request_id: int, op: str) -> Reply:
    shown = line[:200].decode("utf-8", "replace").rstrip("\n")
    try:
        reply = json.loads(line)
    except (UnicodeDecodeError, ValueError):
        raise AdapterFailure("protocol", f"the reply to {op} is not a JSON line: {shown!r}") from None
    if type(reply) is not dict or reply.get("id") != request_id or type(reply.get("id")) is not int:
        raise AdapterFailure(
            "protocol", f"expected a reply object with id {request_id} to {op}, got {shown!r}"
        )
    kinds = [key for key in ("ok", "error", "unsupported") if key in reply]
    if len(kinds) != 1 or set(reply) != {"id", kinds[0]}:
        raise AdapterFailure(
            "protocol", f"a reply holds id and exactly one of ok / error / unsupported, got {shown!r}"
        )
    if kinds[0] == "ok":
        return Reply("ok", reply["ok"])
    if kinds[0] == "unsupported":
        reason = reply["unsupported"]
        return Reply("unsupported", message=reason if type(reason) is str else json.dumps(reason))
    error = reply["error"]
    if type(error) is not dict or type(error.get("message", "")) is not str:
        raise AdapterFailure("protocol", f"error must be {{code, message}}, got {shown!r}")
    code = error.get("code")
    if code is not None and type(code) is not str:
        raise AdapterFailure("protocol", f"error code must be a string or null, got {shown!r}")
    return Reply("error", code=code, message=error.get("message", ""))

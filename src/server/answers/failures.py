"""The error codes of the tools, and the one place an exception becomes ``{code, message, retryable}``.

Layer: ``server``; knows the public error types of ``jdwp``, ``jdwp.debugger`` and ``android`` (docs/design.md
§5.6). Anything else that escapes a tool is a bug: it is reported as DEBUGGER_WORKER_FAILED and its
traceback logged to stderr (never a local value: tools do not put values in exception texts).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Literal, get_args

import trio
from pydantic import ValidationError

from jdwp import CommandError, CommandTimeout, ConnectionClosed, ErrorCode, FramingError, JdwpError
from jdwp.debugger import DebuggerError
from pyjdwp_android import AdbError

from .tool_words import in_tool_words

log = logging.getLogger("pyjdwp.server")

Code = Literal[
    "INVALID_ARGUMENT", "DEBUGGER_UNSUPPORTED", "DEVICE_UNAVAILABLE", "PROCESS_NOT_FOUND", "PROCESS_AMBIGUOUS",
    "PROCESS_CHANGED", "DEBUGGER_BUSY", "DEBUGGER_ATTACH_FAILED", "DEBUGGER_NOT_FOUND", "DEBUGGER_NOT_PAUSED",
    "DEBUGGER_STALE_REFERENCE", "DEBUGGER_LOCATION_UNAVAILABLE", "DEBUGGER_DISCONNECTED", "DEBUGGER_TIMEOUT",
    "DEBUGGER_CANCELLED", "DEBUGGER_WORKER_FAILED", "DEBUGGER_CLEANUP_FAILED", "DEBUGGER_EVALUATION_FAILED",
    "PROCESS_FROZEN",
]
CODES: tuple[str, ...] = get_args(Code)

_HINTS = {
    "DEBUGGER_STALE_REFERENCE": "Call wait_for_debugger_event (or get_debugger_state) for the current stop's IDs.",
    "DEBUGGER_NOT_PAUSED": "Set a breakpoint, make the app reach it, and wait_for_debugger_event for a stop (or "
                           "pause_debugger).",
    "DEBUGGER_NOT_FOUND": "Use an ID this server returned; sessions end on detach and after their time limits.",
    "DEBUGGER_DISCONNECTED": "The session has ended; get_debugger_state tells why. Attach again to continue.",
    "DEBUGGER_TIMEOUT": "Retry with a larger timeoutMs if the app is slow; nothing was changed by inspections.",
}


@dataclasses.dataclass(frozen=True, slots=True)
class ErrorBody:
    """The envelope's ``error``."""

    code: str
    message: str
    retryable: bool


class ToolFailure(Exception):
    """A tool's failure as the envelope reports it."""

    def __init__(self, code: str, message: str, retryable: bool = False) -> None:
        if code not in CODES:
            raise ValueError(f"unknown error code {code}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable

    def body(self) -> ErrorBody:
        return ErrorBody(self.code, self.message, self.retryable)


def _with_hint(code: str, message: str) -> str:
    hint = _HINTS.get(code)
    return f"{message}. {hint}" if hint and hint not in message else message


def failure_of(exc: BaseException) -> ToolFailure:
    """Map an exception to the envelope's error (the single place that does so)."""
    if isinstance(exc, ToolFailure):
        return exc
    if isinstance(exc, ValidationError):
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'input'}: {e['msg']}" for e in exc.errors())
        return ToolFailure("INVALID_ARGUMENT", f"invalid input: {problems}")
    if isinstance(exc, DebuggerError):
        return ToolFailure(exc.code, _with_hint(exc.code, in_tool_words(str(exc))), exc.retryable)
    if isinstance(exc, AdbError):
        return ToolFailure(exc.code, str(exc), exc.retryable)
    if isinstance(exc, CommandTimeout | trio.TooSlowError):
        return ToolFailure("DEBUGGER_TIMEOUT", _with_hint("DEBUGGER_TIMEOUT", str(exc) or "timed out"), True)
    if isinstance(exc, ConnectionClosed | FramingError):  # either way, the connection is gone
        return ToolFailure("DEBUGGER_DISCONNECTED", _with_hint("DEBUGGER_DISCONNECTED", str(exc)))
    if isinstance(exc, CommandError):
        if exc.code in (ErrorCode.INVALID_THREAD, ErrorCode.INVALID_FRAMEID, ErrorCode.THREAD_NOT_SUSPENDED):
            return ToolFailure("DEBUGGER_STALE_REFERENCE", _with_hint("DEBUGGER_STALE_REFERENCE", str(exc)))
        if exc.code == ErrorCode.VM_DEAD:
            return ToolFailure("DEBUGGER_DISCONNECTED", str(exc))
        return ToolFailure("DEBUGGER_WORKER_FAILED", str(exc))
    if isinstance(exc, JdwpError):  # a ProtocolError, or any other failure of the JDWP layer
        return ToolFailure("DEBUGGER_WORKER_FAILED", str(exc))
    log.error("internal error in a tool", exc_info=exc)
    return ToolFailure("DEBUGGER_WORKER_FAILED", f"internal error ({type(exc).__name__}); see the server's log")

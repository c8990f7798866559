"""The engine's errors: each carries the stable code the MCP server reports (docs/design.md §5.6).

Layer: ``jdwp.debugger``. They derive from ``jdwp.JdwpError``, so a caller catching the library's root
catches these too.
"""

from __future__ import annotations

from ..protocol.errors import JdwpError


class DebuggerError(JdwpError):
    """Root of the engine's own errors. ``code`` is stable; ``retryable`` says whether trying again helps."""

    code = "DEBUGGER_WORKER_FAILED"
    retryable = False


class InvalidArgument(DebuggerError):
    code = "INVALID_ARGUMENT"


class NotFound(DebuggerError):
    """An ID this session never issued (a breakpoint, a stop, a thread or frame handle)."""

    code = "DEBUGGER_NOT_FOUND"


class StaleReference(DebuggerError):
    """A stop, thread or frame ID from a stop that has ended (resume, step, disconnect or detach)."""

    code = "DEBUGGER_STALE_REFERENCE"


class NotPaused(DebuggerError):
    """The command needs a current stop and there is none."""

    code = "DEBUGGER_NOT_PAUSED"


class LimitReached(DebuggerError):
    """A per-session limit (e.g. 100 breakpoints) would be exceeded; nothing was changed."""

    code = "INVALID_ARGUMENT"


class EngineClosed(DebuggerError):
    """The engine has ended (detached, VM death or a lost connection); ``reason`` says which."""

    code = "DEBUGGER_DISCONNECTED"

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class EvaluationFailed(DebuggerError):
    """The expression parsed but cannot be evaluated here: an unknown name, a null dereference, an index
    out of range, a type mismatch, or a method call (invocation is not enabled). Not retryable."""

    code = "DEBUGGER_EVALUATION_FAILED"


class AlreadyPaused(DebuggerError):
    """``pause`` while a stop is current: the VM is already suspended by it. Not retryable as such: inspect
    that stop, or resume it and pause again."""

    code = "DEBUGGER_BUSY"


class Unsupported(DebuggerError):
    """The VM cannot do what was asked (its ``VirtualMachine.CapabilitiesNew`` or version says so), or the
    session was not started to allow it (``--allow-mutation``); the message says which and what to do."""

    code = "DEBUGGER_UNSUPPORTED"

"""The ``android`` error hierarchy: one root, values with stable codes and text a user can act on.

Layer: ``android`` (no trio, no sockets here); imports nothing from ``jdwp`` or ``server``.
Spec: docs/design.md §4 (what each failure means) and §5.6 (the error codes the MCP server reports).

Every class carries ``code`` (one of docs/design.md §5.6's codes, stable across releases) and ``retryable``.
``str(exc)`` is shown to the user verbatim, so it says what happened and what to do next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

__all__ = [
    "AdbConnectionError",
    "AdbError",
    "AdbFailure",
    "AdbProtocolError",
    "AdbTimeout",
    "Candidate",
    "DebuggerBusy",
    "DebuggerUnsupported",
    "DeviceNotFound",
    "DeviceUnavailable",
    "InvalidArgument",
    "ProcessAmbiguous",
    "ProcessChanged",
    "ProcessNotFound",
    "ShellCommandFailed",
]


class AdbError(Exception):
    """Root of every error the ``android`` package raises on purpose.

    Attributes:
        code: the docs/design.md §5.6 error code the MCP server reports for this failure.
        retryable: whether the same call may succeed if tried again later unchanged.
    """

    code: ClassVar[str] = "DEVICE_UNAVAILABLE"
    retryable: ClassVar[bool] = False


class InvalidArgument(AdbError, ValueError):
    """An input (serial, appId, pid, service name) was rejected before anything was sent."""

    code = "INVALID_ARGUMENT"


class AdbConnectionError(AdbError):
    """The ADB server could not be reached, or the connection to it broke mid-request."""

    retryable = True


class AdbTimeout(AdbError, TimeoutError):
    """The ADB server or device did not answer within the request's deadline."""

    code = "DEBUGGER_TIMEOUT"
    retryable = True


class AdbProtocolError(AdbError):
    """The ADB server sent bytes that do not follow the smart-socket protocol."""


class AdbFailure(AdbError):
    """The ADB server answered ``FAIL`` with a message.

    Attributes:
        message: the server's own text, verbatim (may be empty or span several lines).
        request: the service request that failed, e.g. ``"host:transport:emulator-5554"``.
    """

    def __init__(self, message: str, request: str = "") -> None:
        self.message = message
        self.request = request
        shown = message if message else "no reason given"
        super().__init__(f"adb refused {request!r}: {shown}" if request else f"adb: {shown}")


class DeviceUnavailable(AdbError):
    """The named device exists for the ADB server but cannot be used in its current state.

    Attributes:
        serial: the device serial the caller named.
        state: the state adb reports (``offline``, ``unauthorized``, ``no permissions …``, …) or
            ``"absent"`` when the server does not know the serial.
    """

    retryable = True

    def __init__(self, serial: str, state: str, detail: str = "") -> None:
        self.serial = serial
        self.state = state
        hint = _STATE_HINTS.get(state.split(" ", 1)[0], "wait until `adb devices` lists it as 'device'")
        text = f"device {serial!r} is {state}: {hint}"
        if detail:
            text += f" (adb: {detail})"
        super().__init__(text)


class DeviceNotFound(DeviceUnavailable):
    """The ADB server does not know the serial at all (unplugged, wrong serial, other server)."""

    def __init__(self, serial: str, known: Sequence[str] | None = None, detail: str = "") -> None:
        self.known = None if known is None else tuple(known)
        super().__init__(serial, "absent", detail)
        if self.known is not None:
            listed = ", ".join(repr(s) for s in self.known) if self.known else "none"
            self.args = (f"{self.args[0]}; devices the ADB server knows: {listed}",)


_STATE_HINTS = {
    "absent": "check the serial with `adb devices -l`, connect the device or start the emulator",
    "offline": "the device is not responding; reconnect it or restart it (adb reconnect offline)",
    "unauthorized": "unlock the device and accept the 'Allow USB debugging' dialog, then retry",
    "authorizing": "the device is still authorizing this computer; retry in a few seconds",
    "connecting": "the device is still connecting; retry in a few seconds",
    "no": "the host lacks USB permissions for this device; fix the udev rules and reconnect it",
    "bootloader": "the device is in the bootloader; boot Android first",
    "recovery": "the device is in recovery; boot Android first",
    "sideload": "the device is in sideload mode; boot Android first",
    "rescue": "the device is in rescue mode; boot Android first",
}


class ShellCommandFailed(AdbError):
    """A device shell command we depend on exited non-zero or printed something unparseable.

    Attributes:
        command: the command line that ran on the device.
        exit_code: its exit status (``None`` when the device offers no exit status).
        output: the first part of its combined output, for diagnosis.
    """

    retryable = True

    def __init__(self, command: str, exit_code: int | None, output: str) -> None:
        self.command = command
        self.exit_code = exit_code
        self.output = output
        super().__init__(f"device command failed (exit {exit_code}): {command!r}: {output[:200]!r}")


@dataclass(frozen=True)
class Candidate:
    """One process that could be the target, as shown in PROCESS_AMBIGUOUS and capability reports."""

    pid: int
    name: str
    uid: int | None = None

    def __str__(self) -> str:
        uid = f", uid {self.uid}" if self.uid is not None else ""
        return f"pid {self.pid} ({self.name}{uid})"


class ProcessNotFound(AdbError):
    """No process of the app (or with the given pid) is running on the device."""

    code = "PROCESS_NOT_FOUND"
    retryable = True


class ProcessAmbiguous(AdbError):
    """More than one debuggable process belongs to the app and no ``processId`` was given.

    Attributes:
        candidates: every matching process, so the caller can pick one by pid.
    """

    code = "PROCESS_AMBIGUOUS"

    def __init__(self, app_id: str, candidates: Sequence[Candidate]) -> None:
        self.app_id = app_id
        self.candidates = tuple(candidates)
        listed = "; ".join(str(c) for c in self.candidates)
        super().__init__(
            f"{len(self.candidates)} debuggable processes belong to {app_id}: {listed}; pass processId to choose one"
        )


class ProcessChanged(AdbError):
    """The process identity (pid, uid, name, start time) differs from what was resolved earlier."""

    code = "PROCESS_CHANGED"
    retryable = True

    def __init__(self, pid: int, what: str) -> None:
        self.pid = pid
        self.what = what
        super().__init__(
            f"process {pid} changed since it was resolved ({what}); the app restarted or the pid was "
            "reused: resolve the target again"
        )


class DebuggerUnsupported(AdbError):
    """The app runs but exposes no JDWP endpoint: it is not debuggable."""

    code = "DEBUGGER_UNSUPPORTED"


class DebuggerBusy(AdbError):
    """The process's one debugger slot is taken: it dropped our connection, or (API 28–34) queued it unanswered."""

    code = "DEBUGGER_BUSY"
    retryable = True

    def __init__(self, pid: int, how: str = "refused the debugger connection") -> None:
        self.pid = pid
        super().__init__(
            f"process {pid} {how}: another debugger, e.g. Android Studio, is attached; detach it and retry"
        )

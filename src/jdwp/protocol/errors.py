"""The ``jdwp`` error hierarchy: one root, values with stable codes and readable text.

Layer: ``jdwp.protocol`` (sans-IO); imports only ``constants``. The trio client raises the same classes,
so callers catch ``JdwpError`` whatever layer failed. ``str(exc)`` is meant to be shown to a user as is.
"""

from __future__ import annotations

from .constants import ErrorCode, error_name


class JdwpError(Exception):
    """Root of every error this library raises on purpose."""


class ProtocolError(JdwpError):
    """The peer sent bytes we cannot frame or decode. The connection is unusable afterwards."""


class FramingError(ProtocolError):
    """The peer's bytes cannot even be split into packets (a bad handshake or length): the connection is lost."""


class UsageError(JdwpError):
    """Local misuse: a call that cannot be encoded or is not allowed in the connection's state."""


class ConnectionClosed(JdwpError):
    """The stream ended or broke; every request in flight and every later one fails with this."""


class CommandTimeout(JdwpError, TimeoutError):
    """No reply arrived within the request's deadline. The connection itself stays usable."""


class CommandError(JdwpError):
    """The VM answered a command with a non-zero error code.

    Attributes:
        command: the spec's name of the command, e.g. ``"ThreadReference.Frames"``.
        code: the numeric error code; ``error`` is its spec name.
    """

    def __init__(self, command: str, code: int) -> None:
        self.command = command
        self.code = code
        self.error = error_name(code)
        super().__init__(f"{command} failed: {self.error} ({code})")

    def __reduce__(self) -> tuple[type[CommandError], tuple[str, int]]:
        return (type(self), (self.command, self.code))

    @classmethod
    def for_code(cls, command: str, code: int) -> CommandError:
        """The most specific subclass for ``code`` (the ones callers branch on), else ``CommandError``."""
        return _BY_CODE.get(code, cls)(command, code)


class InvalidThread(CommandError):
    pass


class ThreadNotSuspended(CommandError):
    pass


class AbsentInformation(CommandError):
    pass


class InvalidObject(CommandError):
    pass


class VmDead(CommandError):
    pass


class NotImplementedByVm(CommandError):
    pass


_BY_CODE: dict[int, type[CommandError]] = {
    ErrorCode.INVALID_THREAD: InvalidThread,
    ErrorCode.THREAD_NOT_SUSPENDED: ThreadNotSuspended,
    ErrorCode.ABSENT_INFORMATION: AbsentInformation,
    ErrorCode.INVALID_OBJECT: InvalidObject,
    ErrorCode.VM_DEAD: VmDead,
    ErrorCode.NOT_IMPLEMENTED: NotImplementedByVm,
}

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


class NullIdError(UsageError):
    """An ID of a command's out-data is null (0) where the JDWP specification does not allow one; nothing
    was sent (a null there can crash the VM: HotSpot's ``StringReference.Value(0)`` does, :mod:`.nulls`).

    Attributes:
        command: the spec's name of the command; ``field`` the path of the null ID in its out-data.
    """

    def __init__(self, command: str, field: str) -> None:
        self.command = command
        self.field = field
        super().__init__(f"{command}: {field} is a null ID (0), which the JDWP specification does not allow "
                         "here; nothing was sent")

    def __reduce__(self) -> tuple[type[NullIdError], tuple[str, str]]:
        return (type(self), (self.command, self.field))


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


class ReplyTooLarge(CommandError):
    """The VM's reply to one command was longer than the packet cap: its body was skipped unread and only
    that command fails; the connection goes on (docs/design.md §2.7). ``code`` is 0: the VM reported no error.

    Attributes:
        length: the reply packet's length in bytes; ``limit``: the cap it exceeds.
    """

    def __init__(self, command: str, length: int, limit: int) -> None:
        self.command = command
        self.code = 0
        self.error = "REPLY_TOO_LARGE"
        self.length = length
        self.limit = limit
        Exception.__init__(self, f"{command}: the VM's reply of {length} bytes exceeds the {limit}-byte packet "
                                 "limit; it was skipped (the connection is unaffected)")
        self.args = (command, length, limit)

    def __str__(self) -> str:
        return (f"{self.command}: the VM's reply of {self.length} bytes exceeds the {self.limit}-byte packet "
                "limit; it was skipped (the connection is unaffected)")

    def __reduce__(self) -> tuple[type[ReplyTooLarge], tuple[str, int, int]]:  # type: ignore[override]
        return (type(self), (self.command, self.length, self.limit))

    def named(self, command: str) -> ReplyTooLarge:
        """The same failure, named after the command it answered."""
        return ReplyTooLarge(command, self.length, self.limit)


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

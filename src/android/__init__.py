"""``android``: a trio client of the ADB server, device facts, target resolution and JDWP streams.

Layer: the Android side of pyjdwp. Imports trio and the standard library only; never ``jdwp`` or
``server`` (the two meet at ``trio.abc.Stream``). Spec: docs/design.md §4.
"""

from .client import AdbClient, AdbStream, ServerAddress, ShellResult
from .errors import (
    AdbConnectionError,
    AdbError,
    AdbFailure,
    AdbProtocolError,
    AdbTimeout,
    Candidate,
    DebuggerBusy,
    DebuggerUnsupported,
    DeviceNotFound,
    DeviceUnavailable,
    InvalidArgument,
    ProcessAmbiguous,
    ProcessChanged,
    ProcessNotFound,
    ShellCommandFailed,
)
from .protocol import DeviceInfo, ForwardEntry
from .resolve import DiscoveredProcess, ResolvedTarget, discover, recheck_identity, resolve_target
from .transport import JdwpStream, Transport, open_jdwp_stream

__all__ = [
    "AdbClient",
    "AdbConnectionError",
    "AdbError",
    "AdbFailure",
    "AdbProtocolError",
    "AdbStream",
    "AdbTimeout",
    "Candidate",
    "DebuggerBusy",
    "DebuggerUnsupported",
    "DeviceInfo",
    "DeviceNotFound",
    "DeviceUnavailable",
    "DiscoveredProcess",
    "ForwardEntry",
    "InvalidArgument",
    "JdwpStream",
    "ProcessAmbiguous",
    "ProcessChanged",
    "ProcessNotFound",
    "ResolvedTarget",
    "ServerAddress",
    "ShellCommandFailed",
    "ShellResult",
    "Transport",
    "discover",
    "open_jdwp_stream",
    "recheck_identity",
    "resolve_target",
]

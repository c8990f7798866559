"""pyjdwp's JDWP library: a typed, trio-native client for the Java Debug Wire Protocol.

Layers (imports go one way): ``jdwp.protocol`` (sans-IO bytes) ← ``jdwp.client`` (trio) ← the debugger
engine. Nothing here imports ``android`` or ``server``.

Quick start::

    import trio, jdwp

    async def main():
        async with jdwp.open_jdwp_tcp("127.0.0.1", 5005) as vm:
            print((await vm.version()).vm_name)
            for thread in await vm.all_threads():
                print(await vm.thread_reference.name(thread))

    trio.run(main)
"""

from .client import JdwpClient, open_jdwp, open_jdwp_tcp
from .protocol import commands
from .protocol.commands.events import (
    BreakpointEvent,
    ClassMatch,
    ClassPrepareEvent,
    Composite,
    Count,
    LocationOnly,
    SingleStepEvent,
    Step,
    ThreadOnly,
    VMDeathEvent,
    VMStartEvent,
)
from .protocol.constants import (
    ClassStatus,
    ErrorCode,
    EventKind,
    StepDepth,
    StepSize,
    SuspendPolicy,
    Tag,
    ThreadStatus,
    TypeTag,
)
from .protocol.errors import (
    AbsentInformation,
    CommandError,
    CommandTimeout,
    ConnectionClosed,
    FramingError,
    InvalidObject,
    InvalidThread,
    JdwpError,
    NotImplementedByVm,
    ProtocolError,
    ThreadNotSuspended,
    UsageError,
    VmDead,
)
from .protocol.types import IdSizes, Location
from .protocol.values import ArrayRegion, Value

__all__ = [
    "AbsentInformation",
    "ArrayRegion",
    "BreakpointEvent",
    "ClassMatch",
    "ClassPrepareEvent",
    "ClassStatus",
    "CommandError",
    "CommandTimeout",
    "Composite",
    "ConnectionClosed",
    "Count",
    "ErrorCode",
    "EventKind",
    "FramingError",
    "IdSizes",
    "InvalidObject",
    "InvalidThread",
    "JdwpClient",
    "JdwpError",
    "Location",
    "LocationOnly",
    "NotImplementedByVm",
    "ProtocolError",
    "SingleStepEvent",
    "Step",
    "StepDepth",
    "StepSize",
    "SuspendPolicy",
    "Tag",
    "ThreadNotSuspended",
    "ThreadOnly",
    "ThreadStatus",
    "TypeTag",
    "UsageError",
    "VMDeathEvent",
    "VMStartEvent",
    "Value",
    "VmDead",
    "commands",
    "open_jdwp",
    "open_jdwp_tcp",
]

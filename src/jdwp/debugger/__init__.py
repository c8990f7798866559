"""The debugger engine: line breakpoints (pending and bound), stops with owned suspensions, steps, stack,
locals and a clean detach — over any JDWP connection. It knows nothing of MCP or Android.

Layer: on top of ``jdwp.client``. Contract: DESIGN.md §3.

    async with (jdwp.open_jdwp_tcp("127.0.0.1", 5005, first_requests=FIRST_REQUESTS) as vm,
                open_debugger(vm) as debugger):
        await debugger.set_breakpoint("com.example.Foo", 42)
        async for event in debugger.events:          # Stopped, BreakpointVerified, …, Terminated
            if isinstance(event, Stopped):
                page = await debugger.stack(event.stop.stop_id, event.stop.thread_id)
                ...
                await debugger.resume(event.stop.stop_id)
"""

from .classes.release_sample import ReleaseSample, sample_release_build
from .engine import Debugger, open_debugger
from .errors import (
    AlreadyPaused,
    DebuggerError,
    EngineClosed,
    EvaluationFailed,
    InvalidArgument,
    LimitReached,
    NotFound,
    NotPaused,
    StaleReference,
)
from .events.detach import suspended_threads
from .events.suspension import AGENT_RESET, threads_suspended_now
from .events.vm_start import FIRST_REQUESTS
from .model import (
    MAX_NAME,
    OMIT_EMPTY,
    AnyBreakpoint,
    BoundLocation,
    Breakpoint,
    BreakpointRejected,
    BreakpointSpent,
    BreakpointVerified,
    Captured,
    Cleanup,
    EngineEvent,
    ErrorInfo,
    Evaluated,
    ExceptionBreakpoint,
    Frame,
    Local,
    Locals,
    LogpointHit,
    PendingStep,
    Reason,
    SkippedLocation,
    SourcePosition,
    StackPage,
    Stop,
    Stopped,
    Terminated,
    ThrownException,
    bound_names,
)
from .reading.deadlocks import Deadlock, DeadlockLink
from .reading.objects import Element, Entry, ObjectField, ObjectPage
from .reading.threads import Monitor, ThreadInfo, ThreadsPage, WaitingFor
from .reading.values import Summary
from .requests.capture import Capture
from .requests.hits import HitOptions
from .requests.run_to import RunTo

__all__ = [
    "AGENT_RESET",
    "FIRST_REQUESTS",
    "MAX_NAME",
    "OMIT_EMPTY",
    "AlreadyPaused",
    "AnyBreakpoint",
    "BoundLocation",
    "Breakpoint",
    "BreakpointRejected",
    "BreakpointSpent",
    "BreakpointVerified",
    "Capture",
    "Captured",
    "Cleanup",
    "Deadlock",
    "DeadlockLink",
    "Debugger",
    "DebuggerError",
    "Element",
    "EngineClosed",
    "EngineEvent",
    "Entry",
    "ErrorInfo",
    "Evaluated",
    "EvaluationFailed",
    "ExceptionBreakpoint",
    "Frame",
    "HitOptions",
    "InvalidArgument",
    "LimitReached",
    "Local",
    "Locals",
    "LogpointHit",
    "Monitor",
    "NotFound",
    "NotPaused",
    "ObjectField",
    "ObjectPage",
    "PendingStep",
    "Reason",
    "ReleaseSample",
    "RunTo",
    "SkippedLocation",
    "SourcePosition",
    "StackPage",
    "StaleReference",
    "Stop",
    "Stopped",
    "Summary",
    "Terminated",
    "ThreadInfo",
    "ThreadsPage",
    "ThrownException",
    "WaitingFor",
    "bound_names",
    "open_debugger",
    "sample_release_build",
    "suspended_threads",
    "threads_suspended_now",
]

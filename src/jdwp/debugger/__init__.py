"""The debugger engine: line breakpoints (pending and bound), stops with owned suspensions, steps, stack,
locals and a clean detach — over any JDWP connection. It knows nothing of MCP or Android.

Layer: on top of ``jdwp.client``. Contract: docs/design.md §3.

    async with (jdwp.open_jdwp_tcp("127.0.0.1", 5005, first_requests=FIRST_REQUESTS) as vm,
                open_debugger(vm) as debugger):
        await debugger.set_breakpoint("com.example.Foo", 42)
        async for event in debugger.events:          # Stopped, BreakpointVerified, …, Terminated
            if isinstance(event, Stopped):
                page = await debugger.stack(event.stop.stop_id, event.stop.thread_id)
                ...
                await debugger.resume(event.stop.stop_id)
"""

from .changes.reload import OldFrame, Reload
from .changes.sources import Skipped
from .classes.class_path import ClassPath
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
    Unsupported,
)
from .events.suspension import AGENT_RESET, suspended_threads, threads_suspended_now
from .events.vm_start import FIRST_REQUESTS
from .model import (
    MAX_NAME,
    OMIT_EMPTY,
    OMIT_NONE,
    AnyBreakpoint,
    AsyncFrame,
    AsyncStack,
    BoundLocation,
    Breakpoint,
    BreakpointRejected,
    BreakpointSpent,
    BreakpointVerified,
    Capture,
    Captured,
    Cleanup,
    CoroutineInfo,
    EngineEvent,
    ErrorInfo,
    Evaluated,
    ExceptionBreakpoint,
    FieldChange,
    Frame,
    HitOptions,
    Local,
    Locals,
    LogpointHit,
    MethodBreakpoint,
    PendingStep,
    Reason,
    SkippedLocation,
    SourcePosition,
    SpilledVariable,
    StackPage,
    Stop,
    Stopped,
    Terminated,
    ThrownException,
    Watchpoint,
    bound_names,
)
from .reading.deadlocks import Deadlock, DeadlockLink
from .reading.diagnosis import Diagnosis, is_system
from .reading.expressions.collections import Computed
from .reading.objects import Element, Entry, ObjectField, ObjectPage
from .reading.similar_threads import SimilarThreads, fold_threads, frame_text
from .reading.threads import Monitor, ThreadHead, ThreadInfo, ThreadsPage, WaitingFor
from .reading.values import Summary
from .requests.exceptions import exception_request
from .requests.places import breakpoint_place, check_options
from .requests.run_to import RunTo

__all__ = [
    "AGENT_RESET",
    "FIRST_REQUESTS",
    "MAX_NAME",
    "OMIT_EMPTY",
    "OMIT_NONE",
    "AlreadyPaused",
    "AnyBreakpoint",
    "AsyncFrame",
    "AsyncStack",
    "BoundLocation",
    "Breakpoint",
    "BreakpointRejected",
    "BreakpointSpent",
    "BreakpointVerified",
    "Capture",
    "Captured",
    "ClassPath",
    "Cleanup",
    "Computed",
    "CoroutineInfo",
    "Deadlock",
    "DeadlockLink",
    "Debugger",
    "DebuggerError",
    "Diagnosis",
    "Element",
    "EngineClosed",
    "EngineEvent",
    "Entry",
    "ErrorInfo",
    "Evaluated",
    "EvaluationFailed",
    "ExceptionBreakpoint",
    "FieldChange",
    "Frame",
    "HitOptions",
    "InvalidArgument",
    "LimitReached",
    "Local",
    "Locals",
    "LogpointHit",
    "MethodBreakpoint",
    "Monitor",
    "NotFound",
    "NotPaused",
    "ObjectField",
    "ObjectPage",
    "OldFrame",
    "PendingStep",
    "Reason",
    "ReleaseSample",
    "Reload",
    "RunTo",
    "SimilarThreads",
    "Skipped",
    "SkippedLocation",
    "SourcePosition",
    "SpilledVariable",
    "StackPage",
    "StaleReference",
    "Stop",
    "Stopped",
    "Summary",
    "Terminated",
    "ThreadHead",
    "ThreadInfo",
    "ThreadsPage",
    "ThrownException",
    "Unsupported",
    "WaitingFor",
    "Watchpoint",
    "bound_names",
    "breakpoint_place",
    "check_options",
    "exception_request",
    "fold_threads",
    "frame_text",
    "is_system",
    "open_debugger",
    "sample_release_build",
    "suspended_threads",
    "threads_suspended_now",
]

"""The eleven debugger tools: descriptions written for a model, input models, and thin handlers.

Layer: ``server``. Each handler parses nothing itself (pydantic did), calls the session manager or the
engine, and returns a result; :mod:`.app` wraps it in the envelope, the deadline and the error mapping.
DESIGN.md §5 holds the contract; ``docs/tools.md`` shows an example of each response.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

import trio
from pydantic import BaseModel

from android import AdbError, discover

from .capabilities import CAPABILITIES, LIMITATIONS, describe_prerequisites
from .envelope import ToolFailure
from .models import (
    LocalsInput,
    RemoveBreakpointInput,
    ResumeInput,
    SessionInput,
    SetBreakpointInput,
    StackInput,
    StepInput,
    TargetInput,
    WaitInput,
)
from .session import DebugSession, breakpoint_dict
from .sessions import SessionManager
from .targets import check_jvm_address, device_key


@dataclasses.dataclass
class Call:
    """One tool call in progress: what the handler got, and the session it touched."""

    manager: SessionManager
    input: Any
    session: DebugSession | None = None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def open_session(self, stop_id: str | None = None) -> DebugSession:
        """The call's session, which must still be attached.

        Raises:
            ToolFailure: DEBUGGER_NOT_FOUND; once it has ended, DEBUGGER_STALE_REFERENCE for a ``stop_id``
                the session issued (its stop ended with it), else DEBUGGER_DISCONNECTED.
        """
        session = self.manager.get(self.input.debugSessionId)
        self.session = session
        session.touch()
        if session.is_terminal or session.engine is None:
            why = f"{session.terminal_reason}: {session.terminal_message}"
            if stop_id is not None and session.engine is not None and session.engine.issued(stop_id):
                raise ToolFailure("DEBUGGER_STALE_REFERENCE", f"stop {stop_id} ended with its session {session.id}, "
                                  f"which has ended ({why}); attach again to continue")
            raise ToolFailure("DEBUGGER_DISCONNECTED", f"session {session.id} has ended ({why}); attach again to "
                              "continue")
        return session


Handler = Callable[[Call], Awaitable[Any]]


@dataclasses.dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    model: type[BaseModel]
    handler: Handler
    read_only: bool
    #: Changes what the VM does; a timeout or cancellation leaves its outcome unknown.
    uncertain_on_interrupt: bool = False
    #: ``timeoutMs`` is how long to wait (for events, for cleanup), not a failure deadline.
    waits: bool = False
    destructive: bool = False


# --- handlers --------------------------------------------------------------------------------------

async def get_capabilities(call: Call) -> Any:
    inp: TargetInput = call.input
    if inp.platform == "jvm":
        jvm = await check_jvm_address(inp, call.manager.config)
        prerequisites: dict[str, Any] = {
            "jdk_required": False,
            "jvm": {"address": jvm.text, "loopback": jvm.loopback,
                    "note": "attach_debugger verifies that a JDWP agent answers"},
        }
        candidates: list[dict[str, Any]] = []
    else:
        prerequisites = await describe_prerequisites(call.manager.adb, inp.deviceId or "")
        candidates = []
        device: dict[str, Any] = prerequisites.get("device") or {}
        if device.get("state") == "device":
            ours = call.manager.session_on(device_key(inp))
            ours_pid = (ours.target or {}).get("pid") if ours else None
            try:
                found = await discover(call.manager.adb, inp.deviceId or "", inp.appId or "")
            except AdbError as exc:
                prerequisites["discovery_error"] = {"code": exc.code, "message": str(exc)}
                found = []
            for process in found:
                facts = process.facts
                if inp.processId is not None and facts.pid != inp.processId:
                    continue
                candidates.append({
                    "pid": facts.pid, "name": facts.name, "uid": facts.uid,
                    "start_identity": {"start_ticks": facts.start_ticks, "boot_id": facts.boot_id},
                    "debuggable": process.debuggable,
                    "busy": facts.pid == ours_pid,
                })
    return {
        "prerequisites": prerequisites,
        "candidates": candidates,
        "supported_operations": CAPABILITIES["operations"],
        "limitations": LIMITATIONS,
        "busy_note": "busy is true when this server debugs the process; another debugger (e.g. Android "
                     "Studio) shows only at attach, as DEBUGGER_BUSY",
    }


async def attach(call: Call) -> Any:
    session = await call.manager.attach(call.input)
    call.session = session
    target = session.target or {}
    return {"debug_session_id": session.id, "target": target, "vm": target.get("vm")}


async def get_state(call: Call) -> Any:
    session = call.manager.get(call.input.debugSessionId)
    call.session = session
    session.touch()
    return {
        "state": session.state,
        "stop": session.current_stop(),
        "breakpoints": session.breakpoints(),
        "terminal_reason": session.terminal_reason,
        "terminal_message": session.terminal_message,
        "events": {"newest_sequence": session.ring.newest, "buffered": len(session.ring)},
    }


async def set_breakpoint(call: Call) -> Any:
    inp: SetBreakpointInput = call.input
    session = call.open_session()
    async with session.lock:
        breakpoint = await session.engine.set_breakpoint(  # type: ignore[union-attr]
            inp.className, inp.line, file=inp.file)
    return breakpoint_dict(breakpoint)


async def remove_breakpoint(call: Call) -> Any:
    inp: RemoveBreakpointInput = call.input
    session = call.open_session()
    async with session.lock:
        await session.engine.remove_breakpoint(inp.breakpointId)  # type: ignore[union-attr]
    return {"removed": True, "breakpoint_id": inp.breakpointId}


async def wait_for_event(call: Call) -> Any:
    inp: WaitInput = call.input
    session = call.manager.get(inp.debugSessionId)
    call.session = session
    session.touch()
    ring = session.ring
    first = ring.read(inp.afterSequence)  # rejects a future cursor before waiting
    timed_out = False
    if not first.events and not first.overflow:
        with trio.move_on_after(inp.timeoutMs / 1000) as scope:
            await ring.wait_after(inp.afterSequence)
        timed_out = scope.cancelled_caught
        first = ring.read(inp.afterSequence)
    session.touch()
    call.extra = {"events": first.events, "next_cursor": first.next_cursor, "overflow": first.overflow,
                  "timed_out": timed_out and not first.events}
    return None


async def get_stack(call: Call) -> Any:
    inp: StackInput = call.input
    session = call.open_session(inp.stopId)
    return await session.engine.stack(inp.stopId, inp.threadId, inp.offset, inp.limit)  # type: ignore[union-attr]


async def get_locals(call: Call) -> Any:
    inp: LocalsInput = call.input
    session = call.open_session(inp.stopId)
    return await session.engine.locals(inp.stopId, inp.frameId)  # type: ignore[union-attr]


async def step(call: Call) -> Any:
    inp: StepInput = call.input
    session = call.open_session(inp.stopId)
    async with session.lock:
        await session.engine.step(inp.stopId, inp.threadId, inp.kind,  # type: ignore[union-attr]
                                  filters=inp.stepFilters)
    return {"acknowledged": True, "note": "the stop this step leads to arrives via wait_for_debugger_event"}


async def resume(call: Call) -> Any:
    inp: ResumeInput = call.input
    session = call.open_session(inp.stopId)
    async with session.lock:
        await session.engine.resume(inp.stopId)  # type: ignore[union-attr]
    return {"acknowledged": True}


async def detach(call: Call) -> Any:
    inp: SessionInput = call.input
    session = call.manager.get(inp.debugSessionId)
    call.session = session
    with trio.move_on_after(inp.timeoutMs / 1000) as waited:
        await call.manager.detach(session)
    if waited.cancelled_caught and not session.is_terminal:
        # The cleanup goes on in the background, to its own 10 s deadline; say so rather than fail.
        return {"detached": False, "terminal_reason": None,
                "note": "cleanup is still running (cleanup.status pending); call detach_debugger or "
                        "get_debugger_state again to see it finish"}
    return {"detached": True, "terminal_reason": session.terminal_reason}


# --- the tool table --------------------------------------------------------------------------------

_TARGET_HELP = ('Target: {"platform": "android", "deviceId": <adb serial>, "appId": <package>, "processId"?: '
                '<pid>} or {"platform": "jvm", "address": "127.0.0.1:5005"}.')

TOOLS: tuple[Tool, ...] = (
    Tool("get_debugger_capabilities", "Check debugger prerequisites",
         "Check, without attaching, whether a target can be debugged: adb and device state, the app's candidate "
         "processes (pid, name, uid, start identity, debuggable, busy), supported operations and limitations. "
         "No JDK is needed. " + _TARGET_HELP + " Next: attach_debugger with the same target.",
         TargetInput, get_capabilities, read_only=True),
    Tool("attach_debugger", "Attach the debugger",
         "Attach to a running, debuggable process and start a session; returns debug_session_id. The app keeps "
         "running — unless it waits for a debugger (a JVM started with suspend=y): then the state is paused on a "
         "vm_start stop before main; set breakpoints, then resume_debugger. One session per device (per address "
         "for a JVM), four per server. " + _TARGET_HELP +
         " If the app runs several debuggable processes, pass processId (PROCESS_AMBIGUOUS lists them). "
         "Next: set_debugger_breakpoint, then wait_for_debugger_event.",
         TargetInput, attach, read_only=False, uncertain_on_interrupt=True),
    Tool("get_debugger_state", "Read session state",
         "Read a session's state (attaching, running, paused, detaching, detached, disconnected, failed), its "
         "current stop (stop_id, thread_id, location), every breakpoint with its status, the terminal reason "
         "and cleanup. Works for ended sessions for 10 minutes.",
         SessionInput, get_state, read_only=True),
    Tool("set_debugger_breakpoint", "Set a line breakpoint",
         "Break at a 1-based source line, given exactly one of: className, a binary class name (com.example.Foo) "
         "— it also binds in the classes nested in it from the same file (inner, anonymous Foo$1, lambdas, Kotlin "
         "Foo$Companion); or file, a source file name or path (MainActivity.kt, app/src/main/java/com/x/"
         "MainActivity.kt) — every class of that file, Kotlin top-level code (FooKt) included. A line of a Kotlin "
         "inline function also binds where it was inlined (locations with inlined: true). Binds in every class "
         "loader: status verified with locations. Nothing of it loaded yet gives status pending (reason hints at a "
         "mistyped name); it binds when a class loads (event breakpoint_verified). Classes loaded but no code at "
         "the line, or no line tables, gives status rejected with reason DEBUGGER_LOCATION_UNAVAILABLE; it stays "
         "armed for classes loaded later — the breakpoint is never moved. At most 100 held at once per session "
         "(remove one to set another). A hit suspends all threads; see wait_for_debugger_event.",
         SetBreakpointInput, set_breakpoint, read_only=False),
    Tool("remove_debugger_breakpoint", "Remove a breakpoint",
         "Remove a breakpoint by breakpoint_id; removing it again also succeeds.",
         RemoveBreakpointInput, remove_breakpoint, read_only=False),
    Tool("wait_for_debugger_event", "Wait for debugger events",
         "Wait up to timeoutMs (default 1000) for events after afterSequence (default 0) and return them in order "
         "(at most 100): stopped (with stop_id, thread_id, location, breakpoint_ids), breakpoint_verified, "
         "breakpoint_rejected, terminated (with reason). Pass next_cursor as afterSequence next time. overflow: "
         "true means older events were dropped (the ring keeps 256). timed_out: true (still a success) means "
         "nothing arrived. Waiting never blocks other calls.",
         WaitInput, wait_for_event, read_only=True, waits=True),
    Tool("get_debugger_stack", "Read a stopped thread's stack",
         "List frames of the stopped thread: frame_id, index (0 = top), class_name, method, source, line, "
         "code_index. Needs the current stop's stopId and threadId. Paginate with offset and limit (default 20, "
         "max 100); total is capped at 1000 frames per stop; next_offset is null on the last page. IDs expire "
         "when the stop ends (DEBUGGER_STALE_REFERENCE). Next: get_debugger_locals with a frame_id.",
         StackInput, get_stack, read_only=True),
    Tool("get_debugger_locals", "Read a frame's local variables",
         "Read the local variables live at a frame (from get_debugger_stack) of the current stop: name, type, kind "
         "(primitive, null, string, object, array), value as text (strings cut to 256 characters, with length), "
         "object_id for objects; `this` separately. At most 100 (truncated: true beyond). availability is "
         "unavailable when the class has no variable table (ABSENT_INFORMATION) or the frame is a native method's "
         "(NATIVE_METHOD), unknown when the table is empty (EMPTY_OR_UNAVAILABLE_VARIABLE_METADATA). Values may be "
         "private: they are returned only here, never logged.",
         LocalsInput, get_locals, read_only=True),
    Tool("step_debugger", "Step one line",
         "Step the stopped thread one line: into (enter calls), over (run calls), out (finish the method). "
         "Needs the current stopId and threadId. Returns acknowledged once the VM accepted the step; the app runs "
         "and the resulting stop (or a breakpoint of this thread hit first: ended_step) arrives via "
         "wait_for_debugger_event. Other threads' stops may come first: they list the step in pending_steps, and "
         "resuming them lets it go on. Step filters (default on; stepFilters: false turns them off) skip JDK, "
         "Kotlin-runtime and Android-platform classes and synthetic methods. All IDs of the current stop expire.",
         StepInput, step, read_only=False, uncertain_on_interrupt=True),
    Tool("resume_debugger", "Resume the app",
         "Resume from the current stop (stopId): releases exactly the suspension that stop holds. If another stop "
         "was queued it becomes current and arrives as a stopped event. All IDs of the old stop expire.",
         ResumeInput, resume, read_only=False, uncertain_on_interrupt=True),
    Tool("detach_debugger", "Detach and clean up",
         "End a session: clear its breakpoints and requests, release its suspensions so the app runs on, close the "
         "connection (and any adb forward). Idempotent; if cleanup.status is failed, call it again to retry. "
         "Returns within timeoutMs: a slower cleanup goes on in the background (state detaching, cleanup.status "
         "pending); call it again to wait for the end. Never kills the app.",
         SessionInput, detach, read_only=False, destructive=True, waits=True),
)

BY_NAME = {tool.name: tool for tool in TOOLS}

"""The debugger tools: descriptions written for a model, input models, and thin handlers.

Layer: ``server``. Each handler parses nothing itself (pydantic did), calls the session manager or the
engine, and returns a result; :mod:`.app` wraps it in the envelope, the deadline and the error mapping.
DESIGN.md §5 holds the contract; ``docs/tools.md`` shows an example of each response.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

import trio
from pydantic import BaseModel

from android import AdbError, discover
from jdwp.debugger import Debugger, Locals, ObjectPage, StackPage, Summary, ThreadsPage

from .art_costs import art_step_warnings
from .capabilities import capabilities_for, describe_prerequisites, operations_on
from .debug_session import DebugSession
from .failures import ErrorBody, ToolFailure
from .launching import anr_warning, debug_states
from .models import (
    AttachInput,
    EvaluateInput,
    ExceptionBreakpointInput,
    LocalsInput,
    ObjectInput,
    RemoveBreakpointInput,
    ResumeInput,
    SessionInput,
    SetBreakpointInput,
    StackInput,
    StepInput,
    TargetInput,
    ThreadsInput,
    WaitInput,
)
from .results import (
    Acknowledged,
    AndroidTarget,
    AttachResult,
    BreakpointAnswer,
    Candidate,
    CapabilitiesResult,
    Detached,
    EventsPage,
    ExceptionBreakpointAnswer,
    JvmFacts,
    Paused,
    Prerequisites,
    Removed,
    RingCounts,
    StartIdentity,
    StateResult,
)
from .session_manager import SessionManager
from .targets import check_jvm_address, device_key


class Attached(NamedTuple):
    """A session that is still attached, with its engine (never ``None`` here)."""

    session: DebugSession
    engine: Debugger


@dataclasses.dataclass
class Call:
    """One tool call in progress: what the handler got, and the session it touched."""

    manager: SessionManager
    input: Any
    session: DebugSession | None = None

    def find_session(self) -> DebugSession:
        """The call's session, attached or ended (within its 10 minutes); counts as client activity.

        Raises:
            ToolFailure: DEBUGGER_NOT_FOUND.
        """
        session = self.manager.get(self.input.debugSessionId)
        self.session = session
        session.touch()
        return session

    def attached(self, stop_id: str | None = None) -> Attached:
        """The call's session, which must still be attached.

        Raises:
            ToolFailure: DEBUGGER_NOT_FOUND; once it has ended, DEBUGGER_STALE_REFERENCE for a ``stop_id``
                the session issued (its stop ended with it), else DEBUGGER_DISCONNECTED.
        """
        session = self.find_session()
        engine = session.engine
        if session.is_terminal or engine is None:
            why = f"{session.terminal_reason}: {session.terminal_message}"
            if stop_id is not None and engine is not None and engine.issued(stop_id):
                raise ToolFailure("DEBUGGER_STALE_REFERENCE", f"stop {stop_id} ended with its session {session.id}, "
                                  f"which has ended ({why}); attach again to continue")
            raise ToolFailure("DEBUGGER_DISCONNECTED", f"session {session.id} has ended ({why}); attach again to "
                              "continue")
        return Attached(session, engine)


Handler = Callable[[Call], Awaitable[Any]]


@dataclasses.dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    model: type[BaseModel]
    handler: Handler
    #: What ``result`` holds (its schema is the tool's output schema); an EventsPage stands beside it.
    result: type
    read_only: bool
    #: Calling it again with the same input changes nothing more (MCP's idempotentHint).
    idempotent: bool
    #: Changes what the VM does; a timeout or cancellation leaves its outcome unknown.
    uncertain_on_interrupt: bool = False
    #: ``timeoutMs`` is how long to wait (for events, for cleanup), not a failure deadline.
    waits: bool = False
    destructive: bool = False
    #: Its envelope carries the capabilities, limitations and target in full; others name them compactly.
    full_envelope: bool = False


# --- handlers --------------------------------------------------------------------------------------

async def get_capabilities(call: Call) -> CapabilitiesResult:
    inp: TargetInput = call.input
    candidates: list[Candidate] = []
    if inp.platform == "jvm":
        jvm = await check_jvm_address(inp, call.manager.config)
        prerequisites = Prerequisites(False, jvm=JvmFacts(jvm.text, jvm.loopback,
                                                          "attach_debugger verifies that a JDWP agent answers"))
    else:
        prerequisites = await describe_prerequisites(call.manager.adb, inp.deviceId or "")
        if prerequisites.device is not None and prerequisites.device.state == "device":
            ours = call.manager.session_on(device_key(inp))
            ours_pid = ours.target.pid if ours and isinstance(ours.target, AndroidTarget) else None
            try:
                found = await discover(call.manager.adb, inp.deviceId or "", inp.appId or "")
            except AdbError as exc:
                prerequisites = dataclasses.replace(
                    prerequisites, discovery_error=ErrorBody(exc.code, str(exc), exc.retryable))
                found = []
            shown = [p for p in found if inp.processId is None or p.facts.pid == inp.processId]
            exempt = await debug_states(call.manager.adb, inp.deviceId or "", [p.facts.pid for p in shown])
            for process in shown:
                facts = process.facts
                candidates.append(Candidate(facts.pid, facts.name, facts.uid,
                                            StartIdentity(facts.start_ticks, facts.boot_id), process.debuggable,
                                            facts.pid == ours_pid, exempt.get(facts.pid)))
    capabilities, limitations, _ = capabilities_for(call.manager.config.allow_invoke, inp.platform)
    return CapabilitiesResult(
        prerequisites, tuple(candidates), operations_on(capabilities, inp.platform), limitations,
        "busy is true when this server debugs the process; another debugger (e.g. Android Studio) shows only "
        "at attach, as DEBUGGER_BUSY")


async def attach(call: Call) -> AttachResult:
    session = await call.manager.attach(call.input)
    try:
        result = _attached(session)
    except BaseException:  # the app is attached (a launch's held): a failed answer leaves nothing behind
        await call.manager.abandon(session)
        raise
    call.session = session
    return result


def _attached(session: DebugSession) -> AttachResult:
    assert session.target is not None  # a session that started has its target
    facts = session.facts
    stop = session.current_stop()
    warning = anr_warning(session.anr_exempt, at_attach=True) if isinstance(session.target, AndroidTarget) else None
    return AttachResult(session.id, session.target, session.target.vm, facts.first_reply_ms,
                        facts.release_build_likely, facts.warnings, session.launch, stop, warning)


async def get_state(call: Call) -> StateResult:
    session = call.find_session()
    return StateResult(session.state, session.current_stop(), session.breakpoints(), session.terminal_reason,
                       session.terminal_message, RingCounts(session.ring.newest, len(session.ring)))


async def set_breakpoint(call: Call) -> BreakpointAnswer:
    inp: SetBreakpointInput = call.input
    session, engine = call.attached()
    async with session.lock:
        return BreakpointAnswer.of(await engine.set_breakpoint(
            inp.className, inp.line, file=inp.file, condition=inp.condition, hit_count=inp.hitCount,
            action=inp.action, log_message=inp.logMessage, max_hits=inp.maxHits, suspend=inp.suspend,
            lambda_choice=inp.lambda_))


async def set_exception_breakpoint(call: Call) -> ExceptionBreakpointAnswer:
    inp: ExceptionBreakpointInput = call.input
    session, engine = call.attached()
    async with session.lock:
        return ExceptionBreakpointAnswer.of(
            await engine.set_exception_breakpoint(inp.exceptionClass, inp.caught, inp.uncaught))


async def remove_breakpoint(call: Call) -> Removed:
    inp: RemoveBreakpointInput = call.input
    session, engine = call.attached()
    async with session.lock:
        await engine.remove_breakpoint(inp.breakpointId)
    return Removed(inp.breakpointId)


async def wait_for_event(call: Call) -> EventsPage:
    inp: WaitInput = call.input
    session = call.find_session()
    ring = session.ring
    first = ring.read(inp.afterSequence)  # rejects a future cursor before waiting
    timed_out = False
    if not first.events and not first.overflow:
        with trio.move_on_after(inp.timeoutMs / 1000) as scope:
            await ring.wait_after(inp.afterSequence)
        timed_out = scope.cancelled_caught
        first = ring.read(inp.afterSequence)
    session.touch()
    return EventsPage(first.events, first.next_cursor, first.overflow, timed_out and not first.events)


async def get_stack(call: Call) -> StackPage:
    inp: StackInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.stack(inp.stopId, inp.threadId, inp.offset, inp.limit)


async def get_locals(call: Call) -> Locals:
    inp: LocalsInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.locals(inp.stopId, inp.frameId)


async def get_object(call: Call) -> ObjectPage:
    inp: ObjectInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.object(inp.stopId, inp.objectId, inp.offset, inp.limit, inp.view)


async def evaluate(call: Call) -> Summary:
    inp: EvaluateInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.evaluate(inp.stopId, inp.frameId, inp.expression)


async def get_threads(call: Call) -> ThreadsPage:
    inp: ThreadsInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.threads(inp.stopId, inp.stackDepth)


async def pause(call: Call) -> Paused:
    session, engine = call.attached()
    async with session.lock:
        return Paused(await engine.pause())


async def step(call: Call) -> Acknowledged:
    inp: StepInput = call.input
    session, engine = call.attached(inp.stopId)
    async with session.lock:
        made = await engine.step(inp.stopId, inp.threadId, inp.kind, filters=inp.stepFilters)
    note = "the stop this step leads to arrives via wait_for_debugger_event"
    if made != inp.kind:
        note = (f"the thread's top frame is native (no line to step {inp.kind}; that step would never finish): "
                f"stepped {made} instead, to the caller once the native call returns; {note}")
    return Acknowledged(note=note, warnings=art_step_warnings(inp.kind) if isinstance(session.target, AndroidTarget)
                        else (), stepped=made if made != inp.kind else None)


async def resume(call: Call) -> Acknowledged:
    inp: ResumeInput = call.input
    session, engine = call.attached(inp.stopId)
    async with session.lock:
        await engine.resume(inp.stopId)
    return Acknowledged()


async def detach(call: Call) -> Detached:
    inp: SessionInput = call.input
    session = call.manager.get(inp.debugSessionId)
    call.session = session
    with trio.move_on_after(inp.timeoutMs / 1000) as waited:
        await call.manager.detach(session)
    if waited.cancelled_caught and not session.is_terminal:
        # The cleanup goes on in the background, to its own 10 s deadline; say so rather than fail.
        return Detached(False, None, "cleanup is still running (cleanup.status pending); call detach_debugger or "
                                     "get_debugger_state again to see it finish")
    return Detached(True, session.terminal_reason)


# --- the tool table --------------------------------------------------------------------------------

_TARGET_HELP = ('Target: {"platform": "android", "deviceId": <adb serial>, "appId": <package>, "processId"?: '
                '<pid>} or {"platform": "jvm", "address": "127.0.0.1:5005"}.')

TOOLS: tuple[Tool, ...] = (
    Tool("get_debugger_capabilities", "Check debugger prerequisites",
         "Check, without attaching, whether a target can be debugged: adb and device state, the app's candidate "
         "processes (pid, name, uid, start identity, debuggable, busy), supported operations and limitations. "
         "No JDK is needed. " + _TARGET_HELP + " Next: attach_debugger with the same target.",
         TargetInput, get_capabilities, CapabilitiesResult, read_only=True, idempotent=True, full_envelope=True),
    Tool("attach_debugger", "Attach the debugger",
         "Attach to a running, debuggable process and start a session; returns debug_session_id. The app keeps "
         "running — unless it waits for a debugger (a JVM started with suspend=y): then the state is paused on a "
         "vm_start stop before main; set breakpoints, then resume_debugger. One session per device (per address "
         "for a JVM), four per server. " + _TARGET_HELP +
         " If the app runs several debuggable processes, pass processId (PROCESS_AMBIGUOUS lists them). "
         "Android start-up code (Application.onCreate, the first Activity.onCreate): pass launch: {activity?, "
         "clearData?} — the app is force-stopped, started waiting for a debugger (the launcher activity when "
         "activity is omitted) and held before its code runs: state paused on a stop of reason launch; set "
         "breakpoints, then resume_debugger starts it. An app already waiting for a debugger is held the same "
         "way. target.app.anr_exempt says whether Android spares the app ANRs (only a launched app is): "
         "otherwise keep stops under about 5 s. Next: set_debugger_breakpoint, then wait_for_debugger_event.",
         AttachInput, attach, AttachResult, read_only=False, idempotent=False, full_envelope=True,
         uncertain_on_interrupt=True),
    Tool("get_debugger_state", "Read session state",
         "Read a session's state (attaching, running, paused, detaching, detached, disconnected, failed), its "
         "current stop (stop_id, thread_id, location), every breakpoint with its status, the terminal reason "
         "and cleanup. Works for ended sessions for 10 minutes.",
         SessionInput, get_state, StateResult, read_only=True, idempotent=True),
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
         "(remove one to set another). A hit suspends all threads; see wait_for_debugger_event. Options: "
         "condition (an expression as evaluate_debugger_expression takes; a syntax error is INVALID_ARGUMENT with "
         "the column) stops only where it is true, and one that cannot be evaluated stops with condition_error; "
         "hitCount ignores the first hitCount-1 hits; action log makes a logpoint that never stops: each hit adds "
         "a logpoint event (breakpoint_id, thread_name, location, message from logMessage's {expression} parts "
         "or frame 0's locals), at most 100 a second per session (more are counted in dropped), until maxHits "
         "(default 100, at most 10000) spend it (breakpoint_spent event); suspend thread holds only the hitting "
         "thread at a stop, so other threads (Android's main thread) keep running; lambda (all, line or n) "
         "picks among a line's lambdas as IntelliJ does. While a condition or hit "
         "count is judged only the hitting thread waits (about a millisecond per hit on loopback: keep them off "
         "lines hit thousands of times a second).",
         SetBreakpointInput, set_breakpoint, BreakpointAnswer, read_only=False, idempotent=False),
    Tool("set_debugger_exception_breakpoint", "Stop on exceptions",
         "Stop where an exception is thrown: of exceptionClass (binary name, e.g. java.lang.IllegalStateException) "
         "or any of its subclasses, or every throwable when omitted; uncaught (default true): nothing will catch "
         "it (the thread dies); caught (default false): Java code will catch it. Give exceptionClass with caught: "
         "true — without it, every exception the JDK or Android framework throws and catches internally stops the "
         "app too. A class not loaded yet gives status pending; it binds when the class loads (event "
         "breakpoint_verified). The stop has reason exception and exception {type, message (the detail message, "
         "read without running app code; 256 characters), object_id, throw_location, catch_location (null when "
         "uncaught)}; a hit suspends all threads. Counts towards the 100 breakpoints; remove it with "
         "remove_debugger_breakpoint.",
         ExceptionBreakpointInput, set_exception_breakpoint, ExceptionBreakpointAnswer, read_only=False,
         idempotent=False),
    Tool("remove_debugger_breakpoint", "Remove a breakpoint",
         "Remove a breakpoint (line or exception) by breakpoint_id; removing it again also succeeds.",
         RemoveBreakpointInput, remove_breakpoint, Removed, read_only=False, idempotent=True),
    Tool("wait_for_debugger_event", "Wait for debugger events",
         "Wait up to timeoutMs (default 1000) for events after afterSequence (default 0) and return them in order "
         "(at most 100): stopped (with stop_id, reason, thread_id, location, breakpoint_ids; reason exception adds "
         "exception), breakpoint_verified, breakpoint_rejected, logpoint (breakpoint_id, thread_name, location, "
         "message, captured_at_ms, dropped), breakpoint_spent, terminated (with reason). Pass next_cursor as "
         "afterSequence next time. overflow: "
         "true means older events were dropped (the ring keeps 256). timed_out: true (still a success) means "
         "nothing arrived. Waiting never blocks other calls.",
         WaitInput, wait_for_event, EventsPage, read_only=True, idempotent=True, waits=True),
    Tool("get_debugger_stack", "Read a stopped thread's stack",
         "List frames of the stopped thread: frame_id, index (0 = top), class_name, method, source, line, "
         "code_index. Needs the current stop's stopId and threadId. Paginate with offset and limit (default 20, "
         "max 100); total is capped at 1000 frames per stop; next_offset is null on the last page. IDs expire "
         "when the stop ends (DEBUGGER_STALE_REFERENCE). Next: get_debugger_locals with a frame_id.",
         StackInput, get_stack, StackPage, read_only=True, idempotent=True),
    Tool("get_debugger_locals", "Read a frame's local variables",
         "Read the local variables live at a frame (from get_debugger_stack) of the current stop: name, type, kind "
         "(primitive, null, string, object, array), value as text (strings cut to 256 characters, with length), "
         "object_id for objects; `this` separately. At most 100 (truncated: true beyond). availability is "
         "unavailable when the class has no variable table (ABSENT_INFORMATION) or the frame is a native method's "
         "(NATIVE_METHOD), unknown when the table is empty (EMPTY_OR_UNAVAILABLE_VARIABLE_METADATA). Values may be "
         "private: they are returned only here, never logged.",
         LocalsInput, get_locals, Locals, read_only=True, idempotent=True),
    Tool("get_debugger_object", "Look inside an object",
         "Read an object by object_id (from locals, fields, elements or entries) as of the current stop, without "
         "running app code: an object's fields (instance fields of its class and superclasses, then statics; "
         "name, declaring_class, declared_type, value, runtime_type), an array's elements, a string's full text "
         "in UTF-16 units. With view auto (default) well-known containers show their contents instead: view "
         "list/set (elements) or map (entries with key and value), size, in iteration order; a boxed value or "
         "StringBuilder its value; an unknown or unexpected layout falls back to fields with a note. Paged: "
         "offset and limit (fields 50 by default, at most 200; elements/entries 100, at most 1000; string units "
         "8192, at most 65536), total, next_offset (null on the last page). The same object keeps its object_id "
         "for the whole session; a collected object is DEBUGGER_STALE_REFERENCE.",
         ObjectInput, get_object, ObjectPage, read_only=True, idempotent=True),
    Tool("evaluate_debugger_expression", "Evaluate an expression",
         "Evaluate a read-only Java expression (at most 512 characters) in a frame (frameId from "
         "get_debugger_stack) of the current stop, without running app code: locals, this, fields (a.b, private "
         "and inherited), statics (com.x.Foo.BAR, or Foo.BAR for a loaded class), a[i] and a.length of arrays, "
         "list[i], map[key] and .size of the containers get_debugger_object shows as list/set/map, literals, "
         "! and unary -, * / % + - with Java's numeric promotion (int overflow wraps), string + (strings and "
         "primitives only: toString() is not run), < <= > >= == != (two strings compare their text, objects "
         "their identity), && || (short-circuit), instanceof, parentheses. Returns one value as "
         "get_debugger_locals shows it: kind, value, object_id, runtime_type. A syntax error is INVALID_ARGUMENT "
         "with the column; an unknown name, a null dereference, an index out of range, a type mismatch, a method "
         "call (unless the server runs with --allow-invoke), an absent map key or more than 2 s of evaluation is "
         "DEBUGGER_EVALUATION_FAILED. With --allow-invoke (capabilities list method_invocation), x.m(args) and "
         "Foo.m(args) run app code on the stop's own thread, single-threaded, within 2 s; a thrown exception is "
         "the result (thrown: type, message).",
         EvaluateInput, evaluate, Summary, read_only=True, idempotent=True),
    Tool("get_debugger_threads", "List the app's threads",
         "List every thread (at most 1000; total and truncated say if there are more): name, status (running, "
         "sleeping, waiting = Object.wait, monitor = blocked entering a synchronized block, zombie, not_started), "
         "suspended, group. Without stopId the threads run, so that is all. With the current stopId (after "
         "pause_debugger or any stop) each suspended thread also has a thread_id for get_debugger_stack, "
         "get_debugger_locals and step_debugger, frame_count, its top stackDepth frames (default 0, at most 50; "
         "frame_id usable with get_debugger_locals), owned_monitors and waiting_for {object_id, runtime_type, "
         "owner_thread, owner_name}; and deadlocks lists each cycle of threads blocked on a monitor the next one "
         "owns. Use it to answer \"why is the app frozen?\": pause_debugger, then this with the pause's stopId.",
         ThreadsInput, get_threads, ThreadsPage, read_only=True, idempotent=True),
    Tool("pause_debugger", "Pause the whole app",
         "Suspend every thread of the app now (one VirtualMachine.Suspend that this session owns) as a stop with "
         "reason pause and no thread of its own (thread_id null); returns it (also a stopped event). Then "
         "get_debugger_threads with its stopId for thread IDs, stacks and deadlocks; step_debugger a thread, or "
         "resume_debugger to release exactly this pause. The pause limit applies as for any stop; detach releases "
         "it. Breakpoints hit meanwhile queue and arrive after resume. Already paused (a stop is current): "
         "DEBUGGER_BUSY, nothing changed.",
         SessionInput, pause, Paused, read_only=False, idempotent=False, uncertain_on_interrupt=True),
    Tool("step_debugger", "Step one line",
         "Step the stopped thread one line: into (enter calls), over (run calls), out (finish the method). "
         "Needs the current stopId and threadId. Returns acknowledged once the VM accepted the step; the app runs "
         "and the resulting stop (or a breakpoint of this thread hit first: ended_step) arrives via "
         "wait_for_debugger_event. Other threads' stops may come first: they list the step in pending_steps, and "
         "resuming them lets it go on. Step filters (default on; stepFilters: false turns them off) skip JDK, "
         "Kotlin-runtime and Android-platform classes and synthetic methods. A step over from a native top frame "
         "(Thread.sleep after a pause) cannot finish: it steps out instead and says so (stepped: out, note). All "
         "IDs of the current stop expire.",
         StepInput, step, Acknowledged, read_only=False, idempotent=False, uncertain_on_interrupt=True),
    Tool("resume_debugger", "Resume the app",
         "Resume from the current stop (stopId): releases exactly the suspension that stop holds. If another stop "
         "was queued it becomes current and arrives as a stopped event. All IDs of the old stop expire.",
         ResumeInput, resume, Acknowledged, read_only=False, idempotent=False, uncertain_on_interrupt=True),
    Tool("detach_debugger", "Detach and clean up",
         "End a session: clear its breakpoints and requests, release its suspensions so the app runs on, close the "
         "connection (and any adb forward). Idempotent; if cleanup.status is failed, call it again to retry. "
         "Returns within timeoutMs: a slower cleanup goes on in the background (state detaching, cleanup.status "
         "pending); call it again to wait for the end. Never kills the app.",
         SessionInput, detach, Detached, read_only=False, idempotent=True, destructive=True, waits=True),
)

BY_NAME = {tool.name: tool for tool in TOOLS}

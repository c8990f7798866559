"""The debugger engine: breakpoints, stops with owned suspensions, steps, stack, locals and clean detach.

Layer: ``jdwp.debugger`` on ``jdwp.client``; knows nothing of MCP or Android (any JDWP stream works).
Contract: DESIGN.md §3; IDs and limits as §5 needs them.

- **Suspension ownership.** Every event set whose suspend policy is not NONE is one suspension we own.
  A stop holds exactly the suspension of its event set; resume and step release exactly that
  (``VirtualMachine.Resume`` for ALL, ``ThreadReference.Resume`` for EVENT_THREAD), never more.
  Class-prepare event sets that only serve binding are released as soon as binding is done. A hit of a
  breakpoint with a condition, hit count or logpoint (:mod:`.judge`) is judged under its EVENT_THREAD
  suspension; one that stops trades it for an owned ``VirtualMachine.Suspend``, unless it asked for
  ``suspend: "thread"`` (the stop then holds the event's own suspension of that thread).
- **Stops.** Line breakpoints, steps, exception breakpoints (:mod:`.exceptions`), a pause and a launch
  hold make them; the events of one event set form one stop. An event set that arrives while a stop is
  current is queued; resuming the current stop makes the next one current and publishes it.
- **Steps** (:mod:`.steps`) stay armed for their own thread across other threads' stops, which list them
  as ``pending_steps``; a breakpoint of the stepping thread reached first ends its step (``ended_step``).
- **References.** Stop, thread and frame IDs embed their stop's ID, and every ID starts with the session's
  prefix (:mod:`.ids`). Once a stop ends, an old ID fails with ``StaleReference`` before anything is sent to
  the VM; another session's ID is ``NotFound``, saying so.
- **Serialisation.** Changes of state (breakpoints, binding, resume, step, detach) hold one lock;
  inspection does not, and event delivery never waits for a caller.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, Literal, NoReturn

import trio

from .._groups import sole_exception
from ..client import JdwpClient
from ..protocol.commands.events import (
    BreakpointEvent,
    ClassPrepareEvent,
    Composite,
    ExceptionEvent,
    SingleStepEvent,
    VMDeathEvent,
    VMStartEvent,
)
from ..protocol.constants import SuspendPolicy
from ..protocol.errors import CommandError, ConnectionClosed, JdwpError
from ..protocol.types import Location, ThreadId
from ._gather import gather
from .breakpoints import Breakpoints
from .containers import read_container
from .errors import AlreadyPaused, EngineClosed, EvaluationFailed, InvalidArgument, NotFound, NotPaused, StaleReference
from .exceptions import describe_thrown, exception_request
from .expressions import parse_expression
from .expressions.context import FrameContext
from .expressions.evaluator import Evaluator
from .frames import FrameRef, frame_locals, stack_page
from .hits import Action, HitOptions, SuspendMode, plan_hits
from .holds import LAUNCH_NOTE, main_thread
from .ids import IdScheme
from .invoke import Calls, Invocation, refresh_frames, release_late
from .judge import HitJudge, hold_vm
from .model import (
    AnyBreakpoint,
    Breakpoint,
    BreakpointRejected,
    BreakpointVerified,
    Cleanup,
    EngineEvent,
    ExceptionBreakpoint,
    Locals,
    StackPage,
    StepKind,
    Stop,
    Stopped,
    StopReason,
    TerminalReason,
    Terminated,
)
from .objects import Layouts, ObjectPage, read_object
from .steps import DEPTHS, StepInFlight, Steps
from .symbols import Symbols
from .targets import class_target, file_target
from .threads import MAX_DEPTH, Threads, ThreadsPage, pause_stop
from .values import Summary, Values

__all__ = ["Debugger", "open_debugger", "suspended_threads"]

log = logging.getLogger("jdwp.debugger")

DETACH_DEADLINE = 10.0
EVALUATION_DEADLINE = 2.0  # DESIGN.md §7.6
START_GRACE = 2.0
_LAUNCHER = "Lsun/launcher/LauncherHelper;"  # loaded by the java launcher to load the main class
_ANDROID = "Ldalvik/system/VMRuntime;"
BEFORE_MAIN = ("no code has run in this thread yet: the VM is suspended at its start, before main; set "
               "breakpoints now, then resume")


@dataclasses.dataclass(frozen=True, slots=True)
class _Suspension:
    """One suspension we own: an event set's policy, and its thread for EVENT_THREAD."""

    policy: int
    thread: ThreadId


@dataclasses.dataclass
class _Found:
    """An event set, sorted: why it stops, in which thread and where, and the class prepares it carries."""

    reasons: list[StopReason] = dataclasses.field(default_factory=list)
    breakpoint_ids: list[str] = dataclasses.field(default_factory=list)
    thread: ThreadId | None = None
    location: Location | None = None
    step: StepInFlight | None = None  # our step that completed in this set
    exception: ExceptionEvent | None = None  # the thrown exception an exception breakpoint stops for
    prepares: list[ClassPrepareEvent] = dataclasses.field(default_factory=list)
    suspension: _Suspension = _Suspension(0, ThreadId(0))
    condition_error: str | None = None
    thread_only: bool = False  # a suspend "thread" breakpoint's stop: it holds the event's thread only


@dataclasses.dataclass
class _StopState:
    stop: Stop
    suspension: _Suspension
    threads: dict[str, ThreadId]
    frames: dict[str, FrameRef] = dataclasses.field(default_factory=dict)
    frame_counts: dict[ThreadId, int] = dataclasses.field(default_factory=dict)
    names: dict[ThreadId, str] = dataclasses.field(default_factory=dict)
    # A suspended frame's locals do not change during its stop (a method the debugger calls runs above it).
    locals: dict[str, Locals] = dataclasses.field(default_factory=dict)


class Debugger:
    """A debugging session over one JDWP connection. Create it with :func:`open_debugger`."""

    def __init__(self, vm: JdwpClient, id_prefix: str = "", *, launch: bool = False) -> None:
        self.vm = vm
        self._launch = launch  # a VM_START of a launched app is its launch stop (holds.py)
        self.symbols = Symbols(vm)
        self._ids = IdScheme(id_prefix)
        self.breakpoints = Breakpoints(vm, self.symbols, ids=self._ids)
        self.values = Values(vm, self.symbols, id_prefix)
        self._layouts = Layouts(self.values)
        self.values.prefetch_types = self._layouts.prefetch
        #: Whether expressions may call methods (app code runs): the server's --allow-invoke.
        self.allow_invoke = False
        self._calls = Calls(vm, None, self._late_return)
        self._steps = Steps(vm, self.symbols)
        self._threads = Threads(vm, self.symbols, self.values)
        self._judge = HitJudge(vm, self.symbols, self.values, self._layouts, self.breakpoints, self._publish)
        self._lock = trio.Lock()
        self._events_in, self.events = trio.open_memory_channel[EngineEvent](math.inf)
        self._current: _StopState | None = None
        self._queue: deque[_StopState] = deque()
        self._stops_issued = 0
        self._terminal: Terminated | None = None
        self._cleanup: Cleanup | None = None
        self._uncertain = False
        self._detaching = False
        self._detach_running: trio.Event | None = None
        self._handling = False
        self._handled = trio.Event()

    # --- state -------------------------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``running``, ``paused``, or the terminal ``detached``/``disconnected``/``failed``."""
        if self._terminal is not None:
            return {"detached": "detached", "failed": "failed"}.get(self._terminal.reason, "disconnected")
        return "paused" if self._current is not None else "running"

    @property
    def current_stop(self) -> Stop | None:
        return self._current.stop if self._current else None

    @property
    def terminal(self) -> Terminated | None:
        """Why the engine ended, or ``None`` while it runs."""
        return self._terminal

    @property
    def cleanup(self) -> Cleanup | None:
        return self._cleanup

    @property
    def uncertain(self) -> bool:
        """True after a resume or step whose outcome is unknown: the caller should detach."""
        return self._uncertain

    def list_breakpoints(self) -> list[AnyBreakpoint]:
        return self.breakpoints.all()

    def _check_open(self) -> None:
        if self._terminal is not None:
            raise EngineClosed(f"the debugging session has ended: {self._terminal.message}", self._terminal.reason)

    # --- breakpoints -------------------------------------------------------------------------------

    async def set_breakpoint(self, class_name: str | None = None, line: int | None = None, *,
                             file: str | None = None, condition: str | None = None, hit_count: int | None = None,
                             action: Action = "stop", log_message: str | None = None,
                             max_hits: int | None = None, suspend: SuspendMode = "all") -> Breakpoint:
        """Break at ``line`` (1-based) of a class or of a source file, in every class loader.

        ``class_name`` (binary name, ``com.x.Foo``) covers the class and the classes nested in it from the
        same source file (``Foo$Inner``, ``Foo$1``, ``Foo$Companion``, lambdas); ``file`` (``Foo.kt``, or a
        path such as ``app/src/main/java/com/x/Foo.kt``) covers every class of that source file. Give one.
        A line in a Kotlin inline function's body also binds where it was inlined (``inlined`` locations).

        ``condition`` (an expression, DESIGN.md §7.3) stops only where it is true; ``hit_count`` ignores the
        first ``hit_count - 1`` hits; ``action="log"`` makes a logpoint: each hit publishes a ``LogpointHit``
        (``log_message`` with ``{expression}`` parts, or frame 0's locals) and the thread runs on, until
        ``max_hits`` (default 100, at most 10,000) spend it. ``suspend="thread"`` holds only the hitting
        thread at a stop. With any of these, a hit holds only its thread while it is judged (:mod:`.judge`).

        Returns the breakpoint: ``verified`` with its locations, ``pending`` until a class of it loads, or
        ``rejected`` (with ``reason``) while the classes loaded have no code at the line or no line table
        (it stays armed for classes loaded later).

        Raises:
            InvalidArgument, LimitReached: bad input (a condition or template that does not parse:
                ``ExpressionSyntaxError`` with the column) or too many breakpoints; nothing changed.
            EngineClosed: the session has ended.
        """
        options = HitOptions(condition, hit_count, action, log_message, max_hits, suspend)
        plan = plan_hits(options) if options != HitOptions() else None
        if (class_name is None) == (file is None):
            raise InvalidArgument("give exactly one of className (com.example.Foo) or file (Foo.kt or a path)")
        target = class_target(class_name) if class_name is not None else file_target(file)  # type: ignore[arg-type]
        if line is None:
            raise InvalidArgument("line is required: a 1-based source line")
        self._check_open()
        async with self._lock:
            self._check_open()
            return await self.breakpoints.add(target, line, plan)

    async def set_exception_breakpoint(self, exception_class: str | None = None, caught: bool = False,
                                       uncaught: bool = True) -> ExceptionBreakpoint:
        """Stop where a throwable of ``exception_class`` or a subclass (``None``: any) is thrown, when it will be
        ``caught`` by Java code and/or ``uncaught``. Stops have reason ``exception`` and ``Stop.exception``.

        Returns it ``verified``, or ``pending`` until a class of that name loads (then it binds in every
        loader that loads one: event ``breakpoint_verified``). It counts towards the 100 breakpoints.

        Raises:
            InvalidArgument, LimitReached: a bad name, neither caught nor uncaught, or too many breakpoints;
                nothing changed.
            EngineClosed: the session has ended.
        """
        request = exception_request(exception_class, caught, uncaught)
        self._check_open()
        async with self._lock:
            self._check_open()
            return await self.breakpoints.exceptions.add(request)

    async def remove_breakpoint(self, breakpoint_id: str) -> None:
        """Clear one breakpoint's requests; removing it twice is fine.

        Raises:
            NotFound: an ID this session never issued.
            EngineClosed: the session has ended.
        """
        self._check_open()
        async with self._lock:
            await self.breakpoints.remove(breakpoint_id)

    # --- references --------------------------------------------------------------------------------

    def _stop_for(self, stop_id: str) -> _StopState:
        self._check_open()
        current = self._current
        if current is not None and current.stop.stop_id == stop_id:
            return current
        if self._is_issued(stop_id):
            raise StaleReference(f"stop {stop_id} has ended (resumed, stepped or detached); "
                                 "wait for the next stop and use its IDs")
        if current is None:
            raise NotPaused(f"the VM is not stopped, and {stop_id!r} is not a stop of this session")
        raise NotFound(f"{stop_id!r} is not a stop of this session")

    def _is_issued(self, handle: str) -> bool:
        """Whether a stop, thread or frame ID names a stop this session issued.

        Raises:
            NotFound: an ID of another session (another prefix).
        """
        number = self._ids.number(handle, "stop")
        return number is not None and number <= self._stops_issued

    def issued(self, handle: str) -> bool:
        """Whether a stop, thread or frame ID names a stop of this session (current, ended or stale)."""
        try:
            return self._is_issued(handle)
        except NotFound:
            return False

    def _thread_for(self, state: _StopState, thread_id: str) -> ThreadId:
        thread = state.threads.get(thread_id)
        if thread is None:
            self._raise_for_handle(state, thread_id, "thread")
        return thread

    def _raise_for_handle(self, state: _StopState, handle: str, what: str) -> NoReturn:
        stop_part = handle.partition(".")[0]
        if self._is_issued(stop_part) and stop_part != state.stop.stop_id:
            raise StaleReference(f"{what} {handle} belongs to stop {stop_part}, which has ended")
        thread = state.threads.get(handle.rpartition(".")[0]) if what == "frame" else None
        if thread is not None and thread not in state.frame_counts:
            raise NotFound(f"{handle!r} was not listed: frame IDs come from the stack listing; list this thread's "
                           "stack for this stop first (get_debugger_stack) and use its frame_id values")
        if thread is not None:
            raise NotFound(f"{handle!r} is not a frame listed for this stop; list the stack (get_debugger_stack, "
                           "with an offset for deeper frames) and use its frame_id values")
        hint = "; other threads' IDs come from get_debugger_threads with this stopId" if what == "thread" else ""
        raise NotFound(f"{handle!r} is not a {what} ID of the current stop{hint}")

    # --- inspection --------------------------------------------------------------------------------

    async def stack(self, stop_id: str, thread_id: str, offset: int = 0, limit: int = 20) -> StackPage:
        """Frames ``offset`` … ``offset+limit-1`` of a stopped thread (``total`` is capped at 1000).

        Raises:
            StaleReference, NotFound, NotPaused: the IDs are not of the current stop.
            InvalidArgument: ``offset`` < 0 or ``limit`` outside 1..100.
        """
        if offset < 0 or not 1 <= limit <= 100:
            raise InvalidArgument("offset must be >= 0 and limit between 1 and 100")
        state = self._stop_for(stop_id)
        thread = self._thread_for(state, thread_id)
        page, handles, count = await stack_page(self.vm, self.symbols, thread, offset, limit,
                                                f"{thread_id}.f{{}}", state.frame_counts.get(thread))
        if self._current is state:
            state.frames.update(handles)
            state.frame_counts[thread] = count  # a suspended thread's stack does not change
        return page

    async def locals(self, stop_id: str, frame_id: str) -> Locals:
        """The frame's live local variables (at most 100) and ``this``; values only on this request.

        Raises:
            StaleReference, NotFound, NotPaused: the IDs are not of the current stop.
        """
        state = self._stop_for(stop_id)
        ref = state.frames.get(frame_id)
        if ref is None:
            self._raise_for_handle(state, frame_id, "frame")
        return await self._locals_of(state, frame_id, ref)

    async def _locals_of(self, state: _StopState, frame_id: str, ref: FrameRef) -> Locals:
        found = state.locals.get(frame_id)
        if found is None:
            found = state.locals[frame_id] = await frame_locals(self.vm, self.symbols, ref, self.values)
        return found

    async def object(self, stop_id: str, object_id: str, offset: int = 0, limit: int | None = None,
                     view: str = "auto") -> ObjectPage:
        """A page of an object's fields, an array's elements or a string's text, as of the current stop.

        ``limit`` defaults to 50 fields, 100 elements or 8192 UTF-16 units (at most 200, 1000, 65,536).
        Nothing of the app runs: fields are read, never methods called.

        Raises:
            StaleReference, NotFound, NotPaused: ``stop_id`` is not the current stop; ``object_id`` is not
                a handle of this session, or its object was collected (StaleReference).
            InvalidArgument: a bad view, offset or limit.
        """
        self._stop_for(stop_id)
        return await read_object(self.values, self._layouts, object_id, offset, limit, view, read_container)

    async def evaluate(self, stop_id: str, frame_id: str, expression: str) -> Summary:
        """The value of a read-only expression (DESIGN.md §7.3) in the frame, as of the current stop.

        Nothing of the app runs: locals, fields, statics and elements are read; method calls are refused
        unless :attr:`allow_invoke` is set (then they run on the stop's event thread: :mod:`.invoke`).
        The whole evaluation has a deadline of :data:`EVALUATION_DEADLINE` seconds.

        Raises:
            ExpressionSyntaxError: (an ``InvalidArgument``) the text does not parse; it has the column.
            EvaluationFailed: it parsed but cannot be evaluated here (unknown name, null dereference, index
                out of range, type mismatch, a method call, or past the deadline).
            StaleReference, NotFound, NotPaused: the IDs are not of the current stop, or an object it read
                was collected.
        """
        state = self._stop_for(stop_id)
        ref = state.frames.get(frame_id)
        if ref is None:
            self._raise_for_handle(state, frame_id, "frame")
        tree = parse_expression(expression)
        self._calls.check_free(ref.thread)
        invocation = Invocation.on(self._calls, stop_id, ref.thread, state.suspension.thread,
                                   state.stop.reasons) if self.allow_invoke else None
        context = FrameContext(ref.location.class_id, partial(self._locals_of, state, frame_id, ref), invocation)
        made = self._calls.made
        try:
            with trio.move_on_after(EVALUATION_DEADLINE) as scope:
                return await Evaluator(self.values, self._layouts, context).summary(tree)
        finally:
            if self._calls.made != made:
                await refresh_frames(self.vm, state.frames, ref.thread)
        self._calls.check_returned(ref.thread)
        assert scope.cancelled_caught
        raise EvaluationFailed(f"the evaluation took longer than {EVALUATION_DEADLINE:g} s and was abandoned; "
                               "nothing was changed (try a simpler expression)")

    async def threads(self, stop_id: str | None = None, stack_depth: int = 0) -> ThreadsPage:
        """Every thread (at most 1000): name, status, suspended, group; with the current ``stop_id`` also
        stop-scoped thread IDs (for stack, locals and step), ``stack_depth`` top frames (at most 50),
        monitors and ``deadlocks`` (:mod:`.threads`).

        Raises:
            InvalidArgument: ``stack_depth`` outside 0..50, or given without ``stop_id``.
            StaleReference, NotFound, NotPaused: ``stop_id`` is not the current stop.
        """
        if not 0 <= stack_depth <= MAX_DEPTH or (stack_depth and stop_id is None):
            raise InvalidArgument(f"stackDepth must be between 0 and {MAX_DEPTH}, and needs a stopId (frames of "
                                  "running threads cannot be read)")
        if stop_id is None:
            self._check_open()
            return (await self._threads.listing()).page
        state = self._stop_for(stop_id)
        listing = await self._threads.listing(stop_id, stack_depth)
        if self._current is state:  # the stop lasted: what it listed is valid while it lasts
            for handle, thread in listing.threads.items():
                state.threads.setdefault(handle, thread)
            state.names.update(listing.names)
            state.frames.update(listing.frames)
            state.frame_counts.update(listing.frame_counts)
        return listing.page

    # --- pause, resume and step ----------------------------------------------------------------------

    async def pause(self) -> Stop:
        """Suspend the whole VM (one ``VirtualMachine.Suspend``, 1,8, that we own) as a stop with reason
        ``pause`` and no thread of its own; resume releases exactly it. Event sets arriving meanwhile queue.

        Raises:
            AlreadyPaused: a stop is current; nothing was sent.
            JdwpError: the VM did not confirm; the state is uncertain (:attr:`uncertain`).
        """
        self._check_open()
        async with self._lock:
            self._check_open()
            if self._detaching:  # detach releases only what it found: a suspension made now would stay
                raise EngineClosed("the session is detaching; nothing was paused", "detached")
            if self._current is not None:
                raise AlreadyPaused(f"already paused at stop {self._current.stop.stop_id}; inspect it, or "
                                    "resume_debugger it and pause again")
            try:
                await self.vm.suspend()
            except JdwpError:
                self._uncertain = True
                raise
            self._stops_issued += 1
            state = _StopState(pause_stop(self._ids.stop(self._stops_issued)), _Suspension(SuspendPolicy.ALL,
                                                                                           ThreadId(0)), {})
            self._make_current(state)
            return state.stop

    async def _late_return(self, thread: ThreadId, stop_id: str) -> None:
        current = self._current.stop.stop_id if self._current is not None else None
        if self._current is not None and current == stop_id:
            await refresh_frames(self.vm, self._current.frames, thread)
        await release_late(self.vm, thread, stop_id, current, self._terminal is not None or self._detaching)


    async def resume(self, stop_id: str) -> None:
        """Release the current stop's suspension; a queued stop then becomes current.

        Raises:
            StaleReference, NotFound, NotPaused: ``stop_id`` is not the current stop.
            JdwpError: the VM did not confirm; the state is uncertain (:attr:`uncertain`).
        """
        async with self._lock:
            state = self._stop_for(stop_id)
            await self._release_current(state)

    async def step(self, stop_id: str, thread_id: str, kind: StepKind, *, filters: bool = True) -> None:
        """Step one line (``into``/``over``/``out``) on a thread of the current stop, then let it run.

        Returns once the VM accepted the step; the stop it leads to arrives as an event later. Other
        threads' stops may come first (they list this step in ``pending_steps``; resuming them lets it go
        on); a breakpoint of this thread reached first ends it (that stop has ``ended_step``).
        ``filters`` (default on) skips the JDK's, Kotlin's and Android's internals and synthetic
        methods (:mod:`.steps`).

        Raises:
            InvalidArgument: an unknown kind.
            StaleReference, NotFound, NotPaused: the IDs are not of the current stop.
        """
        if kind not in DEPTHS:
            raise InvalidArgument(f"step kind must be into, over or out, not {kind!r}")
        async with self._lock:
            state = self._stop_for(stop_id)
            thread = self._thread_for(state, thread_id)
            name = state.names.get(thread) or state.stop.thread_name or f"thread {thread:x}"
            await self._steps.start(thread, name, kind, filters)
            await self._release_current(state)

    async def _release_current(self, state: _StopState) -> None:
        self._current = None  # every ID of this stop is stale from here on, whatever the VM says
        try:
            await self._release(state.suspension)
        except JdwpError:
            self._uncertain = True
            raise
        self._promote()

    async def _release(self, suspension: _Suspension) -> None:
        if suspension.policy == SuspendPolicy.ALL:
            await self.vm.resume()
        elif suspension.policy == SuspendPolicy.EVENT_THREAD:
            await self.vm.thread_reference.resume(suspension.thread)

    def _promote(self) -> None:
        if self._current is None and self._queue:
            self._make_current(self._queue.popleft())

    def _make_current(self, state: _StopState) -> None:
        # Steps pending are told as of now: a queued stop may become current after other steps began.
        state.stop = dataclasses.replace(state.stop, pending_steps=self._steps.pending(state.suspension.thread))
        self._current = state
        self._publish(Stopped(state.stop))

    async def hold_at_launch(self, *, vm_start_within: float = 0.0) -> Stop:
        """Hold a launched app before its code runs: the current ``launch`` stop (``am start --suspend``'s
        VM_START), or one owned ``VirtualMachine.Suspend`` (1,8) made into a stop of reason ``launch`` on
        the main thread. ``resume`` releases it like any stop. ``vm_start_within``: seconds to wait for a
        VM_START first (ART sends it once the app's thread sees the debugger, polling every 100 ms).

        Raises:
            EngineClosed: the session has ended. JdwpError: the VM did not confirm the suspension.
        """
        with trio.move_on_after(vm_start_within):
            while vm_start_within and self._current is None and self._terminal is None:
                await self._handled.wait()
        async with self._lock:
            self._check_open()
            if self._current is not None:
                return self._current.stop
            await self.vm.suspend()
            thread = await main_thread(self.vm)
            found = _Found(reasons=["launch"], thread=thread, suspension=_Suspension(SuspendPolicy.ALL, thread))
            try:
                state = await self._stop_of(found)
            except JdwpError:
                await self._release(found.suspension)
                raise
            assert state is not None  # only a filtered step makes no stop
            self._make_current(state)
            return state.stop

    # --- events from the VM ------------------------------------------------------------------------

    async def _run(self) -> None:
        """Consume the VM's event sets until the connection ends; never raises."""
        reason: TerminalReason = "disconnected"
        try:
            async for event_set in self.vm.events():
                if any(isinstance(e, VMDeathEvent) for e in event_set.events):
                    reason = "vm_death"
                self._handling = True
                try:
                    await self._handle(event_set)
                except ConnectionClosed:
                    break
                except JdwpError as exc:
                    log.warning("handling an event set failed: %s", exc)
                finally:
                    self._handling = False
                    self._handled.set()
                    self._handled = trio.Event()
        except Exception as exc:  # a bug of ours: end the session rather than leave it half alive
            log.exception("the debugger's event loop failed")
            self._terminate("failed", f"internal error: {exc!r}")
            return
        if self._detaching:
            self._terminate("detached", "detached by the client")
            return
        error = self.vm.terminal_error
        why = "the VM died" if reason == "vm_death" else f"the connection ended: {error}"
        self._terminate(reason, why)

    async def _handle(self, event_set: Composite) -> None:
        async with self._lock:
            if self._terminal is not None:
                return
            found = self._classify(event_set)
            if self._detaching:  # an event set that was on its way when we cleared our requests: let it go
                await self._release(found.suspension)
                return
            try:
                for prepare in found.prepares:
                    for changed in await self.breakpoints.on_class_prepare(prepare):
                        self._publish(BreakpointVerified(changed) if changed.status == "verified"
                                      else BreakpointRejected(changed))
                if found.breakpoint_ids:
                    await self._judge_hits(found)
                state = await self._stop_of(found) if found.reasons else None
            except CommandError:
                # The suspension is ours and no stop holds it: never leave the VM suspended behind a failure.
                await self._release(found.suspension)
                raise
            if state is None:
                await self._release(found.suspension)
            elif self._current is None:
                self._make_current(state)
            else:
                self._queue.append(state)

    async def _judge_hits(self, found: _Found) -> None:
        """Drop the breakpoints whose hit does not stop (:mod:`.judge`); a judged hit that stops with SUSPEND_ALL
        semantics trades its EVENT_THREAD suspension for an owned VM suspension (:func:`.judge.hold_vm`)."""
        verdict = await self._judge.judge(found.breakpoint_ids, found.suspension.thread, found.location)
        found.breakpoint_ids, found.condition_error = verdict.stopping, verdict.condition_error
        if not verdict.stopping:
            found.reasons = [r for r in found.reasons if r != "breakpoint"]
        if found.reasons and found.suspension.policy == SuspendPolicy.EVENT_THREAD:
            found.thread_only = verdict.hold == "thread"
            if verdict.hold == "all":
                await hold_vm(self.vm, found.suspension.thread)
                found.suspension = _Suspension(SuspendPolicy.ALL, found.suspension.thread)

    def _classify(self, event_set: Composite) -> _Found:
        """What an event set is to us: the reasons it stops for (events of requests not ours are ignored)."""
        found = _Found()
        for event in event_set.events:
            if isinstance(event, BreakpointEvent):
                owner = self.breakpoints.owner_of(event.request_id)
                if owner is None:
                    continue
                found.reasons.append("breakpoint")
                found.breakpoint_ids.append(owner)
            elif isinstance(event, ExceptionEvent):
                owner = self.breakpoints.exceptions.owner_of(event.request_id)
                if owner is None:
                    continue
                found.reasons.append("exception")
                found.breakpoint_ids.append(owner)
                found.exception = found.exception or event
            elif isinstance(event, SingleStepEvent):
                step = self._steps.of_request(event.request_id)
                if step is None:
                    continue
                found.reasons.append("step")
                found.step = step
            elif isinstance(event, VMStartEvent):
                if event_set.suspend_policy == SuspendPolicy.NONE:
                    continue
                found.reasons += ["launch", "vm_start"] if self._launch else ["vm_start"]
            elif isinstance(event, ClassPrepareEvent):
                if self.breakpoints.is_prepare_request(event.request_id):
                    found.prepares.append(event)
                continue
            else:
                continue
            if found.thread is None:
                found.thread = event.thread
                found.location = getattr(event, "location", None)
        # A set of a request cleared meanwhile (detach) still suspended its thread: EVENT_THREAD releases that one.
        stray = next((t for t in (getattr(e, "thread", None) for e in event_set.events) if isinstance(t, int)), 0)
        thread = found.thread if found.thread is not None else (
            found.prepares[0].thread if found.prepares else ThreadId(stray))
        found.suspension = _Suspension(event_set.suspend_policy, thread)
        return found

    async def _stop_of(self, found: _Found) -> _StopState | None:
        """The stop an event set makes, or ``None`` when a filtered step stepped on past a synthetic method."""
        thread = found.suspension.thread
        own = self._steps.of_thread(thread)
        ended: StepKind | None = None
        if own is not None:  # its thread stops: the step ends, completed or cut short by a breakpoint
            await self._steps.end(own)
            ended = None if own is found.step else own.kind
        location = found.location
        if location is None:  # VM start: the thread has not run yet; describe its top frame if any
            frames = await self.vm.thread_reference.frames(thread, 0, -1) if thread else []
            location = frames[0].location if frames else None
        thunks: list[Callable[[], Awaitable[Any]]] = [
            lambda: self.vm.thread_reference.name(thread),
            lambda: self.symbols.describe([location] if location else []),
            lambda: self._steps.drop_ended_threads(thread)]
        if found.exception is not None:
            thunks.append(partial(describe_thrown, self.values, self._layouts, self.symbols, found.exception))
        name, positions, _, *thrown = await gather(thunks)
        if found.step is not None and found.reasons == ["step"] and location is not None:
            if await self._steps.step_past_synthetic(found.step, location):
                return None
        self._stops_issued += 1
        stop_id = self._ids.stop(self._stops_issued)
        thread_handle = f"{stop_id}.t{thread:x}"
        position = positions[0] if positions else None
        note = LAUNCH_NOTE if "launch" in found.reasons else BEFORE_MAIN if position is None else None
        stop = Stop(stop_id, tuple(dict.fromkeys(found.reasons)), thread_handle, name, position,
                    tuple(dict.fromkeys(found.breakpoint_ids)), ended_step=ended, note=note,
                    condition_error=found.condition_error, suspended="thread" if found.thread_only else None,
                    exception=thrown[0] if thrown else None)
        return _StopState(stop, found.suspension, {thread_handle: thread}, names={thread: name})

    def _publish(self, event: EngineEvent) -> None:
        self._events_in.send_nowait(event)

    def _terminate(self, reason: TerminalReason, message: str) -> None:
        if self._terminal is not None:
            return
        self._terminal = Terminated(reason, message)
        self._current = None
        self._queue.clear()
        self._publish(self._terminal)
        self._events_in.close()
        self._handled.set()  # nothing more will be handled: wake whoever waits for that

    # --- detach ------------------------------------------------------------------------------------

    async def detach(self) -> Cleanup:
        """Clear our requests, release our suspensions, ``VirtualMachine.Dispose``, close.

        Runs under its own 10 s deadline, shielded from the caller's cancellation. Idempotent: a call
        while another runs waits for it and returns its result; a later call returns the first result,
        or retries a cleanup that failed while the connection is still open (over a closed one there is
        nothing left to try, and the failure stands).
        """
        if self._detach_running is not None:
            with trio.CancelScope(shield=True):
                await self._detach_running.wait()
        if self._cleanup is not None and (self._cleanup.status == "complete" or self.vm.is_closed):
            return self._cleanup
        self._detaching = True
        self._detach_running = running = trio.Event()
        try:
            with trio.CancelScope(shield=True):
                with trio.move_on_after(DETACH_DEADLINE) as deadline:
                    cleanup = await self._detach()
                if deadline.cancelled_caught:
                    await self.vm.aclose()
                    cleanup = Cleanup("failed", "unknown", ("unconfirmed: requests, suspensions",),
                                      (f"cleanup did not finish within {DETACH_DEADLINE:g} s",))
            self._cleanup = cleanup
            self._terminate("detached", "detached by the client")
        finally:
            self._detach_running = None
            running.set()
        return cleanup

    async def _detach(self) -> Cleanup:
        if self._terminal is not None or self.vm.is_closed:
            await self.vm.aclose()
            # Nothing can be cleaned over a lost connection, and nothing proves the app runs.
            return Cleanup("complete", "unknown")
        remaining: list[str] = []
        errors: list[str] = []
        try:
            async with self._lock:
                # Every request of ours is cleared in one round trip.
                _, cleared = await gather([self._steps.end_all, self.breakpoints.clear_all])
                remaining += cleared
                states = ([self._current] if self._current else []) + list(self._queue)
                self._current = None
                self._queue.clear()
            for state in states:
                try:
                    await self._release(state.suspension)
                except CommandError as exc:
                    errors.append(f"releasing {state.stop.stop_id}: {exc}")
            # Every event our requests caused came before the replies to clearing them; once those are
            # handled (released, since we are detaching), what is left suspended is not ours.
            await self._drain_events()
            running = await suspended_threads(self.vm) == 0
            await self.vm.dispose()
        except JdwpError as exc:  # lost, garbled (ProtocolError) or unanswered: nothing more can be confirmed
            await self.vm.aclose()
            return Cleanup("failed", "unknown", tuple(remaining) or ("unconfirmed",), (str(exc),))
        status: Literal["complete", "failed"] = "complete" if not errors and not remaining else "failed"
        return Cleanup(status, "running" if running else "unknown", tuple(remaining), tuple(errors))

    async def _await_start(self) -> None:
        """Make a pending VM_START stop current before the caller sees the engine.

        HotSpot started with ``suspend=y`` sends VM_START (suspend ALL) as soon as a debugger connects, from
        another thread than the one answering commands: it usually comes before the reply to ``IDSizes``,
        but not always. When it has not come and the launcher has not loaded the main class yet
        (``sun.launcher.LauncherHelper`` is not loaded, and this is not an Android VM), it is due: wait for
        it, up to :data:`START_GRACE` seconds. A running VM costs one round trip here.
        """
        await self._drain_events()
        if self._current is not None or self._terminal is not None:
            return
        try:
            loaded = await gather([partial(self.vm.classes_by_signature, _LAUNCHER),
                                   partial(self.vm.classes_by_signature, _ANDROID)])
        except JdwpError:
            return  # a VM that cannot say is taken as running
        if any(loaded):
            return
        with trio.move_on_after(START_GRACE):
            while self._current is None and self._terminal is None:
                await self._handled.wait()

    async def _drain_events(self) -> None:
        while self._terminal is None and (self._handling or self.vm.statistics()["buffered_events"]):
            await self._handled.wait()

async def suspended_threads(vm: JdwpClient) -> int | None:
    """How many threads of the VM are suspended (asked of every thread at once), or ``None`` when a thread
    ended while we asked. Zero is the evidence for "the app runs" that detach and its retry report.
    """
    try:
        threads = await vm.all_threads()
        counts = await gather([partial(vm.thread_reference.suspend_count, t) for t in threads])
    except CommandError:
        return None  # no proof either way
    return sum(1 for count in counts if count)


@asynccontextmanager
async def open_debugger(vm: JdwpClient, *, id_prefix: str = "", launch: bool = False) -> AsyncIterator[Debugger]:
    """Run a :class:`Debugger` over an open client; detach when the block exits (if not done already).

    ``id_prefix`` (``"s3-"``: up to 12 lowercase letters or digits and a dash) starts every ID the
    session issues, so IDs stay unique among several sessions. The engine is handed over once the event
    sets that came with the connection are handled: a JVM started with ``suspend=y`` has its ``vm_start``
    stop current when this returns. ``launch`` marks an app started to be debugged: its VM_START stop
    has reason ``launch`` (see :meth:`Debugger.hold_at_launch`).
    """
    debugger = Debugger(vm, id_prefix, launch=launch)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(debugger._run)
            debugger._calls = Calls(vm, nursery, debugger._late_return)
            try:
                await debugger._await_start()
                yield debugger
            finally:
                await debugger.detach()
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        raise sole_exception(group)  # noqa: B904 - the group is what we unwrap

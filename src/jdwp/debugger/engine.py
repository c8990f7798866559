"""The debugger engine: breakpoints, stops with owned suspensions, steps, stack, locals and clean detach.

Layer: ``jdwp.debugger`` on ``jdwp.client``; knows nothing of MCP or Android (any JDWP stream works).
Contract: DESIGN.md §3; IDs and limits as §5 needs them.

- **Suspension ownership.** Every event set whose suspend policy is not NONE is one suspension we own.
  A stop holds exactly the suspension of its event set; resume and step release exactly that
  (``VirtualMachine.Resume`` for ALL, ``ThreadReference.Resume`` for EVENT_THREAD), never more.
  Class-prepare event sets that only serve binding are released as soon as binding is done.
- **Stops.** The events of one event set form one stop. An event set that arrives while a stop is
  current is queued; resuming the current stop makes the next one current and publishes it.
- **References.** Stop, thread and frame IDs embed their stop's ID. Once that stop ends, an old ID fails
  with ``StaleReference`` before anything is sent to the VM.
- **Serialisation.** Changes of state (breakpoints, binding, resume, step, detach) hold one lock;
  inspection does not, and event delivery never waits for a caller.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Literal

import trio

from .._groups import sole_exception
from ..client import JdwpClient
from ..protocol.commands.events import (
    BreakpointEvent,
    ClassPrepareEvent,
    ClassUnloadEvent,
    Composite,
    Count,
    SingleStepEvent,
    Step,
    VMDeathEvent,
    VMStartEvent,
)
from ..protocol.constants import EventKind, StepDepth, StepSize, SuspendPolicy
from ..protocol.errors import CommandError, ConnectionClosed, JdwpError
from ..protocol.types import Location, ThreadId
from ._gather import gather
from .breakpoints import Breakpoints
from .errors import EngineClosed, InvalidArgument, NotFound, NotPaused, StaleReference
from .inspect import FrameRef, frame_locals, stack_page
from .model import (
    Breakpoint,
    BreakpointRejected,
    BreakpointVerified,
    Cleanup,
    EngineEvent,
    Locals,
    SourcePosition,
    StackPage,
    StepKind,
    Stop,
    Stopped,
    StopReason,
    TerminalReason,
    Terminated,
)
from .symbols import Symbols

__all__ = ["Debugger", "open_debugger"]

log = logging.getLogger("jdwp.debugger")

DETACH_DEADLINE = 10.0
_DEPTHS = {"into": StepDepth.INTO, "over": StepDepth.OVER, "out": StepDepth.OUT}


@dataclasses.dataclass(frozen=True, slots=True)
class _Suspension:
    """One suspension we own: an event set's policy, and its thread for EVENT_THREAD."""

    policy: int
    thread: ThreadId


@dataclasses.dataclass
class _StopState:
    stop: Stop
    suspension: _Suspension
    threads: dict[str, ThreadId]
    frames: dict[str, FrameRef] = dataclasses.field(default_factory=dict)
    frame_counts: dict[ThreadId, int] = dataclasses.field(default_factory=dict)


class Debugger:
    """A debugging session over one JDWP connection. Create it with :func:`open_debugger`."""

    def __init__(self, vm: JdwpClient) -> None:
        self.vm = vm
        self.symbols = Symbols(vm)
        self.breakpoints = Breakpoints(vm, self.symbols)
        self._lock = trio.Lock()
        self._events_in, self.events = trio.open_memory_channel[EngineEvent](math.inf)
        self._current: _StopState | None = None
        self._queue: deque[_StopState] = deque()
        self._stops_issued = 0
        self._step: tuple[int, ThreadId] | None = None  # (request ID, thread) of the step in flight
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

    def list_breakpoints(self) -> list[Breakpoint]:
        return self.breakpoints.all()

    def _check_open(self) -> None:
        if self._terminal is not None:
            raise EngineClosed(f"the debugging session has ended: {self._terminal.message}", self._terminal.reason)

    # --- breakpoints -------------------------------------------------------------------------------

    async def set_breakpoint(self, class_name: str, line: int) -> Breakpoint:
        """Break at ``line`` (1-based) of ``class_name`` (binary name), in every class loader.

        Returns the breakpoint: ``verified`` with its locations, ``pending`` until the class loads, or
        ``rejected`` (with ``reason``) when the line has no code or the class no line table.

        Raises:
            InvalidArgument, LimitReached: bad input or too many breakpoints; nothing changed.
            EngineClosed: the session has ended.
        """
        self._check_open()
        async with self._lock:
            self._check_open()
            return await self.breakpoints.add(class_name, line)

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

    def _is_issued(self, stop_id: str) -> bool:
        prefix, _, number = stop_id.partition("-")
        return prefix == "stop" and number.isdigit() and 0 < int(number) <= self._stops_issued

    def _thread_for(self, state: _StopState, thread_id: str) -> ThreadId:
        thread = state.threads.get(thread_id)
        if thread is None:
            self._raise_for_handle(thread_id, "thread")
        return thread  # type: ignore[return-value]

    def _raise_for_handle(self, handle: str, what: str) -> None:
        stop_part = handle.partition(".")[0]
        if self._is_issued(stop_part) and (self._current is None or stop_part != self._current.stop.stop_id):
            raise StaleReference(f"{what} {handle} belongs to stop {stop_part}, which has ended")
        raise NotFound(f"{handle!r} is not a {what} ID of the current stop")

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
            self._raise_for_handle(frame_id, "frame")
        return await frame_locals(self.vm, self.symbols, ref)  # type: ignore[arg-type]

    # --- resume and step ---------------------------------------------------------------------------

    async def resume(self, stop_id: str) -> None:
        """Release the current stop's suspension; a queued stop then becomes current.

        Raises:
            StaleReference, NotFound, NotPaused: ``stop_id`` is not the current stop.
            JdwpError: the VM did not confirm; the state is uncertain (:attr:`uncertain`).
        """
        async with self._lock:
            state = self._stop_for(stop_id)
            await self._release_current(state)

    async def step(self, stop_id: str, thread_id: str, kind: StepKind) -> None:
        """Step one line (``into``/``over``/``out``) on a thread of the current stop, then let it run.

        Returns once the VM accepted the step; the stop it leads to arrives as an event later. A
        breakpoint hit first ends the step too.

        Raises:
            InvalidArgument: an unknown kind.
            StaleReference, NotFound, NotPaused: the IDs are not of the current stop.
        """
        depth = _DEPTHS.get(kind)
        if depth is None:
            raise InvalidArgument(f"step kind must be into, over or out, not {kind!r}")
        async with self._lock:
            state = self._stop_for(stop_id)
            thread = self._thread_for(state, thread_id)
            await self._clear_step()
            request_id = await self.vm.event_request.set(
                EventKind.SINGLE_STEP, SuspendPolicy.ALL, [Step(thread, StepSize.LINE, depth), Count(1)])
            self._step = (request_id, thread)
            await self._release_current(state)

    async def _release_current(self, state: _StopState) -> None:
        self._current = None  # every ID of this stop is stale from here on, whatever the VM says
        try:
            await self._release(state.suspension)
        except JdwpError:
            self._uncertain = True
            raise
        await self._promote()

    async def _release(self, suspension: _Suspension) -> None:
        if suspension.policy == SuspendPolicy.ALL:
            await self.vm.resume()
        elif suspension.policy == SuspendPolicy.EVENT_THREAD:
            await self.vm.thread_reference.resume(suspension.thread)

    async def _promote(self) -> None:
        if self._current is None and self._queue:
            self._current = self._queue.popleft()
            self._publish(Stopped(self._current.stop))

    async def _clear_step(self) -> None:
        if self._step is not None:
            request_id, _ = self._step
            self._step = None
            try:
                await self.vm.event_request.clear(EventKind.SINGLE_STEP, request_id)
            except CommandError as exc:
                log.debug("clearing step request %d: %s", request_id, exc)

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
        reasons: list[StopReason] = []
        breakpoint_ids: list[str] = []
        stop_thread: ThreadId | None = None
        stop_location = None
        prepares: list[ClassPrepareEvent] = []
        for event in event_set.events:
            if isinstance(event, BreakpointEvent):
                owner = self.breakpoints.owner_of(event.request_id)
                if owner is None:
                    continue
                reasons.append("breakpoint")
                breakpoint_ids.append(owner)
            elif isinstance(event, SingleStepEvent):
                if self._step is None or event.request_id != self._step[0]:
                    continue
                reasons.append("step")
            elif isinstance(event, VMStartEvent):
                if event_set.suspend_policy == SuspendPolicy.NONE:
                    continue
                reasons.append("vm_start")
            elif isinstance(event, ClassPrepareEvent):
                if self.breakpoints.is_prepare_request(event.request_id):
                    prepares.append(event)
                continue
            elif isinstance(event, ClassUnloadEvent):
                continue
            else:
                continue
            if stop_thread is None:
                stop_thread = event.thread
                stop_location = getattr(event, "location", None)
        suspension = _Suspension(event_set.suspend_policy, stop_thread or ThreadId(0))
        if prepares and stop_thread is None:
            suspension = _Suspension(event_set.suspend_policy, prepares[0].thread)
        async with self._lock:
            if self._terminal is not None:
                return
            if self._detaching:  # an event set that was on its way when we cleared our requests: let it go
                await self._release(suspension)
                return
            try:
                for prepare in prepares:
                    for changed in await self.breakpoints.on_class_prepare(prepare):
                        self._publish(BreakpointVerified(changed) if changed.status == "verified"
                                      else BreakpointRejected(changed))
                if reasons:
                    await self._clear_step()  # whatever stops next ends the step in flight
                    state = await self._new_stop(tuple(dict.fromkeys(reasons)), suspension, stop_location,
                                                 tuple(dict.fromkeys(breakpoint_ids)))
            except CommandError:
                # The suspension is ours and no stop holds it: never leave the VM suspended behind a failure.
                await self._release(suspension)
                raise
            if not reasons:
                await self._release(suspension)
                return
            if self._current is None:
                self._current = state
                self._publish(Stopped(state.stop))
            else:
                self._queue.append(state)

    async def _new_stop(self, reasons: tuple[StopReason, ...], suspension: _Suspension, location: Location | None,
                        breakpoint_ids: tuple[str, ...]) -> _StopState:
        self._stops_issued += 1
        stop_id = f"stop-{self._stops_issued}"
        thread = suspension.thread
        thread_handle = f"{stop_id}.t{thread:x}"
        if location is None:  # VM start: the thread has not run yet; describe its top frame if any
            frames = await self.vm.thread_reference.frames(thread, 0, -1) if thread else []
            location = frames[0].location if frames else None
        name, positions = await gather([lambda: self.vm.thread_reference.name(thread),
                                        lambda: self.symbols.describe([location] if location else [])])
        position = positions[0] if positions else SourcePosition("", "", None, None, -1)
        stop = Stop(stop_id, reasons, thread_handle, name, position, breakpoint_ids)
        return _StopState(stop, suspension, {thread_handle: thread})

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
                await self._clear_step()
                remaining += await self.breakpoints.clear_all()
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
            running = await self._threads_run_free()
            await self.vm.dispose()
        except JdwpError as exc:  # lost, garbled (ProtocolError) or unanswered: nothing more can be confirmed
            await self.vm.aclose()
            return Cleanup("failed", "unknown", tuple(remaining) or ("unconfirmed",), (str(exc),))
        status: Literal["complete", "failed"] = "complete" if not errors and not remaining else "failed"
        return Cleanup(status, "running" if running else "unknown", tuple(remaining), tuple(errors))

    async def _drain_events(self) -> None:
        while self._handling or self.vm.statistics()["buffered_events"]:
            await self._handled.wait()

    async def _threads_run_free(self) -> bool:
        """Evidence for "the app runs": no thread is left suspended (asked of every thread, at once)."""
        try:
            threads = await self.vm.all_threads()
            counts = await gather([partial(self.vm.thread_reference.suspend_count, t) for t in threads])
        except CommandError:
            return False  # a thread ended while we asked: no proof either way
        return all(count == 0 for count in counts)


@asynccontextmanager
async def open_debugger(vm: JdwpClient) -> AsyncIterator[Debugger]:
    """Run a :class:`Debugger` over an open client; detach when the block exits (if not done already)."""
    debugger = Debugger(vm)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(debugger._run)
            try:
                yield debugger
            finally:
                await debugger.detach()
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        raise sole_exception(group)  # noqa: B904 - the group is what we unwrap

"""The debugger engine: breakpoints, stops with owned suspensions, steps, stack, locals and clean detach.

Layer: ``jdwp.debugger`` on ``jdwp.client``; knows nothing of MCP or Android (any JDWP stream works).
Contract: docs/design.md §3; IDs and limits as §5 needs them.

- **Suspension ownership.** Every event set whose suspend policy is not NONE is one suspension we own.
  A stop holds exactly the suspension of its event set; resume and step release exactly that
  (``VirtualMachine.Resume`` for ALL, ``ThreadReference.Resume`` for EVENT_THREAD), never more.
  Class-prepare event sets that only serve binding are released as soon as binding is done. A hit of a
  breakpoint with a condition, hit count or logpoint (:mod:`.judge`) is judged under its EVENT_THREAD
  suspension; one that stops trades it for an owned ``VirtualMachine.Suspend``, unless it asked for
  ``suspend: "thread"`` (the stop then holds the event's own suspension of that thread).
- **Stops** (:mod:`.stops`). Line breakpoints, steps, exception breakpoints (:mod:`.exceptions`), a pause
  and a launch hold make them; the events of one event set form one stop (:mod:`.eventsets`). An event set
  that arrives while a stop is current is queued; resuming the current stop makes the next one current and
  publishes it — the next one still wanted: a queued stop whose breakpoints were removed, disabled, updated or
  spent meanwhile is released, never made current (:meth:`.stops.Stops.promote`).
- **Steps** (:mod:`.steps`) stay armed for their own thread across other threads' stops, which list them
  as ``pending_steps``; a breakpoint of the stepping thread reached first ends its step (``ended_step``).
- **Capture** (:mod:`.requests.capture`, read by :mod:`.events.capture`). Every stop of a thread carries frame 0's
  ``frame_id``; a request given ``capture`` (a breakpoint's, a step's, a resume's for the next stop) has its stop
  read its top frames, frame 0's locals and expressions as it is made. ``resume(run_to=...)`` sets a one-shot
  breakpoint (:mod:`.requests.run_to`), removed at the next stop.
- **References.** Stop, thread and frame IDs embed their stop's ID, and every ID starts with the session's
  prefix (:mod:`.ids`); the current stop's are read by :mod:`.inspection`. Once a stop ends, an old ID
  fails with ``StaleReference`` before anything is sent to the VM; another session's ID is ``NotFound``,
  saying so.
- **Serialisation.** Changes of state (breakpoints, binding, resume, step, detach: :mod:`.detach`) hold one
  lock; inspection does not, and event delivery never waits for a caller. Hits to judge that hold only their
  thread are judged outside the lock, several threads' at once (:meth:`Debugger._judge_apart`), which they
  take only to make a stop.
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Generic, TypeVar, cast

import trio

from .._groups import unwrap
from ..client import JdwpClient
from ..protocol.commands.events import Composite, VMDeathEvent
from ..protocol.constants import SuspendPolicy
from ..protocol.errors import CommandError, CommandTimeout, ConnectionClosed, JdwpError
from ..protocol.types import ThreadId
from ._held import Held
from .changes.frames import force_return, pop_for_restart
from .changes.reload import Reload, reload_classes
from .classes.lambdas import LambdaChoice
from .errors import AlreadyPaused, EngineClosed, InvalidArgument, NotFound, Unsupported
from .events.detach import DETACH_DEADLINE, clean_up
from .events.eventsets import EventSets, Found
from .events.holds import main_thread
from .events.judge import HitJudge
from .events.quick_hits import QuickHits
from .events.stops import Stops, StopState, Suspension, release, release_command, release_unconfirmed
from .events.vm_start import runs_already
from .inspection import Inspection
from .model import (
    Action,
    AnyBreakpoint,
    Breakpoint,
    BreakpointRejected,
    BreakpointVerified,
    Cleanup,
    EngineEvent,
    ExceptionBreakpoint,
    HitOptions,
    MethodBreakpoint,
    StepKind,
    Stop,
    SuspendMode,
    TerminalReason,
    Terminated,
    Watchpoint,
)
from .reading.coroutine_metadata import MetadataSources
from .reading.invoke import refresh_frames, release_late
from .reading.session import new_session
from .reading.threads import pause_stop
from .reading.values import Summary
from .requests.capture import Capture, CapturePlan, plan_capture
from .requests.exceptions import exception_request
from .requests.hits import KEEP, HitPlan, Keep, allowing_calls, plan_of
from .requests.manager import Requests
from .requests.places import MethodPlace, breakpoint_place
from .requests.run_to import RunTo, RunTos
from .requests.steps import DEPTHS, Steps

__all__ = ["Debugger", "open_debugger"]

log = logging.getLogger("jdwp.debugger")

START_GRACE = 2.0
#: Sets of hits judged at once (each its own task); beyond that a set is judged in turn, under the lock.
JUDGED_AT_ONCE = 64

T = TypeVar("T")


class _Option(Generic[T]):
    """A :class:`Debugger` attribute kept in its session's :class:`.reading.session.Options`, where the
    collaborators read it: read and set as a plain attribute of the debugger."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, debugger: Debugger, owner: type | None = None) -> T:
        return cast(T, getattr(debugger._session.options, self._name))

    def __set__(self, debugger: Debugger, value: T) -> None:
        setattr(debugger._session.options, self._name, value)


class Debugger:
    """A debugging session over one JDWP connection. Create it with :func:`open_debugger`.

    Its public methods, and where each is written:

    - state: ``state``, ``current_stop``, ``terminal``, ``cleanup``, ``uncertain``, ``events`` (here);
    - breakpoints: ``list_breakpoints``, ``issued``, ``set_breakpoint``, ``set_exception_breakpoint``,
      ``remove_breakpoint`` (here; the requests: :mod:`.requests.breakpoints`, :mod:`.requests.exceptions`);
    - running: ``pause``, ``resume``, ``step``, ``hold_at_launch``, ``detach`` (here; the stops are kept by
      :class:`.events.stops.Stops`);
    - reading a stop: ``stack``, ``locals``, ``object``, ``evaluate``, ``evaluate_each``, ``set_value``,
      ``threads``, ``diagnosis``: the methods of the :class:`.inspection.Inspection` it holds (``inspection.py``,
      next to this module; their docstrings are there), over the readers of :mod:`.reading`.

    Its collaborators share one :class:`.reading.session.Session` (the connection, the class facts, the
    value readers, the lock), made here and given to each as it is built.
    """

    def __init__(self, vm: JdwpClient, id_prefix: str = "", *, launch: bool = False,
                 nursery: trio.Nursery | None = None) -> None:
        self._session = session = new_session(vm, id_prefix, nursery=nursery, late_return=self._late_return)
        self._gate = session.gate
        self._lock = session.gate.lock
        self.vm = vm
        self.symbols = session.symbols
        self.values = session.values
        #: Where coroutines' @DebugMetadata comes from besides invocation: set ``class_path`` (the server's
        #: --class-path) to read the app's classes on the host.
        self.coroutines = MetadataSources(self.values, session.layouts, None)
        self._steps = Steps(vm, self.symbols, session.layouts)
        #: Every event request of the session, of every kind (:mod:`.requests.manager`).
        self.breakpoints = Requests(vm, self.symbols, self._steps, ids=session.ids)
        self._judge = HitJudge(session, self.breakpoints, self._publish)
        self._events_in, self.events = trio.open_memory_channel[EngineEvent](math.inf)
        self._stops = Stops(session.ids, self._steps, self._publish, self.breakpoints.wants)
        self._sets = EventSets(session, self.breakpoints, self._steps, self._judge, self._stops, launch)
        self._quick = QuickHits(self._judge, self.breakpoints, self._judge_later, self._judged_quickly)
        self._judging_tasks: trio.Nursery | None = None  # _run's, while it reads event sets
        # Reading a stop: the Inspection's methods, called as the debugger's own (no frame of this class between).
        inspection = Inspection(session, self._stops, self.coroutines)
        self.stack = inspection.stack
        self.locals = inspection.locals
        self.object = inspection.object
        self.evaluate = inspection.evaluate
        self.evaluate_each = inspection.evaluate_each
        self.set_value = inspection.set_value
        self.threads = inspection.threads
        self.diagnosis = inspection.diagnosis
        self._run_tos = RunTos(self.breakpoints)
        self._cleanup: Cleanup | None = None
        self._uncertain = False
        self._detaching = False
        self._detach_running: trio.Event | None = None
        self._handling = False
        self._judging = 0  # sets of hits being judged apart (_judge_apart)
        self._handled = trio.Event()
        self._sets_handled = 0
        self._silent: CommandTimeout | None = None  # a release the VM never answered (_failed)

    #: Whether expressions may call methods (app code runs): the server's --allow-invoke.
    allow_invoke: _Option[bool] = _Option()
    #: Whether set_value may change the app's state: the server's --allow-mutation.
    allow_mutation: _Option[bool] = _Option()
    #: How deep the summaries of locals, evaluation results and monitors are previewed (:mod:`.previews`): 1 by
    #: default, 0 for none (a library user who wants no read past the values themselves).
    preview_depth: _Option[int] = _Option()

    # --- state -------------------------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``running``, ``paused``, or the terminal ``detached``/``disconnected``/``failed``."""
        if self._terminal is not None:
            return {"detached": "detached", "failed": "failed"}.get(self._terminal.reason, "disconnected")
        return "paused" if self._stops.current is not None else "running"

    @property
    def current_stop(self) -> Stop | None:
        current = self._stops.current
        return current.stop if current else None

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

    def statistics(self) -> dict[str, int]:
        """How hits were judged: ``quick_releases``, hits whose condition was false on their locals' values,
        released from the connection's callbacks (docs/performance.md); ``quick_handed_on``, hits taken that way
        and then judged in full (the condition true, or needing more); and the event sets handled."""
        return {"quick_releases": self._quick.released, "quick_handed_on": self._quick.handed_on,
                "event_sets_handled": self._sets_handled}

    def list_breakpoints(self) -> list[AnyBreakpoint]:
        return self.breakpoints.all()

    @property
    def _terminal(self) -> Terminated | None:
        return self._gate.terminal

    def _stop_for(self, stop_id: str) -> StopState:
        self._gate.check_open()
        return self._stops.resolve(stop_id)

    def issued(self, handle: str) -> bool:
        """Whether a stop, thread or frame ID names a stop of this session (current, ended or stale)."""
        try:
            return self._stops.is_issued(handle)
        except NotFound:
            return False

    # --- breakpoints -------------------------------------------------------------------------------

    async def set_breakpoint(self, class_name: str | None = None, line: int | None = None, *,
                             file: str | None = None, condition: str | None = None, hit_count: int | None = None,
                             action: Action = "stop", log_message: str | None = None,
                             max_hits: int | None = None, suspend: SuspendMode = "all",
                             lambda_choice: LambdaChoice = "all", method: str | None = None,
                             signature: str | None = None, on: str | None = None,
                             capture: Capture | None = None) -> Breakpoint | MethodBreakpoint:
        """Break at ``line`` (1-based) of a class or of a source file, in every class loader.

        ``class_name`` (binary name, ``com.x.Foo``) covers the class and the classes nested in it from the
        same source file (``Foo$Inner``, ``Foo$1``, ``Foo$Companion``, lambdas); ``file`` (``Foo.kt``, or a
        path such as ``app/src/main/java/com/x/Foo.kt``) covers every class of that source file. Give one.
        A line in a Kotlin inline function's body also binds where it was inlined (``inlined`` locations).

        ``condition`` (an expression, docs/design.md §3.5) stops only where it is true; ``hit_count`` ignores the
        first ``hit_count - 1`` hits; ``action="log"`` makes a logpoint: each hit publishes a ``LogpointHit``
        (``log_message`` with ``{expression}`` parts, or frame 0's locals) and the thread runs on, until
        ``max_hits`` (default 100, at most 10,000) spend it. On a breakpoint that stops, ``max_hits`` (1 to
        10,000, none by default) removes it at its ``max_hits``-th stop: ``1`` is a one-shot (event
        ``BreakpointSpent``). ``suspend="thread"`` holds only the hitting thread at a stop. With any of
        these, a hit holds only its thread while it is judged (:mod:`.judge`).
        ``lambda_choice`` picks among a line's code indexes as IntelliJ does (:mod:`.lambdas`): ``"all"``,
        ``"line"`` (outside the line's lambdas) or a lambda's ordinal on the line (from 0).
        ``capture`` (:mod:`.requests.capture`): what its stops read as they are made (``Stop.capture``).

        ``method`` (with ``class_name``, instead of ``line``) makes a method breakpoint
        (:mod:`.method_breakpoints`): ``on="entry"`` (default) stops as each overload (or the one of
        ``signature``, JNI ``(J)J``) is entered, ``on="exit"`` as it returns, the stop's ``return_value``
        holding what it returned (when the VM can tell: JDWP 1.6; else the breakpoint's ``note`` says so).

        Returns the breakpoint: ``verified`` with its locations, ``pending`` until a class of it loads, or
        ``rejected`` (with ``reason``) while the classes loaded have no code at the line or no line table
        (it stays armed for classes loaded later).

        Raises:
            InvalidArgument, LimitReached: bad input (a condition or template that does not parse:
                ``ExpressionSyntaxError`` with the column) or too many breakpoints; nothing changed.
            EngineClosed: the session has ended.
        """
        place = breakpoint_place(class_name, line, file=file, method=method, signature=signature, on=on,
                                 lambda_choice=lambda_choice)
        plan = self._plan(HitOptions(condition, hit_count, action, log_message, max_hits, suspend, capture))
        async with self._gate.changing():
            if isinstance(place, MethodPlace):
                capabilities = await self.symbols.capabilities.get()
                return await self.breakpoints.methods.add(place.class_name, place.method, place.signature,
                                                          place.on, plan, capabilities.method_return_values)
            return await self.breakpoints.lines.add(place.target, place.line, plan, place.lambda_choice)

    def _plan(self, options: HitOptions) -> HitPlan | None:
        """A breakpoint's options checked and parsed (:func:`.requests.hits.plan_of`); a condition or message may
        call methods as the session allows (``allow_invoke``).

        Raises:
            InvalidArgument, ExpressionSyntaxError: bad options; nothing is changed.
        """
        with allowing_calls(self.allow_invoke):
            return plan_of(options)

    async def set_exception_breakpoint(self, exception_class: str | None = None, caught: bool = False,
                                       uncaught: bool = True, capture: Capture | None = None,
                                       ) -> ExceptionBreakpoint:
        """Stop where a throwable of ``exception_class`` or a subclass (``None``: any) is thrown, when it will be
        ``caught`` by Java code and/or ``uncaught``. Stops have reason ``exception`` and ``Stop.exception``;
        ``capture`` as for :meth:`set_breakpoint`.

        Returns it ``verified``, or ``pending`` until a class of that name loads (then it binds in every
        loader that loads one: event ``breakpoint_verified``). It counts towards the 100 breakpoints.

        Raises:
            InvalidArgument, LimitReached: a bad name, neither caught nor uncaught, or too many breakpoints;
                nothing changed.
            EngineClosed: the session has ended.
        """
        request = exception_request(exception_class, caught, uncaught, capture)
        async with self._gate.changing():
            return await self.breakpoints.exceptions.add(request)

    async def set_watchpoint(self, class_name: str, field: str, access: str = "write", *,
                             condition: str | None = None, hit_count: int | None = None, action: Action = "stop",
                             log_message: str | None = None, max_hits: int | None = None,
                             suspend: SuspendMode = "all", capture: Capture | None = None) -> Watchpoint:
        """Stop where ``field`` of ``class_name`` (or of a superclass of it) is written (``access="write"``),
        read (``"read"``) or either (``"any"``), by any thread, in every class loader (:mod:`.watchpoints`).

        The stop has reason ``watchpoint`` and ``Stop.watch``: the field, the value it held (``old_value``)
        and, for a write, the value being written (``new_value``); its location is the accessing code.
        ``condition``, ``hit_count``, ``action="log"``, ``log_message``, ``max_hits`` and ``suspend`` work as
        for a line breakpoint, with ``new_value`` and ``old_value`` as names; a logging watchpoint's hits
        carry the change too (``LogpointHit.watch``) and its default message shows it. ``capture`` is read as
        each of its stops is made (``Stop.capture``), as a line breakpoint's.

        Returns it ``verified``, ``pending`` until the class loads, or ``rejected`` while no loaded class of
        that name has the field. It counts towards the 100 breakpoints and is removed like any.

        Raises:
            InvalidArgument, LimitReached: bad input or too many breakpoints; nothing changed.
            Unsupported: the VM cannot watch that access (``VirtualMachine.CapabilitiesNew``).
            EngineClosed: the session has ended.
        """
        plan = self._plan(HitOptions(condition, hit_count, action, log_message, max_hits, suspend, capture))
        async with self._gate.changing():
            capabilities = await self.symbols.capabilities.get()
            return await self.breakpoints.watchpoints.add(class_name, field, access, plan,
                                                          capabilities.field_modification,
                                                          capabilities.field_access)

    async def remove_breakpoint(self, breakpoint_id: str) -> None:
        """Clear one breakpoint's requests; removing it twice is fine.

        Raises:
            NotFound: an ID this session never issued.
            EngineClosed: the session has ended.
        """
        self._gate.check_open()
        async with self._lock:
            await self.breakpoints.remove(breakpoint_id)
            await self._release_unwanted(self._stops.take_unwanted())

    async def remove_breakpoints(self, breakpoint_ids: Sequence[str] | None = None) -> list[str]:
        """Remove several breakpoints — every one held when ``breakpoint_ids`` is ``None`` — their requests
        cleared in one write (``EventRequest.Clear`` (15,2) each); removing one again is fine. Returns the IDs
        removed: those given, or those that were held.

        Raises:
            NotFound: an ID this session never issued; nothing is removed.
            EngineClosed: the session has ended.
        """
        self._gate.check_open()
        async with self._lock:
            ids = [bp.breakpoint_id for bp in self.breakpoints.all()] if breakpoint_ids is None else list(
                dict.fromkeys(breakpoint_ids))
            await self.breakpoints.remove_many(ids)
            await self._release_unwanted(self._stops.take_unwanted())
            return ids

    async def update_breakpoint(self, breakpoint_id: str, *, condition: str | Keep | None = KEEP,
                                hit_count: int | Keep | None = KEEP, log_message: str | Keep | None = KEEP,
                                enabled: bool | None = None) -> AnyBreakpoint:
        """Change one breakpoint in place: ``condition``, ``hit_count``, ``log_message`` (``None`` clears
        one; left out, it stays), and ``enabled``. Disabled, none of its JDWP requests is made (it stays held,
        status ``disabled``, counting towards the 100); enabled, it binds anew as when it was set. A line
        breakpoint whose options change has its requests made again (a hit between the clear and the new
        requests is not seen); a watchpoint's or method breakpoint's requests are made again only when their
        suspend policy changes (:mod:`.requests.by_class`). An exception breakpoint takes ``enabled`` only.

        Raises:
            NotFound: an ID this session never issued, or one removed.
            InvalidArgument: bad options (a condition that does not parse: ``ExpressionSyntaxError`` with the
                column), an option the breakpoint does not take, a spent logpoint; nothing changed.
            EngineClosed: the session has ended.
        """
        async with self._gate.changing():
            with allowing_calls(self.allow_invoke):
                updated = await self.breakpoints.update(breakpoint_id, condition=condition, hit_count=hit_count,
                                                        log_message=log_message, enabled=enabled)
            await self._release_unwanted(self._stops.take_unwanted())
            return updated

    # --- pause, resume and step ----------------------------------------------------------------------

    async def pause(self) -> Stop:
        """Suspend the whole VM (one ``VirtualMachine.Suspend``, 1,8, that we own) as a stop with reason
        ``pause`` and no thread of its own; resume releases exactly it. Event sets arriving meanwhile queue.

        Raises:
            AlreadyPaused: a stop is current; nothing was sent.
            JdwpError: the VM did not confirm; the state is uncertain (:attr:`uncertain`).
        """
        async with self._gate.changing():
            if self._detaching:  # detach releases only what it found: a suspension made now would stay
                raise EngineClosed("the session is detaching; nothing was paused", "detached")
            if self._stops.current is not None:
                raise AlreadyPaused(f"already paused at stop {self._stops.current.stop.stop_id}; inspect it, or "
                                    "resume it (Debugger.resume()) and pause again")
            try:
                await self.vm.suspend()
            except JdwpError:
                self._uncertain = True
                raise
            state = StopState(pause_stop(self._stops.new_id()), Suspension(SuspendPolicy.ALL, ThreadId(0)), {})
            self._sets.next_capture = None  # a pause has no thread to read
            self._stops.make_current(state)
            await self._spend_run_to()
            return state.stop

    async def _late_return(self, thread: ThreadId, stop_id: str) -> None:
        state = self._stops.current
        current = state.stop.stop_id if state is not None else None
        if state is not None and current == stop_id:
            await refresh_frames(self.vm, state.frames, thread)
        await release_late(self.vm, thread, stop_id, current, self._terminal is not None or self._detaching)

    async def resume(self, stop_id: str, *, run_to: RunTo | None = None,
                     capture: Capture | None = None) -> Breakpoint | None:
        """Release the current stop's suspension; a queued stop then becomes current.

        ``run_to``: run to a line (:mod:`.requests.run_to`): a one-shot breakpoint, removed at the next stop
        (hit or not); returned, with the status a breakpoint on that line has (``pending`` or ``rejected``
        still binds in a class that loads later). ``capture``: what the next stop reads as it is made,
        whatever makes it (a queued stop made current now reads it now), merged with its requests' own.

        Raises:
            InvalidArgument: a bad capture or a bad ``run_to``; nothing was resumed.
            StaleReference, NotFound, NotPaused: ``stop_id`` is not the current stop.
            JdwpError: the VM did not confirm; the state is uncertain (:attr:`uncertain`).
        """
        plan = plan_capture(capture) if capture is not None else None
        if run_to is not None:
            run_to.target()  # checked before anything is sent
        async with self._lock:
            state = self._stop_for(stop_id)
            one_shot = await self._run_tos.arm(run_to) if run_to is not None else None
            if plan is not None and self._stops.queue:  # the next stop is made already: it reads the capture now
                await self._sets.add_capture(self._stops.queue[0], plan)
            else:
                self._sets.next_capture = plan
            await self._release_current(state)
            if self._stops.current is not None:  # a queued stop: the next stop came
                await self._spend_run_to()
            return one_shot

    async def step(self, stop_id: str, thread_id: str | None, kind: StepKind, *, filters: bool = True,
                   capture: Capture | None = None) -> StepKind:
        """Step one line (``into``/``over``/``out``) on a thread of the current stop (``None``: the stop's own),
        then let it run.

        Returns once the VM accepted the step; the stop it leads to arrives as an event later. Other
        threads' stops may come first (they list this step in ``pending_steps``; resuming them lets it go
        on); a breakpoint of this thread reached first ends it (that stop has ``ended_step``).
        ``filters`` (default on) skips the JDK's, Kotlin's and Android's internals and synthetic
        methods (:mod:`.steps`). ``capture``: what the stop the step leads to reads as it is made.

        Returns the kind of step made: ``out`` for an ``over`` whose top frame is native (``Thread.sleep`` after a
        pause), which could never finish (:meth:`.steps.Steps.kind_for`); else ``kind``.

        Raises:
            InvalidArgument: an unknown kind; no ``thread_id`` at a pause.
            StaleReference, NotFound, NotPaused: the IDs are not of the current stop.
        """
        if kind not in DEPTHS:
            raise InvalidArgument(f"step kind must be into, over or out, not {kind!r}")
        plan = plan_capture(capture) if capture is not None else None
        async with self._lock:
            state = self._stop_for(stop_id)
            thread_id = self._stops.thread_handle(state, thread_id)
            thread = self._stops.thread_for(state, thread_id)
            return await self._step_from(state, thread, thread_id == state.stop.thread_id, kind, filters, plan)

    async def _step_from(self, state: StopState, thread: ThreadId, own: bool, kind: StepKind, filters: bool,
                         plan: CapturePlan | None) -> StepKind:
        """Start a step of ``thread`` (``own``: the stop's thread, still where the stop is) and release the stop."""
        name = state.names.get(thread) or state.stop.thread_name or f"thread {thread:x}"
        made = await self._steps.kind_for(thread, kind, state.stop.location if own else None)
        filtering = await self._steps.filtering_for(thread, filters)
        await self._steps.start(thread, name, made, filters, capture=plan, filtering=filtering)
        await self._steps.follow_coroutine(thread, state.location if own else None)
        await self._steps.note_inline_origin(thread, state.location if own else None)
        await self._release_current(state)
        return made

    # --- changing the running program (:mod:`.changes`; only with allow_mutation) ----------------------

    def _check_mutation(self, what: str) -> None:
        if not self.allow_mutation:
            raise Unsupported(f"{what} is off: set the debugger's allow_mutation to True to allow it (it changes the "
                              "running program)")

    async def redefine_classes(self, paths: Sequence[str]) -> Reload:
        """Reload the classes of ``paths`` that the VM has loaded (:mod:`.changes.reload`): class files,
        directories and jars on a JVM, dex files, APKs and dex directories on ART. Line breakpoints in them are
        bound anew in the new code; frames still running old code are listed.

        Raises:
            Unsupported: mutation is off, the VM cannot redefine, or it refused a change of shape (named).
            InvalidArgument: a bad path, or bytes the VM refused (the class and why named); nothing changed.
            EngineClosed: the session has ended.
        """
        self._check_mutation("reloading classes")
        async with self._gate.changing():
            return await reload_classes(self.vm, self.symbols, self.breakpoints, paths)

    async def restart_frame(self, stop_id: str, thread_id: str | None, *, capture: Capture | None = None) -> None:
        """Pop the thread's top frame (``StackFrame.PopFrames`` 16,4) and step into it again: the stop it leads
        to is the method's first line (:mod:`.changes.frames`), as IntelliJ's "Reset Frame".

        Raises:
            Unsupported: mutation is off, or the VM cannot pop frames.
            InvalidArgument: the bottom frame, a native one or one called from native code; nothing changed.
            StaleReference, NotFound, NotPaused: the IDs are not of the current stop.
        """
        self._check_mutation("restarting a frame")
        await self._change_then_step(stop_id, thread_id, partial(pop_for_restart, self.values, self.symbols),
                                     "into", False, capture)

    async def force_return(self, stop_id: str, thread_id: str | None, value: str, *, filters: bool = True,
                           capture: Capture | None = None) -> tuple[Summary | None, StepKind]:
        """Make the thread's top frame return ``value`` now (``ThreadReference.ForceEarlyReturn`` 11,14; a
        literal, an ``object_id`` or ``void``, checked against its return type) and step out. Returns the value's
        summary (``None`` for ``void``) and the step made.

        Raises:
            Unsupported: mutation is off, or the VM cannot force a return.
            InvalidArgument: a native frame, or a value of the wrong type; nothing changed.
            StaleReference, NotFound, NotPaused: the IDs are not of the current stop.
        """
        self._check_mutation("forcing a return")
        returned: list[Summary | None] = []

        async def change(thread: ThreadId) -> None:
            returned.append(await force_return(self.values, self.symbols, thread, value))

        made = await self._change_then_step(stop_id, thread_id, change, "out", filters, capture)
        return returned[0], made

    async def _change_then_step(self, stop_id: str, thread_id: str | None,
                                change: Callable[[ThreadId], Awaitable[object]], kind: StepKind, filters: bool,
                                capture: Capture | None) -> StepKind:
        """Under the lock: ``change`` the thread of the current stop (nothing is stepped when it raises), then
        step it (``into`` after a restart starts from the caller's frame, no longer the stop's location)."""
        plan = plan_capture(capture) if capture is not None else None
        async with self._lock:
            state = self._stop_for(stop_id)
            thread_id = self._stops.thread_handle(state, thread_id)
            thread = self._stops.thread_for(state, thread_id)
            await change(thread)
            own = kind == "out" and thread_id == state.stop.thread_id
            return await self._step_from(state, thread, own, kind, filters, plan)

    async def _release_current(self, state: StopState) -> None:
        # Cleared before the release is sent: ART may write the event set the release causes before the release's
        # reply (docs/reliability.md, "ART as devices show it"), and that stop must find no current one.
        self._stops.current = None  # every ID of this stop is stale from here on, whatever the VM says
        try:
            await release(self.vm, state.suspension)
        except JdwpError:
            self._uncertain = True
            raise
        await self._release_unwanted(self._stops.promote())

    async def _spend_run_to(self) -> None:
        """Remove a run-to's one-shot breakpoint (the next stop came); queued stops of it are released."""
        await self._run_tos.spend()
        await self._release_unwanted(self._stops.take_unwanted())

    async def _release_unwanted(self, states: list[StopState]) -> None:
        """Release queued stops wanted no more (:meth:`.stops.Stops.wanted`: their breakpoints removed, disabled,
        updated or spent), each its exact suspension, in one write; they were never current, never published. One the
        VM refuses (its thread ended) held nothing more."""
        held = [release_command(state.suspension) for state in states if state.suspension.policy != SuspendPolicy.NONE]
        if not held:
            return
        for answer in await self.vm.request_all(held):
            if isinstance(answer, CommandError):
                log.warning("releasing a stop wanted no more failed: %s", answer)

    async def hold_at_launch(self, *, vm_start_within: float = 0.0) -> Stop:
        """Hold a launched app before its code runs: the current ``launch`` stop (``am start --suspend``'s
        VM_START), or one owned ``VirtualMachine.Suspend`` (1,8) made into a stop of reason ``launch`` on
        the main thread. ``resume`` releases it like any stop. ``vm_start_within``: seconds to wait for a
        VM_START first (ART sends it once the app's thread sees the debugger, polling every 100 ms).

        Raises:
            EngineClosed: the session has ended. JdwpError: the VM did not confirm the suspension.
        """
        with trio.move_on_after(vm_start_within):
            while vm_start_within and self._stops.current is None and self._terminal is None:
                await self._handled.wait()
        async with self._lock:
            self._gate.check_open()
            if self._stops.current is not None:
                return self._stops.current.stop
            await self.vm.suspend()
            thread = await main_thread(self.vm)
            found = Found(reasons=["launch"], thread=thread, suspension=Suspension(SuspendPolicy.ALL, thread))
            try:
                state = await self._sets.stop_of(found)
            except JdwpError:
                await release(self.vm, found.suspension)
                raise
            assert state is not None  # only a filtered step makes no stop
            self._stops.make_current(state)
            return state.stop

    # --- events from the VM ------------------------------------------------------------------------

    async def _run(self) -> None:
        """Consume the VM's event sets until the connection ends; never raises.

        Sets of hits to judge (:meth:`.eventsets.EventSets.judged_apart`) are judged in tasks of their own, up to
        :data:`JUDGED_AT_ONCE` at a time (beyond that, in turn, as every other set is); the loop waits for
        them before it ends the session.
        """
        reason: TerminalReason = "disconnected"
        try:
            async with trio.open_nursery() as judging:
                self._judging_tasks = judging
                async for event_set in self.vm.events():
                    if any(isinstance(e, VMDeathEvent) for e in event_set.events):
                        reason = "vm_death"
                    self._handling = True
                    apart = None
                    try:
                        apart = await self._handle(event_set)
                    except Exception as exc:  # sorted by _failed, which re-raises a bug of ours
                        if not await self._failed(exc):
                            break
                    finally:
                        self._handling = False
                        if apart is None:
                            self._set_handled()
                    if apart is not None:
                        if self.vm.events_queued:  # a burst: the writes of its quick hits leave together
                            self.vm.hold_writes()
                        if not self._quick.take(apart):
                            judging.start_soon(self._judge_apart, apart)
        except Exception as exc:  # a bug of ours: end the session rather than leave it half alive
            log.exception("the debugger's event loop failed")
            self._terminate("failed", f"internal error: {exc!r}")
            return
        if self._detaching:
            self._terminate("detached", "detached by the client")
            return
        error = self.vm.terminal_error
        why = "the VM died" if reason == "vm_death" else f"the connection ended: {error}"
        if self._silent is not None:
            why = (f"the VM stopped answering ({self._silent}) while an event held its threads: the connection was "
                   "closed, so that its JDWP agent resumes every thread this session had suspended")
        self._terminate(reason, why)

    async def _failed(self, exc: Exception) -> bool:
        """Handling an event set failed with ``exc``: whether the session goes on (the loop reads the next set).

        Raises:
            Exception: ``exc`` itself when it is not the VM's (a bug of ours).
        """
        if isinstance(exc, ConnectionClosed):
            return False
        if isinstance(exc, (_Unreleased, CommandTimeout)):
            if isinstance(exc, CommandTimeout) and not self._releases_unanswered():
                log.warning("handling an event set failed: %s", exc)
                return True
            # The VM answers neither what handling the event set asked nor the release of its suspension (an
            # agent wedged by a torn packet waits for bytes that never come). Ending the connection is the one
            # way left to free the app: a JDWP agent resumes every thread a debugger suspended when its
            # connection closes.
            self._silent = self._silent or (exc.unanswered if isinstance(exc, _Unreleased) else exc)
            await self.vm.aclose()
            return False
        if isinstance(exc, JdwpError):
            log.warning("handling an event set failed: %s", exc)
            return True
        raise exc

    def _set_handled(self) -> None:
        self._sets_handled += 1
        self._handled.set()
        self._handled = trio.Event()

    async def _handle(self, event_set: Composite) -> Found | None:
        """Handle one event set under the session's lock; returns it instead when its hits are to be judged
        apart (:meth:`_judge_apart`, counted in :attr:`_judging`)."""
        async with Held(self._lock, before_wait=self.vm.send_held):
            if self._terminal is not None:
                return None
            found = self._sets.classify(event_set)
            if self._detaching:  # an event set that was on its way when we cleared our requests: let it go
                await release(self.vm, found.suspension)
                return None
            if self._judging < JUDGED_AT_ONCE and self._sets.judged_apart(found):
                self._judging += 1
                return found
            self.vm.send_held()  # what the burst's quick hits wrote goes before this set's awaits
            try:
                for prepare in found.prepares:
                    for changed in await self.breakpoints.on_class_prepare(prepare):
                        self._publish(BreakpointVerified(changed) if changed.status == "verified"
                                      else BreakpointRejected(changed))
                if found.thrown:
                    await self._sets.judge_exceptions(found)
                await self._sets.read_change(found)
                if found.breakpoint_ids:
                    await self._sets.judge_hits(found)
                    await self._sets.hold(found)
                state = await self._sets.stop_of(found) if found.reasons else None
            except JdwpError as failure:
                await self._release_failed(found, failure)
                raise
            await self._settle(found, state)
        await found.finish()  # outside the lock: spending a logpoint takes it
        return None

    def _judge_later(self, found: Found) -> None:
        """A hit :class:`.quick_hits.QuickHits` took and could not release: the full judge's, in a task."""
        assert self._judging_tasks is not None  # replies come only while _run reads the connection
        self._judging_tasks.start_soon(self._judge_apart, found)

    def _judged_quickly(self) -> None:
        """A hit :class:`.quick_hits.QuickHits` took was released: counted as :meth:`_judge_apart` counts."""
        self._judging -= 1
        self._set_handled()

    async def _judge_apart(self, found: Found) -> None:
        """Judge one set of hits outside the lock (its thread alone is suspended: other threads' hits are judged
        meanwhile); take the lock only to make its stop. A hit whose breakpoints were removed, disabled or
        spent meanwhile makes none; a detach meanwhile lets it go. Never raises: a failure releases the hit."""
        try:
            try:
                await self._sets.read_change(found)
                await self._sets.judge_hits(found)
            except JdwpError as failure:
                await self._release_failed(found, failure)
                raise
            if found.reasons:
                async with Held(self._lock):
                    state = None
                    if self._terminal is None and not self._detaching:
                        self._sets.drop_unwanted(found)
                        if found.reasons:
                            try:
                                await self._sets.hold(found)
                                state = await self._sets.stop_of(found)
                            except JdwpError as failure:
                                await self._release_failed(found, failure)
                                raise
                    await self._settle(found, state)
            else:
                await release_unconfirmed(self.vm, found.suspension)
            await found.finish()
        except Exception as exc:  # sorted as the event loop sorts its own failures
            try:
                await self._failed(exc)
            except Exception:  # a bug of ours: end the session rather than leave it half alive
                log.exception("judging a hit failed")
                self._terminate("failed", f"internal error: {exc!r}")
        finally:
            self._judging -= 1
            self._set_handled()

    async def _release_failed(self, found: Found, failure: JdwpError) -> None:
        """Handling ``found`` failed: release its suspension, ours and held by no stop — never leave the VM
        suspended behind a failure (an answer or a timeout).

        Raises:
            _Unreleased: the release went unanswered too.
        """
        try:
            await release(self.vm, found.suspension)
        except CommandTimeout as unanswered:
            raise _Unreleased(failure, unanswered) from failure
        except JdwpError:
            pass  # answered with an error (the thread ended): nothing is held

    async def _settle(self, found: Found, state: StopState | None) -> None:
        """Hand a handled set's suspension over: to its stop, or back to the VM when it makes none."""
        if state is None:
            await release_unconfirmed(self.vm, found.suspension)
        else:
            await self._release_unwanted(self._stops.arrive(state))
            await self._spend_run_to()  # the next stop came: a run-to's breakpoint goes, hit or not

    def _releases_unanswered(self) -> bool:
        """Whether a release sent without waiting for its answer (a logpoint's, a false condition's) has gone
        unanswered for a whole request timeout: the VM reads commands in order, so it reads none."""
        sent = self.vm.oldest_unanswered_send()
        return sent is not None and trio.current_time() - sent >= self.vm.request_timeout

    def _publish(self, event: EngineEvent) -> None:
        self._events_in.send_nowait(event)

    def _terminate(self, reason: TerminalReason, message: str) -> None:
        if self._terminal is not None:
            return
        self._gate.terminal = terminal = Terminated(reason, message)
        self._stops.clear()
        self._publish(terminal)
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
        return await clean_up(self.vm, self._lock, self._steps, self.breakpoints, self._stops, self._drain_events,
                              self._set_handled_after)

    async def _await_start(self) -> None:
        """Make a pending VM_START stop current before the caller sees the engine.

        HotSpot started with ``suspend=y`` sends VM_START (suspend ALL) as soon as a debugger connects, from
        another thread than the one answering commands: it usually comes before the reply to ``IDSizes``,
        but not always. When it has not come and the launcher has not loaded the main class yet
        (``sun.launcher.LauncherHelper`` is not loaded), it is due: wait for it, up to :data:`START_GRACE`
        seconds. A running VM costs one round trip here; an Android VM none (:func:`.vm_start.runs_already`).
        """
        await self._drain_events()
        if self._stops.current is not None or self._terminal is not None or await runs_already(self.vm):
            return
        with trio.move_on_after(START_GRACE):
            while self._stops.current is None and self._terminal is None:
                await self._handled.wait()

    async def _drain_events(self) -> int:
        """Wait until the event sets received so far are handled; returns how many have been, ever."""
        while self._terminal is None and (self._handling or self._judging
                                          or self.vm.statistics()["buffered_events"]):
            await self._handled.wait()
        return self._sets_handled

    async def _set_handled_after(self, seen: int, within: float) -> bool:
        """Whether one more event set than ``seen`` is handled within ``within`` seconds."""
        with trio.move_on_after(within):
            while self._sets_handled <= seen and self._terminal is None:
                await self._handled.wait()
        return self._sets_handled > seen


class _Unreleased(JdwpError):
    """Handling an event set failed, and so did releasing its suspension: the VM did not answer."""

    def __init__(self, failure: JdwpError, unanswered: CommandTimeout) -> None:
        super().__init__(f"{failure}; releasing its suspension: {unanswered}")
        self.unanswered = unanswered


@asynccontextmanager
async def open_debugger(vm: JdwpClient, *, id_prefix: str = "", launch: bool = False) -> AsyncIterator[Debugger]:
    """Run a :class:`Debugger` over an open client; detach when the block exits (if not done already).

    ``id_prefix`` (``"s3-"``: up to 12 lowercase letters or digits and a dash) starts every ID the
    session issues, so IDs stay unique among several sessions. The engine is handed over once the event
    sets that came with the connection are handled: a JVM started with ``suspend=y`` has its ``vm_start``
    stop current when this returns. ``launch`` marks an app started to be debugged: its VM_START stop
    has reason ``launch`` (see :meth:`Debugger.hold_at_launch`).
    """
    try:
        async with trio.open_nursery() as nursery:
            debugger = Debugger(vm, id_prefix, launch=launch, nursery=nursery)
            nursery.start_soon(debugger._run)
            try:
                await debugger._await_start()
                yield debugger
            finally:
                await debugger.detach()
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        raise unwrap(group)  # noqa: B904 - the group is what we unwrap

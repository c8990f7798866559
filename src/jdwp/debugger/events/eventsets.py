"""What an event set from the VM is to the engine, and the stop it makes.

Layer: ``jdwp.debugger`` on ``jdwp.client``; no MCP, no ``android``. docs/design.md §3.3 (the events of one
composite form one stop; stops end steps), §3.5 (conditions, hit counts, logpoints) and §4.6 (launch).

An event set (``Event.Composite``, 64,100) is sorted into the reasons it stops for — events of requests
that are not ours are ignored — the class prepares it carries for binding, and the one suspension it
made, which the engine owns whatever the set turns out to be: it either goes to the stop made here or is
released by the engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from ...client import JdwpClient
from ...protocol.commands.events import ClassPrepareEvent, Composite, ExceptionEvent, VMStartEvent
from ...protocol.constants import SuspendPolicy
from ...protocol.types import Location, ThreadId
from ...protocol.values import Value
from .._gather import gather, nothing
from ..classes.symbols import Symbols
from ..model import FieldChange, Local, Locals, StepKind, Stop, StopReason
from ..reading.objects import Layouts
from ..reading.session import Session
from ..reading.values import Summary, Values
from ..requests.capture import CapturePlan, merge
from ..requests.exceptions import describe_thrown
from ..requests.kind import Meaning
from ..requests.library_steps import StepInFlight
from ..requests.manager import Requests
from ..requests.steps import Steps
from ..requests.watchpoints import WatchedField
from .capture import CaptureReader, Top, first_frames, frame0, locals_reader, wants_locals
from .crashes import Crashes, Thrown
from .field_changes import FieldEvent, read_change
from .holds import LAUNCH_NOTE
from .judge import HitJudge, Verdict, hold_vm
from .returns import read_return
from .stops import Stops, StopState, Suspension

__all__ = ["BEFORE_MAIN", "EventSets", "Found"]

BEFORE_MAIN = ("no code has run in this thread yet: the VM is suspended at its start, before main; set "
               "breakpoints now, then resume")
_NO_SUSPENSION = Suspension(0, ThreadId(0))  # until classify finds the event set's own


@dataclasses.dataclass
class Found:
    """An event set, sorted: why it stops, in which thread and where, and the class prepares it carries."""

    reasons: list[StopReason] = dataclasses.field(default_factory=list)
    breakpoint_ids: list[str] = dataclasses.field(default_factory=list)
    thread: ThreadId | None = None
    location: Location | None = None
    step: StepInFlight | None = None  # our step that completed in this set
    resumed: bool = False  # ... by its resume breakpoint: its coroutine resumed (.steps)
    exception: ExceptionEvent | None = None  # the thrown exception an exception breakpoint stops for
    thrown: list[Thrown] = dataclasses.field(default_factory=list)  # our exception events, to judge (.crashes)
    field_event: tuple[FieldEvent, WatchedField] | None = None  # a watchpoint's field access, and its field
    change: FieldChange | None = None  # what it saw (:func:`.field_changes.read_change`)
    change_names: tuple[Local, ...] = ()  # new_value, old_value, return_value: names for conditions and messages
    returned: tuple[Value, str] | None = None  # a method-exit breakpoint's value, and the method's return type
    return_value: Summary | None = None  # its summary (read with the change)
    prepares: list[ClassPrepareEvent] = dataclasses.field(default_factory=list)
    suspension: Suspension = _NO_SUSPENSION
    condition_error: str | None = None
    thread_only: bool = False  # a suspend "thread" breakpoint's stop: it holds the event's thread only
    #: Each breakpoint's revision as the set came (:meth:`.requests.manager.Requests.revision`): one updated since
    #: makes no stop of this set.
    revisions: dict[str, int] = dataclasses.field(default_factory=dict)
    #: How the judged breakpoints that stop want it held (:attr:`.judge.Verdict.hold`), for :meth:`EventSets.hold`.
    hold: str | None = None
    #: The judge's work for after the release or the stop (:attr:`.judge.Verdict.after`).
    after: Verdict | None = None

    def take(self, meaning: Meaning, event: Any) -> None:
        """Add what one event of a request of ours means (:class:`.requests.kind.Meaning`)."""
        if meaning.prepare:
            self.prepares.append(event)
            return
        if meaning.reason is None:
            return
        self.reasons.append(meaning.reason)
        if meaning.breakpoint_id is not None:
            self.breakpoint_ids.append(meaning.breakpoint_id)
        if meaning.step is not None:
            self.step, self.resumed = meaning.step, meaning.resumed
        if meaning.reason == "exception":
            self.thrown.append(Thrown(meaning.breakpoint_id or "", event, meaning.crash_watch))
        if meaning.field is not None:
            self.field_event = self.field_event or (event, meaning.field)
        if meaning.returned is not None and self.returned is None:
            self.returned = meaning.returned
        if self.thread is None:
            self.thread = event.thread
            self.location = getattr(event, "location", None)
        elif meaning.resumed and self.location is None:
            self.location = event.location

    async def finish(self) -> None:
        """What is left once the set's suspension is released or held by its stop (publishing logpoint hits)."""
        if self.after is not None:
            await self.after.finish()


@dataclasses.dataclass
class EventSets:
    """Sorts one session's event sets and makes their stops (one per :class:`~.engine.Debugger`)."""

    session: Session
    breakpoints: Requests
    steps: Steps
    judge: HitJudge
    stops: Stops
    launch: bool  # a VM_START of a launched app is its launch stop (holds.py)
    vm: JdwpClient = dataclasses.field(init=False)
    symbols: Symbols = dataclasses.field(init=False)
    values: Values = dataclasses.field(init=False)
    layouts: Layouts = dataclasses.field(init=False)
    crashes: Crashes = dataclasses.field(init=False)
    #: A capture for the next stop made, whatever makes it (a resume's ``capture``); spent on that stop.
    next_capture: CapturePlan | None = None

    def __post_init__(self) -> None:
        self.vm, self.symbols = self.session.vm, self.session.symbols
        self.values, self.layouts = self.session.values, self.session.layouts
        self.crashes = Crashes(self.symbols, self.values, self.layouts, self.breakpoints.exceptions)
        self.reader = CaptureReader(self.session)

    def classify(self, event_set: Composite) -> Found:
        """What an event set is to us: the reasons it stops for. What each event means is its request kind's
        to say (:meth:`.requests.manager.Requests.meaning`); events of requests not ours are ignored."""
        found = Found()
        for event in event_set.events:
            if isinstance(event, VMStartEvent):  # sent unasked: no request of ours is behind it
                if event_set.suspend_policy == SuspendPolicy.NONE:
                    continue
                found.reasons += ["launch", "vm_start"] if self.launch else ["vm_start"]
                found.thread = found.thread if found.thread is not None else event.thread
                continue
            meaning = self.breakpoints.meaning(event)
            if meaning is not None:
                found.take(meaning, event)
        # A set of a request cleared meanwhile (detach) still suspended its thread: EVENT_THREAD releases that one.
        stray = next((t for t in (getattr(e, "thread", None) for e in event_set.events) if isinstance(t, int)), 0)
        thread = found.thread if found.thread is not None else (
            found.prepares[0].thread if found.prepares else ThreadId(stray))
        found.suspension = Suspension(event_set.suspend_policy, thread)
        found.revisions = {b: self.breakpoints.revision(b) for b in found.breakpoint_ids}
        return found

    async def judge_exceptions(self, found: Found) -> None:
        """Drop the exception breakpoints whose event does not stop (:mod:`.crashes`: judged by the catch
        location); a crash watch's stop trades its EVENT_THREAD suspension for an owned VM suspension
        (:func:`.judge.hold_vm`), as an exception stop holds every thread."""
        kept = [thrown for thrown in found.thrown if await self.crashes.stops(thrown)]
        dropped = {t.breakpoint_id for t in found.thrown} - {t.breakpoint_id for t in kept}
        found.breakpoint_ids = [b for b in found.breakpoint_ids if b not in dropped]
        found.exception = kept[0].event if kept else None
        if not kept:
            found.reasons = [r for r in found.reasons if r != "exception"]
        elif found.suspension.policy == SuspendPolicy.EVENT_THREAD:
            await hold_vm(self.vm, found.suspension.thread)
            found.suspension = Suspension(SuspendPolicy.ALL, found.suspension.thread)

    async def read_change(self, found: Found) -> None:
        """What a watchpoint's field event saw, read while its thread waits before the access."""
        if found.field_event is not None:
            event, watched = found.field_event
            found.change, found.change_names = await read_change(self.vm, self.values, watched, event)
        if found.returned is not None:
            found.return_value, names = await read_return(self.values, *found.returned)
            found.change_names += names

    @staticmethod
    def judged_apart(found: Found) -> bool:
        """Whether an event set is only hits to judge, holding only their thread (``EVENT_THREAD``): no class to
        bind, no step, no exception. The engine judges such sets outside its lock, several threads' at once,
        and takes the lock only to make a stop (:meth:`.engine.Debugger._judge_apart`)."""
        return (found.suspension.policy == SuspendPolicy.EVENT_THREAD and bool(found.breakpoint_ids)
                and set(found.reasons) <= {"breakpoint", "watchpoint"} and not found.prepares
                and found.step is None and not found.thrown)

    async def judge_hits(self, found: Found) -> None:
        """Drop the breakpoints whose hit does not stop (:mod:`.judge`); :meth:`hold` then holds the stop."""
        verdict = await self.judge.judge(found.breakpoint_ids, found.suspension.thread, found.location,
                                         found.change_names, found.change, found.return_value)
        found.breakpoint_ids, found.condition_error = verdict.stopping, verdict.condition_error
        found.after = verdict
        found.hold = verdict.hold
        if not verdict.stopping:
            found.reasons = [r for r in found.reasons if r not in ("breakpoint", "watchpoint")]

    def drop_unwanted(self, found: Found) -> None:
        """Leave out the breakpoints removed, disabled, spent or updated while the hit was judged (outside the
        lock): a hit of those makes no stop (:meth:`.requests.manager.Requests.wants`)."""
        kept = [b for b in found.breakpoint_ids if self.breakpoints.wants(b, found.revisions.get(b))]
        if len(kept) != len(found.breakpoint_ids):
            found.breakpoint_ids = kept
            if not kept:
                found.reasons = [r for r in found.reasons if r not in ("breakpoint", "watchpoint")]

    async def hold(self, found: Found) -> None:
        """A judged hit that stops with SUSPEND_ALL semantics trades its EVENT_THREAD suspension for an owned
        VM suspension (:func:`.judge.hold_vm`); one of ``suspend: "thread"`` keeps the event's."""
        if found.reasons and found.suspension.policy == SuspendPolicy.EVENT_THREAD:
            found.thread_only = found.hold == "thread"
            if found.hold == "all":
                await hold_vm(self.vm, found.suspension.thread)
                found.suspension = Suspension(SuspendPolicy.ALL, found.suspension.thread)

    def capture_of(self, found: Found, own: StepInFlight | None) -> CapturePlan | None:
        """The capture of the stop ``found`` makes: its breakpoints', its step's (completed, or cut short by a
        breakpoint of its thread: the stop it leads to either way), and the one the next stop was given
        (:attr:`next_capture`, a resume's), merged (:func:`.capture.merge`)."""
        plans = [self.breakpoints.capture_of(breakpoint_id) for breakpoint_id in found.breakpoint_ids]
        plans.append(found.step.capture if found.step is not None else None)
        plans.append(own.capture if own is not None and own is not found.step else None)
        plans.append(self.next_capture)
        return merge(plans)

    async def stop_of(self, found: Found) -> StopState | None:
        """The stop an event set makes, or ``None`` when a filtered step stepped on past a synthetic method."""
        thread = found.suspension.thread
        location = found.location
        if found.step is not None and set(found.reasons) == {"step"} and location is not None:
            if not found.resumed and await self.steps.step_over_inlined(found.step, location):  # a Kotlin inline call
                return None
            if await self.steps.follow(found.step, thread, location, found.resumed):  # it follows its coroutine
                return None
        self.breakpoints.passes.thread_stopped(thread, found.breakpoint_ids)  # other passes of it end here
        own = self.steps.of_thread(thread)
        plan = self.capture_of(found, own)
        ended: StepKind | None = None
        if own is not None:  # its thread stops: the step ends, completed or cut short by a breakpoint
            await self.steps.end(own)
            ended = None if own is found.step else own.kind
        if found.step is not None and found.step is not own:  # its coroutine resumed here, in another thread
            await self.steps.end(found.step)
        if location is None:  # VM start: the thread has not run yet; describe its top frame if any
            frames = await self.vm.thread_reference.frames(thread, 0, -1) if thread else []
            location = frames[0].location if frames else None
        thunks: list[Callable[[], Awaitable[Any]]] = [
            lambda: self.vm.thread_reference.name(thread),
            lambda: self.symbols.describe([location] if location else []),
            lambda: self.steps.drop_ended_threads(thread),
            # The variable table of the stop's method: the locals asked next need it (one a VM cannot give now
            # is asked again by them, where the error belongs).
            partial(self.symbols.variables.fetch, [(location.class_id, location.method_id)] if location else []),
            # java.lang.String's layout, once per session on HotSpot (the strings of the stop's locals are read
            # by it, .strings): here it overlaps the stop's own round trips instead of adding to the locals'.
            self.values.strings.reading_layout,
            # The thread's depth, so that its first stack page asks exactly its frames (one round trip, and
            # never "all from the top" on a 10,000-frame recursion): a suspended thread's stack does not change.
            # Frame 0 comes with it (the stop's frame_id), and the frames a capture lists.
            partial(first_frames, self.vm, thread, max(1, plan.capture.stack) if plan is not None else 1)]
        guess = self.judge.frame_guesses.guess(thread) if wants_locals(plan) and location is not None else None
        thunks.append(partial(self.reader.ahead, thread, location, guess)
                      if guess is not None and location is not None else nothing)
        if found.exception is not None:
            thunks.append(partial(describe_thrown, self.values, self.layouts, self.symbols, found.exception))
        returned = found.return_value
        step = found.step
        if step is not None and step.kind == "out" and step.returned_value is not None and step is own:
            returned, _ = await read_return(self.values, step.returned_value, step.returns)
        name, positions, _, _, _, top, read_ahead, *thrown = await gather(thunks)
        if found.step is not None and found.reasons == ["step"] and location is not None:
            if await self.steps.step_past_synthetic(found.step, location) or \
                    await self.steps.step_out_of_filtered(found.step, thread, location):
                return None
        self.next_capture = None  # this is the next stop: a resume's capture is spent on it
        stop_id = self.stops.new_id()
        thread_handle = f"{stop_id}.t{thread:x}"
        position = positions[0] if positions else None
        note = LAUNCH_NOTE if "launch" in found.reasons else BEFORE_MAIN if position is None else None
        if found.step is not None and found.step.filtering.note is not None and location is not None \
                and await self.steps.is_filtered(location):
            note = found.step.filtering.note  # its filters would have left it nowhere to land (.steps)
        stop = Stop(stop_id, tuple(dict.fromkeys(found.reasons)), thread_handle, name, position,
                    tuple(dict.fromkeys(found.breakpoint_ids)), ended_step=ended, note=note,
                    condition_error=found.condition_error, suspended="thread" if found.thread_only else None,
                    exception=thrown[0] if thrown else None, watch=found.change,
                    return_value=returned)
        state = StopState(stop, found.suspension, {thread_handle: thread}, names={thread: name},
                          frame_counts={thread: top.count} if top.count is not None else {}, location=location,
                          revisions=found.revisions)
        await self._with_top(state, thread, top, plan, read_ahead)
        return state

    async def add_capture(self, state: StopState, plan: CapturePlan) -> None:
        """Read a capture for a stop made before it was asked for (a queued stop a resume makes current). One
        that has a capture of its own (its breakpoint's) is read again with the two merged (:func:`.capture.
        merge`: the deeper stack, locals if either asks, every expression once): its thread has stayed
        suspended, so what it reads is what the stop's first read would have."""
        thread = state.suspension.thread
        merged = merge([state.capture_plan, plan])
        if state.stop.thread_id is None or merged is None or merged == state.capture_plan:
            return
        await self._with_top(state, thread, await first_frames(self.vm, thread, max(1, merged.capture.stack)),
                             merged)

    async def _with_top(self, state: StopState, thread: ThreadId, top: Top, plan: CapturePlan | None,
                        read_ahead: Locals | None = None) -> None:
        """Give a stop its frame 0 (``frame_id``) and, with ``plan``, its capture (:mod:`.capture`);
        ``read_ahead``: frame 0's locals read with a guess of its ID, which ``ThreadReference.Frames`` confirmed."""
        ref = frame0(thread, top)
        if ref is None or state.stop.thread_id is None:
            return
        self.judge.frame_guesses.saw(thread, ref.frame)  # the next stop of this thread guesses from it
        frame_id = f"{state.stop.thread_id}.f0"
        state.frames.setdefault(frame_id, ref)
        captured = None
        state.capture_plan = plan
        if plan is not None:
            locals_of = locals_reader(self.vm, self.symbols, self.values, ref)
            if read_ahead is not None:
                locals_of.known(read_ahead)
            captured, handles = await self.reader.read(plan, thread, top, state.stop.thread_id, state.cache,
                                                       locals_of)
            state.frames.update(handles)
            if captured.locals is not None:
                state.locals[frame_id] = captured.locals
        state.stop = dataclasses.replace(state.stop, frame_id=frame_id, capture=captured)

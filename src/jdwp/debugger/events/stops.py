"""The engine's stops: the current one, those queued behind it, the suspension each holds, and the IDs they issue.

Layer: ``jdwp.debugger`` on ``jdwp.client``; no MCP, no ``android``. docs/design.md §3.3 (suspension ownership,
one stop per event set, queued stops) and §5.2 (stale and foreign IDs).

Every event set whose suspend policy is not NONE is one suspension we own, and a stop holds exactly the
suspension of its event set (or the ``VirtualMachine.Suspend`` a pause or a launch hold made): releasing a
stop releases exactly that, never more. Only the current stop can be inspected, resumed or stepped; its
stop, thread and frame IDs embed its stop ID (:mod:`.ids`), so an ID of a stop that ended is told apart
from a wrong one before anything is sent to the VM.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import deque
from collections.abc import Callable
from typing import Any, NoReturn

from ...client import JdwpClient
from ...protocol.commands import Command, Empty, ThreadReference, VirtualMachine
from ...protocol.commands.threads import ThreadOut
from ...protocol.constants import SuspendPolicy
from ...protocol.errors import ConnectionClosed, JdwpError
from ...protocol.types import Location, ThreadId
from ..errors import InvalidArgument, NotFound, NotPaused, StaleReference
from ..ids import IdScheme
from ..model import EngineEvent, Locals, Stop, Stopped
from ..reading.frames import FrameRef
from ..reading.stop_cache import StopCache
from ..requests.capture import CapturePlan
from ..requests.steps import Steps

__all__ = ["BREAKPOINT_REASONS", "StopState", "Stops", "Suspension", "release", "release_command"]

#: The reasons a breakpoint of the stop's ``breakpoint_ids`` gives; every other reason (a step's landing, a
#: pause, a launch hold, VM start) is wanted for as long as the stop lasts.
BREAKPOINT_REASONS = frozenset({"breakpoint", "watchpoint", "exception"})


@dataclasses.dataclass(frozen=True, slots=True)
class Suspension:
    """One suspension we own: an event set's policy, and its thread for EVENT_THREAD."""

    policy: int
    thread: ThreadId


@dataclasses.dataclass
class StopState:
    stop: Stop
    suspension: Suspension
    threads: dict[str, ThreadId]
    frames: dict[str, FrameRef] = dataclasses.field(default_factory=dict)
    frame_counts: dict[ThreadId, int] = dataclasses.field(default_factory=dict)
    names: dict[ThreadId, str] = dataclasses.field(default_factory=dict)
    # A suspended frame's locals do not change during its stop (a method the debugger calls runs above it).
    locals: dict[str, Locals] = dataclasses.field(default_factory=dict)
    location: Location | None = None  # where the stop's own thread is, as the VM said
    #: What its capture read (``Stop.capture``): a resume's capture for it, made current from the queue, is merged.
    capture_plan: CapturePlan | None = None
    #: Its breakpoints' revisions as its hit came (:meth:`.requests.manager.Requests.revision`).
    revisions: dict[str, int] = dataclasses.field(default_factory=dict)
    #: What its reads found that holds while it lasts (hash-table scans, previews): a new stop, a new cache.
    cache: StopCache = dataclasses.field(default_factory=StopCache)


def release_command(suspension: Suspension) -> tuple[Command[Any, Any], Any]:
    """The command that releases a suspension of policy ALL or EVENT_THREAD (see :func:`release`)."""
    if suspension.policy == SuspendPolicy.ALL:
        return VirtualMachine.Resume, Empty()
    if suspension.policy == SuspendPolicy.EVENT_THREAD:
        return ThreadReference.Resume, ThreadOut(suspension.thread)
    raise ValueError(f"a suspension of policy {suspension.policy} holds nothing to release")


async def release(vm: JdwpClient, suspension: Suspension) -> None:
    """Release one suspension we own: ``VirtualMachine.Resume`` (1,9) for ALL, ``ThreadReference.Resume``
    (11,3) of its thread for EVENT_THREAD, nothing for NONE."""
    if suspension.policy != SuspendPolicy.NONE:
        await vm.request(*release_command(suspension))


async def release_unconfirmed(vm: JdwpClient, suspension: Suspension) -> None:
    """:func:`release`, without waiting for the VM's answer: for an event set that makes no stop (a false
    condition, a logpoint), so the event loop is free for the next hit at once. A failure the VM answers
    later is logged, as the engine logs a failed release it waited for; a connection that ends first released
    everything anyway."""
    if suspension.policy != SuspendPolicy.NONE:
        await vm.send(*release_command(suspension), on_error=_release_failed)


def _release_failed(error: JdwpError) -> None:
    if not isinstance(error, ConnectionClosed):
        log.warning("releasing an event set failed: %s", error)


log = logging.getLogger("jdwp.debugger")


class Stops:
    """The current stop and the queue behind it, and how a stop, thread or frame ID is resolved.

    The engine changes them under its lock; making a stop current publishes it (``Stopped``).

    A stop is made current only while one of its reasons is still wanted (``wants`` tells of a breakpoint ID and
    the revision its hit saw: held, enabled, not spent, not updated since). Another thread may hit a breakpoint
    just before the user removes, disables, updates or spends it; its stop, queued behind the current one, is
    then taken off the queue as it comes up and handed back for release, never shown: IntelliJ resumes such
    events too. A stop that ended a step of its thread (``ended_step``) stays wanted: the step stops there, and
    releasing it would let the thread run on unstepped.
    """

    def __init__(self, ids: IdScheme, steps: Steps, publish: Callable[[EngineEvent], None],
                 wants: Callable[[str, int | None], bool] = lambda breakpoint_id, revision: True) -> None:
        self._ids = ids
        self._steps = steps
        self._publish = publish
        self._wants = wants
        self.current: StopState | None = None
        self.queue: deque[StopState] = deque()
        self.issued = 0  # stops numbered so far: a higher number was never issued

    def new_id(self) -> str:
        """The ID of the next stop."""
        self.issued += 1
        return self._ids.stop(self.issued)

    def arrive(self, state: StopState) -> list[StopState]:
        """A new stop: queued behind the current one, or current when none is. Returns the stops to release,
        wanted no more (:meth:`promote`): this one, when its breakpoints went while its hit was judged."""
        self.queue.append(state)
        return self.promote()

    def wanted(self, state: StopState) -> bool:
        """Whether one of the stop's reasons is still wanted: a breakpoint of it held, enabled, not spent or updated,
        a reason no breakpoint gives (a step's landing, a pause), or a step of its thread it ended."""
        if state.stop.ended_step is not None or any(r not in BREAKPOINT_REASONS for r in state.stop.reasons):
            return True
        return any(self._wants(b, state.revisions.get(b)) for b in state.stop.breakpoint_ids)

    def _shown(self, state: StopState) -> StopState:
        """The stop as it becomes current: the breakpoints wanted no more are left out of its
        ``breakpoint_ids`` (and their reasons, when none is left), so it never names a removed one."""
        stop = state.stop
        kept = tuple(b for b in stop.breakpoint_ids if self._wants(b, state.revisions.get(b)))
        if kept == stop.breakpoint_ids:
            return state
        # None left: the stop is wanted for another reason, or as the end of its thread's step (``ended_step``).
        reasons = stop.reasons if kept else tuple(r for r in stop.reasons if r not in BREAKPOINT_REASONS) or ("step",)
        state.stop = dataclasses.replace(stop, breakpoint_ids=kept, reasons=reasons)
        return state

    def make_current(self, state: StopState) -> None:
        # Steps pending are told as of now: a queued stop may become current after other steps began.
        state.stop = dataclasses.replace(state.stop, pending_steps=self._steps.pending(state.suspension.thread))
        self.current = state
        self._publish(Stopped(state.stop))

    def promote(self) -> list[StopState]:
        """While no stop is current, the next queued one becomes current; those wanted no more
        (:meth:`wanted`) are taken off the queue on the way and returned, for the engine to release."""
        unwanted = []
        while self.current is None and self.queue:
            state = self.queue.popleft()
            if self.wanted(state):
                self.make_current(self._shown(state))
            else:
                unwanted.append(state)
        return unwanted

    def take_unwanted(self) -> list[StopState]:
        """The queued stops wanted no more (after a remove, disable or update), taken off the queue for release
        at once: their threads need not wait for the current stop to end."""
        unwanted = [state for state in self.queue if not self.wanted(state)]
        if unwanted:
            self.queue = deque(state for state in self.queue if all(state is not gone for gone in unwanted))
        return unwanted

    def take_all(self) -> list[StopState]:
        """Every stop, current and queued, handed over for release (detach): none is current afterwards."""
        states = ([self.current] if self.current else []) + list(self.queue)
        self.clear()
        return states

    def clear(self) -> None:
        self.current = None
        self.queue.clear()

    # --- references --------------------------------------------------------------------------------

    def resolve(self, stop_id: str) -> StopState:
        """The current stop, if ``stop_id`` names it.

        Raises:
            StaleReference: a stop of this session that has ended.
            NotPaused, NotFound: no stop is current, or the ID is not one of this session's.
        """
        current = self.current
        if current is not None and current.stop.stop_id == stop_id:
            return current
        if self.is_issued(stop_id):
            raise StaleReference(f"stop {stop_id} has ended (resumed, stepped or detached); "
                                 "wait for the next stop and use its IDs")
        if current is None:
            raise NotPaused(f"the VM is not stopped, and {stop_id!r} is not a stop of this session")
        raise NotFound(f"{stop_id!r} is not a stop of this session")

    def is_issued(self, handle: str) -> bool:
        """Whether a stop, thread or frame ID names a stop this session issued.

        Raises:
            NotFound: an ID of another session (another prefix).
        """
        number = self._ids.number(handle, "stop")
        return number is not None and number <= self.issued

    @staticmethod
    def thread_handle(state: StopState, thread_id: str | None) -> str:
        """``thread_id``, or when it is not given the stop's own thread (a pause has none: then an error)."""
        if thread_id is not None:
            return thread_id
        if state.stop.thread_id is None:
            raise InvalidArgument("this stop (a pause) has no thread of its own: give thread_id, from "
                                  "Debugger.threads() with this stop_id")
        return state.stop.thread_id

    def thread_for(self, state: StopState, thread_id: str) -> ThreadId:
        thread = state.threads.get(thread_id)
        if thread is None:
            self.raise_for_handle(state, thread_id, "thread")
        return thread

    def raise_for_handle(self, state: StopState, handle: str, what: str) -> NoReturn:
        stop_part = handle.partition(".")[0]
        if self.is_issued(stop_part) and stop_part != state.stop.stop_id:
            raise StaleReference(f"{what} {handle} belongs to stop {stop_part}, which has ended")
        thread = state.threads.get(handle.rpartition(".")[0]) if what == "frame" else None
        if thread is not None and not any(ref.thread == thread for ref in state.frames.values()):
            raise NotFound(f"{handle!r} was not listed: frame IDs come from the stack listing; list this thread's "
                           "stack for this stop first (Debugger.stack()) and use its frame_id values")
        if thread is not None:
            raise NotFound(f"{handle!r} is not a frame listed for this stop; list the stack (Debugger.stack(), "
                           "with an offset for deeper frames) and use its frame_id values")
        hint = "; other threads' IDs come from Debugger.threads() with this stop_id" if what == "thread" else ""
        raise NotFound(f"{handle!r} is not a {what} ID of the current stop{hint}")

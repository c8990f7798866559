"""Steps in flight: one JDWP step request per thread, kept until that thread stops; and step filters.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). DESIGN.md §3 ("Step").

A step is ``EventRequest.Set(SINGLE_STEP, ALL, [Step(thread, LINE, depth), ClassExclude…, Count(1)])``
(15,1). The request stays set while other threads stop and resume — resuming their stops with
``VirtualMachine.Resume`` lets the stepping thread go on — so a stop in another thread lists the step as
pending. It ends when its own thread stops: the step completes, or a breakpoint of that thread comes
first. A step whose thread has ended is dropped when the next stop looks at the steps pending.

Step filters, on unless the caller turns them off (IntelliJ's defaults, plus the Android platform):
- ``ClassExclude`` for the JDK's, Kotlin's runtime internals and Android's platform classes: a step never
  stops in them; a step into one of their calls goes on until app code runs again or the call returns.
  Modifiers apply in order, so ``Count(1)`` comes after the exclusions (excluded places use no count).
- A step that lands in a synthetic method (a bridge, an accessor, Kotlin's ``$default``) steps on: ``into``
  again (through a bridge into the method it calls), ``over`` and ``out`` as ``out`` (back to the real
  caller). Lambda bodies are synthetic to javac but are app code: they are not skipped.

A step over whose thread's top frame is native (after a pause: ``Thread.sleep``, ``Object.wait``) cannot finish
where it was asked: there is no line to step over, and HotSpot's back end never completes it (jdb's ``next``
hangs the same way). It is made a step out (:meth:`Steps.kind_for`), which finishes when the native call
returns; the caller says so in its answer.
"""

from __future__ import annotations

import dataclasses
import logging
from functools import partial

from ...client import JdwpClient
from ...protocol.commands.events import ClassExclude, Count, Modifier, Step
from ...protocol.constants import EventKind, StepDepth, StepSize, SuspendPolicy, ThreadStatus
from ...protocol.errors import CommandError
from ...protocol.types import Location, ThreadId
from .._gather import gather
from ..classes.symbols import ACC_SYNTHETIC, JDWP_SYNTHETIC, Symbols
from ..model import NO_CODE_INDEX, PendingStep, SourcePosition, StepKind
from .capture import CapturePlan
from .prepares import ClearRequest

log = logging.getLogger("jdwp.debugger")

STEP_EXCLUDES = (
    "java.*", "javax.*", "jdk.*", "sun.*", "com.sun.*",
    "kotlin.jvm.internal.*", "kotlin.internal.*", "kotlin.coroutines.jvm.internal.*", "kotlin.coroutines.intrinsics.*",
    "android.*", "com.android.internal.*", "dalvik.*", "libcore.*",
)
MAX_RESTEPS = 10  # a chain of synthetic frames longer than this is reported where it stands
DEPTHS = {"into": StepDepth.INTO, "over": StepDepth.OVER, "out": StepDepth.OUT}


@dataclasses.dataclass
class StepInFlight:
    request_id: int
    thread: ThreadId
    thread_name: str
    kind: StepKind
    filters: bool
    resteps: int = 0
    capture: CapturePlan | None = None  # what the stop it ends in reads (:mod:`.capture`)


class Steps:
    """The steps of one session, by thread."""

    def __init__(self, vm: JdwpClient, symbols: Symbols) -> None:
        self._vm = vm
        self._symbols = symbols
        self._by_thread: dict[ThreadId, StepInFlight] = {}

    def of_request(self, request_id: int) -> StepInFlight | None:
        return next((s for s in self._by_thread.values() if s.request_id == request_id), None)

    def of_thread(self, thread: ThreadId) -> StepInFlight | None:
        return self._by_thread.get(thread)

    def pending(self, stop_thread: ThreadId) -> tuple[PendingStep, ...]:
        """The steps of threads other than the stop's, which go on once the stop is resumed."""
        return tuple(PendingStep(s.thread_name, s.kind) for t, s in self._by_thread.items() if t != stop_thread)

    async def kind_for(self, thread: ThreadId, kind: StepKind, top: SourcePosition | None) -> StepKind:
        """The step to arm for ``kind`` on a suspended thread: ``out`` for an ``over`` whose top frame is native.

        ``top`` is the thread's top frame when the stop knows it (its own thread's place); otherwise the top
        frame is asked (``ThreadReference.Frames``, 11,6, and the method's modifiers when not cached).

        Raises:
            JdwpError: the VM could not say (the thread is not suspended, or gone).
        """
        if kind != "over":
            return kind
        if top is not None:
            native = top.code_index == NO_CODE_INDEX
        else:
            frames = await self._vm.thread_reference.frames(thread, 0, 1)
            native = bool(frames) and await self._symbols.is_native(frames[0].location)
        return "out" if native else kind

    async def start(self, thread: ThreadId, thread_name: str, kind: StepKind, filters: bool, resteps: int = 0,
                    depth: StepDepth | None = None, capture: CapturePlan | None = None) -> None:
        """Arm a step on a suspended thread (replacing a step it had). ``depth`` overrides ``kind``'s.

        Raises:
            JdwpError: the VM refused or did not answer; no step is recorded for the thread.
        """
        old = self._by_thread.get(thread)
        if old is not None:
            await self.end(old)
        modifiers: list[Modifier] = [Step(thread, StepSize.LINE, depth if depth is not None else DEPTHS[kind])]
        if filters:
            modifiers += [ClassExclude(pattern) for pattern in STEP_EXCLUDES]
        modifiers.append(Count(1))
        request_id = await self._vm.event_request.set(EventKind.SINGLE_STEP, SuspendPolicy.ALL, modifiers)
        self._by_thread[thread] = StepInFlight(request_id, thread, thread_name, kind, filters, resteps, capture)

    async def end(self, step: StepInFlight) -> None:
        """Forget the step and clear its request (``Count(1)`` has expired it if it completed)."""
        if self._by_thread.get(step.thread) is step:
            del self._by_thread[step.thread]
        try:
            await self._vm.event_request.clear(EventKind.SINGLE_STEP, step.request_id)
        except CommandError as exc:
            log.debug("clearing step request %d: %s", step.request_id, exc)

    def take_all(self) -> list[ClearRequest]:
        """Forget every step and return their requests to clear (detach)."""
        taken = [ClearRequest(EventKind.SINGLE_STEP, step.request_id, f"step request of thread {step.thread_name}")
                 for step in self._by_thread.values()]
        self._by_thread.clear()
        return taken

    async def drop_ended_threads(self, stop_thread: ThreadId) -> None:
        """Forget the steps of threads that have ended (they will never complete); one round trip."""
        others = [s for t, s in self._by_thread.items() if t != stop_thread]
        if not others:
            return
        alive = await gather([partial(self._is_alive, s.thread) for s in others])
        for step, live in zip(others, alive, strict=True):
            if not live:
                await self.end(step)

    async def _is_alive(self, thread: ThreadId) -> bool:
        try:
            status = await self._vm.thread_reference.status(thread)
        except CommandError:  # INVALID_THREAD / INVALID_OBJECT: gone
            return False
        return bool(status.thread_status != ThreadStatus.ZOMBIE)

    async def step_past_synthetic(self, step: StepInFlight, location: Location) -> bool:
        """Step on when a filtered step landed in a synthetic method that is not a lambda body.

        Call after the landing's class facts are cached (``Symbols.describe``). Returns True when a new
        step was armed (the caller releases the suspension and reports no stop).
        """
        if not step.filters or step.resteps >= MAX_RESTEPS:
            return False
        method = (await self._symbols.methods(location.class_id)).get(location.method_id)
        if method is None or not method.mod_bits & (ACC_SYNTHETIC | JDWP_SYNTHETIC) or _is_lambda(method.name):
            return False
        depth = StepDepth.INTO if step.kind == "into" else StepDepth.OUT
        await self.start(step.thread, step.thread_name, step.kind, True, step.resteps + 1, depth, step.capture)
        return True


def _is_lambda(name: str) -> bool:
    """javac's ``lambda$main$0``, Kotlin's ``main$lambda$0`` and ``main$lambda-0``."""
    return "lambda$" in name or "$lambda" in name

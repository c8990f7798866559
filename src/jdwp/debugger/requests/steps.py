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

A step out also tells the value the method it leaves returned, where the VM can (JDWP 1.6's
``MethodExitWithReturnValue``): with the step, ``EventRequest.Set(METHOD_EXIT_WITH_RETURN_VALUE, NONE,
[ThreadOnly(thread), ClassOnly(frame 0's class)])`` — scoped to the one thread and class, so the VM reports
only the exits on the way out, and suspends nothing for them. The last exit of frame 0's method before the
step completes is that frame's own (a recursive call of it exits earlier, deeper); the VM sends one
thread's events in the order they happen. The request is cleared with the step.
"""

from __future__ import annotations

import dataclasses
import logging
from functools import partial

from ...client import JdwpClient
from ...protocol.commands.events import ClassExclude, ClassOnly, Count, Modifier, Step, ThreadOnly
from ...protocol.constants import EventKind, StepDepth, StepSize, SuspendPolicy, ThreadStatus
from ...protocol.errors import CommandError
from ...protocol.types import Location, ThreadId
from ...protocol.values import Value
from .._gather import gather
from ..classes.symbols import ACC_SYNTHETIC, JDWP_SYNTHETIC, Symbols
from ..model import NO_CODE_INDEX, PendingStep, SourcePosition, StepKind
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
    #: A step out's exit request (``None``: none made), the method it leaves, and what that returned.
    exit_request: int | None = None
    leaving: tuple[int, int] | None = None  # (class, method) of frame 0 when the step out began
    returns: str = "V"  # the method's JNI return type
    returned: Value | None = None


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

    def saw_exit(self, request_id: int, method_id: int, value: Value | None) -> None:
        """A method exit of a step out's request: the value, when it is the method the step leaves."""
        for step in self._by_thread.values():
            if step.exit_request == request_id and step.leaving is not None and step.leaving[1] == method_id:
                step.returned = value

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
                    depth: StepDepth | None = None) -> None:
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
        made = StepInFlight(0, thread, thread_name, kind, filters, resteps)
        if kind == "out" and depth is None:
            await self._watch_return(made)
        try:
            made.request_id = await self._vm.event_request.set(EventKind.SINGLE_STEP, SuspendPolicy.ALL, modifiers)
        except CommandError:
            await self._clear_exit(made)
            raise
        self._by_thread[thread] = made

    async def _watch_return(self, step: StepInFlight) -> None:
        """Ask for the exits of frame 0's method on the step's thread, when the VM sends return values."""
        capabilities = self._symbols.known_capabilities or await self._symbols.capabilities()
        if not capabilities.method_return_values:
            return
        frames = await self._vm.thread_reference.frames(step.thread, 0, 1)
        if not frames or frames[0].location.index == NO_CODE_INDEX:
            return  # nothing to tell from a native frame's exit
        top = frames[0].location
        method = (await self._symbols.methods(top.class_id)).get(top.method_id)
        try:
            step.exit_request = await self._vm.event_request.set(
                EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.NONE,
                [ThreadOnly(step.thread), ClassOnly(top.class_id)])
        except CommandError as exc:  # the step goes on without the value
            log.info("a step out's MethodExitWithReturnValue request was refused: %s", exc)
            return
        step.leaving = (top.class_id, top.method_id)
        step.returns = method.signature.rpartition(")")[2] if method is not None else "V"

    async def _clear_exit(self, step: StepInFlight) -> None:
        if step.exit_request is None:
            return
        try:
            await self._vm.event_request.clear(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, step.exit_request)
        except CommandError as exc:
            log.debug("clearing a step's exit request %d: %s", step.exit_request, exc)
        step.exit_request = None

    async def end(self, step: StepInFlight) -> None:
        """Forget the step and clear its request (``Count(1)`` has expired it if it completed)."""
        if self._by_thread.get(step.thread) is step:
            del self._by_thread[step.thread]
        try:
            await self._vm.event_request.clear(EventKind.SINGLE_STEP, step.request_id)
        except CommandError as exc:
            log.debug("clearing step request %d: %s", step.request_id, exc)
        await self._clear_exit(step)

    def take_all(self) -> list[ClearRequest]:
        """Forget every step and return their requests to clear (detach)."""
        taken = [ClearRequest(EventKind.SINGLE_STEP, step.request_id, f"step request of thread {step.thread_name}")
                 for step in self._by_thread.values()]
        taken += [ClearRequest(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, step.exit_request,
                               f"step-out exit request of thread {step.thread_name}")
                  for step in self._by_thread.values() if step.exit_request is not None]
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
        await self.start(step.thread, step.thread_name, step.kind, True, step.resteps + 1, depth)
        return True


def _is_lambda(name: str) -> bool:
    """javac's ``lambda$main$0``, Kotlin's ``main$lambda$0`` and ``main$lambda-0``."""
    return "lambda$" in name or "$lambda" in name

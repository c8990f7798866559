"""Steps in flight: one JDWP step request per thread, kept until that thread stops; and step filters.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.4 ("Step").

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

Where a step starts decides whether its filters apply, and a step through a Kotlin inline call: see
:mod:`.library_steps`.

Steps that follow the coroutine (docs/design.md §3.11; continuations are read by :mod:`.resumes`). A filtered step
that starts in coroutine code (a suspend function's state machine, a suspend lambda's
``invokeSuspend``) also sets a *resume breakpoint*: on the continuation itself for ``over`` and ``into`` (a
step into a call that suspends, ``delay`` say, comes back as a step over it), on the one that awaits it for
``out``. Where the step lands decides:

- in the same frame, or (``into``) deeper: an ordinary step; the resume breakpoint is cleared;
- anywhere out of that frame, when the frame returned ``COROUTINE_SUSPENDED``: it suspended. No stop; the
  thread's step ends and the resume breakpoint waits for whatever thread resumes the coroutine. The frame's
  exit tells, with the value it returned (``MethodExitWithReturnValue``, as a step out reads it, below): a
  state machine returns that marker only to suspend, and every caller up to the coroutine's runtime passes
  it on. Nothing else tells in every case: a one-line suspend lambda (``startCoroutine { work() }``) has its
  suspended return on the line of its call, so the step lands in no app frame until its thread is back in
  code that has nothing to do with the coroutine (``startStdlib`` blocking on a queue, a dispatcher's next
  task), before or after the resumption, as the threads race;
- where the VM sends no return value (JDWP before 1.6, or an exit by a throw, which JDWP does not report):
  in the caller's state machine, one frame up, the step steps on, and lands at the start of a prologue-line
  entry when the caller suspends too (kotlinc gives each suspension point's ``return COROUTINE_SUSPENDED``
  an entry of the prologue line; the code a returned call goes on with lies inside one, past that return):
  then it suspended, as above. Elsewhere, with the state machine's ``label`` moved on since the start: it
  suspended; as above;
- a frame that returned a value: in the caller's state machine, the step steps on to the caller's next
  line (past the prologue-line code a returned call goes on with); elsewhere an ordinary stop;
- in a continuation's ``invokeSuspend`` that has no line table (a suspend function returned to the
  ``BaseContinuationImpl.resumeWith`` loop that resumed it): no stop there (it would be ``line: null``); the
  resume breakpoint moves to the awaiting continuation, which that loop resumes next;
- a resume breakpoint's hit, on any thread, arms a step there (``into`` when its ``invokeSuspend`` only calls
  the state machine); that step steps on while it lands on the state machine's prologue line (its dispatch
  on ``label``, which also holds the resumption's code) or the line it started from, so it stops on the next
  line of the same coroutine.

The filters also exclude ``kotlinx.coroutines.*`` and the stdlib's ``kotlin.coroutines.*``: a step never stops
in a dispatcher (``DispatchedTask.run``) or in the ``resumeWith`` loop.

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

import logging
from functools import partial

from ...client import JdwpClient
from ...protocol.commands.events import (
    BreakpointEvent,
    ClassExclude,
    ClassOnly,
    Count,
    MethodExitEvent,
    MethodExitWithReturnValueEvent,
    Modifier,
    SingleStepEvent,
    Step,
    ThreadOnly,
)
from ...protocol.constants import (
    ACC_SYNTHETIC,
    JDWP_SYNTHETIC,
    EventKind,
    StepDepth,
    StepSize,
    SuspendPolicy,
    ThreadStatus,
)
from ...protocol.errors import CommandError
from ...protocol.types import Location, ReferenceTypeId, ThreadId
from ...protocol.values import Value
from .._gather import gather, nothing
from ..classes.coroutine_machinery import SUSPENDED_MARKER
from ..classes.symbols import Symbols, line_at, line_locations
from ..classes.synthetic import lambda_holder_host
from ..model import NO_CODE_INDEX, PendingStep, SourcePosition, StepKind
from ..names import binary_name_of
from ..reading.objects import Layouts
from .capture import CapturePlan
from .kind import Meaning, RequestKind
from .library_steps import FILTERED, STEP_EXCLUDES, Fate, Filtering, LibrarySteps, Origin, StepInFlight
from .prepares import ClearRequest
from .resumes import CONTINUATION_LOCAL, INVOKE_SUSPEND, Continuations, prologue_line

log = logging.getLogger("jdwp.debugger")

MAX_RESTEPS = 10  # a chain of synthetic frames longer than this is reported where it stands
DEPTHS = {"into": StepDepth.INTO, "over": StepDepth.OVER, "out": StepDepth.OUT}
class Steps(LibrarySteps, RequestKind):
    """The steps of one session, by thread: the step kind of request (its events: a step's landing, its
    resume breakpoint's hit, the method exits a step out reads its value from)."""

    EVENTS = (SingleStepEvent, BreakpointEvent, MethodExitEvent, MethodExitWithReturnValueEvent)

    def __init__(self, vm: JdwpClient, symbols: Symbols, layouts: Layouts | None = None) -> None:
        self._vm = vm
        self._symbols = symbols
        self._continuations = Continuations(vm, symbols, layouts or Layouts(vm, symbols))
        self._by_thread: dict[ThreadId, StepInFlight] = {}

    def of_request(self, request_id: int) -> StepInFlight | None:
        return next((s for s in self._by_thread.values() if request_id and s.request_id == request_id), None)

    def of_resume(self, request_id: int) -> StepInFlight | None:
        """The step whose resume breakpoint is this request."""
        return next((s for s in self._by_thread.values() if s.resume and s.resume.request_id == request_id), None)

    def meaning(self, event: SingleStepEvent | BreakpointEvent | MethodExitEvent
                | MethodExitWithReturnValueEvent) -> Meaning | None:
        """A step's landing (stop reason ``step``); its resume breakpoint's hit (the coroutine it follows resumed:
        the step's landing too); a method exit of a step out's request (no stop: the value it returned, kept
        for the step's stop)."""
        if isinstance(event, SingleStepEvent):
            step = self.of_request(event.request_id)
            return Meaning("step", step=step) if step is not None else None
        if isinstance(event, BreakpointEvent):
            step = self.of_resume(event.request_id)
            return Meaning("step", step=step, resumed=True) if step is not None else None
        self.saw_exit(event.request_id, event.location.method_id,
                      event.value if isinstance(event, MethodExitWithReturnValueEvent) else None)
        return None

    def of_thread(self, thread: ThreadId) -> StepInFlight | None:
        return self._by_thread.get(thread)

    def saw_exit(self, request_id: int, method_id: int, value: Value | None) -> None:
        """A method exit of a step out's request: the value, when it is the method the step leaves."""
        for step in self._by_thread.values():
            if step.exit_request == request_id and step.leaving is not None and step.leaving[1] == method_id:
                step.returned_value = value

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
            native = bool(frames) and await self._symbols.members.is_native(frames[0].location)
        return "out" if native else kind

    async def start(self, thread: ThreadId, thread_name: str, kind: StepKind, filters: bool, resteps: int = 0,
                    depth: StepDepth | None = None, exclude: str | None = None,
                    capture: CapturePlan | None = None, filtering: Filtering = FILTERED) -> StepInFlight:
        """Arm a step on a suspended thread (replacing a step it had). ``depth`` overrides ``kind``'s;
        ``exclude`` names one more class it must not stop in; ``capture``: what the stop it ends in reads;
        ``filtering``: whether its request carries the class filters, when ``filters`` (:meth:`filtering_for`).

        Raises:
            JdwpError: the VM refused or did not answer; no step is recorded for the thread.
        """
        old = self._by_thread.get(thread)
        if old is not None:
            await self.end(old)
        modifiers: list[Modifier] = [Step(thread, StepSize.LINE, depth if depth is not None else DEPTHS[kind])]
        if filters and filtering.excluding:
            modifiers += [ClassExclude(pattern) for pattern in STEP_EXCLUDES]
        if exclude is not None:
            modifiers.append(ClassExclude(exclude))
        modifiers.append(Count(1))
        made = StepInFlight(0, thread, thread_name, kind, filters, resteps, filtering, capture=capture)
        if kind == "out" and depth is None:
            await self._watch_return(made)
        try:
            made.request_id = await self._vm.event_request.set(EventKind.SINGLE_STEP, SuspendPolicy.ALL, modifiers)
        except CommandError:
            await self._clear_exit(made)
            raise
        self._by_thread[thread] = made
        return made

    # --- steps that follow the coroutine (module doc) ------------------------------------------------

    async def follow_coroutine(self, thread: ThreadId, location: Location | None) -> None:
        """Once a filtered step is armed on a suspended thread: when its top frame runs coroutine code, set the
        resume breakpoint (an ``into`` whose call suspends, ``delay`` say, is an ``over`` of it). ``location``:
        the top frame's, when known (then a frame of no coroutine costs no round trip). A VM that cannot say
        leaves it an ordinary step."""
        step = self._by_thread.get(thread)
        if step is None or not step.excluding:  # an unfiltered step lands where the VM's step does
            return
        try:
            continuation = await self._continuations.of_top_frame(thread, location)
            if continuation is None:
                return
            target = await self._continuations.completion(continuation) if step.kind == "out" else continuation
            if target is None:
                return
            if location is None:
                location = (await self._vm.thread_reference.frames(thread, 0, 1))[0].location
            label, depth, table = await gather([
                partial(self._continuations.label, continuation),
                partial(self._vm.thread_reference.frame_count, thread),
                partial(self._symbols.lines.get, location.class_id, location.method_id)])
            line = line_at(table, location.index) if table is not None else None
            step.origin = Origin(continuation, label, location.class_id, location.method_id, line, depth)
            # The origin frame's exit tells a suspension from a return; a step out watches it already (start).
            step.resume, _ = await gather([
                partial(self._continuations.watch, target),
                partial(self._watch_return, step, location) if step.exit_request is None else nothing])
        except CommandError as exc:
            log.info("the step of thread %s does not follow its coroutine: %s", step.thread_name, exc)

    async def follow(self, step: StepInFlight, thread: ThreadId, location: Location, resumed: bool) -> bool:
        """Where a filtered step landed (or its resume breakpoint hit, ``resumed``), as the module doc says;
        True when it makes no stop (the step goes on, or waits for the coroutine's resumption)."""
        if not step.excluding:
            return False
        try:
            if resumed:
                return await self._resumed(step, thread, location)
            if step.settling:
                return await self._settle(step, location)
            if step.origin is not None and await self._suspended(step, thread, location):
                return True
            return await self._past_continuation(step, thread, location)
        except CommandError as exc:
            log.info("the step of thread %s stops where it is: %s", step.thread_name, exc)
            return False

    async def _resumed(self, step: StepInFlight, thread: ThreadId, location: Location) -> bool:
        """The coroutine resumed on ``thread``: step there to its next line (``into`` the state machine when
        the continuation's ``invokeSuspend`` only calls it)."""
        await self.end(step)
        table = await self._symbols.lines.get(location.class_id, location.method_id)
        # An invokeSuspend without lines only calls its state machine: step into it, never stopping in between
        # (a line step in a method without lines stops at every code index: HotSpot's libjdwp steps by
        # location there).
        lines = table is not None and bool(table.lines)
        depth, exclude = (StepDepth.OVER, None) if lines else (StepDepth.INTO, await self._class_name(location))
        name = step.thread_name if thread == step.thread else await self._vm.thread_reference.name(thread)
        resumed = await self.start(thread, name, step.kind, True, step.resteps + 1, depth, exclude, step.capture)
        resumed.settling = True
        origin = step.origin
        if origin is not None and step.kind != "out":
            resumed.skip = (origin.class_id, origin.method_id, origin.line)
        return True

    async def _settle(self, step: StepInFlight, location: Location) -> bool:
        """After a resumption: step on while on the prologue line or the line the step began on."""
        table = await self._symbols.lines.get(location.class_id, location.method_id)
        if table is None or not table.lines:
            if not await self._is_invoke_suspend(location):
                return False
            return await self._restep(step, StepDepth.INTO, await self._class_name(location))
        line = line_at(table, location.index)
        if line == prologue_line(table) or (location.class_id, location.method_id, line) == step.skip:
            return await self._restep(step, StepDepth.OVER)
        return False

    async def _suspended(self, step: StepInFlight, thread: ThreadId, location: Location) -> bool:
        """Whether the step left its coroutine frame by suspending: then its thread's step ends and the resume
        breakpoint waits. A landing in the frame it began in is an ordinary step's."""
        origin = step.origin
        assert origin is not None
        depth = await self._vm.thread_reference.frame_count(thread)
        if step.kind == "into" and depth > origin.depth:  # into a call: an ordinary landing
            await self._drop_resume(step)
            return False
        if (location.class_id, location.method_id) == (origin.class_id, origin.method_id) and depth == origin.depth:
            table = await self._symbols.lines.get(location.class_id, location.method_id)
            if table is not None and line_at(table, location.index) == prologue_line(table) != origin.line:
                # kotlinc puts the `return COROUTINE_SUSPENDED` of each suspension point on the prologue line:
                # the frame is about to suspend, which the next landing shows
                return await self._restep(step, StepDepth.OVER)
            await self._drop_resume(step)
            return False
        fate = await self._fate(step)  # the origin frame has left: by its exit's value, when the VM sent it
        if fate == "suspended" and step.resume is not None:
            await self._end_thread_step(step)  # wait for the resumption, on whatever thread
            return True
        if fate == "returned":
            await self._drop_resume(step)
        if (step.resume is not None or fate == "returned") and depth == origin.depth - 1 \
                and await self._is_state_machine(location):
            # Back in the caller's state machine: from a return, or (its exit unknown) a return or a suspension
            # alike. kotlinc puts each suspension point's `return COROUTINE_SUSPENDED` on the prologue line.
            if not step.returned:
                step.returned = True
                return await self._restep(step, StepDepth.OVER)
            table = await self._symbols.lines.get(location.class_id, location.method_id)
            prologue = prologue_line(table)
            if table is not None and line_at(table, location.index) == prologue:
                # The suspended return (`aload; areturn`) starts a prologue-line entry of its own; the code a
                # call that returned goes on with lies inside one (the jump past that return).
                starts = [index for index, line in line_locations(table) if line == prologue]
                if fate is None and location.index in starts[1:]:
                    await self._end_thread_step(step)  # the caller suspends too: wait for the resumption
                    return True
                return await self._restep(step, StepDepth.OVER)
            await self._drop_resume(step)  # it returned, and the caller went on
            return False
        if step.resume is None or step.returned or \
                await self._continuations.label(origin.continuation) == origin.label:
            await self._drop_resume(step)  # it returned (or threw): an ordinary landing
            return False
        await self._end_thread_step(step)
        return True

    async def _fate(self, step: StepInFlight) -> Fate | None:
        """How the step's origin frame left, by the value its exit returned (``None``: the VM did not send it).
        Once told, the exit request goes: the value is all the step needed of it."""
        origin = step.origin
        if step.fate is not None or origin is None:
            return step.fate
        value = step.returned_value
        if value is None or step.leaving != (origin.class_id, origin.method_id):
            return None
        suspended = value.is_object and not value.is_null and await self._is_suspended_marker(value)
        step.fate = "suspended" if suspended else "returned"
        await self._clear_exit(step)
        return step.fate

    async def _is_suspended_marker(self, value: Value) -> bool:
        try:
            reply = await self._vm.object_reference.reference_type(value.object_id)
        except CommandError:  # collected since: never the marker, an enum constant the stdlib holds
            return False
        return binary_name_of(await self._symbols.signatures.get(ReferenceTypeId(reply.type_id))) == SUSPENDED_MARKER

    async def _past_continuation(self, step: StepInFlight, thread: ThreadId, location: Location) -> bool:
        """A landing in a continuation's ``invokeSuspend`` without a line table (a suspend function returned into
        the ``resumeWith`` loop): follow the continuation that awaits it, which that loop resumes next; when
        none does (the coroutine is done), step out on."""
        table = await self._symbols.lines.get(location.class_id, location.method_id)
        if (table is not None and table.lines) or not await self._is_invoke_suspend(location):
            return False
        this = await self._continuations.of_top_frame(thread, location)
        if this is None:
            return False
        awaiting = await self._continuations.completion(this)
        await self._drop_resume(step)
        if awaiting is None:
            return await self._restep(step, StepDepth.OUT)
        step.resume = await self._continuations.watch(awaiting)
        if step.resume is None:
            return False
        step.origin = None
        await self._end_thread_step(step)
        return True

    async def _restep(self, step: StepInFlight, depth: StepDepth, exclude: str | None = None,
                      counted: bool = True) -> bool:
        """Step on from a landing, keeping what the step follows (its origin, resume breakpoint, settling, inline
        origin). ``counted``: the re-step counts towards :data:`MAX_RESTEPS` (an inline walk has its own cap)."""
        if counted and step.resteps >= MAX_RESTEPS:
            return False
        # The resume breakpoint and the exit request move to the new step, not cleared with the old one.
        resume, step.resume = step.resume, None
        exit_request, step.exit_request = step.exit_request, None
        try:
            again = await self.start(step.thread, step.thread_name, step.kind, True, step.resteps + counted, depth,
                                     exclude, step.capture, step.filtering)
        except CommandError:  # the old step is forgotten by then (start ended it): clear what it handed on
            step.resume, step.exit_request = resume, exit_request
            await self._drop_resume(step)
            await self._clear_exit(step)
            raise
        again.settling, again.skip, again.origin, again.resume = step.settling, step.skip, step.origin, resume
        again.returned, again.fate = step.returned, step.fate
        again.exit_request, again.leaving, again.returns = exit_request, step.leaving, step.returns
        again.returned_value = step.returned_value
        again.inline, again.inline_steps = step.inline, step.inline_steps + (not counted)
        return True

    async def _is_state_machine(self, location: Location) -> bool:
        """Whether the location's method is a coroutine's state machine: a suspend lambda's ``invokeSuspend`` or
        a suspend function with its ``$continuation`` (its variable table, cached by then). The ``invokeSuspend``
        of a suspend function's continuation, which has no line table, only calls one."""
        if await self._is_invoke_suspend(location):
            lines = await self._symbols.lines.get(location.class_id, location.method_id)
            return lines is not None and bool(lines.lines)
        table = await self._symbols.variables.get(location.class_id, location.method_id)
        return table is not None and any(v.name == CONTINUATION_LOCAL for v in table.slots)

    async def _class_name(self, location: Location) -> str:
        return binary_name_of(await self._symbols.signatures.get(ReferenceTypeId(location.class_id)))

    async def _is_invoke_suspend(self, location: Location) -> bool:
        method = (await self._symbols.members.methods(location.class_id)).get(location.method_id)
        return method is not None and method.name == INVOKE_SUSPEND

    async def _watch_return(self, step: StepInFlight, top: Location | None = None) -> None:
        """Ask for the exits of frame 0's method on the step's thread, when the VM sends return values
        (``top``: frame 0's location, when known)."""
        capabilities = self._symbols.capabilities.known or await self._symbols.capabilities.get()
        if not capabilities.method_return_values:
            return
        if top is None:
            frames = await self._vm.thread_reference.frames(step.thread, 0, 1)
            top = frames[0].location if frames else None
        if top is None or top.index == NO_CODE_INDEX:
            return  # nothing to tell from a native frame's exit
        method = (await self._symbols.members.methods(top.class_id)).get(top.method_id)
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
        """Forget the step and clear its requests (``Count(1)`` has expired it if it completed)."""
        if self._by_thread.get(step.thread) is step:
            del self._by_thread[step.thread]
        await self._end_thread_step(step)
        await self._drop_resume(step)

    async def _end_thread_step(self, step: StepInFlight) -> None:
        if not step.request_id:
            return
        request_id, step.request_id = step.request_id, 0
        try:
            await self._vm.event_request.clear(EventKind.SINGLE_STEP, request_id)
        except CommandError as exc:
            log.debug("clearing step request %d: %s", request_id, exc)
        await self._clear_exit(step)

    async def _drop_resume(self, step: StepInFlight) -> None:
        if step.resume is not None:
            resume, step.resume = step.resume, None
            await self._continuations.clear(resume)

    def take_all(self) -> list[ClearRequest]:
        """Forget every step and return their requests to clear (detach)."""
        taken = [ClearRequest(EventKind.SINGLE_STEP, step.request_id, f"step request of thread {step.thread_name}")
                 for step in self._by_thread.values() if step.request_id]
        taken += [ClearRequest(EventKind.BREAKPOINT, step.resume.request_id,
                               f"resume breakpoint of the step of thread {step.thread_name}")
                  for step in self._by_thread.values() if step.resume is not None]
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
        method = (await self._symbols.members.methods(location.class_id)).get(location.method_id)
        if method is None or _is_lambda(method.name):
            return False
        # A D8 lambda holder's method is not marked synthetic (its class is) and only forwards to the lambda's
        # body: step on through it as through a bridge, to the user's lambda (R8's extra frame alike).
        holder = lambda_holder_host(binary_name_of(await self._symbols.signatures.get(location.class_id))) is not None
        if not holder and not method.mod_bits & (ACC_SYNTHETIC | JDWP_SYNTHETIC):
            return False
        depth = StepDepth.INTO if step.kind == "into" else StepDepth.OUT
        await self.start(step.thread, step.thread_name, step.kind, True, step.resteps + 1, depth, capture=step.capture,
                         filtering=step.filtering)
        return True


def _is_lambda(name: str) -> bool:
    """javac's ``lambda$main$0``, Kotlin's ``main$lambda$0`` and ``main$lambda-0``."""
    return "lambda$" in name or "$lambda" in name

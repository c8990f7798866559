"""Steps through library code: where a step's filters apply, and steps through Kotlin's inline calls, mixed into
:class:`.steps.Steps` (its requests and re-steps); and the record of a step in flight they share.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). Issue 38; docs/tools.md, ``step_debugger``.

Where a step starts decides whether its filters apply (:meth:`LibrarySteps.filtering_for`). They keep a step from
stopping in filtered code it steps **into**; they never keep it from landing where it began:
- a step that starts in filtered code (stopped inside javac, Guava's JDK calls, a pause in ``Thread.sleep``)
  carries no ``ClassExclude`` at all, as IntelliJ's: it ignores its filters while the current location is
  itself filtered (``DebugProcessImpl.doStep`` → ``checkPositionNotFiltered``, which sets the session's
  ignore-filters threshold; ``DebuggerSession.shouldIgnoreSteppingFilters`` then drops the step's filters).
  A step over lands on the next line of that code, a step out in its caller, filtered or not — where jdb
  with ``exclude none`` lands. jdb as shipped excludes ``com.sun.*`` from ``next``
  too, and a step over inside javac runs javac to its end; so did ours;
- a step from app code whose callers are all filtered (``main``, whose caller is the launcher, a ``run`` on a
  pool thread), outside a coroutine's frame: the filters would leave nowhere to land once the frame returns,
  and the step would run the thread (``main``: the program) to its end. It runs without them: a step over
  or out lands in the filtered caller (``Thread.exit`` after ``main``), and that stop's ``note`` says so. A
  step into, unfiltered, steps out of each filtered call it enters and into again from the middle of the
  app's line (:meth:`LibrarySteps.step_out_of_filtered`): app code a filtered call calls back is still stepped into
  when reached before the call returns; a landing in filtered code above the step's frame has the note.

Kotlin's inline calls (:meth:`LibrarySteps.step_over_inlined`): a step from a frame whose class has a source map
remembers the inline markers live where it began (``$i$f$`` over an inlined body, ``$i$a$`` over an inlined
lambda, in the method's variable table). A step over that lands, in that frame, inside a marker entered since
or on a line the SMAP maps to another file steps over again: the inline function's body is the call's, as
IntelliJ's Kotlin step over treats it, and so is a lambda the user passed to it (a step into stops there).
The Kotlin plugin does it so (JetBrains/kotlin, ``idea/.../debugger/stepping/KotlinStepOverInlineFilter.kt``
and ``KotlinStepOverInlinedLinesHint.kt``): the inlined calls' lines are stepped over, a landing back on the
line the step came from steps on, and the ``$i$f$`` range variables tell when the inline function was left.
"""

from __future__ import annotations

import dataclasses
import logging
from functools import partial
from typing import TYPE_CHECKING, Literal

from ...client import JdwpClient
from ...protocol.commands.reftypes import VariableSlot
from ...protocol.constants import ErrorCode, StepDepth
from ...protocol.errors import CommandError
from ...protocol.types import Location, ObjectId, ReferenceTypeId, ThreadId
from .._gather import gather
from ..classes.symbols import Symbols, line_at, line_locations
from ..model import NO_CODE_INDEX, StepKind
from ..reading.inline_frames import live_markers

if TYPE_CHECKING:
    from ...protocol.values import Value
    from .capture import CapturePlan
    from .resumes import Resume

__all__ = ["FILTERED", "NO_LANDING_NOTE", "STEP_EXCLUDES", "UNFILTERED", "Fate", "Filtering", "InlineOrigin",
           "LibrarySteps", "Origin", "StepInFlight", "is_filtered_class"]

log = logging.getLogger("jdwp.debugger")

STEP_EXCLUDES = (
    "java.*", "javax.*", "jdk.*", "sun.*", "com.sun.*",
    "kotlin.jvm.internal.*", "kotlin.internal.*", "kotlin.coroutines.*", "kotlinx.coroutines.*", "kotlinx.atomicfu.*",
    "android.*", "com.android.internal.*", "dalvik.*", "libcore.*",
)
#: What a step says when it lands in filtered code because its filters would have left it nowhere to land.
NO_LANDING_NOTE = ("the step left the last frame of app code on this thread: it ran without step filters, "
                   "which would have let the thread run on to its end, and stopped in library code")
MAX_INLINE_STEPS = 200  # line steps through one line's inlined calls (a loop inlined there ends the walk)


@dataclasses.dataclass(frozen=True, slots=True)
class InlineOrigin:
    """The Kotlin frame a step started in, when its class holds inlined code: its method, the inline markers
    live at the step's start (name and start index), its line (the class's own) and whether that line was
    itself inlined code."""

    class_id: int
    method_id: int
    markers: frozenset[tuple[str, int]]
    line: int
    inlined: bool


@dataclasses.dataclass(frozen=True, slots=True)
class Filtering:
    """How a step with filters on uses them (module doc, "Where a step starts").

    ``excluding``: its requests carry the ``ClassExclude`` filters. Without them, ``note`` (when set) is what a
    landing in filtered code says, and ``depth`` the thread's frame count when the step began: a step into
    that enters filtered code deeper than that steps out of it again.
    """

    excluding: bool
    note: str | None = None
    depth: int | None = None


FILTERED = Filtering(True)
UNFILTERED = Filtering(False)


#: How a coroutine step's origin frame left, by the value it returned (:mod:`.steps`).
Fate = Literal["suspended", "returned"]


@dataclasses.dataclass(frozen=True, slots=True)
class Origin:
    """The coroutine frame a step started in: its continuation and ``label`` then, its method, line and depth."""

    continuation: ObjectId
    label: int | None
    class_id: int
    method_id: int
    line: int | None
    depth: int


@dataclasses.dataclass
class StepInFlight:
    request_id: int  # 0 while it only waits for its coroutine's resumption
    thread: ThreadId
    thread_name: str
    kind: StepKind
    filters: bool
    resteps: int = 0
    #: Whether the step's requests carry the ``ClassExclude`` filters (:meth:`Steps.filtering_for`).
    filtering: Filtering = FILTERED

    @property
    def excluding(self) -> bool:
        return self.filters and self.filtering.excluding
    origin: Origin | None = None
    resume: Resume | None = None
    #: After a resumption: the step lands on the next line, past the prologue line and ``skip`` (class, method,
    #: line: where the step over began, when the coroutine resumed in that method).
    settling: bool = False
    skip: tuple[int, int, int | None] | None = None
    #: The origin frame returned into its caller's state machine (suspended or done: its next landing tells).
    returned: bool = False
    #: How the origin frame left, once its exit's value told (``None``: not yet, or never sent).
    fate: Fate | None = None
    #: An exit request of frame 0's method (a step out's, a coroutine step's origin: ``None``, none made), the
    #: method, and what it returned.
    exit_request: int | None = None
    leaving: tuple[int, int] | None = None  # (class, method) of frame 0 when the step began
    returns: str = "V"  # the method's JNI return type
    returned_value: Value | None = None
    capture: CapturePlan | None = None  # what the stop it ends in reads (:mod:`.capture`)
    #: An unfiltered step into stepping out of the filtered code it entered (:meth:`Steps.step_out_of_filtered`).
    surfacing: bool = False
    #: Where a step began in a class with inlined code (:meth:`Steps.step_over_inlined`), and its re-steps.
    inline: InlineOrigin | None = None
    inline_steps: int = 0


class LibrarySteps:
    """The library-code rules of :class:`.steps.Steps`, written apart from its requests and mixed into it."""

    _vm: JdwpClient
    _symbols: Symbols
    _by_thread: dict[ThreadId, StepInFlight]

    if TYPE_CHECKING:  # provided by the Steps this is mixed into
        async def start(self, thread: ThreadId, thread_name: str, kind: StepKind, filters: bool, resteps: int = 0,
                        depth: StepDepth | None = None, exclude: str | None = None,
                        capture: CapturePlan | None = None, filtering: Filtering = ...) -> StepInFlight: ...
        async def _restep(self, step: StepInFlight, depth: StepDepth, exclude: str | None = None,
                          counted: bool = True) -> bool: ...
        async def _is_state_machine(self, location: Location) -> bool: ...
        async def _class_name(self, location: Location) -> str: ...

    async def filtering_for(self, thread: ThreadId, filters: bool) -> Filtering:
        """How a step on a suspended thread uses its filters (module doc, "Where a step starts").

        One ``ThreadReference.Frames`` (11,6) of frames 0 and 1; all of them only when frame 1 is filtered too.

        Raises:
            JdwpError: the VM could not say (the thread is not suspended, or gone).
        """
        if not filters:
            return UNFILTERED
        try:
            frames = await self._vm.thread_reference.frames(thread, 0, 2)
        except CommandError as exc:  # a stack of one frame: JDWP fails a Frames that runs past its bottom
            if exc.code not in (ErrorCode.INVALID_INDEX, ErrorCode.INVALID_LENGTH):
                raise
            frames = await self._vm.thread_reference.frames(thread, 0, -1)
        if not frames:
            return FILTERED
        if await self.is_filtered(frames[0].location):
            return UNFILTERED  # IntelliJ's checkPositionNotFiltered: filtered code steps without its filters
        if len(frames) > 1 and not await self.is_filtered(frames[1].location):
            return FILTERED
        if len(frames) == 2:
            frames = await self._vm.thread_reference.frames(thread, 0, -1)
        for frame in frames[2:]:
            if not await self.is_filtered(frame.location):
                return FILTERED
        try:
            if await self._is_state_machine(frames[0].location):
                return FILTERED  # a coroutine's frame: its resume breakpoint is the landing (:mod:`.steps`)
        except CommandError:  # a VM that cannot tell (no variable tables it will give): the filtered step as before
            return FILTERED
        return Filtering(False, NO_LANDING_NOTE, len(frames))

    async def is_filtered(self, location: Location) -> bool:
        """Whether the location's class matches a step filter (a ``ClassExclude`` pattern of :data:`STEP_EXCLUDES`)."""
        return is_filtered_class(await self._class_name(location))

    async def note_inline_origin(self, thread: ThreadId, location: Location | None) -> None:
        """Once a step is armed: when its top frame's class holds inlined code (it has a source map), remember
        the inline markers live where it starts (:meth:`step_over_inlined`). ``location``: the top frame's, when
        known. A VM that cannot say leaves it an ordinary step."""
        step = self._by_thread.get(thread)
        if step is None or not step.filters or step.kind == "out":
            return
        try:
            if location is None:
                frames = await self._vm.thread_reference.frames(thread, 0, 1)
                location = frames[0].location if frames else None
            if location is None or location.index == NO_CODE_INDEX:
                return
            if await self._symbols.files.map(ReferenceTypeId(location.class_id)) is None:
                return
            here = await self._inline_place(location)
        except CommandError as exc:
            log.info("the step of thread %s does not follow inlined calls: %s", step.thread_name, exc)
            return
        if here is not None:
            line, markers, inlined, _ = here
            step.inline = InlineOrigin(location.class_id, location.method_id,
                                       frozenset((m.name, m.code_index) for m in markers), line, inlined)

    async def step_over_inlined(self, step: StepInFlight, location: Location) -> bool:
        """Step on from a landing inside a Kotlin inline call the step's line made, as IntelliJ's Kotlin steps do:
        an inlined body is the call's, not a line of the user's. Returns True when a new step was armed.

        - ``over``: a landing in the frame the step began in, inside inline markers (``$i$f$``, and the
          ``$i$a$`` lambdas passed to them) that were not live where it began, or on an inlined line (the
          SMAP maps it to another file: the code kotlinc puts before a marker's range) when it began on a line
          of its own, or back on the line it began on after such a body (``val picked = select {…}`` stores
          the result there), steps over again: it lands on the next line of the user's file;
        - ``into``: a landing in inlined code of a filtered library (``withLock``'s body, from
          ``kotlinx.coroutines.sync.MutexKt``, and the library's own lambdas inlined with it, ``select``'s
          ``$i$a$-suspendCoroutineUninterceptedOrReturn-SelectKt$select$2``) steps into again, so it stops in
          a lambda the user passed (``$i$a$``, whose lines are the user's file's) or on the user's next line.
        """
        origin = step.inline
        if origin is None or not step.filters or step.kind == "out" or step.inline_steps >= MAX_INLINE_STEPS \
                or (location.class_id, location.method_id) != (origin.class_id, origin.method_id):
            return False
        try:
            here = await self._inline_place(location)
        except CommandError as exc:
            log.info("the step of thread %s stops where it is: %s", step.thread_name, exc)
            return False
        if here is None:
            return False
        line, markers, inlined, owner = here
        new = [m for m in markers if (m.name, m.code_index) not in origin.markers]
        if step.kind == "into":  # on through a filtered library's inlined code, its own lambdas' too
            if not inlined or owner is None or not is_filtered_class(owner):
                return False
            return await self._restep(step, StepDepth.INTO, counted=False)
        back = line == origin.line and step.inline_steps > 0  # the rest of the call's line, after its inline body
        if not new and not (inlined and not origin.inlined) and not back:
            return False
        return await self._restep(step, StepDepth.OVER, counted=False)

    async def _inline_place(self, location: Location) -> tuple[int, list[VariableSlot], bool, str | None] | None:
        """A location's line (the class's own), the inline markers live there, whether that line is inlined code
        (through the class's SMAP) and the class that code's source belongs to; ``None`` without a line."""
        table, variables = await gather([
            partial(self._symbols.lines.get, location.class_id, location.method_id),
            partial(self._symbols.variables.get, location.class_id, location.method_id)])
        raw = line_at(table, location.index) if table is not None else None
        if raw is None:
            return None
        code = self._symbols.code_line(location.class_id, raw)
        markers = live_markers(variables, location.index) if variables is not None else []
        return raw, markers, code.inlined, code.owner

    async def step_out_of_filtered(self, step: StepInFlight, thread: ThreadId, location: Location) -> bool:
        """Step on when a step into without filters for want of a landing (``Filtering.depth``) entered filtered
        code: out of it (again, while the frame it returns to is filtered too), and from the middle of the app's
        line it comes back to, into again — IntelliJ's own filtering of a step's landings works so. Returns True
        when a new step was armed (no stop).

        A landing in filtered code no deeper than the step began is the one the filters would have run past: it
        stops there, with the note (:meth:`filtering_for`).
        """
        depth = step.filtering.depth
        if not step.filters or depth is None or step.kind != "into":
            return False
        frames = await self._vm.thread_reference.frame_count(thread)
        if await self.is_filtered(location):
            if frames <= depth:
                return False
            again = await self.start(thread, step.thread_name, "into", True, step.resteps, StepDepth.OUT,
                                     capture=step.capture, filtering=step.filtering)
            again.surfacing = True
            return True
        if not step.surfacing or frames != depth:
            return False
        table = await self._symbols.lines.get(location.class_id, location.method_id)
        if table is not None and any(index == location.index for index, _ in line_locations(table)):
            return False  # back from filtered code at the start of a line: the next line
        again = await self.start(thread, step.thread_name, "into", True, step.resteps, capture=step.capture,
                                 filtering=step.filtering)
        again.surfacing = True
        return True


def is_filtered_class(name: str) -> bool:
    """Whether a class matches a ``ClassExclude`` pattern of :data:`STEP_EXCLUDES` (JDWP's patterns: a
    ``.*`` suffix matches the package and every package under it)."""
    return any(name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern
               for pattern in STEP_EXCLUDES)

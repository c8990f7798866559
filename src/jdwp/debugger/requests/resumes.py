"""Continuations as a step sees them: the coroutine of a frame, its state, and a breakpoint on its resumption.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.11 (steps that follow the coroutine); the
step logic is :mod:`.steps`'.

kotlinc compiles a suspend function to a state machine: the function itself (``fetchPrice(int,
Continuation)``), with its continuation object in the local ``$continuation`` (a class of its own,
``…Kt$fetchPrice$1``, whose ``invokeSuspend`` only calls the function again, and has no line table); a suspend
lambda is its own continuation, and its ``invokeSuspend`` is the state machine (``this``). Both extend
``kotlin.coroutines.jvm.internal.BaseContinuationImpl``: its ``completion`` field is the continuation that
awaits this one (the caller's, or the coroutine itself at the top), and each class's ``label`` field the
suspension point it is at (set before each suspending call; the sign bit marks a resumption under way).

Read without running app code: ``ThreadReference.Frames`` (11,6), the method's variable table (6,5),
``StackFrame.GetValues``/``ThisObject`` (16,1; 16,3), ``ObjectReference.ReferenceType``/``GetValues``
(9,1; 9,2). A resumption is caught by a breakpoint at the start of the continuation class's
``invokeSuspend`` with ``InstanceOnly`` (``EventRequest.Set`` 15,1, modKind 11) on that continuation, as
IntelliJ's coroutine debugger does: whatever thread resumes it hits it, and no other coroutine's does.
The JDWP back end applies ``InstanceOnly`` itself, comparing the frame's ``this`` (OpenJDK's libjdwp and
Android's oj-libjdwp share that code); what it needs of the VM is there on ART too:
``can_generate_breakpoint_events``, ``can_access_local_variables`` and ``can_generate_single_step_events`` are
1 in ART's ``kPotentialCapabilities`` (``openjdkjvmti/art_jvmti.h``). Not run on ART here.
"""

from __future__ import annotations

import dataclasses
import logging

from ...client import JdwpClient
from ...protocol.commands.events import InstanceOnly, LocationOnly
from ...protocol.commands.threads import SlotRequest
from ...protocol.constants import EventKind, SuspendPolicy, Tag, TypeTag
from ...protocol.errors import CommandError
from ...protocol.types import Location, ObjectId, ReferenceTypeId, ThreadId
from ..classes.coroutine_machinery import BASE_CONTINUATION
from ..classes.symbols import Symbols, line_locations
from ..reading.objects import ClassInfo, Layouts

__all__ = ["CONTINUATION_LOCAL", "INVOKE_SUSPEND", "Continuations", "Resume", "prologue_line"]

log = logging.getLogger("jdwp.debugger")

CONTINUATION_LOCAL = "$continuation"  # kotlinc 1.3's name for a suspend function's state machine object
INVOKE_SUSPEND = "invokeSuspend"


@dataclasses.dataclass(frozen=True, slots=True)
class Resume:
    """A breakpoint on one continuation's resumption."""

    request_id: int
    continuation: ObjectId


class Continuations:
    """Reads the continuations of one session's frames (one per :class:`.steps.Steps`)."""

    def __init__(self, vm: JdwpClient, symbols: Symbols, layouts: Layouts) -> None:
        self._vm = vm
        self._symbols = symbols
        self._layouts = layouts

    async def of_top_frame(self, thread: ThreadId, location: Location | None) -> ObjectId | None:
        """The continuation of the thread's top frame when it runs coroutine code (``None`` otherwise).

        ``location`` is the top frame's when the caller knows it: a frame that is no state machine costs no
        round trip then (its method and variable table are cached by the stop).

        Raises:
            JdwpError: the VM could not say.
        """
        if location is None:
            frames = await self._vm.thread_reference.frames(thread, 0, 1)
            if not frames:
                return None
            location = frames[0].location
        method = (await self._symbols.members.methods(location.class_id)).get(location.method_id)
        if method is None:
            return None
        if method.name == INVOKE_SUSPEND:
            (top,) = await self._vm.thread_reference.frames(thread, 0, 1)
            this = await self._vm.stack_frame.this_object(thread, top.frame_id)
            found = ObjectId(this.value) if not this.is_null and isinstance(this.value, int) else None
            return found if found is not None and await self.is_continuation(found) else None
        table = await self._symbols.variables.get(location.class_id, location.method_id)
        slot = next((v for v in (table.slots if table else ()) if v.name == CONTINUATION_LOCAL
                     and v.code_index <= location.index < v.code_index + v.length), None)
        if slot is None:
            return None
        (top,) = await self._vm.thread_reference.frames(thread, 0, 1)
        (value,) = await self._vm.stack_frame.get_values(thread, top.frame_id, [SlotRequest(slot.slot, Tag.OBJECT)])
        return ObjectId(value.value) if not value.is_null and isinstance(value.value, int) else None

    async def chain(self, continuation: ObjectId) -> tuple[ClassInfo, ...]:
        reply = await self._vm.object_reference.reference_type(continuation)
        return await self._layouts.chain(reply.type_id)

    async def is_continuation(self, obj: ObjectId) -> bool:
        return any(info.name == BASE_CONTINUATION for info in await self.chain(obj))

    async def label(self, continuation: ObjectId) -> int | None:
        """The suspension point the state machine is at (``label``, its sign bit masked), or ``None``."""
        value = await self._field(continuation, "label")
        return int(value) & 0x7FFFFFFF if isinstance(value, int) else None

    async def completion(self, continuation: ObjectId) -> ObjectId | None:
        """The continuation that awaits this one, when it is a state machine too (not the coroutine itself)."""
        value = await self._field(continuation, "completion", BASE_CONTINUATION)
        if not isinstance(value, int) or not value:
            return None
        awaiting = ObjectId(value)
        return awaiting if await self.is_continuation(awaiting) else None

    async def _field(self, obj: ObjectId, name: str, owner: str | None = None) -> object:
        chain = await self.chain(obj)
        field = Layouts.find(chain, name, owner)
        if field is None:
            return None
        (value,) = await self._vm.object_reference.get_values(obj, [field.field_id])
        return None if value.is_null else value.value

    async def watch(self, continuation: ObjectId) -> Resume | None:
        """A breakpoint on the continuation's next resumption: the first code index of its class's
        ``invokeSuspend``, for that instance only; ``None`` when its class has no such method.

        Raises:
            JdwpError: the VM refused or did not answer.
        """
        reply = await self._vm.object_reference.reference_type(continuation)
        type_id = ReferenceTypeId(reply.type_id)
        methods = await self._symbols.members.methods(type_id)
        method = next((m for m in methods.values() if m.name == INVOKE_SUSPEND), None)
        if method is None:
            return None
        table = await self._symbols.lines.get(type_id, method.method_id)
        start = table.start if table is not None and table.start >= 0 else 0
        where = Location(TypeTag.CLASS, type_id, method.method_id, start)
        request_id = await self._vm.event_request.set(EventKind.BREAKPOINT, SuspendPolicy.ALL,
                                                      [LocationOnly(where), InstanceOnly(continuation)])
        return Resume(request_id, continuation)

    async def clear(self, resume: Resume) -> None:
        try:
            await self._vm.event_request.clear(EventKind.BREAKPOINT, resume.request_id)
        except CommandError as exc:
            log.debug("clearing resume breakpoint %d: %s", resume.request_id, exc)


def prologue_line(table: object) -> int | None:
    """The line of a method's lowest line entry: where kotlinc puts a state machine's dispatch on ``label``
    and the code that resumes each suspension point, so a step landing there has not reached a line yet."""
    lines = line_locations(table) if table is not None and getattr(table, "lines", None) else []  # type: ignore[arg-type]
    return lines[0][1] if lines else None

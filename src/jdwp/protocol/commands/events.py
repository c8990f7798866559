"""Command set 15, EventRequest (with its modifiers), and the records of Event.Composite (every event kind).

Layer: ``jdwp.protocol`` (sans-IO). Spec: "EventRequest Command Set (15)", "Event Command Set (64)".
Composite events are hot: command set 64 and its hand-framed decoder are in :mod:`.composite`.
"""

from __future__ import annotations

from typing import ClassVar, Union

import construct as c

from .. import fast_encode
from ..constants import EventKind, ModKind
from ..records import TaggedUnion, record, spec_of, variants, wire
from ..types import (
    Boolean,
    Byte,
    FieldId,
    FieldIdSpec,
    Int,
    Location,
    Long,
    ObjectId,
    ObjectIdSpec,
    ReferenceTypeId,
    ReferenceTypeIdSpec,
    String,
    ThreadId,
    counted,
    greedy,
)
from ..values import TaggedObjectId, TaggedValue, Value
from ._base import Command, Empty

LocationSpec = spec_of(Location)

# --- EventRequest.Set modifiers --------------------------------------------------------------------


@record
class Count:
    """Report only the ``count``-th occurrence, then the request expires."""

    KIND: ClassVar[int] = ModKind.Count
    count: int = wire(Int)


@record
class Conditional:
    KIND: ClassVar[int] = ModKind.Conditional
    expr_id: int = wire(Int)


@record
class ThreadOnly:
    KIND: ClassVar[int] = ModKind.ThreadOnly
    thread: ThreadId = wire(ObjectIdSpec)


@record
class ClassOnly:
    KIND: ClassVar[int] = ModKind.ClassOnly
    clazz: ReferenceTypeId = wire(ReferenceTypeIdSpec)


@record
class ClassMatch:
    """A binary class name, optionally with one leading or trailing ``*`` (``"com.x.*"``)."""

    KIND: ClassVar[int] = ModKind.ClassMatch
    class_pattern: str = wire(String)


@record
class ClassExclude:
    KIND: ClassVar[int] = ModKind.ClassExclude
    class_pattern: str = wire(String)


@record
class LocationOnly:
    KIND: ClassVar[int] = ModKind.LocationOnly
    loc: Location = wire(LocationSpec)


@record
class ExceptionOnly:
    """``exception_or_null`` 0 means any exception type."""

    KIND: ClassVar[int] = ModKind.ExceptionOnly
    #: "Null (0) means report exceptions of all types" (JDWP spec, EventRequest.Set modifier 8).
    MAY_BE_NULL: ClassVar[frozenset[str]] = frozenset({"exception_or_null"})
    exception_or_null: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    caught: bool = wire(Boolean)
    uncaught: bool = wire(Boolean)


@record
class FieldOnly:
    KIND: ClassVar[int] = ModKind.FieldOnly
    declaring: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    field_id: FieldId = wire(FieldIdSpec)


@record
class Step:
    """``size`` is a StepSize, ``depth`` a StepDepth."""

    KIND: ClassVar[int] = ModKind.Step
    thread: ThreadId = wire(ObjectIdSpec)
    size: int = wire(Int)
    depth: int = wire(Int)


@record
class InstanceOnly:
    KIND: ClassVar[int] = ModKind.InstanceOnly
    #: "the null object for static methods" (JDWP spec, EventRequest.Set modifier 11).
    MAY_BE_NULL: ClassVar[frozenset[str]] = frozenset({"instance"})
    instance: ObjectId = wire(ObjectIdSpec)


@record
class SourceNameMatch:
    KIND: ClassVar[int] = ModKind.SourceNameMatch
    source_name_pattern: str = wire(String)


@record
class PlatformThreadsOnly:
    """JDWP 21+: report only events on platform threads."""

    KIND: ClassVar[int] = ModKind.PlatformThreadsOnly


Modifier = Union[
    Count, Conditional, ThreadOnly, ClassOnly, ClassMatch, ClassExclude, LocationOnly, ExceptionOnly,
    FieldOnly, Step, InstanceOnly, SourceNameMatch, PlatformThreadsOnly,
]
ModifierSpec = TaggedUnion(Byte, variants(
    Count, Conditional, ThreadOnly, ClassOnly, ClassMatch, ClassExclude, LocationOnly, ExceptionOnly,
    FieldOnly, Step, InstanceOnly, SourceNameMatch, PlatformThreadsOnly,
), "modifier")


@record
class SetOut:
    event_kind: int = wire(Byte)
    suspend_policy: int = wire(Byte)
    modifiers: list[Modifier] = wire(counted(ModifierSpec))


@record
class SetReply:
    request_id: int = wire(Int)


@record
class ClearOut:
    event_kind: int = wire(Byte)
    request_id: int = wire(Int)


class EventRequest:
    """Command set 15."""

    Set = Command(15, 1, "EventRequest.Set", SetOut, SetReply)
    Clear = Command(15, 2, "EventRequest.Clear", ClearOut, Empty,
                    fast_encode=fast_encode.fixed(ClearOut, fast_encode.BYTE, fast_encode.INT))
    ClearAllBreakpoints = Command(15, 3, "EventRequest.ClearAllBreakpoints", Empty, Empty)


# --- Event.Composite event kinds -------------------------------------------------------------------


@record
class VMStartEvent:
    KIND: ClassVar[int] = EventKind.VM_START
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)


@record
class SingleStepEvent:
    KIND: ClassVar[int] = EventKind.SINGLE_STEP
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)
    location: Location = wire(LocationSpec)


@record
class BreakpointEvent:
    KIND: ClassVar[int] = EventKind.BREAKPOINT
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)
    location: Location = wire(LocationSpec)


@record
class MethodEntryEvent:
    KIND: ClassVar[int] = EventKind.METHOD_ENTRY
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)
    location: Location = wire(LocationSpec)


@record
class MethodExitEvent:
    KIND: ClassVar[int] = EventKind.METHOD_EXIT
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)
    location: Location = wire(LocationSpec)


@record
class MethodExitWithReturnValueEvent:
    KIND: ClassVar[int] = EventKind.METHOD_EXIT_WITH_RETURN_VALUE
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)
    location: Location = wire(LocationSpec)
    value: Value = wire(TaggedValue)


@record
class MonitorContendedEnterEvent:
    KIND: ClassVar[int] = EventKind.MONITOR_CONTENDED_ENTER
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)
    object: Value = wire(TaggedObjectId)
    location: Location = wire(LocationSpec)


@record
class MonitorContendedEnteredEvent:
    KIND: ClassVar[int] = EventKind.MONITOR_CONTENDED_ENTERED
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)
    object: Value = wire(TaggedObjectId)
    location: Location = wire(LocationSpec)


@record
class MonitorWaitEvent:
    KIND: ClassVar[int] = EventKind.MONITOR_WAIT
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)
    object: Value = wire(TaggedObjectId)
    location: Location = wire(LocationSpec)
    timeout: int = wire(Long)


@record
class MonitorWaitedEvent:
    KIND: ClassVar[int] = EventKind.MONITOR_WAITED
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)
    object: Value = wire(TaggedObjectId)
    location: Location = wire(LocationSpec)
    timed_out: bool = wire(Boolean)


@record
class ExceptionEvent:
    """``catch_location`` has ``class_id`` 0 when the exception is not caught."""

    KIND: ClassVar[int] = EventKind.EXCEPTION
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)
    location: Location = wire(LocationSpec)
    exception: Value = wire(TaggedObjectId)
    catch_location: Location = wire(LocationSpec)


@record
class ThreadStartEvent:
    KIND: ClassVar[int] = EventKind.THREAD_START
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)


@record
class ThreadDeathEvent:
    KIND: ClassVar[int] = EventKind.THREAD_DEATH
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)


@record
class ClassPrepareEvent:
    KIND: ClassVar[int] = EventKind.CLASS_PREPARE
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)
    ref_type_tag: int = wire(Byte)
    type_id: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    signature: str = wire(String)
    status: int = wire(Int)


@record
class ClassUnloadEvent:
    KIND: ClassVar[int] = EventKind.CLASS_UNLOAD
    request_id: int = wire(Int)
    signature: str = wire(String)


@record
class FieldAccessEvent:
    KIND: ClassVar[int] = EventKind.FIELD_ACCESS
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)
    location: Location = wire(LocationSpec)
    ref_type_tag: int = wire(Byte)
    type_id: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    field_id: FieldId = wire(FieldIdSpec)
    object: Value = wire(TaggedObjectId)


@record
class FieldModificationEvent:
    KIND: ClassVar[int] = EventKind.FIELD_MODIFICATION
    request_id: int = wire(Int)
    thread: ThreadId = wire(ObjectIdSpec)
    location: Location = wire(LocationSpec)
    ref_type_tag: int = wire(Byte)
    type_id: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    field_id: FieldId = wire(FieldIdSpec)
    object: Value = wire(TaggedObjectId)
    value_to_be: Value = wire(TaggedValue)


@record
class VMDeathEvent:
    KIND: ClassVar[int] = EventKind.VM_DEATH
    request_id: int = wire(Int)


EVENT_CLASSES: tuple[type, ...] = (
    VMStartEvent, SingleStepEvent, BreakpointEvent, MethodEntryEvent, MethodExitEvent,
    MethodExitWithReturnValueEvent, MonitorContendedEnterEvent, MonitorContendedEnteredEvent,
    MonitorWaitEvent, MonitorWaitedEvent, ExceptionEvent, ThreadStartEvent, ThreadDeathEvent,
    ClassPrepareEvent, ClassUnloadEvent, FieldAccessEvent, FieldModificationEvent, VMDeathEvent,
)
#: Any one event of a composite (the record types; ``Event`` is the command set, 64).
AnyEvent = Union[
    VMStartEvent, SingleStepEvent, BreakpointEvent, MethodEntryEvent, MethodExitEvent,
    MethodExitWithReturnValueEvent, MonitorContendedEnterEvent, MonitorContendedEnteredEvent,
    MonitorWaitEvent, MonitorWaitedEvent, ExceptionEvent, ThreadStartEvent, ThreadDeathEvent,
    ClassPrepareEvent, ClassUnloadEvent, FieldAccessEvent, FieldModificationEvent, VMDeathEvent,
]
EventSpec = TaggedUnion(Byte, variants(*EVENT_CLASSES), "event")


@record
class Composite:
    """One event set: every event in it shares ``suspend_policy`` (a SuspendPolicy)."""

    suspend_policy: int = wire(Byte)
    events: list[AnyEvent] = wire(counted(EventSpec))


# --- Android DDM (199) -----------------------------------------------------------------------------


@record
class DdmChunk:
    """An Android DDM chunk: a four-character type (as a big-endian u32) and its payload."""

    type: int = wire(c.Int32ub)
    data: bytes = wire(c.Prefixed(c.Int32ub, c.GreedyBytes))

    @property
    def type_name(self) -> str:
        return self.type.to_bytes(4, "big").decode("latin-1")


@record
class DdmReply:
    chunks: list[DdmChunk] = wire(greedy(spec_of(DdmChunk)))


class DDM:
    """Command set 199: Android's DDM channel (ART's ``kJDWPDdmCmdSet``), not part of the JDWP spec.

    ART sends ``DDM.Chunk`` packets unasked, at any time; a debugger may send one and get chunks back.
    """

    Chunk = Command(199, 1, "DDM.Chunk", DdmChunk, DdmReply)

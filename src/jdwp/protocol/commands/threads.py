"""Command sets 11, 12 and 16: ThreadReference, ThreadGroupReference, StackFrame.

Layer: ``jdwp.protocol`` (sans-IO). Spec: the command sets of the same names.
Frames and frame values are hot: their replies also have hand-framed decoders (:mod:`..fast`), and the
out-data of the commands a breakpoint hit sends have hand-framed encoders (:mod:`..fast_encode`).
"""

from __future__ import annotations

from .. import fast, fast_encode
from .._frozen import maker
from ..constants import SuspendStatus, ThreadStatus
from ..fast_encode import BYTE, FRAME, INT, OBJECT
from ..records import record, spec_of, wire
from ..types import (
    Boolean,
    FrameId,
    FrameIdSpec,
    Int,
    Location,
    ObjectId,
    ObjectIdSpec,
    String,
    ThreadGroupId,
    ThreadId,
    counted,
)
from ..types import Byte as ByteSpec
from ..values import TaggedObjectId, TaggedValue, Value
from ._base import Command, Empty
from .reftypes import ValuesReply

__all__ = ["StackFrame", "ThreadGroupReference", "ThreadReference"]


@record
class ThreadOut:
    thread: ThreadId = wire(ObjectIdSpec)


@record
class ThreadNameReply:
    thread_name: str = wire(String)


@record
class ThreadStatusReply:
    """``thread_status`` is a ThreadStatus; ``suspend_status`` is 1 when suspended."""

    thread_status: int = wire(Int)
    suspend_status: int = wire(Int)

    @property
    def status(self) -> ThreadStatus:
        """``thread_status`` as its enum (``ThreadStatus.SLEEPING``…)."""
        return ThreadStatus(self.thread_status)

    @property
    def suspended(self) -> bool:
        """Whether the thread is suspended (``suspend_status`` is ``SUSPEND_STATUS_SUSPENDED``)."""
        return bool(self.suspend_status & SuspendStatus.SUSPEND_STATUS_SUSPENDED)


@record
class ThreadGroupReply:
    group: ThreadGroupId = wire(ObjectIdSpec)


@record
class FramesOut:
    """``length`` -1 means "all remaining frames"."""

    thread: ThreadId = wire(ObjectIdSpec)
    start_frame: int = wire(Int)
    length: int = wire(Int)


@record
class Frame:
    frame_id: FrameId = wire(FrameIdSpec)
    location: Location = wire(spec_of(Location))


@record
class FramesReply:
    frames: list[Frame] = wire(counted(spec_of(Frame)))


_make_frame = maker(Frame, location=Location)
_make_frames_reply = maker(FramesReply)


@record
class FrameCountReply:
    frame_count: int = wire(Int)


@record
class OwnedMonitorsReply:
    owned: list[Value] = wire(counted(TaggedObjectId))


@record
class CurrentContendedMonitorReply:
    monitor: Value = wire(TaggedObjectId)


@record
class StopOut:
    thread: ThreadId = wire(ObjectIdSpec)
    throwable: ObjectId = wire(ObjectIdSpec)


@record
class SuspendCountReply:
    suspend_count: int = wire(Int)


@record
class MonitorStackDepth:
    monitor: Value = wire(TaggedObjectId)
    stack_depth: int = wire(Int)


@record
class OwnedMonitorsStackDepthInfoReply:
    owned: list[MonitorStackDepth] = wire(counted(spec_of(MonitorStackDepth)))


@record
class ForceEarlyReturnOut:
    thread: ThreadId = wire(ObjectIdSpec)
    value: Value = wire(TaggedValue)


@record
class IsVirtualReply:
    is_virtual: bool = wire(Boolean)


_encode_thread = fast_encode.fixed(ThreadOut, OBJECT)


class ThreadReference:
    """Command set 11 (``IsVirtual`` is JDWP 19+; older VMs answer NOT_IMPLEMENTED)."""

    Name = Command(11, 1, "ThreadReference.Name", ThreadOut, ThreadNameReply, fast_encode=_encode_thread)
    Suspend = Command(11, 2, "ThreadReference.Suspend", ThreadOut, Empty, fast_encode=_encode_thread)
    Resume = Command(11, 3, "ThreadReference.Resume", ThreadOut, Empty, fast_encode=_encode_thread)
    Status = Command(11, 4, "ThreadReference.Status", ThreadOut, ThreadStatusReply, fast_encode=_encode_thread)
    ThreadGroup = Command(11, 5, "ThreadReference.ThreadGroup", ThreadOut, ThreadGroupReply)
    Frames = Command(11, 6, "ThreadReference.Frames", FramesOut, FramesReply,
                     fast_reply=lambda body, sizes: _make_frames_reply(fast.frames(body, sizes, _make_frame)),
                     fast_encode=fast_encode.fixed(FramesOut, OBJECT, INT, INT))
    FrameCount = Command(11, 7, "ThreadReference.FrameCount", ThreadOut, FrameCountReply,
                         fast_encode=_encode_thread)
    OwnedMonitors = Command(11, 8, "ThreadReference.OwnedMonitors", ThreadOut, OwnedMonitorsReply)
    CurrentContendedMonitor = Command(11, 9, "ThreadReference.CurrentContendedMonitor", ThreadOut,
                                      CurrentContendedMonitorReply)
    Stop = Command(11, 10, "ThreadReference.Stop", StopOut, Empty)
    Interrupt = Command(11, 11, "ThreadReference.Interrupt", ThreadOut, Empty)
    SuspendCount = Command(11, 12, "ThreadReference.SuspendCount", ThreadOut, SuspendCountReply,
                           fast_encode=_encode_thread)
    OwnedMonitorsStackDepthInfo = Command(11, 13, "ThreadReference.OwnedMonitorsStackDepthInfo", ThreadOut,
                                          OwnedMonitorsStackDepthInfoReply)
    ForceEarlyReturn = Command(11, 14, "ThreadReference.ForceEarlyReturn", ForceEarlyReturnOut, Empty)
    IsVirtual = Command(11, 15, "ThreadReference.IsVirtual", ThreadOut, IsVirtualReply)


@record
class ThreadGroupOut:
    group: ThreadGroupId = wire(ObjectIdSpec)


@record
class ThreadGroupNameReply:
    group_name: str = wire(String)


@record
class ThreadGroupParentReply:
    parent_group: ThreadGroupId = wire(ObjectIdSpec)


@record
class ThreadGroupChildrenReply:
    child_threads: list[ThreadId] = wire(counted(ObjectIdSpec))
    child_groups: list[ThreadGroupId] = wire(counted(ObjectIdSpec))


class ThreadGroupReference:
    """Command set 12."""

    Name = Command(12, 1, "ThreadGroupReference.Name", ThreadGroupOut, ThreadGroupNameReply)
    Parent = Command(12, 2, "ThreadGroupReference.Parent", ThreadGroupOut, ThreadGroupParentReply)
    Children = Command(12, 3, "ThreadGroupReference.Children", ThreadGroupOut, ThreadGroupChildrenReply)


@record
class SlotRequest:
    """A slot to read and the signature byte of its type (``Tag``)."""

    slot: int = wire(Int)
    sigbyte: int = wire(ByteSpec)


@record
class FrameGetValuesOut:
    thread: ThreadId = wire(ObjectIdSpec)
    frame: FrameId = wire(FrameIdSpec)
    slots: list[SlotRequest] = wire(counted(spec_of(SlotRequest)))


@record
class SlotValue:
    slot: int = wire(Int)
    slot_value: Value = wire(TaggedValue)


@record
class FrameSetValuesOut:
    thread: ThreadId = wire(ObjectIdSpec)
    frame: FrameId = wire(FrameIdSpec)
    slot_values: list[SlotValue] = wire(counted(spec_of(SlotValue)))


@record
class FrameOut:
    thread: ThreadId = wire(ObjectIdSpec)
    frame: FrameId = wire(FrameIdSpec)


@record
class ThisObjectReply:
    object_this: Value = wire(TaggedObjectId)


class StackFrame:
    """Command set 16."""

    GetValues = Command(16, 1, "StackFrame.GetValues", FrameGetValuesOut, ValuesReply,
                        fast_reply=lambda body, sizes: ValuesReply(fast.tagged_values(body, sizes)),
                        fast_encode=fast_encode.counted_records(FrameGetValuesOut, OBJECT, FRAME,
                                                                element=SlotRequest, element_kinds=(INT, BYTE)))
    SetValues = Command(16, 2, "StackFrame.SetValues", FrameSetValuesOut, Empty)
    ThisObject = Command(16, 3, "StackFrame.ThisObject", FrameOut, ThisObjectReply,
                         fast_encode=fast_encode.fixed(FrameOut, OBJECT, FRAME))
    PopFrames = Command(16, 4, "StackFrame.PopFrames", FrameOut, Empty)

"""Typed methods for command sets 11, 12, 15, 16: threads, thread groups, event requests, stack frames.

Layer: ``jdwp`` (no I/O of its own).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..protocol.commands import EventRequest, StackFrame, ThreadGroupReference, ThreadReference
from ..protocol.commands.events import Modifier
from ..protocol.commands.threads import (
    Frame,
    MonitorStackDepth,
    SlotRequest,
    SlotValue,
    ThreadGroupChildrenReply,
    ThreadStatusReply,
)
from ..protocol.constants import EventKind, SuspendPolicy
from ..protocol.types import FrameId, ObjectId, ThreadGroupId, ThreadId
from ..protocol.values import Value
from ._base import Namespace
from .arguments import ArgumentReader


class ThreadReferenceCommands(Namespace):
    """ThreadReference (11)."""

    async def name(self, thread: ThreadId) -> str:
        """ThreadReference.Name (11,1)."""
        return (await self._client.request(ThreadReference.Name, thread=thread)).thread_name

    async def suspend(self, thread: ThreadId) -> None:
        """ThreadReference.Suspend (11,2): counted; each needs a resume."""
        await self._client.request(ThreadReference.Suspend, thread=thread)

    async def resume(self, thread: ThreadId) -> None:
        """ThreadReference.Resume (11,3): undo one suspension of this thread."""
        await self._client.request(ThreadReference.Resume, thread=thread)

    async def status(self, thread: ThreadId) -> ThreadStatusReply:
        """ThreadReference.Status (11,4)."""
        return await self._client.request(ThreadReference.Status, thread=thread)

    async def thread_group(self, thread: ThreadId) -> ThreadGroupId:
        """ThreadReference.ThreadGroup (11,5)."""
        return (await self._client.request(ThreadReference.ThreadGroup, thread=thread)).group

    async def frames(self, thread: ThreadId, start_frame: int = 0, length: int = -1) -> list[Frame]:
        """ThreadReference.Frames (11,6): frames from ``start_frame`` (0 = top); ``length`` -1 = all.

        Raises:
            ThreadNotSuspended: the thread must be suspended.
        """
        reply = await self._client.request(ThreadReference.Frames, thread=thread, start_frame=start_frame,
                                           length=length)
        return reply.frames

    async def frame_count(self, thread: ThreadId) -> int:
        """ThreadReference.FrameCount (11,7).

        Raises:
            ThreadNotSuspended: the thread must be suspended.
        """
        return (await self._client.request(ThreadReference.FrameCount, thread=thread)).frame_count

    async def owned_monitors(self, thread: ThreadId) -> list[Value]:
        """ThreadReference.OwnedMonitors (11,8)."""
        return (await self._client.request(ThreadReference.OwnedMonitors, thread=thread)).owned

    async def current_contended_monitor(self, thread: ThreadId) -> Value:
        """ThreadReference.CurrentContendedMonitor (11,9)."""
        return (await self._client.request(ThreadReference.CurrentContendedMonitor, thread=thread)).monitor

    async def stop(self, thread: ThreadId, throwable: ObjectId) -> None:
        """ThreadReference.Stop (11,10): throw ``throwable`` in the thread."""
        await self._client.request(ThreadReference.Stop, thread=thread, throwable=throwable)

    async def interrupt(self, thread: ThreadId) -> None:
        """ThreadReference.Interrupt (11,11)."""
        await self._client.request(ThreadReference.Interrupt, thread=thread)

    async def suspend_count(self, thread: ThreadId) -> int:
        """ThreadReference.SuspendCount (11,12)."""
        return (await self._client.request(ThreadReference.SuspendCount, thread=thread)).suspend_count

    async def owned_monitors_stack_depth_info(self, thread: ThreadId) -> list[MonitorStackDepth]:
        """ThreadReference.OwnedMonitorsStackDepthInfo (11,13)."""
        return (await self._client.request(ThreadReference.OwnedMonitorsStackDepthInfo, thread=thread)).owned

    async def force_early_return(self, thread: ThreadId, value: Value) -> None:
        """ThreadReference.ForceEarlyReturn (11,14)."""
        await self._client.request(ThreadReference.ForceEarlyReturn, thread=thread, value=value)

    async def is_virtual(self, thread: ThreadId) -> bool:
        """ThreadReference.IsVirtual (11,15); VMs before JDWP 19 answer NOT_IMPLEMENTED."""
        return (await self._client.request(ThreadReference.IsVirtual, thread=thread)).is_virtual


class ThreadGroupReferenceCommands(Namespace):
    """ThreadGroupReference (12)."""

    async def name(self, group: ThreadGroupId) -> str:
        """ThreadGroupReference.Name (12,1)."""
        return (await self._client.request(ThreadGroupReference.Name, group=group)).group_name

    async def parent(self, group: ThreadGroupId) -> ThreadGroupId:
        """ThreadGroupReference.Parent (12,2): 0 for a top-level group."""
        return (await self._client.request(ThreadGroupReference.Parent, group=group)).parent_group

    async def children(self, group: ThreadGroupId) -> ThreadGroupChildrenReply:
        """ThreadGroupReference.Children (12,3): live threads and active child groups."""
        return await self._client.request(ThreadGroupReference.Children, group=group)


class EventRequestCommands(Namespace):
    """EventRequest (15)."""

    async def set(self, event_kind: EventKind | int, suspend_policy: SuspendPolicy | int,
                  modifiers: Sequence[Modifier] = ()) -> int:
        """EventRequest.Set (15,1): ask for events; returns the request ID events will carry.

        Modifiers narrow the request (``LocationOnly``, ``ClassMatch``, ``Step``, ``Count``…) and apply in
        the order given.
        """
        reply = await self._client.request(EventRequest.Set, event_kind=int(event_kind),
                                           suspend_policy=int(suspend_policy), modifiers=list(modifiers))
        return reply.request_id

    async def clear(self, event_kind: EventKind | int, request_id: int) -> None:
        """EventRequest.Clear (15,2): a request ID that is already gone is not an error."""
        await self._client.request(EventRequest.Clear, event_kind=int(event_kind), request_id=request_id)

    async def clear_all_breakpoints(self) -> None:
        """EventRequest.ClearAllBreakpoints (15,3): every breakpoint, including other clients' on a shared VM."""
        await self._client.request(EventRequest.ClearAllBreakpoints)


class StackFrameCommands(ArgumentReader):
    """StackFrame (16): frames are valid only while their thread stays suspended.

    Besides the commands: :meth:`arguments` (a frame's argument values, as JDI's ``getArgumentValues``)
    and :meth:`argument_layout` (where a method keeps them).
    """

    async def get_values(self, thread: ThreadId, frame: FrameId, slots: Sequence[SlotRequest]) -> list[Value]:
        """StackFrame.GetValues (16,1): local variable values, one per requested slot."""
        reply = await self._client.request(StackFrame.GetValues, thread=thread, frame=frame, slots=list(slots))
        return reply.values

    async def set_values(self, thread: ThreadId, frame: FrameId, slot_values: Sequence[SlotValue]) -> None:
        """StackFrame.SetValues (16,2)."""
        await self._client.request(StackFrame.SetValues, thread=thread, frame=frame, slot_values=list(slot_values))

    async def this_object(self, thread: ThreadId, frame: FrameId) -> Value:
        """StackFrame.ThisObject (16,3): ``this``, or a null value in a static or native method."""
        return (await self._client.request(StackFrame.ThisObject, thread=thread, frame=frame)).object_this

    async def pop_frames(self, thread: ThreadId, frame: FrameId) -> None:
        """StackFrame.PopFrames (16,4)."""
        await self._client.request(StackFrame.PopFrames, thread=thread, frame=frame)

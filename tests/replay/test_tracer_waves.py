"""The tracer's round trips per traced call, against a scripted VM that numbers frames as OpenJDK's back end does
(jdwp/tracing.py, jdwp/frame_guess.py).

The scripted VM stands for the back end's frame IDs: ``generation << 16 | depth`` (``createFrameID`` in
``FrameID.c``), the generation growing by one each time the thread is resumed (``resumeThreadByNode`` in
``threadControl.c``), and ``StackFrame.GetValues`` refusing an ID of another generation with ``INVALID_FRAMEID``
(``validateFrameID``). It answers a wave's commands in the order they came, as the back end's one command thread
does (``debugLoop.c``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio
import trio.testing
from test_debugger_faults import LOCATION, METHOD_ID, class_handlers

import jdwp
from jdwp.protocol.commands import BY_ID
from jdwp.protocol.commands._base import Empty
from jdwp.protocol.commands.events import MethodEntryEvent
from jdwp.protocol.commands.reftypes import MethodInfo, MethodsReply, ValuesReply, VariableSlot, VariableTableReply
from jdwp.protocol.commands.threads import Frame, FramesReply
from jdwp.protocol.constants import ErrorCode, SuspendPolicy, Tag
from jdwp.protocol.types import FrameId, Location, MethodId
from jdwp.protocol.values import Value
from jdwp.protocol.wire import CommandPacket
from support.fakevm import FAKE_VERSION, Handler, ScriptedVm, WaveVm

THREAD = 0x100
GENERATION = 1 << 16
TICK_ID = METHOD_ID + 1
TICK = Location(LOCATION.type_tag, LOCATION.class_id, MethodId(TICK_ID), 0)


class Generations:
    """One thread's frame generation, as the back end keeps it."""

    def __init__(self) -> None:
        self.generation = 1

    def frames(self, out: object) -> FramesReply:
        return FramesReply([Frame(FrameId(self.generation * GENERATION), LOCATION)])

    def values(self, out: object) -> ValuesReply | int:
        if out.frame != self.generation * GENERATION:  # type: ignore[attr-defined]
            return ErrorCode.INVALID_FRAMEID
        return ValuesReply([Value(Tag.INT, self.generation)])

    def resume(self, out: object) -> Empty:
        self.generation += 1
        return Empty()


class EventBeforeReplyVm(WaveVm):
    """Sends the first entry of the first request it sets before the reply that names the request: a running VM's
    agent may, as its event helper thread writes apart from the thread that answers commands."""

    async def answer(self, packet: CommandPacket) -> None:
        if BY_ID[packet.key].name == "EventRequest.Set" and self._request_ids == 0:
            await self.event(MethodEntryEvent(1, THREAD, LOCATION), policy=SuspendPolicy.EVENT_THREAD)
        await super().answer(packet)


@asynccontextmanager
async def traced(generations: Generations, vm_class: type[WaveVm] = WaveVm,
                 ) -> AsyncIterator[tuple[WaveVm, jdwp.Tracer, list[jdwp.TraceEvent]]]:
    """A tracer over a scripted VM with two static methods, ``add(int count)`` and ``tick()``; the events it
    gives, collected."""
    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = class_handlers(vm_ref)
        table["VirtualMachine.IDSizes"] = lambda out: vm_ref[0].sizes
        table["VirtualMachine.Version"] = lambda out: FAKE_VERSION
        table["ReferenceType.Methods"] = lambda out: MethodsReply([MethodInfo(METHOD_ID, "add", "(I)V", 0x9),
                                                                   MethodInfo(TICK_ID, "tick", "()V", 0x9)])
        table["Method.VariableTable"] = lambda out: (VariableTableReply(1, [VariableSlot(0, "count", "I", 20, 0)])
                                                     if out.method_id == METHOD_ID else VariableTableReply(0, []))
        table["ThreadReference.Frames"] = generations.frames
        table["StackFrame.GetValues"] = generations.values
        table["ThreadReference.Resume"] = generations.resume
        return table

    client_end, vm_end = trio.testing.memory_stream_pair()
    vm_ref: list[ScriptedVm] = []
    fake = vm_class(vm_end, handlers(vm_ref))
    vm_ref.append(fake)
    events: list[jdwp.TraceEvent] = []
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.serve)
            async with jdwp.open_jdwp(client_end) as client, jdwp.open_tracer(client, ["com.example.Q"]) as tracer:

                async def collect() -> None:
                    async for event in tracer:
                        events.append(event)

                nursery.start_soon(collect)
                yield fake, tracer, events
            nursery.cancel_scope.cancel()


async def enter(vm: WaveVm, location: Location = LOCATION) -> list[list[str]]:
    """One entry of ``add`` (or the method at ``location``) on the thread, until the VM has released it: the
    waves it took."""
    before, released = len(vm.waves), vm.count("ThreadReference.Resume")
    await vm.event(MethodEntryEvent(1, THREAD, location), policy=SuspendPolicy.EVENT_THREAD)
    while vm.count("ThreadReference.Resume") == released:
        await trio.testing.wait_all_tasks_blocked()
    await trio.testing.wait_all_tasks_blocked(cushion=0.01)  # the replies of the last wave, read
    return vm.waves[before:]


async def test_once_a_guess_held_the_release_goes_out_with_the_read() -> None:
    generations = Generations()
    async with traced(generations) as (vm, tracer, events):
        for _ in range(3):  # Frames at the first two entries (no step yet), the guess alone at the third
            await enter(vm)
        assert await enter(vm) == [["StackFrame.GetValues", "ThreadReference.Resume"]]
        assert await enter(vm) == [["StackFrame.GetValues", "ThreadReference.Resume"]]
        await trio.testing.wait_all_tasks_blocked(cushion=0.01)
        assert [e.arguments[0].value.value for e in events] == [1, 2, 3, 4, 5]  # each call's own generation
        assert tracer.statistics()["argument_errors"] == 0


async def test_a_guess_refused_after_its_release_loses_that_call_only() -> None:
    """Something else resumed the thread between two entries (here, the test): the read sent with the release
    is refused, the thread has run on, that call comes without arguments; the next ones read the frame first,
    then wait for their reads until a guess holds again."""
    generations = Generations()
    async with traced(generations) as (vm, tracer, events):
        for _ in range(4):
            await enter(vm)
        generations.generation += 1  # a resume the tracer did not send
        assert await enter(vm) == [["StackFrame.GetValues", "ThreadReference.Resume"]]
        assert await enter(vm) == [["ThreadReference.Frames"], ["StackFrame.GetValues"], ["ThreadReference.Resume"]]
        await enter(vm)  # Frames again: one ID seen is no step
        assert await enter(vm) == [["StackFrame.GetValues"], ["ThreadReference.Resume"]]  # the guess alone, held
        assert await enter(vm) == [["StackFrame.GetValues", "ThreadReference.Resume"]]
        await trio.testing.wait_all_tasks_blocked(cushion=0.01)
        arguments = [e.arguments for e in events]
        assert arguments[4] == () and all(len(a) == 1 for i, a in enumerate(arguments) if i != 4)
        assert tracer.statistics()["argument_errors"] == 1


async def test_calls_without_arguments_between_keep_the_guess_right() -> None:
    """``tick()`` has no arguments: its thread is let go unread, and that release moves the generation too
    (jdwp/frame_guess.py, ``passed``). Found tracing Derby's ``EmbedPreparedStatement``, whose ``set*`` methods
    each call ``getParms()``: one call in fourteen had lost its arguments before."""
    generations = Generations()
    async with traced(generations) as (vm, tracer, events):
        for _ in range(3):
            await enter(vm)
            await enter(vm, TICK)
        warming = tracer.statistics()["frame_guesses_missed"]  # the first two reads: nothing to guess from yet
        for _ in range(3):
            assert await enter(vm, TICK) == [["ThreadReference.Resume"]]
            assert await enter(vm) == [["StackFrame.GetValues", "ThreadReference.Resume"]]
        await trio.testing.wait_all_tasks_blocked(cushion=0.01)
        assert all(e.arguments[0].value.value == generations_at for e, generations_at in
                   zip([e for e in events if e.method == "add"], (1, 3, 5, 8, 10, 12), strict=True))
        statistics = tracer.statistics()
        assert statistics["argument_errors"] == 0 and statistics["frame_guesses_missed"] == warming == 2


async def test_an_entry_that_comes_before_its_requests_reply_is_traced_and_released() -> None:
    """The tracer takes the reader's sets before it sets its first request: before, such a set was queued for
    ``receive_event``, which nobody read, and its thread stayed suspended; a one-thread app froze at the
    tracer's start (examples/trace_calls.py hung in CI, and here 1 run in 3 under load)."""
    async with traced(Generations(), EventBeforeReplyVm) as (vm, tracer, events):
        while vm.count("ThreadReference.Resume") == 0:
            await trio.testing.wait_all_tasks_blocked()
        await trio.testing.wait_all_tasks_blocked(cushion=0.01)
        assert [(e.kind, e.method, e.arguments[0].value.value) for e in events] == [("call", "add", 1)]
        assert tracer.statistics()["calls"] == 1

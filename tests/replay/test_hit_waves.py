"""Round trips a judged hit spends while its thread is paused, counted as waves against a scripted VM (issue 13:
the pause a false condition or a logpoint costs the hitting thread).

A condition that names only locals is three waves at a thread's first hits: ``ThreadReference.Frames``,
``StackFrame.GetValues``, the release. ``StackFrame.ThisObject`` joins the GetValues wave only when a name may be
a field of ``this``. Once two hits of a thread showed how frame 0's ID moves, GetValues goes out under a guessed
ID (jdwp/frame_guess.py): alone when the IDs showed OpenJDK's layout (the VM checks the guess), else with Frames
to confirm it; two waves. A logpoint's thread name and position are read after its thread is released (whose
answer nobody waits for).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import trio
import trio.testing
from test_debugger_faults import CLASS, LOCATION, hit, scripted
from test_engine_waves import wave_handlers
from test_hits_ownership import THREAD

from jdwp.debugger import Debugger, LogpointHit
from jdwp.protocol.commands._base import Empty
from jdwp.protocol.commands.reftypes import ValuesReply, VariableSlot, VariableTableReply
from jdwp.protocol.commands.threads import Frame, FramesReply, ThisObjectReply, ThreadNameReply
from jdwp.protocol.constants import ErrorCode, SuspendPolicy, Tag
from jdwp.protocol.types import FrameId
from jdwp.protocol.values import Value
from support.fakevm import Handler, ScriptedVm, WaveVm

REFUSED = 0x30000  # the frame ID the scripted VM says is not one (the guess after 0x10000 and 0x20000)


def with_local_i(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
    table = wave_handlers(vm_ref)
    table["Method.VariableTable"] = lambda out: VariableTableReply(0, [VariableSlot(0, "i", "I", 20, 0)])
    table["StackFrame.GetValues"] = lambda out: (ErrorCode.INVALID_FRAMEID if out.frame == REFUSED
                                                 else ValuesReply([Value(Tag.INT, 3)]))
    table["StackFrame.ThisObject"] = lambda out: ThisObjectReply(Value(Tag.OBJECT, 0))
    table["ThreadReference.Resume"] = lambda out: Empty()
    table["ThreadReference.Name"] = lambda out: ThreadNameReply("worker")
    return table


@asynccontextmanager
async def hit_waves(hits: int = 2, frame_ids: Iterator[int] | None = None, **options: object,
                    ) -> AsyncIterator[tuple[list[list[str]], Debugger]]:
    """The waves of the last of ``hits`` hits of a breakpoint with ``options`` (the first one fills the caches);
    ``frame_ids``: frame 0's ID at each hit (by default, always the same)."""
    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = with_local_i(vm_ref)
        if frame_ids is not None:
            table["ThreadReference.Frames"] = lambda out: FramesReply([Frame(FrameId(next(frame_ids)), LOCATION)])
        return table

    async with scripted(handlers, WaveVm) as (vm, debugger):
        assert isinstance(vm, WaveVm)
        await debugger.set_breakpoint(CLASS, 5, **options)  # type: ignore[arg-type]
        for released in range(1, hits + 1):
            before = len(vm.waves)
            await vm.event(hit(vm._request_ids, THREAD), policy=SuspendPolicy.EVENT_THREAD)
            while vm.count("ThreadReference.Resume") < released:
                await trio.testing.wait_all_tasks_blocked()
            # the scripted VM answers once all wait (cushion 0): a longer quiet means it answered the rest too
            await trio.testing.wait_all_tasks_blocked(cushion=0.01)
        yield vm.waves[before:], debugger


async def test_a_false_condition_on_a_local_is_three_waves_without_this() -> None:
    async with hit_waves(condition="i == 777") as (waves, _):
        assert waves == [["ThreadReference.Frames"], ["StackFrame.GetValues"], ["ThreadReference.Resume"]]


async def test_from_a_threads_third_hit_the_locals_go_out_with_its_frames() -> None:
    """IDs that do not show OpenJDK's layout (depth in the 16 low bits): the guess goes out with Frames."""
    async with hit_waves(3, iter([0x10001, 0x20001, 0x30001]), condition="i == 777") as (waves, _):
        assert waves == [["ThreadReference.Frames", "StackFrame.GetValues"], ["ThreadReference.Resume"]]


async def test_on_openjdks_frame_ids_the_guess_goes_alone() -> None:
    async with hit_waves(3, iter([0x20000, 0x40000]), condition="i == 777") as (waves, debugger):
        assert waves == [["StackFrame.GetValues"], ["ThreadReference.Resume"]]
        assert debugger.statistics()["quick_releases"] == 3


async def test_a_guess_the_vm_refuses_is_read_again_with_frame_0_first() -> None:
    frame_ids = iter([0x10000, 0x20000, 0x50000])  # the third hit's guess is 0x30000, which the VM refuses
    async with hit_waves(3, frame_ids, condition="i == 777") as (waves, debugger):
        assert waves == [["StackFrame.GetValues"], ["ThreadReference.Frames"], ["StackFrame.GetValues"],
                         ["ThreadReference.Resume"]]
        assert debugger.state == "running" and debugger.list_breakpoints()[0].hits == 0


async def test_a_wrong_guess_is_dropped_and_the_locals_read_again_with_the_real_frame() -> None:
    frame_ids = iter([0x10001, 0x20001, 0x50001, 0x50001])  # the guess (0x30001) misses; the retry asks no Frames
    async with hit_waves(3, frame_ids, condition="i == 777") as (waves, debugger):
        assert waves == [["ThreadReference.Frames", "StackFrame.GetValues"], ["StackFrame.GetValues"],
                         ["ThreadReference.Resume"]]
        assert debugger.state == "running" and debugger.list_breakpoints()[0].hits == 0


async def test_a_name_that_is_not_a_local_also_asks_for_this_in_the_same_wave() -> None:
    async with hit_waves(condition="i == 777 || count > 2") as (waves, _):
        assert waves[:2] == [["ThreadReference.Frames"], ["StackFrame.GetValues", "StackFrame.ThisObject"]]


async def test_this_in_the_condition_asks_for_it() -> None:
    async with hit_waves(condition="this == null") as (waves, _):
        assert waves[:2] == [["ThreadReference.Frames"], ["StackFrame.GetValues", "StackFrame.ThisObject"]]


async def test_a_logpoint_reads_its_thread_name_after_the_release() -> None:
    async with hit_waves(action="log", log_message="i={i}") as (waves, debugger):
        # the release is not waited for: the name goes out right behind it
        assert waves == [["ThreadReference.Frames"], ["StackFrame.GetValues"],
                         ["ThreadReference.Resume", "ThreadReference.Name"]]
        logged = [event async for event in _drain(debugger) if isinstance(event, LogpointHit)]
        assert [(event.thread_name, event.message) for event in logged] == [("worker", "i=3")] * 2


async def _drain(debugger: Debugger) -> AsyncIterator[object]:
    while True:
        try:
            yield debugger.events.receive_nowait()
        except trio.WouldBlock:
            return

"""Round trips a judged hit spends while its thread is paused, counted as waves against a scripted VM (issue 13:
the pause a false condition or a logpoint costs the hitting thread).

A condition that names only locals is three waves: ``ThreadReference.Frames``, ``StackFrame.GetValues``, the
release. ``StackFrame.ThisObject`` joins the GetValues wave only when a name may be a field of ``this``. A
logpoint's thread name and position are read after its thread is released.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio
import trio.testing
from test_debugger_faults import CLASS, hit, scripted
from test_engine_waves import wave_handlers
from test_hits_ownership import THREAD

from jdwp.debugger import Debugger, LogpointHit
from jdwp.protocol.commands._base import Empty
from jdwp.protocol.commands.reftypes import ValuesReply, VariableSlot, VariableTableReply
from jdwp.protocol.commands.threads import ThisObjectReply, ThreadNameReply
from jdwp.protocol.constants import SuspendPolicy, Tag
from jdwp.protocol.values import Value
from support.fakevm import Handler, ScriptedVm, WaveVm


def with_local_i(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
    table = wave_handlers(vm_ref)
    table["Method.VariableTable"] = lambda out: VariableTableReply(0, [VariableSlot(0, "i", "I", 20, 0)])
    table["StackFrame.GetValues"] = lambda out: ValuesReply([Value(Tag.INT, 3)])
    table["StackFrame.ThisObject"] = lambda out: ThisObjectReply(Value(Tag.OBJECT, 0))
    table["ThreadReference.Resume"] = lambda out: Empty()
    table["ThreadReference.Name"] = lambda out: ThreadNameReply("worker")
    return table


@asynccontextmanager
async def hit_waves(**options: object) -> AsyncIterator[tuple[list[list[str]], Debugger]]:
    """The waves of the second hit of a breakpoint with ``options`` (the first one fills the caches)."""
    async with scripted(with_local_i, WaveVm) as (vm, debugger):
        assert isinstance(vm, WaveVm)
        await debugger.set_breakpoint(CLASS, 5, **options)  # type: ignore[arg-type]
        for released in (1, 2):
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


async def test_a_name_that_is_not_a_local_also_asks_for_this_in_the_same_wave() -> None:
    async with hit_waves(condition="i == 777 || count > 2") as (waves, _):
        assert waves[:2] == [["ThreadReference.Frames"], ["StackFrame.GetValues", "StackFrame.ThisObject"]]


async def test_this_in_the_condition_asks_for_it() -> None:
    async with hit_waves(condition="this == null") as (waves, _):
        assert waves[:2] == [["ThreadReference.Frames"], ["StackFrame.GetValues", "StackFrame.ThisObject"]]


async def test_a_logpoint_reads_its_thread_name_after_the_release() -> None:
    async with hit_waves(action="log", log_message="i={i}") as (waves, debugger):
        assert waves == [["ThreadReference.Frames"], ["StackFrame.GetValues"], ["ThreadReference.Resume"],
                         ["ThreadReference.Name"]]
        logged = [event async for event in _drain(debugger) if isinstance(event, LogpointHit)]
        assert [(event.thread_name, event.message) for event in logged] == [("worker", "i=3")] * 2


async def _drain(debugger: Debugger) -> AsyncIterator[object]:
    while True:
        try:
            yield debugger.events.receive_nowait()
        except trio.WouldBlock:
            return

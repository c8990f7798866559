"""Pause and the thread listing against a scripted VM: what a real VM does not show on demand.

- An event set that arrives while paused (it was on its way when ``VirtualMachine.Suspend`` ran) queues
  behind the pause and becomes current after the resume; every suspension is released exactly once.
- A pause refused while a stop is current sends nothing; detach releases a pause.
- A VM that cannot tell monitors (no ``CapabilitiesNew``) is listed without them and says so; a thread
  that ends while running threads are listed is left out.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import trio
import trio.testing
from test_debugger_faults import CLASS, class_handlers, hit, scripted

from jdwp.debugger import AlreadyPaused, Stopped
from jdwp.protocol.commands._base import Empty
from jdwp.protocol.commands.threads import (
    CurrentContendedMonitorReply,
    OwnedMonitorsReply,
    ThreadGroupNameReply,
    ThreadGroupReply,
    ThreadNameReply,
    ThreadStatusReply,
)
from jdwp.protocol.commands.vm import CapabilitiesNewReply, ThreadsReply
from jdwp.protocol.constants import ErrorCode, Tag
from jdwp.protocol.types import HOTSPOT_64
from jdwp.protocol.values import Value
from support.fakevm import FAKE_VERSION, Handler, ScriptedVm, WaveVm

GROUP = 0x900


def _suspended(vm: ScriptedVm) -> bool:
    """Whether the scripted VM's threads are suspended now: a pause (``VirtualMachine.Suspend``) not yet
    resumed."""
    return vm.count("VirtualMachine.Suspend") > vm.count("VirtualMachine.Resume")


def pausing(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
    table = class_handlers(vm_ref)
    table["VirtualMachine.Suspend"] = lambda out: Empty()
    table["ThreadReference.Status"] = lambda out: ThreadStatusReply(4 if out.thread == 0x100 else 2,
                                                                    1 if _suspended(vm_ref[0]) else 0)
    table["ThreadReference.ThreadGroup"] = lambda out: ThreadGroupReply(GROUP)
    table["ThreadGroupReference.Name"] = lambda out: ThreadGroupNameReply("main")
    return table


async def test_an_event_set_arriving_while_paused_queues_behind_the_pause() -> None:
    async with scripted(pausing) as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5)
        stop = await debugger.pause()
        assert stop.reasons == ("pause",) and stop.thread_id is None and debugger.state == "paused"
        assert isinstance(await debugger.events.receive(), Stopped)
        await vm.event(hit(vm._request_ids, 0x200))
        await trio.testing.wait_all_tasks_blocked()
        assert debugger.current_stop == stop and vm.count("VirtualMachine.Resume") == 0

        await debugger.resume(stop.stop_id)
        assert vm.count("VirtualMachine.Resume") == 1  # the pause's suspension, and only it
        queued = debugger.events.receive_nowait()
        assert isinstance(queued, Stopped) and queued.stop.thread_name == "two"
        await debugger.resume(queued.stop.stop_id)
        cleanup = await debugger.detach()
        assert cleanup.status == "complete" and vm.count("VirtualMachine.Resume") == 2
        assert vm.count("VirtualMachine.Suspend") == 1


async def test_pause_while_stopped_sends_nothing_and_detach_releases_a_pause() -> None:
    async with scripted(pausing) as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5)
        await vm.event(hit(vm._request_ids, 0x100))
        stopped = await debugger.events.receive()
        assert isinstance(stopped, Stopped)
        with pytest.raises(AlreadyPaused, match=stopped.stop.stop_id):
            await debugger.pause()
        assert vm.count("VirtualMachine.Suspend") == 0
        await debugger.resume(stopped.stop.stop_id)

        await debugger.pause()
        cleanup = await debugger.detach()
        assert (cleanup.status, cleanup.execution_state) == ("complete", "running")
        assert vm.count("VirtualMachine.Suspend") == 1 and vm.count("VirtualMachine.Resume") == 2


async def test_a_vm_without_monitor_capabilities_is_listed_without_monitors() -> None:
    async with scripted(pausing) as (vm, debugger):  # CapabilitiesNew is not implemented by this VM
        stop = await debugger.pause()
        page = await debugger.threads(stop.stop_id, 1)
        assert [(t.name, t.status, t.group) for t in page.threads] == [("one", "waiting", "main"),
                                                                       ("two", "sleeping", "main")]
        assert all(t.owned_monitors is None and t.waiting_for is None for t in page.threads)
        assert page.deadlocks == () and page.note is not None and "cannot tell" in page.note
        assert [len(t.frames) for t in page.threads] == [1, 1]
        assert vm.count("ThreadReference.OwnedMonitors") == 0 and vm.count("ObjectReference.MonitorInfo") == 0
        thread_id = page.threads[1].thread_id
        assert thread_id is not None
        assert (await debugger.stack(stop.stop_id, thread_id)).frames[0].line == 5
        await debugger.resume(stop.stop_id)


async def test_a_thread_that_ends_while_listed_is_left_out() -> None:
    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = pausing(vm_ref)
        table["ThreadReference.Name"] = lambda out: (ErrorCode.INVALID_THREAD if out.thread == 0x200
                                                     else class_handlers(vm_ref)["ThreadReference.Name"](out))
        return table

    async with scripted(handlers) as (_, debugger):
        page = await debugger.threads()
        assert [t.name for t in page.threads] == ["one"] and page.total == 2


def crowd(count: int) -> Callable[[list[ScriptedVm]], dict[str, Handler]]:
    """``count`` threads, every other one in ``Object.wait`` (the rest sleep), that own no monitor, on a VM
    that can tell monitors."""
    ids = [0x1000 + n for n in range(count)]

    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = pausing(vm_ref)
        table["VirtualMachine.AllThreads"] = lambda out: ThreadsReply(ids)
        table["ThreadReference.Name"] = lambda out: ThreadNameReply(f"t{out.thread:x}")
        table["ThreadReference.Status"] = lambda out: ThreadStatusReply(4 if out.thread % 2 else 2, 1)
        table["VirtualMachine.CapabilitiesNew"] = lambda out: CapabilitiesNewReply(*([True] * 21), [False] * 11)
        table["ThreadReference.OwnedMonitors"] = lambda out: OwnedMonitorsReply([])
        table["ThreadReference.CurrentContendedMonitor"] = lambda out: CurrentContendedMonitorReply(
            Value(Tag.OBJECT, 0))
        table["VirtualMachine.IDSizes"] = lambda out: HOTSPOT_64
        table["VirtualMachine.Version"] = lambda out: FAKE_VERSION
        return table

    return handlers


async def listing_waves(count: int, depth: int) -> list[list[str]]:
    async with scripted(crowd(count), WaveVm) as (vm, debugger):
        assert isinstance(vm, WaveVm)
        stop = await debugger.pause()
        before = len(vm.waves)
        page = await debugger.threads(stop.stop_id, depth)
        assert len(page.threads) == count and all(t.owned_monitors == () for t in page.threads)
        # a sleeping thread waits for no monitor: CurrentContendedMonitor is asked of the waiting ones only
        assert vm.count("ThreadReference.CurrentContendedMonitor") == count // 2
        waves = [sorted(set(wave)) for wave in vm.waves[before:]]
        await debugger.resume(stop.stop_id)
        return waves


async def test_the_listing_at_a_stop_takes_the_same_rounds_for_3_or_40_threads() -> None:
    few, many = await listing_waves(3, 2), await listing_waves(40, 2)
    assert few == many, (few, many)
    assert few[:4] == [["VirtualMachine.AllThreads", "VirtualMachine.CapabilitiesNew"],
                       ["ThreadReference.Name", "ThreadReference.Status", "ThreadReference.ThreadGroup"],
                       ["ThreadGroupReference.Name", "ThreadReference.CurrentContendedMonitor",
                        "ThreadReference.FrameCount", "ThreadReference.OwnedMonitors"],
                       ["ThreadReference.Frames"]]


async def test_at_most_1000_threads_are_listed() -> None:
    async with scripted(crowd(1001)) as (_, debugger):
        page = await debugger.threads()
        assert len(page.threads) == 1000 and page.total == 1001 and page.truncated

"""Queued stops wanted no more, against a scripted VM: another thread hit a breakpoint just before the user
removed or disabled it. Its stop, queued behind the current one, is released (exactly its suspension) and never
made current or published; a step from the current stop does not "land" on it (docs/tools.md, queued stops).
"""

from __future__ import annotations

import pytest
import trio
import trio.testing
from test_debugger_faults import CLASS, class_handlers, hit, scripted

from jdwp.debugger import Debugger, Stopped
from support.fakevm import ScriptedVm

ONE, TWO = 0x100, 0x200


async def two_hits(vm: ScriptedVm, debugger: Debugger, *breakpoints: str) -> Stopped:
    """Threads one and two hit the breakpoint request made last: one's stop is current, two's queued."""
    request_id = vm._request_ids
    await vm.event(hit(request_id, ONE))
    await vm.event(hit(request_id, TWO))
    first = await debugger.events.receive()
    assert isinstance(first, Stopped) and first.stop.thread_name == "one"
    await trio.testing.wait_all_tasks_blocked()  # two's stop is made and queued
    with pytest.raises(trio.WouldBlock):
        debugger.events.receive_nowait()
    return first


async def test_a_queued_stop_of_a_removed_breakpoint_is_released_never_current() -> None:
    async with scripted(class_handlers) as (vm, debugger):
        bp = await debugger.set_breakpoint(CLASS, 5)
        first = await two_hits(vm, debugger)
        await debugger.remove_breakpoint(bp.breakpoint_id)
        assert vm.count("VirtualMachine.Resume") == 1  # two's stop is released at once, exactly its suspension
        assert debugger.current_stop == first.stop  # the stop the user looks at stays

        await debugger.resume(first.stop.stop_id)
        assert vm.count("VirtualMachine.Resume") == 2 and debugger.state == "running"
        with pytest.raises(trio.WouldBlock):
            debugger.events.receive_nowait()  # no stop of the removed breakpoint was ever published
        cleanup = await debugger.detach()
        assert (cleanup.status, cleanup.execution_state) == ("complete", "running")
        assert vm.count("VirtualMachine.Resume") == 2  # nothing of ours was left to release


async def test_a_queued_stop_of_a_disabled_breakpoint_is_released() -> None:
    async with scripted(class_handlers) as (vm, debugger):
        bp = await debugger.set_breakpoint(CLASS, 5)
        first = await two_hits(vm, debugger)
        await debugger.update_breakpoint(bp.breakpoint_id, enabled=False)
        await debugger.resume(first.stop.stop_id)
        assert vm.count("VirtualMachine.Resume") == 2 and debugger.state == "running"


async def test_a_step_from_the_current_stop_does_not_land_on_a_queued_stop_wanted_no_more() -> None:
    async with scripted(class_handlers) as (vm, debugger):
        bp = await debugger.set_breakpoint(CLASS, 5)
        first = await two_hits(vm, debugger)
        await debugger.remove_breakpoint(bp.breakpoint_id)
        assert first.stop.thread_id is not None
        await debugger.step(first.stop.stop_id, first.stop.thread_id, "over")
        assert debugger.state == "running" and debugger.current_stop is None
        with pytest.raises(trio.WouldBlock):
            debugger.events.receive_nowait()


async def test_a_queued_stop_names_only_the_breakpoints_still_held() -> None:
    async with scripted(class_handlers) as (vm, debugger):
        kept = await debugger.set_breakpoint(CLASS, 5)
        gone = await debugger.set_breakpoint(CLASS, 5)
        await vm.event(hit(vm._request_ids - 1, ONE), hit(vm._request_ids, ONE))
        await vm.event(hit(vm._request_ids - 1, TWO), hit(vm._request_ids, TWO))
        first = await debugger.events.receive()
        assert isinstance(first, Stopped)
        await trio.testing.wait_all_tasks_blocked()
        await debugger.remove_breakpoint(gone.breakpoint_id)
        await debugger.resume(first.stop.stop_id)
        second = debugger.events.receive_nowait()
        assert isinstance(second, Stopped) and second.stop.thread_name == "two"
        assert second.stop.breakpoint_ids == (kept.breakpoint_id,) and second.stop.reasons == ("breakpoint",)


async def test_a_queued_stop_judged_before_an_update_of_its_breakpoint_is_released() -> None:
    async with scripted(class_handlers) as (vm, debugger):
        bp = await debugger.set_breakpoint(CLASS, 5)
        first = await two_hits(vm, debugger)
        await debugger.update_breakpoint(bp.breakpoint_id, hit_count=1000)  # two's hit was not judged by it
        await debugger.resume(first.stop.stop_id)
        assert vm.count("VirtualMachine.Resume") == 2 and debugger.state == "running"
        with pytest.raises(trio.WouldBlock):
            debugger.events.receive_nowait()

"""Suspension ownership of judged hits (conditions, hit counts, logpoints, suspend "thread") against a scripted
VM: docs/design.md §3.3's rules, command by command (HotSpot shows the outcome, not the exact commands).

- a false condition: the EVENT_THREAD set is released with exactly one ``ThreadReference.Resume`` of its thread;
- a true one: ``VirtualMachine.Suspend``, then the thread's ``ThreadReference.Resume``; resuming the stop is one
  ``VirtualMachine.Resume``;
- a failure between the two gives the VM suspension back, and the event's own is still released;
- ``suspend: "thread"``: the stop holds the event's suspension, and resume releases exactly it;
- an EVENT_THREAD set of a request cleared meanwhile (a detach) releases its own thread, not thread 0.
"""

from __future__ import annotations

from collections.abc import Callable

import trio
import trio.testing
from test_debugger_faults import CLASS, class_handlers, hit, scripted

from jdwp.debugger import LogpointHit, Stopped
from jdwp.protocol.commands import BY_ID, ThreadReference
from jdwp.protocol.commands._base import Empty
from jdwp.protocol.commands.reftypes import ValuesReply, VariableSlot, VariableTableReply
from jdwp.protocol.commands.threads import ThisObjectReply
from jdwp.protocol.constants import ErrorCode, SuspendPolicy, Tag
from jdwp.protocol.values import Value
from jdwp.protocol.wire import CommandPacket
from support.fakevm import Handler, ScriptedVm

THREAD = 0x200


def with_i(i: int, *, thread_resume: Callable[[object], object] = lambda out: Empty()
           ) -> Callable[[list[ScriptedVm]], dict[str, Handler]]:
    """The class of test_debugger_faults, its frame having one local ``i`` equal to ``i``."""
    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = class_handlers(vm_ref)
        table["Method.VariableTable"] = lambda out: VariableTableReply(0, [VariableSlot(0, "i", "I", 20, 0)])
        table["StackFrame.GetValues"] = lambda out: ValuesReply([Value(Tag.INT, i)])
        table["StackFrame.ThisObject"] = lambda out: ThisObjectReply(Value(Tag.OBJECT, 0))
        table["ThreadReference.Resume"] = thread_resume
        table["VirtualMachine.Suspend"] = lambda out: Empty()
        return table
    return handlers


def resumes(vm: ScriptedVm) -> list[str]:
    return [name for name in vm.sent if name.endswith((".Resume", ".Suspend"))]


async def test_a_false_condition_releases_exactly_the_hitting_thread() -> None:
    async with scripted(with_i(3)) as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5, condition="i == 777")
        await vm.event(hit(vm._request_ids, THREAD), policy=SuspendPolicy.EVENT_THREAD)
        await trio.testing.wait_all_tasks_blocked()
        assert resumes(vm) == ["ThreadReference.Resume"] and debugger.state == "running"
        (bp,) = debugger.list_breakpoints()
        assert bp.hits == 0


async def test_a_true_condition_trades_the_thread_suspension_for_an_owned_vm_suspension() -> None:
    async with scripted(with_i(777)) as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5, condition="i == 777")
        await vm.event(hit(vm._request_ids, THREAD), policy=SuspendPolicy.EVENT_THREAD)
        stopped = await debugger.events.receive()
        assert isinstance(stopped, Stopped) and stopped.stop.suspended is None
        assert resumes(vm) == ["VirtualMachine.Suspend", "ThreadReference.Resume"]
        await debugger.resume(stopped.stop.stop_id)
        assert resumes(vm) == ["VirtualMachine.Suspend", "ThreadReference.Resume", "VirtualMachine.Resume"]


async def test_a_failed_trade_gives_the_vm_suspension_back_and_releases_the_event() -> None:
    answers = iter([ErrorCode.INTERNAL, Empty()])  # the first ThreadReference.Resume fails, the next is fine
    async with scripted(with_i(777, thread_resume=lambda out: next(answers))) as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5, condition="i == 777")
        await vm.event(hit(vm._request_ids, THREAD), policy=SuspendPolicy.EVENT_THREAD)
        await trio.testing.wait_all_tasks_blocked()
        assert resumes(vm) == ["VirtualMachine.Suspend", "ThreadReference.Resume", "VirtualMachine.Resume",
                               "ThreadReference.Resume"]
        assert debugger.state == "running" and debugger.terminal is None


async def test_suspend_thread_holds_only_the_event_suspension() -> None:
    async with scripted(with_i(1)) as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5, suspend="thread")
        await vm.event(hit(vm._request_ids, THREAD), policy=SuspendPolicy.EVENT_THREAD)
        stopped = await debugger.events.receive()
        assert isinstance(stopped, Stopped) and stopped.stop.suspended == "thread"
        assert resumes(vm) == []
        await debugger.resume(stopped.stop.stop_id)
        assert resumes(vm) == ["ThreadReference.Resume"]


async def test_hit_count_and_logpoints_release_each_hit() -> None:
    async with scripted(with_i(5)) as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5, hit_count=3)
        stopping = vm._request_ids
        await debugger.set_breakpoint(CLASS, 5, action="log", log_message="i={i}", max_hits=2)
        logging_ = vm._request_ids
        for _ in range(2):
            await vm.event(hit(stopping, THREAD), hit(logging_, THREAD), policy=SuspendPolicy.EVENT_THREAD)
            await trio.testing.wait_all_tasks_blocked()
        events = []
        while True:
            try:
                events.append(debugger.events.receive_nowait())
            except trio.WouldBlock:
                break
        assert [e.message for e in events if isinstance(e, LogpointHit)] == ["i=5", "i=5"]
        assert [e.kind for e in events][-1] == "breakpoint_spent"
        assert resumes(vm) == ["ThreadReference.Resume"] * 2
        await vm.event(hit(stopping, THREAD), policy=SuspendPolicy.EVENT_THREAD)  # the third hit stops
        stopped = await debugger.events.receive()
        assert isinstance(stopped, Stopped)
        assert resumes(vm)[-2:] == ["VirtualMachine.Suspend", "ThreadReference.Resume"]


async def test_an_event_of_a_cleared_request_releases_its_own_thread() -> None:
    """Before the fix, the thread of an event set of a request no longer ours was taken as 0, so the
    EVENT_THREAD suspension was released with ThreadReference.Resume(0) and the real thread stayed held."""
    threads: list[int] = []

    def record(out: object) -> object:
        threads.append(out.thread)  # type: ignore[attr-defined]
        return Empty()

    async with scripted(with_i(0, thread_resume=record)) as (vm, debugger):
        bp = await debugger.set_breakpoint(CLASS, 5, condition="i < 0")
        request = vm._request_ids
        await debugger.remove_breakpoint(bp.breakpoint_id)
        await vm.event(hit(request, THREAD), policy=SuspendPolicy.EVENT_THREAD)
        await trio.testing.wait_all_tasks_blocked()
        assert threads == [THREAD]


class _NameNeverAnswered(ScriptedVm):
    """A VM that never answers ``ThreadReference.Name``: a reply lost on the way stands for it."""

    async def answer(self, packet: CommandPacket) -> None:
        if BY_ID[packet.key] is ThreadReference.Name:
            self.sent.append(ThreadReference.Name.name)
            return
        await super().answer(packet)


async def test_a_stop_that_times_out_while_it_is_made_still_releases_the_event_sets_suspension() -> None:
    async with scripted(with_i(777), _NameNeverAnswered) as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5)
        debugger.vm.request_timeout = 0.2
        await vm.event(hit(vm._request_ids, THREAD))  # SUSPEND_ALL: the stop would hold the VM
        with trio.fail_after(5):
            while "VirtualMachine.Resume" not in vm.sent:
                await trio.sleep(0.01)
        assert debugger.state == "running" and debugger.terminal is None

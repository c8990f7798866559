"""Hits of different threads judged at once, against a scripted VM that answers in waves (every command sent
by the time all tasks wait is one round trip): a condition's round trips for one thread never wait for
another thread's, and what concurrency could break stays exact.

- two threads' hits of a false condition are judged in the same waves, each released with exactly its own
  ``ThreadReference.Resume``;
- a logpoint with ``maxHits`` 1 hit by two threads at once logs once and is spent once;
- a breakpoint removed while its hit is being judged makes no stop, and the hit's thread is released;
- detach while hits are being judged waits for them, and every one is released.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio
import trio.testing
from test_debugger_faults import CLASS, hit, scripted
from test_hit_waves import with_local_i

from jdwp.debugger import BreakpointSpent, Debugger, LogpointHit, Stopped
from jdwp.protocol.commands import BY_ID
from jdwp.protocol.commands._base import Empty
from jdwp.protocol.constants import SuspendPolicy
from jdwp.protocol.wire import CommandPacket
from support import stops
from support.fakevm import Handler, ScriptedVm, WaveVm

ONE, TWO = 0x100, 0x200


def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
    table = with_local_i(vm_ref)
    table["VirtualMachine.Suspend"] = lambda out: Empty()  # a stop's hold, when one is made
    return table


@asynccontextmanager
async def waves() -> AsyncIterator[tuple[WaveVm, Debugger]]:
    async with scripted(handlers, WaveVm) as (vm, debugger):
        assert isinstance(vm, WaveVm)
        yield vm, debugger


async def both_hit(vm: WaveVm) -> None:
    for thread in (ONE, TWO):
        await vm.event(hit(vm._request_ids, thread), policy=SuspendPolicy.EVENT_THREAD)


async def released(vm: WaveVm, count: int) -> None:
    while vm.count("ThreadReference.Resume") < count:
        await trio.testing.wait_all_tasks_blocked()


async def test_two_threads_hits_of_a_false_condition_are_judged_in_the_same_waves() -> None:
    async with waves() as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5, condition="i == 777")
        before = len(vm.waves)
        await both_hit(vm)
        await released(vm, 2)
        judged = vm.waves[before:]
        assert any(wave.count("StackFrame.GetValues") == 2 for wave in judged), judged
        assert any(wave.count("ThreadReference.Resume") == 2 for wave in judged), judged
        assert "VirtualMachine.Suspend" not in vm.sent and debugger.state == "running"
        (bp,) = debugger.list_breakpoints()
        assert bp.hits == 0


async def test_a_logpoint_spent_by_one_of_two_hits_judged_at_once_logs_once() -> None:
    async with waves() as (vm, debugger):
        bp = await debugger.set_breakpoint(CLASS, 5, action="log", log_message="i={i}", max_hits=1)
        await both_hit(vm)
        await released(vm, 2)
        seen: list[object] = []
        while not any(isinstance(e, BreakpointSpent) for e in seen):
            seen.append(await debugger.events.receive())
        await trio.testing.wait_all_tasks_blocked()
        seen += stops.pending_events(debugger)
        assert [type(e) for e in seen if isinstance(e, (LogpointHit, BreakpointSpent))] == [LogpointHit,
                                                                                            BreakpointSpent]
        (held,) = debugger.list_breakpoints()
        assert held.breakpoint_id == bp.breakpoint_id and held.status == "spent"


class HeldValues(ScriptedVm):
    """A :class:`ScriptedVm` that keeps its answer to the first ``StackFrame.GetValues`` (a condition's locals)
    until :attr:`go` is set, answering everything else meanwhile: a hit caught in the middle of its judgement."""

    def __init__(self, stream: trio.abc.Stream, handlers: dict[str, Handler]) -> None:
        super().__init__(stream, handlers)
        self.asked = trio.Event()
        self.go = trio.Event()

    async def serve(self) -> None:
        await self.open()
        async with trio.open_nursery() as nursery:
            while (packet := await self.receive()) is not None:
                if BY_ID[packet.key].name == "StackFrame.GetValues" and not self.asked.is_set():
                    self.asked.set()
                    nursery.start_soon(self._answer_on_go, packet)
                else:
                    await self.answer(packet)
            nursery.cancel_scope.cancel()

    async def _answer_on_go(self, packet: CommandPacket) -> None:
        await self.go.wait()
        await self.answer(packet)


async def test_a_breakpoint_removed_while_its_hit_is_judged_makes_no_stop() -> None:
    async with scripted(handlers, HeldValues) as (vm, debugger):
        assert isinstance(vm, HeldValues)
        bp = await debugger.set_breakpoint(CLASS, 5, condition="i == 3")  # true: it would stop
        await vm.event(hit(vm._request_ids, ONE), policy=SuspendPolicy.EVENT_THREAD)
        await vm.asked.wait()  # the condition is being evaluated
        await debugger.remove_breakpoint(bp.breakpoint_id)  # not kept waiting by the judgement
        vm.go.set()
        while vm.count("ThreadReference.Resume") < 1:
            await trio.testing.wait_all_tasks_blocked()
        await trio.testing.wait_all_tasks_blocked()
        assert not [e for e in stops.pending_events(debugger) if isinstance(e, Stopped)]
        assert "VirtualMachine.Suspend" not in vm.sent and debugger.state == "running"


async def test_detach_while_hits_are_judged_releases_every_one() -> None:
    async with waves() as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5, condition="i == 3")
        await both_hit(vm)
        cleanup = await debugger.detach()
        assert (cleanup.status, cleanup.execution_state) == ("complete", "running")
        assert vm.count("ThreadReference.Resume") + vm.count("VirtualMachine.Resume") >= 2
        assert vm.count("VirtualMachine.Suspend") == vm.count("VirtualMachine.Resume")

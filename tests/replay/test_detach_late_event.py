"""Detach while an event set of ours is still on its way: the app runs only once that set is released.

The scripted VM stands for the OpenJDK agent's two writers (the agent ART runs too, as oj-libjdwp): its
command thread answers our ``EventRequest.Clear`` and ``ThreadReference.Status`` while its event helper
thread, with a breakpoint event queued before the clear, suspends every thread and then writes that set
(``eventHelper.c``: ``handleReportEventCompositeCommand``). On a live VM this happens about once in thirty
detaches under a busy breakpoint (``test_conditions_live``); here it happens every time, in that order.
"""

from __future__ import annotations

from typing import Any

import trio
import trio.testing
from test_debugger_faults import CLASS, class_handlers, hit, scripted

from jdwp.debugger.events.detach import NEXT_SET_WITHIN
from jdwp.protocol.commands import BY_ID
from jdwp.protocol.commands.threads import ThreadStatusReply
from jdwp.protocol.wire import CommandPacket
from support.fakevm import Handler, ScriptedVm

RUNNING = 1


class LateSetVm(ScriptedVm):
    """Suspended by its helper thread as it answers the clear; the set follows the first status read
    (``writes_late``), or never comes (a suspension that is not ours)."""

    writes_late = True

    def __init__(self, stream: trio.abc.Stream, handlers: dict[str, Handler]) -> None:
        super().__init__(stream, handlers)
        self.suspended = False
        self.late_written = False

    async def answer(self, packet: CommandPacket) -> None:
        name = BY_ID[packet.key].name
        if name == "EventRequest.Clear":
            self.suspended = True  # the helper thread's suspendAll, for a hit queued before the clear
        elif name == "VirtualMachine.Resume":
            self.suspended = False
        await super().answer(packet)
        if name == "ThreadReference.Status" and self.writes_late and not self.late_written:
            self.late_written = True
            await self.event(hit(self._request_ids, 0x100))


class SuspendedByOthersVm(LateSetVm):
    writes_late = False


def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
    table = class_handlers(vm_ref)

    def status(out: Any) -> ThreadStatusReply:
        vm = vm_ref[0]
        assert isinstance(vm, LateSetVm)
        return ThreadStatusReply(RUNNING, 1 if vm.suspended else 0)

    table["ThreadReference.Status"] = status
    return table


async def test_a_set_written_after_the_status_is_released_then_the_app_is_running() -> None:
    async with scripted(handlers, LateSetVm) as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5)
        cleanup = await debugger.detach()
        assert (cleanup.status, cleanup.execution_state, cleanup.remaining, cleanup.errors) == (
            "complete", "running", (), ())
        after_clears = vm.sent[len(vm.sent) - vm.sent[::-1].index("EventRequest.Clear"):]
        # read suspended, the late set released, the threads listed afresh and read running, then Dispose
        assert after_clears == ["VirtualMachine.AllThreads", "ThreadReference.Status", "ThreadReference.Status",
                                "VirtualMachine.Resume", "VirtualMachine.AllThreads", "ThreadReference.Status",
                                "ThreadReference.Status", "VirtualMachine.Dispose"]


async def test_a_suspension_no_set_explains_leaves_the_state_unknown(autojump_clock: trio.testing.MockClock) -> None:
    async with scripted(handlers, SuspendedByOthersVm) as (vm, debugger):
        await debugger.set_breakpoint(CLASS, 5)
        start = trio.current_time()
        cleanup = await debugger.detach()
        assert (cleanup.status, cleanup.execution_state) == ("complete", "unknown")  # never claimed unproven
        assert trio.current_time() - start < NEXT_SET_WITHIN + 0.5  # one wait for a set, not the whole deadline
        assert vm.count("VirtualMachine.Resume") == 0  # nothing of ours to release

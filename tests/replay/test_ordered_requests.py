"""Requests pipelined in a given order reach the VM in that order, in one round trip.

A breakpoint asks for class-prepare events and then lists the loaded classes in one round; a JDWP back
end runs commands in arrival order, so the requests must arrive in that order, or a class could load
unseen between the two. trio runs ready tasks in a random order, so this is checked many times.
"""

from __future__ import annotations

from functools import partial

import trio
import trio.testing

import jdwp
from jdwp.debugger._gather import gather_in_order
from jdwp.protocol.commands.events import ClassMatch, SetReply
from jdwp.protocol.commands.vm import AllClassesReply
from jdwp.protocol.constants import EventKind, SuspendPolicy
from support.fakevm import ScriptedVm


async def test_requests_go_out_in_the_order_given_every_time() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = ScriptedVm(vm_end, {})
    fake.handlers = {"EventRequest.Set": lambda out: SetReply(fake.next_request_id()),
                     "VirtualMachine.AllClasses": lambda out: AllClassesReply([])}
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.serve)
            async with jdwp.open_jdwp(client_end) as vm:
                for round_number in range(40):
                    fake.sent.clear()
                    patterns = [f"p{round_number}.A", f"p{round_number}.B", f"p{round_number}.C"]
                    thunks = [partial(vm.event_request.set, EventKind.CLASS_PREPARE, SuspendPolicy.ALL,
                                      [ClassMatch(p)]) for p in patterns]
                    results = await gather_in_order([*thunks, vm.all_classes])
                    assert fake.sent == ["EventRequest.Set"] * 3 + ["VirtualMachine.AllClasses"]
                    assert results[:3] == sorted(results[:3]) and results[3] == []
            nursery.cancel_scope.cancel()

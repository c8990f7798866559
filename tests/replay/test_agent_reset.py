"""A cleanup retry on a fresh connection: what the JDWP agent's reset leaves to read.

When a debugger's connection ends, libjdwp resets (external/oj-libjdwp threadControl.c,
``threadControl_reset``): every thread's suspend count becomes 0 for the next debugger, whatever state the
threads are in. The scripted VM stands for that agent just after its reset, with one thread that the VM
still reports suspended (``ThreadReference.Status``): the counts say 0, the status does not. A real
agent's reset resumes what it had suspended, so on a real VM the two agree; the scripted one shows which of
the two the retry's evidence must come from.
"""

from __future__ import annotations

import trio
import trio.testing

import jdwp
from jdwp.debugger import threads_suspended_now
from jdwp.protocol.commands import ThreadReference
from jdwp.protocol.commands.threads import SuspendCountReply, ThreadOut, ThreadStatusReply
from jdwp.protocol.commands.vm import ThreadsReply
from support.fakevm import ScriptedVm

RUNNING, SLEEPING = 1, 2


async def test_suspend_counts_after_an_agent_reset_prove_nothing_but_the_status_does() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = ScriptedVm(vm_end, {
        "VirtualMachine.AllThreads": lambda out: ThreadsReply([0x11, 0x22]),
        "ThreadReference.SuspendCount": lambda out: SuspendCountReply(0),  # the agent's counts, reset
        "ThreadReference.Status": lambda out: ThreadStatusReply(SLEEPING, 1 if out.thread == 0x22 else 0),
    })
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.serve)
            async with jdwp.open_jdwp(client_end) as vm:
                counts = await vm.request_all([(ThreadReference.SuspendCount, ThreadOut(t)) for t in (0x11, 0x22)])
                assert [c.suspend_count for c in counts] == [0, 0]  # what the retry used to take as "the app runs"
                assert await threads_suspended_now(vm) == 1
            nursery.cancel_scope.cancel()


async def test_no_suspended_status_is_the_evidence_that_the_app_runs() -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = ScriptedVm(vm_end, {
        "VirtualMachine.AllThreads": lambda out: ThreadsReply([0x11, 0x22]),
        "ThreadReference.Status": lambda out: ThreadStatusReply(RUNNING, 0),
    })
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake.serve)
            async with jdwp.open_jdwp(client_end) as vm:
                assert await threads_suspended_now(vm) == 0
                assert fake.count("ThreadReference.Status") == 2
            nursery.cancel_scope.cancel()

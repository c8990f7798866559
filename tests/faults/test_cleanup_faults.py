"""The engine's detach over a VM whose answers go wrong mid-cleanup: a cleanup report, never an exception.

A scripted VM (``support.fakevm``) answers the cleanup's commands and then garbles or drops the reply to
``VirtualMachine.Dispose`` — the last packet of every session, where the fault matrix first found it.
"""

from __future__ import annotations

import struct

import pytest
import trio
import trio.testing

import jdwp
from jdwp.debugger import open_debugger
from jdwp.protocol.commands import VirtualMachine
from support.fakevm import FakeVm

UNFRAMEABLE = struct.pack(">IIBH", 5, 1, 0x80, 0)  # a length shorter than the header (an over-cap one is skipped)


@pytest.mark.parametrize("fault", ["garbage", "eof"])
async def test_a_garbled_or_lost_dispose_reply_ends_in_a_failed_cleanup(fault: str) -> None:
    client_end, vm_end = trio.testing.memory_stream_pair()
    fake = FakeVm(vm_end)

    async def vm_side() -> None:
        await fake.open()
        while (packet := await fake.receive()) is not None:
            if packet.key == VirtualMachine.AllThreads.key:
                await fake.reply(packet, struct.pack(">i", 0))
            elif packet.key == VirtualMachine.Dispose.key:
                if fault == "garbage":
                    await fake.stream.send_all(UNFRAMEABLE)
                else:
                    await fake.stream.aclose()
                return
            else:
                await fake.reply(packet)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(vm_side)
            async with jdwp.open_jdwp(client_end) as vm, open_debugger(vm) as engine:
                cleanup = await engine.detach()
            if fault == "garbage":  # the goodbye is unconfirmed
                assert (cleanup.status, cleanup.execution_state) == ("failed", "unknown")
                assert "shorter than" in cleanup.errors[0]
            else:  # the VM closing on Dispose is what Dispose asks for; the evidence came before it
                assert cleanup.status == "complete"
            assert engine.state == "detached"

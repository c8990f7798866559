"""What clients that ran real Android devices report ART sends, replayed byte for byte over memory streams.

One test (or more) per row of docs/reliability.md's "ART as devices show it"; the bytes come from
tests/support/art_bytes.py (built from the formats, never copied from a capture). The same quirks run on the
adb testbed under the Android journey in tests/server/test_server_art_quirks.py.
"""

from __future__ import annotations

import trio
import trio.testing

from android.transport import JdwpStream, Transport
from jdwp import open_jdwp
from jdwp.protocol.commands import VirtualMachine
from jdwp.protocol.connection import JdwpConnection, State
from jdwp.protocol.types import HOTSPOT_64
from jdwp.protocol.wire import HANDSHAKE, CommandPacket
from support.art_bytes import DDM_CHUNK, DDM_SET, PRE_INITIALIZED, VM_PACKET_ID, apnm_packet
from support.fakevm import FakeVm

APNM = apnm_packet(PRE_INITIALIZED, user_id=0)


# --- 1. DDM packets before the handshake's echo (Android bug 178655046) ------------------------------------


def test_the_state_machine_skips_a_packet_before_the_echo_and_reads_it_after() -> None:
    for split in (1, 5, 11, len(APNM), len(APNM) + 3):  # the bytes may come in any pieces
        conn = JdwpConnection()
        data = APNM + HANDSHAKE
        conn.receive_data(data[:split])
        conn.receive_data(data[split:])
        assert conn.state is State.OPEN
        first = conn.next_event()
        assert isinstance(first, CommandPacket)
        assert (first.id, first.command_set, first.command) == (VM_PACKET_ID, DDM_SET, DDM_CHUNK)


async def test_the_jdwp_client_opens_past_an_early_apnm_and_delivers_it_as_ddm() -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    vm = FakeVm(theirs)

    async def device() -> None:
        while vm.framing.state is State.AWAIT_HANDSHAKE:
            vm.framing.receive_data(await theirs.receive_some(4096))
        await theirs.send_all(APNM + HANDSHAKE)  # the packet first, as ART did before change 1569323
        for _ in range(2):
            packet = await vm.receive()
            assert packet is not None
            if packet.key == VirtualMachine.IDSizes.key:
                await vm.reply(packet, VirtualMachine.IDSizes.encode_reply(HOTSPOT_64, None))
            else:
                await vm.answer_version(packet)
        await trio.sleep_forever()

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(device)
            async with open_jdwp(ours) as client:
                chunk = await client.receive_ddm()
                assert chunk.type == int.from_bytes(b"APNM", "big")
            nursery.cancel_scope.cancel()


async def test_the_adb_stream_handshake_skips_an_early_apnm_and_keeps_it_for_later() -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    stream = JdwpStream(None, ours, "emulator-5554", 4242, Transport.DIRECT)  # type: ignore[arg-type]

    async def device() -> None:
        assert await theirs.receive_some(len(HANDSHAKE)) == HANDSHAKE
        for i in range(0, len(APNM), 7):  # in pieces, as a busy adb transport delivers
            await theirs.send_all(APNM[i:i + 7])
        await theirs.send_all(HANDSHAKE + b"\x00\x00")

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(device)
            await stream._handshake(5)
    assert stream.handshake_done
    kept = b""
    while len(kept) < len(APNM) + 2:
        kept += await stream.receive_some(65536)
    assert kept == APNM + b"\x00\x00"  # the packet first, then what followed the echo

"""A scripted VM end for client tests: frames what the client sends, lets a test answer by hand.

It stands for the VM side of the JDWP wire protocol only (handshake, packets); tests use it to produce
faults a real VM will not produce on demand (EOF mid-packet, bad lengths, replies out of order).
"""

from __future__ import annotations

import trio

from jdwp.protocol.commands import VirtualMachine
from jdwp.protocol.connection import NEED_DATA, Closed, JdwpConnection, State
from jdwp.protocol.types import HOTSPOT_64, IdSizes
from jdwp.protocol.wire import HANDSHAKE, CommandPacket, ReplyPacket, encode_packet


class FakeVm:
    def __init__(self, stream: trio.abc.Stream, sizes: IdSizes = HOTSPOT_64) -> None:
        self.stream = stream
        self.sizes = sizes
        self.framing = JdwpConnection()

    async def handshake(self) -> None:
        while self.framing.state is State.AWAIT_HANDSHAKE:
            self.framing.receive_data(await self.stream.receive_some(4096))
        await self.stream.send_all(HANDSHAKE)

    async def receive(self) -> CommandPacket | None:
        while True:
            event = self.framing.next_event()
            if isinstance(event, Closed):
                return None
            if event is not NEED_DATA:
                assert isinstance(event, CommandPacket)
                return event
            self.framing.receive_data(await self.stream.receive_some(4096))

    async def reply(self, packet: CommandPacket, body: bytes = b"", error: int = 0) -> None:
        await self.stream.send_all(encode_packet(ReplyPacket(packet.id, error, body)))

    async def send_command(self, command_set: int, command: int, body: bytes = b"", packet_id: int = 1) -> None:
        await self.stream.send_all(encode_packet(CommandPacket(packet_id, command_set, command, body)))

    async def open(self) -> None:
        """Handshake, then answer the client's IDSizes request."""
        await self.handshake()
        packet = await self.receive()
        assert packet is not None and packet.key == VirtualMachine.IDSizes.key
        await self.reply(packet, VirtualMachine.IDSizes.encode_reply(self.sizes, None))

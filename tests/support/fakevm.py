"""A scripted VM end for client tests: frames what the client sends, lets a test answer by hand.

It stands for the VM side of the JDWP wire protocol only (handshake, packets); tests use it to produce
faults a real VM will not produce on demand (EOF mid-packet, bad lengths, replies out of order).
:class:`ScriptedVm` answers each command by name from a table of handlers and records what it was sent
(the engine's and the server's tests against behaviour, or text, a real VM does not show on demand).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import trio
import trio.testing

from jdwp.protocol.commands import BY_ID, Event, VirtualMachine
from jdwp.protocol.commands.events import Composite
from jdwp.protocol.commands.vm import VersionReply
from jdwp.protocol.connection import NEED_DATA, Closed, JdwpConnection, State
from jdwp.protocol.constants import ErrorCode, SuspendPolicy
from jdwp.protocol.types import HOTSPOT_64, IdSizes
from jdwp.protocol.wire import HANDSHAKE, CommandPacket, encode_packet

FAKE_VERSION = VersionReply("scripted VM", 17, 0, "17.0", "FakeVm")


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
        # Framed by the protocol's own VM-side framing (the same connection that reads the client's packets).
        await self.stream.send_all(self.framing.send_reply(packet.id, error, body))

    async def send_command(self, command_set: int, command: int, body: bytes = b"", packet_id: int = 1) -> None:
        await self.stream.send_all(encode_packet(CommandPacket(packet_id, command_set, command, body)))

    async def open(self, *, version: bool = True) -> None:
        """Handshake, then answer the client's IDSizes and Version requests (it sends both at once; only
        IDSizes when opened with ``read_version=False``: then pass ``version=False``)."""
        await self.handshake()
        for _ in range(2 if version else 1):
            packet = await self.receive()
            assert packet is not None and packet.key in (VirtualMachine.IDSizes.key, VirtualMachine.Version.key)
            if packet.key == VirtualMachine.IDSizes.key:
                await self.reply(packet, VirtualMachine.IDSizes.encode_reply(self.sizes, None))
            else:
                await self.answer_version(packet)

    async def answer_version(self, packet: CommandPacket) -> None:
        await self.reply(packet, VirtualMachine.Version.encode_reply(FAKE_VERSION, None))


Handler = Callable[[Any], Any]


class ScriptedVm(FakeVm):
    """Answers by command name; a handler returns the reply record, or an ``int`` error code."""

    def __init__(self, stream: trio.abc.Stream, handlers: dict[str, Handler]) -> None:
        super().__init__(stream)
        self.handlers = handlers
        self.sent: list[str] = []
        self._request_ids = 0

    def next_request_id(self) -> int:
        self._request_ids += 1
        return self._request_ids

    async def serve(self) -> None:
        await self.open()
        while (packet := await self.receive()) is not None:
            await self.answer(packet)

    async def answer_version(self, packet: CommandPacket) -> None:
        """The version the client reads at open: the handler's, if the table has one."""
        if "VirtualMachine.Version" in self.handlers:
            await self.answer(packet)
        else:
            await super().answer_version(packet)

    async def answer(self, packet: CommandPacket) -> None:
        command = BY_ID[packet.key]
        self.sent.append(command.name)
        handler = self.handlers.get(command.name)
        if handler is None:
            await self.reply(packet, error=ErrorCode.NOT_IMPLEMENTED)
            return
        answer = handler(command.decode_out(packet.body, self.sizes))
        if isinstance(answer, int):
            await self.reply(packet, error=answer)
        else:
            await self.reply(packet, command.encode_reply(answer, self.sizes))

    async def event(self, *events: Any, policy: int = SuspendPolicy.ALL) -> None:
        await self.send_command(64, 100, Event.Composite.encode_out(Composite(policy, list(events)), self.sizes))

    def count(self, name: str) -> int:
        return self.sent.count(name)


class WaveVm(ScriptedVm):
    """A :class:`ScriptedVm` that holds its answers until every task waits (over in-memory streams): the
    commands that came by then are one round trip, a *wave*, listed by name in :attr:`waves`."""

    def __init__(self, stream: trio.abc.Stream, handlers: dict[str, Handler]) -> None:
        super().__init__(stream, handlers)
        self.waves: list[list[str]] = []

    async def serve(self) -> None:
        await self.handshake()
        arrived, queue = trio.open_memory_channel[CommandPacket](math.inf)

        async def read() -> None:
            async with arrived:
                while (packet := await self.receive()) is not None:
                    arrived.send_nowait(packet)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(read)
            async for first in queue:
                await trio.testing.wait_all_tasks_blocked()
                wave = [first]
                while True:
                    try:
                        wave.append(queue.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
                self.waves.append([BY_ID[packet.key].name for packet in wave])
                for packet in wave:
                    await self.answer(packet)

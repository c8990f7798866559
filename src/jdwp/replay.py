"""Replay a recording: play the VM's side of a recorded session to a live debugger.

Layer: ``jdwp`` on trio; frames with the sans-IO :class:`JdwpConnection`.

Each command the debugger sends must match a command of the recording that is not matched yet — same
command, same out-data (packet IDs may differ: they are mapped). The order may differ where the debugger
pipelines: trio runs concurrent requests in no fixed order. What the VM sent is played in the recorded
order: a reply once its command has arrived, an event or DDM chunk once every debugger packet recorded
before it has arrived. A command the recording does not have is a :class:`ReplayMismatch`, reported and
fatal, so a test pins the exact conversation.
"""

from __future__ import annotations

import dataclasses

import trio

from .protocol.connection import NEED_DATA, Closed, JdwpConnection, Oversized, State
from .protocol.errors import JdwpError
from .protocol.wire import HANDSHAKE, CommandPacket, Packet, ReplyPacket, encode_packet
from .recording import OUT, Recording

__all__ = ["ReplayMismatch", "ReplayVm"]


class ReplayMismatch(JdwpError):
    """The debugger did something other than what the recording says."""


@dataclasses.dataclass
class ReplayResult:
    """What happened: how many recorded lines were played, and the mismatch, if any."""

    played: int = 0
    total: int = 0
    mismatch: ReplayMismatch | None = None

    @property
    def complete(self) -> bool:
        return self.mismatch is None and self.played == self.total


class ReplayVm:
    """Serves one recording over one stream; see the module docstring."""

    def __init__(self, recording: Recording, *, receive_size: int = 65536) -> None:
        self.recording = recording
        self.result = ReplayResult(total=len(recording.lines))
        self._receive_size = receive_size
        self._lines = recording.lines
        self._matched = [False] * len(self._lines)
        self._ids: dict[int, int] = {}  # recorded debugger packet ID -> the live debugger's ID
        self._cursor = 0

    async def serve(self, stream: trio.abc.Stream) -> ReplayResult:
        """Play the recording to the debugger at the other end of ``stream``; close it at the end.

        A debugger that leaves early (closes its end) ends the replay without a mismatch; ``complete``
        then tells whether everything was played.
        """
        framing = JdwpConnection()
        try:
            while True:
                await self._play_ready(stream, framing)
                if self._cursor >= len(self._lines):
                    return self.result
                packet = await self._receive_packet(stream, framing)
                if packet is None:
                    return self.result
                self._match(packet)
        except ReplayMismatch as exc:
            self.result.mismatch = exc
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            await trio.aclose_forcefully(stream)
        return self.result

    async def _play_ready(self, stream: trio.abc.Stream, framing: JdwpConnection) -> None:
        """Advance through the recording as far as what has arrived allows, sending the VM's lines."""
        while self._cursor < len(self._lines):
            line = self._lines[self._cursor]
            if line.kind == "handshake":
                if line.dir == OUT:
                    await self._receive_handshake(stream, framing)
                else:
                    await stream.send_all(HANDSHAKE)
            elif line.dir == OUT:
                if not self._matched[self._cursor]:
                    return
            else:
                packet = line.packet()
                if isinstance(packet, ReplyPacket):
                    live_id = self._ids.pop(packet.id, None)
                    if live_id is None:
                        raise ReplayMismatch(f"the recording replies to packet {packet.id}, never sent")
                    packet = packet._replace(id=live_id)
                await stream.send_all(encode_packet(packet))
            self._cursor += 1
            self.result.played += 1

    async def _receive_handshake(self, stream: trio.abc.Stream, framing: JdwpConnection) -> None:
        while framing.state is State.AWAIT_HANDSHAKE:
            framing.receive_data(await stream.receive_some(self._receive_size))
        if framing.state is not State.OPEN:
            raise ReplayMismatch("the debugger closed the connection before its handshake")

    async def _receive_packet(self, stream: trio.abc.Stream, framing: JdwpConnection) -> Packet | None:
        while True:
            event = framing.next_event()
            if isinstance(event, Closed):
                return None
            if event is not NEED_DATA:
                assert not isinstance(event, Oversized)  # this framing does not skip: an over-cap length raises
                return event
            framing.receive_data(await stream.receive_some(self._receive_size))

    def _match(self, packet: Packet) -> None:
        if not isinstance(packet, CommandPacket):
            raise ReplayMismatch(f"the debugger sent a reply, which no recording has: {packet}")
        for index in range(self._cursor, len(self._lines)):
            line = self._lines[index]
            if line.dir != OUT or line.kind != "command" or self._matched[index]:
                continue
            expected = line.packet()
            if isinstance(expected, CommandPacket) and expected.key == packet.key and expected.body == packet.body:
                self._matched[index] = True
                self._ids[expected.id] = packet.id
                return
        raise ReplayMismatch(
            f"the debugger sent ({packet.command_set},{packet.command}) with body {packet.body.hex()}, "
            f"which the recording does not have (next expected: {self._next_expected()})")

    def _next_expected(self) -> str:
        for index in range(self._cursor, len(self._lines)):
            line = self._lines[index]
            if line.dir == OUT and not self._matched[index]:
                return f"{line.note} {line.packet().body.hex()}"
        return "nothing"

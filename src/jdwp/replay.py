"""Replay a recording: play the VM's side of a recorded session to a live debugger.

Layer: ``jdwp`` on trio; frames with the sans-IO :class:`JdwpConnection`.

The replaying VM walks the recording in order. For each packet the debugger sent in the recording it
waits for the debugger to send the same command with the same out-data (packet IDs may differ: they are
mapped), then sends what the VM sent next — replies re-addressed to the debugger's packet IDs, events and
DDM chunks as recorded — until the next recorded debugger packet. Any difference is a
:class:`ReplayMismatch`, reported and fatal, so a test pins the exact conversation.
"""

from __future__ import annotations

import dataclasses

import trio

from .protocol.connection import NEED_DATA, Closed, JdwpConnection, State
from .protocol.errors import JdwpError
from .protocol.wire import HANDSHAKE, CommandPacket, Packet, ReplyPacket, encode_packet
from .recording import IN, Line, Recording

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
        self._ids: dict[int, int] = {}  # recorded debugger packet ID -> the live debugger's ID

    async def serve(self, stream: trio.abc.Stream) -> ReplayResult:
        """Play the recording to the debugger at the other end of ``stream``; close it at the end.

        A debugger that leaves early (closes its end) ends the replay without a mismatch; ``complete``
        then tells whether everything was played.
        """
        framing = JdwpConnection()
        try:
            for line in self.recording.lines:
                if line.dir == IN:
                    await stream.send_all(self._outgoing(line))
                elif line.kind == "handshake":
                    await self._receive_handshake(stream, framing)
                else:
                    packet = await self._receive_packet(stream, framing)
                    if packet is None:
                        return self.result
                    self._match(line, packet)
                self.result.played += 1
        except ReplayMismatch as exc:
            self.result.mismatch = exc
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            await trio.aclose_forcefully(stream)
        return self.result

    def _outgoing(self, line: Line) -> bytes:
        if line.kind == "handshake":
            return HANDSHAKE
        packet = line.packet()
        if isinstance(packet, ReplyPacket):
            live_id = self._ids.pop(packet.id, None)
            if live_id is None:
                raise ReplayMismatch(f"the recording replies to packet {packet.id}, which was never matched")
            packet = packet._replace(id=live_id)
        return encode_packet(packet)

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
                return event  # type: ignore[return-value]
            framing.receive_data(await stream.receive_some(self._receive_size))

    def _match(self, line: Line, packet: Packet) -> None:
        expected = line.packet()
        if not isinstance(packet, CommandPacket) or not isinstance(expected, CommandPacket):
            raise ReplayMismatch(f"expected {line.note or 'a command'}, the debugger sent a reply {packet}")
        if packet.key != expected.key or packet.body != expected.body:
            raise ReplayMismatch(
                f"expected {line.note} ({expected.command_set},{expected.command}) with body "
                f"{expected.body.hex()}, got ({packet.command_set},{packet.command}) with body {packet.body.hex()}")
        self._ids[expected.id] = packet.id

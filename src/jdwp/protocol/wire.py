"""JDWP framing: the handshake and the 11-byte packet header.

Layer: ``jdwp.protocol`` (sans-IO; no trio, no sockets). Spec: "JDWP Handshake", "JDWP Packets".

Every packet starts with ``length u32, id u32, flags u8`` and then either ``command set u8, command u8``
(a command) or ``error code u16`` (a reply, flag 0x80). ``length`` counts the header too. Big-endian.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import NamedTuple

from .errors import FramingError

HANDSHAKE = b"JDWP-Handshake"
HEADER = struct.Struct(">IIBH")  # length, id, flags, (set << 8 | command) or error code
HEADER_SIZE = HEADER.size  # 11
REPLY_FLAG = 0x80
DEFAULT_MAX_PACKET = 64 * 1024 * 1024
MAX_ID = 0xFFFFFFFF


class CommandPacket(NamedTuple):
    """A command: sent by the debugger, or by the VM (events, DDM).

    Packets are named tuples: thousands are framed per second, and a tuple is the cheapest record.
    """

    id: int
    command_set: int
    command: int
    body: bytes = b""
    flags: int = 0

    @property
    def key(self) -> tuple[int, int]:
        return (self.command_set, self.command)


class ReplyPacket(NamedTuple):
    """A reply to the command with the same ``id``; ``error_code`` 0 means success."""

    id: int
    error_code: int
    body: bytes = b""
    flags: int = REPLY_FLAG


Packet = CommandPacket | ReplyPacket


def encode_packet(packet: Packet) -> bytes:
    """The packet's bytes, header included."""
    length = HEADER_SIZE + len(packet.body)
    if isinstance(packet, ReplyPacket):
        code = packet.error_code
    else:
        code = (packet.command_set << 8) | packet.command
    return HEADER.pack(length, packet.id, packet.flags, code) + packet.body


def split_packets(buf: bytearray, max_length: int = DEFAULT_MAX_PACKET) -> Iterator[Packet]:
    """Yield every whole packet at the front of ``buf``, removing each before it is yielded.

    Raises:
        FramingError: as :func:`take_packet`.
    """
    while (packet := take_packet(buf, max_length)) is not None:
        yield packet


def take_packet(buf: bytearray, max_length: int = DEFAULT_MAX_PACKET) -> Packet | None:
    """The whole packet at the front of ``buf``, removed from it; ``None`` while it has not all arrived.

    Raises:
        FramingError: a length shorter than the header or longer than ``max_length``; checked as soon as
            the header is in, so an absurd length is never waited for or allocated.
    """
    if len(buf) < HEADER_SIZE:
        return None
    length, packet_id, flags, code = HEADER.unpack_from(buf)
    if length < HEADER_SIZE:
        raise FramingError(f"packet length {length} is shorter than the {HEADER_SIZE}-byte header")
    if length > max_length:
        raise FramingError(f"packet length {length} exceeds the {max_length}-byte limit")
    if len(buf) < length:
        return None
    body = bytes(buf[HEADER_SIZE:length])
    del buf[:length]
    if flags & REPLY_FLAG:
        return ReplyPacket(packet_id, code, body, flags)
    return CommandPacket(packet_id, code >> 8, code & 0xFF, body, flags)


def pending_length(buf: bytes | bytearray) -> int | None:
    """The full length of the packet whose start is in ``buf``, when its header has arrived."""
    if len(buf) < HEADER_SIZE:
        return None
    return int(HEADER.unpack_from(buf)[0])

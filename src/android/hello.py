"""First contact with an Android app: one DDM ``HELO`` right after the JDWP handshake.

Layer: ``android`` (trio + stdlib); speaks just enough JDWP framing (11-byte header, command set 199) to
send one DDM packet and find its reply, so it never imports ``jdwp``. Spec: docs/design.md §4.6.

Why here, before the JDWP client starts: until the first non-DDM packet, ART's adbconnection answers
DDM packets itself, without loading the JDWP agent (art/adbconnection/adbconnection.cc,
``HandleDataWithoutAgent``), so the reply is quick and tells — before ``IDSizes`` — the pid, the ABI
(pointer size), the process and package names, the user and whether the app waits for a debugger
(``DdmHandleHello`` sends ``WAIT`` just before its HELO reply while it waits). A VM without DDM (a
HotSpot JVM) answers with an error; one that says nothing within the short timeout is left alone.
Every packet read that is not our reply is put back on the stream, in order, for the JDWP client.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Protocol

import trio

from . import ddm
from .errors import AdbProtocolError

__all__ = ["HELLO_PACKET_ID", "HELLO_TIMEOUT", "FirstContact", "Rewindable", "say_hello"]


class Rewindable(Protocol):
    """A byte stream that takes back bytes read too far (``pyjdwp_android.JdwpStream`` is one)."""

    async def send_all(self, data: bytes) -> None: ...

    async def receive_some(self, max_bytes: int | None = None) -> bytes: ...

    def unread(self, data: bytes) -> None: ...

HELLO_PACKET_ID = 0x7079_6A01
"""The id of our HELO command: not one the JDWP client (which counts from 1) uses soon."""

HELLO_TIMEOUT = 2.0
"""ART answers HELO in process at once; a VM without DDM answers with an error just as fast."""

_HEADER = struct.Struct(">IIBBB")
_REPLY = 0x80
_DDM_SET, _DDM_CHUNK = 199, 1


@dataclass(frozen=True)
class FirstContact:
    """What the app said before the JDWP agent loaded: its HELO (``None`` when it sent none) and the
    other DDM chunks (``WAIT``, ``APNM``, ``STAG``…) that came before the reply, decoded."""

    hello: ddm.Hello | None
    waiting: bool = False
    chunks: tuple[object, ...] = field(default=())
    error: str | None = None


def _request() -> bytes:
    data = ddm.hello_request()
    body = struct.pack(">II", ddm.HELO, len(data)) + data
    return _HEADER.pack(11 + len(body), HELLO_PACKET_ID, 0, _DDM_SET, _DDM_CHUNK) + body


async def say_hello(stream: Rewindable, timeout: float = HELLO_TIMEOUT) -> FirstContact:
    """Send DDM HELO on a stream just past its handshake and read what comes back, up to our reply.

    Never raises for what the peer says or does not say: the result's ``error`` tells. Cancellation
    and a broken stream propagate (the caller is attaching and must fail).
    """
    await stream.send_all(_request())
    buffer = bytearray()
    others = bytearray()
    chunks: list[object] = []
    waiting = False
    hello: ddm.Hello | None = None
    error: str | None = None
    with trio.move_on_after(timeout) as scope:
        while True:
            while len(buffer) < 11:
                data = await stream.receive_some(65536)
                if not data:
                    stream.unread(bytes(others + buffer))
                    return FirstContact(None, waiting, tuple(chunks), "the connection ended after DDM HELO")
                buffer += data
            length, packet_id, flags = struct.unpack_from(">IIB", buffer)
            if length < 11:
                error = f"a packet of length {length} answered DDM HELO"
                break
            while len(buffer) < length:
                data = await stream.receive_some(65536)
                if not data:
                    stream.unread(bytes(others + buffer))
                    return FirstContact(None, waiting, tuple(chunks), "the connection ended after DDM HELO")
                buffer += data
            packet, buffer = bytes(buffer[:length]), buffer[length:]
            if flags & _REPLY and packet_id == HELLO_PACKET_ID:
                code = struct.unpack_from(">H", packet, 9)[0]
                if code:
                    error = f"the VM answered DDM HELO with error {code} (not an Android VM)"
                else:
                    hello, error = _decode_reply(packet[11:])
                break
            others += packet
            if not flags & _REPLY and packet[9:11] == bytes((_DDM_SET, _DDM_CHUNK)):
                info = _decode_body(packet[11:])
                if info is not None:
                    chunks.append(info)
                    waiting = waiting or (isinstance(info, ddm.Waiting) and info.waiting_for_debugger)
    if scope.cancelled_caught:
        error = f"no answer to DDM HELO within {timeout:g} s"
    stream.unread(bytes(others + buffer))
    return FirstContact(hello, waiting, tuple(chunks), error)


def _decode_body(body: bytes) -> object | None:
    try:
        kind, data = ddm.split_chunk(body)
        return ddm.decode_chunk(kind, data)
    except AdbProtocolError:
        return None


def _decode_reply(body: bytes) -> tuple[ddm.Hello | None, str | None]:
    info = _decode_body(body)
    if isinstance(info, ddm.Hello):
        return info, None
    return None, "the reply to DDM HELO is not a HELO chunk"

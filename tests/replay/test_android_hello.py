"""DDM HELO right after the handshake (pyjdwp_android.hello), against scripted peers over memory streams.

The peers play what art/adbconnection does before the JDWP agent loads (answer DDM in process: WAIT as a
command packet just before the HELO reply while the app waits), and what a VM without DDM does (an error
reply), and one that says nothing. Bytes that are not our reply go back to the stream, in order.
"""

from __future__ import annotations

import struct

import trio
import trio.testing

from pyjdwp_android import ddm
from pyjdwp_android.hello import HELLO_PACKET_ID, say_hello


class Rewound(trio.abc.Stream):
    """A stream with ``unread``, as pyjdwp_android.JdwpStream has."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.pending = bytearray()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self.pending:
            data, self.pending = bytes(self.pending), bytearray()
            await trio.lowlevel.checkpoint()
            return data
        return bytes(await self.inner.receive_some(max_bytes))

    def unread(self, data: bytes) -> None:
        self.pending[:0] = data

    async def aclose(self) -> None:
        await self.inner.aclose()


def chunk(packet_id: int, flags: int, kind: bytes, data: bytes, code: bytes = b"\xc7\x01") -> bytes:
    body = kind + struct.pack(">I", len(data)) + data
    return struct.pack(">IIB", 11 + len(body), packet_id, flags) + code + body


def utf16(text: str) -> bytes:
    return struct.pack(">I", len(text)) + text.encode("utf-16-be")


HELLO = (struct.pack(">IIII", 1, 4242, 5, 7) + "Dalvi".encode("utf-16-be") + "com.x.y".encode("utf-16-be")
         + struct.pack(">i", 10) + utf16("32-bit (arm)") + utf16("CheckJNI=false") + b"\x00" + utf16("com.x.y")
         + b"DEBG")
EVENT = struct.pack(">IIBBB", 11 + 6, 0x4000_0001, 0, 64, 100) + b"\x02" + b"\x00" * 5


async def test_a_waiting_app_answers_with_wait_then_hello() -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    stream = Rewound(ours)
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            async def peer() -> None:
                request = await theirs.receive_some(65536)
                assert request[9:11] == b"\xc7\x01" and request[11:15] == b"HELO"
                packet_id = struct.unpack_from(">I", request, 4)[0]
                await theirs.send_all(chunk(0x8000_0002, 0, b"WAIT", b"\x00")
                                      + chunk(packet_id, 0x80, b"HELO", HELLO, code=b"\x00\x00") + EVENT)

            nursery.start_soon(peer)
            contact = await say_hello(stream)
    assert contact.error is None and contact.waiting
    hello = contact.hello
    assert hello is not None and hello.pid == 4242 and hello.user_id == 10 and hello.pointer_size == 4
    assert hello.package_name == "com.x.y" and hello.boot_stage == "DEBG"
    assert [type(c) for c in contact.chunks] == [ddm.Waiting]
    # The WAIT packet and what followed the reply are put back for the JDWP client, in order.
    assert bytes(stream.pending) == chunk(0x8000_0002, 0, b"WAIT", b"\x00") + EVENT


async def test_a_vm_without_ddm_answers_with_an_error() -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    stream = Rewound(ours)
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            async def peer() -> None:
                await theirs.receive_some(65536)
                # HotSpot: VM_START first (suspend=y), then NOT_IMPLEMENTED (99) for command set 199
                await theirs.send_all(EVENT + struct.pack(">IIBH", 11, HELLO_PACKET_ID, 0x80, 99))

            nursery.start_soon(peer)
            contact = await say_hello(stream)
    assert contact.hello is None and not contact.waiting and "error 99" in (contact.error or "")
    assert bytes(stream.pending) == EVENT


async def test_silence_is_left_alone_after_the_short_timeout() -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    stream = Rewound(ours)
    with trio.fail_after(5):
        contact = await say_hello(stream, timeout=0.2)
        assert await theirs.receive_some(65536)  # the request went out
    assert contact.hello is None and "within 0.2 s" in (contact.error or "")

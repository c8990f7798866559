"""The framing's answer to a packet over the cap (docs/design.md §2.7), sans-IO.

With ``skip_oversized`` (the client's connection) an over-cap packet is one :class:`Oversized` event, its
body is dropped a receive at a time and never kept, and the packet after it frames as usual. Without it (the
recorder, the replayer, the fakes) the length is a ``FramingError``, as a length below the header always is.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jdwp.protocol.connection import NEED_DATA, Closed, JdwpConnection, Oversized, State
from jdwp.protocol.errors import FramingError
from jdwp.protocol.wire import CommandPacket, ReplyPacket, encode_packet

CAP = 1024


def _open(skip: bool = True) -> JdwpConnection:
    conn = JdwpConnection(CAP, skip_oversized=skip)
    conn.skip_handshake()
    return conn


def _reply_header(length: int, packet_id: int) -> bytes:
    return struct.pack(">IIBH", length, packet_id, 0x80, 0)


def test_an_oversized_reply_is_its_header_then_the_next_packet_frames() -> None:
    conn = _open()
    body = 50_000
    after = encode_packet(ReplyPacket(8, 0, b"\x00\x00\x00\x2a"))
    conn.receive_data(_reply_header(11 + body, 7) + b"x" * 100)
    event = conn.next_event()
    assert event == Oversized(7, True, 0, 11 + body, CAP)
    assert conn.next_event() is NEED_DATA
    sent = 100
    peak = 0
    while sent < body:  # the body comes in receives; none of it stays buffered
        chunk = min(4096, body - sent)
        conn.receive_data(b"y" * chunk + (after if sent + chunk == body else b""))
        sent += chunk
        if sent < body:
            assert conn.next_event() is NEED_DATA
        peak = max(peak, conn.buffered)
    assert peak <= 4096
    packet = conn.next_event()
    assert isinstance(packet, ReplyPacket) and (packet.id, packet.body) == (8, b"\x00\x00\x00\x2a")
    assert conn.next_event() is NEED_DATA
    assert conn.state is State.OPEN


def test_a_body_and_the_next_packet_in_one_receive() -> None:
    conn = _open()
    after = encode_packet(ReplyPacket(3, 0, b"ok"))
    conn.receive_data(_reply_header(11 + 2000, 2) + b"z" * 2000 + after)
    assert isinstance(conn.next_event(), Oversized)
    packet = conn.next_event()
    assert isinstance(packet, ReplyPacket) and packet.body == b"ok"


def test_an_oversized_command_is_reported_with_its_set_and_command() -> None:
    conn = _open()
    conn.receive_data(struct.pack(">IIBH", 11 + 5000, 99, 0, (64 << 8) | 100) + b"e" * 5000)
    assert conn.next_event() == Oversized(99, False, (64 << 8) | 100, 11 + 5000, CAP)
    assert conn.next_event() is NEED_DATA


def test_the_stream_ending_mid_skip_is_a_cut_off_packet() -> None:
    conn = _open()
    conn.receive_data(_reply_header(11 + 5000, 2) + b"z" * 1000)
    assert isinstance(conn.next_event(), Oversized)
    conn.receive_data(b"")
    closed = conn.next_event()
    assert isinstance(closed, Closed) and (closed.partial, closed.expected) == (1011, 5011)
    assert "mid-packet" in str(closed.error())


def test_without_skipping_an_over_cap_length_is_a_framing_error() -> None:
    conn = _open(skip=False)
    conn.receive_data(_reply_header(11 + 5000, 2))
    with pytest.raises(FramingError, match="exceeds"):
        conn.next_event()
    assert conn.state is State.ERROR


def test_a_length_below_the_header_is_still_a_framing_error() -> None:
    conn = _open()
    conn.receive_data(_reply_header(5, 2))
    with pytest.raises(FramingError, match="shorter than"):
        conn.next_event()


_IDS = st.integers(1, 2**32 - 1)
_PACKETS = st.one_of(
    st.tuples(_IDS, st.integers(0, 0xFFFF), st.binary(max_size=40)).map(lambda f: ReplyPacket(*f)),
    st.tuples(_IDS, st.integers(0, 255), st.integers(0, 255), st.binary(max_size=40)).map(lambda f: CommandPacket(*f)),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PACKETS | st.integers(CAP - 10, CAP + 300), max_size=12), st.data())
def test_packets_in_any_pieces_frame_as_sent_and_over_cap_ones_as_their_headers(
        items: list[ReplyPacket | CommandPacket | int], data: st.DataObject) -> None:
    """Whatever the pieces the bytes come in, each packet frames as it was sent, and each over the cap (an int
    here: its full length) as one ``Oversized`` header with nothing of its body kept."""
    stream = b"".join(encode_packet(item) if not isinstance(item, int)
                      else _reply_header(item, 7) + bytes(item - 11) for item in items)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    conn = _open()
    got: list[object] = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        if start == end:
            continue  # b"" is the end of the stream
        conn.receive_data(stream[start:end])
        while (event := conn.next_event()) is not NEED_DATA:
            got.append(event)
    conn.receive_data(b"")
    assert conn.next_event() == Closed(0, None)
    assert got == [item if not isinstance(item, int) else ReplyPacket(7, 0, bytes(item - 11)) if item <= CAP
                   else Oversized(7, True, 0, item, CAP) for item in items]

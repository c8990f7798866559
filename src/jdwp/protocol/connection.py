"""The JDWP connection as a sans-IO state machine (h11's shape): bytes in, packets out.

Layer: ``jdwp.protocol`` (no trio, no sockets). Spec: "JDWP Handshake", "JDWP Packets".

States: ``AWAIT_HANDSHAKE`` → ``OPEN`` → ``CLOSED`` (the peer ended the stream), or ``ERROR`` (the peer
sent bytes we cannot frame), which is permanent. Either side can use it: the debugger (our client) and
a VM (the test fakes and the recorder), since both send the same handshake and the same packets.

A packet longer than the cap is a well-framed packet we refuse to hold, not garbage: with
``skip_oversized`` (the client's choice) its header is returned as an :class:`Oversized` event and its body
is dropped as it arrives, a receive at a time, so the connection goes on with the next packet (docs/design.md
§2.7: a VM that must send a whole 30M-char string in ``StringReference.Value`` fails that call only).
Without it (the recorder, the replayer and the test fakes, which must see every byte) such a length is a
``FramingError`` as before.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from typing import Final, Literal, NoReturn

from .errors import ConnectionClosed, FramingError, ProtocolError, UsageError
from .wire import (
    DEFAULT_MAX_PACKET,
    HANDSHAKE,
    HEADER,
    HEADER_SIZE,
    MAX_ID,
    REPLY_FLAG,
    CommandPacket,
    Packet,
    ReplyPacket,
    encode_packet,
    pending_length,
    take_packet,
)


class State(enum.Enum):
    AWAIT_HANDSHAKE = "await_handshake"
    OPEN = "open"
    CLOSED = "closed"
    ERROR = "error"


class NeedData(enum.Enum):
    """A singleton that type checkers can narrow on (``is NEED_DATA`` rules the other types out)."""

    NEED_DATA = "NEED_DATA"

    def __repr__(self) -> str:
        return "NEED_DATA"


#: ``next_event()`` returns this when no whole packet is buffered yet.
NEED_DATA: Final = NeedData.NEED_DATA

#: The most bytes of whole VM commands taken before the handshake's echo (an ``APNM`` is some 100 bytes).
EARLY_LIMIT: Final = 64 * 1024


@dataclasses.dataclass(frozen=True, slots=True)
class Closed:
    """``next_event()`` result once the peer has ended the stream and every whole packet was returned.

    ``partial`` counts the bytes of a packet that was cut off (0 when the stream ended cleanly).
    """

    partial: int = 0
    expected: int | None = None

    def error(self) -> ConnectionClosed:
        if not self.partial:
            return ConnectionClosed("the peer closed the JDWP connection")
        of = f" of {self.expected}" if self.expected is not None else ""
        return ConnectionClosed(f"the peer closed the JDWP connection mid-packet ({self.partial}{of} bytes)")


@dataclasses.dataclass(frozen=True, slots=True)
class Oversized:
    """``next_event()`` result for a packet whose length exceeds the cap (with ``skip_oversized``): its
    header only. Its body is skipped without being kept; the next event is the packet after it."""

    packet_id: int
    is_reply: bool
    #: The error code of a reply, ``(command set << 8) | command`` of a command.
    code: int
    length: int
    limit: int


class JdwpConnection:
    """Framing, handshake and packet IDs for one JDWP connection, with no I/O.

    Usage: send :meth:`initiate`'s bytes, feed whatever arrives to :meth:`receive_data` (``b""`` for end of
    stream), and call :meth:`next_event` until it returns :data:`NEED_DATA` or a :class:`Closed`.
    """

    def __init__(self, max_packet: int = DEFAULT_MAX_PACKET, *, skip_oversized: bool = False) -> None:
        self.state = State.AWAIT_HANDSHAKE
        self.max_packet = max_packet
        self.skip_oversized = skip_oversized
        self._skip = 0  # bytes of an oversized packet's body still to drop
        self._skipping = 0  # that packet's full length (0 when none is being skipped)
        self._buf = bytearray()
        self._early = bytearray()  # whole VM commands that came before the handshake's echo
        self._eof = False
        self._next_id = 1
        self._error: ProtocolError | None = None

    def initiate(self) -> bytes:
        """The handshake to send, in one write (ART closes a client whose handshake comes in pieces)."""
        return HANDSHAKE

    def skip_handshake(self) -> None:
        """Start ``OPEN``: for a stream on which someone else already exchanged the handshake.

        Raises:
            UsageError: bytes were already received, or the connection is past the handshake.
        """
        if self.state is not State.AWAIT_HANDSHAKE or self._buf:
            raise UsageError(f"cannot skip the handshake in state {self.state.value}")
        self.state = State.OPEN

    def _allocate_id(self) -> int:
        packet_id = self._next_id
        self._next_id = 1 if packet_id >= MAX_ID else packet_id + 1
        return packet_id

    def send_command(self, command_set: int, command: int, body: bytes = b"") -> tuple[int, bytes]:
        """Frame a command with a fresh packet ID.

        Returns:
            ``(packet_id, bytes to send)``.

        Raises:
            UsageError: the handshake is not done, or the connection has ended.
        """
        self._check_open()
        packet_id = self._allocate_id()
        return packet_id, encode_packet(CommandPacket(packet_id, command_set, command, body))

    def send_commands(self, command_set: int, command: int, bodies: Sequence[bytes]) -> tuple[list[int], bytes]:
        """Frame one command for each body, with fresh packet IDs, as one buffer (a sweep's thousands of
        commands: no packet record each).

        Raises:
            UsageError: as :meth:`send_command`.
        """
        self._check_open()
        ids = [self._allocate_id() for _ in bodies]
        code = (command_set << 8) | command
        pack = HEADER.pack
        return ids, b"".join([pack(HEADER_SIZE + len(body), packet_id, 0, code) + body
                              for packet_id, body in zip(ids, bodies, strict=True)])

    def send_reply(self, packet_id: int, error_code: int = 0, body: bytes = b"") -> bytes:
        """Frame a reply (the VM's side of the conversation)."""
        self._check_open()
        return encode_packet(ReplyPacket(packet_id, error_code, body))

    def _check_open(self) -> None:
        if self.state is not State.OPEN:
            raise UsageError(f"cannot send on a JDWP connection in state {self.state.value}")

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        """Feed bytes from the peer; ``b""`` means the peer ended the stream.

        Raises:
            ProtocolError: the peer's handshake is not ``JDWP-Handshake``.
        """
        if self._error is not None:
            raise self._error
        if not data:
            self._eof = True
        self._buf += data
        if self.state is State.AWAIT_HANDSHAKE:
            self._check_handshake()

    def _check_handshake(self) -> None:
        while self._skip_early_packet():
            pass
        got = bytes(self._buf[: len(HANDSHAKE)])
        if got != HANDSHAKE[: len(got)] and not self._early_packet_coming():
            self._fail(FramingError(f"the peer is not a JDWP agent: its handshake starts {got!r}"))
        if len(got) == len(HANDSHAKE):
            # The packets that came first are read as the first packets after the handshake.
            self._buf[: len(HANDSHAKE)] = self._early
            self._early = bytearray()
            self.state = State.OPEN
        elif self._eof:
            self.state = State.CLOSED

    def _skip_early_packet(self) -> bool:
        """Move one whole VM command at the front of the buffer, sent before the handshake's echo, aside.

        ART sent DDM packets (``APNM``) before its echo for years: Android bug 178655046, fixed by ART change
        1569323 (android-review.googlesource.com/c/platform/art/+/1569323); CTS ``JdwpTunnelTest
        .testDdmsWaitsForHandshake`` pins the fix, and Android Studio's adblib still skips such packets while
        it looks for the echo. A command (flags 0) of at most :data:`EARLY_LIMIT` bytes is one of those.
        """
        if len(self._buf) < HEADER_SIZE or self._buf.startswith(HANDSHAKE[:HEADER_SIZE]):
            return False
        length, _packet_id, flags, _code = HEADER.unpack_from(self._buf)
        if flags or not HEADER_SIZE <= length <= EARLY_LIMIT or len(self._buf) < length:
            return False
        if len(self._early) + length > EARLY_LIMIT:
            self._fail(FramingError(f"the peer sent over {EARLY_LIMIT} bytes of packets before its handshake"))
        self._early += self._buf[:length]
        del self._buf[:length]
        return True

    def _early_packet_coming(self) -> bool:
        """The buffer starts with what may yet be an early VM command (see :meth:`_skip_early_packet`)."""
        if not self._buf or self._buf[0] != 0:  # a length under 16 MiB starts with a zero byte; "J" does not
            return False
        if len(self._buf) < HEADER_SIZE:
            return True
        length, _packet_id, flags, _code = HEADER.unpack_from(self._buf)
        return not flags and HEADER_SIZE <= length <= EARLY_LIMIT

    def _fail(self, error: ProtocolError) -> NoReturn:
        self.state = State.ERROR
        self._error = error
        raise error

    def next_event(self) -> Packet | Oversized | Literal[NeedData.NEED_DATA] | Closed:
        """The next whole packet, an :class:`Oversized` header (with ``skip_oversized``), :data:`NEED_DATA`,
        or :class:`Closed` after the end of the stream.

        Raises:
            ProtocolError: the bytes cannot be framed (a length below the header size, or above the cap
                without ``skip_oversized``); the connection stays in ``ERROR`` and raises the same error from
                then on.
        """
        buf = self._buf
        if self.state is State.OPEN and not self._skip and len(buf) >= HEADER_SIZE:
            # The usual case, a whole packet of a usual size at the front: framed here in one step (a hit of a
            # conditional breakpoint reads four packets; the general path below checks the header three times).
            length, packet_id, flags, code = HEADER.unpack_from(buf)
            if HEADER_SIZE <= length <= self.max_packet:
                if length <= len(buf):
                    self._skipping = 0
                    body = bytes(buf[HEADER_SIZE:length])
                    del buf[:length]
                    if flags & REPLY_FLAG:
                        return ReplyPacket(packet_id, code, body, flags)
                    return CommandPacket(packet_id, code >> 8, code & 0xFF, body, flags)
                if not self._eof:  # the rest of a packet of a usual size is still to come
                    self._skipping = 0
                    return NEED_DATA
        if self._error is not None:
            raise self._error
        if self.state is State.AWAIT_HANDSHAKE:
            return NEED_DATA
        if self.state is State.OPEN:
            if self._skip:
                dropped = min(self._skip, len(self._buf))
                del self._buf[:dropped]
                self._skip -= dropped
            if not self._skip:
                self._skipping = 0
                oversized = self._take_oversized()
                if oversized is not None:
                    return oversized
                try:
                    packet = take_packet(self._buf, self.max_packet)
                except ProtocolError as exc:
                    self._fail(exc)
                if packet is not None:
                    return packet
            if not self._eof:
                return NEED_DATA
            self.state = State.CLOSED
        if self._skipping:
            return Closed(self._skipping - self._skip, self._skipping)
        return Closed(len(self._buf), pending_length(self._buf))

    def _take_oversized(self) -> Oversized | None:
        """The header of an over-cap packet at the front of the buffer, with as much of its body as is here
        dropped and the rest to be dropped as it comes."""
        if not self.skip_oversized or len(self._buf) < HEADER_SIZE:
            return None
        length, packet_id, flags, code = HEADER.unpack_from(self._buf)
        if length <= self.max_packet:
            return None
        dropped = min(length, len(self._buf))
        del self._buf[:dropped]
        self._skip, self._skipping = length - dropped, length
        return Oversized(packet_id, bool(flags & REPLY_FLAG), code, length, self.max_packet)

    @property
    def buffered(self) -> int:
        """Bytes received and not yet returned as packets (an oversized packet's skipped bytes are not kept)."""
        return len(self._buf)

"""Sans-IO codec of the ADB server's smart-socket protocol and of the replies we read from it.

Layer: ``android``, sans-IO: no trio, no sockets, no ``jdwp``. Functions take and return bytes or
``bytearray`` buffers; the readers consume exactly one unit from the front of the buffer or return
``NEED_DATA`` and leave it untouched, so a caller can feed bytes in any split.
Spec: docs/design.md §4.1; wire tables and transcripts in ``specs/adb/smart-socket.md``.

Wire summary (all lengths are 4 ASCII hex digits, either case on input, lowercase on output):

- request: ``<hex4 length><service>``, e.g. ``000chost:version``; at most 0xFFFF bytes.
- status: ``OKAY``, or ``FAIL<hex4 length><message>``.
- hex block: ``<hex4 length><payload>`` (``host:version``, ``devices-l``, ``track-jdwp``, ``track-app``).
- shell v2 packet: ``<u8 id><u32 little-endian length><payload>``.
"""

from __future__ import annotations

import enum
import re
import struct
from dataclasses import dataclass, field
from typing import Final

from .errors import AdbProtocolError, InvalidArgument

__all__ = [
    "MAX_REQUEST",
    "NEED_DATA",
    "OKAY",
    "DeviceInfo",
    "Fail",
    "ForwardEntry",
    "NeedData",
    "Okay",
    "ShellId",
    "ShellPacket",
    "encode_request",
    "encode_shell_packet",
    "parse_devices",
    "parse_forward_list",
    "parse_pid_list",
    "parse_version",
    "read_exactly",
    "read_hex_block",
    "read_shell_packet",
    "read_status",
]

MAX_REQUEST: Final = 0xFFFF
"""The largest payload a 4-hex-digit length can announce."""


class NeedData(enum.Enum):
    """Returned by a reader when the buffer does not yet hold a whole unit."""

    NEED_DATA = "NEED_DATA"


NEED_DATA: Final = NeedData.NEED_DATA


@dataclass(frozen=True)
class Okay:
    """The server accepted the request."""


OKAY: Final = Okay()


@dataclass(frozen=True)
class Fail:
    """The server refused the request; ``message`` is its text, verbatim."""

    message: str


def encode_request(service: str) -> bytes:
    """Frame one service request.

    Args:
        service: the request, e.g. ``"host:version"`` or ``"shell,v2,raw:id"``.

    Returns:
        ``<hex4 length><service bytes>``.

    Raises:
        InvalidArgument: the request is empty, longer than 0xFFFF bytes, or contains a NUL (adbd
            treats NUL as the end of the service name, so it could never be sent faithfully).
    """
    data = service.encode("utf-8")
    if not data:
        raise InvalidArgument("an ADB service request cannot be empty")
    if len(data) > MAX_REQUEST:
        raise InvalidArgument(f"ADB service request is {len(data)} bytes; the limit is {MAX_REQUEST}")
    if b"\0" in data:
        raise InvalidArgument("an ADB service request cannot contain a NUL byte")
    return b"%04x" % len(data) + data


def _hex4(raw: bytes | bytearray) -> int:
    # int(x, 16) also accepts "+1f", " 1f" and "0x1f"; the protocol allows only four hex digits.
    text = bytes(raw)
    if len(text) != 4 or not all(c in b"0123456789abcdefABCDEF" for c in text):
        raise AdbProtocolError(f"expected a 4-hex-digit length, got {text!r}")
    return int(text, 16)


def read_status(buf: bytearray) -> Okay | Fail | NeedData:
    """Consume one ``OKAY`` or ``FAIL<hex4><message>`` from the front of ``buf``.

    Raises:
        AdbProtocolError: the bytes are neither OKAY nor FAIL, or the FAIL length is not hex.
    """
    if len(buf) < 4:
        return NEED_DATA
    head = bytes(buf[:4])
    if head == b"OKAY":
        del buf[:4]
        return OKAY
    if head != b"FAIL":
        raise AdbProtocolError(f"expected OKAY or FAIL from the ADB server, got {head!r}")
    if len(buf) < 8:
        return NEED_DATA
    length = _hex4(buf[4:8])
    if len(buf) < 8 + length:
        return NEED_DATA
    message = bytes(buf[8 : 8 + length]).decode("utf-8", errors="replace")
    del buf[: 8 + length]
    return Fail(message)


def read_hex_block(buf: bytearray) -> bytes | NeedData:
    """Consume one ``<hex4 length><payload>`` block from the front of ``buf`` and return the payload.

    Raises:
        AdbProtocolError: the length prefix is not four hex digits.
    """
    if len(buf) < 4:
        return NEED_DATA
    length = _hex4(buf[:4])
    if len(buf) < 4 + length:
        return NEED_DATA
    payload = bytes(buf[4 : 4 + length])
    del buf[: 4 + length]
    return payload


def read_exactly(buf: bytearray, n: int) -> bytes | NeedData:
    """Consume exactly ``n`` bytes from the front of ``buf`` (e.g. the 14-byte JDWP handshake)."""
    if len(buf) < n:
        return NEED_DATA
    data = bytes(buf[:n])
    del buf[:n]
    return data


# --- shell protocol v2 --------------------------------------------------------------------------


class ShellId(enum.IntEnum):
    """Packet ids of adbd's shell protocol (``shell,v2:``)."""

    STDIN = 0
    STDOUT = 1
    STDERR = 2
    EXIT = 3
    CLOSE_STDIN = 4
    WINDOW_SIZE_CHANGE = 5


_SHELL_HEADER: Final = struct.Struct("<BI")  # adbd writes the length in host order: little-endian


@dataclass(frozen=True)
class ShellPacket:
    """One shell-v2 packet. ``id`` is kept as an int: unknown ids are skipped, not fatal."""

    id: int
    data: bytes


def encode_shell_packet(packet_id: ShellId, data: bytes = b"") -> bytes:
    """Frame one shell-v2 packet (used for ``CLOSE_STDIN``: our commands take no input)."""
    return _SHELL_HEADER.pack(packet_id, len(data)) + data


def read_shell_packet(buf: bytearray, max_length: int = 16 * 1024 * 1024) -> ShellPacket | NeedData:
    """Consume one shell-v2 packet from the front of ``buf``.

    Raises:
        AdbProtocolError: the announced length exceeds ``max_length`` (adbd sends at most its
            maximum payload, 1 MiB, per packet; anything larger means we lost framing).
    """
    if len(buf) < _SHELL_HEADER.size:
        return NEED_DATA
    packet_id, length = _SHELL_HEADER.unpack_from(buf)
    if length > max_length:
        raise AdbProtocolError(f"shell packet announces {length} bytes; framing is lost")
    end = _SHELL_HEADER.size + length
    if len(buf) < end:
        return NEED_DATA
    data = bytes(buf[_SHELL_HEADER.size : end])
    del buf[:end]
    return ShellPacket(packet_id, data)


# --- host service replies -----------------------------------------------------------------------


def parse_version(payload: bytes) -> int:
    """Decode ``host:version``'s payload: the server version as 4 hex digits (``0029`` = 41).

    Raises:
        AdbProtocolError: the payload is not 4 hex digits.
    """
    return _hex4(payload)


@dataclass(frozen=True)
class DeviceInfo:
    """One line of ``host:devices-l``.

    Attributes:
        serial: the serial to name the device with.
        state: ``device`` when usable; otherwise ``offline``, ``unauthorized``, ``authorizing``,
            ``connecting``, ``no permissions (…)``, ``bootloader``, ``recovery``, …
        attributes: ``product``, ``model``, ``device``, ``transport_id`` and ``devpath`` when present.
    """

    serial: str
    state: str
    attributes: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def online(self) -> bool:
        """True when the device can run services (adb's ``device`` state)."""
        return self.state == "device"

    @property
    def transport_id(self) -> int | None:
        value = self.attributes.get("transport_id", "")
        return int(value) if value.isascii() and value.isdigit() else None


_KEYED = re.compile(r"^(product|model|device|transport_id):(.*)$")
_NO_SERIAL = "(no serial number)"


def parse_devices(text: str) -> list[DeviceInfo]:
    """Parse ``host:devices`` (``serial<TAB>state``) or ``host:devices-l`` output.

    The long form pads the serial to 22 columns, then the state, an optional devpath (``usb:1-4``)
    and ``key:value`` pairs, ending with ``transport_id``. The state may contain spaces
    (``no permissions (…); see [http://…]``), so it runs until the first recognised attribute.

    Raises:
        AdbProtocolError: a non-empty line has no state.
    """
    devices: list[DeviceInfo] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if "\t" in line:
            serial, _, rest = line.partition("\t")
        elif line.startswith(_NO_SERIAL):
            serial, rest = _NO_SERIAL, line[len(_NO_SERIAL) :]
        else:
            serial, _, rest = line.partition(" ")
        tokens = rest.split()
        if not serial or not tokens:
            raise AdbProtocolError(f"device list line without a state: {line!r}")
        state_words: list[str] = []
        attributes: dict[str, str] = {}
        for token in tokens:
            keyed = _KEYED.match(token)
            if keyed:
                attributes[keyed.group(1)] = keyed.group(2)
            elif state_words and not attributes and token.startswith("usb:"):
                attributes["devpath"] = token
            elif not attributes:
                state_words.append(token)
        devices.append(DeviceInfo(serial, " ".join(state_words), attributes))
    return devices


@dataclass(frozen=True)
class ForwardEntry:
    """One line of ``host:list-forward``: ``<serial> <local> <remote>``."""

    serial: str
    local: str
    remote: str


def parse_forward_list(text: str) -> list[ForwardEntry]:
    """Parse ``host:list-forward`` (every forward of every device on this server).

    Raises:
        AdbProtocolError: a non-empty line does not have three fields.
    """
    entries = []
    for line in text.splitlines():
        if not line.strip():
            continue
        parts = line.split(" ")
        if len(parts) != 3:
            raise AdbProtocolError(f"forward list line is not '<serial> <local> <remote>': {line!r}")
        entries.append(ForwardEntry(*parts))
    return entries


def parse_pid_list(text: str) -> list[int]:
    """Parse the ``jdwp`` / ``track-jdwp`` payload: one decimal pid per line, order kept.

    Raises:
        AdbProtocolError: a non-empty line is not a positive decimal integer.
    """
    pids = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if not line.isdigit() or not line.isascii() or int(line) <= 0:
            raise AdbProtocolError(f"JDWP pid list holds a non-pid line: {line!r}")
        pids.append(int(line))
    return pids

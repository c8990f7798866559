"""The bytes ART sends where it differs from OpenJDK, built from the formats (never copied from a capture).

Shared by the unit and replay tests of docs/reliability.md's "ART as devices show it" and by the testbed's
ART stand-in (tests/adb/art_quirks_app.py), which puts them on a real adb stream. Stdlib only, so the
stand-in process can import it without the project on its path.

- DDM packets are JDWP commands of set 199, command 1 (ART's ``kJDWPDdmCmdSet``), whose body is one chunk:
  a u4 type (four ASCII letters), a u4 length, the data. ART numbers the packets it sends itself with the
  high bit set (CTS ``JdwpTunnelTest.testDdmsWaitsForHandshake`` checks the sign of the id of the first
  packet after the handshake).
- ``APNM`` (``DdmHandleAppName``): the app name (u4 length in UTF-16 units, UTF-16BE), the user id (s4),
  since API 29 the package name; ``HELO``'s reply (``DdmHandleHello``): protocol version, pid, VM identity,
  app name, user id, ABI, JVM flags, native-debuggable, package name (API 30+).
- Until the app is bound its name is a placeholder: ``<pre-initialized>`` on older releases, ``""`` on newer
  (android-dev-ext PR #138 and jadx #2089 met both, in either order with ``HELO``).
"""

from __future__ import annotations

import struct

DDM_SET, DDM_CHUNK = 199, 1
VM_PACKET_ID = 0x8000_0001  # the first id ART gives a packet of its own
PRE_INITIALIZED = "<pre-initialized>"


def fourcc(name: str) -> int:
    return int.from_bytes(name.encode("ascii"), "big")


def utf16(text: str) -> bytes:
    """A DDM string: u4 length in UTF-16 units, then UTF-16BE."""
    data = text.encode("utf-16-be")
    return struct.pack(">I", len(data) // 2) + data


def packet(packet_id: int, command_set: int, command: int, body: bytes, *, reply: bool = False,
           error: int = 0) -> bytes:
    """One JDWP packet: the 11-byte header, then the body."""
    if reply:
        return struct.pack(">IIBH", 11 + len(body), packet_id, 0x80, error) + body
    return struct.pack(">IIBBB", 11 + len(body), packet_id, 0, command_set, command) + body


def ddm_chunk(kind: str, data: bytes) -> bytes:
    return struct.pack(">II", fourcc(kind), len(data)) + data


def apnm_data(name: str, user_id: int = 0, package: str | None = None) -> bytes:
    return utf16(name) + struct.pack(">i", user_id) + (utf16(package) if package is not None else b"")


def apnm_packet(name: str, *, user_id: int = 0, package: str | None = None, packet_id: int = VM_PACKET_ID) -> bytes:
    """A DDM ``APNM`` command packet as ART sends it unasked."""
    return packet(packet_id, DDM_SET, DDM_CHUNK, ddm_chunk("APNM", apnm_data(name, user_id, package)))


def helo_data(pid: int, app_name: str, *, package: str | None = None, abi: str = "64-bit (x86_64)",
              user_id: int = 0) -> bytes:
    """The data of a ``HELO`` reply chunk (``DdmHandleHello.handleHELO``, API 30 layout)."""
    ident = "Dalvik v2.1.0"
    name = app_name.encode("utf-16-be")
    data = struct.pack(">IIII", 1, pid, len(ident), len(name) // 2) + ident.encode("utf-16-be") + name
    data += struct.pack(">i", user_id) + utf16(abi) + utf16("CheckJNI=false") + b"\x00"
    return data + (utf16(package) if package is not None else b"")


def helo_reply(packet_id: int, pid: int, app_name: str, **kwargs: object) -> bytes:
    return packet(packet_id, 0, 0, ddm_chunk("HELO", helo_data(pid, app_name, **kwargs)),  # type: ignore[arg-type]
                  reply=True)

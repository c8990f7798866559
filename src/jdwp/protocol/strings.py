"""JDWP strings: a 4-byte length, then UTF-8 — tolerating the JVM's *modified* UTF-8.

Layer: ``jdwp.protocol`` (sans-IO). Spec: "Data Types", ``string``.

The spec says UTF-8. OpenJDK's agent converts the VM's modified UTF-8 to standard UTF-8 before sending,
but a Java string may hold what standard UTF-8 cannot say (an unpaired surrogate), and other VMs may send
modified UTF-8 as is: NUL as ``C0 80`` and a non-BMP character as two 3-byte surrogates (CESU-8). We
decode both. A string decoded from anything other than standard UTF-8 remembers its bytes, so a recorded
packet re-encodes byte for byte.
"""

from __future__ import annotations

import re

_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


class WireString(str):
    """A ``str`` that came off the wire in a non-standard encoding and keeps those exact bytes."""

    wire: bytes

    def __new__(cls, text: str, wire: bytes) -> WireString:
        self = super().__new__(cls, text)
        self.wire = wire
        return self


def decode_string(data: bytes) -> str:
    """Decode a JDWP string body (without its length): by its byte length, never its character count.

    Standard UTF-8 first: ART sends a non-BMP character as one 4-byte sequence (its JNI does the same where the
    JNI specification says modified UTF-8: android/ndk issue #283).
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    # Modified UTF-8 / CESU-8: C0 80 is NUL; surrogates come as separate 3-byte sequences.
    try:
        text = data.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        # Not even modified UTF-8: keep every byte visible rather than fail the whole packet.
        text = data.decode("utf-8", "backslashreplace")
    text = _PAIR.sub(_join_pair, text)
    return WireString(text, data)


def _join_pair(match: re.Match[str]) -> str:
    high, low = ord(match.group()[0]), ord(match.group()[1])
    return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))


def encode_string(text: str) -> bytes:
    """Encode a string body (without its length).

    A :class:`WireString` goes back as the bytes it came with. Anything else is standard UTF-8; unpaired
    surrogates, which standard UTF-8 cannot carry, are sent as 3-byte sequences, as a JVM sends them.
    """
    wire = getattr(text, "wire", None)
    if wire is not None:
        return wire  # type: ignore[no-any-return]
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def encode_modified_utf8(text: str) -> bytes:
    """Modified UTF-8 as the JVM holds strings internally: NUL as ``C0 80``, non-BMP as surrogate pairs.

    Used to synthesise the bytes a VM that does not convert would send (tests, fixtures).
    """
    utf16 = text.encode("utf-16-be", "surrogatepass")
    units = [chr(int.from_bytes(utf16[i : i + 2], "big")) for i in range(0, len(utf16), 2)]
    return "".join(units).encode("utf-8", "surrogatepass").replace(b"\x00", b"\xc0\x80")

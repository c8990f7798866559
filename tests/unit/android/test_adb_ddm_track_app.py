"""DDM chunk decoding and the track-app protobuf reader, with bytes built from the definitions.

DDM layouts: the framework's android.ddm handlers (big-endian u32s, UTF-16BE strings with a length
in UTF-16 units). track-app: AOSP adb's proto/app_processes.proto. Both are synthesised here (this
testbed has no ART), labelled as such.
"""

from __future__ import annotations

import struct

import pytest

from pyjdwp_android import ddm
from pyjdwp_android.errors import AdbProtocolError
from pyjdwp_android.track_app import AppProcess, decode_app_processes


def _u16s(text: str) -> bytes:
    return struct.pack(">I", len(text)) + text.encode("utf-16-be")


def test_chunk_types_are_big_endian_fourccs() -> None:
    assert ddm.HELO == 0x48454C4F and ddm.chunk_type("WAIT") == ddm.WAIT
    body = struct.pack(">II", ddm.WAIT, 1) + b"\x00"
    assert ddm.split_chunk(body) == (ddm.WAIT, b"\x00")
    with pytest.raises(AdbProtocolError):
        ddm.split_chunk(struct.pack(">II", ddm.WAIT, 5) + b"\x00")


def test_helo_of_android_14_with_every_field() -> None:
    vm, app = "Dalvik v2.1.0", "com.example.app"
    data = struct.pack(">IIII", 1, 4242, len(vm), len(app)) + vm.encode("utf-16-be") + app.encode("utf-16-be")
    data += struct.pack(">i", 0) + _u16s("64-bit (arm64)") + _u16s("CheckJNI=false") + b"\x01"
    data += _u16s("com.example.app") + b"DEBG"  # API 34: DdmSyncState's stage, a four-letter label as a u32
    hello = ddm.decode_chunk(ddm.HELO, data)
    assert hello == ddm.Hello(1, 4242, vm, app, 0, "64-bit (arm64)", "CheckJNI=false", True, "com.example.app",
                              "DEBG")
    assert isinstance(hello, ddm.Hello) and hello.pointer_size == 8


def test_stag_and_pointer_sizes() -> None:
    assert ddm.decode_chunk(ddm.STAG, b"A_GO") == ddm.BootStage("A_GO")
    assert ddm.decode_chunk(ddm.STAG, b"\x00\x00\x00\x07") == ddm.BootStage("0x00000007")
    with pytest.raises(AdbProtocolError):
        ddm.decode_chunk(ddm.STAG, b"A_")
    assert ddm.pointer_size("32-bit (arm)") == 4 and ddm.pointer_size("mips") is None
    assert ddm.hello_request() == b"\x00\x00\x00\x01"


def test_helo_of_an_old_release_stops_after_the_app_name() -> None:
    data = struct.pack(">IIII", 1, 77, 1, 2) + "D".encode("utf-16-be") + "ab".encode("utf-16-be")
    assert ddm.decode_chunk(ddm.HELO, data) == ddm.Hello(1, 77, "D", "ab")
    with pytest.raises(AdbProtocolError):
        ddm.decode_chunk(ddm.HELO, data[:-1])


def test_apnm_wait_and_unknown_chunks() -> None:
    assert ddm.decode_chunk(ddm.APNM, _u16s("<pre-initialized>")) == ddm.AppName("<pre-initialized>")
    newer = _u16s("com.example.app:remote") + struct.pack(">i", 10) + _u16s("com.example.app")
    assert ddm.decode_chunk(ddm.APNM, newer) == ddm.AppName("com.example.app:remote", 10, "com.example.app")
    waiting = ddm.decode_chunk(ddm.WAIT, b"\x00")
    assert isinstance(waiting, ddm.Waiting) and waiting.waiting_for_debugger
    assert ddm.decode_chunk(ddm.chunk_type("HPIF"), b"\x01\x02") is None


def test_thst_honours_header_and_entry_sizes() -> None:
    entry = struct.pack(">IBIIIB", 1, 2, 4242, 10, 5, 0)
    wider = entry + b"\xff\xff"  # a future VM with 2 more bytes per entry
    data = (
        struct.pack(">BBH", 6, len(wider), 2)
        + b"\x00\x00"
        + wider
        + struct.pack(">IBIIIB", 2, 5, 4243, 0, 0, 1)
        + b"zz"
    )
    status = ddm.decode_chunk(ddm.THST, data)
    assert isinstance(status, ddm.ThreadStatus)
    assert status.threads == (
        ddm.ThreadStatusEntry(1, 2, 4242, 10, 5, False),
        ddm.ThreadStatusEntry(2, 5, 4243, 0, 0, True),
    )


# --- a minimal protobuf writer, straight from the wire-format rules, for building test messages ---


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, value: int | str | bytes) -> bytes:
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    raw = value.encode() if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(raw)) + raw


def test_track_app_android_12_entry() -> None:
    entry = _field(1, 4242) + _field(2, 1) + _field(4, "arm64")
    message = _field(1, entry) + _field(1, _field(1, 4300) + _field(3, 1) + _field(4, "arm64"))
    assert decode_app_processes(message) == [
        AppProcess(4242, debuggable=True, architecture="arm64"),
        AppProcess(4300, profileable=True, architecture="arm64"),
    ]


def test_track_app_newer_fields_unknown_fields_and_negative_ints() -> None:
    entry = (
        _field(1, 4242)
        + _field(2, 1)
        + _field(4, "x86_64")
        + _field(5, 10)
        + _field(6, "com.example.app:remote")
        + _field(7, "com.example.app")
        + _field(7, "com.example.shared")
        + _field(8, 1)
        + _field(9, 1010123)
        + _field(10, 1)
        + _field(99, "future")
        + _varint(98 << 3 | 5)
        + b"\x01\x02\x03\x04"
    )
    [process] = decode_app_processes(_field(1, entry))
    assert process == AppProcess(
        4242,
        True,
        False,
        "x86_64",
        10,
        "com.example.app:remote",
        ("com.example.app", "com.example.shared"),
        True,
        1010123,
    )
    [negative] = decode_app_processes(_field(1, _field(5, -1)))
    assert negative.user_id == -1 and negative.pid == 0
    assert decode_app_processes(b"") == []


@pytest.mark.parametrize("bad", [b"\x0a\x05\x08", b"\x08\x80", b"\x0b", b"\x00\x01", b"\x0d\x01\x02"])
def test_track_app_malformed_messages_are_protocol_errors(bad: bytes) -> None:
    with pytest.raises(AdbProtocolError):
        decode_app_processes(bad)

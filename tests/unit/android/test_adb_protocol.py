"""Sans-IO smart-socket codec: byte transcripts, partial frames, real device-list outputs."""

from __future__ import annotations

import pytest

from pyjdwp_android import protocol
from pyjdwp_android.connection import ServerAddress, fail_to_error, validate_serial
from pyjdwp_android.errors import AdbFailure, AdbProtocolError, DeviceNotFound, DeviceUnavailable, InvalidArgument
from pyjdwp_android.protocol import NEED_DATA, OKAY, DeviceInfo, Fail, ShellId, ShellPacket


def test_request_framing() -> None:
    assert protocol.encode_request("host:version") == b"000chost:version"
    assert protocol.encode_request("host:transport:emulator-5554") == b"001chost:transport:emulator-5554"
    assert protocol.encode_request("x" * 0xFFFF)[:4] == b"ffff"
    for bad in ("", "x" * 0x10000, "shell:a\0b"):
        with pytest.raises(InvalidArgument):
            protocol.encode_request(bad)


def test_status_okay_and_fail_consume_exactly_one_unit() -> None:
    buf = bytearray(b"OKAYJDWP")
    assert protocol.read_status(buf) is OKAY and buf == b"JDWP"
    buf = bytearray(b"FAIL001aunknown host service 'foo'rest")
    assert protocol.read_status(buf) == Fail("unknown host service 'foo'") and buf == b"rest"
    assert protocol.read_status(bytearray(b"FAIL0000")) == Fail("")


@pytest.mark.parametrize("data", [b"OKAY", b"FAIL0006closed", b"0004" + b"0029"])
def test_every_split_of_a_frame_needs_data_until_complete(data: bytes) -> None:
    reader = protocol.read_hex_block if data[0:1].isdigit() else protocol.read_status
    for cut in range(len(data)):
        buf = bytearray(data[:cut])
        assert reader(buf) is NEED_DATA and buf == data[:cut]
    assert reader(bytearray(data)) is not NEED_DATA


def test_garbage_is_a_protocol_error_not_an_assert() -> None:
    with pytest.raises(AdbProtocolError):
        protocol.read_status(bytearray(b"HUH?"))
    with pytest.raises(AdbProtocolError):
        protocol.read_status(bytearray(b"FAIL+01x"))
    with pytest.raises(AdbProtocolError):
        protocol.read_hex_block(bytearray(b"0x10"))
    with pytest.raises(AdbProtocolError):
        protocol.parse_version(b"29")


def test_version_transcript() -> None:
    buf = bytearray(b"OKAY00040029")
    assert protocol.read_status(buf) is OKAY
    assert protocol.parse_version(protocol.read_hex_block(buf)) == 41  # type: ignore[arg-type]


def test_shell_v2_packets() -> None:
    assert protocol.encode_shell_packet(ShellId.CLOSE_STDIN) == b"\x04\x00\x00\x00\x00"
    buf = bytearray(b"\x01\x03\x00\x00\x00out\x02\x04\x00\x00\x00err\n\x03\x01\x00\x00\x00\x07")
    packets = []
    while (p := protocol.read_shell_packet(buf)) is not NEED_DATA:
        packets.append(p)
    assert packets == [ShellPacket(1, b"out"), ShellPacket(2, b"err\n"), ShellPacket(3, b"\x07")]
    assert protocol.read_shell_packet(bytearray(b"\x01\x05\x00\x00\x00abc")) is NEED_DATA
    with pytest.raises(AdbProtocolError):
        protocol.read_shell_packet(bytearray(b"\x01\xff\xff\xff\x7f"))


# host:devices-l payloads as adb 1.0.41 prints them (serial padded to 22 columns).
DEVICES_L = (
    "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64xa "
    "transport_id:1\n"
    "emulator-5556          offline transport_id:2\n"
    "0011664BC002435        unauthorized usb:2-1 transport_id:12\n"
    "0123456789ABCDEF       no permissions (missing udev rules? user is in the plugdev group); "
    "see [http://developer.android.com/tools/device.html] usb:1-4 transport_id:3\n"
    "192.168.1.20:5555      authorizing transport_id:4\n"
)


def test_devices_l_states_and_attributes() -> None:
    devices = protocol.parse_devices(DEVICES_L)
    assert [(d.serial, d.state) for d in devices] == [
        ("emulator-5554", "device"),
        ("emulator-5556", "offline"),
        ("0011664BC002435", "unauthorized"),
        (
            "0123456789ABCDEF",
            "no permissions (missing udev rules? user is in the plugdev group); "
            "see [http://developer.android.com/tools/device.html]",
        ),
        ("192.168.1.20:5555", "authorizing"),
    ]
    assert devices[0].online and not devices[1].online
    assert devices[0].attributes["model"] == "sdk_gphone64_x86_64" and devices[0].transport_id == 1
    assert DeviceInfo("x", "device", {"transport_id": "１２"}).transport_id is None
    assert devices[2].attributes["devpath"] == "usb:2-1" and devices[2].transport_id == 12
    assert devices[3].attributes["devpath"] == "usb:1-4"


def test_short_device_list_and_empty() -> None:
    assert protocol.parse_devices("emulator-5554\tdevice\nR58M\tunauthorized\n") == [
        DeviceInfo("emulator-5554", "device"),
        DeviceInfo("R58M", "unauthorized"),
    ]
    assert protocol.parse_devices("") == []
    with pytest.raises(AdbProtocolError):
        protocol.parse_devices("lonely-serial\n")


def test_forward_list_and_pid_list() -> None:
    text = "emulator-5554 tcp:40123 jdwp:4242\n127.0.0.1:5555 tcp:8700 tcp:8700\n"
    entries = protocol.parse_forward_list(text)
    assert entries[0] == protocol.ForwardEntry("emulator-5554", "tcp:40123", "jdwp:4242")
    assert protocol.parse_pid_list("1234\n5678\n") == [1234, 5678]
    assert protocol.parse_pid_list("") == []
    for bad in ("12a\n", "-1\n", "0\n"):
        with pytest.raises(AdbProtocolError):
            protocol.parse_pid_list(bad)


UNAUTHORIZED = (
    "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n"
    "Try 'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation dialog on your device."
)


def test_fail_messages_become_actionable_device_errors() -> None:
    err = fail_to_error("R58M", Fail(UNAUTHORIZED), "host:transport:R58M")
    assert isinstance(err, DeviceUnavailable) and err.state == "unauthorized"
    assert "Allow USB debugging" in str(err) and err.code == "DEVICE_UNAVAILABLE" and err.retryable
    offline = fail_to_error("emulator-5556", Fail("device offline"), "host:transport:emulator-5556")
    assert isinstance(offline, DeviceUnavailable) and offline.state == "offline"
    missing = fail_to_error("x", Fail("device 'x' not found"), "host:transport:x")
    assert isinstance(missing, DeviceNotFound)
    assert isinstance(fail_to_error("x", Fail(""), "host-serial:x:forward:tcp:0;jdwp:1"), DeviceNotFound)
    other = fail_to_error(None, Fail("closed"), "jdwp:1")
    assert type(other) is AdbFailure and "closed" in str(other)


def test_server_address_and_serial_validation() -> None:
    assert ServerAddress.from_env({}) == ServerAddress("127.0.0.1", 5037)
    env = {"ANDROID_ADB_SERVER_ADDRESS": "10.0.2.2", "ANDROID_ADB_SERVER_PORT": "5038"}
    address = ServerAddress.from_env(env)
    assert address == ServerAddress("10.0.2.2", 5038) and not address.is_local
    assert ServerAddress("localhost").is_local and ServerAddress("::1").is_local
    for bad in ("http", "５０３７", "٥٠٣٧"):  # ports are ASCII digits (int() reads the others too)
        with pytest.raises(InvalidArgument):
            ServerAddress.from_env({"ANDROID_ADB_SERVER_PORT": bad})
    assert validate_serial("127.0.0.1:5555") == "127.0.0.1:5555"
    for bad in ("", "a b", "a\nb", "x" * 256):
        with pytest.raises(InvalidArgument):
            validate_serial(bad)

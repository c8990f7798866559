"""``track-app`` (Android 12+): a hand-written reader for adbd's ``AppProcesses`` protobuf.

Layer: ``android``; the decoder is sans-IO (stdlib only), ``read_app_processes`` uses ``AdbClient``.
Never imports ``jdwp``. Spec: docs/design.md §4.3 ("track-app"); message definition: AOSP adb's
``proto/app_processes.proto`` (package ``adb.proto``), summarised in ``specs/adb/track-app.md``:

    ProcessEntry: 1 pid int64, 2 debuggable bool, 3 profileable bool, 4 architecture string,
                  5 user_id int64, 6 process_name string, 7 package_names repeated string,
                  8 waiting_for_debugger bool, 9 uid int64  (5-9: newer adbd only)
    AppProcesses: 1 process repeated ProcessEntry

Each ``track-app`` message is a hex4-framed serialized ``AppProcesses``. Unknown fields are skipped
(proto3 forward compatibility), so a newer adbd never breaks the reader.
"""

from __future__ import annotations

from dataclasses import dataclass

import trio

from .client import AdbClient
from .errors import AdbProtocolError, AdbTimeout

__all__ = ["FEATURE", "AppProcess", "decode_app_processes", "read_app_processes"]

FEATURE = "track_app"
"""The device feature that advertises the ``track-app`` service."""

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


@dataclass(frozen=True)
class AppProcess:
    """One ``ProcessEntry``: a debuggable or profileable process as adbd knows it."""

    pid: int
    debuggable: bool = False
    profileable: bool = False
    architecture: str = ""
    user_id: int | None = None
    process_name: str | None = None
    package_names: tuple[str, ...] = ()
    waiting_for_debugger: bool | None = None
    uid: int | None = None


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise AdbProtocolError("track-app message ends inside a varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise AdbProtocolError("track-app message holds a varint longer than 10 bytes")


def _int64(value: int) -> int:
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def _fields(data: bytes) -> list[tuple[int, int, int | bytes]]:
    """Split one message into ``(field number, wire type, value)``; skips nothing, checks bounds."""
    out: list[tuple[int, int, int | bytes]] = []
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise AdbProtocolError("track-app message holds field number 0")
        value: int | bytes
        if wire == _VARINT:
            value, pos = _varint(data, pos)
        elif wire == _LEN:
            length, pos = _varint(data, pos)
            if pos + length > len(data):
                raise AdbProtocolError("track-app message ends inside a length-delimited field")
            value, pos = data[pos : pos + length], pos + length
        elif wire in (_I64, _I32):
            size = 8 if wire == _I64 else 4
            if pos + size > len(data):
                raise AdbProtocolError("track-app message ends inside a fixed-width field")
            value, pos = int.from_bytes(data[pos : pos + size], "little"), pos + size
        else:
            raise AdbProtocolError(f"track-app message uses unsupported wire type {wire}")
        out.append((number, wire, value))
    return out


def _entry(data: bytes) -> AppProcess:
    values: dict[str, object] = {}
    packages: list[str] = []
    for number, wire, value in _fields(data):
        if wire == _VARINT and isinstance(value, int):
            if number == 1:
                values["pid"] = _int64(value)
            elif number == 2:
                values["debuggable"] = value != 0
            elif number == 3:
                values["profileable"] = value != 0
            elif number == 5:
                values["user_id"] = _int64(value)
            elif number == 8:
                values["waiting_for_debugger"] = value != 0
            elif number == 9:
                values["uid"] = _int64(value)
        elif wire == _LEN and isinstance(value, bytes):
            text = value.decode("utf-8", errors="replace")
            if number == 4:
                values["architecture"] = text
            elif number == 6:
                values["process_name"] = text
            elif number == 7:
                packages.append(text)
    if "pid" not in values:
        values["pid"] = 0  # proto3 omits zero values; a pid of 0 is filtered out by the caller
    return AppProcess(package_names=tuple(packages), **values)  # type: ignore[arg-type]


def decode_app_processes(payload: bytes) -> list[AppProcess]:
    """Decode one serialized ``AppProcesses`` message.

    Raises:
        AdbProtocolError: the bytes are not a well-formed protobuf message.
    """
    return [_entry(value) for number, wire, value in _fields(payload) if number == 1 and isinstance(value, bytes)]


async def read_app_processes(client: AdbClient, serial: str) -> list[AppProcess]:
    """The device's current debuggable/profileable processes: the first ``track-app`` snapshot.

    Only for devices whose features include ``track_app`` (Android 12+).

    Raises:
        InvalidArgument, DeviceNotFound, DeviceUnavailable, AdbFailure (service unknown),
        AdbConnectionError, AdbTimeout, AdbProtocolError.
    """
    tracker = await client.open_track_app(serial, decode_app_processes)
    async with tracker:
        try:
            with trio.fail_after(client.timeout):
                return [p for p in await tracker.receive() if p.pid > 0]
        except trio.TooSlowError:
            raise AdbTimeout(f"device {serial!r} sent no track-app snapshot within {client.timeout}s") from None

"""One smart-socket connection to the ADB server, the device-service stream it becomes, and trackers.

Layer: ``android`` (trio + stdlib); never imports ``jdwp`` or ``server``. Framing comes from
``pyjdwp_android.protocol``; ``pyjdwp_android.client`` builds requests on top of these pieces.
Spec: docs/design.md §4.1; wire tables in ``specs/adb/smart-socket.md``.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import trio

from . import protocol
from .errors import (
    AdbConnectionError,
    AdbError,
    AdbFailure,
    AdbProtocolError,
    DeviceNotFound,
    DeviceUnavailable,
    InvalidArgument,
)
from .protocol import Fail, NeedData

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "AdbStream",
    "Connection",
    "MessageTracker",
    "ServerAddress",
    "fail_to_error",
    "replayed",
    "validate_serial",
]

T = TypeVar("T")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 5037
_RECEIVE_SIZE = 65536


@dataclass(frozen=True)
class ServerAddress:
    """Where the ADB server listens."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> ServerAddress:
        """Read ``ANDROID_ADB_SERVER_ADDRESS`` and ``ANDROID_ADB_SERVER_PORT`` as the adb CLI does.

        Raises:
            InvalidArgument: the port variable is not an integer in 1..65535.
        """
        env = os.environ if environ is None else environ
        host = env.get("ANDROID_ADB_SERVER_ADDRESS") or DEFAULT_HOST
        raw_port = env.get("ANDROID_ADB_SERVER_PORT") or str(DEFAULT_PORT)
        if not (raw_port.isascii() and raw_port.isdigit()) or not 0 < int(raw_port) < 65536:
            raise InvalidArgument(f"ANDROID_ADB_SERVER_PORT must be a port number, got {raw_port!r}")
        return cls(host, int(raw_port))

    @property
    def is_local(self) -> bool:
        """True for loopback addresses: the only servers we may start ourselves."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def validate_serial(serial: str) -> str:
    """Check a device serial before it is spliced into a service request.

    Raises:
        InvalidArgument: empty, over 255 characters, or containing whitespace, NUL or control
            characters (none of which a real serial has, and which would change the request).
    """
    if not isinstance(serial, str) or not serial or len(serial) > 255:
        raise InvalidArgument("deviceId must be a non-empty serial of at most 255 characters")
    if any(c.isspace() or not c.isprintable() for c in serial):
        raise InvalidArgument(f"deviceId {serial!r} contains whitespace or control characters")
    return serial


async def replayed(buffer: bytearray, max_bytes: int | None) -> bytes:
    """Up to ``max_bytes`` of ``buffer`` (bytes a stream read too far and gives back before its own), taken out
    of it. A checkpoint, as a stream's ``receive_some`` is one even when the bytes are at hand."""
    n = len(buffer) if max_bytes is None else max_bytes
    data = bytes(buffer[:n])
    del buffer[:n]
    await trio.lowlevel.checkpoint()
    return data


class AdbStream(trio.abc.HalfCloseableStream):
    """The byte stream of one device service (``jdwp:<pid>``, ``shell:``…), after the server's OKAY.

    Bytes the server sent in the same segment as its OKAY are replayed first, so nothing is lost.
    """

    def __init__(self, stream: trio.SocketStream, leftover: bytes = b"") -> None:
        self._stream = stream
        self._leftover = bytearray(leftover)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self._stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self._stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        await self._stream.send_eof()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self._leftover:
            return await replayed(self._leftover, max_bytes)
        return await self._stream.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self._stream.aclose()


class Connection:
    """One smart-socket connection with its receive buffer (private: callers get ``AdbStream``)."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = bytearray()

    async def send(self, service: str) -> None:
        data = protocol.encode_request(service)
        try:
            await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise AdbConnectionError(f"the ADB server closed the connection while sending {service!r}") from exc

    async def _fill(self, what: str) -> None:
        try:
            data = await self.stream.receive_some(_RECEIVE_SIZE)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise AdbConnectionError(f"connection to the ADB server broke while reading {what}") from exc
        if not data:
            raise AdbConnectionError(f"the ADB server closed the connection before sending {what}")
        self.buffer += data

    async def read(self, reader: Callable[[bytearray], T | NeedData], what: str) -> T:
        while True:
            result = reader(self.buffer)
            if not isinstance(result, NeedData):
                return result
            await self._fill(what)

    async def read_to_eof(self, limit: int = 16 * 1024 * 1024) -> bytes:
        while True:
            try:
                data = await self.stream.receive_some(_RECEIVE_SIZE)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                raise AdbConnectionError("connection to the ADB server broke mid-reply") from exc
            if not data:
                out = bytes(self.buffer)
                self.buffer.clear()
                return out
            self.buffer += data
            if len(self.buffer) > limit:
                raise AdbProtocolError(f"reply exceeds {limit} bytes")

    async def status(self, service: str) -> Fail | None:
        result = await self.read(protocol.read_status, f"the status of {service!r}")
        return result if isinstance(result, Fail) else None

    def into_stream(self) -> AdbStream:
        stream = AdbStream(self.stream, bytes(self.buffer))
        self.buffer.clear()
        return stream

    async def aclose(self) -> None:
        await self.stream.aclose()


def fail_to_error(serial: str | None, fail: Fail, request: str) -> AdbError:
    """Turn a FAIL on a device-scoped request into the most useful typed error."""
    msg = fail.message
    low = msg.lower()
    if serial is not None:
        if not msg:
            # The server's forward handler loses its error text when the device is missing or not
            # online (it answers FAIL0000), so an empty FAIL on a device-scoped request means that.
            return DeviceNotFound(serial, detail="adb gave no reason; the device is absent or not online")
        if "not found" in low and "device" in low:
            return DeviceNotFound(serial, detail=msg)
        if "unauthorized" in low:
            return DeviceUnavailable(serial, "unauthorized", msg.splitlines()[0])
        if "offline" in low:
            return DeviceUnavailable(serial, "offline", msg)
        if "authorizing" in low:
            return DeviceUnavailable(serial, "authorizing", msg)
        if "connecting" in low:
            return DeviceUnavailable(serial, "connecting", msg)
        if "no permissions" in low:
            return DeviceUnavailable(serial, "no permissions", msg.splitlines()[0])
    return AdbFailure(msg, request)


class MessageTracker(Generic[T], trio.abc.AsyncResource):
    """A streaming service (``track-jdwp``, ``track-app``) yielding one decoded message per update.

    Use as ``async with tracker: async for message in tracker: ...``. The first message is the
    current state; each later one is the complete new state, not a delta.
    """

    def __init__(self, conn: Connection, decode: Callable[[bytes], T], name: str) -> None:
        self._conn = conn
        self._decode = decode
        self._name = name

    async def receive(self) -> T:
        """Wait for the next message.

        Raises:
            AdbConnectionError: the device or server ended the stream.
            AdbProtocolError: a message cannot be framed or decoded.
        """
        payload = await self._conn.read(protocol.read_hex_block, f"a {self._name} message")
        return self._decode(payload)

    def __aiter__(self) -> MessageTracker[T]:
        return self

    async def __anext__(self) -> T:
        try:
            return await self.receive()
        except AdbConnectionError:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._conn.aclose()

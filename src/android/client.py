"""trio client of the ADB server: host services, device services, shell, JDWP discovery, forwards.

Layer: ``android`` (trio + stdlib); never imports ``jdwp`` or ``server``. Byte framing lives in
``pyjdwp_android.protocol``; this module only moves bytes and maps failures to ``pyjdwp_android.errors``.
Spec: docs/design.md §4.1; wire tables in ``specs/adb/smart-socket.md``.

One TCP connection per request, as the ADB server wants it: host queries are answered then closed;
after ``host:transport:<serial>`` the same socket carries exactly one device service.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import trio

from . import protocol
from .connection import AdbStream, Connection, MessageTracker, ServerAddress, fail_to_error, validate_serial
from .errors import (
    AdbConnectionError,
    AdbFailure,
    AdbProtocolError,
    AdbTimeout,
    DeviceNotFound,
    DeviceUnavailable,
)
from .protocol import NEED_DATA, DeviceInfo, ForwardEntry, ShellId

__all__ = ["AdbClient", "AdbStream", "MessageTracker", "ServerAddress", "ShellResult", "validate_serial"]

T = TypeVar("T")


@dataclass(frozen=True)
class ShellResult:
    """What a device shell command produced.

    Attributes:
        stdout: standard output (with shell v2), or the merged output of a legacy ``shell:``.
        stderr: standard error (always empty without shell v2).
        exit_code: the exit status, or ``None`` when the device lacks shell v2 (before Android 7).
    """

    stdout: bytes
    stderr: bytes
    exit_code: int | None


class AdbClient:
    """Talks to one ADB server. Cheap to create; holds no connection between calls.

    Args:
        address: the server; default from ``ANDROID_ADB_SERVER_ADDRESS``/``ANDROID_ADB_SERVER_PORT``.
        adb_path: the adb binary used only to start a server when none answers; default ``ADB_PATH``
            or ``adb`` on ``PATH``.
        start_server: whether to run ``adb start-server`` (once) when nothing answers locally.
        timeout: seconds allowed for each request's reply (not for the streams a request opens).
    """

    def __init__(
        self,
        address: ServerAddress | None = None,
        *,
        adb_path: str | None = None,
        start_server: bool = True,
        timeout: float = 10.0,
    ) -> None:
        self.address = address if address is not None else ServerAddress.from_env()
        self.adb_path = adb_path
        self.start_server = start_server
        self.timeout = timeout
        self._start_lock = trio.Lock()
        self._start_attempted = False
        self._features: dict[str, frozenset[str]] = {}

    # --- connections ------------------------------------------------------------------------------

    async def _connect_once(self) -> trio.SocketStream:
        return await trio.open_tcp_stream(self.address.host, self.address.port)

    async def _connect(self) -> Connection:
        try:
            return Connection(await self._connect_once())
        except OSError as exc:
            if not self._may_start(exc):
                raise AdbConnectionError(
                    f"no ADB server answers at {self.address.host}:{self.address.port} ({exc.strerror or exc}); "
                    "start one with `adb start-server`"
                ) from exc
        await self._start()
        try:
            return Connection(await self._connect_once())
        except OSError as exc:
            raise AdbConnectionError(
                f"started the ADB server but it still does not answer at {self.address.host}:{self.address.port}"
            ) from exc

    def _may_start(self, exc: OSError) -> bool:
        refused = exc.errno in (errno.ECONNREFUSED, None) or isinstance(exc, ConnectionRefusedError)
        return self.start_server and self.address.is_local and refused

    def _adb_binary(self) -> str | None:
        return self.adb_path or os.environ.get("ADB_PATH") or shutil.which("adb")

    async def _start(self) -> None:
        async with self._start_lock:
            if self._start_attempted:
                return
            self._start_attempted = True
            adb = self._adb_binary()
            if adb is None:
                raise AdbConnectionError(
                    f"no ADB server answers at {self.address.host}:{self.address.port} and no adb binary was "
                    "found: install Android platform-tools or set ADB_PATH"
                )
            argv = [adb, "-P", str(self.address.port), "start-server"]
            try:
                result = await trio.run_process(
                    argv, capture_stdout=True, capture_stderr=True, check=False, stdin=subprocess.DEVNULL
                )
            except OSError as exc:
                raise AdbConnectionError(f"could not run {adb!r} to start the ADB server: {exc}") from exc
            if result.returncode != 0:
                detail = (result.stderr or result.stdout).decode(errors="replace").strip()
                raise AdbConnectionError(f"`adb start-server` failed ({result.returncode}): {detail}")

    async def _open_service(self, service: str, serial: str | None = None, about: str | None = None) -> Connection:
        """Connect, optionally switch to ``serial``'s transport, send ``service``, expect OKAY.

        ``about`` names the device a host-scoped request concerns, so its FAIL maps to a device error.
        """
        conn = await self._connect()
        try:
            with trio.fail_after(self.timeout):
                if serial is not None:
                    switch = f"host:transport:{serial}"
                    await conn.send(switch)
                    fail = await conn.status(switch)
                    if fail is not None:
                        raise fail_to_error(serial, fail, switch)
                await conn.send(service)
                fail = await conn.status(service)
                if fail is not None:
                    raise fail_to_error(about, fail, service)
        except trio.TooSlowError:
            await conn.aclose()
            raise AdbTimeout(f"the ADB server did not answer {service!r} within {self.timeout}s") from None
        except BaseException:
            await conn.aclose()
            raise
        return conn

    async def _host_answer(self, service: str, about: str | None, read: Callable[[Connection], Awaitable[T]]) -> T:
        """Open the host ``service`` and ``read`` its answer within the client's timeout; the connection is closed
        either way. ``about``: as :meth:`_open_service` takes it."""
        conn = await self._open_service(service, about=about)
        try:
            with trio.fail_after(self.timeout):
                return await read(conn)
        except trio.TooSlowError:
            raise AdbTimeout(f"the ADB server did not answer {service!r} within {self.timeout}s") from None
        finally:
            await conn.aclose()

    async def _host_query(self, service: str, serial: str | None = None) -> bytes:
        return await self._host_answer(service, serial,
                                       lambda conn: conn.read(protocol.read_hex_block, f"the reply to {service!r}"))

    # --- host services ------------------------------------------------------------------------------

    async def version(self) -> int:
        """The ADB server's protocol version (41 for every adb since Android 10's platform-tools).

        Raises:
            AdbConnectionError, AdbTimeout, AdbProtocolError.
        """
        return protocol.parse_version(await self._host_query("host:version"))

    async def devices(self) -> list[DeviceInfo]:
        """Every device the server knows, in any state (``host:devices-l``).

        Raises:
            AdbConnectionError, AdbTimeout, AdbProtocolError.
        """
        payload = await self._host_query("host:devices-l")
        return protocol.parse_devices(payload.decode("utf-8", errors="replace"))

    async def require_device(self, serial: str) -> DeviceInfo:
        """The named device, which must be in the ``device`` state. Never picks a device itself.

        Raises:
            InvalidArgument: the serial is malformed.
            DeviceNotFound: the server does not know the serial.
            DeviceUnavailable: the device is offline, unauthorized, … (the message says what to do).
        """
        validate_serial(serial)
        devices = await self.devices()
        for device in devices:
            if device.serial == serial:
                if not device.online:
                    raise DeviceUnavailable(serial, device.state)
                return device
        raise DeviceNotFound(serial, [d.serial for d in devices])

    async def features(self, serial: str) -> frozenset[str]:
        """The device's advertised features (``shell_v2``, ``track_app``, …), cached per serial.

        Raises:
            InvalidArgument, DeviceNotFound, DeviceUnavailable, AdbConnectionError, AdbTimeout.
        """
        validate_serial(serial)
        if serial not in self._features:
            payload = await self._host_query(f"host-serial:{serial}:features", serial)
            text = payload.decode("utf-8", errors="replace").strip()
            self._features[serial] = frozenset(f for f in text.split(",") if f)
        return self._features[serial]

    async def forward(self, serial: str, local: str, remote: str) -> str:
        """Create a forward from a host socket to a device socket; ``tcp:0`` picks a free port.

        Returns:
            The forward's local name as the server stores it (``tcp:<resolved port>``).

        Raises:
            InvalidArgument, DeviceNotFound, DeviceUnavailable, AdbFailure (bad spec, bind failure).
        """
        validate_serial(serial)
        service = f"host-serial:{serial}:forward:{local};{remote}"

        async def forwarded(conn: Connection) -> bytes:
            # First OKAY was "connected"; the second one is the status of the forward itself.
            fail = await conn.status(service)
            if fail is not None:
                raise fail_to_error(serial, fail, service)
            return await conn.read_to_eof(limit=4096)

        rest = await self._host_answer(service, serial, forwarded)
        if not rest:
            return local
        buf = bytearray(rest)
        port = protocol.read_hex_block(buf)
        if port is NEED_DATA or not port.isdigit():
            raise AdbProtocolError(f"forward reply carries no port number: {rest!r}")
        return f"tcp:{int(port)}"

    async def kill_forward(self, serial: str, local: str) -> None:
        """Remove the forward whose local side is ``local`` (the server matches on ``local`` only).

        Raises:
            InvalidArgument, AdbFailure (no such forward), AdbConnectionError, AdbTimeout.
        """
        validate_serial(serial)
        service = f"host-serial:{serial}:killforward:{local}"
        fail = await self._host_answer(service, serial, lambda conn: conn.status(service))
        if fail is not None:
            raise AdbFailure(fail.message, service)

    async def list_forward(self) -> list[ForwardEntry]:
        """Every forward on this server, of every device and every tool.

        Raises:
            AdbConnectionError, AdbTimeout, AdbProtocolError.
        """
        payload = await self._host_query("host:list-forward")
        return protocol.parse_forward_list(payload.decode("utf-8", errors="replace"))

    # --- device services ----------------------------------------------------------------------------

    async def open_device_service(self, serial: str, service: str) -> AdbStream:
        """Open ``service`` on the device (``jdwp:<pid>``, ``shell:…``) and return its byte stream.

        Raises:
            InvalidArgument, DeviceNotFound, DeviceUnavailable, AdbFailure (the device refused the
            service; for device services adb says only ``closed``), AdbConnectionError, AdbTimeout.
        """
        validate_serial(serial)
        conn = await self._open_service(service, serial)
        return conn.into_stream()

    async def shell(self, serial: str, command: str, *, timeout: float | None = None) -> ShellResult:
        """Run ``command`` with ``/system/bin/sh -c`` on the device and collect its output.

        Uses the shell v2 protocol (separate stderr, exit status) when the device offers it, else
        the legacy ``shell:`` service. ``command`` is passed verbatim: quote every argument.

        Raises:
            InvalidArgument, DeviceNotFound, DeviceUnavailable, AdbConnectionError,
            AdbTimeout (the command did not finish in ``timeout``, default the client's), AdbProtocolError.
        """
        v2 = "shell_v2" in await self.features(serial)
        service = f"shell,v2,raw:{command}" if v2 else f"shell:{command}"
        conn = await self._open_service(service, serial)
        try:
            with trio.fail_after(self.timeout if timeout is None else timeout):
                if not v2:
                    return ShellResult(await conn.read_to_eof(), b"", None)
                await conn.stream.send_all(protocol.encode_shell_packet(ShellId.CLOSE_STDIN))
                return await self._collect_v2(conn)
        except trio.TooSlowError:
            raise AdbTimeout(f"device command did not finish within {timeout or self.timeout}s: {command!r}") from None
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise AdbConnectionError("the device closed the shell before it finished") from exc
        finally:
            await conn.aclose()

    @staticmethod
    async def _collect_v2(conn: Connection) -> ShellResult:
        stdout, stderr = bytearray(), bytearray()
        while True:
            try:
                packet = await conn.read(protocol.read_shell_packet, "shell output")
            except AdbConnectionError:
                # adb itself reports 255 when the stream ends without an exit packet (as ssh does).
                return ShellResult(bytes(stdout), bytes(stderr), 255)
            if packet.id == ShellId.STDOUT:
                stdout += packet.data
            elif packet.id == ShellId.STDERR:
                stderr += packet.data
            elif packet.id == ShellId.EXIT:
                code = packet.data[0] if packet.data else 255
                return ShellResult(bytes(stdout), bytes(stderr), code)

    async def jdwp_pids(self, serial: str) -> list[int]:
        """The pids of the device's JDWP-visible (debuggable) processes right now.

        Reads the first ``track-jdwp`` message, which adbd sends at once, then closes. (The one-shot
        ``jdwp`` service never finishes when the list is empty: adbd waits for an acknowledgement of
        a message it did not send.)

        Raises:
            InvalidArgument, DeviceNotFound, DeviceUnavailable, AdbConnectionError, AdbTimeout,
            AdbProtocolError.
        """
        tracker = await self.open_track_jdwp(serial)
        async with tracker:
            try:
                with trio.fail_after(self.timeout):
                    return await tracker.receive()
            except trio.TooSlowError:
                raise AdbTimeout(f"device {serial!r} did not list its JDWP processes within {self.timeout}s") from None

    async def open_track_jdwp(self, serial: str) -> MessageTracker[list[int]]:
        """Open ``track-jdwp``: the list of JDWP pids now and after every change.

        Raises:
            InvalidArgument, DeviceNotFound, DeviceUnavailable, AdbConnectionError, AdbTimeout.
        """
        conn = await self._open_service("track-jdwp", serial)
        return MessageTracker(
            conn, lambda payload: protocol.parse_pid_list(payload.decode("ascii", errors="replace")), "track-jdwp"
        )

    async def open_track_app(self, serial: str, decode: Callable[[bytes], T]) -> MessageTracker[T]:
        """Open ``track-app`` (Android 12+, feature ``track_app``); ``decode`` parses each protobuf.

        Raises:
            InvalidArgument, DeviceNotFound, DeviceUnavailable, AdbFailure (service unknown on this
            device), AdbConnectionError, AdbTimeout.
        """
        conn = await self._open_service("track-app", serial)
        return MessageTracker(conn, decode, "track-app")

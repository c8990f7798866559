"""JDWP byte streams to an app process through ADB: ``direct`` (default) or ``forward``.

Layer: ``android`` (trio); never imports ``jdwp``. The result is a ``trio.abc.Stream`` carrying the
JDWP conversation, which ``jdwp`` opens like any other stream.
Spec: docs/design.md §4.5 ("Transport", "A process already being debugged").

- ``direct``: ``host:transport:<serial>`` then ``jdwp:<pid>`` on one socket; that socket *is* the
  JDWP stream. No forward, no listening port another local user could connect to.
- ``forward``: ``host-serial:<serial>:forward:tcp:0;jdwp:<pid>``, connect to the returned loopback
  port; closing the stream removes exactly that forward (after checking it is still ours).

Busy slot: ART serves one debugger per process and accepts-then-drops any further one. By default
the JDWP handshake is exchanged here, so an EOF in place of the reply becomes ``DebuggerBusy``
rather than a generic I/O error later; the returned stream then starts after the handshake.
"""

from __future__ import annotations

import enum
import logging

import trio

from .client import AdbClient, validate_serial
from .connection import replayed
from .device import validate_pid
from .errors import (
    AdbConnectionError,
    AdbError,
    AdbFailure,
    AdbProtocolError,
    AdbTimeout,
    DebuggerBusy,
    ProcessNotFound,
)

__all__ = ["EARLY_LIMIT", "HANDSHAKE", "JdwpStream", "Transport", "early_packet", "open_jdwp_stream"]

log = logging.getLogger(__name__)

HANDSHAKE = b"JDWP-Handshake"
_CLEANUP_TIMEOUT = 5.0


class Transport(enum.Enum):
    """How the JDWP bytes travel from the ADB server to us."""

    DIRECT = "direct"
    FORWARD = "forward"


class JdwpStream(trio.abc.HalfCloseableStream):
    """A JDWP byte stream to one process; ``aclose`` also removes the forward it created, if any.

    Attributes:
        serial, pid: the process this stream reaches.
        transport: ``Transport.DIRECT`` or ``Transport.FORWARD``.
        forward_local: the forward's local name (``tcp:<port>``) while it exists, else ``None``.
        handshake_done: True when the JDWP handshake was already exchanged on this stream.
    """

    def __init__(
        self,
        client: AdbClient,
        inner: trio.abc.Stream,
        serial: str,
        pid: int,
        transport: Transport,
        forward_local: str | None = None,
    ) -> None:
        self._client = client
        self._inner = inner
        self.serial = serial
        self.pid = pid
        self.transport = transport
        self.forward_local = forward_local
        self.handshake_done = False
        self._pending = bytearray()  # bytes read past the handshake reply, replayed first
        self._closed = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self._inner.send_all(data)

    @property
    def raw_socket_stream(self) -> trio.SocketStream | None:
        """The socket stream our writes go to unchanged (``None`` when the inner stream is no socket): the
        JDWP client writes small packets straight into its socket, skipping a scheduler pass per packet."""
        return self._inner if isinstance(self._inner, trio.SocketStream) else None

    async def wait_send_all_might_not_block(self) -> None:
        await self._inner.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        if isinstance(self._inner, trio.abc.HalfCloseableStream):
            await self._inner.send_eof()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self._pending:
            return await replayed(self._pending, max_bytes)
        return bytes(await self._inner.receive_some(max_bytes))

    def unread(self, data: bytes) -> None:
        """Put ``data`` back in front of what is still to be read (bytes a helper read past what it used,
        such as the packets that came before the reply to a DDM HELO)."""
        self._pending[:0] = data

    async def aclose(self) -> None:
        """Close the stream, then remove our forward (never another one), shielded from cancellation."""
        if self._closed:
            await trio.lowlevel.checkpoint()
            return
        self._closed = True
        try:
            await self._inner.aclose()
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(_CLEANUP_TIMEOUT) as scope:
                try:
                    await self.remove_forward()
                except AdbError as exc:
                    # Closing must not fail on top of whatever ended the session; say what remains.
                    log.warning("the adb forward %s for pid %d may remain: %s", self.forward_local, self.pid, exc)
            if scope.cancelled_caught:
                log.warning("removing the adb forward %s for pid %d took over %g s; it may remain",
                            self.forward_local, self.pid, _CLEANUP_TIMEOUT)

    async def remove_forward(self) -> bool:
        """Remove this stream's forward if the server still has it for our serial and pid.

        Returns:
            True when a forward was removed; False when there was none (or it is not ours any more:
            adb drops forwards when a device disconnects, and the port may since belong to another).

        Raises:
            AdbError: the server could not be asked; the forward may remain (the caller reports it).
        """
        local = self.forward_local
        if local is None:
            return False
        removed = await _remove_forward(self._client, self.serial, self.pid, local)
        self.forward_local = None
        return removed

    async def _handshake(self, timeout: float) -> None:
        await self._inner.send_all(HANDSHAKE)  # one write: ART drops a handshake that arrives in pieces
        early = bytearray()  # whole packets the VM sent before its echo, kept for the JDWP client
        buf = bytearray()
        with trio.fail_after(timeout):
            while True:
                taken = early_packet(buf)
                if taken:
                    early += buf[:taken]
                    del buf[:taken]
                    if len(early) > EARLY_LIMIT:
                        raise AdbProtocolError(f"process {self.pid} sent over {EARLY_LIMIT} bytes of packets "
                                               "before echoing the JDWP handshake")
                    continue
                if buf[: len(HANDSHAKE)] == HANDSHAKE:
                    break
                if not HANDSHAKE.startswith(bytes(buf[: len(HANDSHAKE)])) and taken is None:
                    raise AdbProtocolError(
                        f"process {self.pid} answered the JDWP handshake with {bytes(buf[:14])!r}")
                data = await self._inner.receive_some(4096)
                if not data:
                    raise EOFError
                buf += data
        self._pending = early + buf[len(HANDSHAKE) :]
        self.handshake_done = True


#: The most bytes of whole packets accepted before the handshake's echo (a DDM ``APNM`` is some 100 bytes).
EARLY_LIMIT = 64 * 1024
_HEADER_SIZE = 11


def early_packet(buf: bytearray) -> int | None:
    """How many bytes at the start of ``buf`` are one whole JDWP command packet the VM sent before echoing
    the handshake: 0 when the packet is still arriving, ``None`` when ``buf`` does not start with one.

    For years ART's adbconnection could send a DDM packet (``APNM``, the app's name) before the
    ``JDWP-Handshake`` echo: Android bug 178655046, fixed by ART change 1569323
    (android-review.googlesource.com/c/platform/art/+/1569323), pinned by CTS ``JdwpTunnelTest
    .testDdmsWaitsForHandshake``; Android Studio's adblib reads the handshake by scanning past such packets
    (its JDWP session's ``processEarlyJdwpPacket``). Such a packet is a VM command (flags 0; ART numbers its
    own packets with the high bit set) of a sane length (at most :data:`EARLY_LIMIT` bytes, as are all of them
    together); anything else is not a handshake at all.
    """
    if len(buf) < _HEADER_SIZE:
        # A prefix of the handshake, or of a packet header: the caller reads on (or fails on a mismatch).
        return 0 if not HANDSHAKE.startswith(bytes(buf)) and buf[:1] == b"\x00" else None
    length = int.from_bytes(buf[:4], "big")
    if buf[8] != 0 or not _HEADER_SIZE <= length <= EARLY_LIMIT:
        return None
    return length if len(buf) >= length else 0


async def open_jdwp_stream(
    client: AdbClient,
    serial: str,
    pid: int,
    *,
    transport: Transport | str = Transport.DIRECT,
    handshake: bool = True,
    handshake_timeout: float = 10.0,
) -> JdwpStream:
    """Open a JDWP stream to process ``pid`` on device ``serial``.

    Args:
        client: the ADB client.
        serial: the device.
        pid: the JDWP-visible process (see ``pyjdwp_android.resolve``).
        transport: ``"direct"`` (default) or ``"forward"``.
        handshake: exchange ``JDWP-Handshake`` here, which is what detects a busy debugger slot;
            the returned stream then begins with the first JDWP packet and ``handshake_done`` is
            True, so the JDWP client must not send the handshake again.
        handshake_timeout: seconds to wait for the handshake reply.

    Raises:
        InvalidArgument: malformed serial or pid, or unknown transport.
        DeviceNotFound, DeviceUnavailable: the device cannot be used.
        ProcessNotFound: the pid is not (or no longer) a JDWP-visible process.
        DebuggerBusy: the process dropped the connection: another debugger is attached.
        AdbTimeout: no handshake reply in time. AdbProtocolError: a wrong handshake reply.
        AdbConnectionError: the ADB server could not be reached or dropped the connection.
    """
    validate_serial(serial)
    validate_pid(pid)
    mode = Transport(transport) if isinstance(transport, str) else transport
    if mode is Transport.DIRECT:
        try:
            inner: trio.abc.Stream = await client.open_device_service(serial, f"jdwp:{pid}")
        except AdbFailure as exc:
            raise _not_visible(serial, pid) from exc
        stream = JdwpStream(client, inner, serial, pid, mode)
    else:
        local = await client.forward(serial, "tcp:0", f"jdwp:{pid}")
        try:
            inner = await trio.open_tcp_stream("127.0.0.1", int(local.removeprefix("tcp:")))
        except BaseException:
            with trio.CancelScope(shield=True), trio.move_on_after(_CLEANUP_TIMEOUT):
                await _remove_forward(client, serial, pid, local)
            raise
        stream = JdwpStream(client, inner, serial, pid, mode, forward_local=local)
    if not handshake:
        return stream
    try:
        await stream._handshake(handshake_timeout)
    except BaseException as exc:
        with trio.CancelScope(shield=True):
            await stream.aclose()
        if isinstance(exc, EOFError | trio.BrokenResourceError | trio.ClosedResourceError):
            raise await _busy_or_gone(client, serial, pid) from None
        if isinstance(exc, trio.TooSlowError):
            raise AdbTimeout(f"process {pid} did not answer the JDWP handshake within {handshake_timeout}s") from None
        raise
    return stream


async def _remove_forward(client: AdbClient, serial: str, pid: int, local: str) -> bool:
    """Remove forward ``local`` only if the server still lists it for ``serial`` → ``jdwp:<pid>``."""
    entries = await client.list_forward()
    if not any(e.serial == serial and e.local == local and e.remote == f"jdwp:{pid}" for e in entries):
        return False
    try:
        await client.kill_forward(serial, local)
    except AdbFailure:
        # Gone between the listing and the removal: the device disconnected meanwhile.
        return False
    return True


def _not_visible(serial: str, pid: int) -> ProcessNotFound:
    return ProcessNotFound(
        f"process {pid} on {serial} is not JDWP-visible: it exited or is not debuggable; resolve the target again"
    )


async def _busy_or_gone(client: AdbClient, serial: str, pid: int) -> AdbError:
    """The process closed the connection: busy if it is still JDWP-visible, gone otherwise."""
    try:
        pids = await client.jdwp_pids(serial)
    except (AdbConnectionError, AdbTimeout) as exc:
        log.debug("could not re-list JDWP pids after a dropped connection: %s", exc)
        return DebuggerBusy(pid)
    return DebuggerBusy(pid) if pid in pids else _not_visible(serial, pid)

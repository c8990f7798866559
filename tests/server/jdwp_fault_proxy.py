"""A loopback JDWP proxy for tests/server that produces the faults a healthy JVM never does on demand.

The server connects to the proxy (``platform: "jvm"``, ``address: 127.0.0.1:<proxy.port>``); for each
connection the proxy connects to the real JVM's agent (on the port it listens on now) and forwards the
conversation packet by packet, so a test can:

- ``stall()`` / ``release()``: hold every packet from the VM (replies and events) — a VM that stops
  answering (DEBUGGER_TIMEOUT); released packets are delivered in order, late;
- ``fail_next_reply(code)``: rewrite the next reply into a JDWP error ``code`` with no body — a VM that
  fails internally (DEBUGGER_WORKER_FAILED);
- ``cut_on_next_command()``: drop both connections when the debugger sends its next command — a link
  that breaks in the middle of cleanup (DEBUGGER_CLEANUP_FAILED).
"""

from __future__ import annotations

import struct

import trio
from mcpkit import agent_port, attached

from jdwp.recording_proxy import open_listener, read_packets
from support.jvm import Debuggee
from support.net import HANDSHAKE

HEADER = struct.Struct(">IIB")  # length, id, flags; then (command set, command) or the error code
REPLY = 0x80


class JdwpProxy:
    def __init__(self, jvm: Debuggee) -> None:
        self.jvm = jvm
        self.port = 0
        self.connections = 0
        self._gate = trio.Event()
        self._gate.set()
        self._fail_code: int | None = None
        self._cut = False

    async def serve(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        listener = await open_listener()
        self.port = listener.socket.getsockname()[1]
        task_status.started()
        await trio.serve_listeners(self._handle, [listener])

    # --- faults --------------------------------------------------------------------------------------

    def stall(self) -> None:
        self._gate = trio.Event()

    def release(self) -> None:
        self._gate.set()

    def fail_next_reply(self, code: int) -> None:
        self._fail_code = code

    def cut_on_next_command(self) -> None:
        self._cut = True

    # --- forwarding ----------------------------------------------------------------------------------

    async def _handle(self, debugger: trio.SocketStream) -> None:
        self.connections += 1
        try:
            vm = await trio.open_tcp_stream("127.0.0.1", await agent_port(self.jvm))
        except OSError:
            await debugger.aclose()
            return
        attached(self.jvm)  # the agent listens on a new port once this connection ends
        async with debugger, vm, trio.open_nursery() as nursery:
            nursery.start_soon(self._pump, debugger, vm, False, nursery.cancel_scope)
            nursery.start_soon(self._pump, vm, debugger, True, nursery.cancel_scope)

    async def _pump(self, src: trio.SocketStream, dst: trio.SocketStream, from_vm: bool,
                    scope: trio.CancelScope) -> None:
        try:
            async for packet in read_packets(src):
                if packet == HANDSHAKE:
                    await dst.send_all(packet)
                    continue
                (_, _, flags) = HEADER.unpack_from(packet)
                if from_vm:
                    await self._gate.wait()
                    if flags & REPLY and self._fail_code is not None:
                        packet = packet[:9] + struct.pack(">H", self._fail_code)
                        packet = struct.pack(">I", len(packet)) + packet[4:]
                        self._fail_code = None
                elif self._cut:
                    self._cut = False
                    scope.cancel()
                    return
                await dst.send_all(packet)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        scope.cancel()

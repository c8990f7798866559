"""A loopback JDWP proxy that numbers every packet of a connection and injects one fault at one of them.

It sits between a debugger (pyjdwp's MCP server, attached to the proxy's address) and a real JVM's JDWP
agent. Packets are numbered in the order the proxy has read them whole, both directions together: the
debugger's handshake is packet 0, the VM's handshake packet 1, then every JDWP packet. Armed with
``(point, fault)``, it applies the fault when packet ``point`` arrives, in that packet's direction:

- ``eof``: drop the packet and close both connections (a crash, a pulled cable);
- ``stall``: hold the packet and everything after it, both ways, for ``stall_s`` seconds, then go on;
- ``garbage``: write 48 pseudo-random bytes (seeded by the point) ahead of the packet, then go on;
- ``truncate``: write the first half of the packet, then close both connections (EOF mid-packet).

When either side closes, the proxy closes the other, as a TCP relay does. It listens on port 0 and
connects to the VM only when a debugger connects (retrying briefly: a JDWP agent that just lost a debugger
takes a moment to listen again).
"""

from __future__ import annotations

import dataclasses
import random
import struct

import trio

from jdwp.recording_proxy import open_listener, read_packets
from support.net import HANDSHAKE

HEADER = struct.Struct(">IIBBB")
FAULTS = ("eof", "stall", "garbage", "truncate")
TO_VM, TO_DEBUGGER = "debugger→vm", "vm→debugger"
CONNECT_DEADLINE = 5.0


@dataclasses.dataclass(frozen=True)
class Seen:
    """One packet the proxy read: its number, direction and a short description."""

    index: int
    direction: str
    what: str


def describe(packet: bytes) -> str:
    if packet == HANDSHAKE:
        return "handshake"
    if len(packet) < 11:
        return f"{len(packet)} bytes"
    _, packet_id, flags, a, b = HEADER.unpack_from(packet)
    if flags & 0x80:
        code = a << 8 | b
        return f"reply #{packet_id}" + (f" error {code}" if code else "")
    return f"command ({a},{b}) #{packet_id}"


def garbage(point: int, size: int = 48) -> bytes:
    return random.Random(point).randbytes(size)


class FaultProxy:
    """Relays one debugger connection at a time to the VM at ``vm_port``; see the module docstring."""

    def __init__(self, vm_port: int) -> None:
        self.vm_port = vm_port
        self.point: int | None = None
        self.fault: str | None = None
        self.stall_s = 0.0
        self.seen: list[Seen] = []
        self.injected: Seen | None = None
        self.connections = 0
        self.open_connections = 0
        self._idle = trio.Event()
        self._idle.set()
        self._cancel_scopes: list[trio.CancelScope] = []

    def arm(self, point: int | None, fault: str | None, stall_s: float = 0.0) -> None:
        """Inject ``fault`` at packet ``point`` of the next connection (``None``: relay cleanly)."""
        if fault is not None and fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}")
        self.point, self.fault, self.stall_s = point, fault, stall_s
        self.seen = []
        self.injected = None

    async def wait_idle(self) -> None:
        """Return once no connection is open (the debugger closed its side, or the proxy closed both)."""
        await self._idle.wait()

    def close_all(self) -> None:
        """Close every open connection now (between runs, so the VM certainly sees its debugger leave)."""
        for scope in self._cancel_scopes:
            scope.cancel()

    async def serve(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listener = await open_listener()
        task_status.started(listener.socket.getsockname()[1])
        async with listener, trio.open_nursery() as nursery:
            while True:
                client = await listener.accept()
                self.connections += 1
                self.open_connections += 1
                self._idle = trio.Event()
                nursery.start_soon(self._relay, client)

    async def _connect_vm(self) -> trio.SocketStream | None:
        with trio.move_on_after(CONNECT_DEADLINE):
            while True:
                try:
                    return await trio.open_tcp_stream("127.0.0.1", self.vm_port)
                except OSError:
                    await trio.sleep(0.02)  # the agent re-listens shortly after a debugger leaves
        return None

    async def _relay(self, client: trio.SocketStream) -> None:
        scope = trio.CancelScope()
        self._cancel_scopes.append(scope)
        try:
            with scope:
                vm = await self._connect_vm()
                if vm is None:
                    return
                async with vm, trio.open_nursery() as nursery:
                    state = _Relay(self, client, vm, nursery)
                    nursery.start_soon(state.direction, client, vm, TO_VM)
                    nursery.start_soon(state.direction, vm, client, TO_DEBUGGER)
        finally:
            self._cancel_scopes.remove(scope)
            await trio.aclose_forcefully(client)
            self.open_connections -= 1
            if self.open_connections == 0:
                self._idle.set()


class _Relay:
    """Both directions of one connection, sharing the packet counter and the fault's state."""

    def __init__(self, proxy: FaultProxy, client: trio.SocketStream, vm: trio.SocketStream,
                 nursery: trio.Nursery) -> None:
        self.proxy = proxy
        self.client, self.vm = client, vm
        self.stall_over = trio.Event()
        self.stalling = False
        self.nursery = nursery
        self.scope = nursery.cancel_scope

    async def direction(self, source: trio.SocketStream, sink: trio.SocketStream, name: str) -> None:
        proxy = self.proxy
        try:
            async for packet in read_packets(source):
                index = len(proxy.seen)
                seen = Seen(index, name, describe(packet))
                proxy.seen.append(seen)
                if index == proxy.point and proxy.fault is not None:
                    proxy.injected = seen
                    if proxy.fault == "eof":
                        break
                    if proxy.fault == "truncate":
                        await sink.send_all(packet[: max(1, len(packet) // 2)])
                        break
                    if proxy.fault == "garbage":
                        await sink.send_all(garbage(index))
                    if proxy.fault == "stall":
                        self.stalling = True
                        self.nursery.start_soon(self._end_stall, proxy.stall_s)
                if self.stalling:
                    await self.stall_over.wait()
                await sink.send_all(packet)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        # Either side ending (or a fault) ends the connection both ways, as a TCP relay does.
        self.scope.cancel()

    async def _end_stall(self, seconds: float) -> None:
        await trio.sleep(seconds)  # the fault itself: a network that delivers nothing for a while
        self.stalling = False
        self.stall_over.set()

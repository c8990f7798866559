"""Sequential round trips of the debugger engine's inspections, through a proxy that delays every packet.

    python bench/roundtrips.py                 # RTT 10 ms and 50 ms
    python bench/roundtrips.py --rtt-ms 20     # one RTT

A loopback proxy (port 0) sits between the engine and a real JVM (``com.example.debuggee.Bench``) and holds
each JDWP packet for half the injected RTT in each direction, in order. It counts *rounds*: a round starts
when the client sends a command after a reply has reached it since the previous command, so a burst of
pipelined requests is one round however many packets it holds. Measured, each in a fresh session:

- (a) ``locals`` of ``Fifty.locals`` — 50 live variables: 20 strings, 5 arrays, 25 primitives;
- (b) ``stack`` of 20 frames whose classes the engine has not seen (``chain.Chain19`` … ``Chain01`` and
  ``Bench.main``, below the stop in ``Chain20``);
- (c) the ends of a journey as the MCP server runs them: attach (open the connection, read the VM's
  version, open the engine), a breakpoint in a loaded class (``Fifty``), and detach from its stop.

- (d) a ``className`` breakpoint on a class with no nested classes (``Fifty``): round 1's case;
- (e) a ``className`` breakpoint on a class with 50 nested classes (``Nested50``; the line is in ``N25``);
- (f) a ``file`` breakpoint by path (``Fifty.java``), and (g) by bare name (``Nested50.java``, 51 classes),
  in a VM holding 30,000 more classes (``-Dbulk=30000``: ``gen.p000.C00000`` …, 100 per package, standing
  for the platform and the libraries of a real app);
- (h) the same ``file`` breakpoint by path on loopback with no injected delay: the wall time.
- (m) a ``file`` breakpoint by bare Kotlin name (``Shared.kt``, an inline-only file: its facade never loads) in a
  VM of 30,000 Kotlin-like classes (``-Dbulk.kotlin=true``: each with a source map; every 1,000th inlined
  ``Shared.kt:5``): the bind sweeps every class's map (issue 23). On loopback straight to the VM, not through
  the proxy (which relays 30,000 answers a packet at a time, slower than the VM sends them): the wall time, the
  writes and commands, and a second file's bind in the same session (the maps cached).
- (i) a page of 100 entries of a 10,000-entry ``HashMap`` and (j) of a 10,000-element ``ArrayList`` (the
  first page and one at offset 5000), (k) an object of 50 fields with 20 strings, (l) the expression
  ``a.b.c[3].d`` — in ``Heap.look``, each object first seen in the frame's locals.
- (n) a page of 100 elements of an ``ArrayList`` of plain objects (``Heap$Item``: a string and two ints) without
  previews (``depth`` 0) and with (docs/design.md §3.7): the objects' fields in one round more, then their strings'.
- (m) on loopback, a page of 100 at offsets 0 and 900,000 of a 1,000,000-entry ``HashMap`` and
  ``ConcurrentHashMap`` (``hostile.BigContainers``; bench/hostile_containers.py has the other containers).

Each bind is the first breakpoint of a fresh session (so it also asks the VM's capabilities).
Goals: issue 3, at most 3 sequential round trips for (a) and (b); issue 10, attach 2, set_breakpoint 4,
detach 5 (clears, resume, threads, suspend counts, dispose) for (c); issue 11, at most 3 for (e), at most 5
for (f) and 0.3 s for (h); issue 12, at most 4 for (i), (j) and (l), 3 for (k); issue 23, 0.5 s for (m); issue 24,
previews a constant few rounds more for (n) (8 in all), not one per object. Prints
the rounds, the packets, and the wall time as a multiple of the injected RTT; asserts nothing about time (machines
here are noisy). A command counts in the round of the bytes it arrived with, however long the proxy takes to relay
them.
"""

from __future__ import annotations

import argparse
import math
import shutil
import struct
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import jdwp
from jdwp.debugger import Debugger, Stopped, open_debugger
from jdwp.recording_proxy import open_listener, read_packets
from support.jvm import Debuggee, compile_fixtures, find_mark
from support.net import HANDSHAKE

HEADER = struct.Struct(">IIB")
BULK = 30_000
KOTLIN_BULK = (f"-Dbulk={BULK}", "-Dbulk.kotlin=true")
SHARED_LINE = 5  # the line of Shared.kt that every 1,000th generated class inlined (fixtures Bulk.java)
FIFTY_PATH = "app/src/main/java/com/example/debuggee/Fifty.java"
REPLY_FLAG = 0x80


class DelayProxy:
    """Relays one connection at a time to the VM, holding each packet ``one_way`` seconds, and counts."""

    def __init__(self, vm_port: int, rtt: float) -> None:
        self.vm_port = vm_port
        self.one_way = rtt / 2
        self.reset()

    def reset(self) -> None:
        self.rounds = 0
        self.commands = 0
        self._reply_at: float | None = -math.inf  # the first reply delivered since the round began

    async def serve(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listener = await open_listener()
        task_status.started(listener.socket.getsockname()[1])
        async with listener:
            while True:
                client = await listener.accept()
                vm = await trio.open_tcp_stream("127.0.0.1", self.vm_port)
                async with client, vm, trio.open_nursery() as nursery:
                    nursery.start_soon(self._direction, client, vm, True)
                    nursery.start_soon(self._direction, vm, client, False)

    async def _direction(self, source: trio.abc.Stream, sink: trio.abc.Stream, from_client: bool) -> None:
        send, receive = trio.open_memory_channel[tuple[float, bytes, bool]](1000)
        stamped = _Stamped(source)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._deliver, receive, sink, from_client)
            try:
                async with send:
                    async for packet in read_packets(stamped):  # type: ignore[arg-type]
                        is_reply = len(packet) >= HEADER.size and bool(HEADER.unpack_from(packet)[2] & REPLY_FLAG)
                        if from_client and packet != HANDSHAKE and not is_reply:
                            self.commands += 1
                            # By when the command arrived, not when this loop reached it: a burst read in one
                            # piece is one round even if a reply went out while the loop worked through it.
                            if self._reply_at is not None and stamped.arrived >= self._reply_at:
                                self.rounds += 1
                                self._reply_at = None
                        await send.send((stamped.arrived + self.one_way, packet, is_reply))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass

    async def _deliver(self, receive: trio.MemoryReceiveChannel[tuple[float, bytes, bool]],
                       sink: trio.abc.Stream, from_client: bool) -> None:
        try:
            async with receive:
                async for due, packet, is_reply in receive:
                    await trio.sleep_until(due)
                    await sink.send_all(packet)
                    if is_reply and not from_client and self._reply_at is None:
                        self._reply_at = trio.current_time()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            await trio.aclose_forcefully(sink)


class _Stamped:
    """A stream's receiving side that notes when its last piece of bytes arrived."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self._stream = stream
        self.arrived = 0.0

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        data = await self._stream.receive_some(max_bytes)
        self.arrived = trio.current_time()
        return data


@asynccontextmanager
async def session(classes: Path, rtt: float, *extra_args: str) -> AsyncIterator[tuple[DelayProxy, Debugger]]:
    """A fresh JVM (``Bench``, with ``extra_args``) and engine session through the delaying proxy, running."""
    debuggee = Debuggee(classes, "com.example.debuggee.Bench", java=shutil.which("java") or "java",
                        extra_args=extra_args)
    try:
        debuggee.wait_for_line("^ready$", timeout=120)
        proxy = DelayProxy(debuggee.port, rtt)
        async with trio.open_nursery() as nursery:
            port = await nursery.start(proxy.serve)
            async with jdwp.open_jdwp_tcp("127.0.0.1", port) as vm, open_debugger(vm) as debugger:
                yield proxy, debugger
                await debugger.detach()
            nursery.cancel_scope.cancel()
    finally:
        debuggee.stop()


@asynccontextmanager
async def paused_at(classes: Path, class_name: str, mark: str, rtt: float
                    ) -> AsyncIterator[tuple[DelayProxy, Debugger, Any]]:
    """A fresh JVM and engine session through the delaying proxy, stopped at ``mark`` of ``class_name``."""
    debuggee = Debuggee(classes, "com.example.debuggee.Bench", java=shutil.which("java") or "java")
    try:
        debuggee.wait_for_line("^ready$", timeout=30)
        proxy = DelayProxy(debuggee.port, rtt)
        async with trio.open_nursery() as nursery:
            port = await nursery.start(proxy.serve)
            async with jdwp.open_jdwp_tcp("127.0.0.1", port) as vm, open_debugger(vm) as debugger:
                await debugger.set_breakpoint(class_name, find_mark(mark)[1])
                event = await debugger.events.receive()
                while not isinstance(event, Stopped):  # the class may load after the breakpoint is set
                    event = await debugger.events.receive()
                yield proxy, debugger, event.stop
                await debugger.detach()
            nursery.cancel_scope.cancel()
    finally:
        debuggee.stop()


async def measure(proxy: DelayProxy, rtt: float, call: Callable[[], Awaitable[Any]]) -> tuple[Any, int, int, float]:
    proxy.reset()
    start = time.perf_counter()
    result = await call()
    elapsed = time.perf_counter() - start
    return result, proxy.rounds, proxy.commands, elapsed / rtt if rtt else elapsed


def report(label: str, rounds: int, commands: int, multiple: float, goal: int | None = 3) -> None:
    verdict = "" if goal is None else "  [ok]" if rounds <= goal else f"  [OVER GOAL of {goal}]"
    print(f"  {label:<52} {rounds:>2} rounds  {commands:>4} commands  {multiple:6.2f} x RTT{verdict}")


async def binds(classes: Path, rtt: float) -> None:
    """(c)-(f): breakpoint binds, each the first breakpoint of a fresh session."""
    nested = find_mark("nested50")[1]
    async with session(classes, rtt) as (proxy, debugger):
        bp, rounds, commands, multiple = await measure(
            proxy, rtt, lambda: debugger.set_breakpoint("com.example.debuggee.Fifty", find_mark("fifty")[1]))
        assert bp.status == "verified", bp
        report("(d) className bind, no nested classes (round 1)", rounds, commands, multiple, None)
    async with session(classes, rtt) as (proxy, debugger):
        bp, rounds, commands, multiple = await measure(
            proxy, rtt, lambda: debugger.set_breakpoint("com.example.debuggee.Nested50", nested))
        assert [loc.class_name for loc in bp.locations] == ["com.example.debuggee.Nested50$N25"], bp
        report("(e) className bind, 50 nested classes", rounds, commands, multiple, 3)
    fifty = find_mark("fifty")[1]
    async with session(classes, rtt, f"-Dbulk={BULK}") as (proxy, debugger):
        bp, rounds, commands, multiple = await measure(
            proxy, rtt, lambda: debugger.set_breakpoint(file=FIFTY_PATH, line=fifty))
        assert [loc.class_name for loc in bp.locations] == ["com.example.debuggee.Fifty"], bp
        listed = len(await debugger.vm.all_classes())
        report(f"(f) file bind by path, {listed:,} classes loaded", rounds, commands, multiple, 5)
        bp, rounds, commands, multiple = await measure(
            proxy, rtt, lambda: debugger.set_breakpoint(file="Nested50.java", line=nested))
        assert [loc.class_name for loc in bp.locations] == ["com.example.debuggee.Nested50$N25"], bp
        report("(g) file bind by name, 51 classes in the file, same VM", rounds, commands, multiple, 5)


async def loopback(classes: Path) -> None:
    """(h): the file bind of (f) with no injected delay; the wall time (best of three sessions)."""
    times = []
    for _ in range(3):
        async with session(classes, 0.0, f"-Dbulk={BULK}") as (proxy, debugger):
            bp, rounds, commands, elapsed = await measure(
                proxy, 0.0, lambda: debugger.set_breakpoint(file=FIFTY_PATH, line=find_mark("fifty")[1]))
            assert bp.status == "verified", bp
            times.append(elapsed)
    verdict = "ok" if min(times) <= 0.3 else "OVER GOAL of 0.3 s"
    print(f"  {'(h) file bind by path, 30,000 more classes, loopback':<52} {rounds:>2} rounds  {commands:>4} commands  "
          f"{min(times):6.3f} s (best of 3; {', '.join(f'{t:.3f}' for t in times)})  [{verdict}]")
    await kotlin_sweep(classes)


async def kotlin_sweep(classes: Path) -> None:
    """(m): a bare Kotlin file's bind that sweeps the maps of 30,000 classes, straight to the VM (best of 3)."""
    times, again = [], []
    for _ in range(3):
        debuggee = Debuggee(classes, "com.example.debuggee.Bench", java=shutil.which("java") or "java",
                            extra_args=KOTLIN_BULK)
        try:
            debuggee.wait_for_line("^ready$", timeout=120)
            async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
                before = vm.statistics()
                start = time.perf_counter()
                bp = await debugger.set_breakpoint(file="Shared.kt", line=SHARED_LINE)
                times.append(time.perf_counter() - start)
                after = vm.statistics()
                assert len(bp.locations) == BULK // 1000 and all(loc.inlined for loc in bp.locations), bp
                start = time.perf_counter()
                other = await debugger.set_breakpoint(file="Other.kt", line=1)
                again.append(time.perf_counter() - start)
                assert other.status == "pending", other
                await debugger.detach()
        finally:
            debuggee.stop()
    writes, commands = after["writes"] - before["writes"], after["requests"] - before["requests"]
    verdict = "ok" if min(times) <= 0.5 else "OVER GOAL of 0.5 s"
    label = "(m) bare Kotlin file, maps of 30,000 classes, direct"
    print(f"  {label:<52} {writes:>2} writes  {commands:>5} commands  {min(times):6.3f} s "
          f"(best of 3; {', '.join(f'{t:.3f}' for t in times)})  [{verdict}]")
    print(f"  {'    another file, same session (maps cached)':<52} {min(again):6.3f} s "
          f"(best of 3; {', '.join(f'{t:.3f}' for t in again)})")


async def run(classes: Path, rtt_ms: float) -> None:
    rtt = rtt_ms / 1000
    print(f"RTT {rtt_ms:g} ms (each packet held {rtt_ms / 2:g} ms each way)")

    async with paused_at(classes, "com.example.debuggee.Fifty", "fifty", rtt) as (proxy, debugger, stop):
        page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
        frame = page.frames[0].frame_id
        result, rounds, commands, multiple = await measure(proxy, rtt, lambda: debugger.locals(stop.stop_id, frame))
        kinds = [local.kind for local in result.locals]
        assert len(kinds) == 50 and kinds.count("string") == 20 and kinds.count("array") == 5, kinds
        report("(a) locals: 50 variables, 20 strings, 5 arrays", rounds, commands, multiple)
        _, rounds, commands, multiple = await measure(proxy, rtt, lambda: debugger.locals(stop.stop_id, frame))
        report("    the same locals again (tables cached)", rounds, commands, multiple)

    async with paused_at(classes, "com.example.debuggee.chain.Chain20", "chain-bottom", rtt) as (
            proxy, debugger, stop):
        page, rounds, commands, multiple = await measure(
            proxy, rtt, lambda: debugger.stack(stop.stop_id, stop.thread_id, offset=1, limit=20))
        classes_seen = {frame.class_name for frame in page.frames}
        assert len(page.frames) == 20 and len(classes_seen) == 20, classes_seen
        assert all(frame.line is not None for frame in page.frames)
        report("(b) stack: 20 frames of 20 unseen classes", rounds, commands, multiple)
        _, rounds, commands, multiple = await measure(
            proxy, rtt, lambda: debugger.stack(stop.stop_id, stop.thread_id, offset=1, limit=20))
        report("    the same frames again (classes cached)", rounds, commands, multiple)

    await values_pages(classes, rtt)
    await journey_ends(classes, rtt)
    await binds(classes, rtt)


async def values_pages(classes: Path, rtt: float) -> None:
    """(i)-(l): pages of values at a stop in ``Heap.look``, each object first seen in the frame's locals."""
    async with paused_at(classes, "com.example.debuggee.Heap", "heap", rtt) as (proxy, debugger, stop):
        frame = (await debugger.stack(stop.stop_id, stop.thread_id, limit=1)).frames[0].frame_id
        by_name = {local.name: local for local in (await debugger.locals(stop.stop_id, frame)).locals}
        for label, name in (("(i) page of 100 entries, 10,000-entry HashMap", "map"),
                            ("(j) page of 100 elements, 10,000-element ArrayList", "list")):
            for offset in (0, 5000):
                page, rounds, commands, multiple = await measure(proxy, rtt, partial(
                    debugger.object, stop.stop_id, by_name[name].object_id, offset=offset, limit=100))
                assert page.size == 10000 and len(page.entries or page.elements or ()) == 100, page
                report(label if offset == 0 else f"    the same at offset {offset}", rounds, commands, multiple, 4)
        page, rounds, commands, multiple = await measure(proxy, rtt, lambda: debugger.object(
            stop.stop_id, by_name["wide"].object_id, limit=50))
        assert len(page.fields) == 50 and sum(f.kind == "string" for f in page.fields) == 20, page
        report("(k) object of 50 fields, 20 strings", rounds, commands, multiple, 3)
        for label in ("(l) expression a.b.c[3].d", "    the same again (its classes known)"):
            summary, rounds, commands, multiple = await measure(proxy, rtt, partial(
                debugger.evaluate, stop.stop_id, frame, "a.b.c[3].d"))
            assert summary.value == "3", summary
            report(label, rounds, commands, multiple, 4)
        items = by_name["items"].object_id
        for label, depth in (("(n) page of 100 plain objects, no previews", 0), ("    the same with previews", 1)):
            page, rounds, commands, multiple = await measure(proxy, rtt, partial(
                debugger.object, stop.stop_id, items, limit=100, depth=depth))
            assert len(page.elements) == 100 and all((e.preview is not None) == bool(depth) for e in page.elements)
            report(label, rounds, commands, multiple, 4 if depth == 0 else 8)


async def journey_ends(classes: Path, rtt: float) -> None:
    """(c): attach, a breakpoint in a loaded class, and detach from its stop, each measured on its own."""
    debuggee = Debuggee(classes, "com.example.debuggee.Bench", java=shutil.which("java") or "java")
    try:
        debuggee.wait_for_line("^ready$", timeout=30)
        await trio.sleep(0.5)  # Fifty is loaded by the loop's first round
        proxy = DelayProxy(debuggee.port, rtt)
        async with trio.open_nursery() as nursery:
            port = await nursery.start(proxy.serve)
            async with AsyncExitStack() as stack:
                async def attach() -> Debugger:
                    vm = await stack.enter_async_context(jdwp.open_jdwp_tcp("127.0.0.1", port))
                    vm.version_info  # noqa: B018 - the server reads it for the target's facts
                    return await stack.enter_async_context(open_debugger(vm))

                debugger, rounds, commands, multiple = await measure(proxy, rtt, attach)
                report("(c) attach: connect, version, engine", rounds, commands, multiple, goal=2)
                line = find_mark("fifty")[1]
                answer, rounds, commands, multiple = await measure(
                    proxy, rtt, lambda: debugger.set_breakpoint("com.example.debuggee.Fifty", line))
                assert answer.status == "verified", answer
                report("    set_breakpoint in a loaded class", rounds, commands, multiple, goal=4)
                event = await debugger.events.receive()
                while not isinstance(event, Stopped):
                    event = await debugger.events.receive()
                cleanup, rounds, commands, multiple = await measure(proxy, rtt, debugger.detach)
                assert cleanup.status == "complete", cleanup
                report("    detach from a breakpoint's stop", rounds, commands, multiple, goal=5)
            nursery.cancel_scope.cancel()
    finally:
        debuggee.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rtt-ms", type=float, action="append", help="injected RTT (default: 10 and 50)")
    args = parser.parse_args()
    if not shutil.which("java") or not shutil.which("javac"):
        sys.exit("bench/roundtrips.py needs java and javac (OpenJDK 17) on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_fixtures(Path(tmp), javac=shutil.which("javac") or "javac")
        for rtt_ms in args.rtt_ms or [10.0, 50.0]:
            trio.run(run, classes, rtt_ms)
        print("loopback, no injected delay")
        trio.run(loopback, classes)
        print("hostile containers, loopback (bench/hostile_containers.py; pages of 100)")
        trio.run(big_maps, classes)


async def big_maps(classes: Path) -> None:
    """(m) a page of 100 at offsets 0 and 900,000 (then 900,100, the walk kept) of a 1,000,000-entry
    ``HashMap`` and ``ConcurrentHashMap``, straight on loopback (this proxy would cost more than the VM): the
    client's writes (at least the round trips), commands, calls (a deep page is asked again after its 10 s
    budget) and the wall time."""
    import hostile_containers

    rows, health = await hostile_containers.measure(classes, hostile_containers.PAGES[:6], ())
    for row in rows:
        print(f"  (m) {row.label:<58} {row.writes:>5} writes  {row.commands:>7} commands  {row.calls:>2} calls  "
              f"{row.ms:9.0f} ms")
    print(f"  app alive: {health.process_alive}, hs_err: {health.hs_err}, session alive: {health.session_alive}")


if __name__ == "__main__":
    main()

"""Breakpoint hit → stop visible to the client, and resume → next stop in a hot loop, three ways.

    python bench/latency.py              # 200 cycles per way and series
    python bench/latency.py --cycles 500

Clocks: a JVM's own timestamp cannot be compared with ours, so the hit is timed where it first reaches
the debugger's side. A loopback proxy in this process relays the JDWP connection between the debugger
and the JVM (``com.example.debuggee.Hot``) and notes ``time.perf_counter()`` just before it forwards each
``Event.Composite`` (64,100) packet. The debugger is one of:

- ``library``: ``jdwp.debugger`` in this process; visible = ``debugger.events.receive()`` returns ``Stopped``;
- ``mcp in-memory``: pyjdwp's server in this process behind the SDK's in-memory ``Client(server)``;
- ``mcp stdio``: ``pyjdwp-mcp`` as a subprocess behind the SDK's stdio client;

for the MCP ways, visible = ``wait_for_debugger_event`` returns the ``stopped`` event. Both ends of each
interval are read from the same clock in this process.

Series, each over ``--cycles`` stop/resume cycles on the breakpoint at the line marked ``hot``:

- *hit → visible*: the program parks 20 ms after each pass, so the next hit comes well after the wait
  was issued; the interval runs from the composite's forwarding to the wait returning. It includes the
  engine's work on the stop (one round trip to the VM for the thread's name and the location) and, for
  MCP, the envelope and the transport. Cycles where the wait was not yet sent when the event came are
  counted and left out.
- *resume → next stop*: the program does not park; the interval runs from the resume call to the next
  stop being visible — a whole cycle as a client sees it.

Goal (issue 6): hit → visible ≤ 5 ms median on loopback. Prints medians, p90 and max; asserts nothing.
"""

from __future__ import annotations

import argparse
import struct
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import trio
from common import Table, free_port, java_tools, server_command
from mcp import Client, StdioServerParameters

import jdwp
from jdwp.debugger import Debugger, Stopped, open_debugger
from jdwp.recording_proxy import open_listener, read_packets
from pyjdwp_server import Config, build_server
from support.jvm import LISTENING, Debuggee, compile_fixtures, find_mark
from support.net import HANDSHAKE

CLASS = "com.example.debuggee.Hot"
HEADER = struct.Struct(">IIBBB")  # length, id, flags, command set, command (for commands)
COMPOSITE = (64, 100)
REPLY_FLAG = 0x80
PARKED_MICROS = 20_000
STEP_TIMEOUT = 30.0


class StampProxy:
    """Relays one JDWP connection at a time; notes when each VM→debugger Event.Composite is forwarded."""

    def __init__(self, vm_port: int) -> None:
        self.vm_port = vm_port
        self.composites: list[float] = []

    async def serve(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listener = await open_listener()
        task_status.started(listener.socket.getsockname()[1])
        async with listener:
            while True:
                debugger = await listener.accept()
                vm = await trio.open_tcp_stream("127.0.0.1", self.vm_port)
                async with debugger, vm, trio.open_nursery() as nursery:
                    nursery.start_soon(self._upstream, debugger, vm, nursery.cancel_scope)
                    nursery.start_soon(self._downstream, vm, debugger, nursery.cancel_scope)

    async def _upstream(self, source: trio.abc.Stream, sink: trio.abc.Stream, scope: trio.CancelScope) -> None:
        try:
            while data := await source.receive_some(65536):
                await sink.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        scope.cancel()

    async def _downstream(self, source: trio.abc.Stream, sink: trio.abc.Stream, scope: trio.CancelScope) -> None:
        try:
            async for packet in read_packets(source):
                if packet != HANDSHAKE:
                    _, _, flags, command_set, command = HEADER.unpack_from(packet)
                    if not flags & REPLY_FLAG and (command_set, command) == COMPOSITE:
                        self.composites.append(time.perf_counter())
                await sink.send_all(packet)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        scope.cancel()


class Series:
    """One series of one way: intervals in seconds, and how many cycles were left out."""

    def __init__(self) -> None:
        self.values: list[float] = []
        self.skipped = 0


# --- the three ways: each yields "resume, then wait for the next stop" as a coroutine function ---------

Cycle = Callable[[], Awaitable[tuple[float, float]]]  # -> (wait issued at, stop visible at)


@asynccontextmanager
async def library_way(port: int, line: int) -> AsyncIterator[Cycle]:
    async with jdwp.open_jdwp_tcp("127.0.0.1", port) as vm, open_debugger(vm) as debugger:
        await debugger.set_breakpoint(CLASS, line)
        stop = (await next_library_stop(debugger)).stop

        async def cycle() -> tuple[float, float]:
            nonlocal stop
            await debugger.resume(stop.stop_id)
            issued = time.perf_counter()
            stop = (await next_library_stop(debugger)).stop
            return issued, time.perf_counter()

        yield cycle


async def next_library_stop(debugger: Debugger) -> Stopped:
    with trio.fail_after(STEP_TIMEOUT):
        while True:
            event = await debugger.events.receive()
            if isinstance(event, Stopped):
                return event


async def tool(client: Client, name: str, **arguments: Any) -> dict[str, Any]:
    body: dict[str, Any] = (await client.call_tool(name, arguments)).structured_content or {}
    if not body.get("success"):
        raise RuntimeError(f"{name}: {body.get('error')}")
    return body


@asynccontextmanager
async def mcp_way(client: Client, port: int, line: int) -> AsyncIterator[Cycle]:
    session = (await tool(client, "attach_debugger", platform="jvm", address=f"127.0.0.1:{port}"))["debug_session_id"]
    try:
        await tool(client, "set_debugger_breakpoint", debugSessionId=session, className=CLASS, line=line)
        cursor = 0

        async def next_stop() -> dict[str, Any]:
            nonlocal cursor
            for _ in range(100):
                polled = await tool(client, "wait_for_debugger_event", debugSessionId=session,
                                    afterSequence=cursor, timeoutMs=5000)
                cursor = polled["next_cursor"]
                stop = next((e["stop"] for e in polled["events"] if e["kind"] == "stopped"), None)
                if stop is not None:
                    return stop
            raise RuntimeError("no stop in 100 polls")

        stop = await next_stop()

        async def cycle() -> tuple[float, float]:
            nonlocal stop
            await tool(client, "resume_debugger", debugSessionId=session, stopId=stop["stop_id"])
            issued = time.perf_counter()
            stop = await next_stop()
            return issued, time.perf_counter()

        yield cycle
    finally:
        await tool(client, "detach_debugger", debugSessionId=session)


@asynccontextmanager
async def open_way(way: str, port: int, line: int) -> AsyncIterator[Cycle]:
    async with AsyncExitStack() as stack:
        if way == "library":
            yield await stack.enter_async_context(library_way(port, line))
            return
        if way == "mcp in-memory":
            client = await stack.enter_async_context(Client(build_server(Config())))
        else:
            params = StdioServerParameters(command=server_command(), args=["--log-level", "warning"])
            client = await stack.enter_async_context(Client(params))
        yield await stack.enter_async_context(mcp_way(client, port, line))


WAYS = ("library", "mcp in-memory", "mcp stdio")


async def run_series(classes: Path, java: str, parked: bool, cycles: int) -> dict[str, Series]:
    """One JVM; each way in turn attaches through the proxy and runs ``cycles`` timed cycles.

    The agent listens on a fixed free port: after a debugger leaves, it listens there again.
    """
    line = find_mark("hot")[1]
    pause = PARKED_MICROS if parked else 0
    debuggee = await trio.to_thread.run_sync(
        lambda: Debuggee(classes, CLASS, port=free_port(), java=java, extra_args=(f"-Dhot.pause.micros={pause}",)))
    results = {way: Series() for way in WAYS}
    try:
        await trio.to_thread.run_sync(lambda: debuggee.wait_for_line("^ready$", timeout=30))
        proxy = StampProxy(debuggee.port)
        async with trio.open_nursery() as nursery:
            port = await nursery.start(proxy.serve)
            for way in WAYS:
                series = results[way]
                mark = len(debuggee.lines)
                async with open_way(way, port, line) as cycle:
                    for number in range(cycles + 5):  # the first five warm up
                        seen = len(proxy.composites)
                        started = time.perf_counter()
                        with trio.fail_after(STEP_TIMEOUT):
                            issued, visible = await cycle()
                        if number < 5:
                            continue
                        if not parked:
                            series.values.append(visible - started)
                        elif len(proxy.composites) <= seen or proxy.composites[seen] < issued:
                            series.skipped += 1  # the event came before the wait was issued
                        else:
                            series.values.append(visible - proxy.composites[seen])
                await trio.to_thread.run_sync(lambda m=mark: debuggee.wait_for_line(LISTENING, after=m, timeout=30))
            nursery.cancel_scope.cancel()
        await trio.to_thread.run_sync(debuggee.wait_for_more_heartbeats)
    finally:
        await trio.to_thread.run_sync(debuggee.stop)
    return results


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def table(title: str, results: dict[str, Series], notes: list[str]) -> Table:
    rows = []
    for way, series in results.items():
        values = series.values
        if not values:
            rows.append([way, "—", "—", "—", "0", str(series.skipped)])
            continue
        rows.append([way, f"{percentile(values, 0.5) * 1000:.2f}", f"{percentile(values, 0.9) * 1000:.2f}",
                     f"{max(values) * 1000:.2f}", str(len(values)), str(series.skipped)])
    return Table(title, ["way", "median ms", "p90 ms", "max ms", "cycles", "left out"], rows, notes)


def measure(cycles: int) -> list[Table]:
    java, javac, _ = java_tools()
    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_fixtures(Path(tmp), javac=javac)
        hit = anyio.run(run_series, classes, java, True, cycles, backend="trio")
        loop = anyio.run(run_series, classes, java, False, cycles, backend="trio")
    return [
        table("Breakpoint hit → stop visible (goal ≤ 5 ms median)", hit, [
            "From a proxy in the bench process forwarding the JDWP Event.Composite to the debugger, to the "
            "library's `events.receive()` / the MCP client's `wait_for_debugger_event` returning the stop; "
            "the wait is already pending (the program parks 20 ms between hits). `left out`: cycles where "
            "the event came before the wait was sent."]),
        table("Resume → next stop visible, hot loop (no park between hits)", loop, [
            "From the resume call (library `resume()`, MCP `resume_debugger`) to the next stop as above: one "
            "whole stop/resume cycle as the client sees it."]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=200, help="timed cycles per way and series (default 200)")
    args = parser.parse_args()
    if not 1 <= args.cycles <= 100_000:
        sys.exit("--cycles must be between 1 and 100000")
    for result in measure(args.cycles):
        print(result.text(), end="\n\n")


if __name__ == "__main__":
    main()

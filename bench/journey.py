"""The journey attach → breakpoint → stop → stack → locals → resume → detach against one JVM, timed four ways.

    python bench/journey.py              # 10 rounds after one warm-up round
    python bench/journey.py --rounds 30

One JVM runs ``com.example.debuggee.Hot`` (a loop through the line marked ``hot`` that parks 1 ms after
each pass, so that it leaves the CPU to the debuggers while they start) with the JDWP agent on a fixed
free loopback port: after a debugger leaves, the agent listens again on the same port, and the next
journey attaches there. Each round runs every way once, in a rotated order:

- ``library``: pyjdwp in this process — ``jdwp.open_jdwp_tcp`` (with the engine's ``FIRST_REQUESTS``, as
  pyjdwp-mcp opens a JVM) and ``jdwp.debugger.open_debugger``.
- ``mcp warm``: the tool calls to one ``pyjdwp-mcp`` started over stdio (the MCP SDK's client) before the
  rounds began and kept for all of them.
- ``mcp cold``: the same, with a new ``pyjdwp-mcp`` per journey: its start (spawn, Python, imports, MCP
  initialisation) counts; its exit after the journey does not.
- ``mcp floor``: the journey's seven tool calls, each answered with a constant by the smallest server the
  MCP SDK makes (``bench/sdk_floor_server.py``, on pyjdwp-mcp's stdio streams), through the same client:
  what the calls cost before any debugging. ``mcp warm`` minus this is what pyjdwp-mcp adds (both serve
  ``tools/call`` through the SDK's own dispatcher).
- ``jdb``: the JDK's JDI client as a stand-in for a design with a JDI worker: ``jdb -attach`` driven over
  its stdin/stdout (``stop at``, wait for ``Breakpoint hit``, ``where``, ``locals``, ``cont``, ``exit``);
  its JVM start counts, and the journey ends when the jdb process has exited.

Every journey is checked (the stop is at the marked line; the locals include ``label`` and ``window``),
and after it the next one waits, untimed, until the agent prints that it listens again. At the end the
program must still print heartbeats. Prints medians per phase and the ratios to jdb (goals: issue 6,
library ≤ 1/10 of jdb and cold MCP ≤ 1/3; issue 10, warm MCP ≤ 1/9); asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import trio
from common import Table, free_port, java_env, java_tools, median_ms, ms, ratio, server_command
from mcp import Client, StdioServerParameters

import jdwp
from jdwp.debugger import FIRST_REQUESTS, Stopped, open_debugger
from support.jvm import LISTENING, Debuggee, compile_fixtures, find_mark

CLASS = "com.example.debuggee.Hot"
PHASES = ("server start", "attach", "breakpoint → stop", "stack", "locals", "resume", "detach", "tool calls")
WAYS = ("library", "mcp warm", "mcp cold", "mcp floor", "jdb")
#: The journey's tool calls: attach, set breakpoint, wait for the stop, stack, locals, resume, detach.
CALLS = 7
STEP_TIMEOUT = 30.0
PAUSE = "-Dhot.pause.micros=1000"


class JourneyError(RuntimeError):
    """A journey did not go as it must (a wrong stop, missing locals): the numbers would mean nothing."""


def expect(condition: object, message: str) -> None:
    if not condition:
        raise JourneyError(message)


class Phases:
    """Wall time per phase of one journey, from one running clock."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self._last = time.perf_counter()

    def mark(self, phase: str) -> None:
        now = time.perf_counter()
        self.times[phase] = self.times.get(phase, 0.0) + now - self._last
        self._last = now


# --- the library -----------------------------------------------------------------------------------

async def library_journey(port: int, line: int) -> dict[str, float]:
    phases = Phases()
    async with AsyncExitStack() as stack:
        vm = await stack.enter_async_context(jdwp.open_jdwp_tcp("127.0.0.1", port, first_requests=FIRST_REQUESTS))
        debugger = await stack.enter_async_context(open_debugger(vm))
        phases.mark("attach")
        bp = await debugger.set_breakpoint(CLASS, line)
        expect(bp.status == "verified", f"breakpoint {bp.status}")
        event = await debugger.events.receive()
        while not isinstance(event, Stopped):
            event = await debugger.events.receive()
        stop = event.stop
        expect(stop.location.line == line, f"stopped at {stop.location}")
        phases.mark("breakpoint → stop")
        page = await debugger.stack(stop.stop_id, stop.thread_id)
        expect(page.frames[0].method == "spin", f"top frame {page.frames[0]}")
        phases.mark("stack")
        found = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
        expect({"label", "window"} <= {local.name for local in found.locals}, f"locals {found.locals}")
        phases.mark("locals")
        await debugger.resume(stop.stop_id)
        phases.mark("resume")
        cleanup = await debugger.detach()
        expect(cleanup.status == "complete", f"cleanup {cleanup}")
    phases.mark("detach")
    return phases.times


# --- the MCP server over stdio -----------------------------------------------------------------------

def server_params() -> StdioServerParameters:
    # The SDK starts a server with a sanitised environment; without PYTHONPATH the console script would
    # import the installed package, not the checkout under test (`PYTHONPATH=$PWD/src python bench/…`).
    path = os.environ.get("PYTHONPATH")
    return StdioServerParameters(command=server_command(), args=["--log-level", "warning"],
                                 env={"PYTHONPATH": path} if path else None)


async def tool(client: Client, name: str, **arguments: Any) -> dict[str, Any]:
    body: dict[str, Any] = (await client.call_tool(name, arguments)).structured_content or {}
    expect(body.get("success"), f"{name}: {body.get('error')}")
    return body


async def mcp_journey(client: Client, port: int, line: int, phases: Phases) -> dict[str, float]:
    attached = await tool(client, "attach_debugger", platform="jvm", address=f"127.0.0.1:{port}")
    session = attached["debug_session_id"]
    phases.mark("attach")
    bp = (await tool(client, "set_debugger_breakpoint", debugSessionId=session, className=CLASS,
                     line=line))["result"]
    expect(bp["status"] == "verified", f"breakpoint {bp['status']}")
    cursor, stop = 0, None
    for _ in range(100):
        polled = await tool(client, "wait_for_debugger_event", debugSessionId=session, afterSequence=cursor,
                            timeoutMs=5000)
        cursor = polled["next_cursor"]
        stop = next((e["stop"] for e in polled["events"] if e["kind"] == "stopped"), None)
        if stop is not None:
            break
    expect(stop is not None and stop["location"]["line"] == line, f"stop {stop}")
    assert stop is not None
    phases.mark("breakpoint → stop")
    frames = (await tool(client, "get_debugger_stack", debugSessionId=session, stopId=stop["stop_id"],
                         threadId=stop["thread_id"]))["result"]["frames"]
    expect(frames[0]["method"] == "spin", f"top frame {frames[0]}")
    phases.mark("stack")
    found = (await tool(client, "get_debugger_locals", debugSessionId=session, stopId=stop["stop_id"],
                        frameId=frames[0]["frame_id"]))["result"]
    expect({"label", "window"} <= {local["name"] for local in found["locals"]}, f"locals {found}")
    phases.mark("locals")
    await tool(client, "resume_debugger", debugSessionId=session, stopId=stop["stop_id"])
    phases.mark("resume")
    detached = await tool(client, "detach_debugger", debugSessionId=session)
    expect(detached["cleanup"]["status"] == "complete", f"cleanup {detached['cleanup']}")
    phases.mark("detach")
    return phases.times


async def mcp_cold_journey(port: int, line: int) -> dict[str, float]:
    phases = Phases()
    async with Client(server_params()) as client:  # spawns pyjdwp-mcp and initialises the session
        phases.mark("server start")
        times = await mcp_journey(client, port, line, phases)
    return times  # the server's exit (stdin closed, then waited for) is not counted


def floor_params() -> StdioServerParameters:
    floor = Path(__file__).with_name("sdk_floor_server.py")
    return StdioServerParameters(command=sys.executable, args=[str(floor)])


async def mcp_floor_journey(client: Client) -> dict[str, float]:
    phases = Phases()
    for _ in range(CALLS):
        await tool(client, "constant")
    phases.mark("tool calls")
    return phases.times


# --- jdb -------------------------------------------------------------------------------------------

class Jdb:
    """``jdb -attach`` as a subprocess, driven line by line over its stdin and stdout."""

    def __init__(self, process: trio.Process) -> None:
        self.process = process
        self.buffer = b""
        self.transcript = b""

    async def until(self, pattern: bytes) -> bytes:
        """Read until ``pattern`` (a regular expression) matches; return what came up to the match's end."""
        assert self.process.stdout is not None
        regex = re.compile(pattern, re.DOTALL)
        with trio.fail_after(STEP_TIMEOUT):
            while (match := regex.search(self.buffer)) is None:
                chunk = await self.process.stdout.receive_some(65536)
                if not chunk:
                    raise JourneyError(f"jdb ended before {pattern!r}: {self.transcript[-800:]!r}")
                self.buffer += chunk
                self.transcript += chunk
        out, self.buffer = self.buffer[: match.end()], self.buffer[match.end():]
        return out

    async def send(self, command: str) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send_all(command.encode() + b"\n")


async def jdb_journey(jdb_path: str, port: int, line: int) -> dict[str, float]:
    phases = Phases()
    process = await trio.lowlevel.open_process([jdb_path, "-attach", f"127.0.0.1:{port}"], stdin=subprocess.PIPE,
                                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=java_env())
    try:
        jdb = Jdb(process)
        await jdb.until(rb"> ")  # "Initializing jdb ..." then the prompt: JVM started, attached
        phases.mark("attach")
        await jdb.send(f"stop at {CLASS}:{line}")
        # jdb's event thread and command thread both print: "Set breakpoint …" may come inside the hit's text
        hit = await jdb.until(rb"Breakpoint hit:.*?line=\d+ bci=\d+.*?main\[1\] ")
        expect(f"line={line} ".encode() in hit, f"jdb stopped elsewhere: {hit!r}")
        phases.mark("breakpoint → stop")
        await jdb.send("where")
        await jdb.until(rb"\[1\] com\.example\.debuggee\.Hot\.spin .*?main\[1\] ")  # the top frame, then the prompt
        phases.mark("stack")
        await jdb.send("locals")
        found = await jdb.until(rb"Local variables:.*?main\[1\] ")
        expect(b"label = " in found and b"window = " in found, f"jdb locals: {found!r}")
        phases.mark("locals")
        await jdb.send("cont")
        await jdb.until(rb"> ")
        phases.mark("resume")
        await jdb.send("exit")  # jdb disposes the VM connection (the VM drops its requests, resumes) and exits
        with trio.fail_after(STEP_TIMEOUT):
            await process.wait()
        phases.mark("detach")
        expect(process.returncode == 0, f"jdb exit status {process.returncode}: {jdb.transcript[-800:]!r}")
        return phases.times
    finally:
        if process.returncode is None:
            process.kill()
        with trio.move_on_after(5):
            await process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                await trio.aclose_forcefully(pipe)


# --- after jdb: is the JVM still sound? ------------------------------------------------------------

PROBE_WAIT = 3.0


async def jvm_still_stops(port: int, line: int) -> bool:
    """An untimed session after each jdb journey: does a breakpoint on the hot line still stop?

    Seen here about once in fifty jdb journeys (OpenJDK 17): after jdb's ``exit``, the next debugger's
    breakpoint suspends every thread of the JVM, but its event is never sent (nothing in the socket's
    queues); that debugger waits for ever. Never seen after the other ways (0 in 120 pairs). A JVM in that
    state is replaced before the next journey, so that no way is timed against it.
    """
    async with AsyncExitStack() as stack:
        vm = await stack.enter_async_context(jdwp.open_jdwp_tcp("127.0.0.1", port))
        debugger = await stack.enter_async_context(open_debugger(vm))
        await debugger.set_breakpoint(CLASS, line)
        with trio.move_on_after(PROBE_WAIT):
            while not isinstance(await debugger.events.receive(), Stopped):
                pass
            return True
    return False


# --- the run ---------------------------------------------------------------------------------------

async def run(classes: Path, rounds: int, jdb_path: str, java: str, replaced: list[int],
              ) -> dict[str, list[dict[str, float]]]:
    """Warm-up round, then ``rounds`` rounds of every way; the phase times of each timed journey. ``replaced``
    gets the rounds after whose jdb journey the JVM no longer stopped and was replaced."""
    line = find_mark("hot")[1]
    port = free_port()
    async def start_jvm() -> Debuggee:
        jvm = await trio.to_thread.run_sync(
            lambda: Debuggee(classes, CLASS, port=port, java=java, extra_args=(PAUSE,)))
        await trio.to_thread.run_sync(lambda: jvm.wait_for_line("^ready$", timeout=30))
        return jvm

    debuggee = await start_jvm()
    results: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
    try:
        async with Client(server_params()) as warm_client, Client(floor_params()) as floor_client:
            journeys: dict[str, Callable[[], Awaitable[dict[str, float]]]] = {
                "library": lambda: library_journey(port, line),
                "mcp warm": lambda: mcp_journey(warm_client, port, line, Phases()),
                "mcp cold": lambda: mcp_cold_journey(port, line),
                "mcp floor": lambda: mcp_floor_journey(floor_client),
                "jdb": lambda: jdb_journey(jdb_path, port, line),
            }
            for round_number in range(rounds + 1):  # round 0 warms up and is not counted
                shift = round_number % len(WAYS)
                for way in WAYS[shift:] + WAYS[:shift]:
                    mark = len(debuggee.lines)
                    with trio.fail_after(STEP_TIMEOUT * 2):
                        times = await journeys[way]()
                    if round_number:
                        results[way].append(times)
                    if way == "mcp floor":
                        continue  # it never connected to the JVM
                    # the agent listens again once the debugger's connection is gone: the next may attach
                    await trio.to_thread.run_sync(lambda m=mark, jvm=debuggee: jvm.wait_for_line(LISTENING, after=m,
                                                                                             timeout=30))
                    if way == "jdb":
                        mark = len(debuggee.lines)
                        if await jvm_still_stops(port, line):
                            await trio.to_thread.run_sync(lambda m=mark, jvm=debuggee: jvm.wait_for_line(
                                LISTENING, after=m, timeout=30))
                        else:
                            replaced.append(round_number)
                            await trio.to_thread.run_sync(debuggee.stop)
                            debuggee = await start_jvm()
        await trio.to_thread.run_sync(debuggee.wait_for_more_heartbeats)  # the program runs on without us
    finally:
        await trio.to_thread.run_sync(debuggee.stop)
    return results


def tables(results: dict[str, list[dict[str, float]]], rounds: int, replaced: int) -> list[Table]:
    def median_of(way: str, phase: str | None) -> float:
        values = [sum(t.values()) if phase is None else t.get(phase, 0.0) for t in results[way]]
        return median_ms(values) / 1000

    rows = []
    for phase in PHASES:
        if all(phase not in t for way in WAYS for t in results[way]):
            continue
        rows.append([phase, *(ms(median_of(way, phase)) if any(phase in t for t in results[way]) else "—"
                              for way in WAYS)])
    totals = {way: median_of(way, None) for way in WAYS}
    rows.append(["total (median of totals)", *(ms(totals[way]) for way in WAYS)])
    phase_table = Table(f"Journey, median ms per phase ({rounds} rounds, ways alternated)", ["phase", *WAYS], rows,
                        notes=["jdb's `attach` includes starting its JVM; its `detach` is `exit` until the "
                               "process has ended. `mcp cold` includes starting pyjdwp-mcp (`server start`).",
                               f"`mcp floor`: the journey's {CALLS} tool calls answered with a constant by the MCP "
                               "SDK's smallest server (bench/sdk_floor_server.py), through the same client.",
                               "A phase's median is over the rounds; the total is the median of each round's "
                               "total, so the phases need not add up to it.",
                               f"After each jdb journey an untimed session checks that the JVM still stops at a "
                               f"breakpoint; it did not, and the JVM was replaced, {replaced} time(s) in "
                               f"{rounds + 1} rounds (see `jvm_still_stops`)."])
    goals = {"library": 10, "mcp warm": 9, "mcp cold": 3}  # issue 6; issue 10 raised warm MCP's from 1/3
    ratio_rows = []
    for way, goal in goals.items():
        value = totals[way] / totals["jdb"]
        ratio_rows.append([f"{way} / jdb", ratio(totals[way], totals["jdb"]), f"≤ 1/{goal}",
                           "met" if value <= 1 / goal else "not met"])
    above_floor = totals["mcp warm"] - totals["mcp floor"]
    ratio_rows.append(["(mcp warm − mcp floor) / jdb", ratio(above_floor, totals["jdb"]), "—", "—"])
    ratio_table = Table("Journey, ratio of median totals to jdb", ["ratio", "measured", "goal", "goal met"],
                        ratio_rows, notes=["`mcp warm − mcp floor`: what pyjdwp-mcp adds to the tool calls' own cost "
                                           "(compare with `library`)."])
    return [phase_table, ratio_table]


def measure(rounds: int) -> list[Table]:
    java, javac, jdb_path = java_tools()
    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_fixtures(Path(tmp), javac=javac)
        replaced: list[int] = []
        results = anyio.run(run, classes, rounds, jdb_path, java, replaced, backend="trio")
    return tables(results, rounds, len(replaced))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10, help="timed rounds (default 10)")
    args = parser.parse_args()
    if not 1 <= args.rounds <= 1000:
        sys.exit("--rounds must be between 1 and 1000")
    for table in measure(args.rounds):
        print(table.text(), end="\n\n")


if __name__ == "__main__":
    main()

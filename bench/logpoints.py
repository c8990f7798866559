"""What a false condition and a logpoint cost the thread that hits them, side by side with a stop through MCP.

    python bench/logpoints.py                 # 2000 hits per series
    python bench/logpoints.py --hits 500

The debuggee (``com.example.debuggee.Loops``, command ``timed N [PAUSE_MS]``) calls the marked line's method
N times and times each call with ``System.nanoTime()``: the per-hit pause is measured by the hitting thread
itself, so nothing of the debugger's own clock or scheduling is mixed in. The whole loop's time gives the
throughput. Series, one run, loopback, one JVM:

- *no breakpoint*: the loop alone (the throughput baseline);
- *false condition* (``i < 0``, library): the hit is judged (frame 0, its locals, the comparison) and the
  thread released (``ThreadReference.Resume``);
- *logpoint, storm*: a logpoint (``i={i}``) on a loop that runs flat out: past 100 a second hits are only
  counted (the rate limit), so this is mostly the cheap path;
- *logpoint, captured*: the same logpoint, the loop parking 15 ms after each call, so every hit is captured
  (message evaluated while the thread waits; its thread name and location read, and the event published,
  once it is released);
- *false condition, loop parks 15 ms*: the control for the row above: the same parking, nothing captured. A
  hit after an idle pause costs more on its own (the machine wakes the debugger, the VM and the thread from
  idle at each step), so the difference between these two rows is what capturing costs;
- *watchpoint logpoint* (``writes N``): a logging watchpoint on the static field ``Loops.last``, written once
  per call (``{new_value}``: the old value is read at each write, the new one comes with the event), over
  every write (up to 10,000 as ``--hits`` says), the loop flat out: the storm's rate limit applies as above;
- *stop + locals + resume via MCP*: a plain breakpoint, and a client of the in-memory MCP server doing what
  an agent would do to "log" a value: wait for the stop, read the stack and the locals, resume.

Prints median and p99 per hit, and the loop's throughput as a ratio to the baseline. Asserts nothing
(issue 13's goal: median ≤ 1 ms, p99 ≤ 5 ms for the first three).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import trio
from common import Table, free_port, java_tools, machine
from mcp import Client

import jdwp
from jdwp.debugger import Debugger, open_debugger
from pyjdwp_server import Config, build_server
from support.jvm import Debuggee, compile_fixtures, find_mark

CLASS = "com.example.debuggee.Loops"
LINE = find_mark("loops-step")[1]
TIMED = re.compile(r"^timed (\d+) median_ns (\d+) p99_ns (\d+) elapsed_ns (\d+)")
CAPTURED_PAUSE_MS = 15


async def timed(jvm: Debuggee, hits: int, pause_ms: int = 0, command: str = "timed") -> tuple[float, float, float]:
    """Run the loop; return the per-call median and p99 (ms) and the loop's elapsed time (s)."""
    mark = len(jvm.lines)
    jvm.send(f"{command} {hits} {pause_ms}")
    match = await trio.to_thread.run_sync(lambda: jvm.wait_for_line(TIMED, after=mark, timeout=600))
    median, p99, elapsed = (int(match.group(n)) for n in (2, 3, 4))
    return median / 1e6, p99 / 1e6, elapsed / 1e9


async def library_series(jvm: Debuggee, hits: int) -> dict[str, tuple[float, float, float]]:
    found = {}
    async with jdwp.open_jdwp_tcp("127.0.0.1", jvm.port) as vm, open_debugger(vm) as debugger:
        found["no breakpoint"] = await timed(jvm, hits)
        found["false condition (i < 0)"] = await with_breakpoint(debugger, jvm, hits, 0, condition="i < 0")
        found["logpoint, storm (rate-limited)"] = await with_breakpoint(
            debugger, jvm, hits, 0, action="log", log_message="i={i}", max_hits=10_000)
        captured = min(hits, 200)
        found[f"logpoint, captured (loop parks {CAPTURED_PAUSE_MS} ms)"] = await with_breakpoint(
            debugger, jvm, captured, CAPTURED_PAUSE_MS, action="log", log_message="i={i}", max_hits=10_000)
        found[f"false condition (loop parks {CAPTURED_PAUSE_MS} ms)"] = await with_breakpoint(
            debugger, jvm, captured, CAPTURED_PAUSE_MS, condition="i < 0")
        found["no watchpoint (writes)"] = await timed(jvm, hits, command="writes")
        found["watchpoint logpoint (writes, rate-limited)"] = await with_watchpoint(debugger, jvm, hits)
    return found


async def with_watchpoint(debugger: Debugger, jvm: Debuggee, hits: int) -> tuple[float, float, float]:
    """A logging watchpoint on ``Loops.last`` over ``hits`` writes; the app never stops (asserted: no stop)."""
    wp = await debugger.set_watchpoint(CLASS, "last", action="log", log_message="last={new_value}",
                                       max_hits=10_000)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(drain, debugger)
        result = await timed(jvm, hits, command="writes")
        nursery.cancel_scope.cancel()
    assert debugger.current_stop is None, "a logging watchpoint stopped the app"
    await debugger.remove_breakpoint(wp.breakpoint_id)
    return result


async def with_breakpoint(debugger: Debugger, jvm: Debuggee, hits: int, pause_ms: int, **options: Any,
                          ) -> tuple[float, float, float]:
    bp = await debugger.set_breakpoint(CLASS, LINE, **options)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(drain, debugger)  # events are the caller's to read; nobody waits for them here
        result = await timed(jvm, hits, pause_ms)
        nursery.cancel_scope.cancel()
    await debugger.remove_breakpoint(bp.breakpoint_id)
    return result


async def drain(debugger: Debugger) -> None:
    async for _ in debugger.events:
        pass


async def mcp_series(jvm: Debuggee, hits: int) -> tuple[float, float, float]:
    """A plain breakpoint; the client stops, reads stack and locals, resumes, ``hits`` times."""
    async with Client(build_server(Config())) as client:
        async def ok(name: str, **arguments: Any) -> dict[str, Any]:
            result = await client.call_tool(name, arguments)
            body = result.structured_content
            assert body is not None and body["success"], body
            return body

        sid = (await ok("attach_debugger", platform="jvm", address=f"127.0.0.1:{jvm.port}"))["debug_session_id"]
        await ok("set_debugger_breakpoint", debugSessionId=sid, className=CLASS, line=LINE)

        async def client_loop() -> None:
            cursor = 0
            while True:
                body = await ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor, timeoutMs=5000)
                cursor = body["next_cursor"]
                for event in body["events"]:
                    if event["kind"] != "stopped":
                        continue
                    stop = event["stop"]
                    ids = {"debugSessionId": sid, "stopId": stop["stop_id"]}
                    stack = await ok("get_debugger_stack", threadId=stop["thread_id"], limit=1, **ids)
                    await ok("get_debugger_locals", frameId=stack["result"]["frames"][0]["frame_id"], **ids)
                    await ok("resume_debugger", **ids)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(client_loop)
            result = await timed(jvm, hits)
            nursery.cancel_scope.cancel()
        await ok("detach_debugger", debugSessionId=sid)
    return result


async def run(hits: int, mcp_hits: int) -> Table:
    java, javac, _ = java_tools()
    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_fixtures(Path(tmp), javac=javac)
        jvm = Debuggee(classes, CLASS, port=free_port(), java=java)
        try:
            await trio.to_thread.run_sync(lambda: jvm.wait_for_line("^ready$", timeout=30))
            await timed(jvm, hits)  # warm the JIT before the baseline
            series = await library_series(jvm, hits)
            series["stop + stack + locals + resume via MCP"] = await mcp_series(jvm, mcp_hits)
        finally:
            jvm.stop()
    base_rate = hits / series["no breakpoint"][2]
    rows = []
    for name, (median, p99, elapsed) in series.items():
        paced = "parks" in name
        count = mcp_hits if "MCP" in name else min(hits, 200) if paced else hits
        rate = count / elapsed
        rows.append([name, f"{median:.3f}", f"{p99:.3f}", str(count),
                     "n/a (parks)" if paced else f"{rate:,.0f}", "n/a" if paced else f"1/{base_rate / rate:,.0f}"
                     if rate < base_rate else "1"])
    notes = [f"{label}: {value}" for label, value in machine()[:4]]
    notes.append("pause per hit = the hitting thread's own System.nanoTime() around the call with the breakpoint")
    return Table("Per-hit pause of the hitting thread (loopback)",
                 ["series", "median ms", "p99 ms", "hits", "loop iterations/s", "throughput vs none"], rows, notes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hits", type=int, default=2000, help="hits per series (at most 10000)")
    parser.add_argument("--mcp-hits", type=int, default=200, help="hits of the MCP series")
    args = parser.parse_args()
    if not 1 <= args.hits <= 10_000:
        sys.exit("--hits must be 1..10000 (a logpoint's maxHits)")
    table = trio.run(run, args.hits, args.mcp_hits)
    print(table.text())


if __name__ == "__main__":
    main()

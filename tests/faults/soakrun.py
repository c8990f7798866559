"""Stop/resume cycles through the MCP server on a hot-loop breakpoint, sampling what could leak.

Shared by ``tests/faults/test_soak.py`` (300 cycles) and ``bench/soak.py`` (10,000). The server runs in
this process behind the SDK's in-memory client; the breakpoint is ``Worker.step``'s marked line, which the
fixture's main loop reaches every few milliseconds, so every ``wait_for_debugger_event`` finds a stop and
every ``resume_debugger`` lets the next one come. A sample, taken between cycles (nothing in flight):
the process's RSS (``VmRSS``), open file descriptors (``/proc/self/fd``), living trio tasks, and the
session's event ring (``buffered``, from ``get_debugger_state``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio
from mcp import Client

from pyjdwp_server import Config, build_server
from support.jvm import find_mark

WORKER = "com.example.debuggee.Worker"


@dataclasses.dataclass(frozen=True)
class Sample:
    cycle: int
    seconds: float
    rss_kib: int
    fds: int
    tasks: int
    ring: int
    newest: int


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def ok(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    body = result.structured_content or {}
    if not body.get("success"):
        raise AssertionError(f"{tool} failed: {body.get('error') or result}")
    return body


async def soak(port: int, cycles: int, *, every: int = 100,
               on_sample: Callable[[Sample], None] | None = None) -> list[Sample]:
    """Attach to the JVM at ``port``, run ``cycles`` stop/resume cycles, detach; return the samples."""
    samples: list[Sample] = []
    async with Client(build_server(Config())) as client:
        sid = (await ok(client, "attach_debugger", platform="jvm", address=f"127.0.0.1:{port}"))["debug_session_id"]
        bp = await ok(client, "set_debugger_breakpoint", debugSessionId=sid, className=WORKER,
                      line=find_mark("step")[1])
        assert bp["result"]["status"] == "verified", bp
        start = trio.current_time()
        cursor = 0

        async def sample(cycle: int) -> None:
            state = (await ok(client, "get_debugger_state", debugSessionId=sid))["result"]["events"]
            taken = Sample(cycle, trio.current_time() - start, rss_kib(), open_fds(),
                           trio.lowlevel.current_statistics().tasks_living, state["buffered"], state["newest_sequence"])
            samples.append(taken)
            if on_sample is not None:
                on_sample(taken)

        for cycle in range(cycles + 1):
            if cycle % every == 0:
                await sample(cycle)
            if cycle == cycles:
                break
            stop = None
            while stop is None:
                polled = await ok(client, "wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor,
                                  timeoutMs=5000)
                cursor = polled["next_cursor"]
                stop = next((e["stop"] for e in polled["events"] if e["kind"] == "stopped"), None)
            await ok(client, "resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
        detached = await ok(client, "detach_debugger", debugSessionId=sid)
        assert detached["cleanup"]["status"] == "complete", detached
    return samples

"""pause_debugger and get_debugger_threads through the MCP tools against a real JVM (``Knots``: two threads
deadlocked on two monitors, one in ``Object.wait``, one in ``Thread.sleep``, a spinner and a heartbeat).

The journey: threads while running (statuses only), pause (a stop without a thread), pausing again (busy),
threads at the pause (thread IDs, frames, monitors, the deadlock as one cycle), stack, locals and a step of
a thread the listing found, resume; and a pause that the pause limit or detach releases.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from mcpkit import connect, heartbeats_continue, line_of

from server import Config
from support.jvm import Debuggee, debuggees
from support.live import require_tool

pytestmark = pytest.mark.live

KNOTS = "com.example.debuggee.Knots"


@pytest.fixture
def knots(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, KNOTS, java=require_tool("java"))


def named(threads: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in threads}


async def test_pause_threads_deadlock_step_and_resume(knots: Debuggee) -> None:
    with trio.fail_after(90):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(knots)
            running = (await mcp.ok("get_debugger_threads", debugSessionId=sid))["result"]
            threads = named(running["threads"])
            assert threads["waiter"] == {"name": "waiter", "status": "waiting", "suspended": False, "group": "main"}
            assert threads["sleeper"]["status"] == "sleeping" and threads["locker-a"]["status"] == "monitor"
            assert "deadlocks" not in running and "stopId" in running["note"]
            await mcp.fails("get_debugger_threads", "INVALID_ARGUMENT", debugSessionId=sid, stackDepth=3)

            paused = await mcp.ok("pause_debugger", debugSessionId=sid)
            stop = paused["result"]["stop"]
            assert paused["state"] == "paused" and stop["reason"] == "pause"
            assert stop["thread_id"] is None and stop["location"] is None and "get_debugger_threads" in stop["note"]
            busy = await mcp.fails("pause_debugger", "DEBUGGER_BUSY", debugSessionId=sid)
            assert stop["stop_id"] in busy["error"]["message"]
            event, cursor = await mcp.wait_for(sid, "stopped")
            assert event["stop"] == stop

            await mcp.fails("get_debugger_threads", "INVALID_ARGUMENT", debugSessionId=sid, stopId=stop["stop_id"],
                            stackDepth=51)
            listing = (await mcp.ok("get_debugger_threads", debugSessionId=sid, stopId=stop["stop_id"],
                                    stackDepth=2))["result"]
            threads = named(listing["threads"])
            a, b = threads["locker-a"], threads["locker-b"]
            assert a["waiting_for"]["runtime_type"] == f"{KNOTS}$LockB" and a["waiting_for"]["owner_name"] == "locker-b"
            assert [m["runtime_type"] for m in b["owned_monitors"]] == [f"{KNOTS}$LockB"]
            assert len(a["frames"]) == 2 and a["frames"][0]["method"] == "lock"
            [deadlock] = listing["deadlocks"]
            assert {link["thread_name"] for link in deadlock["threads"]} == {"locker-a", "locker-b"}
            assert {link["runtime_type"] for link in deadlock["threads"]} == {f"{KNOTS}$LockA", f"{KNOTS}$LockB"}

            spinner = threads["spinner"]["thread_id"]
            stack = (await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                                  threadId=spinner))["result"]
            spin = next(f for f in stack["frames"] if f["method"] == "spin")
            local_names = [v["name"] for v in (await mcp.ok("get_debugger_locals", debugSessionId=sid,
                                                            stopId=stop["stop_id"],
                                                            frameId=spin["frame_id"]))["result"]["locals"]]
            assert "total" in local_names
            sleeper_top = threads["sleeper"]["frames"][0]["frame_id"]
            await mcp.ok("get_debugger_locals", debugSessionId=sid, stopId=stop["stop_id"], frameId=sleeper_top)

            await mcp.ok("step_debugger", debugSessionId=sid, stopId=stop["stop_id"], threadId=spinner, kind="over")
            await mcp.fails("get_debugger_threads", "DEBUGGER_STALE_REFERENCE", debugSessionId=sid,
                            stopId=stop["stop_id"])
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            stepped = event["stop"]
            assert stepped["reason"] == "step" and stepped["thread_name"] == "spinner", stepped
            assert stepped["location"]["line"] in {line_of("knots-turn"), line_of("knots-after"),
                                                   line_of("knots-inner")}
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stepped["stop_id"])
            await heartbeats_continue(knots)
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)
            assert detached["cleanup"]["execution_state"] == "running"


async def test_a_pause_left_alone_ends_at_the_pause_limit(knots: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect(Config(pause_limit_s=1.0)) as mcp:
            sid = await mcp.attach_jvm(knots)
            await mcp.ok("pause_debugger", debugSessionId=sid)
            event, _ = await mcp.wait_for(sid, "terminated")
            assert event["reason"] == "pause_limit"
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["cleanup"]["execution_state"] == "running", state["cleanup"]
            await heartbeats_continue(knots)


async def test_detach_while_paused_leaves_the_jvm_running(knots: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(knots)
            await mcp.ok("pause_debugger", debugSessionId=sid)
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)
            assert detached["cleanup"]["status"] == "complete"
            assert detached["cleanup"]["execution_state"] == "running"
            await mcp.fails("pause_debugger", "DEBUGGER_DISCONNECTED", debugSessionId=sid)
            await heartbeats_continue(knots)

"""A logpoint journey with ``platform: "android"`` through the adb testbed (a real adb server and adbd, a JVM
registered on @jdwp-control as an app process): docs/design.md §3.5 over ``jdwp:<pid>``.

The app (``Heartbeat``, tests/adb/java) calls ``beat(n)`` every 50 ms. A logpoint there with ``maxHits`` 5
yields five ``logpoint`` events with increasing ``n`` and then ``breakpoint_spent``; the session never
pauses; a conditional breakpoint then stops once where its condition holds; detach leaves the app running.
"""

from __future__ import annotations

import pytest
import trio
from mcpkit import connect, heartbeat_line

from adb.testbed import Apps, Testbed

pytestmark = pytest.mark.live


async def test_android_logpoint_journey(testbed: Testbed, apps: Apps) -> None:
    app_id = "com.example.server.logpoints"
    testbed.install_package(app_id, 10250)
    app = await apps.start(app_id)
    line = heartbeat_line()
    with trio.fail_after(90):
        async with connect(adb=testbed.client()) as mcp:
            target = {"platform": "android", "deviceId": testbed.serial, "appId": app_id}
            sid = (await mcp.ok("attach_debugger", **target))["debug_session_id"]
            bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className="Heartbeat", line=line,
                              action="log", logMessage="n={n}", maxHits=5)
            assert bp["result"]["status"] == "verified" and bp["result"]["max_hits"] == 5
            spent, cursor = await mcp.wait_for(sid, "breakpoint_spent", timeout_ms=5000)
            page = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=0, timeoutMs=100)
            logged = [e for e in page["events"] if e["kind"] == "logpoint"]
            assert not [e for e in page["events"] if e["kind"] == "stopped"]
            assert len(logged) == 5 and spent["breakpoint"]["status"] == "spent"
            numbers = [int(str(e["message"]).removeprefix("n=")) for e in logged]
            assert numbers == list(range(numbers[0], numbers[0] + 5))
            assert {e["thread_name"] for e in logged} == {"main"}
            assert all("location" not in e for e in logged)  # at its breakpoint's own locations: they say where
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["state"] == "running" and state["result"]["breakpoints"][0]["hits"] == 5

            wanted = numbers[-1] + 4
            cond = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className="Heartbeat", line=line,
                                condition=f"n == {wanted}")
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            stop = event["stop"]
            assert stop["breakpoint_ids"] == [cond["result"]["breakpoint_id"]] and "condition_error" not in stop
            stack = await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                                 threadId=stop["thread_id"], limit=1)
            found = await mcp.ok("get_debugger_locals", debugSessionId=sid, stopId=stop["stop_id"],
                                 frameId=stack["result"]["frames"][0]["frame_id"])
            assert found["result"]["locals"][0]["value"] == str(wanted)
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)  # while paused on the condition
            assert detached["cleanup"]["status"] == "complete"
            assert detached["cleanup"]["execution_state"] == "running"
    assert app.procs[0].poll() is None, "the app must keep running"

"""step_debugger ``over`` from a native top frame through the MCP tools (issue 23 item 10, docs/design.md §3.4): after
a pause, the fixture program's heartbeat thread sleeps in ``Thread.sleep`` (native). The step could never
finish there; the answer says at once that it stepped out instead (``stepped: "out"``, a note), and the stop
comes in the caller, ``Main.heartbeat``.
"""

from __future__ import annotations

import pytest
import trio
from mcpkit import connect

from support.jvm import Debuggee
from support.listings import listed_thread

pytestmark = pytest.mark.live


async def test_a_step_over_from_thread_sleep_steps_out_and_says_so(debuggee: Debuggee) -> None:
    with trio.fail_after(90):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(debuggee)
            cursor = 0
            for _ in range(50):  # the heartbeat sleeps most of the time; a pause may catch it printing
                stop = (await mcp.ok("pause_debugger", debugSessionId=sid))["result"]["stop"]
                _, cursor = await mcp.wait_for(sid, "stopped", cursor)
                listing = (await mcp.ok("get_debugger_threads", debugSessionId=sid, stopId=stop["stop_id"],
                                        stackDepth=1))["result"]
                beat = listed_thread(listing["threads"], "heartbeat")  # alone, or folded with another sleeper
                assert beat is not None, listing
                top = beat["frames"][0] if beat.get("frames") else ""
                if top == "java.lang.Thread.sleep(Native Method)":
                    break
                await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            else:
                pytest.fail("the heartbeat thread was never caught in Thread.sleep")
            answer = await mcp.ok("step_debugger", debugSessionId=sid, stopId=stop["stop_id"],
                                  threadId=beat["thread_id"], kind="over")
            assert answer["result"]["stepped"] == "out" and "native" in answer["result"]["note"]
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            landed = event["stop"]
            assert landed["reason"] == "step" and landed["thread_name"] == "heartbeat"
            assert (landed["location"]["class_name"], landed["location"]["method"]) == (
                "com.example.debuggee.Main", "heartbeat")
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=landed["stop_id"])
            await mcp.ok("detach_debugger", debugSessionId=sid)

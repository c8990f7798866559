"""``attach_debugger {breakpoints, wait}``: attach, arm and the first stop with its capture in one call, against real
OpenJDK 17 debuggees (docs/tools.md, "Breakpoints and the first stop at attach"): a JVM waiting with
``suspend=y`` (the start is resumed for the wait), a running one whose breakpoint is not hit in time (the session
and its breakpoints go on, ``timed_out``), and bad items: refused by index before anything is attached, or by the
engine after the attach, which is then undone (the same JVM attaches again at once).
"""

from __future__ import annotations

import pytest
import trio
from mcpkit import WORKER, agent_address, attached, connect, heartbeats_continue, line_of

from support.jvm import Debuggee

pytestmark = pytest.mark.live


async def test_attach_arms_and_answers_the_first_stop_of_a_suspended_start(suspended_debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect() as mcp:
            address = f"127.0.0.1:{suspended_debuggee.port}"
            step = {"className": WORKER, "line": line_of("step"), "capture": {"locals": True}}
            attached = await mcp.ok("attach_debugger", platform="jvm", address=address, wait=True,
                                    breakpoints=[step, {"file": "Nowhere.kt", "line": 3}])
            result = attached["result"]
            sid = attached["debug_session_id"]
            first, pending = result["breakpoints"]
            assert first["status"] == "pending" and pending["status"] == "pending"  # Worker had not loaded yet
            stop = result["stop"]
            assert stop["breakpoint_ids"] == [first["breakpoint_id"]] and attached["state"] == "paused"
            assert stop["capture"]["locals"]["locals"], stop["capture"]
            assert "timed_out" not in result
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["result"]["stop"]["stop_id"] == stop["stop_id"]
            await mcp.ok("detach_debugger", debugSessionId=sid)
        await heartbeats_continue(suspended_debuggee)


async def test_attach_wait_times_out_keeping_the_session(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect() as mcp:
            address = await agent_address(debuggee)
            answer = await mcp.ok("attach_debugger", platform="jvm", address=address, wait=True, timeoutMs=1000,
                                  breakpoints=[{"file": "Nowhere.kt", "line": 3}])
            attached(debuggee)
            result = answer["result"]
            assert result["timed_out"] is True and "stop" not in result
            assert answer["state"] == "running"
            sid = answer["debug_session_id"]
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert [b["breakpoint_id"] for b in state["result"]["breakpoints"]] == [
                result["breakpoints"][0]["breakpoint_id"]]
            await mcp.ok("detach_debugger", debugSessionId=sid)
        await heartbeats_continue(debuggee)


async def test_a_bad_breakpoint_item_leaves_nothing_attached(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect() as mcp:
            address = await agent_address(debuggee)
            step = {"className": WORKER, "line": line_of("step")}
            shape = await mcp.fails("attach_debugger", "INVALID_ARGUMENT", platform="jvm", address=address,
                                    breakpoints=[step, {"className": WORKER}])
            assert "breakpoints[1]" in shape["error"]["message"] and "line is required" in shape["error"]["message"]
            own = await mcp.fails("attach_debugger", "INVALID_ARGUMENT", platform="jvm", address=address,
                                  breakpoints=[{**step, "debugSessionId": "dbg-1"}])
            assert "breakpoints[0]: debugSessionId" in own["error"]["message"]
            # The engine's rules that need no session (a condition's syntax) are asked before anything connects.
            engine = await mcp.fails("attach_debugger", "INVALID_ARGUMENT", platform="jvm", address=address,
                                     breakpoints=[step, {**step, "condition": "round +"}])
            assert "breakpoints[1]: expression syntax error at column 8" in engine["error"]["message"]
            thrown = await mcp.fails("attach_debugger", "INVALID_ARGUMENT", platform="jvm", address=address,
                                     breakpoints=[{"exceptionClass": "java.lang.IllegalStateException",
                                                   "caught": False, "uncaught": False}])
            assert "breakpoints[0]: " in thrown["error"]["message"] and "both false" in thrown["error"]["message"]
            again = await mcp.ok("attach_debugger", platform="jvm", address=address)
            assert "breakpoints" not in again["result"] and "stop" not in again["result"]
            await mcp.ok("detach_debugger", debugSessionId=again["debug_session_id"])
        await heartbeats_continue(debuggee)

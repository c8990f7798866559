"""``--allow-invoke`` through the MCP tools, on a real JVM (``Invokable``, whose methods print "APP CODE RAN").

Without the flag, capabilities list the ``no_invocation`` limitation and a method call in an expression is
DEBUGGER_EVALUATION_FAILED saying how to enable it, with nothing of the app run; with it, the limitation is
gone, ``method_invocation`` is an operation, calls answer values, and a thrown exception is a result.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from mcpkit import agent_address, connect

from pyjdwp_server.session.targets import Config
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool

INVOKABLE = "com.example.debuggee.Invokable"


@pytest.fixture
def invokable(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, INVOKABLE, java=require_tool("java"))


@pytest.mark.parametrize("allow", [False, True])
async def test_method_calls_only_with_allow_invoke(invokable: Debuggee, allow: bool) -> None:
    with trio.fail_after(60):
        address = await agent_address(invokable)
        async with connect(Config(allow_invoke=allow)) as mcp:
            caps = await mcp.ok("get_debugger_capabilities", platform="jvm", address=address)
            assert ("method_invocation" in caps["result"]["supported_operations"]) is allow
            assert any("No method invocation" in text for text in caps["result"]["limitations"]) is not allow
            attach = await mcp.ok("attach_debugger", platform="jvm", address=address)
            sid = attach["debug_session_id"]
            assert (attach["capabilities"]["profile"] == "pyjdwp-0.1.0+invoke") is allow
            stop, _ = await mcp.stop_at(sid, INVOKABLE, find_mark("invoke")[1])
            frames = await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                                  threadId=stop["thread_id"], limit=1)
            frame = frames["result"]["frames"][0]["frame_id"]

            async def evaluate(expression: str) -> dict[str, Any]:
                return await mcp.call("evaluate_debugger_expression", debugSessionId=sid, stopId=stop["stop_id"],
                                      frameId=frame, expression=expression)

            before = len(invokable.lines)
            summed = await evaluate("plus(2)")
            assert ("no_invocation" in summed["limitations"]) is not allow
            if not allow:
                assert summed["error"]["code"] == "DEBUGGER_EVALUATION_FAILED"
                assert "--allow-invoke" in summed["error"]["message"]
                assert not any("APP CODE RAN" in line for line in invokable.lines[before:])
            else:
                assert summed["result"]["value"] == "42"
                thrown = (await evaluate("fail()"))["result"]
                assert thrown["thrown"] == {"type": "java.lang.IllegalStateException", "message": "broken on purpose"}
                assert thrown["runtime_type"] == "java.lang.IllegalStateException"
                assert (await evaluate("nothing()"))["result"]["kind"] == "void"
                assert any("APP CODE RAN: plus(int) 2" in line for line in invokable.lines[before:])
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            await mcp.ok("detach_debugger", debugSessionId=sid)


@pytest.mark.parametrize("allow", [False, True])
async def test_a_condition_calls_a_method_only_with_allow_invoke(invokable: Debuggee, allow: bool) -> None:
    """With --allow-invoke a condition may call a method: each hit runs it, which the breakpoint's answer says
    once (``note``); without it the call is INVALID_ARGUMENT naming the flag."""
    with trio.fail_after(60):
        address = await agent_address(invokable)
        async with connect(Config(allow_invoke=allow)) as mcp:
            attach = await mcp.ok("attach_debugger", platform="jvm", address=address)
            sid = attach["debug_session_id"]
            answer = await mcp.call("set_debugger_breakpoint", debugSessionId=sid, className=INVOKABLE,
                                    line=find_mark("invoke")[1], condition="plus(2) == 42")
            if not allow:
                assert answer["error"]["code"] == "INVALID_ARGUMENT" and "--allow-invoke" in answer["error"]["message"]
            else:
                assert "each hit runs app code" in answer["result"]["note"]
                event, _ = await mcp.wait_for(sid, "stopped", 0)
                assert answer["result"]["breakpoint_id"] in event["stop"]["breakpoint_ids"]
                assert "condition_error" not in event["stop"]
                assert any("APP CODE RAN: plus(int) 2" in line for line in invokable.lines)
                await mcp.ok("resume_debugger", debugSessionId=sid, stopId=event["stop"]["stop_id"])
            await mcp.ok("detach_debugger", debugSessionId=sid)

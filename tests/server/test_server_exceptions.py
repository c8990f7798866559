"""set_debugger_exception_breakpoint through the MCP stdio client, against a real OpenJDK 17 debuggee.

The server is the ``pyjdwp-mcp`` console script run over stdio with this checkout's ``src`` first on its
path (so the code under test is this tree's, whatever the environment installed). The debuggee is
``fixtures/java/.../Throws.java``: commands on stdin make it throw (see tests/live/test_exceptions_live.py).
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcpkit import Mcp, agent_address, attached, heartbeats_continue, line_of, wait_for_line

from support.jvm import Debuggee, debuggees
from support.live import require_tool, unavailable

pytestmark = pytest.mark.live

SRC = Path(__file__).resolve().parents[2] / "src"
SCRIPT = Path(sys.executable).with_name("pyjdwp-mcp")
THROWS = "com.example.debuggee.Throws"
LATE = "com.example.debuggee.LateFailure"
IAE = "java.lang.IllegalArgumentException"


@pytest.fixture
def throws(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, THROWS, java=require_tool("java"))


@asynccontextmanager
async def stdio(tmp_path: Path) -> AsyncIterator[Mcp]:
    if not SCRIPT.is_file():
        unavailable(f"the console script {SCRIPT} is not installed (pip install -e .)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with Client(stdio_client(StdioServerParameters(command=str(SCRIPT), env=env), errlog=errlog)) as client:
            yield Mcp(client)


async def attach(mcp: Mcp, jvm: Debuggee) -> str:
    address = await agent_address(jvm)
    caps = await mcp.ok("get_debugger_capabilities", platform="jvm", address=address)
    assert "exception_breakpoints" in caps["result"]["supported_operations"]  # said there, not in attach's answer
    body = await mcp.ok("attach_debugger", platform="jvm", address=address)
    attached(jvm)
    return str(body["debug_session_id"])


async def stopped(mcp: Mcp, sid: str, cursor: int) -> tuple[dict[str, Any], int]:
    event, cursor = await mcp.wait_for(sid, "stopped", cursor)
    return event["stop"], cursor


async def test_exception_journey_over_stdio(throws: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with stdio(tmp_path) as mcp:
            names = {tool.name for tool in (await mcp.client.list_tools()).tools}
            assert "set_debugger_exception_breakpoint" in names
            sid = await attach(mcp, throws)
            filtered = await mcp.ok("set_debugger_exception_breakpoint", debugSessionId=sid, exceptionClass=IAE,
                                    caught=True, uncaught=False)
            bp = filtered["result"]
            assert bp == {"breakpoint_id": bp["breakpoint_id"], "kind": "exception", "status": "verified",
                          "requested": {"exception_class": IAE, "caught": True, "uncaught": False}}
            pending = (await mcp.ok("set_debugger_exception_breakpoint", debugSessionId=sid,
                                    exceptionClass=LATE))["result"]
            assert pending["status"] == "pending" and pending["requested"] == {
                "exception_class": LATE, "caught": False, "uncaught": True}
            line_bp = (await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=THROWS,
                                    line=line_of("throw-main")))["result"]
            assert line_bp["kind"] == "line"

            # Bad input is INVALID_ARGUMENT and changes nothing.
            before = (await mcp.ok("get_debugger_state", debugSessionId=sid))["result"]["breakpoints"]
            assert [b["kind"] for b in before] == ["exception", "exception", "line"]
            for bad in ({"exceptionClass": "not a class"}, {"exceptionClass": "java.lang."},
                        {"caught": False, "uncaught": False}, {"caught": "yes"}, {"exception": IAE}):
                await mcp.fails("set_debugger_exception_breakpoint", "INVALID_ARGUMENT", retryable=False,
                                debugSessionId=sid, **bad)
            after = (await mcp.ok("get_debugger_state", debugSessionId=sid))["result"]["breakpoints"]
            assert after == before
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=line_bp["breakpoint_id"])

            throws.send("caught")
            stop, cursor = await stopped(mcp, sid, 0)
            assert stop["reason"] == "exception" and stop["breakpoint_ids"] == [bp["breakpoint_id"]]
            thrown = stop["exception"]
            assert set(thrown) == {"type", "message", "object_id", "throw_location", "catch_location"}  # not cut
            assert (thrown["type"], thrown["message"]) == (f"{THROWS}$BadInput", "bad input 42")
            assert (thrown["throw_location"]["method"], thrown["throw_location"]["line"]) == (
                "reject", line_of("throw-bad-input"))
            assert (thrown["catch_location"]["method"], thrown["catch_location"]["line"]) == (
                "caught", line_of("catch-bad-input"))
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["state"] == "paused" and state["result"]["stop"]["exception"] == thrown
            fields = (await mcp.ok("get_debugger_object", debugSessionId=sid, stopId=stop["stop_id"],
                                   objectId=thrown["object_id"]))["result"]["fields"]
            assert {f["name"]: f.get("value") for f in fields}["detailMessage"] == "bad input 42"

            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=bp["breakpoint_id"])
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=bp["breakpoint_id"])
            mark = len(throws.lines)
            throws.send("caught")  # removed: it runs through
            await wait_for_line(throws, "^done caught$", after=mark)

            # The pending breakpoint binds when its class loads (LateFailure is caught: no stop).
            throws.send("late")
            event, cursor = await mcp.wait_for(sid, "breakpoint_verified", cursor)
            assert event["breakpoint"] == {**pending, "status": "verified"}
            await wait_for_line(throws, "^done late$")

            # Uncaught in a worker thread.
            every = (await mcp.ok("set_debugger_exception_breakpoint", debugSessionId=sid))["result"]
            assert every["requested"] == {"exception_class": None, "caught": False, "uncaught": True}
            throws.send("worker-uncaught")
            stop, cursor = await stopped(mcp, sid, cursor)
            assert stop["thread_name"] == "worker" and stop["breakpoint_ids"] == [every["breakpoint_id"]]
            assert stop["exception"]["type"] == "java.lang.ArithmeticException"
            assert stop["exception"]["catch_location"] is None  # present, null: nothing catches it

            # Detach while stopped at the exception: the app runs on.
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)
            assert detached["cleanup"]["status"] == "complete"
            assert detached["cleanup"]["execution_state"] == "running"
        await wait_for_line(throws, "^done worker-uncaught$")
        await heartbeats_continue(throws)

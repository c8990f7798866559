"""Watchpoints, method breakpoints and set_debugger_value through the MCP stdio client, against a real
OpenJDK 17 debuggee (``fixtures/java/.../Watched.java``; see tests/live/test_watchpoints_live.py).

The server is the ``pyjdwp-mcp`` console script run over stdio with this checkout's ``src`` first on its path.
Detach is checked from a fresh JDWP connection: no thread is left suspended, and the watched write and the
watched methods run with nobody stopping them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcpkit import Mcp, agent_address, attached, check_envelope, wait_for_line

import jdwp
from jdwp.debugger import open_debugger, suspended_threads
from support.jvm import Debuggee, find_mark
from support.live import unavailable

pytestmark = pytest.mark.live

SRC = Path(__file__).resolve().parents[2] / "src"
SCRIPT = Path(sys.executable).with_name("pyjdwp-mcp")
WATCHED = "com.example.debuggee.Watched"
ACCOUNT = "com.example.debuggee.Watched$Account"


@asynccontextmanager
async def stdio(tmp_path: Path, *args: str) -> AsyncIterator[Mcp]:
    if not SCRIPT.is_file():
        unavailable(f"the console script {SCRIPT} is not installed (pip install -e .)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    with (tmp_path / "stderr.txt").open("w") as errlog:
        params = StdioServerParameters(command=str(SCRIPT), args=list(args), env=env)
        async with Client(stdio_client(params, errlog=errlog)) as client:
            yield Mcp(client)


async def set_value(mcp: Mcp, code: str | None = None, **arguments: object) -> dict:
    """set_debugger_value (its ``name`` argument is also Mcp.ok's own first parameter's name)."""
    body = check_envelope(await mcp.client.call_tool("set_debugger_value", arguments))
    if code is None:
        assert body["success"], body
    else:
        assert not body["success"] and body["error"]["code"] == code, body
    return body


async def operations(mcp: Mcp, jvm: Debuggee) -> set[str]:
    """The operations get_debugger_capabilities lists for the JVM (attach's answer names the profile only)."""
    caps = await mcp.ok("get_debugger_capabilities", platform="jvm", address=await agent_address(jvm))
    return set(caps["result"]["supported_operations"])


async def attach(mcp: Mcp, jvm: Debuggee) -> tuple[str, dict]:
    body = await mcp.ok("attach_debugger", platform="jvm", address=await agent_address(jvm))
    attached(jvm)
    return str(body["debug_session_id"]), body


async def test_watchpoint_method_exit_and_set_value_over_stdio(watched: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with stdio(tmp_path, "--allow-mutation") as mcp:
            wanted = {"watchpoints", "method_breakpoints", "return_values", "set_value"}
            assert wanted <= await operations(mcp, watched)
            sid, _ = await attach(mcp, watched)
            wp = (await mcp.ok("set_debugger_watchpoint", debugSessionId=sid, className=ACCOUNT,
                               field="balance"))["result"]
            assert (wp["kind"], wp["status"], wp["requested"]) == (
                "watchpoint", "verified", {"class_name": ACCOUNT, "field": "balance", "access": "write"})
            watched.send("write")
            event, cursor = await mcp.wait_for(sid, "stopped")
            stop = event["stop"]
            assert stop["reason"] == "watchpoint" and stop["thread_name"] == "writer"
            assert stop["watch"]["field"] == f"{ACCOUNT}.balance"
            assert (stop["watch"]["old_value"]["value"], stop["watch"]["new_value"]["value"]) == ("100", "125")
            stack = await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                                 threadId=stop["thread_id"])
            assert stack["result"]["frames"][0]["method"] == "deposit"
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=wp["breakpoint_id"])

            bp = (await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=WATCHED, method="big",
                               on="exit"))["result"]
            assert bp["kind"] == "method" and bp["locations"][0]["method"] == "big()J"
            watched.send("calls")
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            # No length, no object_id, nothing cut: only the keys that say something.
            assert event["stop"]["return_value"] == {"kind": "primitive", "value": "9007199254740993"}
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=event["stop"]["stop_id"])
            await wait_for_line(watched, "^done calls$")
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=bp["breakpoint_id"])

            await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=WATCHED,
                         line=find_mark("mutate-here")[1])
            watched.send("mutate")
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            stop_id = event["stop"]["stop_id"]
            frame = (await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop_id,
                                  threadId=event["stop"]["thread_id"]))["result"]["frames"][0]["frame_id"]
            done = await set_value(mcp, debugSessionId=sid, stopId=stop_id, frameId=frame, name="count", value="100")
            assert done["result"]["value"] == "100"
            refused = await set_value(mcp, "INVALID_ARGUMENT", debugSessionId=sid, stopId=stop_id, frameId=frame,
                                      name="small", value="300")
            assert "out of range" in refused["error"]["message"]
            await set_value(mcp, "INVALID_ARGUMENT", debugSessionId=sid, stopId=stop_id, frameId=frame, name="text",
                            value="5")
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop_id)
            assert (await wait_for_line(watched, "^mutated ")).string.startswith("mutated count=100 total=2 ")
            await mcp.ok("detach_debugger", debugSessionId=sid)


async def test_set_value_without_the_flag_says_how_to_enable_it(watched: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(60):
        async with stdio(tmp_path) as mcp:
            assert "set_value" not in await operations(mcp, watched)  # without --allow-mutation
            sid, _ = await attach(mcp, watched)
            await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=WATCHED,
                         line=find_mark("mutate-here")[1])
            watched.send("mutate")
            event, _ = await mcp.wait_for(sid, "stopped")
            stop = event["stop"]
            frame = (await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                                  threadId=stop["thread_id"]))["result"]["frames"][0]["frame_id"]
            failed = await set_value(mcp, "DEBUGGER_UNSUPPORTED", debugSessionId=sid, stopId=stop["stop_id"],
                                     frameId=frame, name="count", value="100")
            assert "--allow-mutation" in failed["error"]["message"]
            await mcp.fails("set_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid, className=WATCHED,
                            method="big", line=3)
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            assert (await wait_for_line(watched, "^mutated ")).string.startswith("mutated count=1 ")
            await mcp.ok("detach_debugger", debugSessionId=sid)


async def test_detach_clears_every_new_request_kind(watched: Debuggee, tmp_path: Path) -> None:
    """Watchpoints (write and read), method entry and exit, a pending watchpoint and a step out's exit
    request: detach clears them all; a fresh connection finds nothing suspended and nothing stopping."""
    with trio.fail_after(90):
        async with stdio(tmp_path) as mcp:
            sid, _ = await attach(mcp, watched)
            base = {"debugSessionId": sid}
            await mcp.ok("set_debugger_breakpoint", **base, className=WATCHED, method="twice")
            watched.send("calls")
            event, cursor = await mcp.wait_for(sid, "stopped")
            stop = event["stop"]
            # A step out with a watchpoint on the way: the watchpoint stops first, the step (and its exit
            # request) is still armed when the session detaches.
            await mcp.ok("set_debugger_watchpoint", **base, className=ACCOUNT, field="balance", access="any")
            await mcp.ok("set_debugger_watchpoint", **base, className="com.example.debuggee.WatchedLate",
                         field="touches")
            await mcp.ok("set_debugger_breakpoint", **base, className=WATCHED, method="label", on="exit",
                         condition="return_value == null")
            await mcp.ok("step_debugger", **base, stopId=stop["stop_id"], threadId=stop["thread_id"], kind="out")
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            state = await mcp.ok("get_debugger_state", **base)
            kinds = sorted(bp["kind"] for bp in state["result"]["breakpoints"])
            assert kinds == ["method", "method", "watchpoint", "watchpoint"]
            detached = await mcp.ok("detach_debugger", **base)
            assert detached["cleanup"] == {"status": "complete", "execution_state": "running"}  # nothing remains
        address = await agent_address(watched)
        host, port = address.rsplit(":", 1)
        async with jdwp.open_jdwp_tcp(host, int(port)) as vm, open_debugger(vm) as fresh:
            attached(watched)
            assert await suspended_threads(vm) == 0
            mark = len(watched.lines)
            for command in ("calls", "write", "read", "late"):
                watched.send(command)
                await wait_for_line(watched, f"^done {command}$", mark)
            assert await suspended_threads(vm) == 0 and fresh.current_stop is None


async def test_a_watchpoint_captures_at_its_stop_and_changes_in_place_over_stdio(watched: Debuggee,
                                                                                 tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with stdio(tmp_path) as mcp:
            sid, _ = await attach(mcp, watched)
            base = {"debugSessionId": sid}
            refused = check_envelope(await mcp.client.call_tool("set_debugger_watchpoint", {
                **base, "className": ACCOUNT, "field": "balance", "action": "log", "capture": {"locals": True}}))
            assert not refused["success"] and refused["error"]["code"] == "INVALID_ARGUMENT"
            wp = (await mcp.ok("set_debugger_watchpoint", **base, className=ACCOUNT, field="balance",
                               capture={"stack": 2, "expressions": ["amount"]}))["result"]
            quiet = (await mcp.ok("update_debugger_breakpoint", **base, breakpointId=wp["breakpoint_id"],
                                  condition="new_value > 1000"))["result"]
            assert (quiet["kind"], quiet["status"], quiet["breakpoint_id"]) == ("watchpoint", "verified",
                                                                                wp["breakpoint_id"])
            mark = len(watched.lines)
            watched.send("write")
            await wait_for_line(watched, "^done write$", mark)  # 100 -> 125: judged, not stopped
            await mcp.ok("update_debugger_breakpoint", **base, breakpointId=wp["breakpoint_id"], condition=None)
            watched.send("write")
            event, _ = await mcp.wait_for(sid, "stopped")
            stop = event["stop"]
            assert stop["watch"]["new_value"]["value"] == "150"
            assert [f["method"] for f in stop["capture"]["frames"]] == ["deposit", "lambda$run$0"]
            assert stop["capture"]["expressions"][0]["value"]["value"] == "25"
            await mcp.ok("resume_debugger", **base, stopId=stop["stop_id"])
            off = (await mcp.ok("update_debugger_breakpoint", **base, breakpointId=wp["breakpoint_id"],
                                enabled=False))["result"]
            assert off["status"] == "disabled"
            detached = await mcp.ok("detach_debugger", **base)
            assert detached["cleanup"]["status"] == "complete"

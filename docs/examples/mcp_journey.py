"""Drive pyjdwp-mcp like an AI agent would, against a JVM, and print the journey.

    python docs/examples/mcp_journey.py 127.0.0.1 5005 com.example.debuggee.Worker 19

It starts the installed ``pyjdwp-mcp`` over stdio with the official MCP client, then: attach, set a
breakpoint, wait for the stop, read the stack and the top frame's locals, step over, resume, detach.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters


def shown(local: dict[str, Any]) -> str:
    """A value summary as a Java programmer reads it; a summary carries only the keys that apply."""
    if "value" in local and "length" in local:  # a string: its text (and its length)
        return json.dumps(local["value"], ensure_ascii=False) + (" (cut)" if local.get("truncated") else "")
    if "length" in local:
        return f"<array of {local['length']}, id {local['object_id']}>"
    if "value" in local:  # a primitive, or a box read by value
        return str(local["value"])
    return f"<object {local['object_id']}>" if "object_id" in local else "null"


def server_command() -> str:
    beside = Path(sys.executable).with_name("pyjdwp-mcp")
    return str(beside) if beside.exists() else (shutil.which("pyjdwp-mcp") or "pyjdwp-mcp")


async def main(host: str, port: int, class_name: str, line: int) -> None:
    params = StdioServerParameters(command=server_command(), args=["--log-level", "warning"])
    async with Client(params) as client:

        async def call(tool: str, **arguments: Any) -> dict[str, Any]:
            body: dict[str, Any] = (await client.call_tool(tool, arguments)).structured_content or {}
            if not body.get("success"):
                raise SystemExit(f"{tool} failed: {body.get('error')}")
            return body

        tools = await client.list_tools()
        print(f"server offers {len(tools.tools)} tools")
        session = (await call("attach_debugger", platform="jvm", address=f"{host}:{port}"))["debug_session_id"]
        print(f"attached: session {session}")
        bp = (await call("set_debugger_breakpoint", debugSessionId=session, className=class_name, line=line))["result"]
        print(f"breakpoint {bp['breakpoint_id']} at {class_name}:{line}: {bp['status']}")

        cursor, stop = 0, None
        while stop is None:
            polled = await call("wait_for_debugger_event", debugSessionId=session, afterSequence=cursor,
                                timeoutMs=5000)
            cursor = polled["next_cursor"]
            stop = next((e["stop"] for e in polled["events"] if e["kind"] == "stopped"), None)
        where = stop["location"]
        print(f"stopped ({stop['reason']}) in thread {stop['thread_name']!r} at "
              f"{where['class_name']}.{where['method']}({where['source']}:{where['line']})")

        stack = (await call("get_debugger_stack", debugSessionId=session, stopId=stop["stop_id"],
                            threadId=stop["thread_id"]))["result"]
        for frame in stack["frames"]:
            print(f"  #{frame['index']} {frame['class_name']}.{frame['method']}({frame['source']}:{frame['line']})")
        top = stack["frames"][0]["frame_id"]
        found = (await call("get_debugger_locals", debugSessionId=session, stopId=stop["stop_id"],
                            frameId=top))["result"]
        for local in found["locals"]:
            print(f"  {local['type']} {local['name']} = {shown(local)}")

        await call("step_debugger", debugSessionId=session, stopId=stop["stop_id"], threadId=stop["thread_id"],
                   kind="over")
        stepped = None
        while stepped is None:
            polled = await call("wait_for_debugger_event", debugSessionId=session, afterSequence=cursor,
                                timeoutMs=5000)
            cursor = polled["next_cursor"]
            stepped = next((e["stop"] for e in polled["events"] if e["kind"] == "stopped"), None)
        print(f"stepped over to line {stepped['location']['line']}")
        await call("resume_debugger", debugSessionId=session, stopId=stepped["stop_id"])
        print("resumed")
        detached = await call("detach_debugger", debugSessionId=session)
        cleanup = detached["cleanup"]
        print(f"detached: cleanup {cleanup['status']}, app {cleanup['execution_state']}")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), backend="trio")

"""redefine_debugger_classes and step_debugger's restart and forced return through the MCP tools (the server
in memory), against a real OpenJDK 17 app compiled here in versions (``support.reloads``).

Without ``--allow-mutation`` each is refused with the flag to set, and nothing changes; with it, a reload lists
what it did (the worker's frame still in the old ``work()``, the breakpoint re-bound), a restart stops at the
first line of the new ``work()``, and a forced return answers the value returned.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from mcpkit import agent_port, connect, wait_for_line

import jdwp
from jdwp.debugger import suspended_threads
from pyjdwp_server.session.config import Config
from support.jvm import Debuggee, debuggees
from support.live import require_tool
from support.reloads import INFLATION, MAIN, compile_version, line_of

pytestmark = pytest.mark.live

WORK_FIRST = line_of("static void work() throws InterruptedException {") + 1
WORK_LOOP = WORK_FIRST + 2
ANSWER = line_of("return 1;")


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Debuggee]:
    yield from debuggees(compile_version(tmp_path / "v1", "v1"), MAIN, java=require_tool("java"),
                         extra_args=(INFLATION,))


async def test_without_the_flag_every_change_is_refused_with_the_flag_to_set(app: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(60):
        v2 = compile_version(tmp_path / "v2", "v2")
        async with connect() as mcp:
            sid = await mcp.attach_jvm(app)
            refused = await mcp.fails("redefine_debugger_classes", "DEBUGGER_UNSUPPORTED", debugSessionId=sid,
                                      paths=[str(v2)])
            assert "--allow-mutation" in refused["error"]["message"]
            stop, _ = await mcp.stop_at(sid, MAIN, ANSWER)
            for extra in ({"kind": "restart"}, {"kind": "out", "returnValue": "42"}):
                body = await mcp.fails("step_debugger", "DEBUGGER_UNSUPPORTED", debugSessionId=sid,
                                       stopId=stop["stop_id"], threadId=stop["thread_id"], **extra)
                assert "--allow-mutation" in body["error"]["message"]
            await mcp.fails("step_debugger", "INVALID_ARGUMENT", debugSessionId=sid, stopId=stop["stop_id"],
                            threadId=stop["thread_id"], kind="into", returnValue="42")
            await mcp.ok("detach_debugger", debugSessionId=sid)


async def test_reload_restart_and_force_return_through_the_tools(app: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(90):
        v2 = compile_version(tmp_path / "v2", "v2")
        async with connect(Config(allow_mutation=True)) as mcp:
            sid = await mcp.attach_jvm(app)
            stop, cursor = await mcp.stop_at(sid, MAIN, WORK_LOOP)
            assert stop["thread_name"] == "worker"
            done = (await mcp.ok("redefine_debugger_classes", debugSessionId=sid, paths=[str(v2)]))["result"]
            print(json.dumps(done))  # docs/tools.md shows such an answer
            assert done["redefined"] == [MAIN] and "skipped" not in done
            assert {"thread": "worker", "frame": 0, "method": "reload.App.work",
                    "line": WORK_LOOP} in done["old_frames"]
            assert [bp["status"] for bp in done["breakpoints"]] == ["verified"]
            assert "restart" in done["note"]
            await mcp.ok("step_debugger", debugSessionId=sid, stopId=stop["stop_id"], threadId=stop["thread_id"],
                         kind="restart")
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            assert event["stop"]["reason"] == "step" and event["stop"]["location"]["line"] == WORK_FIRST
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid,
                         breakpointId=done["breakpoints"][0]["breakpoint_id"])
            since = len(app.lines)
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=event["stop"]["stop_id"])
            await wait_for_line(app, "^new work$", since)
            stop, cursor = await mcp.stop_at(sid, MAIN, ANSWER, cursor)
            wrong = await mcp.fails("step_debugger", "INVALID_ARGUMENT", debugSessionId=sid, stopId=stop["stop_id"],
                                    threadId=stop["thread_id"], kind="out", returnValue="true")
            assert "int" in wrong["error"]["message"]
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=stop["breakpoint_ids"][0])
            since = len(app.lines)
            forced = await mcp.ok("step_debugger", debugSessionId=sid, stopId=stop["stop_id"],
                                  threadId=stop["thread_id"], kind="out", returnValue="42")
            assert forced["result"]["returned"]["value"] == "42"
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            assert event["stop"]["reason"] == "step" and event["stop"]["location"]["method"] == "main"
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=event["stop"]["stop_id"])
            await wait_for_line(app, "^forced 42$", since)
            await mcp.ok("detach_debugger", debugSessionId=sid)
        async with jdwp.open_jdwp_tcp("127.0.0.1", await agent_port(app)) as vm:
            assert await suspended_threads(vm) == 0

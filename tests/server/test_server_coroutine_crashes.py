"""Coroutines through the MCP stdio server (docs/design.md §3.11), against OpenJDK 17 running the kotlinc-built
coroutine fixtures on Debian's kotlinx-coroutines 1.0.1 (``fixtures/coroutines``; see
tests/live/test_coroutine_crashes_live.py and test_coroutine_steps_live.py for the engine's side).

The default exception breakpoint stops at the throw of a crashing ``GlobalScope.launch`` coroutine, saying so; a
step over a suspend function's last line (``return base + 1``) goes on in the coroutine that awaited it, never
at a line-less ``invokeSuspend`` nor in a dispatcher.
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
from mcpkit import Mcp, wait_for_line

from support.coroutines import compile_coroutines, coroutine_mark, coroutines_classpath
from support.jvm import Debuggee, debuggees
from support.live import require_tool, unavailable

pytestmark = pytest.mark.live

SRC = Path(__file__).resolve().parents[2] / "src"
SCRIPT = Path(sys.executable).with_name("pyjdwp-mcp")
MAIN = "com.example.ktcrash.CrashKt"


@pytest.fixture(scope="module")
def coroutine_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_coroutines(tmp_path_factory.mktemp("coroutine-classes"), kotlinc=require_tool("kotlinc"))


@pytest.fixture
def crash(coroutine_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(coroutines_classpath(coroutine_classes), MAIN, java=require_tool("java"))


@asynccontextmanager
async def stdio(tmp_path: Path) -> AsyncIterator[Mcp]:
    if not SCRIPT.is_file():
        unavailable(f"the console script {SCRIPT} is not installed (pip install -e .)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with Client(stdio_client(StdioServerParameters(command=str(SCRIPT), env=env), errlog=errlog)) as client:
            yield Mcp(client)


async def stopped(mcp: Mcp, sid: str, cursor: int) -> tuple[dict[str, Any], int]:
    event, cursor = await mcp.wait_for(sid, "stopped", cursor, deadline_s=40)
    return event["stop"], cursor


async def test_a_crashing_launch_stops_at_its_throw_over_stdio(crash: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(120):
        async with stdio(tmp_path) as mcp:
            sid = await mcp.attach_jvm(crash)
            bp = (await mcp.ok("set_debugger_exception_breakpoint", debugSessionId=sid))["result"]
            crash.send("launch-crash")
            stop, cursor = await stopped(mcp, sid, 0)
            assert stop["reason"] == "exception" and stop["breakpoint_ids"] == [bp["breakpoint_id"]]
            assert stop["thread_name"].startswith("DefaultDispatcher-worker-")
            thrown = stop["exception"]
            assert (thrown["type"], thrown["message"]) == ("java.lang.IllegalStateException", "launch crashed at 41")
            assert thrown["crashes_coroutine"] is True and "ends the coroutine" in thrown["note"]
            assert thrown["catch_location"]["class_name"] == "kotlin.coroutines.jvm.internal.BaseContinuationImpl"
            assert (thrown["throw_location"]["method"], thrown["throw_location"]["line"]) == (
                "invokeSuspend", coroutine_mark("ktc-throw-launch"))
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            await wait_for_line(crash, "^done launch-crash$")
            events = (await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor,
                                   timeoutMs=200))["events"]
            assert [e for e in events if e["kind"] == "stopped"] == []  # its re-throws on the way out: no stops
            await mcp.ok("detach_debugger", debugSessionId=sid)


async def test_a_step_over_a_suspend_functions_last_line_lands_in_its_caller_over_stdio(
        crash: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(120):
        async with stdio(tmp_path) as mcp:
            sid = await mcp.attach_jvm(crash)
            await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, file="Crash.kt",
                         line=coroutine_mark("ktc-price-return"))
            crash.send("quote")
            stop, cursor = await stopped(mcp, sid, 0)
            assert (stop["location"]["method"], stop["location"]["line"]) == (
                "fetchPrice", coroutine_mark("ktc-price-return"))
            await mcp.ok("step_debugger", debugSessionId=sid, stopId=stop["stop_id"], threadId=stop["thread_id"],
                         kind="over")
            stop, cursor = await stopped(mcp, sid, cursor)
            assert stop["reason"] == "step"
            assert (stop["location"]["class_name"], stop["location"]["method"], stop["location"]["line"]) == (
                MAIN, "quote", coroutine_mark("ktc-quote-with"))
            # Over withContext(Dispatchers.IO): the next line, wherever quote resumes.
            await mcp.ok("step_debugger", debugSessionId=sid, stopId=stop["stop_id"], threadId=stop["thread_id"],
                         kind="over")
            stop, cursor = await stopped(mcp, sid, cursor)
            assert (stop["location"]["method"], stop["location"]["line"]) == (
                "quote", coroutine_mark("ktc-quote-async"))
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            await wait_for_line(crash, "^quoted 145$")
            await mcp.ok("detach_debugger", debugSessionId=sid)

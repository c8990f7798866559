"""Conditions, hit counts, logpoints and ``suspend: "thread"`` through the installed ``pyjdwp-mcp`` over stdio,
against a real OpenJDK 17 (``Loops``): docs/design.md §3.5.

- a condition true once in 1,000 hits stops once, with the right ``i``; a syntax error is INVALID_ARGUMENT
  with the column and sets nothing;
- a logpoint storm (a line hit as fast as the loop runs): the events carry breakpoint_id, thread_name,
  location, message, captured_at_ms and dropped; get_debugger_state and detach answer within their
  timeouts while it fires; the JVM runs on; no message reaches the server's log (stderr);
- ``suspend: "thread"``: the heartbeat thread runs on while the stop holds the main thread.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from mcpkit import Mcp, connect, heartbeats_continue, stdio_mcp, wait_for_line

from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool

pytestmark = pytest.mark.live

LOOPS = "com.example.debuggee.Loops"
STEP_LINE = find_mark("loops-step")[1]


@pytest.fixture
def loops(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, LOOPS, java=require_tool("java"))


async def events_until(mcp: Mcp, sid: str, kind: str, cursor: int = 0) -> tuple[list[dict[str, Any]], int]:
    """Every event from ``cursor`` up to and including the first of ``kind``."""
    seen: list[dict[str, Any]] = []
    while True:
        body = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor, timeoutMs=5000)
        for event in body["events"]:
            seen.append(event)
            if event["kind"] == kind:
                return seen, event["sequence"]
        cursor = body["next_cursor"]


async def local_i(mcp: Mcp, sid: str, stop: dict[str, Any]) -> str:
    ids = {"debugSessionId": sid, "stopId": stop["stop_id"]}
    stack = await mcp.ok("get_debugger_stack", threadId=stop["thread_id"], limit=1, **ids)
    found = await mcp.ok("get_debugger_locals", frameId=stack["result"]["frames"][0]["frame_id"], **ids)
    return {v["name"]: v.get("value") for v in found["result"]["locals"]}["i"]


async def test_a_condition_over_stdio_stops_once_and_a_bad_one_changes_nothing(loops: Debuggee,
                                                                               tmp_path: Path) -> None:
    with trio.fail_after(120):
        async with stdio_mcp(tmp_path / "stderr.txt") as mcp:
            sid = await mcp.attach_jvm(loops)
            bad = await mcp.fails("set_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid,
                                  className=LOOPS, line=STEP_LINE, condition="i == ")
            assert "column 6" in bad["error"]["message"]
            await mcp.fails("set_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid, className=LOOPS,
                            line=STEP_LINE, logMessage="i={i}")
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["result"]["breakpoints"] == []
            bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=LOOPS, line=STEP_LINE,
                              condition="i == 777")
            assert bp["result"]["condition"] == "i == 777" and bp["result"]["hits"] == 0
            mark = len(loops.lines)
            loops.send("loop 1000")
            seen, cursor = await events_until(mcp, sid, "stopped")
            stop = seen[-1]["stop"]
            assert await local_i(mcp, sid, stop) == "777" and "suspended" not in stop
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            await wait_for_line(loops, r"^looped 1000 ", after=mark)
            after = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor,
                                 timeoutMs=300)
            assert after["events"] == [] and after["timed_out"] is True
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["result"]["breakpoints"][0]["hits"] == 1
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)
            assert detached["cleanup"]["execution_state"] == "running"


async def test_a_logpoint_storm_over_stdio_never_starves_state_or_detach(loops: Debuggee, tmp_path: Path) -> None:
    stderr_path = tmp_path / "stderr.txt"
    with trio.fail_after(180):
        async with stdio_mcp(stderr_path) as mcp:
            sid = await mcp.attach_jvm(loops)
            bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=LOOPS, line=STEP_LINE,
                              action="log", logMessage="zq-{i}:{label}", maxHits=10_000)
            assert (bp["result"]["action"], bp["result"]["max_hits"]) == ("log", 10_000)
            assert "suspend" not in bp["result"]  # a logpoint suspends nothing for the user
            mark = len(loops.lines)
            loops.send("loop 100000000")  # runs far longer than this test: the storm goes on throughout
            seen, _ = await events_until(mcp, sid, "logpoint")
            event = seen[-1]
            assert event["breakpoint_id"] == bp["result"]["breakpoint_id"] and event["thread_name"] == "main"
            # Lean: its breakpoint's answer says where, the sequence orders it, none was dropped yet.
            assert event["message"] == "zq-0:item" and isinstance(event["sequence"], int)
            assert {"location", "captured_at_ms", "received_at_ms", "dropped"}.isdisjoint(event), event
            for _ in range(5):
                with trio.fail_after(2):  # each answers well within its own timeout while hits pour in
                    state = await mcp.ok("get_debugger_state", debugSessionId=sid, timeoutMs=2000)
                assert state["result"]["state"] == "running"
            later = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=0, timeoutMs=2000)
            assert all(e["kind"] in {"logpoint", "breakpoint_verified"} for e in later["events"])
            with trio.fail_after(10):
                detached = await mcp.ok("detach_debugger", debugSessionId=sid, timeoutMs=10000)
            assert detached["cleanup"]["status"] == "complete"
            assert detached["cleanup"]["execution_state"] == "running"
        await heartbeats_continue(loops)
        assert len(loops.lines) > mark
    log = stderr_path.read_text()
    assert "zq-1" not in log and "Traceback" not in log, log[-3000:]


async def test_suspend_thread_over_stdio_keeps_the_heartbeat_running(loops: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(120):
        async with stdio_mcp(tmp_path / "stderr.txt") as mcp:
            sid = await mcp.attach_jvm(loops)
            bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=LOOPS, line=STEP_LINE,
                              suspend="thread", hitCount=2)
            assert bp["result"]["suspend"] == "thread" and bp["result"]["hit_count"] == 2
            loops.send("loop 3")
            seen, _ = await events_until(mcp, sid, "stopped")
            stop = seen[-1]["stop"]
            assert stop["suspended"] == "thread" and await local_i(mcp, sid, stop) == "1"
            await heartbeats_continue(loops)
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            seen, _ = await events_until(mcp, sid, "stopped")
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)
            assert detached["cleanup"]["execution_state"] == "running"
        await wait_for_line(loops, r"^looped 3 ")


async def test_resume_and_wait_answers_the_log_lines_before_the_stop(shared_jvm: Debuggee) -> None:
    """resume_debugger {wait: true} answers the logpoint events between the resume and the stop beside the
    stop (docs/tools.md, "Log lines before a stop"), and the cursor to go on from; the ring keeps them too."""
    worker, line = "com.example.debuggee.Worker", find_mark("step")[1]
    with trio.fail_after(60):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            log = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=worker, line=line,
                               action="log", logMessage="i={i}")
            stop, cursor = await mcp.stop_at(sid, worker, line + 1)  # the next line: each call logs, then stops
            resumed = (await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"], wait=True,
                                    capture={"expressions": ["i"]}, timeoutMs=20000))["result"]
            i = resumed["stop"]["capture"]["expressions"][0]["value"]["value"]
            logs = resumed["logs"]
            assert logs[-1] == {"sequence": logs[-1]["sequence"], "kind": "logpoint", "message": f"i={i}",
                                "breakpoint_id": log["result"]["breakpoint_id"], "thread_name": "main"}
            assert "logs_skipped" not in resumed and resumed["next_cursor"] > logs[-1]["sequence"] > cursor
            page = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor, timeoutMs=100)
            assert [e for e in page["events"] if e["kind"] == "logpoint"][-len(logs):] == logs  # the ring's own
            await mcp.ok("detach_debugger", debugSessionId=sid)
        await heartbeats_continue(shared_jvm)

"""Java text through every tool against a real JVM: what JSON cannot carry as it is, and what is too long.

Java strings, chars and names are UTF-16 and may hold unpaired surrogates, which JSON text must not carry
raw: the server writes each lone surrogate as the six characters ``\\uXXXX`` (a well-formed pair stays the
real character). Names the VM supplies are cut at 1024 UTF-16 units, and a record says which of its names
were cut (``truncated_names``). The debuggee is ``OddText`` (fixtures/java), loaded into the shared JVM.
"""

from __future__ import annotations

import json

import pytest
import trio
from mcpkit import Mcp, connect, heartbeats_continue, line_of, wait_for_line

from support.jvm import Debuggee

pytestmark = pytest.mark.live

ODD = "com.example.debuggee.OddText"
MAX_NAME = 1024


async def _load_odd_text(jvm: Debuggee) -> None:
    mark = len(jvm.lines)
    jvm.send(f"load {ODD}")
    await wait_for_line(jvm, f"^loaded {ODD}$", after=mark)


async def _finish(mcp: Mcp, sid: str, stop_id: str, jvm: Debuggee) -> None:
    await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop_id)
    detached = await mcp.ok("detach_debugger", debugSessionId=sid)
    assert detached["cleanup"]["status"] == "complete"
    await heartbeats_continue(jvm)


async def test_lone_surrogates_in_locals_are_escaped(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        await _load_odd_text(shared_jvm)
        async with connect() as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            stop, _ = await mcp.stop_at(sid, ODD, line_of("oddtext-locals"))
            ids = {"debugSessionId": sid, "stopId": stop["stop_id"]}
            stack = await mcp.ok("get_debugger_stack", threadId=stop["thread_id"], **ids)
            found = await mcp.ok("get_debugger_locals", frameId=stack["result"]["frames"][0]["frame_id"], **ids)
            values = {v["name"]: v for v in found["result"]["locals"]}
            assert values["sur"]["value"] == "\\uD83D"  # six visible characters: backslash, u, four hex digits
            assert values["lone"]["value"] == "x\\uD800y"
            assert values["lone"]["length"] == 3 and "truncated" not in values["lone"]
            await _finish(mcp, sid, stop["stop_id"], shared_jvm)


async def test_a_thread_named_with_a_lone_surrogate_reports_its_stop(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        await _load_odd_text(shared_jvm)
        async with connect() as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            stop, _ = await mcp.stop_at(sid, ODD, line_of("oddtext-bad-thread"))
            assert stop["thread_name"] == "bad-\\uDC00-name" and "truncated_names" not in stop
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["state"] == "paused" and state["result"]["stop"]["stop_id"] == stop["stop_id"]
            assert state["result"]["stop"]["thread_name"] == "bad-\\uDC00-name"
            await _finish(mcp, sid, stop["stop_id"], shared_jvm)


async def test_a_million_character_thread_name_is_cut(shared_jvm: Debuggee) -> None:
    with trio.fail_after(90):
        await _load_odd_text(shared_jvm)
        async with connect() as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=ODD,
                              line=line_of("oddtext-huge-thread"))
            assert bp["result"]["status"] == "verified"
            polled = await mcp.call("wait_for_debugger_event", debugSessionId=sid, timeoutMs=10000)
            while not any(e["kind"] == "stopped" for e in polled["events"]):
                polled = await mcp.call("wait_for_debugger_event", debugSessionId=sid, timeoutMs=10000,
                                        afterSequence=polled["next_cursor"])
            assert len(json.dumps(polled)) < 8000  # the whole poll, not a megabyte
            stop = next(e for e in polled["events"] if e["kind"] == "stopped")["stop"]
            assert stop["thread_name"] == "huge-" + "h" * (MAX_NAME - 5)
            assert stop["truncated_names"] == ["thread_name"]
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["result"]["stop"]["truncated_names"] == ["thread_name"]
            assert len(json.dumps(state)) < 8000
            await _finish(mcp, sid, stop["stop_id"], shared_jvm)

"""Capture on stop, several expressions per call, ``until: "stopped"`` and run to, through the MCP stdio client
against real OpenJDK 17 debuggees (docs/design.md §3.5): ``Scenes`` (``outer`` calls ``inner`` in a loop) and
``Throws`` (a caught ``BadInput``).

The server is the ``pyjdwp-mcp`` console script over stdio with this checkout's ``src`` first on its path. Each
new input is called as a client sends it, with its bad forms (INVALID_ARGUMENT, nothing changed), and the
answers a spec-025 client knows stay as they were (``resume_debugger`` without the new inputs,
``evaluate_debugger_expression`` with ``expression``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from mcpkit import Mcp, line_of, stdio

from support.jvm import Debuggee, debuggees
from support.live import require_tool

pytestmark = pytest.mark.live

SCENES = "com.example.debuggee.Scenes"
THROWS = "com.example.debuggee.Throws"


@pytest.fixture
def scenes(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, SCENES, java=require_tool("java"))


@pytest.fixture
def throws(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, THROWS, java=require_tool("java"))


async def until_stopped(mcp: Mcp, sid: str, cursor: int) -> tuple[dict[str, Any], int]:
    """One wait with ``until: "stopped"``: its last event is the stop; every event before it came too."""
    body = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor, timeoutMs=15000,
                        until="stopped")
    assert body["timed_out"] is False
    events = body["events"]
    assert [e["kind"] for e in events][-1] == "stopped" and all(e["kind"] != "stopped" for e in events[:-1])
    assert [e["sequence"] for e in events] == list(range(cursor + 1, body["next_cursor"] + 1))
    return events[-1]["stop"], body["next_cursor"]


def local_values(locals_: dict[str, Any]) -> dict[str, Any]:
    return {local["name"]: local["value"] for local in locals_["locals"]}


async def test_capture_expressions_until_stopped_and_run_to_over_stdio(scenes: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(120):
        async with stdio(tmp_path) as mcp:
            sid = await mcp.attach_jvm(scenes)
            inner = line_of("inner-first")
            # Bad captures are refused, and nothing is set.
            for bad in ({"stack": 21}, {"expressions": [f"x{i}" for i in range(11)]}, {"expressions": ["y +"]},
                        {"locals": "yes"}, {"depth": 2}, {"expressions": ["y.hashCode()"]}):
                await mcp.fails("set_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid, className=SCENES,
                                line=inner, capture=bad)
            await mcp.fails("set_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid, className=SCENES,
                            line=inner, action="log", capture={"locals": True})
            assert (await mcp.ok("get_debugger_state", debugSessionId=sid))["result"]["breakpoints"] == []

            capture = {"stack": 2, "locals": True, "expressions": ["y * 2", "nope"]}
            bp = (await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=SCENES, line=inner,
                               capture=capture))["result"]
            assert bp["capture"] == capture and "action" not in bp and "hits" not in bp  # a capture only
            stop, cursor = await until_stopped(mcp, sid, 0)
            assert stop["frame_id"] == f"{stop['thread_id']}.f0"
            captured = stop["capture"]
            assert [f["method"] for f in captured["frames"]] == ["inner", "outer"]
            y = int(local_values(captured["locals"])["y"])
            doubled, unknown = captured["expressions"]
            assert doubled == {"expression": "y * 2", "value": {**doubled["value"], "kind": "primitive",
                                                                "value": str(2 * y)}}
            assert set(unknown) == {"expression", "error"}
            assert unknown["error"]["code"] == "DEBUGGER_EVALUATION_FAILED"

            # Several expressions in one call, in order, frame 0 by default; a bad one is its own item's error.
            many = await mcp.ok("evaluate_debugger_expression", debugSessionId=sid, stopId=stop["stop_id"],
                                expressions=["y", "y +", "nope", "y + 1"])
            results = many["result"]["results"]
            assert [r["expression"] for r in results] == ["y", "y +", "nope", "y + 1"]
            assert results[0]["value"]["value"] == str(y) and results[3]["value"]["value"] == str(y + 1)
            assert results[1]["error"]["code"] == "INVALID_ARGUMENT" and "column" in results[1]["error"]["message"]
            assert results[2]["error"]["code"] == "DEBUGGER_EVALUATION_FAILED"
            # The old form answers as it did; frameId may now be left out.
            old = await mcp.ok("evaluate_debugger_expression", debugSessionId=sid, stopId=stop["stop_id"],
                               frameId=captured["frames"][1]["frame_id"], expression="a")
            assert old["result"]["kind"] == "primitive" and old["result"]["value"] == str(y)
            assert (await mcp.ok("evaluate_debugger_expression", debugSessionId=sid, stopId=stop["stop_id"],
                                 expression="y"))["result"]["value"] == str(y)
            for bad_input in ({"expression": "y", "expressions": ["y"]}, {}, {"expressions": []},
                              {"expressions": ["y"] * 21}):
                await mcp.fails("evaluate_debugger_expression", "INVALID_ARGUMENT", debugSessionId=sid,
                                stopId=stop["stop_id"], **bad_input)

            # A step captures the stop it leads to.
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=bp["breakpoint_id"])
            await mcp.fails("step_debugger", "INVALID_ARGUMENT", debugSessionId=sid, stopId=stop["stop_id"],
                            threadId=stop["thread_id"], kind="over", capture={"stack": -1})
            await mcp.ok("step_debugger", debugSessionId=sid, stopId=stop["stop_id"], threadId=stop["thread_id"],
                         kind="over", capture={"stack": 0, "locals": True})
            stepped, cursor = await until_stopped(mcp, sid, cursor)
            assert stepped["reason"] == "step" and stepped["location"]["line"] == line_of("inner-return")
            assert "frames" not in stepped["capture"] and "z" in local_values(stepped["capture"]["locals"])

            # Run to: a bad runTo resumes nothing; a line with code is the next stop, answered.
            await mcp.fails("resume_debugger", "INVALID_ARGUMENT", debugSessionId=sid, stopId=stepped["stop_id"],
                            runTo={"line": line_of("outer-after")})
            ran = await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stepped["stop_id"],
                               runTo={"file": "Scenes.java", "line": line_of("outer-after")}, wait=True,
                               capture={"expressions": ["b"]}, timeoutMs=15000)
            result = ran["result"]
            assert result["run_to"]["status"] == "verified" and "timed_out" not in result
            arrived = result["stop"]
            assert arrived["location"]["line"] == line_of("outer-after") and ran["state"] == "paused"
            assert arrived["breakpoint_ids"] == [result["run_to"]["breakpoint_id"]]
            assert arrived["capture"]["expressions"][0]["value"]["kind"] == "primitive"
            assert (await mcp.ok("get_debugger_state", debugSessionId=sid))["result"]["breakpoints"] == []
            # wait: true with nothing to stop at: timed_out, and the app runs. A runTo line without code in the
            # classes loaded so far is armed as set_debugger_breakpoint arms it: rejected, with the reason.
            idle = await mcp.ok("resume_debugger", debugSessionId=sid, stopId=arrived["stop_id"], wait=True,
                                runTo={"className": SCENES, "line": line_of("no-code")}, timeoutMs=500)
            no_code = idle["result"]["run_to"]
            assert no_code["status"] == "rejected" and no_code["reason"]["code"] == "DEBUGGER_LOCATION_UNAVAILABLE"
            assert idle["result"]["timed_out"] is True and idle["state"] == "running"
            armed = (await mcp.ok("get_debugger_state", debugSessionId=sid))["result"]["breakpoints"]
            assert [b["breakpoint_id"] for b in armed] == [no_code["breakpoint_id"]]
            # until: "stopped" with nothing to stop at: timed_out too, with what did come.
            newest = (await mcp.ok("get_debugger_state", debugSessionId=sid))["result"]["events"]["newest_sequence"]
            quiet = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=newest, timeoutMs=300,
                                 until="stopped")
            assert quiet["timed_out"] is True
            await mcp.fails("wait_for_debugger_event", "INVALID_ARGUMENT", debugSessionId=sid, until="paused")

            # A spec-025 resume answers as it did.
            bp2 = (await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=SCENES,
                                line=line_of("outer-first")))["result"]
            assert "capture" not in bp2
            plain, _ = await mcp.wait_for(sid, "stopped", quiet["next_cursor"])
            assert "capture" not in plain["stop"] and plain["stop"]["frame_id"].endswith(".f0")
            # That stop is the next one: the run-to breakpoint went with it, unhit.
            held = (await mcp.ok("get_debugger_state", debugSessionId=sid))["result"]["breakpoints"]
            assert [b["breakpoint_id"] for b in held] == [bp2["breakpoint_id"]]
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=bp2["breakpoint_id"])
            resumed = await mcp.ok("resume_debugger", debugSessionId=sid, stopId=plain["stop"]["stop_id"])
            assert resumed["result"] == {"acknowledged": True}
            await mcp.ok("detach_debugger", debugSessionId=sid)


async def test_exception_breakpoint_capture_over_stdio(throws: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with stdio(tmp_path) as mcp:
            sid = await mcp.attach_jvm(throws)
            await mcp.fails("set_debugger_exception_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid,
                            capture={"expressions": ["why ==="]})
            bp = (await mcp.ok("set_debugger_exception_breakpoint", debugSessionId=sid,
                               exceptionClass="com.example.debuggee.Throws$BadInput", caught=True,
                               capture={"stack": 2, "expressions": ["why"]}))["result"]
            assert bp["capture"] == {"stack": 2, "locals": False, "expressions": ["why"]}
            throws.send("caught")
            stop, _ = await until_stopped(mcp, sid, 0)
            assert stop["reason"] == "exception" and stop["exception"]["message"] == "bad input 42"
            assert [f["method"] for f in stop["capture"]["frames"]] == ["reject", "caught"]
            assert stop["capture"]["expressions"][0]["value"]["value"] == "bad input 42"
            assert "locals" not in stop["capture"]  # values only on request
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            await mcp.ok("detach_debugger", debugSessionId=sid)

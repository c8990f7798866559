"""The Android journey on the adb testbed under each ART quirk clients that ran devices report, and all at once.

The app is a JVM behind tests/adb/art_quirks_app.py: a registrar on adbd's @jdwp-control that proxies the
debugger's connection to the JVM's agent packet by packet and changes what a quirk names (docs/reliability.md,
"ART as devices show it", has each quirk's source). The journey: attach; a breakpoint; its stop; stack;
locals; a step over and its stop; resume and the next stop; detach with cleanup complete, the app still
running. No call may hang past its deadline and the session must not end on its own.
"""

from __future__ import annotations

import pytest
import trio
from mcpkit import Mcp, connect, heartbeat_line

import jdwp
from adb.art_standins import start_behind
from adb.testbed import AppProcess, Apps, Testbed
from jdwp.client import DDM_REPLY_WINDOW
from jdwp.protocol.commands import VirtualMachine
from jdwp.protocol.commands.events import DdmChunk
from pyjdwp_android import DebuggerBusy, ddm
from pyjdwp_android.frozen import open_app_jdwp_stream

pytestmark = pytest.mark.live

QUIRKS = ("early-apnm", "queue", "ddm", "ddm-names", "events-first", "lines", "dalvik")


def target(bed: Testbed, app_id: str) -> dict[str, object]:
    return {"platform": "android", "deviceId": bed.serial, "appId": app_id}


async def start_quirky_app(apps: Apps, bed: Testbed, app_id: str, quirks: str) -> AppProcess:
    return await start_behind(apps, bed, app_id, "art_quirks_app.py", quirks)


async def journey(mcp: Mcp, bed: Testbed, app: AppProcess, quirks: set[str]) -> None:
    attached = await mcp.ok("attach_debugger", **target(bed, app.name))
    sid = attached["debug_session_id"]
    if quirks & {"ddm", "ddm-names"}:
        # A placeholder (<pre-initialized>, "") is never the app's name, whichever of HELO and APNM came first:
        # with the real name in the APNM before HELO's reply, attach says it; with it in the APNM after, attach
        # may answer before that APNM is read, and then says no name rather than the placeholder.
        said = attached["target"]["app"].get("app_name")
        assert said == app.name if "ddm-names" in quirks else said in (None, app.name), attached["target"]
    if "dalvik" in quirks:
        assert attached["result"]["vm"]["name"] == "Dalvik"
    if "queue" in quirks:
        # API 28-34 queue a second debugger unanswered: told apart from a frozen app, and said quickly.
        started = trio.current_time()
        with pytest.raises(DebuggerBusy, match="queues a second debugger"):
            await open_app_jdwp_stream(bed.client(), bed.serial, app.pid)
        assert trio.current_time() - started < 15
    line = heartbeat_line()
    bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className="Heartbeat", line=line)
    assert bp["result"]["status"] == "verified"
    event, cursor = await mcp.wait_for(sid, "stopped")
    stop = event["stop"]
    assert (stop["location"]["method"], stop["location"]["line"]) == ("beat", line)
    stack = await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"], threadId=stop["thread_id"])
    assert [f["method"] for f in stack["result"]["frames"]] == ["beat", "main"]
    found = await mcp.ok("get_debugger_locals", debugSessionId=sid, stopId=stop["stop_id"],
                         frameId=stack["result"]["frames"][0]["frame_id"])
    assert [n["name"] for n in found["result"]["locals"]] == ["n"]
    await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=bp["result"]["breakpoint_id"])
    await mcp.ok("step_debugger", debugSessionId=sid, stopId=stop["stop_id"], threadId=stop["thread_id"], kind="over")
    event, cursor = await mcp.wait_for(sid, "stopped", cursor)
    stepped = event["stop"]
    assert stepped["reason"] == "step" and "reasons" not in stepped and stepped["location"]["line"] == line + 1
    bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className="Heartbeat", line=line)
    await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stepped["stop_id"])
    event, cursor = await mcp.wait_for(sid, "stopped", cursor)
    assert event["stop"]["location"]["line"] == line
    detached = await mcp.ok("detach_debugger", debugSessionId=sid)
    assert detached["state"] == "detached" and detached["cleanup"]["status"] == "complete", detached
    assert detached["cleanup"]["execution_state"] == "running"


@pytest.mark.parametrize("quirks", [*QUIRKS, ",".join(QUIRKS[:3] + QUIRKS[4:]), ",".join(QUIRKS[:2] + QUIRKS[3:])],
                         ids=[*QUIRKS, "all-with-ddm", "all-with-ddm-names"])
async def test_the_android_journey_under_art_quirks(testbed: Testbed, apps: Apps, quirks: str) -> None:
    app_id = "com.example.quirks." + quirks.replace(",", ".").replace("-", "")[:60]
    app = await start_quirky_app(apps, testbed, app_id, quirks)
    chosen = set(quirks.split(","))
    with trio.fail_after(120):
        async with connect(adb=testbed.client()) as mcp:
            await journey(mcp, testbed, app, chosen)
    assert app.procs[0].poll() is None, "the app must keep running"


async def test_a_ddm_command_without_an_answer_costs_its_window_only(testbed: Testbed, apps: Apps) -> None:
    """Over the testbed's adb stream: API 28+ sends no reply to a DDM command whose answer is empty (the stand-in
    answers only ``HELO``); ``ddm_request`` reads the silence as ``[]`` and the connection goes on."""
    app = await start_quirky_app(apps, testbed, "com.example.quirks.ddmsilence", "ddm")
    with trio.fail_after(60):
        stream = await open_app_jdwp_stream(testbed.client(), testbed.serial, app.pid)
        async with jdwp.open_jdwp(stream, handshake=False) as vm:
            hello = await vm.ddm_request(DdmChunk(ddm.HELO, ddm.hello_request()))
            assert [chunk.type for chunk in hello] == [ddm.HELO]
            started = trio.current_time()
            assert await vm.ddm_request(DdmChunk(ddm.chunk_type("HPIF"), b"\x01")) == []
            assert trio.current_time() - started < DDM_REPLY_WINDOW + 2
            assert (await vm.request(VirtualMachine.Version)).jdwp_major >= 1

"""Breakpoint editing (docs/design.md §3.5, issue 24 item 6) through the installed ``pyjdwp-mcp`` over stdio,
against a real OpenJDK 17 (the fixture's main loop calls ``Worker.step(i++)`` every 5 ms):

- ``remove_debugger_breakpoint`` with ``breakpointIds`` and ``all: true`` (``breakpointId`` as before); an
  unknown ID among several removes none, and a call giving none or two of the choices is INVALID_ARGUMENT;
- ``update_debugger_breakpoint``: a logpoint's message and condition changed in place (same ID, new
  messages), disabled (its requests cleared: no more events, status ``disabled``, still listed) and enabled
  again (bound anew, events again); a breakpoint given a condition stops only where it holds; an exception
  breakpoint disabled and enabled; bad input (a condition that does not parse, a message on a breakpoint
  that stops, an option on an exception breakpoint, nothing to change, an unknown or removed ID) changes
  nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
from mcpkit import WORKER, Mcp, heartbeats_continue, line_of, stdio_mcp

from support.jvm import Debuggee

pytestmark = pytest.mark.live

STEP = line_of("step")


async def _breakpoints(mcp: Mcp, sid: str) -> dict[str, dict[str, Any]]:
    state = await mcp.ok("get_debugger_state", debugSessionId=sid)
    return {bp["breakpoint_id"]: bp for bp in state["result"]["breakpoints"]}


async def _newest(mcp: Mcp, sid: str) -> int:
    return int((await mcp.ok("get_debugger_state", debugSessionId=sid))["result"]["events"]["newest_sequence"])


async def _logged(mcp: Mcp, sid: str, bp_id: str, cursor: int, prefix: str) -> tuple[dict[str, Any], int]:
    """The first logpoint event of ``bp_id`` after ``cursor`` whose message starts with ``prefix``."""
    while True:
        body = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor, timeoutMs=2000)
        for event in body["events"]:
            if event["kind"] == "logpoint" and event["breakpoint_id"] == bp_id and event["message"].startswith(
                    prefix):
                return event, event["sequence"]
        cursor = body["next_cursor"]


async def _quiet(mcp: Mcp, sid: str, bp_id: str, cursor: int, seconds: float = 1.0) -> None:
    """No event of ``bp_id`` after ``cursor`` for ``seconds`` (the loop hits its line every 5 ms)."""
    with trio.move_on_after(seconds):
        while True:
            body = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor, timeoutMs=500)
            assert not [e for e in body["events"] if e.get("breakpoint_id") == bp_id or bp_id in (
                e.get("stop") or {}).get("breakpoint_ids", ())], body["events"]
            cursor = body["next_cursor"]


async def test_remove_several_or_all_and_bad_input_removes_none(shared_jvm: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(120):
        async with stdio_mcp(tmp_path / "stderr.txt") as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            ids = []
            for line in (STEP, STEP + 1):
                bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=WORKER, line=line,
                                  condition="i < 0")  # verified, never stops
                ids.append(bp["result"]["breakpoint_id"])
            thrown = await mcp.ok("set_debugger_exception_breakpoint", debugSessionId=sid,
                                  exceptionClass="java.lang.IllegalStateException")
            ids.append(thrown["result"]["breakpoint_id"])
            plain = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=WORKER, line=STEP,
                                 condition="i < -1")
            ids.append(plain["result"]["breakpoint_id"])
            never = ids[0].rsplit("-", 1)[0] + "-999"

            # Bad input changes nothing.
            await mcp.fails("remove_debugger_breakpoint", "DEBUGGER_NOT_FOUND", debugSessionId=sid,
                            breakpointIds=[ids[0], never])
            await mcp.fails("remove_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid)
            await mcp.fails("remove_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid,
                            breakpointId=ids[0], all=True)
            await mcp.fails("remove_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid, breakpointIds=[])
            assert list(await _breakpoints(mcp, sid)) == ids

            removed = await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointIds=ids[:3])
            assert removed["result"] == {"breakpoint_ids": ids[:3], "removed": True}
            assert list(await _breakpoints(mcp, sid)) == ids[3:]
            again = await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointIds=[ids[1], ids[3]])
            assert again["result"]["breakpoint_ids"] == [ids[1], ids[3]]
            assert await _breakpoints(mcp, sid) == {}
            one = await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=ids[0])
            assert one["result"] == {"breakpoint_id": ids[0], "removed": True}  # spec 025's answer, unchanged

            kept = []
            for _ in range(3):
                bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=WORKER, line=STEP)
                kept.append(bp["result"]["breakpoint_id"])
            cursor = await _newest(mcp, sid)
            everything = await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, all=True)
            assert everything["result"]["breakpoint_ids"] == kept
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            if state["state"] == "paused":  # a stop that came before the removal: release it
                await mcp.ok("resume_debugger", debugSessionId=sid, stopId=state["result"]["stop"]["stop_id"])
                cursor = await _newest(mcp, sid)
            for bp_id in kept:
                await _quiet(mcp, sid, bp_id, cursor, 0.5)
            assert (await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, all=True))["result"][
                "breakpoint_ids"] == []
            await mcp.ok("detach_debugger", debugSessionId=sid)


async def test_update_a_logpoint_in_place_disable_and_enable_it(shared_jvm: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(150):
        async with stdio_mcp(tmp_path / "stderr.txt") as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            set_ = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=WORKER, line=STEP,
                                action="log", logMessage="a{i}", maxHits=10_000)
            bp_id = set_["result"]["breakpoint_id"]
            _, cursor = await _logged(mcp, sid, bp_id, 0, "a")

            changed = await mcp.ok("update_debugger_breakpoint", debugSessionId=sid, breakpointId=bp_id,
                                   logMessage="b{i}")
            assert changed["result"]["breakpoint_id"] == bp_id and changed["result"]["status"] == "verified"
            assert changed["result"]["log_message"] == "b{i}" and changed["result"]["action"] == "log"
            assert changed["result"]["locations"] == set_["result"]["locations"]
            _, cursor = await _logged(mcp, sid, bp_id, cursor, "b")

            even = await mcp.ok("update_debugger_breakpoint", debugSessionId=sid, breakpointId=bp_id,
                                condition="i % 2 == 0")
            assert even["result"]["condition"] == "i % 2 == 0" and even["result"]["log_message"] == "b{i}"
            mark = await _newest(mcp, sid)
            for _ in range(5):
                event, mark = await _logged(mcp, sid, bp_id, mark, "b")
                assert int(event["message"][1:]) % 2 == 0, event

            # Bad input changes nothing.
            before = (await _breakpoints(mcp, sid))[bp_id]
            failed = await mcp.fails("update_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid,
                                     breakpointId=bp_id, condition="i +", enabled=False)
            assert "column" in failed["error"]["message"]
            await mcp.fails("update_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid, breakpointId=bp_id)
            await mcp.fails("update_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid, breakpointId=bp_id,
                            logMessage="{")
            after = (await _breakpoints(mcp, sid))[bp_id]
            assert {k: v for k, v in after.items() if k not in ("hits", "dropped")} == {
                k: v for k, v in before.items() if k not in ("hits", "dropped")}

            cleared = await mcp.ok("update_debugger_breakpoint", debugSessionId=sid, breakpointId=bp_id,
                                   condition=None)
            assert "condition" not in cleared["result"]
            _, cursor = await _logged(mcp, sid, bp_id, await _newest(mcp, sid), "b")

            off = await mcp.ok("update_debugger_breakpoint", debugSessionId=sid, breakpointId=bp_id, enabled=False)
            assert off["result"]["status"] == "disabled" and off["result"]["locations"] == []
            assert (await _breakpoints(mcp, sid))[bp_id]["status"] == "disabled"  # kept
            await _quiet(mcp, sid, bp_id, await _newest(mcp, sid))
            again = await mcp.ok("update_debugger_breakpoint", debugSessionId=sid, breakpointId=bp_id, enabled=False)
            assert again["result"]["status"] == "disabled"  # idempotent

            on = await mcp.ok("update_debugger_breakpoint", debugSessionId=sid, breakpointId=bp_id, enabled=True,
                              logMessage="c{i}")
            assert on["result"]["status"] == "verified" and on["result"]["locations"]
            await _logged(mcp, sid, bp_id, await _newest(mcp, sid), "c")
            await mcp.ok("detach_debugger", debugSessionId=sid)
    await heartbeats_continue(shared_jvm)


async def test_update_a_breakpoint_that_stops_and_an_exception_breakpoint(shared_jvm: Debuggee,
                                                                          tmp_path: Path) -> None:
    with trio.fail_after(150):
        async with stdio_mcp(tmp_path / "stderr.txt") as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            off = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=WORKER, line=STEP)
            bp_id = off["result"]["breakpoint_id"]
            disabled = await mcp.ok("update_debugger_breakpoint", debugSessionId=sid, breakpointId=bp_id,
                                    enabled=False)
            assert disabled["result"]["status"] == "disabled"
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            if state["state"] == "paused":  # a hit before it was disabled
                await mcp.ok("resume_debugger", debugSessionId=sid, stopId=state["result"]["stop"]["stop_id"])
            await _quiet(mcp, sid, bp_id, await _newest(mcp, sid), 0.5)
            assert (await mcp.ok("get_debugger_state", debugSessionId=sid))["state"] == "running"

            await mcp.fails("update_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid, breakpointId=bp_id,
                            logMessage="x{i}")  # a breakpoint that stops has no message
            fives = await mcp.ok("update_debugger_breakpoint", debugSessionId=sid, breakpointId=bp_id,
                                 condition="i % 5 == 0", enabled=True)
            assert fives["result"]["status"] == "verified" and fives["result"]["condition"] == "i % 5 == 0"
            event, _ = await mcp.wait_for(sid, "stopped", await _newest(mcp, sid))
            stop = event["stop"]
            assert stop["breakpoint_ids"] == [bp_id]
            ids = {"debugSessionId": sid, "stopId": stop["stop_id"]}
            frames = (await mcp.ok("get_debugger_stack", threadId=stop["thread_id"], limit=1, **ids))["result"]
            found = await mcp.ok("get_debugger_locals", frameId=frames["frames"][0]["frame_id"], **ids)
            assert int({v["name"]: v.get("value") for v in found["result"]["locals"]}["i"]) % 5 == 0
            await mcp.ok("update_debugger_breakpoint", debugSessionId=sid, breakpointId=bp_id, enabled=False)
            await mcp.ok("resume_debugger", **ids)
            await _quiet(mcp, sid, bp_id, await _newest(mcp, sid), 0.5)

            thrown = await mcp.ok("set_debugger_exception_breakpoint", debugSessionId=sid,
                                  exceptionClass="java.lang.IllegalStateException")
            thrown_id = thrown["result"]["breakpoint_id"]
            await mcp.fails("update_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid,
                            breakpointId=thrown_id, condition="true")
            paused = await mcp.ok("update_debugger_breakpoint", debugSessionId=sid, breakpointId=thrown_id,
                                  enabled=False)
            assert paused["result"] == {**thrown["result"], "status": "disabled"}
            back = await mcp.ok("update_debugger_breakpoint", debugSessionId=sid, breakpointId=thrown_id,
                                enabled=True)
            assert back["result"] == thrown["result"]

            never = bp_id.rsplit("-", 1)[0] + "-999"
            await mcp.fails("update_debugger_breakpoint", "DEBUGGER_NOT_FOUND", debugSessionId=sid,
                            breakpointId=never, enabled=True)
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=bp_id)
            await mcp.fails("update_debugger_breakpoint", "DEBUGGER_NOT_FOUND", debugSessionId=sid,
                            breakpointId=bp_id, enabled=True)
            await mcp.ok("detach_debugger", debugSessionId=sid)
    await heartbeats_continue(shared_jvm)

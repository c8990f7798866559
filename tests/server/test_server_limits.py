"""Time limits, cancellation of a wait, the event ring's overflow and cursor, and privacy of local values,
through the in-memory client against a real JVM.

Limits are a second or so, and nothing asserts an absolute time: each test waits for the ``terminated``
event (or for the JVM to run again) and checks the reason it names.
"""

from __future__ import annotations

import logging

import pytest
import trio
from mcpkit import SECRET, VAULT, WORKER, connect, heartbeats_continue, line_of, wait_for_line

from pyjdwp_server import Config
from support.jvm import Debuggee

pytestmark = pytest.mark.live


async def test_pause_limit_detaches_and_polling_does_not_extend_it(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect(Config(pause_limit_s=1.0)) as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            stop, cursor = await mcp.stop_at(sid, WORKER, line_of("step"))
            # Poll (and inspect) more often than the limit: activity, but never more pause.
            with trio.fail_after(15):
                while True:
                    await mcp.ok("get_debugger_state", debugSessionId=sid)
                    body = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor,
                                        timeoutMs=300)
                    cursor = body["next_cursor"]
                    ended = [e for e in body["events"] if e["kind"] == "terminated"]
                    if ended:
                        break
            assert ended[0]["reason"] == "pause_limit" and "pause limit" in ended[0]["message"]
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["state"] == "detached" and state["result"]["terminal_reason"] == "pause_limit"
            assert state["cleanup"]["status"] == "complete" and state["cleanup"]["execution_state"] == "running"
            await mcp.fails("resume_debugger", "DEBUGGER_STALE_REFERENCE", debugSessionId=sid, stopId=stop["stop_id"])
        await heartbeats_continue(shared_jvm)  # the JVM runs on


async def test_idle_limit_detaches_a_session_nobody_calls(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect(Config(idle_limit_s=1.0)) as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            await mcp.stop_at(sid, WORKER, line_of("step"))  # the last call: paused, then silence
            # Every thread is suspended until the idle limit detaches: heartbeats are the proof, no call.
            await heartbeats_continue(shared_jvm, count=5)
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["state"] == "detached" and state["result"]["terminal_reason"] == "idle_limit"
            terminated, _ = await mcp.wait_for(sid, "terminated")
            assert terminated["reason"] == "idle_limit"


async def test_session_limit_is_not_extended_by_polling(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect(Config(session_limit_s=1.5)) as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            terminated, _ = await mcp.wait_for(sid, "terminated", timeout_ms=300, deadline_s=15)
            assert terminated["reason"] == "session_limit"
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["state"] == "detached" and state["cleanup"]["execution_state"] == "running"
        await heartbeats_continue(shared_jvm)


async def test_a_cancelled_wait_leaves_the_session_intact(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            with trio.move_on_after(0.3) as scope:  # the client gives up on a wait while the app runs
                early = await mcp.call("wait_for_debugger_event", debugSessionId=sid, timeoutMs=30000)
            assert scope.cancelled_caught, f"the wait returned: {early}"
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["state"] == "running" and state["result"]["terminal_reason"] is None
            stop, cursor = await mcp.stop_at(sid, WORKER, line_of("step"))
            with trio.move_on_after(0.3) as scope:  # and on one while it is paused
                early = await mcp.call("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor,
                                       timeoutMs=30000)
            assert scope.cancelled_caught, f"the wait returned: {early}"
            assert (await mcp.ok("get_debugger_state", debugSessionId=sid))["state"] == "paused"
            # The stop and its IDs survived the cancelled waits.
            await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"], threadId=stop["thread_id"])
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            await mcp.ok("detach_debugger", debugSessionId=sid)
        await heartbeats_continue(shared_jvm)


async def test_event_ring_overflow_and_cursor(shared_jvm: Debuggee) -> None:
    never = line_of("vault-never")
    with trio.fail_after(90):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            # 100 breakpoints on a line that never runs; each copy of the class a new class loader loads
            # binds each of them once more: 3 copies, 300 breakpoint_verified events.
            for _ in range(100):
                await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=VAULT, line=never)
            body = await mcp.fails("set_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid,
                                   className=VAULT, line=never)
            assert "100" in body["error"]["message"]
            for _ in range(3):
                mark = len(shared_jvm.lines)
                shared_jvm.send(f"isolated {VAULT}")
                await wait_for_line(shared_jvm, f"^isolated {VAULT}$", after=mark)
            newest = 0
            while newest < 300:  # the ring fills as the binding finishes; each wait returns on news
                newest = (await mcp.ok("get_debugger_state", debugSessionId=sid))["result"]["events"]["newest_sequence"]
                if newest < 300:
                    await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=newest)
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["result"]["events"] == {"newest_sequence": 300, "buffered": 256}

            reads, cursor = [], 0
            while True:
                body = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=cursor,
                                    timeoutMs=100)
                if body["timed_out"]:
                    break
                reads.append(body)
                cursor = body["next_cursor"]
            assert [len(r["events"]) for r in reads] == [100, 100, 56]
            assert [r["overflow"] for r in reads] == [True, False, False]
            sequences = [e["sequence"] for r in reads for e in r["events"]]
            assert sequences == list(range(45, 301))
            assert [r["next_cursor"] for r in reads] == [144, 244, 300]
            assert {e["kind"] for r in reads for e in r["events"]} == {"breakpoint_verified"}
            assert body["events"] == [] and body["next_cursor"] == 300 and body["overflow"] is False

            middle = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=10)
            assert middle["overflow"] is True and middle["events"][0]["sequence"] == 45
            kept = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=44)
            assert kept["overflow"] is False and kept["events"][0]["sequence"] == 45
            await mcp.fails("wait_for_debugger_event", "INVALID_ARGUMENT", debugSessionId=sid, afterSequence=301)
            bp = (await mcp.ok("get_debugger_state", debugSessionId=sid))["result"]["breakpoints"][0]
            assert bp["status"] == "verified" and len(bp["locations"]) >= 3
            await mcp.ok("detach_debugger", debugSessionId=sid)
        await heartbeats_continue(shared_jvm)


async def test_a_secret_local_is_returned_but_never_logged(shared_jvm: Debuggee,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("pyjdwp", "jdwp", "pyjdwp_android", "mcp", "pyjdwp_server"):
        caplog.set_level(logging.DEBUG, logger=name)
    mark = len(shared_jvm.lines)
    shared_jvm.send(f"load {VAULT}")
    with trio.fail_after(60):
        await wait_for_line(shared_jvm, f"^loaded {VAULT}$", after=mark)
        async with connect() as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            stop, _ = await mcp.stop_at(sid, VAULT, line_of("vault-secret"))
            stack = await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                                 threadId=stop["thread_id"])
            found = await mcp.ok("get_debugger_locals", debugSessionId=sid, stopId=stop["stop_id"],
                                 frameId=stack["result"]["frames"][0]["frame_id"])
            (secret,) = [v for v in found["result"]["locals"] if v["name"] == "secret"]
            assert secret["value"] == SECRET  # the client asked, so it gets the value
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            await mcp.ok("detach_debugger", debugSessionId=sid)
    logged = caplog.text
    assert "attach_debugger" in logged, "nothing was logged: the check below would prove nothing"
    for form in (SECRET, SECRET.encode().hex(), SECRET.encode().hex().upper(), "Tr0ub4dor"):
        assert form not in logged

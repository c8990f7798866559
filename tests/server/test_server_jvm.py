"""Every tool through the SDK's in-memory client against a real JVM (``platform: "jvm"``).

The journey (capabilities → attach → breakpoint → wait → stack → locals → step → resume → detach) and the
errors a client meets on the way: stale IDs after resume and after step, not paused, not found, a
rejected breakpoint (DEBUGGER_LOCATION_UNAVAILABLE, a successful answer), the second attach (busy), calls
after detach (disconnected).
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
import trio
from mcpkit import WORKER, agent_address, connect, heartbeats_continue, line_of
from mcpkit import attached as note_attached

from pyjdwp_server.answers.capabilities import CAPABILITIES
from support.jvm import Debuggee

pytestmark = pytest.mark.live

TOOL_NAMES = {
    "get_debugger_capabilities", "attach_debugger", "get_debugger_state", "set_debugger_breakpoint",
    "remove_debugger_breakpoint", "wait_for_debugger_event", "get_debugger_stack", "get_debugger_locals",
    "get_debugger_object", "evaluate_debugger_expression", "step_debugger", "resume_debugger", "detach_debugger",
    "get_debugger_threads", "pause_debugger", "set_debugger_exception_breakpoint", "update_debugger_breakpoint",
    "set_debugger_watchpoint", "set_debugger_value", "redefine_debugger_classes",
}
READ_ONLY = {"get_debugger_capabilities", "get_debugger_state", "wait_for_debugger_event", "get_debugger_stack",
             "get_debugger_locals", "get_debugger_object", "evaluate_debugger_expression", "get_debugger_threads"}


async def test_lists_the_tools_with_schemas_and_hints() -> None:
    with trio.fail_after(20):
        async with connect() as mcp:
            tools = (await mcp.client.list_tools()).tools
    assert {t.name for t in tools} == TOOL_NAMES
    for tool in tools:
        assert tool.description and len(tool.description) > 60, tool.name
        assert tool.input_schema["type"] == "object"
        # Unknown fields are rejected and timeoutMs is accepted everywhere: the instructions say both once.
        assert "additionalProperties" not in tool.input_schema, tool.name
        assert tool.output_schema is not None and "success" in tool.output_schema["required"]
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (tool.name in READ_ONLY), tool.name
    by_name = {t.name: t for t in tools}
    assert "timeoutMs" not in by_name["get_debugger_stack"].input_schema["properties"]  # its deadline: as every tool's
    assert by_name["wait_for_debugger_event"].input_schema["properties"]["timeoutMs"]["default"] == 1000


async def test_journey_on_a_jvm(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        address = await agent_address(shared_jvm)
        async with connect() as mcp:
            caps = await mcp.ok("get_debugger_capabilities", platform="jvm", address=address)
            assert caps["debug_session_id"] is None and caps["state"] is None  # never attaches
            assert caps["result"]["prerequisites"]["jdk_required"] is False
            # A JVM target is not offered Android's launch (a JVM waits for its debugger with suspend=y).
            assert caps["result"]["supported_operations"] == [op for op in CAPABILITIES.operations if op != "launch"]
            assert caps["result"]["limitations"]

            attached = await mcp.ok("attach_debugger", platform="jvm", address=address)
            note_attached(shared_jvm)
            sid = attached["debug_session_id"]
            assert attached["debug_session_id"] == sid and attached["state"] == "running"
            assert attached["target"]["platform"] == "jvm" and attached["device"] == address
            vm = attached["result"]["vm"]
            assert "OpenJDK" in vm["name"] and vm["id_sizes"]["object_id_size"] == 8
            # The profile only: its operations and jdk_required are get_debugger_capabilities' answer (above).
            assert attached["capabilities"] == {"profile": CAPABILITIES.profile} and attached["limitations"]

            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert state["result"]["state"] == "running" and state["result"]["stop"] is None

            # Nothing to inspect yet: the IDs a client might invent are "not paused".
            await mcp.fails("resume_debugger", "DEBUGGER_NOT_PAUSED", debugSessionId=sid, stopId="stop-1")
            await mcp.fails("get_debugger_stack", "DEBUGGER_NOT_PAUSED", debugSessionId=sid, stopId="stop-1",
                            threadId="stop-1.t1")

            # A line without code is an answer, not a failure: rejected with its reason, never moved.
            rejected = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=WORKER, line=3)
            assert rejected["result"]["status"] == "rejected" and rejected["result"]["locations"] == []
            assert rejected["result"]["reason"]["code"] == "DEBUGGER_LOCATION_UNAVAILABLE"
            assert rejected["result"]["requested"] == {"class_name": WORKER, "line": 3}

            stop, cursor = await mcp.stop_at(sid, WORKER, line_of("step"))
            assert stop["reason"] == "breakpoint" and stop["thread_name"] == "main"
            assert stop["location"]["class_name"] == WORKER and stop["location"]["line"] == line_of("step")
            paused = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert paused["state"] == "paused" and paused["result"]["stop"]["stop_id"] == stop["stop_id"]
            assert [b["status"] for b in paused["result"]["breakpoints"]] == ["rejected", "verified"]

            stack = await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                                 threadId=stop["thread_id"], limit=1)
            assert stack["result"]["total"] == 2 and stack["result"]["next_offset"] == 1
            (top,) = stack["result"]["frames"]
            assert (top["index"], top["method"], top["line"]) == (0, "step", line_of("step"))
            rest = await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                                threadId=stop["thread_id"], offset=1)
            assert [f["method"] for f in rest["result"]["frames"]] == ["main"]
            assert rest["result"]["next_offset"] is None and rest["result"]["truncated"] is False

            found = await mcp.ok("get_debugger_locals", debugSessionId=sid, stopId=stop["stop_id"],
                                 frameId=top["frame_id"])
            assert found["result"]["availability"] == "available"
            values = {v["name"]: v for v in found["result"]["locals"]}
            assert values["big"]["value"] == str((1 << 60) + 7)  # a long past 2^53 stays exact, as text
            assert values["initial"]["value"] == "Z" and values["nothing"]["kind"] == "null"
            # Only the keys that say something: the declared type says the kind and the runtime type.
            assert "kind" not in values["greeting"] and values["greeting"]["value"].startswith("h\u00e9llo ")
            assert all(isinstance(v["value"], str) for v in values.values() if "value" in v)
            assert values["self"]["type"] == "com.example.debuggee.Worker" and "runtime_type" not in values["self"]
            assert values["i"] == {"name": "i", "type": "int", "value": values["i"]["value"]}
            mixed = await mcp.ok("get_debugger_object", debugSessionId=sid, stopId=stop["stop_id"],
                                 objectId=values["mixed"]["object_id"])
            assert [(e.get("kind"), e.get("runtime_type")) for e in mixed["result"]["elements"]] == [
                (None, "java.lang.String"), (None, "java.lang.Integer"), ("null", None)]  # the runtime type says it
            text = await mcp.ok("get_debugger_object", debugSessionId=sid, stopId=stop["stop_id"],
                                objectId=values["greeting"]["object_id"], offset=6, limit=2)
            assert text["result"]["text"] == "\U0001F600" and text["result"]["length"] == 18
            await mcp.fails("get_debugger_object", "INVALID_ARGUMENT", debugSessionId=sid, stopId=stop["stop_id"],
                            objectId=values["mixed"]["object_id"], limit=1001)
            await mcp.fails("get_debugger_object", "DEBUGGER_NOT_FOUND", debugSessionId=sid, stopId=stop["stop_id"],
                            objectId="obj-424242")

            async def evaluate(expression: str) -> dict[str, Any]:
                return await mcp.call("evaluate_debugger_expression", debugSessionId=sid, stopId=stop["stop_id"],
                                      frameId=top["frame_id"], expression=expression)

            summed = await evaluate("big + 1")
            assert summed["success"] and summed["result"] == {
                "kind": "primitive", "value": str((1 << 60) + 8)}  # no length, no object_id, nothing was cut
            element = (await evaluate("mixed[1]"))["result"]
            assert element["runtime_type"] == "java.lang.Integer" and element["object_id"] == (
                mixed["result"]["elements"][1]["object_id"])  # the session's handle, as get_debugger_object gave
            assert (await evaluate("greeting == greeting && mixed.length == 3"))["result"]["value"] == "true"
            null = await evaluate("nothing.field")
            assert null["error"]["code"] == "DEBUGGER_EVALUATION_FAILED" and null["error"]["retryable"] is False
            assert "null dereference" in null["error"]["message"]
            bad = await evaluate("big +")
            assert bad["error"]["code"] == "INVALID_ARGUMENT" and "column 6" in bad["error"]["message"]

            # Step: the old stop's IDs expire at once; the new stop arrives as an event.
            stepped = await mcp.ok("step_debugger", debugSessionId=sid, stopId=stop["stop_id"],
                                   threadId=stop["thread_id"], kind="over")
            assert stepped["result"]["acknowledged"] is True and stepped["state"] == "running"
            for name, extra in (("get_debugger_stack", {"threadId": stop["thread_id"]}),
                                ("get_debugger_locals", {"frameId": top["frame_id"]}),
                                ("get_debugger_object", {"objectId": values["mixed"]["object_id"]}),
                                ("evaluate_debugger_expression", {"frameId": top["frame_id"], "expression": "big"}),
                                ("resume_debugger", {}),
                                ("step_debugger", {"threadId": stop["thread_id"], "kind": "into"})):
                await mcp.fails(name, "DEBUGGER_STALE_REFERENCE", retryable=False, debugSessionId=sid,
                                stopId=stop["stop_id"], **extra)
            step_event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            step_stop = step_event["stop"]
            assert step_stop["reason"] == "step" and step_stop["location"]["line"] == line_of("step") + 1

            # A frame ID of the current stop that was never issued is not found (not stale): frame IDs come
            # from get_debugger_stack (frame 0's with the stop: frame_id), and the message says so.
            assert step_stop["frame_id"] == f"{step_stop['thread_id']}.f0"
            hand_built = await mcp.fails("get_debugger_locals", "DEBUGGER_NOT_FOUND", debugSessionId=sid,
                                         stopId=step_stop["stop_id"], frameId=f"{step_stop['thread_id']}.f1")
            assert "get_debugger_stack" in hand_built["error"]["message"]

            # Remove the breakpoint (twice: still fine), resume: the old stop's IDs are stale now too.
            bp_id = paused["result"]["breakpoints"][1]["breakpoint_id"]
            for _ in range(2):
                removed = await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=bp_id)
                assert removed["result"]["removed"] is True
            await mcp.fails("remove_debugger_breakpoint", "DEBUGGER_NOT_FOUND", debugSessionId=sid,
                            breakpointId="bp-99")
            resumed = await mcp.ok("resume_debugger", debugSessionId=sid, stopId=step_stop["stop_id"])
            assert resumed["result"]["acknowledged"] is True and resumed["state"] == "running"
            await mcp.fails("get_debugger_stack", "DEBUGGER_STALE_REFERENCE", debugSessionId=sid,
                            stopId=step_stop["stop_id"], threadId=step_stop["thread_id"])
            await mcp.fails("resume_debugger", "DEBUGGER_STALE_REFERENCE", debugSessionId=sid,
                            stopId=step_stop["stop_id"])
            await heartbeats_continue(shared_jvm)

            detached = await mcp.ok("detach_debugger", debugSessionId=sid)
            assert detached["state"] == "detached"
            assert detached["cleanup"]["status"] == "complete" and detached["cleanup"]["execution_state"] == "running"
            again = await mcp.ok("detach_debugger", debugSessionId=sid)  # idempotent
            assert again["state"] == "detached" and again["cleanup"] == detached["cleanup"]

            # After detach: the summary stays readable; the session's stop, thread and frame IDs are stale
            # (the message says the session ended); everything else that needs the VM is disconnected.
            ended = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert ended["result"]["terminal_reason"] == "detached" and ended["result"]["stop"] is None
            terminated, _ = await mcp.wait_for(sid, "terminated", cursor)
            assert terminated["reason"] == "detached"
            for name, extra in (("get_debugger_stack", {"stopId": step_stop["stop_id"],
                                                        "threadId": step_stop["thread_id"]}),
                                ("get_debugger_locals", {"stopId": step_stop["stop_id"], "frameId": top["frame_id"]}),
                                ("get_debugger_locals", {"stopId": stop["stop_id"], "frameId": "x"}),
                                ("step_debugger", {"stopId": step_stop["stop_id"],
                                                   "threadId": step_stop["thread_id"], "kind": "out"}),
                                ("resume_debugger", {"stopId": step_stop["stop_id"]})):
                stale = await mcp.fails(name, "DEBUGGER_STALE_REFERENCE", retryable=False, debugSessionId=sid,
                                        **extra)
                assert "session" in stale["error"]["message"] and "ended" in stale["error"]["message"]
            for name, extra in (("set_debugger_breakpoint", {"className": WORKER, "line": line_of("step")}),
                                ("remove_debugger_breakpoint", {"breakpointId": bp_id}),
                                ("resume_debugger", {"stopId": "stop-99"})):
                await mcp.fails(name, "DEBUGGER_DISCONNECTED", retryable=False, debugSessionId=sid, **extra)
            await mcp.fails("get_debugger_state", "DEBUGGER_NOT_FOUND", debugSessionId="dbg-000000000000")
            await mcp.fails("wait_for_debugger_event", "DEBUGGER_NOT_FOUND", debugSessionId="dbg-000000000000")
            await mcp.fails("detach_debugger", "DEBUGGER_NOT_FOUND", debugSessionId="nope")

            # The address is free again: a new session attaches.
            sid2 = await mcp.attach_jvm(shared_jvm)
            assert sid2 != sid
            await mcp.ok("detach_debugger", debugSessionId=sid2)
        await heartbeats_continue(shared_jvm)


async def test_step_into_and_out(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            stop, cursor = await mcp.stop_at(sid, "com.example.debuggee.Main", line_of("main-loop"))
            bp = (await mcp.ok("get_debugger_state", debugSessionId=sid))["result"]["breakpoints"][0]
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=bp["breakpoint_id"])
            await mcp.ok("step_debugger", debugSessionId=sid, stopId=stop["stop_id"], threadId=stop["thread_id"],
                         kind="into", stepFilters=False)  # app code to app code: the same landing either way
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            into = event["stop"]
            assert into["reason"] == "step" and into["location"]["class_name"] == WORKER
            assert into["location"]["method"] == "step"
            await mcp.ok("step_debugger", debugSessionId=sid, stopId=into["stop_id"], threadId=into["thread_id"],
                         kind="out")
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            out = event["stop"]
            assert out["location"]["class_name"] == "com.example.debuggee.Main" and out["reason"] == "step"
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=out["stop_id"])
            await mcp.ok("detach_debugger", debugSessionId=sid)
        await heartbeats_continue(shared_jvm)


async def test_stack_and_step_default_to_the_stops_own_thread(shared_jvm: Debuggee) -> None:
    """An agent that leaves threadId out means the thread that stopped; a pause has none, and says which to give."""
    with trio.fail_after(60):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            stop, cursor = await mcp.stop_at(sid, "com.example.debuggee.Main", line_of("main-loop"))
            bp = (await mcp.ok("get_debugger_state", debugSessionId=sid))["result"]["breakpoints"][0]
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=bp["breakpoint_id"])
            stack = await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"])
            assert stack["result"]["frames"][0]["frame_id"] == stop["frame_id"]
            await mcp.ok("step_debugger", debugSessionId=sid, stopId=stop["stop_id"], kind="into", stepFilters=False)
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            into = event["stop"]
            assert into["reason"] == "step" and into["location"]["method"] == "step"
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=into["stop_id"])
            paused = (await mcp.ok("pause_debugger", debugSessionId=sid))["result"]["stop"]
            for name, extra in (("get_debugger_stack", {}), ("step_debugger", {"kind": "over"})):
                refused = await mcp.fails(name, "INVALID_ARGUMENT", debugSessionId=sid, stopId=paused["stop_id"],
                                          **extra)
                assert "give threadId, from get_debugger_threads" in refused["error"]["message"]
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=paused["stop_id"])
            await mcp.ok("detach_debugger", debugSessionId=sid)
        await heartbeats_continue(shared_jvm)


async def test_detach_while_paused_releases_the_vm(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            stop, _ = await mcp.stop_at(sid, WORKER, line_of("step"))
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)
            assert detached["state"] == "detached"
            assert detached["cleanup"] == {"status": "complete", "execution_state": "running"}  # nothing remains
            await mcp.fails("get_debugger_stack", "DEBUGGER_STALE_REFERENCE", debugSessionId=sid,
                            stopId=stop["stop_id"], threadId=stop["thread_id"])
        await heartbeats_continue(shared_jvm)


async def test_session_calls_name_the_jvm_target_and_its_limitations_compactly(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect() as mcp:
            address = await agent_address(shared_jvm)
            caps = await mcp.ok("get_debugger_capabilities", platform="jvm", address=address)
            assert not any("isn't responding" in text for text in caps["result"]["limitations"])
            attached = await mcp.ok("attach_debugger", platform="jvm", address=address)
            note_attached(shared_jvm)
            sid = attached["debug_session_id"]
            assert attached["target"]["address"] == address  # in full at attach
            assert not any("isn't responding" in text for text in attached["limitations"])
            assert attached["capabilities"] == {"profile": CAPABILITIES.profile}  # the profile's: capabilities' answer
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            # The address is the envelope's device; Android's ANRs are no JVM's limitation.
            assert state["device"] == address and state["target"] == {"platform": "jvm"}
            assert "android_anr" not in state["limitations"] and "no_invocation" in state["limitations"]
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)
            assert detached["target"] == {"platform": "jvm"} and detached["cleanup"]["status"] == "complete"
        await heartbeats_continue(shared_jvm)


async def test_file_breakpoints_and_bad_input_that_changes_nothing(shared_jvm: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            path = "app/src/main/java/com/example/debuggee/Worker.java"
            bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, file=path, line=line_of("step"))
            result = bp["result"]
            assert result["status"] == "verified" and result["requested"] == {"file": path, "line": line_of("step")}
            (location,) = result["locations"]
            assert (location["class_name"], location["source"], location["line"]) == (
                WORKER, "Worker.java", line_of("step"))
            assert "inlined" not in location  # shown only for inlined code
            for bad in ({"className": WORKER, "file": "Worker.java"}, {}, {"file": "a/../Worker.java"},
                        {"file": "Worker.java\x00"}, {"file": "com/example/"}, {"file": "Worker.java", "line": 0},
                        {"className": "com.example.debuggee.Worker.", "line": 5}):
                arguments = {"line": line_of("step"), **bad}
                await mcp.fails("set_debugger_breakpoint", "INVALID_ARGUMENT", debugSessionId=sid, **arguments)
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert [b["breakpoint_id"] for b in state["result"]["breakpoints"]] == [result["breakpoint_id"]]
            event, _ = await mcp.wait_for(sid, "stopped")
            assert event["stop"]["breakpoint_ids"] == [result["breakpoint_id"]]
            assert event["stop"]["location"]["source"] == "Worker.java"
            pending = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, file="Nowhere.kt", line=3)
            assert pending["result"]["status"] == "pending" and "reason" not in pending["result"]
            hint = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=f"{WORKER}.Inner", line=3)
            assert hint["result"]["status"] == "pending"
            assert hint["result"]["reason"]["code"] == "DEBUGGER_NEAR_MISS"
            await mcp.ok("detach_debugger", debugSessionId=sid)
        await heartbeats_continue(shared_jvm)


async def test_attach_to_a_jvm_waiting_with_suspend_y_answers_paused(suspended_debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with connect() as mcp:
            address = f"127.0.0.1:{suspended_debuggee.port}"
            attached = await mcp.ok("attach_debugger", platform="jvm", address=address)
            sid = attached["debug_session_id"]
            assert attached["state"] == "paused"
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            stop = state["result"]["stop"]
            assert stop["reason"] == "vm_start" and stop["thread_name"] == "main"
            assert stop["location"] is None and "before main" in stop["note"]
            event, _ = await mcp.wait_for(sid, "stopped")
            assert event["stop"] == stop
            # Breakpoints set now bind as classes load; resuming lets main start.
            bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=WORKER, line=line_of("step"))
            assert bp["result"]["status"] == "pending"
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            event, _ = await mcp.wait_for(sid, "stopped", event["sequence"])
            assert event["stop"]["breakpoint_ids"] == [bp["result"]["breakpoint_id"]]
            await mcp.ok("detach_debugger", debugSessionId=sid)
        await heartbeats_continue(suspended_debuggee)


async def test_ids_of_another_session_are_refused(shared_jvm: Debuggee, debuggee: Debuggee) -> None:
    """Two sessions stopped at once: every stop, thread, frame and breakpoint ID names its session, so a
    mixed-up debugSessionId never acts on the other session's stop with the same number."""
    with trio.fail_after(60):
        async with connect() as mcp:
            first = await mcp.attach_jvm(shared_jvm)
            second = await mcp.attach_jvm(debuggee)
            stop_a, _ = await mcp.stop_at(first, WORKER, line_of("step"))
            stop_b, _ = await mcp.stop_at(second, WORKER, line_of("step"))
            assert stop_a["stop_id"] != stop_b["stop_id"] and stop_a["thread_id"] != stop_b["thread_id"]
            frames = await mcp.ok("get_debugger_stack", debugSessionId=first, stopId=stop_a["stop_id"],
                                  threadId=stop_a["thread_id"], limit=1)
            frame_a = frames["result"]["frames"][0]["frame_id"]
            bps = (await mcp.ok("get_debugger_state", debugSessionId=first))["result"]["breakpoints"]
            for name, extra in (("get_debugger_stack", {"stopId": stop_a["stop_id"], "threadId": stop_a["thread_id"]}),
                                ("get_debugger_stack", {"stopId": stop_b["stop_id"], "threadId": stop_a["thread_id"]}),
                                ("get_debugger_locals", {"stopId": stop_b["stop_id"], "frameId": frame_a}),
                                ("resume_debugger", {"stopId": stop_a["stop_id"]}),
                                ("remove_debugger_breakpoint", {"breakpointId": bps[0]["breakpoint_id"]})):
                body = await mcp.fails(name, "DEBUGGER_NOT_FOUND", debugSessionId=second, **extra)
                assert "another debugging session" in body["error"]["message"]
            # Neither session was touched: both stops are still current.
            for sid, stop in ((first, stop_a), (second, stop_b)):
                state = await mcp.ok("get_debugger_state", debugSessionId=sid)
                assert state["result"]["stop"]["stop_id"] == stop["stop_id"]
                await mcp.ok("detach_debugger", debugSessionId=sid)
        await heartbeats_continue(shared_jvm)


async def test_closing_the_server_while_paused_detaches_cleanly(shared_jvm: Debuggee,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="pyjdwp.server")
    with trio.fail_after(60):
        async with connect() as mcp:
            sid = await mcp.attach_jvm(shared_jvm)
            await mcp.stop_at(sid, WORKER, line_of("step"))
        # The client has gone with the VM paused: the server's lifespan detached the session.
        await heartbeats_continue(shared_jvm)
    assert f"session {sid} ended (shutdown); cleanup complete, app running" in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text

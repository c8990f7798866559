"""The tools with ``platform: "android"`` through the adb testbed: a real adb server, a real adbd, and JVMs
registered on its @jdwp-control as app processes (tests/adb/testbed.py).

The journey over both adb transports, and every Android error: DEVICE_UNAVAILABLE, PROCESS_NOT_FOUND,
PROCESS_AMBIGUOUS, DEBUGGER_UNSUPPORTED, DEBUGGER_BUSY (the device taken by our own session, and the app
taken by another debugger), PROCESS_CHANGED (the process exits as the debugger connects).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import trio
from mcpkit import Mcp, connect, heartbeat_line

from adb.testbed import Apps, Testbed
from pyjdwp_android.transport import open_jdwp_stream
from pyjdwp_server import Config
from support.jvm import find_mark, kotlin_classpath

pytestmark = pytest.mark.live

HERE = Path(__file__).resolve().parent


def target(bed: Testbed, app_id: str, **extra: object) -> dict[str, object]:
    return {"platform": "android", "deviceId": bed.serial, "appId": app_id, **extra}


async def _capabilities(mcp: Mcp, bed: Testbed, app_id: str) -> dict[str, object]:
    body = await mcp.ok("get_debugger_capabilities", **target(bed, app_id))
    assert body["debug_session_id"] is None
    return body["result"]


@pytest.mark.parametrize("transport", ["direct", "forward"])
async def test_android_journey(testbed: Testbed, apps: Apps, transport: str) -> None:
    app_id = f"com.example.server.{transport}"
    testbed.install_package(app_id, 10200)
    app = await apps.start(app_id)
    other = await apps.start(f"{app_id}.other")
    client = testbed.client()
    line = heartbeat_line()
    with trio.fail_after(90):
        async with connect(Config(adb_transport=transport), adb=client) as mcp:
            caps = await _capabilities(mcp, testbed, app_id)
            prerequisites = caps["prerequisites"]
            assert prerequisites["jdk_required"] is False and prerequisites["adb"]["available"] is True
            assert prerequisites["device"]["state"] == "device"
            (candidate,) = caps["candidates"]
            assert candidate["pid"] == app.pid and candidate["name"] == app_id
            assert candidate["debuggable"] is True and candidate["busy"] is False
            assert candidate["start_identity"]["start_ticks"] is not None

            attached = await mcp.ok("attach_debugger", **target(testbed, app_id))
            sid = attached["debug_session_id"]
            assert attached["device"] == testbed.serial and attached["state"] == "running"
            assert attached["target"]["platform"] == "android" and attached["target"]["pid"] == app.pid
            assert attached["target"]["process_name"] == app_id and attached["target"]["uid"] is not None
            assert "OpenJDK" in attached["result"]["vm"]["name"]
            (candidate,) = (await _capabilities(mcp, testbed, app_id))["candidates"]
            assert candidate["busy"] is True

            # One session per device: another app on the same device is refused before any connection.
            await mcp.fails("attach_debugger", "DEBUGGER_BUSY", **target(testbed, other.name))

            bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className="Heartbeat", line=line)
            assert bp["result"]["status"] == "verified"
            event, cursor = await mcp.wait_for(sid, "stopped")
            stop = event["stop"]
            assert stop["location"] == {"class_name": "Heartbeat", "method": "beat", "source": "Heartbeat.java",
                                        "line": line, "code_index": stop["location"]["code_index"]}
            stack = await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                                 threadId=stop["thread_id"])
            assert [f["method"] for f in stack["result"]["frames"]] == ["beat", "main"]
            found = await mcp.ok("get_debugger_locals", debugSessionId=sid, stopId=stop["stop_id"],
                                 frameId=stack["result"]["frames"][0]["frame_id"])
            (n,) = found["result"]["locals"]
            assert n["name"] == "n" and n["type"] == "int" and int(n["value"]) >= 0

            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            again, cursor = await mcp.wait_for(sid, "stopped", cursor)  # it runs, and beats again
            await mcp.fails("get_debugger_stack", "DEBUGGER_STALE_REFERENCE", debugSessionId=sid,
                            stopId=stop["stop_id"], threadId=stop["thread_id"])
            later = await mcp.ok("get_debugger_locals", debugSessionId=sid, stopId=again["stop"]["stop_id"],
                                 frameId=(await mcp.ok("get_debugger_stack", debugSessionId=sid,
                                                       stopId=again["stop"]["stop_id"],
                                                       threadId=again["stop"]["thread_id"]))
                                 ["result"]["frames"][0]["frame_id"])
            assert int(later["result"]["locals"][0]["value"]) > int(n["value"])

            detached = await mcp.ok("detach_debugger", debugSessionId=sid)  # while paused
            assert detached["state"] == "detached"
            assert detached["cleanup"]["status"] == "complete"
            assert detached["cleanup"]["execution_state"] == "running"
            assert app.procs[0].poll() is None, "the app must keep running"
            assert all(e.remote != f"jdwp:{app.pid}" for e in await client.list_forward())

            # Another debugger holds the app (Android Studio, say): ART drops our connection.
            stream = await open_jdwp_stream(client, testbed.serial, app.pid)
            async with stream:
                body = await mcp.fails("attach_debugger", "DEBUGGER_BUSY", retryable=True,
                                       **target(testbed, app_id))
                assert "another debugger" in body["error"]["message"]
            # Once it has gone, the device and the app are ours again.
            await apps.wait_visible(app.pid, True)
            sid = (await mcp.ok("attach_debugger", **target(testbed, app_id)))["debug_session_id"]
            await mcp.ok("detach_debugger", debugSessionId=sid)
    assert app.procs[0].poll() is None


async def test_android_watchpoint_journey(testbed: Testbed, apps: Apps) -> None:
    """A field watchpoint on an app process (issue 26): Heartbeat writes ``beats`` at every beat; the stop
    says what the write changes and where, the answer warns what field events cost on ART (its JVMTI
    deoptimises while they are enabled), and detach clears it: attached again, no watchpoint stops."""
    app_id = "com.example.watched"
    testbed.install_package(app_id, 10500)
    app = await apps.start(app_id)
    with trio.fail_after(90):
        async with connect(adb=testbed.client()) as mcp:
            sid = (await mcp.ok("attach_debugger", **target(testbed, app_id)))["debug_session_id"]
            watch = (await mcp.ok("set_debugger_watchpoint", debugSessionId=sid, className="Heartbeat",
                                  field="beats"))["result"]
            assert watch["status"] == "verified" and "warning" in watch, watch
            event, cursor = await mcp.wait_for(sid, "stopped")
            stop = event["stop"]
            assert stop["reason"] == "watchpoint" and stop["breakpoint_ids"] == [watch["breakpoint_id"]]
            change = stop["watch"]
            assert change["field"] == "Heartbeat.beats"
            assert int(change["new_value"]["value"]) == int(change["old_value"]["value"]) + 1
            assert (stop["location"]["class_name"], stop["location"]["method"]) == ("Heartbeat", "beat")
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            again, cursor = await mcp.wait_for(sid, "stopped", cursor)  # the next beat writes it again
            assert int(again["stop"]["watch"]["old_value"]["value"]) >= int(change["new_value"]["value"])
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)  # while stopped at a write
            assert detached["cleanup"]["status"] == "complete"
            assert detached["cleanup"]["execution_state"] == "running"

            sid = (await mcp.ok("attach_debugger", **target(testbed, app_id)))["debug_session_id"]
            quiet = await mcp.ok("wait_for_debugger_event", debugSessionId=sid, afterSequence=0, timeoutMs=1500)
            assert not [e for e in quiet["events"] if e["kind"] == "stopped"], quiet  # nothing of ours is left
            await mcp.ok("detach_debugger", debugSessionId=sid)
    assert app.procs[0].poll() is None, "the app must keep running"


async def test_android_kotlin_breakpoint_journey(testbed: Testbed, apps: Apps, kotlin_classes: Path) -> None:
    """Kotlin compiled by kotlinc, as an app process over jdwp:<pid>: a line of an inline function binds where
    another file inlined it, the stop and stack read in the inline function's file, locals read as written, a
    lambda class's captures listed."""
    app_id = "com.example.kt"
    testbed.install_package(app_id, 10300)
    app = await apps.start(app_id, classpath=kotlin_classpath(kotlin_classes), main_class="com.example.kt.AppKt",
                           ready=b"ready")
    square, lambda_line = find_mark("kt-square-body")[1], find_mark("kt-lambda")[1]
    with trio.fail_after(90):
        async with connect(adb=testbed.client()) as mcp:
            sid = (await mcp.ok("attach_debugger", **target(testbed, app_id)))["debug_session_id"]
            path = "app/src/main/kotlin/com/example/kt/Inline.kt"
            bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, file=path, line=square)
            assert bp["result"]["status"] == "verified" and bp["result"]["requested"] == {"file": path, "line": square}
            assert {(loc["class_name"], loc["source"], loc["line"], loc["inlined"])
                    for loc in bp["result"]["locations"]} == {("com.example.kt.AppKt", "Inline.kt", square, True)}
            event, cursor = await mcp.wait_for(sid, "stopped")
            stop = event["stop"]
            assert (stop["location"]["source"], stop["location"]["line"], stop["location"]["inlined"]) == (
                "Inline.kt", square, True)
            stack = await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                                 threadId=stop["thread_id"])
            top = stack["result"]["frames"][0]
            assert (top["class_name"], top["method"], top["source"], top["line"], top["inlined"]) == (
                "com.example.kt.InlineKt", "square", "Inline.kt", square, True)  # the inline frame, as IntelliJ
            found = await mcp.ok("get_debugger_locals", debugSessionId=sid, stopId=stop["stop_id"],
                                 frameId=top["frame_id"])
            names = [local["name"] for local in found["result"]["locals"]]
            assert "value" in names and not [n for n in names if n.startswith("$i$")]
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=bp["result"]["breakpoint_id"])

            by_class = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className="com.example.kt.AppKt",
                                    line=lambda_line)
            assert [loc["class_name"] for loc in by_class["result"]["locations"]] == [
                "com.example.kt.AppKt$round$viaLambda$1"]
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            stop = event["stop"]
            assert stop["breakpoint_ids"] == [by_class["result"]["breakpoint_id"]]
            stack = await mcp.ok("get_debugger_stack", debugSessionId=sid, stopId=stop["stop_id"],
                                 threadId=stop["thread_id"], limit=1)
            found = await mcp.ok("get_debugger_locals", debugSessionId=sid, stopId=stop["stop_id"],
                                 frameId=stack["result"]["frames"][0]["frame_id"])
            captured = {local["name"] for local in found["result"]["locals"] if local.get("captured")}
            assert captured == {"base", "point"}
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)
            assert detached["cleanup"]["status"] == "complete"
    assert app.procs[0].poll() is None, "the app must keep running"


async def test_android_resolution_errors(testbed: Testbed, apps: Apps) -> None:
    client = testbed.client()
    await apps.start("com.example.release", debuggable=False, jvm=False)
    main = await apps.start("com.example.multi", jvm=False)  # registered, drops every debugger
    remote = await apps.start("com.example.multi:remote")
    with trio.fail_after(90):
        async with connect(adb=client) as mcp:
            # An unknown serial: capabilities answers with facts, attach fails.
            caps = await mcp.ok("get_debugger_capabilities", platform="android", deviceId="127.0.0.1:1",
                                appId="com.example.multi")
            assert caps["result"]["prerequisites"]["device"]["state"] == "absent"
            assert testbed.serial in caps["result"]["prerequisites"]["device"]["known_devices"]
            assert caps["result"]["candidates"] == []
            await mcp.fails("attach_debugger", "DEVICE_UNAVAILABLE", retryable=True, platform="android",
                            deviceId="127.0.0.1:1", appId="com.example.multi")

            await mcp.fails("attach_debugger", "PROCESS_NOT_FOUND", **target(testbed, "com.example.absent"))
            assert (await _capabilities(mcp, testbed, "com.example.absent"))["candidates"] == []
            await mcp.fails("attach_debugger", "PROCESS_NOT_FOUND", **target(testbed, "com.example.multi",
                                                                              processId=4194303))

            # Running, but not JDWP-visible.
            body = await mcp.fails("attach_debugger", "DEBUGGER_UNSUPPORTED", retryable=False,
                                   **target(testbed, "com.example.release"))
            assert "debuggable" in body["error"]["message"]
            (release,) = (await _capabilities(mcp, testbed, "com.example.release"))["candidates"]
            assert release["debuggable"] is False

            # Two debuggable processes: listed, then chosen by pid.
            body = await mcp.fails("attach_debugger", "PROCESS_AMBIGUOUS", **target(testbed, "com.example.multi"))
            assert str(main.pid) in body["error"]["message"] and str(remote.pid) in body["error"]["message"]
            candidates = (await _capabilities(mcp, testbed, "com.example.multi"))["candidates"]
            assert {(c["pid"], c["name"]) for c in candidates} == {(main.pid, "com.example.multi"),
                                                                   (remote.pid, "com.example.multi:remote")}
            # The main process's debugger slot is always taken.
            await mcp.fails("attach_debugger", "DEBUGGER_BUSY", **target(testbed, "com.example.multi",
                                                                          processId=main.pid))
            attached = await mcp.ok("attach_debugger", **target(testbed, "com.example.multi", processId=remote.pid))
            assert attached["target"]["process_name"] == "com.example.multi:remote"
            await mcp.ok("detach_debugger", debugSessionId=attached["debug_session_id"])


async def test_process_changed_when_the_app_exits_as_the_debugger_connects(testbed: Testbed, apps: Apps) -> None:
    jvm = await apps.start("com.example.jvm.behind")  # the JDWP agent the vanished app's connection reaches
    assert jvm.jvm_port is not None
    vanishing = subprocess.Popen([sys.executable, str(HERE / "vanishing_app.py"), "com.example.vanish",
                                  str(jvm.jvm_port)], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        assert vanishing.stdout is not None
        with trio.fail_after(60):
            line = await trio.to_thread.run_sync(vanishing.stdout.readline, abandon_on_cancel=True)
            assert line.startswith(b"registered "), line
            pid = int(line.split()[1])
            await apps.wait_visible(pid, True)
            async with connect(adb=testbed.client()) as mcp:
                body = await mcp.fails("attach_debugger", "PROCESS_CHANGED", retryable=True,
                                       **target(testbed, "com.example.vanish"))
                assert str(pid) in body["error"]["message"] and body["debug_session_id"] is None
                # Nothing was left behind: the device takes the next session.
                attached = await mcp.ok("attach_debugger", **target(testbed, jvm.name))
                await mcp.ok("detach_debugger", debugSessionId=attached["debug_session_id"])
    finally:
        vanishing.terminate()
        vanishing.wait(timeout=10)


async def test_android_exception_journey(testbed: Testbed, apps: Apps, java_classes: Path) -> None:
    """An app process that throws now and then (fixtures/java Flaky): a caught exception thrown inside the JDK
    stops a breakpoint on its superclass, then an uncaught one in a worker thread; detach while stopped."""
    app_id = "com.example.flaky"
    testbed.install_package(app_id, 10400)
    app = await apps.start(app_id, classpath=str(java_classes), main_class="com.example.debuggee.Flaky",
                           ready=b"ready")
    with trio.fail_after(90):
        async with connect(adb=testbed.client()) as mcp:
            sid = (await mcp.ok("attach_debugger", **target(testbed, app_id)))["debug_session_id"]
            caught = (await mcp.ok("set_debugger_exception_breakpoint", debugSessionId=sid,
                                   exceptionClass="java.lang.IllegalArgumentException", caught=True,
                                   uncaught=False))["result"]
            assert (caught["kind"], caught["status"]) == ("exception", "verified")
            event, cursor = await mcp.wait_for(sid, "stopped")
            thrown = event["stop"]["exception"]
            assert thrown["type"] == "java.lang.NumberFormatException"
            assert thrown["message"].startswith('For input string: "round ')
            assert thrown["throw_location"]["class_name"] == "java.lang.Integer"  # thrown inside the JDK
            catch = thrown["catch_location"]
            assert (catch["class_name"], catch["method"], catch["line"]) == (
                "com.example.debuggee.Flaky", "parse", find_mark("flaky-catch")[1])
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=caught["breakpoint_id"])
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=event["stop"]["stop_id"])

            uncaught = (await mcp.ok("set_debugger_exception_breakpoint", debugSessionId=sid))["result"]
            while True:  # a stop of the removed breakpoint may have been on its way: resume it
                event, cursor = await mcp.wait_for(sid, "stopped", cursor)
                stop = event["stop"]
                if stop["breakpoint_ids"] == [uncaught["breakpoint_id"]]:
                    break
                await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            assert stop["thread_name"].startswith("worker-")
            thrown = stop["exception"]
            assert thrown["type"] == "java.lang.IllegalStateException" and thrown["catch_location"] is None
            assert thrown["message"].startswith("worker gave up in round ")
            assert thrown["throw_location"]["line"] == find_mark("flaky-throw")[1]

            detached = await mcp.ok("detach_debugger", debugSessionId=sid)  # while stopped at the exception
            assert detached["cleanup"]["status"] == "complete"
            assert detached["cleanup"]["execution_state"] == "running"
    assert app.procs[0].poll() is None, "the app must keep running"

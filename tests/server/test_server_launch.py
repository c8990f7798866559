"""``attach_debugger`` with ``launch`` through the adb testbed: a real adb server and adbd, the stand-in ``am``,
``cmd package``, ``pm clear`` and ``dumpsys`` on adbd's PATH, and apps that wait for their debugger behind a
played adbconnection (tests/adb/launch_bed.py, launch_app.py).

What each app stands for: ``settle`` is an app started with ``am start -D`` on API < 34 (Debug.waitForDebugger:
it runs 1.3 s after the debugger's last command, so only an immediate suspension holds it); ``suspended`` is
API 34+'s ``am start -D --suspend`` (VM_START with SUSPEND_ALL after the first non-DDM packet).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import trio
from mcpkit import Mcp, connect

from adb.launch_bed import LaunchBed
from adb.testbed import Apps, Testbed
from pyjdwp_server import Config

pytestmark = pytest.mark.live

SOURCE = Path(__file__).resolve().parents[1] / "adb" / "java" / "LaunchedApp.java"


def startup_line() -> int:
    for number, text in enumerate(SOURCE.read_text().splitlines(), start=1):
        if "// launch: first line of start-up code" in text:
            return number
    raise LookupError("LaunchedApp.onCreate's marked line not found")


def target(bed: Testbed, app_id: str, **extra: object) -> dict[str, object]:
    return {"platform": "android", "deviceId": bed.serial, "appId": app_id, "timeoutMs": 25000, **extra}


async def _held_then_hit(mcp: Mcp, launcher: LaunchBed, app_id: str, attached: dict[str, object]) -> None:
    """The app stays held (its start-up code does not run) until resume; then its breakpoint is hit."""
    result = attached["result"]
    assert isinstance(result, dict)
    sid = attached["debug_session_id"]
    first, cursor = await mcp.wait_for(sid, "stopped")  # the launch stop is the ring's first stop
    assert first["stop"] == result["stop"]
    bp = await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className="LaunchedApp", line=startup_line())
    # After am start -D the class is loaded; at --suspend's VM_START nothing is: it binds as it loads.
    assert bp["result"]["status"] in ("verified", "pending")
    await trio.sleep(2.0)  # longer than waitForDebugger's 1.3 s settle time
    assert "app created" not in launcher.log(app_id)
    await mcp.ok("resume_debugger", debugSessionId=sid, stopId=result["stop"]["stop_id"])
    event, _ = await mcp.wait_for(sid, "stopped", cursor)
    assert event["stop"]["reason"] == "breakpoint" and event["stop"]["location"]["method"] == "onCreate"
    assert "warning" not in event  # the debug app is spared ANRs
    assert "app created" not in launcher.log(app_id)
    await mcp.ok("detach_debugger", debugSessionId=sid)


@pytest.mark.parametrize("api", [29, 34], ids=["wait-for-debugger", "suspend-flag"])
async def test_launch_holds_the_app_before_its_code_runs(testbed: Testbed, launcher: LaunchBed, api: int) -> None:
    app_id = f"com.example.launch.api{api}"
    launcher.add_app(app_id)
    launcher.set_api_level(api)
    with trio.fail_after(90):
        async with connect(Config(), adb=testbed.client()) as mcp:
            attached = await mcp.ok("attach_debugger", **target(testbed, app_id, launch={}))
            assert attached["state"] == "paused"
            result = attached["result"]
            assert result["launch"] == {"activity": ".MainActivity", "pid": launcher.started(app_id)[0],
                                        "api_level": api, "suspend_flag": api >= 34, "cleared_data": False}
            stop = result["stop"]
            assert stop["reason"] == "launch"
            assert ("vm_start" in stop.get("reasons", [stop["reason"]])) is (api >= 34)  # reasons: when several
            app = attached["target"]["app"]
            assert app["anr_exempt"] is True and app["waiting_for_debugger"] is True
            assert app["package_name"] == app_id and app["pointer_size"] == 8 and app["boot_stage"] == "DEBG"
            assert "anr_warning" not in result
            await _held_then_hit(mcp, launcher, app_id, attached)


async def test_launch_an_activity_with_clear_data(testbed: Testbed, launcher: LaunchBed) -> None:
    app_id = "com.example.launch.clear"
    launcher.add_app(app_id, "com.example.launch.clear.Settings", launcher=False)
    (launcher.data(app_id) / "prefs.xml").write_text("<map/>")
    with trio.fail_after(90):
        async with connect(Config(), adb=testbed.client()) as mcp:
            # No launcher activity: omitting it says so and starts nothing.
            failed = await mcp.fails("attach_debugger", "DEBUGGER_ATTACH_FAILED", **target(testbed, app_id, launch={}))
            assert "no launcher activity" in failed["error"]["message"]
            assert launcher.started(app_id) == []
            attached = await mcp.ok("attach_debugger", **target(
                testbed, app_id, launch={"activity": "com.example.launch.clear.Settings", "clearData": True}))
            assert attached["result"]["launch"]["cleared_data"] is True
            assert list(launcher.data(app_id).iterdir()) == []
            await _held_then_hit(mcp, launcher, app_id, attached)


async def test_launch_failures_name_what_to_do(testbed: Testbed, launcher: LaunchBed) -> None:
    launcher.add_app("com.example.launch.dies", mode="die")
    launcher.add_app("com.example.launch.plain")
    launcher.add_app("com.example.launch.release", mode="nodebug")
    with trio.fail_after(90):
        async with connect(Config(), adb=testbed.client()) as mcp:
            unknown = await mcp.fails("attach_debugger", "DEBUGGER_ATTACH_FAILED", **target(
                testbed, "com.example.launch.plain", launch={"activity": ".Nope"}))
            assert "'.Nope'" in unknown["error"]["message"]
            assert "does not exist" in unknown["error"]["message"]
            assert launcher.started("com.example.launch.plain") == []
            died = await mcp.fails("attach_debugger", "DEBUGGER_ATTACH_FAILED", **target(
                testbed, "com.example.launch.dies", launch={}))
            assert "died during start" in died["error"]["message"]
            missing = await mcp.fails("attach_debugger", "PROCESS_NOT_FOUND", **target(
                testbed, "com.example.launch.absent", launch={}))
            assert "not installed" in missing["error"]["message"]
            # Started, but it never offers a debugger connection within the time given: not debuggable.
            release = await mcp.fails("attach_debugger", "DEBUGGER_UNSUPPORTED", **target(
                testbed, "com.example.launch.release", launch={}, timeoutMs=10000))
            assert "not debuggable" in release["error"]["message"]


@pytest.mark.parametrize("activity", ["; reboot", ".Main Activity", "../x", "a\x00b", "$(id)", "x" * 300,
                                      "com.x/.Main", "`id`", ".Main|id"])
async def test_bad_activity_names_reach_no_shell(testbed: Testbed, launcher: LaunchBed, activity: str) -> None:
    app_id = "com.example.launch.bad"
    launcher.add_app(app_id)
    with trio.fail_after(60):
        async with connect(Config(), adb=testbed.client()) as mcp:
            await mcp.fails("attach_debugger", "INVALID_ARGUMENT", **target(testbed, app_id,
                                                                          launch={"activity": activity}))
            await mcp.fails("attach_debugger", "INVALID_ARGUMENT", **target(testbed, app_id, processId=5,
                                                                          launch={}))
    assert launcher.started(app_id) == [] and launcher.log(app_id) == ""


async def test_second_launch_while_a_session_is_open(testbed: Testbed, launcher: LaunchBed) -> None:
    app_id = "com.example.launch.twice"
    launcher.add_app(app_id)
    with trio.fail_after(90):
        async with connect(Config(), adb=testbed.client()) as mcp:
            attached = await mcp.ok("attach_debugger", **target(testbed, app_id, launch={}))
            pids = launcher.started(app_id)
            busy = await mcp.fails("attach_debugger", "DEBUGGER_BUSY", **target(testbed, app_id, launch={}))
            assert "detach it first" in busy["error"]["message"]
            assert launcher.started(app_id) == pids  # the app was not restarted under the open session
            state = await mcp.ok("get_debugger_state", debugSessionId=attached["debug_session_id"])
            assert state["state"] == "paused"
            await _held_then_hit(mcp, launcher, app_id, attached)


async def test_an_app_already_waiting_is_held_the_same_way(testbed: Testbed, launcher: LaunchBed) -> None:
    app_id = "com.example.launch.waiting"
    launcher.add_app(app_id)
    # Started by hand with -W, which waits for a launch the waiting app cannot finish until it is released.
    am = subprocess.Popen([testbed.adb, "-P", str(testbed.server_port), "-s", testbed.serial, "shell",
                           f"am start -D -W -n {app_id}/.MainActivity"], stdout=subprocess.PIPE, text=True)
    with trio.fail_after(90):
        while not launcher.started(app_id):
            await trio.sleep(0.1)
        async with connect(Config(), adb=testbed.client()) as mcp:
            with trio.fail_after(20):  # until adbd lists it
                while True:
                    caps = await mcp.ok("get_debugger_capabilities", **target(testbed, app_id))
                    if caps["result"]["candidates"]:
                        break
                    await trio.sleep(0.2)
            (candidate,) = caps["result"]["candidates"]
            assert candidate["anr_exempt"] is True
            attached = await mcp.ok("attach_debugger", **target(testbed, app_id))
            assert attached["state"] == "paused" and attached["result"]["stop"]["reason"] == "launch"
            assert attached["target"]["app"]["waiting_for_debugger"] is True
            assert "launch" not in attached["result"]
            assert am.poll() is None  # am -W still blocks: the app has not run
            await _held_then_hit(mcp, launcher, app_id, attached)  # ends with detach: the app runs
        out, _ = await trio.to_thread.run_sync(lambda: am.communicate(timeout=30))
        assert "Starting: Intent" in out and "Status: ok" in out


async def test_stops_of_an_app_not_spared_anrs_warn(testbed: Testbed, apps: Apps, launcher: LaunchBed) -> None:
    from mcpkit import heartbeat_line

    app_id = "com.example.launch.anr"
    testbed.install_package(app_id)
    await apps.start(app_id)
    with trio.fail_after(90):
        async with connect(Config(), adb=testbed.client()) as mcp:
            (candidate,) = (await mcp.ok("get_debugger_capabilities", **target(testbed, app_id)))["result"][
                "candidates"]
            assert candidate["anr_exempt"] is False
            attached = await mcp.ok("attach_debugger", **target(testbed, app_id))
            assert attached["state"] == "running" and attached["target"]["app"]["anr_exempt"] is False
            assert "about 5 s" in attached["result"]["anr_warning"]
            assert any("ANR" in text for text in attached["limitations"])
            sid = attached["debug_session_id"]
            await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className="Heartbeat", line=heartbeat_line())
            event, _ = await mcp.wait_for(sid, "stopped")
            assert "about 5 s" in event["warning"] and "launch" in event["warning"]
            await mcp.ok("detach_debugger", debugSessionId=sid)


async def test_launch_with_the_default_timeout(testbed: Testbed, launcher: LaunchBed) -> None:
    """No timeoutMs: attach's own default (60 s, more than any other call's cap) holds to the end — the
    launched process's target, kept for a cleanup retry, is not validated again as another call's input."""
    app_id = "com.example.launch.default"
    launcher.add_app(app_id)
    with trio.fail_after(120):
        async with connect(Config(), adb=testbed.client()) as mcp:
            attached = await mcp.ok("attach_debugger", platform="android", deviceId=testbed.serial, appId=app_id,
                                    launch={})
            assert attached["state"] == "paused" and attached["result"]["stop"]["reason"] == "launch"
            assert attached["result"]["launch"]["pid"] == launcher.started(app_id)[0]
            await _held_then_hit(mcp, launcher, app_id, attached)


@pytest.mark.parametrize("where", ["before-start", "after-start", "answer"])
async def test_a_launch_attach_that_fails_leaves_nothing_behind(
        testbed: Testbed, launcher: LaunchBed, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """A failure once the app was launched, attached and held — while the attach gathers its facts, after
    the session started, or while its answer is made — answers an error and leaves no session, no suspension
    and no adb forward: the app runs its start-up code, and the device takes a new session at once."""
    import pyjdwp_server.session.debug_session
    import pyjdwp_server.tools.attach_debugger
    from pyjdwp_server.session.models import AttachInput

    def boom(*_: object, **__: object) -> None:
        raise RuntimeError("injected failure")

    if where == "before-start":
        async def anr_boom(*_: object) -> None:
            boom()
        monkeypatch.setattr(pyjdwp_server.session.debug_session, "anr_exempt_of", anr_boom)
    elif where == "after-start":
        monkeypatch.setattr(AttachInput, "launched", boom)
    else:
        monkeypatch.setattr(pyjdwp_server.tools.attach_debugger, "_attached", boom)
    app_id = f"com.example.launch.fails.{where.replace('-', '')}"
    launcher.add_app(app_id)
    client = testbed.client()
    with trio.fail_after(120):
        async with connect(Config(adb_transport="forward"), adb=client) as mcp:
            failed = await mcp.fails("attach_debugger", "DEBUGGER_WORKER_FAILED", **target(testbed, app_id, launch={}))
            assert failed["debug_session_id"] is None and "RuntimeError" in failed["error"]["message"]
            (pid,) = launcher.started(app_id)
            while "app created" not in launcher.log(app_id):  # released: its start-up code runs
                await trio.sleep(0.1)
            assert all(entry.remote != f"jdwp:{pid}" for entry in await client.list_forward())
            monkeypatch.undo()
            attached = await mcp.ok("attach_debugger", **target(testbed, app_id, processId=pid))
            assert attached["state"] == "running"  # no session holds the device, nothing holds the app
            sid = attached["debug_session_id"]
            threads = (await mcp.ok("get_debugger_threads", debugSessionId=sid))["result"]["threads"]
            assert threads and not any(thread["suspended"] for thread in threads)
            await mcp.ok("detach_debugger", debugSessionId=sid)


async def test_a_failed_launch_attach_whose_cleanup_failed_blocks_until_a_retry_that_never_relaunches(
        testbed: Testbed, launcher: LaunchBed, monkeypatch: pytest.MonkeyPatch) -> None:
    """The attach fails before it answers and its cleanup cannot be confirmed: the device takes no new session
    (the error names the one to detach), and detach_debugger's retry reconnects to the launched process —
    it never launches (force-stops) the app again."""
    import re

    import jdwp.debugger.engine
    import pyjdwp_server.session.debug_session
    from jdwp.debugger import Cleanup

    async def anr_boom(*_: object) -> None:
        raise RuntimeError("injected failure")

    async def cleanup_fails(*_: object) -> Cleanup:
        # Stands for a detach that could not finish; closing the connection still resets the agent.
        return Cleanup("failed", "unknown", ("unconfirmed: requests, suspensions",), ("injected",))

    monkeypatch.setattr(pyjdwp_server.session.debug_session, "anr_exempt_of", anr_boom)
    monkeypatch.setattr(jdwp.debugger.engine, "clean_up", cleanup_fails)
    app_id = "com.example.launch.blocked"
    launcher.add_app(app_id)
    with trio.fail_after(120):
        async with connect(Config(), adb=testbed.client()) as mcp:
            await mcp.fails("attach_debugger", "DEBUGGER_WORKER_FAILED", **target(testbed, app_id, launch={}))
            monkeypatch.undo()
            (pid,) = launcher.started(app_id)
            blocked = await mcp.fails("attach_debugger", "DEBUGGER_CLEANUP_FAILED",
                                      **target(testbed, app_id, processId=pid))
            found = re.search(r"session (dbg-[0-9a-f]+)", blocked["error"]["message"])
            assert found is not None, blocked["error"]
            retried = await mcp.ok("detach_debugger", debugSessionId=found.group(1))
            assert retried["cleanup"]["status"] == "complete", retried["cleanup"]
            assert retried["cleanup"]["execution_state"] == "running"
            assert launcher.started(app_id) == [pid]  # reconnected to it, not launched again
            attached = await mcp.ok("attach_debugger", **target(testbed, app_id, processId=pid))
            await mcp.ok("detach_debugger", debugSessionId=attached["debug_session_id"])

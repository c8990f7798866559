"""Android fidelity from ART's sources, through the adb testbed (a real adb server and adbd, JVMs registered
as app processes): the slow first reply, a frozen app, a non-debuggable app on a userdebug device, a release
build, and what steps cost (issue 14 §3).

What differs on a real device is said per test: the testbed's agent is OpenJDK's libjdwp (the same agent
code ART runs), the slowness and the freezing are played by the registrar shim.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from mcpkit import connect

from adb.art_standins import WORK_LINE, compile_app, install_dumpsys
from adb.testbed import HERE as ADB_HERE
from adb.testbed import Apps, Testbed

pytestmark = pytest.mark.live


def target(bed: Testbed, app_id: str, **extra: object) -> dict[str, object]:
    return {"platform": "android", "deviceId": bed.serial, "appId": app_id, **extra}


async def test_a_slow_first_reply_has_its_own_deadline_and_is_reported(testbed: Testbed, apps: Apps) -> None:
    """11 s before the first reply: more than the handshake's deadline and the old 10 s attach default."""
    app = await apps.start("com.example.slowagent", debuggable=False)  # registered below, by the shim
    assert app.jvm_port is not None
    shim = subprocess.Popen([sys.executable, str(ADB_HERE / "slow_agent_app.py"), str(app.pid), str(app.jvm_port),
                             "11"], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    app.procs.append(shim)
    assert shim.stdout is not None
    with trio.fail_after(120):
        line = await trio.to_thread.run_sync(shim.stdout.readline, abandon_on_cancel=True)
        assert line.strip() == b"registered"
        await apps.wait_visible(app.pid, True)
        async with connect(adb=testbed.client()) as mcp:
            attached = await mcp.ok("attach_debugger", **target(testbed, app.name))
            result = attached["result"]
            assert result["first_reply_ms"] >= 11000
            assert any("loading the debugger agent" in w for w in result["warnings"]), result
            await mcp.ok("detach_debugger", debugSessionId=attached["debug_session_id"])


async def test_a_frozen_app_is_reported_as_such_and_attaches_once_thawed(testbed: Testbed, apps: Apps) -> None:
    """The app and its registrar stopped (SIGSTOP) play a frozen app: registered, handed the fd by adbd, never
    answering, and not run by the kernel (``T`` in ``/proc/<pid>/stat``, where a frozen cgroup says
    ``cgroup.freeze`` 1). A running app that is silent is a busy one on this API 29 testbed
    (tests/server/test_server_art_quirks.py).

    That is what an adbd without the freezer check (Android 13 and older) shows for an app in the cached
    apps freezer; a newer adbd refuses ``jdwp:<pid>`` instead (tests/adb/test_frozen.py).
    """
    app = await apps.start("com.example.frozen")
    stopped = app.procs[:2]  # the app, then its registrar
    for proc in stopped:
        proc.send_signal(signal.SIGSTOP)
    try:
        with trio.fail_after(60):
            async with connect(adb=testbed.client()) as mcp:
                started = trio.current_time()
                body = await mcp.fails("attach_debugger", "PROCESS_FROZEN", retryable=True,
                                       **target(testbed, app.name))
                assert trio.current_time() - started < 15
                assert "cached or frozen" in body["error"]["message"]
                assert "foreground" in body["error"]["message"]
                for proc in stopped:
                    proc.send_signal(signal.SIGCONT)  # "brought to the foreground"
                await apps.wait_visible(app.pid, True)
                attached = await mcp.ok("attach_debugger", **target(testbed, app.name))
                await mcp.ok("detach_debugger", debugSessionId=attached["debug_session_id"])
    finally:
        for proc in stopped:
            proc.send_signal(signal.SIGCONT)


async def test_a_release_build_on_a_userdebug_device(testbed: Testbed, apps: Apps, tmp_path: Path) -> None:
    """A package without DEBUGGABLE (dumpsys stand-in) whose classes have no variable tables (-g:none)."""
    javac = os.environ.get("JAVAC", "javac")
    app_id = "com.example.rel"
    classes = await trio.to_thread.run_sync(lambda: compile_app(javac, tmp_path, app_id, debug_info=False))
    install_dumpsys(testbed, (app_id,))
    app = await apps.start(app_id, classpath=str(classes), main_class=f"{app_id}.Main")
    with trio.fail_after(60):
        async with connect(adb=testbed.client()) as mcp:
            attached = await mcp.ok("attach_debugger", **target(testbed, app.name))
            result = attached["result"]
            assert result["release_build_likely"] is True
            warnings = " ".join(result["warnings"])
            assert "not a debuggable build" in warnings and "release build is likely" in warnings
            limitations = " ".join(attached["limitations"])
            assert "debug build (android:debuggable=true)" in limitations and "Most sampled app classes" in limitations
            sid = attached["debug_session_id"]
            state = await mcp.ok("get_debugger_state", debugSessionId=sid)
            assert {"release_build", "non_debuggable_app"} <= set(state["limitations"])
            await mcp.ok("detach_debugger", debugSessionId=sid)


async def test_a_debug_build_has_no_such_warnings_and_steps_say_what_they_cost(testbed: Testbed, apps: Apps,
                                                                              tmp_path: Path) -> None:
    javac = os.environ.get("JAVAC", "javac")
    app_id = "com.example.dbg"
    classes = await trio.to_thread.run_sync(lambda: compile_app(javac, tmp_path, app_id, debug_info=True))
    install_dumpsys(testbed)
    app = await apps.start(app_id, classpath=str(classes), main_class=f"{app_id}.Main")
    with trio.fail_after(60):
        async with connect(adb=testbed.client()) as mcp:
            attached = await mcp.ok("attach_debugger", **target(testbed, app.name))
            result = attached["result"]
            assert result["release_build_likely"] is False and "warnings" not in result, result
            sid = attached["debug_session_id"]
            await mcp.ok("set_debugger_breakpoint", debugSessionId=sid, className=f"{app_id}.Main", line=WORK_LINE)
            event, cursor = await mcp.wait_for(sid, "stopped")
            stop = event["stop"]
            stepped = await mcp.ok("step_debugger", debugSessionId=sid, stopId=stop["stop_id"],
                                   threadId=stop["thread_id"], kind="into")
            assert any("deoptimises the whole app" in w for w in stepped["result"]["warnings"])
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)
            stop = event["stop"]
            stepped = await mcp.ok("step_debugger", debugSessionId=sid, stopId=stop["stop_id"],
                                   threadId=stop["thread_id"], kind="out")
            assert any("step over a call or out" in w for w in stepped["result"]["warnings"])
            await mcp.ok("detach_debugger", debugSessionId=sid)

"""``redefine_debugger_classes`` on Android, end to end on the adb testbed's wire: dex built here by Debian's
``smali``, sent through a real adb server and adbd to an app process whose VM stands in for ART's
``RedefineClasses``.

No ART runs here. The app is a JVM behind tests/adb/art_redefine_app.py, which answers as ART does where it
matters: ``VirtualMachine.Version`` says ``Dalvik``, and ``VirtualMachine.RedefineClasses`` (1,18) takes only
what ART's JVMTI takes (art/openjdkjvmti/ti_redefine.cc: each class's bytes a dex that opens, checksum
verified, else ``INVALID_CLASS_FORMAT``; exactly one ``class_def``, else ``ILLEGAL_ARGUMENT``; the class
redefined, else ``NAMES_DONT_MATCH``). A class that passes is then redefined in the JVM with javac's class file
of the same change, so the app runs the new code and the JVM's own breakpoint and obsolete-method behaviour
answers the rest. What a device adds (ART's dex verifier beyond the header) is not covered: docs/tools.md.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import IO

import pytest
import trio
from mcpkit import connect

import jdwp
from adb.art_standins import start_behind
from adb.testbed import AppProcess, Apps, Testbed
from jdwp.debugger import suspended_threads
from pyjdwp_server.session.config import Config
from support.live import require_tool

pytestmark = pytest.mark.live

APP_ID = "com.example.reload"
_JAVA = """package reload;

public class {name} {{
    static int value() {{
        return {value};
    }}
{more}}}
"""
RETURN_LINE = 5  # `return {value};`
_MORE_JAVA = "    static int more() {\n        return 7;\n    }\n"  # a method added: a change of shape
_MORE_SMALI = ".method static more()I\n    .registers 1\n    const/4 v0, 7\n    return v0\n.end method\n"
_SMALI = """.class public Lreload/{name};
.super Ljava/lang/Object;
.source "{name}.java"

.method public constructor <init>()V
    .registers 1
    .line 3
    invoke-direct {{p0}}, Ljava/lang/Object;-><init>()V
    return-void
.end method

.method static value()I
    .registers 1
    .line 5
    const/4 v0, {value}
    return v0
.end method
{more}"""
_MAIN = """package reload;

public class Main {
    public static void main(String[] args) throws Exception {
        System.out.println("heartbeat ready");
        String last = "";
        while (true) {
            String now = "greet " + Greeter.value() + " other " + Other.value();
            if (!now.equals(last)) {
                System.out.println(now);
                last = now;
            }
            Thread.sleep(20);
        }
    }
}
"""


def compile_java(out: Path, greet: int, other: int, *, more: bool = False) -> Path:
    """``reload.Main``, ``Greeter`` and ``Other`` (whose ``value()`` return ``greet`` and ``other``; ``Greeter`` with
    ``more()`` added if ``more``) by javac -g."""
    sources = out.with_name(out.name + "-src")
    sources.mkdir(parents=True, exist_ok=True)
    files = {"Main": _MAIN, "Greeter": _JAVA.format(name="Greeter", value=greet, more=_MORE_JAVA if more else ""),
             "Other": _JAVA.format(name="Other", value=other, more="")}
    for name, text in files.items():
        (sources / f"{name}.java").write_text(text, encoding="utf-8")
    subprocess.run([require_tool("javac"), "-g", "-d", str(out), *(str(sources / f"{n}.java") for n in files)],
                   check=True, capture_output=True, text=True)
    return out


def assemble(out: Path, *, more: bool = False, **values: int) -> Path:
    """One dex of the ``reload`` classes named, each ``value()`` returning its value (and ``more()`` added if
    ``more``), by Debian's smali."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as sources:
        for name, value in values.items():
            text = _SMALI.format(name=name, value=value, more=_MORE_SMALI if more else "")
            (Path(sources) / f"{name}.smali").write_text(text, encoding="utf-8")
        subprocess.run([require_tool("smali"), "a", "-o", str(out), sources], check=True, capture_output=True,
                       text=True)
    return out


async def next_line(stream: IO[bytes] | None, pattern: str) -> str:
    """Read ``stream`` (an app's or the stand-in's stdout) until a line matches ``pattern``; return it."""
    assert stream is not None
    with trio.fail_after(20):
        while True:
            line = await trio.to_thread.run_sync(stream.readline, abandon_on_cancel=True)
            assert line, f"the stream ended before a line matching {pattern!r}"
            text = line.decode().strip()
            if re.search(pattern, text):
                return text


async def start_app(testbed: Testbed, apps: Apps, tmp_path: Path, app_id: str) -> tuple[AppProcess, Path]:
    """The app (v1: ``greet 1 other 1``) behind the ART stand-in, printing; and the directory where the stand-in
    finds javac's class files of each change the test makes."""
    staged = tmp_path / "javac-of-the-change"
    app = await start_behind(apps, testbed, app_id, "art_redefine_app.py", str(staged),
                             classpath=str(compile_java(tmp_path / "v1", 1, 1)), main_class="reload.Main")
    await next_line(app.procs[0].stdout, "^greet 1 other 1$")
    return app, staged


async def test_dex_reload_through_adb_to_a_vm_that_takes_dex_as_art_does(
        testbed: Testbed, apps: Apps, tmp_path: Path) -> None:
    """An APK's dex reloaded at a stop in the code it changes, then a Gradle-style dex directory while the app
    runs: each class goes alone in its dex, the one not loaded is skipped, the stopped frame is listed in old
    code, the breakpoint is re-bound and stops, the app runs each new code, and nothing is left suspended."""
    app, staged = await start_app(testbed, apps, tmp_path, APP_ID)
    jvm, stand_in = app.procs[0], app.procs[-1]
    apk = tmp_path / "app.apk"  # the whole app's dex: the two classes changed and one the app never loads
    with zipfile.ZipFile(apk, "w") as archive:
        archive.write(assemble(tmp_path / "apk" / "classes.dex", Greeter=2, Other=2, NotLoaded=3), "classes.dex")
        archive.writestr("AndroidManifest.xml", b"\x03\x00\x08\x00")
    dex_archive = tmp_path / "project_dex_archive"  # a Gradle dex output directory: a dex per class
    assemble(dex_archive / "reload" / "Greeter.dex", Greeter=3)
    with trio.fail_after(120):
        async with connect(Config(allow_mutation=True), adb=testbed.client()) as mcp:
            attached = await mcp.ok("attach_debugger", platform="android", deviceId=testbed.serial, appId=APP_ID)
            assert attached["result"]["vm"]["name"] == "Dalvik"
            sid = attached["debug_session_id"]
            stop, cursor = await mcp.stop_at(sid, "reload.Greeter", RETURN_LINE)

            compile_java(staged, 2, 2)
            done = (await mcp.ok("redefine_debugger_classes", debugSessionId=sid, paths=[str(apk)]))["result"]
            assert sorted(done["redefined"]) == ["reload.Greeter", "reload.Other"]
            assert [(s["name"], "not loaded" in s["reason"]) for s in done["skipped"]] == [("reload.NotLoaded", True)]
            assert {"thread": "main", "frame": 0, "method": "reload.Greeter.value", "line": RETURN_LINE
                    } in done["old_frames"]
            (rebound,) = done["breakpoints"]
            assert rebound["status"] == "verified" and rebound["locations"][0]["line"] == RETURN_LINE
            # One dex of one class each reached the VM: the APK's dex was cut on the host.
            checked = {await next_line(stand_in.stdout, "^(dex|refused) ") for _ in range(2)}
            assert checked == {"dex Lreload/Greeter; 1 class_def", "dex Lreload/Other; 1 class_def"}

            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=stop["stop_id"])
            event, cursor = await mcp.wait_for(sid, "stopped", cursor)  # the breakpoint, bound in the new code
            assert event["stop"]["breakpoint_ids"] == [rebound["breakpoint_id"]]
            assert (event["stop"]["location"]["method"], event["stop"]["location"]["line"]) == ("value", RETURN_LINE)
            await mcp.ok("remove_debugger_breakpoint", debugSessionId=sid, breakpointId=rebound["breakpoint_id"])
            await mcp.ok("resume_debugger", debugSessionId=sid, stopId=event["stop"]["stop_id"])
            await next_line(jvm.stdout, "^greet 2 other 2$")

            compile_java(staged, 3, 2)
            done = (await mcp.ok("redefine_debugger_classes", debugSessionId=sid, paths=[str(dex_archive)]))["result"]
            assert done["redefined"] == ["reload.Greeter"] and "skipped" not in done
            assert await next_line(stand_in.stdout, "^(dex|refused) ") == "dex Lreload/Greeter; 1 class_def"
            await next_line(jvm.stdout, "^greet 3 other 2$")  # while running: no stop needed

            detached = await mcp.ok("detach_debugger", debugSessionId=sid)
            assert detached["cleanup"]["status"] == "complete", detached
            assert detached["cleanup"]["execution_state"] == "running"
    assert app.jvm_port is not None
    await next_line(jvm.stdout, "^Listening for transport")  # the agent's, once the debugger has left
    async with jdwp.open_jdwp_tcp("127.0.0.1", app.jvm_port) as vm:
        assert await suspended_threads(vm) == 0


async def test_a_dex_that_adds_a_method_is_refused_naming_it_and_changes_nothing(
        testbed: Testbed, apps: Apps, tmp_path: Path) -> None:
    """The dex passes ART's checks of its bytes; the change of shape is refused by the VM (ART's ``ti_redefine.cc``
    and HotSpot both: ``ADD_METHOD_NOT_IMPLEMENTED`` 63), and the message, read from the dex, names the method."""
    app, staged = await start_app(testbed, apps, tmp_path, APP_ID + ".refused")
    jvm, stand_in = app.procs[0], app.procs[-1]
    with trio.fail_after(120):
        async with connect(Config(allow_mutation=True), adb=testbed.client()) as mcp:
            attached = await mcp.ok("attach_debugger", platform="android", deviceId=testbed.serial,
                                    appId=APP_ID + ".refused")
            sid = attached["debug_session_id"]
            compile_java(staged, 4, 1, more=True)
            added = assemble(tmp_path / "added" / "Greeter.dex", Greeter=4, more=True)
            refused = await mcp.fails("redefine_debugger_classes", "DEBUGGER_UNSUPPORTED", debugSessionId=sid,
                                      paths=[str(added)])
            assert "ADD_METHOD_NOT_IMPLEMENTED (63)" in refused["error"]["message"]
            assert "reload.Greeter adds method `int more()`" in refused["error"]["message"]
            assert await next_line(stand_in.stdout, "^(dex|refused) ") == "dex Lreload/Greeter; 1 class_def"

            compile_java(staged, 2, 1)
            body = assemble(tmp_path / "body" / "Greeter.dex", Greeter=2)
            await mcp.ok("redefine_debugger_classes", debugSessionId=sid, paths=[str(body)])
            assert await next_line(jvm.stdout, "^greet") == "greet 2 other 1"  # never 4: the refusal changed nothing
            detached = await mcp.ok("detach_debugger", debugSessionId=sid)
            assert detached["cleanup"]["execution_state"] == "running"

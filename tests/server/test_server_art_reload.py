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
from adb.testbed import Apps, Testbed
from jdwp.debugger import suspended_threads
from server.session.config import Config
from support.live import require_tool

pytestmark = pytest.mark.live

APP_ID = "com.example.reload"
_JAVA = "package reload;\n\npublic class {name} {{\n    static int value() {{\n        return {value};\n    }}\n}}\n"
RETURN_LINE = 5  # `return {value};`
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
"""
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


def compile_java(out: Path, greet: int, other: int) -> Path:
    """``reload.Main``, ``Greeter`` and ``Other`` (whose ``value()`` return ``greet`` and ``other``) by javac -g."""
    sources = out.with_name(out.name + "-src")
    sources.mkdir(parents=True, exist_ok=True)
    files = {"Main": _MAIN, "Greeter": _JAVA.format(name="Greeter", value=greet),
             "Other": _JAVA.format(name="Other", value=other)}
    for name, text in files.items():
        (sources / f"{name}.java").write_text(text, encoding="utf-8")
    subprocess.run([require_tool("javac"), "-g", "-d", str(out), *(str(sources / f"{n}.java") for n in files)],
                   check=True, capture_output=True, text=True)
    return out


def assemble(out: Path, **values: int) -> Path:
    """One dex of the ``reload`` classes named, each ``value()`` returning its value, by Debian's smali."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as sources:
        for name, value in values.items():
            (Path(sources) / f"{name}.smali").write_text(_SMALI.format(name=name, value=value), encoding="utf-8")
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


async def test_dex_reload_through_adb_to_a_vm_that_takes_dex_as_art_does(
        testbed: Testbed, apps: Apps, tmp_path: Path) -> None:
    staged = tmp_path / "javac-of-the-change"  # what the stand-in runs for a dex that passes ART's checks
    app = await start_behind(apps, testbed, APP_ID, "art_redefine_app.py", str(staged),
                             classpath=str(compile_java(tmp_path / "v1", 1, 1)), main_class="reload.Main")
    jvm, stand_in = app.procs[0], app.procs[-1]
    await next_line(jvm.stdout, "^greet 1 other 1$")
    apk = tmp_path / "app.apk"  # the whole app's dex: the two classes changed and one the app never loads
    with zipfile.ZipFile(apk, "w") as archive:
        archive.write(assemble(tmp_path / "apk" / "classes.dex", Greeter=2, Other=2, NotLoaded=3), "classes.dex")
        archive.writestr("AndroidManifest.xml", b"\x03\x00\x08\x00")
    dex_archive = tmp_path / "project_dex_archive"  # a Gradle dex output directory: a dex per class
    assemble(dex_archive / "reload" / "Greeter.dex", Greeter=3)
    target = {"platform": "android", "deviceId": testbed.serial, "appId": APP_ID}
    with trio.fail_after(120):
        async with connect(Config(allow_mutation=True), adb=testbed.client()) as mcp:
            attached = await mcp.ok("attach_debugger", **target)
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

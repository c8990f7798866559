"""Real programs nobody here wrote, debugged end to end (docs/design.md §8): Apache Ant running a build (Debian's
ant.jar, started by Ant's own launcher) and commons-lang3 called from a small main of ours (Debian's
commons-lang3.jar). Where a fixture proves a rule, these prove it holds on classes compiled by somebody else:
a breakpoint pending until the class loads, the stop's line, the stack, ``this`` and its fields with strings
and boxed values inline, an expression, and step-overs that land where the class's own line table (and jdb,
compared in tests/live/test_jdb_diff_live.py) says.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

import jdwp
from jdwp.debugger import Debugger, Stop, open_debugger
from support.jdb_diff import _next_stop
from support.jvm import Debuggee
from support.live import require_tool
from support.real_programs import COMMONS_LANG3, ant_debuggee, classpath, require_jar, started

ECHO = "org.apache.tools.ant.taskdefs.Echo"
BUILD = """<project name="pyjdwp" default="hello">
  <target name="hello"><echo message="hello from ant"/></target>
</project>
"""
COMMONS_MAIN = "CommonsMain"
COMMONS_SOURCE = """import org.apache.commons.lang3.StringUtils;

public final class CommonsMain {
    public static void main(String[] args) {
        String text = StringUtils.abbreviate("The quick brown fox jumps over the lazy dog", 20);
        System.out.println(text + " " + StringUtils.capitalize("kiwi"));
    }
}
"""


@pytest.fixture
def ant(tmp_path: Path) -> Iterator[Debuggee]:
    build = tmp_path / "build.xml"
    build.write_text(BUILD, encoding="utf-8")
    yield from started(ant_debuggee(build, "hello"))


@pytest.fixture
def commons(tmp_path: Path) -> Iterator[Debuggee]:
    jar = require_jar(COMMONS_LANG3)
    source = tmp_path / "CommonsMain.java"
    source.write_text(COMMONS_SOURCE, encoding="utf-8")
    subprocess.run([require_tool("javac"), "-g", "-cp", str(jar), "-d", str(tmp_path), str(source)],
                   check=True, capture_output=True, text=True)
    yield from started(Debuggee(classpath(tmp_path, jar), COMMONS_MAIN, suspend=True, java=require_tool("java")))


async def first_stop(debugger: Debugger, class_name: str, line: int) -> Stop:
    bp = await debugger.set_breakpoint(class_name, line)
    assert bp.status == "pending"  # the VM waits for us before the program's first class loads
    stop = await _next_stop(debugger)
    assert stop is not None and bp.breakpoint_id in stop.breakpoint_ids, stop
    await debugger.remove_breakpoint(bp.breakpoint_id)
    return stop


async def step_over(debugger: Debugger, stop: Stop) -> Stop:
    await debugger.step(stop.stop_id, stop.thread_id or "", "over")
    landed = await _next_stop(debugger)
    assert landed is not None
    return landed


@pytest.mark.live
async def test_an_ant_build_stops_in_its_echo_task_with_the_message_readable(ant: Debuggee) -> None:
    async with jdwp.open_jdwp_tcp("127.0.0.1", ant.port) as vm, open_debugger(vm) as debugger:
        stop = await first_stop(debugger, ECHO, 65)
        assert stop.location is not None
        assert (stop.location.class_name, stop.location.method, stop.location.line) == (ECHO, "execute", 65)
        page = await debugger.stack(stop.stop_id, stop.thread_id or "", limit=100)
        assert any(f.class_name == "org.apache.tools.ant.Target" for f in page.frames)  # Ant's own callers
        top = page.frames[0]
        local = await debugger.locals(stop.stop_id, top.frame_id)
        assert local.this is not None and local.this.runtime_type == ECHO and local.this.object_id is not None
        fields = await debugger.object(stop.stop_id, local.this.object_id, view="fields", limit=100)
        message = next(f for f in fields.fields if f.name == "message")
        assert (message.kind, message.value) == ("string", "hello from ant")
        result = await debugger.evaluate(stop.stop_id, top.frame_id, "message")
        assert result.value == "hello from ant"
        # Echo.execute's line table is 64, 65, 66, 68, …: a step over goes to 66, the next line that runs.
        stop = await step_over(debugger, stop)
        assert stop.location is not None and (stop.location.method, stop.location.line) == ("execute", 66)
        await debugger.resume(stop.stop_id)
    ant.wait_for_line("BUILD SUCCESSFUL", timeout=60)


@pytest.mark.live
async def test_commons_lang3_stops_in_abbreviate_with_its_arguments_inline(commons: Debuggee) -> None:
    async with jdwp.open_jdwp_tcp("127.0.0.1", commons.port) as vm, open_debugger(vm) as debugger:
        # abbreviate(String, int) is one line (222) delegating to abbreviate(String, String, int, int).
        stop = await first_stop(debugger, "org.apache.commons.lang3.StringUtils", 222)
        assert stop.location is not None and (stop.location.method, stop.location.line) == ("abbreviate", 222)
        frame = (await debugger.stack(stop.stop_id, stop.thread_id or "", limit=2)).frames
        assert frame[1].class_name == COMMONS_MAIN and frame[1].line == 5
        local = await debugger.locals(stop.stop_id, frame[0].frame_id)
        values = {v.name: (v.kind, v.value) for v in local.locals}
        assert values == {"str": ("string", "The quick brown fox jumps over the lazy dog"),
                          "maxWidth": ("primitive", "20")}
        length = await debugger.evaluate(stop.stop_id, frame[0].frame_id, "maxWidth * 2")
        assert length.value == "40"
        await debugger.resume(stop.stop_id)
    commons.wait_for_line("The quick brown f... Kiwi", timeout=30)

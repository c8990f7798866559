"""Steps inside javac (issue 38): stopped in seven of javac's own methods (``com.sun.tools.javac``, which the
default step filters exclude), a step over lands on a later line of the method and a step out in its caller, as
IntelliJ's do (it ignores its filters while the current location is filtered) — never running javac to its end.
javac is the JDK's own (``com.sun.tools.javac.Main`` of jdk.compiler) compiling fixtures/javac (Java 17:
records, a sealed interface, switch expressions, instanceof patterns, lambdas, streams).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

import jdwp
from jdwp.debugger import Stop, open_debugger
from support.jdb_diff import JAVAC, javac_start
from support.stops import next_stop

pytestmark = pytest.mark.live

#: javac's methods in the order they first run compiling the fixture.
METHODS = [(f"{JAVAC}.main.JavaCompiler", "compile"), (f"{JAVAC}.parser.JavaTokenizer", "readToken"),
           (f"{JAVAC}.comp.Attr", "visitMethodDef"), (f"{JAVAC}.comp.TransPatterns", "visitTypeTest"),
           (f"{JAVAC}.comp.LambdaToMethod", "visitLambda"), (f"{JAVAC}.comp.Lower", "visitClassDef"),
           (f"{JAVAC}.jvm.Gen", "genMethod")]


async def first_stop(debugger: jdwp.debugger.Debugger) -> Stop:
    stop = await next_stop(debugger)
    while stop.reasons == ("vm_start",):
        await debugger.resume(stop.stop_id)
        stop = await next_stop(debugger)
    return stop


async def test_steps_inside_javac_land_in_javac(tmp_path: Path) -> None:
    debuggee = javac_start(tmp_path)()
    try:
        with trio.fail_after(240):
            async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
                stop: Stop | None = None
                for class_name, method in METHODS:
                    bp = await debugger.set_breakpoint(class_name, method=method)
                    if stop is not None:
                        await debugger.resume(stop.stop_id)
                    stop = await first_stop(debugger)
                    await debugger.remove_breakpoint(bp.breakpoint_id)
                    assert stop.location is not None and stop.location.method == method, stop
                    entry = stop.location.line or 0
                    await debugger.step(stop.stop_id, stop.thread_id or "", "over")
                    stop = await next_stop(debugger)
                    assert stop.reasons == ("step",) and stop.note is None, stop
                    assert (stop.location.class_name, stop.location.method) == (class_name, method), stop
                    assert (stop.location.line or 0) > entry, stop
                    if method == "compile":
                        continue  # out of JavaCompiler.compile is the whole compilation
                    await debugger.step(stop.stop_id, stop.thread_id or "", "out")
                    stop = await next_stop(debugger)
                    assert stop.reasons == ("step",) and stop.location is not None, stop
                    assert stop.location.method != method or stop.location.class_name != class_name, stop
                    assert stop.location.class_name.startswith(("com.sun.tools.javac.", "java.")), stop
                assert stop is not None
                await debugger.resume(stop.stop_id)
        debuggee.process.wait(timeout=120)
        assert debuggee.process.returncode == 0, debuggee.lines
        assert (tmp_path / "javac-out" / "com" / "example" / "shapes" / "Shapes.class").is_file()
    finally:
        debuggee.stop()

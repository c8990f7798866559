"""Steps and frames through Kotlin library code (issue 38), against OpenJDK 17 running a kotlinc-built pipeline on
Debian's kotlinx-coroutines 1.0.1 (``fixtures/coroutines/.../ktpipeline/Pipeline.kt``: channels,
``Mutex.withLock``, ``select``, ``supervisorScope``, ``withTimeout``; one thread, so no lock is contended).

- A step over a line that calls an inline function of the library (``mutex.withLock {``, ``select<String> {``)
  lands on the next line of the user's file, as IntelliJ's Kotlin step over does: the inlined library body
  (``Mutex.kt`` 107…, ``Select.kt`` 178…, ``inlined``) and the lambda passed to it are the call's;
- a step into such a line stops in the lambda the user passed (its ``$i$a$`` range), never in the library's
  inlined lines;
- the real frame under the inline frames shows the call's line in the user's file (the SMAP's ``KotlinDebug``
  stratum: ``Pipeline.kt`` 22, not ``Mutex.kt`` 107), and the async frame of that function too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from jdwp.debugger import Debugger, Stop
from jdwp.debugger.classes.class_path import ClassPath
from support.coroutines import compile_coroutines, coroutine_mark, coroutines_classpath
from support.engines import engine
from support.jvm import Debuggee, debuggees
from support.live import require_tool
from support.stops import next_stop

pytestmark = pytest.mark.live

MAIN = "com.example.ktpipeline.PipelineKt"
FILE = "Pipeline.kt"


@pytest.fixture(scope="module")
def pipeline_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_coroutines(tmp_path_factory.mktemp("pipeline-classes"), kotlinc=require_tool("kotlinc"))


@pytest.fixture
def pipeline(pipeline_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(coroutines_classpath(pipeline_classes), MAIN, java=require_tool("java"))


async def stop_at(debugger: Debugger, app: Debuggee, mark: str) -> Stop:
    """Run the pipeline to the marked line; the breakpoint goes at its first hit (the line has other code
    indexes after the inlined call: a step must not meet them)."""
    bp = await debugger.set_breakpoint(file=FILE, line=coroutine_mark(mark))
    app.send("run")
    stop = await next_stop(debugger)
    assert stop.breakpoint_ids == (bp.breakpoint_id,), stop
    await debugger.remove_breakpoint(bp.breakpoint_id)
    return stop


async def step(debugger: Debugger, stop: Stop, kind: str) -> Stop:
    await debugger.step(stop.stop_id, stop.thread_id or "", kind)  # type: ignore[arg-type]
    landed = await next_stop(debugger)
    assert landed.reasons == ("step",), landed
    return landed


def where(stop: Stop) -> tuple[str | None, int | None, bool]:
    assert stop.location is not None
    return stop.location.source, stop.location.line, stop.location.inlined


@pytest.mark.parametrize(("start", "landing"), [("kp-with-lock", "kp-after-lock"), ("kp-select", "kp-after-select")])
async def test_step_over_an_inline_library_call_lands_on_the_users_next_line(
        pipeline: Debuggee, start: str, landing: str) -> None:
    with trio.fail_after(90):
        async with engine(pipeline) as debugger:
            stop = await stop_at(debugger, pipeline, start)
            stop = await step(debugger, stop, "over")
            assert where(stop) == (FILE, coroutine_mark(landing), False), stop
            await debugger.resume(stop.stop_id)
            await trio.to_thread.run_sync(pipeline.wait_for_line, r"^done run$")


async def test_step_into_an_inline_library_call_stops_in_the_users_lambda(pipeline: Debuggee) -> None:
    """Into ``mutex.withLock {``: the lambda's first line; over from there, the lambda's lines, then the user's
    line after the call — never a line of Mutex.kt."""
    with trio.fail_after(90):
        async with engine(pipeline) as debugger:
            stop = await stop_at(debugger, pipeline, "kp-with-lock")
            stop = await step(debugger, stop, "into")
            assert where(stop) == (FILE, coroutine_mark("kp-lock-body"), False), stop
            lines = []
            while stop.location is not None and stop.location.line != coroutine_mark("kp-after-lock"):
                assert where(stop)[0] == FILE and len(lines) < 5, stop
                lines.append(stop.location.line)
                stop = await step(debugger, stop, "over")
            assert lines[:2] == [coroutine_mark("kp-lock-body"), coroutine_mark("kp-lock-print")], lines
            await debugger.resume(stop.stop_id)
            await trio.to_thread.run_sync(pipeline.wait_for_line, r"^done run$")


async def test_step_into_select_stops_in_the_users_builder_lambda(pipeline: Debuggee) -> None:
    with trio.fail_after(90):
        async with engine(pipeline) as debugger:
            stop = await stop_at(debugger, pipeline, "kp-select")
            stop = await step(debugger, stop, "into")
            assert where(stop) == (FILE, coroutine_mark("kp-select") + 1, False), stop
            await debugger.resume(stop.stop_id)
            await trio.to_thread.run_sync(pipeline.wait_for_line, r"^done run$")


async def test_the_real_frame_under_inline_frames_shows_the_call_site(pipeline: Debuggee,
                                                                      pipeline_classes: Path) -> None:
    """Stopped in the withLock lambda: the inline frames (the lambda, withLock in Mutex.kt), then ``process`` at
    the line that called withLock — through KotlinDebug, not Mutex.kt 107; its async frame (DebugMetadata read
    from the classes: the raw line of the inlined ``lock()`` call, past the file's end) at that line too."""
    with trio.fail_after(90):
        async with engine(pipeline) as debugger:
            debugger.coroutines.class_path = ClassPath((pipeline_classes,))
            stop = await stop_at(debugger, pipeline, "kp-lock-body")
            page = await debugger.stack(stop.stop_id, stop.thread_id or "")
            shown = [(f.method, f.source, f.line, f.inlined) for f in page.frames[:3]]
            call = coroutine_mark("kp-with-lock")
            assert shown[0] == ("invoke", FILE, coroutine_mark("kp-lock-body"), True), shown
            assert shown[1][:2] == ("withLock", "Mutex.kt") and shown[1][3], shown
            assert shown[2] == ("process", FILE, call, False), shown
            assert page.async_frames is not None, page
            process = [f for f in page.async_frames.frames if f.method == "process"]
            assert [(f.source, f.line) for f in process] == [(FILE, call)], page.async_frames
            await debugger.resume(stop.stop_id)
            await trio.to_thread.run_sync(pipeline.wait_for_line, r"^done run$")

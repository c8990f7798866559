"""Lines and steps as jdb shows them, on the real program the issue came from (issue 23 items 3, 4, 10;
docs/design.md §3.6): kotlinc 1.3.31 compiling a small file (Debian's kotlin-compiler.jar), and a step over from a
native top frame in our fixture program.

What jdb says on the same JVM (``jdb -attach``): a step into ``configureExplicitContentRoots`` from
``K2JVMCompiler.kt:89`` lands at ``line=73 bci=0`` (kotlinc's parameter checks come before line 73's entry);
``findMainClass`` at index 16 is ``line=225`` (five entries there: 225, 232, 225, 226, 225), and its steps read
224 → 225 → 226 → 232. A stop in ``singleOrNull``'s inlined body shows its frame (``_Sequences.kt:332``) above
``findMainClass`` at the call's line, 232, as IntelliJ shows it (issue 23 item 9).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

import jdwp
from jdwp.debugger import Debugger, Stop, open_debugger
from support.jdb_diff import KOTLIN_SOURCE, _next_stop
from support.jvm import Debuggee
from support.real_programs import kotlinc_debuggee, started

COMPILER = "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler"
BYTECODE = "org.jetbrains.kotlin.cli.jvm.compiler.KotlinToJVMBytecodeCompiler"
ARGUMENTS = "org.jetbrains.kotlin.cli.jvm.JvmArgumentsKt"


@pytest.fixture
def kotlinc(tmp_path: Path) -> Iterator[Debuggee]:
    source = tmp_path / "Hello.kt"
    source.write_text(KOTLIN_SOURCE, encoding="utf-8")
    yield from started(kotlinc_debuggee([source], tmp_path / "out"))


async def stop_at(debugger: Debugger, class_name: str, line: int, current: Stop | None = None) -> Stop:
    bp = await debugger.set_breakpoint(class_name, line)
    if current is not None:
        await debugger.resume(current.stop_id)
    stop = await _next_stop(debugger)
    assert stop is not None and bp.breakpoint_id in stop.breakpoint_ids, stop
    await debugger.remove_breakpoint(bp.breakpoint_id)
    return stop


async def step(debugger: Debugger, stop: Stop, kind: str) -> Stop:
    await debugger.step(stop.stop_id, stop.thread_id or "", kind)  # type: ignore[arg-type]
    landed = await _next_stop(debugger)
    assert landed is not None
    return landed


def where(stop: Stop) -> tuple[str, str, int | None, int]:
    assert stop.location is not None
    return stop.location.class_name, stop.location.method, stop.location.line, stop.location.code_index


@pytest.mark.live
async def test_kotlinc_steps_and_lines_read_as_jdb_reads_them(kotlinc: Debuggee) -> None:
    async with jdwp.open_jdwp_tcp("127.0.0.1", kotlinc.port) as vm, open_debugger(vm) as debugger:
        stop = await stop_at(debugger, COMPILER, 89)
        stop = await step(debugger, stop, "into")
        # Before the first line entry (the parameter checks): the function's first line, never null.
        assert where(stop) == (ARGUMENTS, "configureExplicitContentRoots", 73, 0)
        stop = await step(debugger, stop, "over")
        assert where(stop)[1:3] == ("configureExplicitContentRoots", 77)

        stop = await stop_at(debugger, BYTECODE, 224, stop)
        assert where(stop) == (BYTECODE, "findMainClass", 224, 0)
        wrong = await debugger.set_breakpoint(BYTECODE, 232)
        # 232 is one of index 16's five entries but not its line: it binds at the loop's code (39, 86) only.
        assert [loc.code_index for loc in wrong.locations if loc.method == "findMainClass"] == [39, 86]
        await debugger.remove_breakpoint(wrong.breakpoint_id)
        at_225 = await debugger.set_breakpoint(BYTECODE, 225)
        assert [(loc.method, loc.code_index) for loc in at_225.locations] == [("findMainClass", 16)]
        lines = []
        for _ in range(3):
            stop = await step(debugger, stop, "over")
            lines.append(where(stop)[2:])
            if len(lines) == 1:  # the step lands on the breakpoint at 225: one stop, reported as line 225
                assert at_225.breakpoint_id in stop.breakpoint_ids and "step" in stop.reasons
                await debugger.remove_breakpoint(at_225.breakpoint_id)
        assert lines == [(225, 16), (226, 23), (232, 39)]  # jdb: 224 → 225 → 226 → 232

        # Into singleOrNull's inlined body (_Sequences.kt:332): its frame above findMainClass at the call (232). A
        # step into goes there; a step over steps over the inlined library body, as IntelliJ's does (docs/tools.md).
        stop = await step(debugger, stop, "into")
        assert stop.location is not None and (stop.location.source, stop.location.line, stop.location.inlined) == (
            "_Sequences.kt", 332, True)
        page = await debugger.stack(stop.stop_id, stop.thread_id or "", limit=3)
        top, real = page.frames[:2]
        assert (top.class_name, top.method, top.source, top.line, top.inlined) == (
            "kotlin.sequences.SequencesKt___SequencesKt", "singleOrNull", "_Sequences.kt", 332, True)
        assert (real.class_name, real.method, real.source, real.line, real.inlined) == (
            BYTECODE, "findMainClass", "KotlinToJVMBytecodeCompiler.kt", 232, False)
        assert top.frame_id == f"{real.frame_id}.i1" and top.index == real.index == 0
        await debugger.resume(stop.stop_id)


@pytest.mark.live
async def test_a_step_over_from_a_native_top_frame_steps_out_and_says_so(debuggee: Debuggee) -> None:
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        for _ in range(50):  # the heartbeat thread sleeps most of the time; a pause may catch it printing
            pause = await debugger.pause()
            page = await debugger.threads(pause.stop_id, 1)
            beat = next(t for t in page.threads if t.name == "heartbeat")
            if beat.frames and beat.frames[0].method == "sleep" and beat.frames[0].code_index == -1:
                break
            await debugger.resume(pause.stop_id)
        else:
            pytest.fail("the heartbeat thread was never caught in Thread.sleep")
        assert beat.thread_id is not None
        made = await debugger.step(pause.stop_id, beat.thread_id, "over")
        assert made == "out"
        with trio.fail_after(30):  # the pauses were published as stops too: the step's comes after them
            landed = await _next_stop(debugger)
            while landed is not None and landed.reasons == ("pause",):
                landed = await _next_stop(debugger)
        assert landed is not None and landed.reasons == ("step",)
        assert landed.location is not None and (landed.location.class_name, landed.location.method) == (
            "com.example.debuggee.Main", "heartbeat")
        await debugger.resume(landed.stop_id)

"""Capture on stop, several expressions per call, and run to a line, against real OpenJDK 17 debuggees
(docs/design.md §3.5): ``Scenes`` (``outer`` calls ``inner`` in a loop) and ``Throws`` (a caught ``BadInput``).

Every stop of a thread carries frame 0's ``frame_id``; a breakpoint, a step, an exception breakpoint or a resume
given ``capture`` reads the top frames, frame 0's locals and expressions as the stop is made, each expression its
value or its own error. Lines are found by their ``// MARK:`` comments; synchronisation is by engine events.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from jdwp.debugger import Capture, InvalidArgument, RunTo
from jdwp.debugger.reading.expressions import ExpressionSyntaxError
from support.engines import engine
from support.jvm import Debuggee, debuggees, find_mark, kotlin_classpath
from support.live import require_tool
from support.stops import next_stop

SCENES = "com.example.debuggee.Scenes"
THROWS = "com.example.debuggee.Throws"
TWINS = "com.example.debuggee.Twins"


def line(mark: str) -> int:
    return find_mark(mark)[1]


@pytest.fixture
def scenes(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, SCENES, java=require_tool("java"))


@pytest.fixture
def twins(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, TWINS, java=require_tool("java"))


@pytest.fixture
def throws(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, THROWS, java=require_tool("java"))


def values(locals_: object) -> dict[str, str | None]:
    return {local.name: local.value for local in locals_.locals}  # type: ignore[attr-defined]


async def test_a_breakpoint_captures_frames_locals_and_expressions_with_per_item_errors(scenes: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(scenes) as debugger:
            capture = Capture(stack=3, locals=True, expressions=("y * 2", "nope + 1", "y"))
            bp = await debugger.set_breakpoint(SCENES, line("inner-first"), capture=capture)
            assert bp.options is not None and bp.options.capture == capture
            stop = await next_stop(debugger)
            assert stop.frame_id == f"{stop.thread_id}.f0"
            captured = stop.capture
            assert captured is not None and captured.error is None
            assert [f.method for f in captured.frames] == ["inner", "outer", "main"]
            assert captured.frames[0].frame_id == stop.frame_id
            y = int(values(captured.locals)["y"] or "")
            first, unknown, plain = captured.expressions
            assert (first.expression, first.value.value, first.error) == ("y * 2", str(2 * y), None)
            assert unknown.value is None and unknown.error is not None
            assert unknown.error.code == "DEBUGGER_EVALUATION_FAILED" and "nope" in unknown.error.message
            assert plain.value.value == str(y)
            # The IDs are the stop's own: locals and evaluation take them without a stack listing.
            assert values(await debugger.locals(stop.stop_id, stop.frame_id)) == values(captured.locals)
            outer = await debugger.locals(stop.stop_id, captured.frames[1].frame_id)
            assert values(outer)["a"] == str(y)
            # Several expressions in one call; frame 0 when no frame is named; a syntax error is its own item's.
            results = await debugger.evaluate_each(stop.stop_id, None, ["y + 1", "y +", "this"])
            assert results[0].value.value == str(y + 1)
            assert results[1].error is not None and results[1].error.code == "INVALID_ARGUMENT"
            assert results[2].error is not None and "static" in results[2].error.message
            assert (await debugger.evaluate(stop.stop_id, None, "y")).value == str(y)
            await debugger.resume(stop.stop_id)


async def test_every_stop_has_its_frame_id_and_locals_only_when_asked(scenes: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(scenes) as debugger:
            bp = await debugger.set_breakpoint(SCENES, line("deep"))  # 1,500 frames down: no capture
            stop = await next_stop(debugger)
            await debugger.remove_breakpoint(bp.breakpoint_id)
            assert stop.capture is None and stop.frame_id == f"{stop.thread_id}.f0"
            assert "bottom" not in str(stop)  # no locals were read
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
            assert page.truncated and page.frames[0].frame_id == stop.frame_id
            await debugger.resume(stop.stop_id)
            # A capture deeper than the stack lists the frames there are.
            await debugger.set_breakpoint(SCENES, line("outer-first"), capture=Capture(stack=20))
            stop = await next_stop(debugger)
            assert stop.capture is not None and [f.method for f in stop.capture.frames] == ["outer", "main"]
            assert stop.capture.locals is None and stop.capture.expressions == ()
            await debugger.resume(stop.stop_id)


async def test_a_bad_capture_is_refused_and_changes_nothing(scenes: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(scenes) as debugger:
            for bad in (Capture(stack=21), Capture(expressions=tuple(f"x{i}" for i in range(11))),
                        Capture(expressions=("y +",)), Capture(expressions=("y.hashCode()",))):
                with pytest.raises(InvalidArgument):
                    await debugger.set_breakpoint(SCENES, line("inner-first"), capture=bad)
                with pytest.raises(InvalidArgument):
                    await debugger.set_exception_breakpoint(capture=bad)
            with pytest.raises(ExpressionSyntaxError) as syntax:
                await debugger.set_breakpoint(SCENES, line("inner-first"), capture=Capture(expressions=("y +",)))
            assert "capture.expressions[0]" in str(syntax.value)
            assert debugger.list_breakpoints() == []
            assert debugger.state == "running"


async def test_a_step_captures_the_stop_it_leads_to(scenes: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(scenes) as debugger:
            bp = await debugger.set_breakpoint(SCENES, line("inner-first"))
            stop = await next_stop(debugger)
            await debugger.remove_breakpoint(bp.breakpoint_id)
            with pytest.raises(InvalidArgument):
                await debugger.step(stop.stop_id, stop.thread_id, "over", capture=Capture(stack=-1))
            assert debugger.current_stop == stop  # refused before anything changed
            await debugger.step(stop.stop_id, stop.thread_id, "over",
                                capture=Capture(stack=0, locals=True, expressions=("z - 1",)))
            landed = await next_stop(debugger)
            assert landed.reason == "step" and landed.location is not None
            assert landed.location.line == line("inner-return")
            assert landed.capture is not None and landed.capture.frames == ()
            z = values(landed.capture.locals)["z"]
            assert landed.capture.expressions[0].value.value == str(int(z or "") - 1)
            await debugger.resume(landed.stop_id)


async def test_run_to_a_line_is_a_one_shot_breakpoint_armed_as_a_breakpoint_is(scenes: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(scenes) as debugger:
            bp = await debugger.set_breakpoint(SCENES, line("outer-first"))
            stop = await next_stop(debugger)
            await debugger.remove_breakpoint(bp.breakpoint_id)
            with pytest.raises(InvalidArgument):
                await debugger.resume(stop.stop_id, run_to=RunTo(line("outer-after")))  # neither class nor file
            one_shot = await debugger.resume(stop.stop_id, run_to=RunTo(line("outer-after"), file="Scenes.java"),
                                             capture=Capture(locals=True, expressions=("b / 3",)))
            assert one_shot is not None and one_shot.status == "verified"
            arrived = await next_stop(debugger)
            assert arrived.location is not None and arrived.location.line == line("outer-after")
            assert arrived.breakpoint_ids == (one_shot.breakpoint_id,)
            assert debugger.list_breakpoints() == []  # gone once hit
            b = int(values(arrived.capture.locals)["b"] or "")  # type: ignore[union-attr]
            assert arrived.capture.expressions[0].value.value == str(b // 3)  # type: ignore[union-attr]
            # Run to a line of which another stop comes first: the one-shot goes at that stop all the same.
            deep = await debugger.set_breakpoint(SCENES, line("deep"))  # down() runs before texts()
            await debugger.resume(arrived.stop_id, run_to=RunTo(line("texts"), class_name=SCENES))
            first = await next_stop(debugger)
            assert first.location is not None and first.location.line == line("deep")
            assert debugger.list_breakpoints() == [deep]
            # A line without code in the classes loaded so far is armed as set_breakpoint arms it (rejected,
            # with its reason), and the app runs: the next stop, whatever makes it, takes it away.
            no_code = await debugger.resume(first.stop_id, run_to=RunTo(line("no-code"), class_name=SCENES))
            assert no_code is not None and no_code.status == "rejected" and no_code.reason is not None
            assert "may still bind" in no_code.reason.message
            assert [b.breakpoint_id for b in debugger.list_breakpoints()] == [deep.breakpoint_id, no_code.breakpoint_id]
            again = await next_stop(debugger)
            assert again.breakpoint_ids == (deep.breakpoint_id,) and debugger.list_breakpoints() == [deep]
            await debugger.remove_breakpoint(deep.breakpoint_id)
            await debugger.resume(again.stop_id)


async def test_an_exception_breakpoint_captures_the_throwing_frame(throws: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(throws) as debugger:
            capture = Capture(stack=2, expressions=("why", 'why == "bad input 42"'))
            await debugger.set_exception_breakpoint("com.example.debuggee.Throws$BadInput", caught=True,
                                                    capture=capture)
            throws.send("caught")
            stop = await next_stop(debugger)
            assert stop.reason == "exception" and stop.capture is not None
            assert [f.method for f in stop.capture.frames] == ["reject", "caught"]
            why, length = stop.capture.expressions
            assert why.value.value == "bad input 42" and length.value.value == "true"
            await debugger.resume(stop.stop_id)


KOTLIN_APP = "com.example.kt.AppKt"


@pytest.fixture
def kotlin_app(kotlin_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(kotlin_classpath(kotlin_classes), KOTLIN_APP, java=require_tool("java"))


async def test_a_capture_in_inlined_kotlin_lists_the_inline_frames_and_reads_the_jvm_frame(
        kotlin_app: Debuggee) -> None:
    """``square``'s body, inlined into ``round`` through ``twice``'s lambda: the capture's frames are the stack as
    IntelliJ shows it (the inline functions' frames, ``….f0.i3`` … ``.i1``, above the JVM frame ``….f0``), and the
    stop's ``frame_id`` is that JVM frame, whose locals hold the inline functions' variables by their own names."""
    with trio.fail_after(90):
        async with engine(kotlin_app) as debugger:
            bp = await debugger.set_breakpoint(file="Inline.kt", line=line("kt-square-body"),
                                               capture=Capture(stack=5, locals=True, expressions=("value", "v")))
            stop = await next_stop(debugger)
            assert bp.breakpoint_id in stop.breakpoint_ids and stop.capture is not None
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=5)
            assert stop.capture.frames == page.frames[:len(stop.capture.frames)]
            assert [f.method for f in stop.capture.frames[:5]] == ["square", "invoke", "twice", "round", "main"]
            assert stop.frame_id == page.frames[3].frame_id == f"{stop.thread_id}.f0"
            assert stop.capture.frames[0].frame_id == f"{stop.frame_id}.i3"
            shown = values(stop.capture.locals)
            value, v = stop.capture.expressions
            assert value.value is not None and value.value.value == shown["value"]
            assert v.value is not None and v.value.value == shown["v"]
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.resume(stop.stop_id)


async def test_repeated_captured_stops_read_the_right_frame(scenes: Debuggee) -> None:
    """From a thread's third stop on, frame 0's locals go out with the stop's first questions under a guessed
    frame ID (HotSpot numbers frames by the thread's resumes); each stop's values are still its own."""
    with trio.fail_after(60):
        async with engine(scenes) as debugger:
            await debugger.set_breakpoint(SCENES, line("inner-first"),
                                          capture=Capture(locals=True, expressions=("y * 2",)))
            seen = []
            for _ in range(5):
                stop = await next_stop(debugger)
                assert stop.capture is not None
                y = int(values(stop.capture.locals)["y"] or "")
                assert stop.capture.expressions[0].value.value == str(2 * y)
                assert values(await debugger.locals(stop.stop_id, stop.frame_id)) == values(stop.capture.locals)
                seen.append(y)
                await debugger.resume(stop.stop_id)
            assert seen == list(range(seen[0], seen[0] + 5))  # one round of Scenes' loop each


async def test_a_queued_stop_made_current_by_a_resume_reads_both_captures_merged(twins: Debuggee) -> None:
    """Twins' two threads run the marked line together; with ``suspend: "thread"`` each hit is its own stop,
    the second queued behind the first. A resume's capture is then for that queued stop, which read its own
    breakpoint's capture as it was made: it is read again, the two merged."""
    with trio.fail_after(60):
        async with engine(twins) as debugger:
            bp = await debugger.set_breakpoint(TWINS, line("twins"), suspend="thread",
                                               capture=Capture(expressions=("rounds",)))
            first = await next_stop(debugger)
            assert first.capture is not None and first.capture.locals is None
            # The engine shows no queue: the test waits for the other twin's stop to be queued (it hits the
            # line within a few milliseconds of the first), so that the resume takes the queued stop's path.
            while not debugger._stops.queue:
                await trio.sleep(0.01)
            await debugger.resume(first.stop_id, capture=Capture(stack=2, locals=True, expressions=("rounds + 1",)))
            second = debugger.current_stop
            assert second is not None and second.thread_name != first.thread_name
            captured = second.capture
            assert captured is not None and captured.error is None
            assert [e.expression for e in captured.expressions] == ["rounds", "rounds + 1"]
            rounds = int(values(captured.locals)["rounds"] or "")
            assert captured.expressions[1].value.value == str(rounds + 1)
            assert [f.method for f in captured.frames] == ["together", "meet"]
            assert values(await debugger.locals(second.stop_id, second.frame_id)) == values(captured.locals)
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.resume(second.stop_id)

"""Kotlin compiled by kotlinc, debugged on OpenJDK 17: companions, data classes, top-level code, lambdas,
inline functions from another file (nested, with a lambda inside), through the classes' SMAPs (issue 11).

The debuggee is ``fixtures/kotlin`` (``com.example.kt.AppKt``): its main loop calls ``round`` every few
milliseconds; ``load com.example.kt.Late`` loads a class that inlines ``cube``, which nothing else uses.
Lines are found by their ``// MARK:`` comments.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from jdwp.debugger import BreakpointRejected, BreakpointVerified, Debugger, Stopped
from support.engines import engine
from support.jvm import KOTLIN_SOURCES, Debuggee, debuggees, find_mark, kotlin_classpath
from support.live import require_tool

PACKAGE = "com.example.kt"
APP = f"{PACKAGE}.AppKt"
INLINE_PATH = "app/src/main/kotlin/com/example/kt/Inline.kt"
FILE_LINES = {path.name: len(path.read_text(encoding="utf-8").splitlines())
              for path in KOTLIN_SOURCES.rglob("*.kt")}


def line(mark: str) -> int:
    return find_mark(mark)[1]


@pytest.fixture
def kotlin_app(kotlin_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(kotlin_classpath(kotlin_classes), APP, java=require_tool("java"))


async def stop_at(debugger: Debugger, breakpoint_id: str) -> Any:
    """The next stop of this breakpoint (binding events skipped, other stops resumed)."""
    while True:
        event = await debugger.events.receive()
        if isinstance(event, BreakpointVerified | BreakpointRejected):
            continue
        assert isinstance(event, Stopped), f"expected Stopped, got {event}"
        if breakpoint_id in event.stop.breakpoint_ids:
            return event.stop
        await debugger.resume(event.stop.stop_id)


async def verified_later(debugger: Debugger, breakpoint_id: str) -> Any:
    """The breakpoint as its class-prepare bound it (a stop of another breakpoint is resumed)."""
    while True:
        event = await debugger.events.receive()
        if isinstance(event, BreakpointVerified) and event.breakpoint.breakpoint_id == breakpoint_id:
            return event.breakpoint
        if isinstance(event, Stopped):
            await debugger.resume(event.stop.stop_id)


def where(position: Any) -> tuple[str, str, str | None, int | None, bool]:
    return position.class_name, position.method, position.source, position.line, position.inlined


def assert_within_files(frames: Any) -> None:
    """No frame shows a line past the end of its file (the raw line numbers of inlined code are)."""
    for frame in frames:
        if frame.source in FILE_LINES and frame.line is not None:
            assert frame.line <= FILE_LINES[frame.source], frame


@pytest.mark.parametrize("request_kind, mark, expected", [
    ("class", "kt-companion", (f"{PACKAGE}.Counter$Companion", "start")),
    ("file", "kt-data-sum", (f"{PACKAGE}.Point", "sum")),
    ("file", "kt-lambda", (f"{APP}$round$viaLambda$1", "invoke")),
    ("file", "kt-inline-lambda", (APP, "round")),
], ids=["companion-by-class", "data-class-by-file", "lambda-class-by-file", "lambda-in-inline-call-by-file"])
async def test_kotlin_code_binds_stops_and_shows_its_line(kotlin_app: Debuggee, request_kind: str, mark: str,
                                                          expected: tuple[str, str]) -> None:
    with trio.fail_after(60):
        async with engine(kotlin_app) as debugger:
            if request_kind == "class":
                bp = await debugger.set_breakpoint(f"{PACKAGE}.Counter", line(mark))
            else:
                bp = await debugger.set_breakpoint(file="App.kt", line=line(mark))
            if bp.status != "verified" and mark == "kt-lambda":
                # "ready" is printed before main's first round: the lambda's class loads at that round's call
                # (kotlinc 1.3 makes it a class of its own), so on a busy machine it may not be loaded yet.
                bp = await verified_later(debugger, bp.breakpoint_id)
            assert bp.status == "verified", bp.reason
            assert {(loc.class_name, loc.method) for loc in bp.locations} == {expected}
            assert all(loc.source == "App.kt" and not loc.inlined for loc in bp.locations)
            stop = await stop_at(debugger, bp.breakpoint_id)
            assert where(stop.location) == (*expected, "App.kt", line(mark), False)
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=10)
            if mark == "kt-inline-lambda":  # as IntelliJ: the inlined lambda, twice's frame, round at its call
                assert [where(f) for f in page.frames[:3]] == [
                    (f"{APP}$round$1", "invoke", "App.kt", line(mark), True),
                    (f"{PACKAGE}.InlineKt", "twice", "Inline.kt", line("kt-twice-body"), True),
                    (APP, "round", "App.kt", line(mark) - 1, False)]
            else:
                assert where(page.frames[0]) == (*expected, "App.kt", line(mark), False)
            assert_within_files(page.frames)
            await debugger.resume(stop.stop_id)


async def test_an_inline_function_line_binds_where_it_was_inlined(kotlin_app: Debuggee) -> None:
    """square's body: its own copy in InlineKt never runs (the class never loads); the copies inlined into
    round — twice through a lambda, once through squarePlusOne (nested inline calls) — do."""
    with trio.fail_after(60):
        async with engine(kotlin_app) as debugger:
            bp = await debugger.set_breakpoint(file=INLINE_PATH, line=line("kt-square-body"))
            assert bp.status == "verified", bp.reason
            assert [(loc.class_name, loc.method, loc.source, loc.line, loc.inlined) for loc in bp.locations] == [
                (APP, "round", "Inline.kt", line("kt-square-body"), True)] * 3
            stop = await stop_at(debugger, bp.breakpoint_id)
            assert where(stop.location) == (APP, "round", "Inline.kt", line("kt-square-body"), True)
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=5)
            # As IntelliJ shows it: square, the lambda it was called from, twice, then round at twice's call.
            assert [where(f) for f in page.frames[:4]] == [
                (f"{PACKAGE}.InlineKt", "square", "Inline.kt", line("kt-square-body"), True),
                (f"{APP}$round$1", "invoke", "App.kt", line("kt-inline-lambda"), True),
                (f"{PACKAGE}.InlineKt", "twice", "Inline.kt", line("kt-twice-body"), True),
                (APP, "round", "App.kt", line("kt-inline-lambda") - 1, False)]
            assert where(page.frames[4])[:2] == (APP, "main") and not page.frames[4].inlined
            assert {f.frame_id for f in page.frames[:4]} == {f"{page.frames[3].frame_id}.i{d}" for d in (1, 2, 3)} | {
                page.frames[3].frame_id}  # one JVM frame: the inline frames' handles name it too
            assert_within_files(page.frames)
            result = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
            names = [local.name for local in result.locals]
            assert not [n for n in names if n.startswith(("$i$f$", "$i$a$"))], names
            assert "value" in names and "value$iv" not in names  # twice's parameter, under its own name
            assert "v" in names  # the lambda's parameter, inlined into round with the lambda
            await debugger.resume(stop.stop_id)


async def test_a_class_of_inline_functions_that_never_loads_binds_through_the_maps(kotlin_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(kotlin_app) as debugger:
            bp = await debugger.set_breakpoint(f"{PACKAGE}.InlineKt", line("kt-nested-inline"))
            assert bp.status == "verified", bp.reason
            # before and after the nested square call: two code indexes of the one line
            assert {(loc.class_name, loc.source, loc.inlined) for loc in bp.locations} == {(APP, "Inline.kt", True)}
            stop = await stop_at(debugger, bp.breakpoint_id)
            assert where(stop.location) == (APP, "round", "Inline.kt", line("kt-nested-inline"), True)
            await debugger.resume(stop.stop_id)


async def test_a_class_loaded_later_that_inlines_the_line_verifies_it(kotlin_app: Debuggee) -> None:
    """cube is used only by Late: the file is seen (AppKt inlines its other functions) but has no code at
    the line — rejected, armed — until Late loads; OpenJDK's SourceNameMatch finds Late by its map."""
    with trio.fail_after(60):
        async with engine(kotlin_app) as debugger:
            bp = await debugger.set_breakpoint(file="Inline.kt", line=line("kt-cube-body"))
            assert bp.status == "rejected" and bp.reason is not None and "stays armed" in bp.reason.message
            kotlin_app.send(f"load {PACKAGE}.Late")
            event = await debugger.events.receive()
            assert isinstance(event, BreakpointVerified), event
            assert [(loc.class_name, loc.method, loc.source, loc.inlined) for loc in event.breakpoint.locations] == [
                (f"{PACKAGE}.Late", "run", "Inline.kt", True)]
            stop = await stop_at(debugger, bp.breakpoint_id)
            assert where(stop.location) == (f"{PACKAGE}.Late", "run", "Inline.kt", line("kt-cube-body"), True)
            await debugger.resume(stop.stop_id)


async def test_a_lambda_class_lists_what_it_captured(kotlin_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(kotlin_app) as debugger:
            bp = await debugger.set_breakpoint(file="App.kt", line=line("kt-lambda"))
            stop = await stop_at(debugger, bp.breakpoint_id)
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
            result = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
            by_name = {local.name: local for local in result.locals}
            assert set(by_name) == {"i", "base", "point"}
            assert not by_name["i"].captured
            assert by_name["base"].captured and by_name["base"].value == "3"
            assert by_name["point"].captured and by_name["point"].type == f"{PACKAGE}.Point"
            await debugger.resume(stop.stop_id)


async def test_a_step_into_an_inlined_call_shows_the_inline_source(kotlin_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(kotlin_app) as debugger:
            bp = await debugger.set_breakpoint(file="App.kt", line=line("kt-inline-lambda"))
            first = min(loc.code_index for loc in bp.locations)  # where the line starts, before square's body
            stop = await stop_at(debugger, bp.breakpoint_id)
            while stop.location.code_index != first:
                await debugger.resume(stop.stop_id)
                stop = await stop_at(debugger, bp.breakpoint_id)
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.step(stop.stop_id, stop.thread_id, "into")
            stepped = await debugger.events.receive()
            while not isinstance(stepped, Stopped) or "step" not in stepped.stop.reasons:
                if isinstance(stepped, Stopped):  # a hit of the removed breakpoint already on its way
                    await debugger.resume(stepped.stop.stop_id)
                stepped = await debugger.events.receive()
            assert where(stepped.stop.location) == (APP, "round", "Inline.kt", line("kt-square-body"), True)
            page = await debugger.stack(stepped.stop.stop_id, stepped.stop.thread_id, limit=3)
            assert_within_files(page.frames)
            await debugger.resume(stepped.stop.stop_id)


async def test_a_pending_kotlin_class_binds_when_it_loads(kotlin_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(kotlin_app) as debugger:
            bp = await debugger.set_breakpoint(f"{PACKAGE}.Late", line("kt-late-call"))
            assert bp.status == "pending"
            kotlin_app.send(f"load {PACKAGE}.Late")
            stop = await stop_at(debugger, bp.breakpoint_id)
            assert where(stop.location) == (f"{PACKAGE}.Late", "run", "Late.kt", line("kt-late-call"), False)
            await debugger.resume(stop.stop_id)
            await trio.to_thread.run_sync(functools.partial(kotlin_app.wait_for_line, "^loaded ", timeout=20))


async def test_a_bare_name_of_an_inline_only_file_binds_its_inlined_copies(kotlin_app: Debuggee) -> None:
    """util.kt holds only an inline function: its facade (UtilKt) never loads, so only AppKt's map names it.
    The bare name binds the copy (issue 23: it stayed pending with no reason); the facade's name binds it too."""
    with trio.fail_after(60):
        async with engine(kotlin_app) as debugger:
            bp = await debugger.set_breakpoint(file="util.kt", line=line("kt-util-body"))
            assert bp.status == "verified", bp.reason
            assert {(loc.class_name, loc.method, loc.source, loc.line, loc.inlined) for loc in bp.locations} == {
                (APP, "round", "util.kt", line("kt-util-body"), True)}
            stop = await stop_at(debugger, bp.breakpoint_id)
            assert where(stop.location) == (APP, "round", "util.kt", line("kt-util-body"), True)
            await debugger.resume(stop.stop_id)
            by_class = await debugger.set_breakpoint(f"{PACKAGE}.UtilKt", line("kt-util-body"))
            assert {loc.code_index for loc in by_class.locations} == {loc.code_index for loc in bp.locations}


async def test_a_file_name_wrong_only_in_case_is_named_and_a_right_one_never_called_wrong(
        kotlin_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(kotlin_app) as debugger:
            wrong = await debugger.set_breakpoint(file="Util.kt", line=line("kt-util-body"))
            assert wrong.status == "pending" and wrong.reason is not None, wrong
            assert wrong.reason.code == "DEBUGGER_NEAR_MISS"
            assert "'util.kt'" in wrong.reason.message and "case-sensitive" in wrong.reason.message
            # a file of the app that has not loaded yet, spelt right: pending, and no hint says otherwise
            later = await debugger.set_breakpoint(file="Later.kt", line=3)
            assert later.status == "pending" and later.reason is None, later

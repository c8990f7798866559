"""Breakpoints by Kotlin file name in a real program nobody here wrote: kotlinc's own compiler (Debian's
kotlin-compiler.jar, JetBrains' Kotlin), compiling a small file under the JDWP agent (issue 23, item 5).

``jvmArguments.kt``'s top-level code is the class ``org.jetbrains.kotlin.cli.jvm.JvmArgumentsKt`` (Kotlin
capitalises the file's name); its line 73 is the ``for`` loop of ``configureExplicitContentRoots``, run once
per compilation. ``_Arrays.kt`` is the stdlib file whose inline functions kotlinc's classes copied: its copies
live in ``org.jetbrains.*`` classes, which a bare file name must search like any other package.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from jdwp.debugger import BreakpointVerified, Debugger, Stopped
from jdwp.protocol.types import ReferenceTypeId
from support.engines import engine
from support.jvm import Debuggee
from support.real_programs import kotlinc_debuggee, started

FACADE = "org.jetbrains.kotlin.cli.jvm.JvmArgumentsKt"
METHOD = "configureExplicitContentRoots"
LINE = 73


@pytest.fixture
def kotlinc(tmp_path: Path) -> Iterator[Debuggee]:
    source = tmp_path / "hello.kt"
    source.write_text('fun main() {\n    println(listOf(1, 2, 3).map { it * 2 }.sum())\n}\n', encoding="utf-8")
    yield from started(kotlinc_debuggee([source], tmp_path / "out"))


async def next_stop(debugger: Debugger) -> Any:
    """The next breakpoint stop (the launch's own stop, already held, and binding events skipped)."""
    while True:
        event = await debugger.events.receive()
        if isinstance(event, Stopped) and "breakpoint" in event.stop.reasons:
            return event.stop


async def lines_of(debugger: Debugger, class_name: str, method: str) -> dict[int, int]:
    """Code index → line of the method, from the class's own line table (Method.LineTable, 6,1)."""
    [ref] = await debugger.vm.classes_by_signature("L" + class_name.replace(".", "/") + ";")
    type_id = ReferenceTypeId(ref.type_id)
    [info] = [m for m in await debugger.vm.reference_type.methods(type_id) if m.name == method]
    table = await debugger.vm.method.line_table(type_id, info.method_id)
    return {entry.line_code_index: entry.line_number for entry in table.lines}


async def test_a_kotlin_file_named_as_written_binds_in_kotlincs_own_classes(kotlinc: Debuggee) -> None:
    with trio.fail_after(240):
        async with engine(kotlinc) as debugger:
            launch = await debugger.hold_at_launch(vm_start_within=10)
            pending = await debugger.set_breakpoint(file="jvmArguments.kt", line=LINE)
            assert pending.status == "pending" and pending.reason is None, pending  # spelt right: no hint
            await debugger.resume(launch.stop_id)
            stop = await next_stop(debugger)
            assert (stop.location.class_name, stop.location.method, stop.location.source, stop.location.line) == (
                FACADE, METHOD, "jvmArguments.kt", LINE)
            # With the facade loaded, the same file binds at once, at code indexes the line table gives line 73.
            again = await debugger.set_breakpoint(file="jvmArguments.kt", line=LINE)
            assert again.status == "verified", again.reason
            table = await lines_of(debugger, FACADE, METHOD)
            assert {(loc.class_name, loc.method) for loc in again.locations} == {(FACADE, METHOD)}
            assert all(table.get(loc.code_index) == LINE and not loc.inlined for loc in again.locations), (
                again.locations, table)
            assert stop.location.code_index in {loc.code_index for loc in again.locations}
            # A spelling wrong only in case is named; the class's name alone never makes a right one wrong.
            wrong = await debugger.set_breakpoint(file="JvmArguments.kt", line=LINE)
            assert wrong.status == "pending" and wrong.reason is not None, wrong
            assert "'jvmArguments.kt'" in wrong.reason.message and "case-sensitive" in wrong.reason.message
            # The stdlib's _Arrays.kt: inlined into kotlinc's own org.jetbrains classes, found through their maps.
            arrays = await debugger.set_breakpoint(file="_Arrays.kt", line=8760)
            assert arrays.status == "verified", arrays.reason
            assert (FACADE, "_Arrays.kt", True) in {(loc.class_name, loc.source, loc.inlined)
                                                    for loc in arrays.locations}, arrays.locations
            for bp in (pending, again, wrong, arrays):
                await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.resume(stop.stop_id)


async def test_a_pending_kotlin_file_binds_when_its_facade_loads(kotlinc: Debuggee) -> None:
    with trio.fail_after(240):
        async with engine(kotlinc) as debugger:
            launch = await debugger.hold_at_launch(vm_start_within=10)
            bp = await debugger.set_breakpoint(file="jvmArguments.kt", line=LINE)
            await debugger.resume(launch.stop_id)
            event = await debugger.events.receive()
            while not isinstance(event, BreakpointVerified):
                event = await debugger.events.receive()
            assert {(loc.class_name, loc.source, loc.line) for loc in event.breakpoint.locations} == {
                (FACADE, "jvmArguments.kt", LINE)}
            stop = await next_stop(debugger)
            assert bp.breakpoint_id in stop.breakpoint_ids
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.resume(stop.stop_id)

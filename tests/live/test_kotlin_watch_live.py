"""Watchpoints on Kotlin properties' backing fields and a Kotlin function's return value, against a real
OpenJDK 17 debuggee compiled by kotlinc (``fixtures/kotlin/com/example/ktwatch/Watch.kt``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

import jdwp
from jdwp.debugger import open_debugger
from support.engines import printed
from support.jvm import Debuggee, debuggees, find_mark, kotlin_classpath
from support.live import require_tool
from support.stops import next_stop

GAUGE = "com.example.ktwatch.Gauge"


@pytest.fixture
def gauge_app(kotlin_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(kotlin_classpath(kotlin_classes), "com.example.ktwatch.WatchKt", java=require_tool("java"))


async def test_a_kotlin_propertys_backing_field_and_a_companion_property(gauge_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with jdwp.open_jdwp_tcp("127.0.0.1", gauge_app.port) as vm, open_debugger(vm) as debugger:
            level = await debugger.set_watchpoint(GAUGE, "level", condition="new_value > old_value")
            raises = await debugger.set_watchpoint(GAUGE, "raises")  # the companion's: a static of Gauge
            assert (level.status, raises.status) == ("verified", "verified")
            gauge_app.send("raise")
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (level.breakpoint_id,) and stop.thread_name == "leveller"
            assert (stop.watch.old_value.value, stop.watch.new_value.value) == ("10", "15")
            assert (stop.location.source, stop.location.line) == ("Watch.kt", find_mark("ktw-raise")[1])
            await debugger.resume(stop.stop_id)
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (raises.breakpoint_id,) and stop.watch.object_id is None
            assert (stop.watch.old_value.value, stop.watch.new_value.value) == ("0", "1")
            await debugger.resume(stop.stop_id)
            await printed(gauge_app, "^done raise$")


async def test_a_kotlin_functions_long_return_value(gauge_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with jdwp.open_jdwp_tcp("127.0.0.1", gauge_app.port) as vm, open_debugger(vm) as debugger:
            await debugger.set_breakpoint("com.example.ktwatch.WatchKt", method="far", on="exit")
            gauge_app.send("far")
            stop = await next_stop(debugger)
            assert stop.return_value.value == "9007199254740995" and stop.location.method == "far"
            await debugger.resume(stop.stop_id)
            await printed(gauge_app, "^far 9007199254740995$")


async def test_a_watchpoint_on_a_kotlin_backing_field_changes_in_place(gauge_app: Debuggee) -> None:
    """update_breakpoint on kotlinc's output: a condition on ``level``'s backing field that no raise meets lets
    the write go; the condition cleared, the next raise stops with the values the first one left."""
    with trio.fail_after(60):
        async with jdwp.open_jdwp_tcp("127.0.0.1", gauge_app.port) as vm, open_debugger(vm) as debugger:
            level = await debugger.set_watchpoint(GAUGE, "level")
            quiet = await debugger.update_breakpoint(level.breakpoint_id, condition="new_value > 1000")
            assert quiet.options is not None and quiet.options.condition == "new_value > 1000"
            mark = len(gauge_app.lines)
            gauge_app.send("raise")  # level 10 -> 15: judged false, let go
            await printed(gauge_app, "^done raise$", mark)
            plain = await debugger.update_breakpoint(level.breakpoint_id, condition=None)
            assert plain.options is None and plain.status == "verified"
            mark = len(gauge_app.lines)
            gauge_app.send("raise")
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (level.breakpoint_id,) and stop.thread_name == "leveller"
            assert (stop.watch.old_value.value, stop.watch.new_value.value) == ("15", "20")
            await debugger.resume(stop.stop_id)
            await printed(gauge_app, "^done raise$", mark)

"""Values against a real OpenJDK 17 debuggee (``Shapes``): runtime types, stable object handles, objects,
arrays, strings and containers read without running app code (DESIGN.md §7.2).

The debuggee calls ``Shapes.look`` in a loop on one object (``Shapes.KEPT``); its marked line is where
every test stops. ``Loud`` overrides ``size()``/``toString()`` to print "APP CODE RAN": it must never
print while the engine reads. Synchronisation is by engine events and printed lines, never by sleeping.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import BreakpointVerified, Debugger, Stopped, open_debugger
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool

SHAPES = "com.example.debuggee.Shapes"


@pytest.fixture
def shapes(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, SHAPES, java=require_tool("java"))


@asynccontextmanager
async def stopped_in_look(debuggee: Debuggee) -> AsyncIterator[tuple[Debugger, Any, dict[str, Any], Any]]:
    """An engine stopped at the marked line: the debugger, the stop, the locals by name, and ``this``."""
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        await debugger.set_breakpoint(SHAPES, find_mark("shapes")[1])
        stop = await next_stop(debugger)
        page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
        result = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
        yield debugger, stop, {local.name: local for local in result.locals}, result.this


async def next_stop(debugger: Debugger) -> Any:
    event = await debugger.events.receive()
    while isinstance(event, BreakpointVerified):
        event = await debugger.events.receive()
    assert isinstance(event, Stopped), event
    return event.stop


async def test_runtime_types_and_handles_that_stay_the_same_across_stops(shapes: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped_in_look(shapes) as (debugger, stop, by_name, this):
            assert by_name["anObject"].type == "java.lang.Object"
            assert by_name["anObject"].runtime_type == "java.util.ArrayList"
            assert by_name["ints"].runtime_type == "int[]" and by_name["ints"].length == 2500
            assert by_name["odd"].runtime_type == "java.lang.String"
            assert by_name["round"].runtime_type is None  # a primitive has none
            assert this.runtime_type == SHAPES and this.object_id.startswith("obj-")
            assert by_name["cycle"].runtime_type == "com.example.debuggee.Shapes$Derived"
            await debugger.resume(stop.stop_id)
            again = await next_stop(debugger)
            page = await debugger.stack(again.stop_id, again.thread_id, limit=1)
            later = await debugger.locals(again.stop_id, page.frames[0].frame_id)
            assert later.this is not None and later.this.object_id == this.object_id  # the same object: KEPT
            assert {v.name: v for v in later.locals}["anObject"].object_id != by_name["anObject"].object_id
            await debugger.resume(again.stop_id)

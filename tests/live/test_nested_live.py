"""Breakpoints in Java's nested classes and by source file, against real OpenJDK 17 debuggees (issue 11).

``Nest`` (``fixtures/java/com/example/debuggee/Nest.java``), loaded into the ``Main`` debuggee with ``load``,
runs an anonymous class, a local class, an inner class, a static nested class, an enum constant's body and
a lambda on every run, and prints ``nest ran`` once all of them have loaded. ``Nest$Late`` loads (and runs
its static initialiser) only when told to. Each binding rule is checked end to end: the breakpoint is
verified in the right class, the VM stops there, and the stack shows the right source and line.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio

from jdwp.debugger import BreakpointRejected, BreakpointVerified, Debugger, RunTo, Stopped
from support.engines import engine, printed
from support.jvm import Debuggee, find_mark
from support.stops import next_stop

PACKAGE = "com.example.debuggee"
NEST = f"{PACKAGE}.Nest"
PATH = "app/src/main/java/com/example/debuggee/Nest.java"


def line(mark: str) -> int:
    return find_mark(mark)[1]


async def load_nest(debuggee: Debuggee) -> None:
    debuggee.send(f"load {NEST}")
    await printed(debuggee, "^nest ran$")


async def stop_at(debugger: Debugger, breakpoint_id: str) -> Any:
    """The next stop of this breakpoint (stops of others resumed on the way)."""
    while True:
        stop = await next_stop(debugger)
        if breakpoint_id in stop.breakpoint_ids:
            return stop
        await debugger.resume(stop.stop_id)


# Every nested kind, the class it compiles to, and the method holding the marked line.
NESTED = [
    ("nest-anonymous", f"{NEST}$1", "run"),
    ("nest-local", f"{NEST}$1Local", "times"),
    ("nest-inner", f"{NEST}$Inner", "plusBase"),
    ("nest-static", f"{NEST}$Deep", "twice"),
    ("nest-enum", f"{NEST}$Op$1", "apply"),
]


@pytest.mark.parametrize("mark, class_name, method", NESTED, ids=[m for m, _, _ in NESTED])
async def test_a_class_breakpoint_binds_in_the_nested_class_stops_and_shows_its_line(
        debuggee: Debuggee, mark: str, class_name: str, method: str) -> None:
    with trio.fail_after(60):
        await load_nest(debuggee)
        async with engine(debuggee) as debugger:
            bp = await debugger.set_breakpoint(NEST, line(mark))
            assert bp.status == "verified", bp.reason
            assert [(loc.class_name, loc.method, loc.source, loc.line, loc.inlined) for loc in bp.locations] == [
                (class_name, method, "Nest.java", line(mark), False)]
            stop = await stop_at(debugger, bp.breakpoint_id)
            assert (stop.location.class_name, stop.location.method, stop.location.source, stop.location.line) == (
                class_name, method, "Nest.java", line(mark))
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=3)
            top = page.frames[0]
            assert (top.class_name, top.method, top.source, top.line) == (class_name, method, "Nest.java", line(mark))
            assert page.frames[1].class_name == NEST or mark == "nest-enum"
            await debugger.resume(stop.stop_id)


async def test_a_lambda_line_binds_where_javac_put_it_in_the_class_itself(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        await load_nest(debuggee)
        async with engine(debuggee) as debugger:
            bp = await debugger.set_breakpoint(NEST, line("nest-lambda"))
            assert bp.status == "verified"
            methods = {(loc.class_name, loc.method) for loc in bp.locations}
            assert methods == {(NEST, "round"), (NEST, "lambda$round$0")}  # creating it, and its body
            stop = await stop_at(debugger, bp.breakpoint_id)
            assert stop.location.line == line("nest-lambda")
            await debugger.resume(stop.stop_id)


async def test_an_anonymous_class_lists_the_variables_it_captured(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        await load_nest(debuggee)
        async with engine(debuggee) as debugger:
            bp = await debugger.set_breakpoint(NEST, line("nest-anonymous"))
            stop = await stop_at(debugger, bp.breakpoint_id)
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=2)
            result = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
            assert result.availability == "available"
            by_name = {local.name: local for local in result.locals}
            assert set(by_name) == {"arg", "label"}  # seen is not live yet; this$0 is not a captured local
            assert by_name["arg"].captured and by_name["arg"].kind == "primitive" and by_name["arg"].type == "int"
            assert by_name["label"].captured and by_name["label"].value == f"arg {by_name['arg'].value}"
            assert result.this is not None and result.this.type == f"{NEST}$1"
            caller = await debugger.locals(stop.stop_id, page.frames[1].frame_id)
            assert not any(local.captured for local in caller.locals)  # round's own locals are plain
            await debugger.resume(stop.stop_id)


async def test_a_rejected_breakpoint_stays_armed_until_a_nested_class_loads_late(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        await load_nest(debuggee)
        async with engine(debuggee) as debugger:
            bp = await debugger.set_breakpoint(NEST, line("nest-late-clinit"))
            assert bp.status == "rejected" and bp.locations == ()
            assert bp.reason is not None and bp.reason.code == "DEBUGGER_LOCATION_UNAVAILABLE"
            assert "stays armed" in bp.reason.message
            # Honest about what was seen: the classes loaded so far, and that a later one may bind it.
            message = bp.reason.message
            assert f"no code at line {line('nest-late-clinit')} in {NEST}" in message and "loaded so far" in message
            assert "may still bind" in message and "watches classes that load later" in message
            debuggee.send(f"load {NEST}$Late")
            event = await debugger.events.receive()
            assert isinstance(event, BreakpointVerified) and event.breakpoint.breakpoint_id == bp.breakpoint_id
            (location,) = event.breakpoint.locations
            assert (location.class_name, location.method, location.line) == (
                f"{NEST}$Late", "<clinit>", line("nest-late-clinit"))
            stop = await stop_at(debugger, bp.breakpoint_id)
            assert stop.thread_name == "control"  # Class.forName ran the initialiser there
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
            assert (page.frames[0].class_name, page.frames[0].line) == (f"{NEST}$Late", line("nest-late-clinit"))
            await debugger.resume(stop.stop_id)


async def test_a_pending_class_breakpoint_binds_its_nested_classes_as_they_load(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(debuggee) as debugger:
            bp = await debugger.set_breakpoint(NEST, line("nest-inner"))
            assert bp.status == "pending" and bp.reason is None
            debuggee.send(f"load {NEST}")
            # Nest loads first, without code at the line (rejected, armed); then Nest$Inner, which has it.
            rejected = await debugger.events.receive()
            assert isinstance(rejected, BreakpointRejected) and rejected.breakpoint.status == "rejected"
            verified = await debugger.events.receive()
            assert isinstance(verified, BreakpointVerified) and verified.breakpoint.status == "verified"
            stop = await stop_at(debugger, bp.breakpoint_id)
            assert (stop.location.class_name, stop.location.line) == (f"{NEST}$Inner", line("nest-inner"))
            (state,) = debugger.list_breakpoints()
            assert state.status == "verified" and [loc.class_name for loc in state.locations] == [f"{NEST}$Inner"]
            await debugger.resume(stop.stop_id)


@pytest.mark.parametrize("file", ["Nest.java", PATH, "com\\example\\debuggee\\Nest.java"])
async def test_a_file_breakpoint_binds_in_every_class_of_the_file(debuggee: Debuggee, file: str) -> None:
    with trio.fail_after(60):
        await load_nest(debuggee)
        async with engine(debuggee) as debugger:
            bp = await debugger.set_breakpoint(file=file, line=line("nest-static"))
            assert bp.status == "verified" and bp.class_name is None and bp.file == file
            assert bp.requested == {"file": file, "line": line("nest-static")}
            assert [(loc.class_name, loc.method) for loc in bp.locations] == [(f"{NEST}$Deep", "twice")]
            stop = await stop_at(debugger, bp.breakpoint_id)
            assert (stop.location.class_name, stop.location.source, stop.location.line) == (
                f"{NEST}$Deep", "Nest.java", line("nest-static"))
            await debugger.resume(stop.stop_id)


async def test_a_file_breakpoint_is_pending_until_a_class_of_the_file_loads(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(debuggee) as debugger:
            bp = await debugger.set_breakpoint(file=PATH, line=line("nest-enum"))
            assert bp.status == "pending" and bp.locations == ()
            other = await debugger.set_breakpoint(file="elsewhere/Nest.java", line=line("nest-enum"))
            debuggee.send(f"load {NEST}")
            stop = await stop_at(debugger, bp.breakpoint_id)
            assert (stop.location.class_name, stop.location.line) == (f"{NEST}$Op$1", line("nest-enum"))
            states = {b.breakpoint_id: b for b in debugger.list_breakpoints()}
            assert states[bp.breakpoint_id].status == "verified"
            assert states[other.breakpoint_id].status == "pending"  # its package is not com.example.debuggee
            await debugger.resume(stop.stop_id)


async def test_nested_classes_bind_in_every_class_loader(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        await load_nest(debuggee)
        async with engine(debuggee) as debugger:
            bp = await debugger.set_breakpoint(NEST, line("nest-anonymous"))
            assert len(bp.locations) == 1
            debuggee.send(f"isolated {NEST}")
            event = await debugger.events.receive()
            while not (isinstance(event, BreakpointVerified) and len(event.breakpoint.locations) == 2):
                if isinstance(event, Stopped):
                    await debugger.resume(event.stop.stop_id)
                event = await debugger.events.receive()
            locations = event.breakpoint.locations
            assert {loc.class_name for loc in locations} == {f"{NEST}$1"}
            assert len({loc.class_loader_id for loc in locations}) == 2


async def test_near_misses_are_pending_with_a_hint(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        await load_nest(debuggee)
        async with engine(debuggee) as debugger:
            dotted = await debugger.set_breakpoint(f"{NEST}.Inner", line("nest-inner"))
            assert dotted.status == "pending" and dotted.reason is not None
            assert dotted.reason.code == "DEBUGGER_NEAR_MISS" and f"{NEST}$Inner" in dotted.reason.message
            as_file = await debugger.set_breakpoint(f"{NEST}.java", line("nest-inner"))
            assert as_file.status == "pending" and as_file.reason is not None
            assert "com/example/debuggee/Nest.java" in as_file.reason.message
            typo = await debugger.set_breakpoint(f"{PACKAGE}.Nets", line("nest-inner"))
            assert typo.reason is not None and NEST in typo.reason.message


async def test_run_to_a_line_of_a_nested_class_not_loaded_yet_waits_for_it_as_a_breakpoint_does(
        debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        await load_nest(debuggee)
        async with engine(debuggee) as debugger:
            paused = await debugger.pause()
            assert await next_stop(debugger) == paused  # a pause is a stop event too
            # Nest is loaded, Nest$Late is not: as set_breakpoint answers, rejected for now and armed.
            one_shot = await debugger.resume(paused.stop_id, run_to=RunTo(line("nest-late-clinit"), class_name=NEST))
            assert one_shot is not None and one_shot.status == "rejected" and one_shot.reason is not None
            assert "may still bind" in one_shot.reason.message
            debuggee.send(f"load {NEST}$Late")
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (one_shot.breakpoint_id,)
            assert stop.location is not None and (stop.location.class_name, stop.location.line) == (
                f"{NEST}$Late", line("nest-late-clinit"))
            assert debugger.list_breakpoints() == []  # spent at its stop
            await debugger.resume(stop.stop_id)

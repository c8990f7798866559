"""Exception breakpoints against a real OpenJDK 17 debuggee (``fixtures/java/.../Throws.java``).

``Throws`` runs on its main thread the commands its control thread reads from stdin (``main-uncaught``,
``worker-uncaught``, ``caught``, ``long``, ``late``, ``late-isolated``) and prints ``done COMMAND``; a
heartbeat thread that is not a daemon keeps printing, and keeps the VM alive after ``main`` dies.
Synchronisation is by engine events and printed lines, never by sleeping.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

import jdwp
from jdwp.debugger import (
    BreakpointVerified,
    ExceptionBreakpoint,
    InvalidArgument,
    LimitReached,
    open_debugger,
)
from support.engines import engine, printed
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool
from support.stops import next_stop

THROWS = "com.example.debuggee.Throws"
LATE = "com.example.debuggee.LateFailure"


def line(mark: str) -> int:
    return find_mark(mark)[1]


@pytest.fixture
def throws(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, THROWS, java=require_tool("java"))


async def heartbeats(debuggee: Debuggee) -> None:
    await trio.to_thread.run_sync(debuggee.wait_for_more_heartbeats)


async def test_uncaught_exception_on_the_main_thread_stops_with_its_type_message_and_no_catch(
        throws: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(throws) as debugger:
            bp = await debugger.set_exception_breakpoint()
            assert bp == ExceptionBreakpoint(bp.breakpoint_id, None, False, True, "verified")
            assert bp.kind == "exception" and debugger.list_breakpoints() == [bp]
            throws.send("main-uncaught")
            stop = await next_stop(debugger)
            assert stop.reason == "exception" and stop.reasons == ("exception",)
            assert stop.breakpoint_ids == (bp.breakpoint_id,) and stop.thread_name == "main"
            thrown = stop.exception
            assert (thrown.type, thrown.message, thrown.truncated) == ("java.lang.IllegalStateException",
                                                                      "main gave up", False)
            assert thrown.catch_location is None
            where = thrown.throw_location
            assert (where.class_name, where.method, where.line) == (THROWS, "run", line("throw-main"))
            assert stop.location == where
            # The exception is a value like any other: its handle reads its fields, its message among them.
            page = await debugger.object(stop.stop_id, thrown.object_id)
            fields = {f.name: f for f in page.fields or ()}
            assert fields["detailMessage"].value == "main gave up"
            await debugger.resume(stop.stop_id)
            # The default handler prints `Exception in thread "main" ` and the trace in two writes to stderr, which
            # shares the pipe with the heartbeat's stdout: a heartbeat line can come between them.
            await printed(throws, r"java\.lang\.IllegalStateException: main gave up$")
            await heartbeats(throws)  # the heartbeat thread outlives main


async def test_uncaught_exception_on_a_worker_thread_stops_in_that_thread(throws: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(throws) as debugger:
            bp = await debugger.set_exception_breakpoint(uncaught=True)
            throws.send("worker-uncaught")
            stop = await next_stop(debugger)
            assert stop.thread_name == "worker" and stop.breakpoint_ids == (bp.breakpoint_id,)
            thrown = stop.exception
            assert (thrown.type, thrown.message) == ("java.lang.ArithmeticException", "/ by zero")
            assert thrown.catch_location is None
            assert (thrown.throw_location.method, thrown.throw_location.line) == ("divide", line("throw-worker"))
            frames = (await debugger.stack(stop.stop_id, stop.thread_id)).frames
            assert (frames[0].method, frames[0].line) == ("divide", line("throw-worker"))
            await debugger.resume(stop.stop_id)
            await printed(throws, "^done worker-uncaught$")


async def test_caught_with_a_class_filter_stops_for_a_subclass_with_its_catch_location(throws: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(throws) as debugger:
            bp = await debugger.set_exception_breakpoint("java.lang.IllegalArgumentException", caught=True,
                                                         uncaught=False)
            assert bp.status == "verified" and bp.requested == {
                "exception_class": "java.lang.IllegalArgumentException", "caught": True, "uncaught": False}
            throws.send("caught")
            stop = await next_stop(debugger)
            thrown = stop.exception
            assert thrown.type == f"{THROWS}$BadInput" and thrown.message == "bad input 42"
            assert (thrown.throw_location.method, thrown.throw_location.line) == ("reject", line("throw-bad-input"))
            catch = thrown.catch_location
            assert (catch.class_name, catch.method, catch.line) == (THROWS, "caught", line("catch-bad-input"))
            await debugger.resume(stop.stop_id)
            await printed(throws, "^done caught$")
            # Neither a RuntimeException (not a subclass) nor the uncaught side stops it.
            throws.send("long")
            await printed(throws, "^done long$")
            assert debugger.state == "running"


async def test_a_long_message_is_cut_at_256_units_with_its_length(throws: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(throws) as debugger:
            await debugger.set_exception_breakpoint("java.lang.RuntimeException", caught=True)
            throws.send("long")
            stop = await next_stop(debugger)
            thrown = stop.exception
            assert thrown.type == "java.lang.RuntimeException"
            assert thrown.message == "x" * 256 and thrown.truncated and thrown.length == 300
            await debugger.resume(stop.stop_id)


async def test_pending_filter_binds_when_the_class_loads_in_every_loader(throws: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(throws) as debugger:
            bp = await debugger.set_exception_breakpoint(LATE, caught=True)
            assert bp.status == "pending"
            throws.send("late")
            verified = await debugger.events.receive()
            assert isinstance(verified, BreakpointVerified)
            assert verified.breakpoint == ExceptionBreakpoint(bp.breakpoint_id, LATE, True, True, "verified")
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (bp.breakpoint_id,) and stop.exception.type == LATE
            assert stop.exception.message == "late one"
            assert stop.exception.throw_location.line == line("throw-late")
            await debugger.resume(stop.stop_id)
            await printed(throws, "^done late$")
            throws.send("late-isolated")  # another copy of the class, from another class loader
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (bp.breakpoint_id,) and stop.exception.type == LATE
            await debugger.resume(stop.stop_id)
            await printed(throws, "^done late-isolated$")


async def test_removed_exception_breakpoint_no_longer_stops(throws: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(throws) as debugger:
            bp = await debugger.set_exception_breakpoint("java.lang.IllegalArgumentException", caught=True)
            pending = await debugger.set_exception_breakpoint(LATE, caught=True)
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.remove_breakpoint(bp.breakpoint_id)  # again: fine
            await debugger.remove_breakpoint(pending.breakpoint_id)
            assert debugger.list_breakpoints() == []
            throws.send("caught")
            throws.send("late")
            await printed(throws, "^done late$")
            assert debugger.state == "running"


async def test_bad_inputs_change_nothing_and_the_limit_counts_every_kind(throws: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(throws) as debugger:
            for bad in ["not a class", "1abc", "java..lang.Error", ""]:
                with pytest.raises(InvalidArgument):
                    await debugger.set_exception_breakpoint(bad)
            with pytest.raises(InvalidArgument, match="both false"):
                await debugger.set_exception_breakpoint(caught=False, uncaught=False)
            assert debugger.list_breakpoints() == []
            first = await debugger.set_exception_breakpoint("java.lang.Error")
            assert first.breakpoint_id == "bp-1"  # the refused ones took no ID
            for _ in range(98):
                await debugger.set_exception_breakpoint("java.lang.Error")
            line_bp = await debugger.set_breakpoint(THROWS, line("throw-main"))
            assert line_bp.kind == "line" and len(debugger.list_breakpoints()) == 100
            with pytest.raises(LimitReached):
                await debugger.set_exception_breakpoint()
            with pytest.raises(LimitReached):
                await debugger.set_breakpoint(THROWS, line("throw-main"))
            await debugger.remove_breakpoint(first.breakpoint_id)
            again = await debugger.set_exception_breakpoint()
            assert again.breakpoint_id == "bp-101"  # refused ones took no ID
            ids = [bp.breakpoint_id for bp in debugger.list_breakpoints()]
            assert ids[-2:] == [line_bp.breakpoint_id, again.breakpoint_id]  # in the order they were set


async def test_detach_while_stopped_at_an_exception_leaves_the_vm_running(throws: Debuggee) -> None:
    with trio.fail_after(60):
        async with jdwp.open_jdwp_tcp("127.0.0.1", throws.port) as vm, open_debugger(vm) as debugger:
            await debugger.set_exception_breakpoint("java.lang.IllegalArgumentException", caught=True)
            throws.send("caught")
            stop = await next_stop(debugger)
            assert stop.reason == "exception" and debugger.state == "paused"
            cleanup = await debugger.detach()
            assert (cleanup.status, cleanup.execution_state, cleanup.remaining) == ("complete", "running", ())
        await printed(throws, "^done caught$")
        await heartbeats(throws)

"""The debugger engine against real OpenJDK 17 debuggees: every behaviour of issue 3, end to end.

Debuggees (``fixtures/java/com/example/debuggee``): ``Main`` (Worker's locals, the lazily loaded ``Lazy``,
``load``/``isolated`` commands), ``Scenes`` (nested calls to step through, a recursion 1500 deep, long,
non-BMP and NUL strings, ``Crowd``'s 111 locals), ``Twins`` (two threads running one line together),
``Initialized`` (a static initialiser run from native code, a native method). Lines are found by their
``// MARK:`` comments. Synchronisation is by engine events and printed lines, never by sleeping.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import (
    BreakpointRejected,
    BreakpointVerified,
    Debugger,
    EngineClosed,
    InvalidArgument,
    LimitReached,
    NotFound,
    NotPaused,
    StaleReference,
    Stopped,
    Terminated,
    open_debugger,
)
from jdwp.recording_proxy import read_packets
from support.engines import printed
from support.jvm import JAVA_SOURCES, Debuggee, debuggees, find_mark
from support.live import require_tool

PACKAGE = "com.example.debuggee"
LAZY = f"{PACKAGE}.Lazy"
WORKER = f"{PACKAGE}.Worker"
SCENES = f"{PACKAGE}.Scenes"
TWINS = f"{PACKAGE}.Twins"
CROWD = f"{PACKAGE}.Crowd"
SHOP = f"{PACKAGE}.Shop"
INITIALIZED = f"{PACKAGE}.Initialized"


def line(mark: str) -> int:
    return find_mark(mark)[1]


def _start(classpath: str | Path, main_class: str) -> Iterator[Debuggee]:
    yield from debuggees(Path(classpath), main_class, java=require_tool("java"))


@pytest.fixture
def scenes(java_classes: Path) -> Iterator[Debuggee]:
    yield from _start(java_classes, SCENES)


@pytest.fixture
def twins(java_classes: Path) -> Iterator[Debuggee]:
    yield from _start(java_classes, TWINS)


@pytest.fixture
def nodebug_main(java_classes: Path, java_classes_nodebug: Path, tmp_path: Path) -> Iterator[Debuggee]:
    """``Main`` compiled without ``-g`` (no line, source or variable tables), the other classes with it."""
    nodebug = tmp_path / "nodebug"
    target = nodebug / "com" / "example" / "debuggee"
    target.mkdir(parents=True)
    shutil.copy(java_classes_nodebug / "com" / "example" / "debuggee" / "Main.class", target)
    yield from _start(f"{nodebug}:{java_classes}", f"{PACKAGE}.Main")


@asynccontextmanager
async def engine(debuggee: Debuggee) -> AsyncIterator[tuple[jdwp.JdwpClient, Debugger]]:
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        yield vm, debugger


async def next_event(debugger: Debugger, kind: type[Any]) -> Any:
    event = await debugger.events.receive()
    assert isinstance(event, kind), f"expected {kind.__name__}, got {event}"
    return event


async def next_stop(debugger: Debugger) -> Any:
    """The next stop; a breakpoint that binds first (its class loaded after it was set) may come before."""
    event = await debugger.events.receive()
    while isinstance(event, BreakpointVerified):
        event = await debugger.events.receive()
    assert isinstance(event, Stopped), f"expected Stopped, got {event}"
    return event.stop


async def heartbeats(debuggee: Debuggee) -> None:
    """Proof the program runs: three more heartbeats (waited for in a thread, so trio keeps running)."""
    await trio.to_thread.run_sync(debuggee.wait_for_more_heartbeats)


def locals_by_name(result: Any) -> dict[str, Any]:
    return {local.name: local for local in result.locals}


# --- breakpoints ---------------------------------------------------------------------------------------


async def test_pending_breakpoint_binds_when_the_class_loads_then_stops(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(debuggee) as (_, debugger):
            bp = await debugger.set_breakpoint(LAZY, line("lazy"))
            assert bp.status == "pending" and bp.locations == () and bp.reason is None
            debuggee.send(f"load {LAZY}")
            verified = (await next_event(debugger, BreakpointVerified)).breakpoint
            assert verified.breakpoint_id == bp.breakpoint_id and verified.status == "verified"
            (location,) = verified.locations
            assert (location.class_name, location.method, location.source, location.line) == (
                LAZY, "run", "Lazy.java", line("lazy"))
            assert location.code_index >= 0 and location.class_loader_id.startswith("0x")
            stop = await next_stop(debugger)
            assert stop.reasons == ("breakpoint",) and stop.breakpoint_ids == (bp.breakpoint_id,)
            assert stop.thread_name == "main"
            assert (stop.location.class_name, stop.location.method, stop.location.line) == (LAZY, "run", line("lazy"))
            assert stop.location.code_index == location.code_index
            assert debugger.state == "paused" and debugger.current_stop == stop
            assert debugger.list_breakpoints() == [verified]
            await debugger.resume(stop.stop_id)


async def test_one_class_in_two_class_loaders_gives_two_locations(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        debuggee.send(f"load {LAZY}")
        await printed(debuggee, f"^loaded {LAZY}$")
        debuggee.send(f"isolated {LAZY}")
        await printed(debuggee, f"^isolated {LAZY}$")
        async with engine(debuggee) as (_, debugger):
            bp = await debugger.set_breakpoint(LAZY, line("lazy"))
            assert bp.status == "verified"
            assert len(bp.locations) == 2
            assert len({loc.class_loader_id for loc in bp.locations}) == 2
            assert {(loc.class_name, loc.line, loc.method) for loc in bp.locations} == {(LAZY, line("lazy"), "run")}
            # Both copies stop: the main loop runs the two plugins one after the other.
            receivers = set()
            for _ in range(2):
                stop = await next_stop(debugger)
                assert stop.breakpoint_ids == (bp.breakpoint_id,)
                page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
                result = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
                assert result.this is not None and result.this.type == LAZY
                receivers.add(result.this.object_id)
                await debugger.resume(stop.stop_id)
            assert len(receivers) == 2


async def test_pending_breakpoint_binds_in_every_loader_that_loads_the_class(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(debuggee) as (_, debugger):
            bp = await debugger.set_breakpoint(LAZY, line("lazy"))
            debuggee.send(f"load {LAZY}")
            first = (await next_event(debugger, BreakpointVerified)).breakpoint
            assert len(first.locations) == 1
            debuggee.send(f"isolated {LAZY}")  # the control thread reads it once the VM runs again
            while True:
                event = await debugger.events.receive()
                if isinstance(event, Stopped):
                    await debugger.resume(event.stop.stop_id)
                    continue
                assert isinstance(event, BreakpointVerified), event
                break
            both = event.breakpoint
            assert both.breakpoint_id == bp.breakpoint_id and len(both.locations) == 2
            assert len({loc.class_loader_id for loc in both.locations}) == 2
            assert both.locations[0] == first.locations[0]


async def test_line_without_code_is_rejected_and_never_moved(scenes: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(scenes) as (_, debugger):
            rejected = await debugger.set_breakpoint(SCENES, line("no-code"))
            assert rejected.status == "rejected" and rejected.locations == ()
            assert rejected.reason is not None and rejected.reason.code == "DEBUGGER_LOCATION_UNAVAILABLE"
            assert f"line {line('no-code')}" in rejected.reason.message
            beyond = await debugger.set_breakpoint(SCENES, 100_000)
            assert beyond.status == "rejected"
            after = await debugger.set_breakpoint(SCENES, line("outer-after"))
            assert after.status == "verified"
            # The next line with code stops only for its own breakpoint: the rejected one did not move there.
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (after.breakpoint_id,)
            assert stop.location.line == line("outer-after")
            states = {bp.breakpoint_id: bp for bp in debugger.list_breakpoints()}
            assert states[rejected.breakpoint_id] == rejected
            await debugger.remove_breakpoint(rejected.breakpoint_id)  # removing a rejected one is fine too
            await debugger.resume(stop.stop_id)


async def test_pending_breakpoint_on_a_line_without_code_is_rejected_when_the_class_loads(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(debuggee) as (_, debugger):
            bp = await debugger.set_breakpoint(LAZY, line("lazy-field"))
            assert bp.status == "pending"
            debuggee.send(f"load {LAZY}")
            rejected = (await next_event(debugger, BreakpointRejected)).breakpoint
            assert rejected.breakpoint_id == bp.breakpoint_id and rejected.status == "rejected"
            assert rejected.reason is not None and rejected.reason.code == "DEBUGGER_LOCATION_UNAVAILABLE"
            await printed(debuggee, f"^loaded {LAZY}$")  # the class-prepare suspension was released
            await heartbeats(debuggee)


async def test_class_without_debug_information(nodebug_main: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(nodebug_main) as (_, debugger):
            bp = await debugger.set_breakpoint(f"{PACKAGE}.Main", line("main-loop"))
            assert bp.status == "rejected" and bp.locations == ()
            assert bp.reason is not None and bp.reason.code == "DEBUGGER_LOCATION_UNAVAILABLE"
            assert "no line table" in bp.reason.message
            hit = await debugger.set_breakpoint(WORKER, line("step"))  # Worker has its tables
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (hit.breakpoint_id,)
            page = await debugger.stack(stop.stop_id, stop.thread_id)
            caller = page.frames[1]
            assert (caller.class_name, caller.method, caller.line, caller.source) == (f"{PACKAGE}.Main", "main",
                                                                                      None, None)
            result = await debugger.locals(stop.stop_id, caller.frame_id)
            assert result.availability == "unavailable" and result.reason == "ABSENT_INFORMATION"
            # main's one argument, named by its position; its other locals have no known slot or type
            ((args,),) = [result.locals]
            assert (args.name, args.type, args.kind) == ("arg0", "java.lang.String[]", "array") and result.this is None
            top = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
            assert top.availability == "available" and "greeting" in locals_by_name(top)
            # a method breakpoint binds without a line table: its location has no line, as a stop there has none
            entry = await debugger.set_breakpoint(f"{PACKAGE}.Main", method="main")
            assert entry.status == "verified"
            assert [(loc.method, loc.source, loc.line, loc.code_index) for loc in entry.locations] == [
                ("main([Ljava/lang/String;)V", None, None, 0)]
            await debugger.remove_breakpoint(entry.breakpoint_id)
            await debugger.resume(stop.stop_id)


async def test_native_methods_and_native_frames(debuggee: Debuggee) -> None:
    """A class that declares a native method still binds; a native frame has no line and no locals."""
    with trio.fail_after(60):
        async with engine(debuggee) as (_, debugger):
            bp = await debugger.set_breakpoint(INITIALIZED, line("clinit"))
            debuggee.send(f"load {INITIALIZED}")  # Class.forName initialises it from native code
            verified = (await next_event(debugger, BreakpointVerified)).breakpoint
            assert verified.breakpoint_id == bp.breakpoint_id
            assert [loc.method for loc in verified.locations] == ["<clinit>"]
            stop = await next_stop(debugger)
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=10)
            assert (page.frames[0].method, page.frames[0].line) == ("<clinit>", line("clinit"))
            native = next(f for f in page.frames if f.method == "forName0")
            assert native.class_name == "java.lang.Class" and native.line is None
            assert native.code_index == -1  # JDWP's index is the unsigned -1 (past 2^53): reported as -1
            result = await debugger.locals(stop.stop_id, native.frame_id)
            assert result.availability == "unavailable" and result.locals == ()
            assert result.reason == "NATIVE_METHOD"
            assert page.frames[-1].method == "run" or page.next_offset is not None
            await debugger.resume(stop.stop_id)
            await printed(debuggee, f"^loaded {INITIALIZED}$")
            await debugger.remove_breakpoint(bp.breakpoint_id)
            again = await debugger.set_breakpoint(INITIALIZED, line("initialized-run"))  # loaded now: binds at once
            assert again.status == "verified"
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (again.breakpoint_id,)
            await debugger.resume(stop.stop_id)


async def test_removal_is_idempotent_and_unknown_ids_are_not_found(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(debuggee) as (vm, debugger):
            bp = await debugger.set_breakpoint(WORKER, line("step"))
            stop = await next_stop(debugger)
            await debugger.remove_breakpoint(bp.breakpoint_id)
            assert debugger.list_breakpoints() == []
            sent = vm.statistics()["requests"]
            await debugger.remove_breakpoint(bp.breakpoint_id)
            assert vm.statistics()["requests"] == sent  # the second removal has nothing left to clear
            for unknown in ("bp-999", "nonsense", ""):
                with pytest.raises(NotFound):
                    await debugger.remove_breakpoint(unknown)
            await debugger.resume(stop.stop_id)
            await heartbeats(debuggee)  # the cleared request no longer stops the loop
            assert debugger.state == "running"
            with pytest.raises(trio.WouldBlock):
                debugger.events.receive_nowait()


async def test_one_hundred_breakpoints_then_limit_reached_changes_nothing(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(debuggee) as (vm, debugger):
            for number in range(1, 101):
                bp = await debugger.set_breakpoint(f"{PACKAGE}.NeverLoaded", number)
                assert bp.status == "pending"
            before = debugger.list_breakpoints()
            sent = vm.statistics()["requests"]
            with pytest.raises(LimitReached) as info:
                await debugger.set_breakpoint(WORKER, line("step"))
            assert info.value.code == "INVALID_ARGUMENT"
            assert vm.statistics()["requests"] == sent
            assert debugger.list_breakpoints() == before and len(before) == 100
            for bad in (("not a name", 3), (WORKER, 0), (WORKER, -1)):
                with pytest.raises(InvalidArgument):
                    await debugger.set_breakpoint(*bad)
            cleanup = await debugger.detach()
            assert cleanup.status == "complete" and cleanup.remaining == ()


async def test_breakpoint_ids_are_never_reused_and_the_limit_counts_those_held(scenes: Debuggee) -> None:
    with trio.fail_after(120):
        async with engine(scenes) as (_, debugger):
            issued = set()
            for _ in range(150):  # probing for lines with code: each rejected one is removed again
                bp = await debugger.set_breakpoint(SCENES, line("no-code"))
                assert bp.status == "rejected" and bp.breakpoint_id not in issued
                issued.add(bp.breakpoint_id)
                await debugger.remove_breakpoint(bp.breakpoint_id)
            assert debugger.list_breakpoints() == []
            works = await debugger.set_breakpoint(SCENES, line("outer-after"))
            assert works.status == "verified" and works.breakpoint_id not in issued
            await debugger.remove_breakpoint(works.breakpoint_id)
            await debugger.remove_breakpoint(works.breakpoint_id)  # removed ids stay known: still fine
            held = [await debugger.set_breakpoint(SCENES, line("no-code")) for _ in range(100)]
            with pytest.raises(LimitReached) as info:
                await debugger.set_breakpoint(SCENES, line("outer-after"))
            assert "100 breakpoints" in str(info.value) and "remove" in str(info.value)
            await debugger.remove_breakpoint(held[0].breakpoint_id)
            again = await debugger.set_breakpoint(SCENES, line("outer-after"))  # removing freed a place
            assert again.status == "verified" and len(debugger.list_breakpoints()) == 100
            with pytest.raises(NotFound):
                await debugger.remove_breakpoint("bp-100000")


async def test_ids_carry_the_session_prefix_and_others_are_refused(scenes: Debuggee) -> None:
    with trio.fail_after(60):
        async with jdwp.open_jdwp_tcp("127.0.0.1", scenes.port) as vm, open_debugger(vm, id_prefix="s7-") as debugger:
            bp = await debugger.set_breakpoint(SCENES, line("outer-call"))
            assert bp.breakpoint_id == "s7-bp-1"
            stop = await next_stop(debugger)
            assert stop.stop_id == "s7-stop-1" and stop.thread_id.startswith("s7-stop-1.t")
            # Frame 0's ID comes with the stop; a deeper frame's built by hand before the stack was listed is
            # refused, and the message says how to get one.
            assert stop.frame_id == f"{stop.thread_id}.f0"
            with pytest.raises(NotFound) as info:
                await debugger.locals(stop.stop_id, f"{stop.thread_id}.f1")
            assert "list" in str(info.value) and "stack" in str(info.value)
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
            assert page.frames[0].frame_id == stop.frame_id
            # IDs of another session (another prefix) are not this session's, even with matching numbers.
            for call in (lambda: debugger.stack("s8-stop-1", stop.thread_id),
                         lambda: debugger.stack(stop.stop_id, stop.thread_id.replace("s7-", "s8-")),
                         lambda: debugger.locals(stop.stop_id, page.frames[0].frame_id.replace("s7-", "s8-")),
                         lambda: debugger.resume("s8-stop-1"),
                         lambda: debugger.remove_breakpoint("s8-bp-1")):
                with pytest.raises(NotFound) as info:
                    await call()
                assert "another debugging session" in str(info.value)
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.resume(stop.stop_id)
            with pytest.raises(StaleReference):
                await debugger.resume(stop.stop_id)


# --- stops, steps and threads --------------------------------------------------------------------------


async def test_two_threads_on_one_line_are_two_stops_then_the_program_runs_on(twins: Debuggee) -> None:
    # HotSpot reports the second thread's event set only once the first stop is resumed (its event
    # helper blocks after a suspend-all set), so the second stop becomes current right after that resume.
    # The breakpoint may arrive mid-round, when one twin has already passed the line: then the other one
    # stops alone first, and the pair that hits together comes in the next round. So stops are taken
    # until one of each twin follow each other.
    with trio.fail_after(60):
        async with engine(twins) as (_, debugger):
            bp = await debugger.set_breakpoint(TWINS, line("twins"))
            first = await next_stop(debugger)
            for _ in range(5):
                assert first.thread_name in ("twin-a", "twin-b")
                await debugger.resume(first.stop_id)
                second = await next_stop(debugger)
                if second.thread_name != first.thread_name:
                    break
                first = second
            assert second.stop_id != first.stop_id and second.thread_id != first.thread_id
            assert {first.thread_name, second.thread_name} == {"twin-a", "twin-b"}
            assert second.location == first.location and second.breakpoint_ids == (bp.breakpoint_id,)
            assert debugger.current_stop == second
            with pytest.raises(StaleReference):
                await debugger.resume(first.stop_id)
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.resume(second.stop_id)
            await heartbeats(twins)
            assert debugger.state == "running" and debugger.current_stop is None


async def test_step_into_over_and_out_land_where_the_source_says(scenes: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(scenes) as (_, debugger):
            bp = await debugger.set_breakpoint(SCENES, line("outer-call"))
            stop = await next_stop(debugger)
            assert stop.location.line == line("outer-call")
            landings = []
            for kind in ("into", "over", "out", "over"):
                await debugger.step(stop.stop_id, stop.thread_id, kind)  # type: ignore[arg-type]
                assert debugger.state == "running"
                stop = await next_stop(debugger)
                assert stop.reasons == ("step",) and stop.breakpoint_ids == ()
                landings.append((kind, stop.location.method, stop.location.line))
            assert landings == [
                ("into", "inner", line("inner-first")),
                ("over", "inner", line("inner-return")),
                ("out", "outer", line("outer-call")),  # back in the caller, the rest of the call's line
                ("over", "outer", line("outer-after")),  # the comment line in between has no code
            ]
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.resume(stop.stop_id)
            await heartbeats(scenes)


async def test_a_breakpoint_reached_first_ends_the_step(scenes: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(scenes) as (_, debugger):
            call = await debugger.set_breakpoint(SCENES, line("outer-call"))
            stop = await next_stop(debugger)
            inside = await debugger.set_breakpoint(SCENES, line("inner-return"))
            await debugger.step(stop.stop_id, stop.thread_id, "over")
            stop = await next_stop(debugger)
            assert stop.reasons == ("breakpoint",) and stop.breakpoint_ids == (inside.breakpoint_id,)
            assert stop.location.line == line("inner-return")
            assert stop.ended_step == "over" and stop.pending_steps == ()
            await debugger.remove_breakpoint(inside.breakpoint_id)
            await debugger.resume(stop.stop_id)
            # The step's request was cleared: no step stop in `outer`, the next stop is the loop's next call.
            stop = await next_stop(debugger)
            assert stop.reasons == ("breakpoint",) and stop.breakpoint_ids == (call.breakpoint_id,)
            await debugger.resume(stop.stop_id)


async def test_vm_start_stop_with_suspend_y_is_released_by_resume(suspended_debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(suspended_debuggee) as (_, debugger):
            # The VM_START event set comes before any reply: the engine opens with its stop current.
            assert debugger.state == "paused" and debugger.current_stop is not None
            stop = await next_stop(debugger)
            assert debugger.current_stop == stop
            assert stop.reasons == ("vm_start",) and stop.breakpoint_ids == ()
            assert stop.thread_name == "main"
            assert stop.location is None and stop.note is not None and "before main" in stop.note
            await debugger.resume(stop.stop_id)
            await printed(suspended_debuggee, "^ready$")
            await heartbeats(suspended_debuggee)


async def _late_events_proxy(port: int, delay: float, *,
                             task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    """One connection to the agent at ``port``, with the VM's event packets held back ``delay`` seconds
    (replies pass at once): the VM_START of a ``suspend=y`` JVM then comes after the first replies."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listeners[0].socket.getsockname()[1])
    debugger_side = await listeners[0].accept()
    vm_side = await trio.open_tcp_stream("127.0.0.1", port)
    lock = trio.Lock()

    async def send(packet: bytes, wait: float) -> None:
        await trio.sleep(wait)  # the fault injected, not a synchronisation
        async with lock:
            await debugger_side.send_all(packet)

    async def to_vm() -> None:
        async for packet in read_packets(debugger_side):
            await vm_side.send_all(packet)

    async with debugger_side, vm_side, trio.open_nursery() as nursery:
        nursery.start_soon(to_vm)
        async for packet in read_packets(vm_side):
            is_event = packet != b"JDWP-Handshake" and not packet[8] & 0x80  # flags: 0x80 is a reply
            nursery.start_soon(send, packet, delay if is_event else 0)


async def test_a_vm_start_that_comes_after_the_first_replies_is_still_current_at_open(
        suspended_debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(_late_events_proxy, suspended_debuggee.port, 0.3)
            async with jdwp.open_jdwp_tcp("127.0.0.1", port) as vm, open_debugger(vm) as debugger:
                assert debugger.state == "paused"
                stop = await next_stop(debugger)
                assert stop.reasons == ("vm_start",) and stop.location is None
                await debugger.resume(stop.stop_id)
                await printed(suspended_debuggee, "^ready$")
            nursery.cancel_scope.cancel()


# --- stack and locals ----------------------------------------------------------------------------------


async def test_deep_recursion_stack_is_capped_and_paginated(scenes: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(scenes) as (_, debugger):
            await debugger.set_breakpoint(SCENES, line("deep"))
            stop = await next_stop(debugger)
            sid, tid = stop.stop_id, stop.thread_id
            page = await debugger.stack(sid, tid)
            assert (page.total, page.truncated, page.next_offset, len(page.frames)) == (1000, True, 20, 20)
            assert page.frames[0].line == line("deep") and page.frames[0].method == "down"
            assert all(f.method == "down" and f.class_name == SCENES and f.source == "Scenes.java"
                       for f in page.frames)
            seen: list[Any] = []
            offset: int | None = 0
            while offset is not None:
                page = await debugger.stack(sid, tid, offset=offset, limit=100)
                assert page.total == 1000 and page.truncated
                seen += page.frames
                offset = page.next_offset
            assert [f.index for f in seen] == list(range(1000))
            assert len({f.frame_id for f in seen}) == 1000
            tail = await debugger.stack(sid, tid, offset=990, limit=100)
            assert [f.index for f in tail.frames] == list(range(990, 1000)) and tail.next_offset is None
            for offset in (1000, 1400, 5000):
                empty = await debugger.stack(sid, tid, offset=offset, limit=5)
                assert empty.frames == () and empty.next_offset is None and empty.total == 1000
            one = await debugger.stack(sid, tid, offset=7, limit=1)
            assert [f.index for f in one.frames] == [7] and one.next_offset == 8
            for offset, limit in ((0, 0), (0, 101), (-1, 10)):
                with pytest.raises(InvalidArgument):
                    await debugger.stack(sid, tid, offset=offset, limit=limit)
            # A frame deep in the stack still has its locals.
            deep = await debugger.locals(sid, seen[999].frame_id)
            assert locals_by_name(deep)["depth"].value == "1000"  # frame 0 has depth 1
            await debugger.resume(sid)


async def test_worker_locals_of_every_kind(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(debuggee) as (_, debugger):
            await debugger.set_breakpoint(WORKER, line("step"))
            stop = await next_stop(debugger)
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=2)
            result = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
            assert result.availability == "available" and result.reason is None and not result.truncated
            assert result.this is None  # a static method
            by_name = locals_by_name(result)
            assert "total" not in by_name  # assigned on the marked line: not live yet
            expect = {
                "greeting": ("string", "java.lang.String", "h\u00e9llo \U0001F600 nul:\x00:end"),
                "empty": ("string", "java.lang.String", ""),
                "nothing": ("null", "java.lang.String", None),
                "numbers": ("array", "int[]", None),
                "mixed": ("array", "java.lang.Object[]", None),
                "big": ("primitive", "long", str((1 << 60) + 7)),
                "half": ("primitive", "float", "0.5"),
                "initial": ("primitive", "char", "Z"),
                "small": ("primitive", "byte", "-3"),
                "medium": ("primitive", "short", "1234"),
                "self": ("object", f"{PACKAGE}.Worker", None),
            }
            for name, (kind, type_, value) in expect.items():
                local = by_name[name]
                assert (local.kind, local.type, local.value) == (kind, type_, value), local
            assert by_name["numbers"].length == 3 and by_name["mixed"].length == 3
            assert by_name["greeting"].length == 18 and not by_name["greeting"].truncated  # Java: the emoji is 2
            assert by_name["self"].object_id and by_name["nothing"].object_id is None
            assert by_name["even"].value in ("true", "false")
            caller = await debugger.locals(stop.stop_id, page.frames[1].frame_id)
            assert caller.availability == "available" and "i" in locals_by_name(caller)
            await debugger.resume(stop.stop_id)


async def test_strings_are_cut_at_256_with_their_length_and_exact_otherwise(scenes: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(scenes) as (_, debugger):
            await debugger.set_breakpoint(SCENES, line("texts"))
            stop = await next_stop(debugger)
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
            by_name = locals_by_name(await debugger.locals(stop.stop_id, page.frames[0].frame_id))
            alphabet = "".join(chr(ord("a") + k % 26) for k in range(300))
            long300 = by_name["long300"]
            assert (long300.kind, long300.value, long300.length, long300.truncated) == (
                "string", alphabet[:256], 300, True)
            exact = by_name["exact"]
            assert (exact.value, exact.length, exact.truncated) == ("x" * 256, 256, False)
            assert by_name["emoji"].value == "\U0001F600 grin \U0001F389" and not by_name["emoji"].truncated
            assert by_name["emoji"].length == 10  # String.length(): each emoji is two UTF-16 units
            assert by_name["withNul"].value == "before\x00after" and by_name["withNul"].length == 12
            assert by_name["builder"].kind == "object" and by_name["builder"].type == "java.lang.StringBuilder"
            await debugger.resume(stop.stop_id)


async def test_more_than_one_hundred_locals_are_cut_with_a_flag(scenes: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(scenes) as (_, debugger):
            await debugger.set_breakpoint(CROWD, line("crowd"))
            stop = await next_stop(debugger)
            page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
            result = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
            assert result.availability == "available" and result.truncated
            assert len(result.locals) == 100
            by_name = locals_by_name(result)
            assert by_name["seed"].kind == "primitive" and by_name["v000"].value == str(int(by_name["seed"].value))
            assert all(local.kind == "primitive" and local.type == "int" for local in result.locals)
            await debugger.resume(stop.stop_id)


async def test_a_step_landing_on_a_breakpoint_is_one_stop_with_both_reasons(scenes: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(scenes) as (_, debugger):
            call = await debugger.set_breakpoint(SCENES, line("outer-call"))
            stop = await next_stop(debugger)
            inside = await debugger.set_breakpoint(SCENES, line("inner-first"))
            await debugger.step(stop.stop_id, stop.thread_id, "into")
            stop = await next_stop(debugger)
            assert set(stop.reasons) == {"step", "breakpoint"} and len(stop.reasons) == 2
            assert stop.breakpoint_ids == (inside.breakpoint_id,)
            assert (stop.location.method, stop.location.line) == ("inner", line("inner-first"))
            await debugger.remove_breakpoint(inside.breakpoint_id)
            await debugger.resume(stop.stop_id)
            stop = await next_stop(debugger)  # one stop for the composite: next is the loop's next call
            assert stop.breakpoint_ids == (call.breakpoint_id,) and stop.reasons == ("breakpoint",)
            await debugger.resume(stop.stop_id)


# --- stale references ----------------------------------------------------------------------------------


async def test_stale_references_fail_before_reaching_the_vm(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(debuggee) as (vm, debugger):
            bp = await debugger.set_breakpoint(WORKER, line("step"))
            first = await next_stop(debugger)
            page = await debugger.stack(first.stop_id, first.thread_id, limit=2)
            old_frame = page.frames[0].frame_id

            await debugger.step(first.stop_id, first.thread_id, "over")
            stepped = await next_stop(debugger)  # the engine has finished describing it
            sent = vm.statistics()["requests"]
            stale_calls = [
                lambda: debugger.stack(first.stop_id, first.thread_id),
                lambda: debugger.locals(first.stop_id, old_frame),
                lambda: debugger.resume(first.stop_id),
                lambda: debugger.step(first.stop_id, first.thread_id, "over"),
                # the current stop with a thread or frame of the old one
                lambda: debugger.stack(stepped.stop_id, first.thread_id),
                lambda: debugger.locals(stepped.stop_id, old_frame),
            ]
            for call in stale_calls:
                with pytest.raises(StaleReference) as info:
                    await call()
                assert info.value.code == "DEBUGGER_STALE_REFERENCE"
            for call in [lambda: debugger.stack(stepped.stop_id, "t-unknown"),
                         lambda: debugger.locals(stepped.stop_id, f"{stepped.thread_id}.f99"),
                         lambda: debugger.resume("stop-999"),
                         lambda: debugger.stack("whatever", stepped.thread_id)]:
                with pytest.raises(NotFound):
                    await call()
            assert vm.statistics()["requests"] == sent

            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.resume(stepped.stop_id)
            sent = vm.statistics()["requests"]
            with pytest.raises(StaleReference):
                await debugger.stack(stepped.stop_id, stepped.thread_id)
            with pytest.raises(NotPaused):
                await debugger.resume("stop-999")
            assert vm.statistics()["requests"] == sent


# --- lifecycle -----------------------------------------------------------------------------------------


async def test_detach_while_paused_lets_the_program_run_on(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(debuggee) as (_, debugger):
            await debugger.set_breakpoint(WORKER, line("step"))
            stop = await next_stop(debugger)
            page = await debugger.stack(stop.stop_id, stop.thread_id)
            cleanup = await debugger.detach()
            assert (cleanup.status, cleanup.execution_state, cleanup.remaining, cleanup.errors) == (
                "complete", "running", (), ())
            assert debugger.state == "detached"
            assert (await next_event(debugger, Terminated)).reason == "detached"
            assert await debugger.detach() == cleanup  # idempotent
            with pytest.raises(EngineClosed):
                await debugger.locals(stop.stop_id, page.frames[0].frame_id)
        await heartbeats(debuggee)


@pytest.mark.parametrize("paused", [True, False], ids=["paused", "running"])
async def test_debuggee_killed_mid_session_ends_the_engine(debuggee: Debuggee, paused: bool) -> None:
    with trio.fail_after(60):
        async with engine(debuggee) as (_, debugger):
            bp = await debugger.set_breakpoint(WORKER, line("step"))
            stop = await next_stop(debugger)
            if not paused:
                await debugger.remove_breakpoint(bp.breakpoint_id)
                await debugger.resume(stop.stop_id)
            debuggee.process.kill()
            ended = await next_event(debugger, Terminated)
            assert ended.reason in ("disconnected", "vm_death")
            assert debugger.terminal == ended and debugger.state == "disconnected"
            assert debugger.current_stop is None
            with pytest.raises(trio.EndOfChannel):
                await debugger.events.receive()
            await assert_every_call_is_closed(debugger, stop)
            cleanup = await debugger.detach()
            assert cleanup.execution_state == "unknown"


async def test_program_exit_ends_the_engine_with_vm_death(debuggee: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(debuggee) as (_, debugger):
            debuggee.send("quit")
            ended = await next_event(debugger, Terminated)
            assert ended.reason == "vm_death"
            with pytest.raises(EngineClosed) as info:
                await debugger.set_breakpoint(WORKER, line("step"))
            assert info.value.reason == "vm_death" and info.value.code == "DEBUGGER_DISCONNECTED"


async def assert_every_call_is_closed(debugger: Debugger, stop: Any) -> None:
    calls = [
        lambda: debugger.set_breakpoint(WORKER, line("step")),
        lambda: debugger.remove_breakpoint("bp-1"),
        lambda: debugger.stack(stop.stop_id, stop.thread_id),
        lambda: debugger.locals(stop.stop_id, f"{stop.thread_id}.f0"),
        lambda: debugger.resume(stop.stop_id),
        lambda: debugger.step(stop.stop_id, stop.thread_id, "into"),
    ]
    for call in calls:
        with pytest.raises(EngineClosed):
            await call()


@pytest.fixture
def lines_only_shop(tmp_path: Path) -> Iterator[Debuggee]:
    """``Shop`` compiled as packaged libraries are (``javac -g:source,lines``: line tables, no variable tables)."""
    source = next(JAVA_SOURCES.rglob("Shop.java"))
    subprocess.run([require_tool("javac"), "-g:source,lines", "-d", str(tmp_path), str(source)], check=True)
    yield from debuggees(tmp_path, SHOP, java=require_tool("java"))


def shop_line(text: str) -> int:
    source = next(JAVA_SOURCES.rglob("Shop.java")).read_text().splitlines()
    return next(number for number, code in enumerate(source, start=1) if text in code)


async def test_without_variable_tables_arguments_are_named_by_position(lines_only_shop: Debuggee) -> None:
    """A method without a variable table shows its arguments as ``arg0``… (their slots from its signature), and a
    condition may name them: one never true is judged and let go, one true stops."""
    with trio.fail_after(60):
        async with engine(lines_only_shop) as (_, debugger):
            never = await debugger.set_breakpoint(SHOP, shop_line("stock.getOrDefault"), condition="arg1 < 0")
            sell = await debugger.set_breakpoint(SHOP, shop_line("stock.getOrDefault"),
                                                 condition="arg1 == 1 && arg2 > 0.5")
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (sell.breakpoint_id,) and stop.condition_error is None
            result = await debugger.locals(stop.stop_id, stop.frame_id)
            assert (result.availability, result.reason) == ("unavailable", "ABSENT_INFORMATION")
            shown = [(local.name, local.type) for local in result.locals]
            assert shown == [("arg0", "java.lang.String"), ("arg1", "int"), ("arg2", "double")]
            assert result.locals[1].value == "1" and float(result.locals[2].value) > 0.5
            assert next(b for b in debugger.list_breakpoints() if b.breakpoint_id == never.breakpoint_id).hits == 0
            await debugger.resume(stop.stop_id)

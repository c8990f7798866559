"""Steps against real OpenJDK 17 debuggees: steps kept across other threads' stops, and step filters.

Debuggees (``fixtures/java/com/example/debuggee``): ``Six`` (six workers sleeping on one marked line, so a
step over it meets the other workers' stops), ``Strides`` (a string concatenation linked through
``java.lang.invoke``, a call through a bridge method, and a ``main`` that returns on ``end``). Lines are
found by their ``// MARK:`` comments; synchronisation is by engine events and printed lines.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from jdwp.debugger import BreakpointVerified, Debugger, PendingStep, Stopped, Terminated
from pyjdwp_server.answers.envelope import jsonable
from support.engines import engine
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool

PACKAGE = "com.example.debuggee"
SIX = f"{PACKAGE}.Six"
STRIDES = f"{PACKAGE}.Strides"


def line(mark: str) -> int:
    return find_mark(mark)[1]


@pytest.fixture
def six(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, SIX, java=require_tool("java"))


@pytest.fixture
def strides(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, STRIDES, java=require_tool("java"))


async def next_event(debugger: Debugger) -> Any:
    """The next event that is not a breakpoint binding (a class loaded after its breakpoint was set)."""
    event = await debugger.events.receive()
    while isinstance(event, BreakpointVerified):
        event = await debugger.events.receive()
    return event


async def next_stop(debugger: Debugger) -> Any:
    event = await next_event(debugger)
    assert isinstance(event, Stopped), f"expected Stopped, got {event}"
    return event.stop


async def heartbeats(debuggee: Debuggee) -> None:
    await trio.to_thread.run_sync(debuggee.wait_for_more_heartbeats)


async def stop_at(debugger: Debugger, class_name: str, mark: str) -> tuple[Any, str]:
    """Stop once at the marked line, with the breakpoint removed again; return the stop and its ID."""
    bp = await debugger.set_breakpoint(class_name, line(mark))
    stop = await next_stop(debugger)
    await debugger.remove_breakpoint(bp.breakpoint_id)
    return stop, bp.breakpoint_id


# --- steps across other threads' stops -------------------------------------------------------------


async def test_a_step_stays_armed_across_other_threads_stops(six: Debuggee) -> None:
    """Stop in worker-1, step over the sleeping line: the other workers' stops come first and say the step
    is pending; resuming each lets worker-1 finish its step, which then stops with reason step."""
    with trio.fail_after(90):
        async with engine(six) as debugger:
            bp = await debugger.set_breakpoint(SIX, line("six-nap"))
            stop = await next_stop(debugger)
            while stop.thread_name != "worker-1":
                await debugger.resume(stop.stop_id)
                stop = await next_stop(debugger)
            await debugger.step(stop.stop_id, stop.thread_id, "over")
            others = []
            for _ in range(300):
                stop = await next_stop(debugger)
                if stop.thread_name == "worker-1":
                    break
                others.append(stop)
                await debugger.resume(stop.stop_id)
            assert stop.thread_name == "worker-1" and stop.reasons == ("step",), stop
            assert stop.location.line == line("six-after") and stop.location.method == "nap"
            assert stop.pending_steps == () and stop.ended_step is None
            assert others, "no other worker stopped while worker-1 stepped: the test proved nothing"
            for other in others:
                assert other.reasons == ("breakpoint",) and other.breakpoint_ids == (bp.breakpoint_id,)
                assert other.pending_steps == (PendingStep("worker-1", "over"),), other
                assert jsonable(other)["pending_steps"] == [{"thread_name": "worker-1", "kind": "over"}]
            assert "pending_steps" not in jsonable(stop)
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.resume(stop.stop_id)
            await heartbeats(six)
            assert debugger.state == "running"


async def test_a_new_step_of_another_thread_leaves_the_pending_one_armed(six: Debuggee) -> None:
    """Two workers stepping at once: each step completes in its own thread."""
    with trio.fail_after(90):
        async with engine(six) as debugger:
            bp = await debugger.set_breakpoint(SIX, line("six-nap"))
            stop = await next_stop(debugger)
            await debugger.step(stop.stop_id, stop.thread_id, "over")
            first = stop.thread_name
            stop = await next_stop(debugger)
            while stop.thread_name == first or stop.reasons != ("breakpoint",):
                assert stop.thread_name != first, "the first step completed before another worker stopped"
                await debugger.resume(stop.stop_id)
                stop = await next_stop(debugger)
            second = stop.thread_name
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.step(stop.stop_id, stop.thread_id, "over")
            finished = {}
            while len(finished) < 2:
                stop = await next_stop(debugger)
                assert stop.reasons == ("step",) and stop.location.line == line("six-after"), stop
                finished[stop.thread_name] = stop.pending_steps
                await debugger.resume(stop.stop_id)
            assert set(finished) == {first, second}
            # The step that completes first names the other one as pending; the last one names none.
            assert sorted(len(pending) for pending in finished.values()) == [0, 1]
            await heartbeats(six)


# --- step filters ----------------------------------------------------------------------------------------


async def test_step_into_a_string_concatenation_stays_in_app_code(strides: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(strides) as debugger:
            stop, _ = await stop_at(debugger, STRIDES, "strides-concat")
            await debugger.step(stop.stop_id, stop.thread_id, "into")
            stop = await next_stop(debugger)
            assert stop.reasons == ("step",)
            assert (stop.location.class_name, stop.location.method, stop.location.line) == (
                STRIDES, "joined", line("strides-concat-next"))
            await debugger.resume(stop.stop_id)
            await heartbeats(strides)


async def test_step_filters_off_steps_into_the_jdk(strides: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(strides) as debugger:
            stop, _ = await stop_at(debugger, STRIDES, "strides-concat")
            await debugger.step(stop.stop_id, stop.thread_id, "into", filters=False)
            stop = await next_stop(debugger)
            assert stop.reasons == ("step",) and stop.location.class_name.startswith("java.lang.invoke."), stop
            await debugger.resume(stop.stop_id)
            await heartbeats(strides)


async def test_step_into_a_bridge_method_lands_in_the_method_it_calls(strides: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(strides) as debugger:
            stop, _ = await stop_at(debugger, STRIDES, "strides-bridge-call")
            await debugger.step(stop.stop_id, stop.thread_id, "into")
            stop = await next_stop(debugger)
            assert stop.reasons == ("step",)
            assert (stop.location.class_name, stop.location.method, stop.location.line) == (
                f"{STRIDES}$Item", "compareTo", line("strides-compare"))
            await debugger.resume(stop.stop_id)
            # Without filters the step stops in the bridge itself (javac gives it the class's line).
            stop, _ = await stop_at(debugger, STRIDES, "strides-bridge-call")
            await debugger.step(stop.stop_id, stop.thread_id, "into", filters=False)
            stop = await next_stop(debugger)
            assert (stop.location.class_name, stop.location.method) == (f"{STRIDES}$Item", "compareTo")
            assert stop.location.line != line("strides-compare")
            await debugger.resume(stop.stop_id)
            await heartbeats(strides)


async def test_step_into_jdk_code_stops_in_the_app_code_it_calls_back(strides: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(strides) as debugger:
            stop, _ = await stop_at(debugger, STRIDES, "strides-callback")
            await debugger.step(stop.stop_id, stop.thread_id, "into")
            stop = await next_stop(debugger)
            assert stop.reasons == ("step",)
            assert (stop.location.class_name, stop.location.method, stop.location.line) == (
                STRIDES, "byValue", line("strides-callback-body"))
            await debugger.resume(stop.stop_id)
            await heartbeats(strides)


async def test_step_out_of_main_lands_unfiltered_and_says_so(strides: Debuggee) -> None:
    """Out of main there is no app code left: the filters would run the program to its end, so the step runs
    without them, stops in java.lang.Thread.exit and says why (its ``note``)."""
    with trio.fail_after(60):
        async with engine(strides) as debugger:
            bp = await debugger.set_breakpoint(STRIDES, line("strides-last"))
            strides.send("end")
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (bp.breakpoint_id,)
            await debugger.step(stop.stop_id, stop.thread_id, "out")
            stop = await next_stop(debugger)
            assert stop.reasons == ("step",)
            assert (stop.location.class_name, stop.location.method) == ("java.lang.Thread", "exit"), stop
            assert stop.note is not None and "without step filters" in stop.note, stop
            await debugger.resume(stop.stop_id)
            event = await next_event(debugger)
            assert isinstance(event, Terminated) and event.reason == "vm_death", event
            await trio.to_thread.run_sync(functools.partial(strides.wait_for_line, r"^done \d+$"))


@pytest.mark.parametrize("kind", ["over", "into"])
async def test_steps_past_the_end_of_main_land_unfiltered(strides: Debuggee, kind: str) -> None:
    """Steps over (or into) main's last lines: each line of main in turn (a step into leaves the JDK's calls
    of a line — the string concatenation, println — where it entered them), then the same landing as the step
    out, in Thread.exit with the note."""
    with trio.fail_after(90):
        async with engine(strides) as debugger:
            await debugger.set_breakpoint(STRIDES, line("strides-last"))
            strides.send("end")
            stop = await next_stop(debugger)
            lines = []
            while stop.location.class_name == STRIDES and len(lines) < 8:
                lines.append(stop.location.line)
                assert stop.note is None, stop
                await debugger.step(stop.stop_id, stop.thread_id, kind)
                stop = await next_stop(debugger)
            first = line("strides-last")
            assert lines == [first, first + 1, first + 2, first + 3], lines
            assert (stop.location.class_name, stop.location.method) == ("java.lang.Thread", "exit"), stop
            assert stop.note is not None and "without step filters" in stop.note, stop
            await debugger.resume(stop.stop_id)
            event = await next_event(debugger)
            assert isinstance(event, Terminated) and event.reason == "vm_death", event


async def test_step_out_of_main_without_filters_stops_in_thread_exit(strides: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(strides) as debugger:
            await debugger.set_breakpoint(STRIDES, line("strides-last"))
            strides.send("end")
            stop = await next_stop(debugger)
            await debugger.step(stop.stop_id, stop.thread_id, "out", filters=False)
            stop = await next_stop(debugger)
            assert (stop.location.class_name, stop.location.method) == ("java.lang.Thread", "exit"), stop
            await debugger.resume(stop.stop_id)
            event = await next_event(debugger)
            assert isinstance(event, Terminated) and event.reason == "vm_death", event

"""Conditions, hit counts, logpoints and thread-only stops on a real OpenJDK 17 debuggee (docs/design.md §3.5).

Debuggee: ``Loops`` (``fixtures/java``): ``loop N`` on stdin runs ``step(i, total)`` for i = 0 … N-1 on the
main thread while a heartbeat thread prints and a spinner thread counts. Synchronisation is by engine
events and printed lines, never by sleeping.
"""

from __future__ import annotations

import functools
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import (
    BreakpointSpent,
    Debugger,
    InvalidArgument,
    LogpointHit,
    NotFound,
    Stop,
    Stopped,
    open_debugger,
    suspended_threads,
)
from jdwp.debugger.reading.expressions import ExpressionSyntaxError
from support import stops
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool

LOOPS = "com.example.debuggee.Loops"
STEP_LINE = find_mark("loops-step")[1]


next_stop = functools.partial(stops.next_stop, passing=(*stops.BINDING_EVENTS, LogpointHit, BreakpointSpent))


@pytest.fixture
def loops(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, LOOPS, java=require_tool("java"))


@asynccontextmanager
async def session(loops: Debuggee) -> AsyncIterator[Debugger]:
    async with jdwp.open_jdwp_tcp("127.0.0.1", loops.port) as vm, open_debugger(vm) as debugger:
        yield debugger


async def line_printed(loops: Debuggee, pattern: str, after: int = 0, timeout: float = 30) -> re.Match[str]:
    return await trio.to_thread.run_sync(functools.partial(loops.wait_for_line, pattern, after=after,
                                                           timeout=timeout))


async def heartbeats(loops: Debuggee) -> None:
    await trio.to_thread.run_sync(loops.wait_for_more_heartbeats)


def pending_events(debugger: Debugger) -> list[Any]:
    found = []
    while True:
        try:
            found.append(debugger.events.receive_nowait())
        except trio.WouldBlock:
            return found


async def local_value(debugger: Debugger, stop: Stop, name: str) -> str | None:
    frame = (await debugger.stack(stop.stop_id, stop.thread_id, limit=1)).frames[0].frame_id
    shown = {v.name: v.value for v in (await debugger.locals(stop.stop_id, frame)).locals}
    return shown[name]


async def test_a_condition_true_once_in_1000_hits_stops_once_with_the_right_i(loops: Debuggee) -> None:
    with trio.fail_after(120):
        async with session(loops) as debugger:
            bp = await debugger.set_breakpoint(LOOPS, STEP_LINE, condition="i == 777")
            assert bp.status == "verified" and bp.options is not None and bp.options.condition == "i == 777"
            mark = len(loops.lines)
            loops.send("loop 1000")
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (bp.breakpoint_id,) and stop.condition_error is None
            assert stop.suspended is None  # a SUSPEND_ALL stop: the VM is held
            assert await local_value(debugger, stop, "i") == "777"
            assert await suspended_threads(debugger.vm) == len(await debugger.vm.all_threads())
            await debugger.resume(stop.stop_id)
            await line_printed(loops, r"^looped 1000 ", after=mark)
            assert not [e for e in pending_events(debugger) if isinstance(e, Stopped)]
            assert debugger.state == "running"
            (held,) = debugger.list_breakpoints()
            assert held.hits == 1
            cleanup = await debugger.detach()
            assert (cleanup.status, cleanup.execution_state) == ("complete", "running")


async def test_a_false_conditions_locals_go_out_with_its_frames_on_hotspot(loops: Debuggee) -> None:
    """From a thread's third hit, a judged hit is two writes: Frames with GetValues under a guessed frame ID,
    then the release. Without the guess it is three; each guess HotSpot's frame IDs did not confirm adds a
    GetValues in a write of its own."""
    with trio.fail_after(120):
        async with session(loops) as debugger:
            await debugger.set_breakpoint(LOOPS, STEP_LINE, condition="i < 0")
            before = debugger.vm.statistics()
            mark = len(loops.lines)
            loops.send("loop 200")
            await line_printed(loops, r"^looped 200 ", after=mark)
            after = debugger.vm.statistics()
            requests, writes = (after[key] - before[key] for key in ("requests", "writes"))
            assert requests <= 3 * 200 + 3, requests  # Frames, GetValues, Resume; a missed guess adds one
            assert writes <= 2 * 200 + 5, writes  # the first two hits, and a rare miss, take one more
            cleanup = await debugger.detach()
            assert (cleanup.status, cleanup.execution_state) == ("complete", "running")


async def test_false_conditions_on_locals_alone_are_released_without_a_task(loops: Debuggee) -> None:
    """A condition on numbers and a null check of its locals is judged from the connection's callbacks
    (events/quick_hits.py); a true one, and one that needs a string's text, go to the full judge and stop."""
    with trio.fail_after(120):
        async with session(loops) as debugger:
            bp = await debugger.set_breakpoint(LOOPS, STEP_LINE, condition="i * 2 == 2 * 250 || label == null")
            mark = len(loops.lines)
            loops.send("loop 300")
            stop = await next_stop(debugger)
            assert await local_value(debugger, stop, "i") == "250"
            await debugger.resume(stop.stop_id)
            await line_printed(loops, r"^looped 300 ", after=mark)
            found = debugger.statistics()
            assert found["quick_releases"] >= 290, found  # a hit before the method's variables are read is not
            assert found["quick_handed_on"] <= 3, found
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.set_breakpoint(LOOPS, STEP_LINE, condition='i == 7 && label == "item"')
            loops.send("loop 10")
            stop = await next_stop(debugger)
            assert await local_value(debugger, stop, "i") == "7"
            assert debugger.statistics()["quick_releases"] == found["quick_releases"]  # a string's text: in full
            assert (await debugger.detach()).execution_state == "running"


async def test_a_condition_that_fails_stops_with_condition_error(loops: Debuggee) -> None:
    with trio.fail_after(120):
        async with session(loops) as debugger:
            await debugger.set_breakpoint(LOOPS, STEP_LINE, condition="nothing.length > 0")
            loops.send("loop 3")
            stop = await next_stop(debugger)
            assert stop.condition_error is not None and "null" in stop.condition_error
            assert await local_value(debugger, stop, "i") == "0"
            await debugger.resume(stop.stop_id)
            stop = await next_stop(debugger)  # never silently skips: every failing hit stops
            assert await local_value(debugger, stop, "i") == "1"
            assert (await debugger.detach()).execution_state == "running"
            await heartbeats(loops)


async def test_bad_options_change_nothing(loops: Debuggee) -> None:
    with trio.fail_after(60):
        async with session(loops) as debugger:
            with pytest.raises(ExpressionSyntaxError) as caught:
                await debugger.set_breakpoint(LOOPS, STEP_LINE, condition="i ==")
            assert caught.value.column == 5 and caught.value.code == "INVALID_ARGUMENT"
            with pytest.raises(ExpressionSyntaxError) as caught:
                await debugger.set_breakpoint(LOOPS, STEP_LINE, action="log", log_message="i={i +}")
            assert caught.value.column == 7
            for options in ({"hit_count": 0}, {"max_hits": 0}, {"action": "log", "max_hits": 10_001},
                            {"action": "log", "suspend": "thread"}, {"suspend": "some"}):
                with pytest.raises(InvalidArgument):
                    await debugger.set_breakpoint(LOOPS, STEP_LINE, **options)
            assert debugger.list_breakpoints() == []


async def test_hit_count_5_stops_at_the_fifth_hit_and_every_later_one(loops: Debuggee) -> None:
    with trio.fail_after(120):
        async with session(loops) as debugger:
            bp = await debugger.set_breakpoint(LOOPS, STEP_LINE, hit_count=5)
            loops.send("loop 10")
            stop = await next_stop(debugger)
            assert await local_value(debugger, stop, "i") == "4"
            await debugger.resume(stop.stop_id)
            stop = await next_stop(debugger)
            assert await local_value(debugger, stop, "i") == "5"
            await debugger.remove_breakpoint(bp.breakpoint_id)
            mark = len(loops.lines)
            await debugger.resume(stop.stop_id)
            await line_printed(loops, r"^looped 10 ", after=mark - 5)


async def test_a_logpoint_over_1000_iterations_never_stops_the_app(loops: Debuggee) -> None:
    with trio.fail_after(180):
        async with session(loops) as debugger:
            bp = await debugger.set_breakpoint(LOOPS, STEP_LINE, action="log", log_message="i={i} {label}!",
                                               max_hits=1000)
            mark = len(loops.lines)
            loops.send("loop 1000")
            hits: list[LogpointHit] = []
            spent = None
            while spent is None:
                event = await debugger.events.receive()
                assert not isinstance(event, Stopped), event
                if isinstance(event, LogpointHit):
                    hits.append(event)
                elif isinstance(event, BreakpointSpent):
                    spent = event.breakpoint
            await line_printed(loops, r"^looped 1000 ", after=mark)
            await heartbeats(loops)
            assert spent.breakpoint_id == bp.breakpoint_id and spent.status == "spent"
            assert len(hits) + sum(h.dropped for h in hits) + (spent.dropped or 0) >= 1000
            assert spent.hits == 1000 and len(hits) + (spent.dropped or 0) == 1000
            assert hits[0].message == "i=0 item!" and hits[0].thread_name == "main"
            assert hits[0].location is not None and hits[0].location.line == STEP_LINE
            numbers = [int(h.message[2:-6]) for h in hits]
            assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
            assert debugger.state == "running"
            cleanup = await debugger.detach()
            assert (cleanup.status, cleanup.execution_state, cleanup.remaining) == ("complete", "running", ())


async def test_max_hits_spends_a_logpoint_and_the_default_message_lists_locals(loops: Debuggee) -> None:
    with trio.fail_after(120):
        async with session(loops) as debugger:
            bp = await debugger.set_breakpoint(LOOPS, STEP_LINE, action="log", max_hits=3)
            mark = len(loops.lines)
            loops.send("loop 50")
            await line_printed(loops, r"^looped 50 ", after=mark)
            events = pending_events(debugger)
            hits = [e for e in events if isinstance(e, LogpointHit)]
            assert [h.message for h in hits] == [f'i={i}, total={sum(range(i)) + 4 * i}, label="item"'
                                                 for i in range(3)]
            (spent,) = [e.breakpoint for e in events if isinstance(e, BreakpointSpent)]
            assert (spent.breakpoint_id, spent.status, spent.hits) == (bp.breakpoint_id, "spent", 3)
            assert debugger.list_breakpoints()[0].status == "spent"
            await debugger.remove_breakpoint(bp.breakpoint_id)


async def test_max_hits_1_on_a_breakpoint_that_stops_is_a_one_shot_gone_at_its_stop(loops: Debuggee) -> None:
    with trio.fail_after(120):
        async with session(loops) as debugger:
            bp = await debugger.set_breakpoint(LOOPS, STEP_LINE, max_hits=1)
            assert bp.status == "verified" and bp.options is not None and bp.options.max_hits == 1
            mark = len(loops.lines)
            loops.send("loop 5")
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (bp.breakpoint_id,)
            assert await local_value(debugger, stop, "i") == "0"
            spent = (await stops.next_spent(debugger)).breakpoint
            assert (spent.breakpoint_id, spent.status, spent.hits) == (bp.breakpoint_id, "spent", 1)
            assert debugger.list_breakpoints() == []  # removed at its stop, which stays current
            assert debugger.current_stop is not None and debugger.current_stop.stop_id == stop.stop_id
            await debugger.resume(stop.stop_id)
            await line_printed(loops, r"^looped 5 ", after=mark)
            assert not [e for e in pending_events(debugger) if isinstance(e, Stopped)]
            assert debugger.state == "running"
            with pytest.raises(NotFound):
                await debugger.update_breakpoint(bp.breakpoint_id, enabled=False)
            await debugger.remove_breakpoint(bp.breakpoint_id)  # removing it again is fine


async def test_suspend_thread_keeps_other_threads_running(loops: Debuggee) -> None:
    with trio.fail_after(120):
        async with session(loops) as debugger:
            await debugger.set_breakpoint(LOOPS, STEP_LINE, suspend="thread")
            loops.send("loop 2")
            stop = await next_stop(debugger)
            assert stop.suspended == "thread" and stop.thread_name == "main"
            await heartbeats(loops)  # the heartbeat thread runs while main is held
            assert await suspended_threads(debugger.vm) == 1
            assert await local_value(debugger, stop, "i") == "0"
            await debugger.step(stop.stop_id, stop.thread_id, "over")
            stepped = await next_stop(debugger)
            assert stepped.reason == "step"
            await debugger.resume(stepped.stop_id)
            stop = await next_stop(debugger)
            assert await local_value(debugger, stop, "i") == "1"
            cleanup = await debugger.detach()  # releases exactly the thread's suspension
            assert (cleanup.status, cleanup.execution_state) == ("complete", "running")
            await line_printed(loops, r"^looped 2 ")


async def test_detach_while_conditions_and_logpoints_fire_leaves_the_vm_running(loops: Debuggee) -> None:
    with trio.fail_after(180):
        async with session(loops) as debugger:
            await debugger.set_breakpoint(LOOPS, STEP_LINE, condition="i < 0")  # judged at every hit
            await debugger.set_breakpoint(LOOPS, STEP_LINE, action="log", max_hits=10_000, log_message="{i}")
            mark = len(loops.lines)
            loops.send("loop 200000")
            seen = 0
            while seen < 20:
                event = await debugger.events.receive()
                assert not isinstance(event, Stopped), event
                seen += isinstance(event, LogpointHit)
            cleanup = await debugger.detach()
            assert (cleanup.status, cleanup.execution_state, cleanup.remaining, cleanup.errors) == (
                "complete", "running", (), ())
        await line_printed(loops, r"^looped 200000 ", after=mark, timeout=60)
        await heartbeats(loops)

"""Watchpoints against a real OpenJDK 17 debuggee (``fixtures/java/.../Watched.java``; Kotlin's in
``test_kotlin_watch_live.py``).

``Watched`` runs the commands its control thread reads from stdin and prints ``done COMMAND``.
Synchronisation is by engine events and printed lines, never by sleeping.
"""

from __future__ import annotations

import pytest
import trio

from jdwp.debugger import (
    BreakpointSpent,
    BreakpointVerified,
    InvalidArgument,
    LimitReached,
    LogpointHit,
    Stopped,
    Watchpoint,
)
from support.engines import engine, printed
from support.jvm import Debuggee, find_mark
from support.stops import BINDING_EVENTS, next_stop, pending_events

WATCHED = "com.example.debuggee.Watched"
ACCOUNT = "com.example.debuggee.Watched$Account"


async def test_a_write_from_another_thread_stops_with_old_and_new_values_and_the_writers_stack(
        watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            wp = await debugger.set_watchpoint(ACCOUNT, "balance")
            assert isinstance(wp, Watchpoint) and wp.status == "verified" and wp.kind == "watchpoint"
            assert debugger.list_breakpoints() == [wp]
            watched.send("write")
            stop = await next_stop(debugger)
            assert stop.reason == "watchpoint" and stop.breakpoint_ids == (wp.breakpoint_id,)
            assert stop.thread_name == "writer"
            change = stop.watch
            assert change is not None and change.field == f"{ACCOUNT}.balance" and change.access == "write"
            assert (change.old_value.value, change.new_value.value) == ("100", "125")
            assert change.object_id is not None
            assert (stop.location.method, stop.location.line) == ("deposit", find_mark("watch-deposit")[1])
            page = await debugger.stack(stop.stop_id, stop.thread_id)
            assert [f.method for f in page.frames[:2]] == ["deposit", "lambda$run$0"]
            # The stop holds the whole VM: the write has not happened yet.
            holder = await debugger.object(stop.stop_id, change.object_id)
            assert {f.name: f.value for f in holder.fields or ()}["balance"] == "100"
            await debugger.resume(stop.stop_id)
            await printed(watched, "^done write$")


async def test_static_and_string_fields_conditions_on_new_value_and_removal(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            owner = await debugger.set_watchpoint(ACCOUNT, "owner", condition='new_value == "bob"')
            renames = await debugger.set_watchpoint(ACCOUNT, "renames")
            watched.send("rename")
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (owner.breakpoint_id,)
            assert (stop.watch.old_value.value, stop.watch.new_value.value) == ("alice", "bob")
            assert stop.watch.new_value.kind == "string"
            await debugger.resume(stop.stop_id)
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (renames.breakpoint_id,) and stop.watch.object_id is None
            assert (stop.watch.old_value.value, stop.watch.new_value.value) == ("0", "1")
            await debugger.resume(stop.stop_id)
            await printed(watched, "^done rename$")
            await debugger.remove_breakpoint(owner.breakpoint_id)
            await debugger.remove_breakpoint(renames.breakpoint_id)
            assert debugger.list_breakpoints() == []
            watched.send("rename")
            await printed(watched, "^done rename$")
            watched.send("read")
            await printed(watched, "^balance ")
            assert debugger.current_stop is None


async def test_a_read_watchpoint_and_a_pending_one_bound_when_the_class_loads(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            late = await debugger.set_watchpoint("com.example.debuggee.WatchedLate", "touches", "any")
            assert late.status == "pending"
            reads = await debugger.set_watchpoint(ACCOUNT, "balance", "read")
            watched.send("read")
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (reads.breakpoint_id,) and stop.watch.access == "read"
            assert stop.watch.old_value.value == "100" and stop.watch.new_value is None
            await debugger.resume(stop.stop_id)
            await printed(watched, "^done read$")
            await debugger.remove_breakpoint(reads.breakpoint_id)
            watched.send("late")
            seen = []
            while len(seen) < 2:  # touches = touches + 1: a read, then a write
                event = await debugger.events.receive()
                if isinstance(event, BreakpointVerified):
                    assert event.breakpoint.breakpoint_id == late.breakpoint_id
                    continue
                stop = event.stop
                seen.append(stop.watch.access)
                await debugger.resume(stop.stop_id)
            assert seen == ["read", "write"]
            await printed(watched, "^done late$")


async def test_a_logging_watchpoint_traces_writers_without_stopping(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            wp = await debugger.set_watchpoint(ACCOUNT, "balance", action="log", max_hits=3,
                                               log_message="to {new_value} from {old_value}")
            watched.send("many 5")
            await printed(watched, "^done many 5$")
            hits = []
            while len(hits) < 3:
                event = await debugger.events.receive()
                if isinstance(event, LogpointHit):
                    hits.append(event)
            assert [h.message for h in hits] == ["to 101 from 100", "to 102 from 101", "to 103 from 102"]
            assert hits[0].watch.new_value.value == "101" and hits[0].thread_name == "main"
            assert debugger.list_breakpoints()[0].status == "spent"
            assert debugger.current_stop is None
            await debugger.remove_breakpoint(wp.breakpoint_id)


async def test_max_hits_2_on_a_watchpoint_stops_twice_then_it_is_gone(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            wp = await debugger.set_watchpoint(ACCOUNT, "balance", max_hits=2)
            assert wp.status == "verified" and wp.options is not None and wp.options.max_hits == 2
            watched.send("many 5")
            seen = []
            for _ in range(2):
                stop = await next_stop(debugger, passing=(*BINDING_EVENTS, BreakpointSpent))
                assert stop.breakpoint_ids == (wp.breakpoint_id,) and stop.watch is not None
                seen.append((stop.watch.old_value.value, stop.watch.new_value.value))
                await debugger.resume(stop.stop_id)
            assert seen == [("100", "101"), ("101", "102")]
            await printed(watched, "^done many 5$")
            events = pending_events(debugger)
            assert not [e for e in events if isinstance(e, Stopped)]
            (spent,) = [e.breakpoint for e in events if isinstance(e, BreakpointSpent)]
            assert (spent.breakpoint_id, spent.status, spent.hits) == (wp.breakpoint_id, "spent", 2)
            assert debugger.list_breakpoints() == []


async def test_bad_watchpoints_change_nothing(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            for args in [("not a class", "x"), (ACCOUNT, "no such"), (ACCOUNT, "balance", "write-ish")]:
                with pytest.raises(InvalidArgument):
                    await debugger.set_watchpoint(*args)
            missing = await debugger.set_watchpoint(ACCOUNT, "nothere")
            assert missing.status == "rejected" and "no field" in missing.reason.message
            assert [bp.breakpoint_id for bp in debugger.list_breakpoints()] == [missing.breakpoint_id]


async def test_watchpoints_and_method_breakpoints_count_towards_the_100(watched: Debuggee) -> None:
    with trio.fail_after(90):
        async with engine(watched) as debugger:
            await debugger.set_breakpoint(WATCHED, method="big", on="exit")
            for _ in range(99):
                await debugger.set_watchpoint(ACCOUNT, "renames")
            with pytest.raises(LimitReached):
                await debugger.set_watchpoint(ACCOUNT, "owner")
            with pytest.raises(LimitReached):
                await debugger.set_breakpoint(WATCHED, method="label")
            assert len(debugger.list_breakpoints()) == 100
            await debugger.remove_breakpoint(debugger.list_breakpoints()[0].breakpoint_id)
            assert (await debugger.set_watchpoint(ACCOUNT, "owner")).status == "verified"

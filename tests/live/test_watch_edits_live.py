"""Watchpoints and method breakpoints that capture at their stops and change in place, against a real
OpenJDK 17 debuggee (``fixtures/java/.../Watched.java``, which runs the commands it reads on stdin and prints
``done COMMAND``). docs/design.md §3.5: capture on stop takes every request that stops; ``update_debugger_breakpoint``
takes every breakpoint. Synchronisation is by engine events and printed lines, never by sleeping.
"""

from __future__ import annotations

import pytest
import trio

from jdwp.debugger import Capture, InvalidArgument, MethodBreakpoint, Watchpoint
from support.engines import engine, printed
from support.jvm import Debuggee
from support.stops import next_stop

WATCHED = "com.example.debuggee.Watched"
ACCOUNT = "com.example.debuggee.Watched$Account"


def send(debuggee: Debuggee, command: str) -> int:
    """Send a command; returns where its ``done`` line is to be looked for (the lines printed so far)."""
    mark = len(debuggee.lines)
    debuggee.send(command)
    return mark


def values(locals_: object) -> dict[str, str | None]:
    return {local.name: local.value for local in locals_.locals}  # type: ignore[attr-defined]


async def test_a_watchpoint_stop_carries_its_capture(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            capture = Capture(stack=2, locals=True, expressions=("amount * 2", "this.balance", "nope"))
            wp = await debugger.set_watchpoint(ACCOUNT, "balance", capture=capture)
            assert isinstance(wp, Watchpoint) and wp.options is not None and wp.options.capture == capture
            mark = send(watched, "write")
            stop = await next_stop(debugger)
            assert stop.reason == "watchpoint" and stop.watch is not None
            captured = stop.capture
            assert captured is not None and captured.error is None
            assert [f.method for f in captured.frames] == ["deposit", "lambda$run$0"]
            assert values(captured.locals)["amount"] == "25"
            doubled, balance, unknown = captured.expressions
            assert doubled.value.value == "50" and balance.value.value == "100"  # read before the write
            assert unknown.error is not None and "nope" in unknown.error.message
            await debugger.resume(stop.stop_id)
            await printed(watched, "^done write$", mark)


async def test_a_method_breakpoint_stop_carries_its_capture(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            bp = await debugger.set_breakpoint(WATCHED, method="label",
                                               capture=Capture(stack=2, locals=True, expressions=("prefix",)))
            assert isinstance(bp, MethodBreakpoint) and bp.status == "verified"
            mark = send(watched, "calls")
            stop = await next_stop(debugger)
            assert stop.location.method == "label" and stop.capture is not None
            assert [f.method for f in stop.capture.frames] == ["label", "run"]
            assert "x" in (values(stop.capture.locals)["prefix"] or "")
            assert "x" in (stop.capture.expressions[0].value.value or "")
            await debugger.resume(stop.stop_id)
            await printed(watched, "^done calls$", mark)


async def test_a_watchpoint_changes_in_place_and_is_disabled_and_enabled(watched: Debuggee) -> None:
    with trio.fail_after(90):
        async with engine(watched) as debugger:
            wp = await debugger.set_watchpoint(ACCOUNT, "balance")
            # A condition no write meets: its hits are judged from now on (under EVENT_THREAD), none stops.
            quiet = await debugger.update_breakpoint(wp.breakpoint_id, condition="new_value > 1000")
            assert isinstance(quiet, Watchpoint) and quiet.breakpoint_id == wp.breakpoint_id
            assert quiet.options is not None and quiet.options.condition == "new_value > 1000"
            assert quiet.status == "verified"
            mark = send(watched, "write")
            await printed(watched, "^done write$", mark)  # balance 100 -> 125: judged false, let go
            # Bad input changes nothing: a message on a watchpoint that stops, a condition that does not parse.
            with pytest.raises(InvalidArgument):
                await debugger.update_breakpoint(wp.breakpoint_id, log_message="{new_value}")
            with pytest.raises(InvalidArgument):
                await debugger.update_breakpoint(wp.breakpoint_id, condition="new_value >")
            assert debugger.list_breakpoints() == [quiet]
            # Disabled, it makes no request; enabled again with the condition cleared, the next write stops.
            off = await debugger.update_breakpoint(wp.breakpoint_id, enabled=False)
            assert off.status == "disabled"
            mark = send(watched, "write")
            await printed(watched, "^done write$", mark)
            on = await debugger.update_breakpoint(wp.breakpoint_id, enabled=True, condition=None)
            assert on.status == "verified" and on.options is None
            mark = send(watched, "write")
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (wp.breakpoint_id,) and stop.watch is not None
            assert (stop.watch.old_value.value, stop.watch.new_value.value) == ("150", "175")
            await debugger.resume(stop.stop_id)
            await printed(watched, "^done write$", mark)


async def test_a_method_breakpoint_changes_in_place_and_binds_anew_when_enabled(watched: Debuggee) -> None:
    with trio.fail_after(90):
        async with engine(watched) as debugger:
            both = await debugger.set_breakpoint(WATCHED, method="twice")
            assert isinstance(both, MethodBreakpoint) and len(both.locations) == 2
            # Of the two overloads only twice(long) gets 3: the condition, judged at entry, stops only there.
            one = await debugger.update_breakpoint(both.breakpoint_id, condition="x == 3")
            assert isinstance(one, MethodBreakpoint) and one.locations == both.locations
            mark = send(watched, "calls")
            stop = await next_stop(debugger)
            assert stop.location.method == "twice" and stop.breakpoint_ids == (both.breakpoint_id,)
            frame = stop.frame_id
            assert (await debugger.evaluate(stop.stop_id, frame, "x")).value == "3"
            await debugger.resume(stop.stop_id)
            await printed(watched, "^done calls$", mark)
            off = await debugger.update_breakpoint(both.breakpoint_id, enabled=False)
            assert off.status == "disabled" and off.locations == ()
            mark = send(watched, "calls")
            await printed(watched, "^done calls$", mark)
            on = await debugger.update_breakpoint(both.breakpoint_id, enabled=True, condition=None)
            assert on.status == "verified" and len(on.locations) == 2  # bound once each
            assert set(on.locations) == set(both.locations)
            mark = send(watched, "calls")
            for _ in range(2):
                stop = await next_stop(debugger)
                assert stop.location.method == "twice"
                await debugger.resume(stop.stop_id)
            await printed(watched, "^done calls$", mark)

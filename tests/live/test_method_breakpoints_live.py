"""Method breakpoints (entry, exit with the value returned) and a step out's return value, against a real
OpenJDK 17 debuggee (``fixtures/java/.../Watched.java``, command ``calls``)."""

from __future__ import annotations

import pytest
import trio

from jdwp.debugger import InvalidArgument, MethodBreakpoint
from support.engines import engine, printed
from support.jvm import Debuggee
from support.stops import next_stop

WATCHED = "com.example.debuggee.Watched"


async def test_exit_stops_carry_a_long_past_2_53_exactly_an_object_and_void(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            made = [await debugger.set_breakpoint(WATCHED, method=name, on="exit")
                    for name in ("big", "label", "nothing")]
            assert all(isinstance(bp, MethodBreakpoint) and bp.status == "verified" and bp.note is None
                       for bp in made)
            watched.send("calls")
            seen = {}
            for _ in range(3):
                stop = await next_stop(debugger)
                seen[stop.location.method] = stop.return_value
                assert stop.reason == "breakpoint" and stop.thread_name == "main"
                await debugger.resume(stop.stop_id)
            await printed(watched, "^done calls$")
            assert (seen["big"].kind, seen["big"].value) == ("primitive", "9007199254740993")
            assert (seen["label"].kind, seen["label"].value) == ("string", "x-label")
            assert seen["label"].object_id is not None
            assert seen["nothing"].kind == "void"


async def test_entry_binds_every_overload_or_one_signature_and_stops_only_there(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            both = await debugger.set_breakpoint(WATCHED, method="twice")
            assert sorted(loc.method for loc in both.locations) == ["twice(I)I", "twice(J)J"]
            watched.send("calls")
            methods = []
            for _ in range(2):
                stop = await next_stop(debugger)
                methods.append((stop.location.method, stop.location.code_index))
                await debugger.resume(stop.stop_id)
            await printed(watched, "^done calls$")
            assert methods == [("twice", 0), ("twice", 0)]
            await debugger.remove_breakpoint(both.breakpoint_id)
            one = await debugger.set_breakpoint(WATCHED, method="twice", signature="(J)J", on="exit",
                                                condition="return_value == 6L")
            assert [loc.method for loc in one.locations] == ["twice(J)J"]
            watched.send("calls")
            stop = await next_stop(debugger)
            assert stop.return_value.value == "6" and stop.breakpoint_ids == (one.breakpoint_id,)
            await debugger.resume(stop.stop_id)
            await printed(watched, "^done calls$")


async def test_a_step_out_reports_the_value_of_the_method_it_left(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            bp = await debugger.set_breakpoint(WATCHED, method="big")
            watched.send("calls")
            stop = await next_stop(debugger)
            assert stop.location.method == "big" and stop.return_value is None
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.step(stop.stop_id, stop.thread_id, "out")
            stop = await next_stop(debugger)
            assert stop.reason == "step" and stop.location.method == "run"
            assert stop.return_value.value == "9007199254740993"
            await debugger.resume(stop.stop_id)
            await printed(watched, "^done calls$")


async def test_bad_method_breakpoints_change_nothing(watched: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            for kwargs in [{"method": "big", "line": 3}, {"method": "big", "on": "middle"},
                           {"method": "big", "signature": "J"}, {"on": "exit"}]:
                with pytest.raises(InvalidArgument):
                    await debugger.set_breakpoint(WATCHED, **kwargs)
            missing = await debugger.set_breakpoint(WATCHED, method="nosuch")
            assert missing.status == "rejected" and "no method nosuch" in missing.reason.message
            late = await debugger.set_breakpoint("com.example.debuggee.WatchedLate", method="touch", on="exit")
            assert late.status == "pending"
            assert [bp.breakpoint_id for bp in debugger.list_breakpoints()] == [missing.breakpoint_id,
                                                                             late.breakpoint_id]


async def test_entry_is_filtered_by_class_a_constructor_of_one_class_only(watched: Debuggee) -> None:
    """Every class has an ``<init>``: only Box's stops (``write`` makes a Thread and a lambda, ``mutate`` a Box)."""
    with trio.fail_after(60):
        async with engine(watched) as debugger:
            bp = await debugger.set_breakpoint(f"{WATCHED}$Box", method="<init>")
            assert bp.status == "pending"  # Box loads with the first mutate
            watched.send("write")
            await printed(watched, "^done write$")
            assert debugger.current_stop is None
            watched.send("mutate")
            stop = await next_stop(debugger)
            assert (stop.location.class_name, stop.location.method) == (f"{WATCHED}$Box", "<init>")
            assert [loc.method for loc in debugger.list_breakpoints()[0].locations] == ["<init>()V"]
            await debugger.resume(stop.stop_id)
            await printed(watched, "^done mutate$")

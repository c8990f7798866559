"""Kotlin lines with lambdas, compiled by kotlinc 1.3, debugged on OpenJDK 17 (issue 23 item 8, docs/design.md §3.10):
``lambda: "all" | "line" | n``, ``in_lambda`` locations, a logpoint naming ``it`` bound only inside the lambda
(the other code indexes listed as skipped), and one stop per pass through a line.

The debuggee is ``fixtures/kotlin/com/example/ktlambdas`` (``LambdasKt``): its main loop calls ``work`` every
few milliseconds. kotlinc 1.3 compiles ``val s = xs.sumBy { it.a * it.b }`` (two items) to code indexes 65 and
142 of ``work`` (before and after the inlined loop) and 117 (the lambda's copy, marked by
``$i$a$-sumBy-LambdasKt$work$s$1``); the test reads them from the answer, not from these numbers.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from jdwp.debugger import BreakpointSpent, Debugger, LogpointHit, Stop
from support import stops
from support.engines import engine
from support.jvm import Debuggee, debuggees, find_mark, kotlin_classpath
from support.live import require_tool

APP = "com.example.ktlambdas.LambdasKt"
FILE = "Lambdas.kt"

next_stop = functools.partial(stops.next_stop, passing=(*stops.BINDING_EVENTS, LogpointHit, BreakpointSpent))


def line(mark: str) -> int:
    return find_mark(mark)[1]


@pytest.fixture
def lambdas_app(kotlin_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(kotlin_classpath(kotlin_classes), APP, java=require_tool("java"))


async def stops_of(debugger: Debugger, breakpoint_id: str, count: int) -> list[Stop]:
    """The next ``count`` stops (each of that breakpoint), resumed one after the other."""
    found = []
    for _ in range(count):
        stop = await next_stop(debugger)
        assert stop.breakpoint_ids == (breakpoint_id,), stop
        found.append(stop)
        await debugger.resume(stop.stop_id)
    return found


def indexes(bp: Any) -> list[tuple[int, bool, int | None]]:
    return sorted((loc.code_index, loc.in_lambda, loc.lambda_ordinal) for loc in bp.locations)


async def test_all_locations_in_lambda_flags_and_one_stop_per_pass(lambdas_app: Debuggee) -> None:
    """Default "all": every code index of the line, the lambda's marked; a pass through the line stops once
    outside the lambda (the code index after the inlined loop is the same pass), and once per lambda call."""
    with trio.fail_after(60):
        async with engine(lambdas_app) as debugger:
            bp = await debugger.set_breakpoint(file=FILE, line=line("ktl-sum"))
            assert bp.status == "verified", bp
            found = indexes(bp)
            outside = [index for index, in_lambda, _ in found if not in_lambda]
            inside = [(index, ordinal) for index, in_lambda, ordinal in found if in_lambda]
            assert len(outside) == 2 and len(inside) == 1 and inside[0][1] == 0, found
            assert bp.lambda_choice is None and bp.skipped == ()
            first, after_loop = outside
            lambda_index = inside[0][0]
            hit = [stop.location.code_index for stop in await stops_of(debugger, bp.breakpoint_id, 9)]
            # A breakpoint set while a call was past `first` may stop at `after_loop` once: count from `first`.
            start = hit.index(first)
            assert after_loop not in hit[start:], hit  # the same pass as the stop at `first`
            # Each call of work: the line once, then the lambda once per item (two items).
            assert hit[start:start + 6] == [first, lambda_index, lambda_index] * 2, hit
            await debugger.remove_breakpoint(bp.breakpoint_id)


async def test_line_choice_binds_outside_the_lambdas_and_stops_once_per_call(lambdas_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with engine(lambdas_app) as debugger:
            bp = await debugger.set_breakpoint(file=FILE, line=line("ktl-sum"), lambda_choice="line")
            assert bp.status == "verified" and bp.lambda_choice == "line", bp
            found = indexes(bp)
            assert len(found) == 2 and not any(in_lambda for _, in_lambda, _ in found), found
            hit = [stop.location.code_index for stop in await stops_of(debugger, bp.breakpoint_id, 5)]
            start = hit.index(found[0][0])  # (set while a call was past the first, it may stop after the loop once)
            assert start <= 1 and hit[start:] == [found[0][0]] * (5 - start), hit


async def test_lambda_ordinals_in_source_order(lambdas_app: Debuggee) -> None:
    """``xs.map { … }.filter { … }``: lambda 0 is map's, 1 filter's; ``later { x } + xs.sumBy { … }``: lambda 0
    is the non-inline lambda's class (its invoke), 1 the inline sumBy's copy in work."""
    with trio.fail_after(60):
        async with engine(lambdas_app) as debugger:
            # Once the line has run, the non-inline lambda's class is loaded.
            warm = await debugger.set_breakpoint(file=FILE, line=line("ktl-mixed") + 1)
            await stops_of(debugger, warm.breakpoint_id, 1)
            await debugger.remove_breakpoint(warm.breakpoint_id)
            two = line("ktl-two")
            zero = await debugger.set_breakpoint(file=FILE, line=two, lambda_choice=0)
            one = await debugger.set_breakpoint(file=FILE, line=two, lambda_choice=1)
            everything = await debugger.set_breakpoint(file=FILE, line=two)
            assert [(loc.in_lambda, loc.lambda_ordinal) for loc in zero.locations] == [(True, 0)], zero
            assert [(loc.in_lambda, loc.lambda_ordinal) for loc in one.locations] == [(True, 1)], one
            assert zero.locations[0].code_index < one.locations[0].code_index  # map's copy runs first
            assert {loc.code_index for loc in everything.locations} > {zero.locations[0].code_index,
                                                                       one.locations[0].code_index}
            owners = {zero.locations[0].code_index: {zero.breakpoint_id, everything.breakpoint_id},
                      one.locations[0].code_index: {one.breakpoint_id, everything.breakpoint_id}}
            for number in range(5):
                stop = await next_stop(debugger)
                expected = owners.get(stop.location.code_index, {everything.breakpoint_id})
                # The first may have been hit before the last breakpoint was set (the thread runs meanwhile).
                assert number == 0 or set(stop.breakpoint_ids) == expected, stop
                await debugger.resume(stop.stop_id)
            for bp in (zero, one, everything):
                await debugger.remove_breakpoint(bp.breakpoint_id)
            mixed = line("ktl-mixed")
            first = await debugger.set_breakpoint(file=FILE, line=mixed, lambda_choice=0)
            second = await debugger.set_breakpoint(file=FILE, line=mixed, lambda_choice=1)
            assert [(loc.class_name, loc.method, loc.lambda_ordinal) for loc in first.locations] == [
                (f"{APP}$work$v$1", "invoke", 0)], first
            assert [(loc.class_name, loc.method, loc.lambda_ordinal) for loc in second.locations] == [
                (APP, "work", 1)], second
            rejected = await debugger.set_breakpoint(file=FILE, line=mixed, lambda_choice=2)
            assert rejected.status == "rejected" and rejected.reason is not None, rejected
            assert "no lambda 2" in rejected.reason.message, rejected


async def test_logpoint_naming_it_binds_only_in_the_lambda(lambdas_app: Debuggee) -> None:
    """``{it.a}`` is in scope only in the lambda: the line's other code indexes are skipped, with the reason,
    and every message is a value, never an error."""
    with trio.fail_after(60):
        async with engine(lambdas_app) as debugger:
            bp = await debugger.set_breakpoint(file=FILE, line=line("ktl-sum"), action="log",
                                               log_message="a={it.a}", max_hits=6)
            assert bp.status == "verified", bp
            assert [(loc.in_lambda, loc.lambda_ordinal) for loc in bp.locations] == [(True, 0)], bp
            assert len(bp.skipped) == 2 and all(not s.in_lambda for s in bp.skipped), bp
            assert all("'it' not in scope" in s.reason for s in bp.skipped), bp.skipped
            messages = []
            while len(messages) < 6:
                event = await debugger.events.receive()
                if isinstance(event, LogpointHit):
                    messages.append(event.message)
            assert set(messages) == {"a=1", "a=3"}, messages  # Item(1, 2), Item(3, 4)
            condition = await debugger.set_breakpoint(file=FILE, line=line("ktl-sum"), condition="it.a == 3")
            assert len(condition.locations) == 1 and len(condition.skipped) == 2, condition
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (condition.breakpoint_id,) and stop.condition_error is None, stop
            await debugger.resume(stop.stop_id)


async def test_a_kotlin_condition_on_int_locals_is_judged_from_callbacks(lambdas_app: Debuggee) -> None:
    """Kotlin compiled by kotlinc, a condition on ``Int`` locals (events/quick_hits.py): a false one is released
    from the connection's callbacks, without a task; a true one stops with the locals it named."""
    with trio.fail_after(120):
        async with engine(lambdas_app) as debugger:
            never = await debugger.set_breakpoint(file=FILE, line=line("ktl-two"), condition="s != 14 || x < 0")
            while debugger.statistics()["quick_releases"] < 50:
                await trio.sleep(0.01)  # waits for 50 hits judged quickly (bounded by fail_after)
            (listed,) = debugger.list_breakpoints()
            assert listed.hits == 0 and debugger.statistics()["quick_handed_on"] <= 3, debugger.statistics()
            await debugger.remove_breakpoint(never.breakpoint_id)
            seventh = await debugger.set_breakpoint(file=FILE, line=line("ktl-two"),
                                                    condition="x % 100 == 7 && s == 14")
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (seventh.breakpoint_id,) and stop.condition_error is None, stop
            shown = {local.name: local.value for local in (await debugger.locals(stop.stop_id, stop.frame_id)).locals}
            assert int(shown["x"]) % 100 == 7 and shown["s"] == "14", shown
            await debugger.resume(stop.stop_id)

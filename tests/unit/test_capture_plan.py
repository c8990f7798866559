"""What a capture asks for, checked when it is set (docs/design.md §3.5), and the shared read of a stop's locals."""

from __future__ import annotations

import pytest
import trio

from jdwp.debugger import Capture, InvalidArgument
from jdwp.debugger._gather import Once
from jdwp.debugger.reading.expressions import ExpressionSyntaxError
from jdwp.debugger.requests.capture import merge, plan_capture
from jdwp.debugger.requests.hits import HitOptions, plan_hits


def test_a_capture_is_parsed_once_with_its_bounds() -> None:
    plan = plan_capture(Capture(20, True, ("a.b", "x + 1")))
    assert plan.capture == Capture(20, True, ("a.b", "x + 1")) and len(plan.trees) == 2
    assert plan_capture(Capture(0)).trees == ()
    for bad in (Capture(-1), Capture(21), Capture(True), Capture(locals="yes"),  # type: ignore[arg-type]
                Capture(expressions=tuple("abcdefghijk")), Capture(expressions=(" ",)),
                Capture(expressions=("s.trim()",))):
        with pytest.raises(InvalidArgument):
            plan_capture(bad)
    with pytest.raises(ExpressionSyntaxError) as syntax:
        plan_capture(Capture(expressions=("ok", "a +")))
    assert "capture.expressions[1]" in str(syntax.value) and syntax.value.column == 4


def test_a_logpoint_takes_no_capture_and_a_breakpoint_echoes_it() -> None:
    with pytest.raises(InvalidArgument):
        plan_hits(HitOptions(action="log", capture=Capture()))
    plan = plan_hits(HitOptions(capture=Capture(3)))
    assert plan.capture is not None and plan.options.capture == Capture(3)
    assert not plan.options.holds_thread_only  # a capture alone keeps the plain breakpoint's suspension


def test_captures_of_one_stop_merge() -> None:
    one = plan_capture(Capture(2, False, ("a", "b")))
    two = plan_capture(Capture(5, True, ("b", "c")))
    assert merge([None, None]) is None and merge([one, None]) is one
    merged = merge([one, None, two])
    assert merged is not None and merged.capture == Capture(5, True, ("a", "b", "c")) and len(merged.trees) == 3


async def test_once_shares_one_read_and_a_cancelled_read_is_made_again() -> None:
    reads = 0

    async def read() -> int:
        nonlocal reads
        reads += 1
        await trio.sleep(0.01)
        return reads

    once = Once(read)
    results: list[int] = []
    async with trio.open_nursery() as nursery:
        for _ in range(3):
            nursery.start_soon(lambda: _append(results, once))
    assert results == [1, 1, 1] and reads == 1

    again = Once(read)
    with trio.move_on_after(0.001):
        await again()  # cancelled before it answered
    assert await again() == reads  # read anew, not the cancellation

    async def fails() -> int:
        raise InvalidArgument("no")

    broken = Once(fails)
    for _ in range(2):
        with pytest.raises(InvalidArgument):
            await broken()


async def _append(results: list[int], once: Once[int]) -> None:
    results.append(await once())

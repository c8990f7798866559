"""A step on a thread that dies before it lands (issue 38's bad input): the uncaught exception the stepped line
throws ends the thread (``Flaky``'s workers), so the step never completes. The session goes on, nothing stays
suspended, and the dead thread's step is not reported as pending on the stops that follow."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

import jdwp
from jdwp.debugger import open_debugger
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool
from support.stops import next_stop

FLAKY = "com.example.debuggee.Flaky"


@pytest.fixture
def flaky(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, FLAKY, java=require_tool("java"))



@pytest.mark.live
async def test_a_step_whose_thread_dies_leaves_the_session_running(flaky: Debuggee) -> None:
    _, line = find_mark("flaky-throw")
    with trio.fail_after(60):
        async with jdwp.open_jdwp_tcp("127.0.0.1", flaky.port) as vm, open_debugger(vm) as debugger:
            bp = await debugger.set_breakpoint(FLAKY, line)
            stop = await next_stop(debugger)
            assert stop.thread_name is not None and stop.thread_name.startswith("worker-")
            dying = stop.thread_name
            await debugger.remove_breakpoint(bp.breakpoint_id)
            # The line throws an IllegalStateException nothing catches: the worker ends inside the step.
            await debugger.step(stop.stop_id, stop.thread_id or "", "over")
            again = await debugger.set_breakpoint(FLAKY, line)
            later = await next_stop(debugger)  # the next worker's hit: the dead one's step never landed
            assert later.reasons == ("breakpoint",) and later.breakpoint_ids == (again.breakpoint_id,)
            assert later.thread_name != dying and later.pending_steps == ()
            await debugger.remove_breakpoint(again.breakpoint_id)
            await debugger.resume(later.stop_id)
            assert debugger.state == "running" and debugger.current_stop is None
        assert debugger.cleanup is not None and debugger.cleanup.execution_state == "running"

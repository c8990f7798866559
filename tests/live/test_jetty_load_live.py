"""A real web server under load: Jetty 9 (Debian's jars, ``fixtures/jetty``: about 200 pool threads) serving 40
concurrent clients on 127.0.0.1 while the engine judges hits on its handler's hot line.

Many threads hit a conditional (or hit-count) breakpoint at once; the first stop is current, the others queue
behind it or are still being judged when the user removes, disables or changes the breakpoint. Their stops are
released, never made current (docs/tools.md, queued stops): every later request completes, no stop of a removed
breakpoint is ever published, nothing stays suspended. Correctness only: the load is bounded (count and time),
each test waits on engine events and completed requests, never on a clock; bench/jetty_load.py measures.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import BreakpointSpent, Debugger, LogpointHit, Stop, Stopped, open_debugger, suspended_threads
from support import stops
from support.jetty import JETTY_HANDLER, JettyApp, Load, LoadReport, compile_jetty, find_jetty_mark, jetty_apps

HOT_LINE = find_jetty_mark("jetty-hot")[1]
ALWAYS = "target != null"  # true on every request (``target`` is the handler's first parameter)
CLIENTS = 40
REQUESTS = 600

pytestmark = pytest.mark.live
next_stop = functools.partial(stops.next_stop, passing=(*stops.BINDING_EVENTS, LogpointHit, BreakpointSpent))


@pytest.fixture(scope="module")
def jetty_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_jetty(tmp_path_factory.mktemp("jetty"))


@pytest.fixture
def jetty(jetty_classes: Path) -> Iterator[JettyApp]:
    yield from jetty_apps(jetty_classes)


@asynccontextmanager
async def session(app: JettyApp) -> AsyncIterator[Debugger]:
    async with jdwp.open_jdwp_tcp("127.0.0.1", app.jdwp_port) as vm, open_debugger(vm) as debugger:
        yield debugger


@asynccontextmanager
async def load(app: JettyApp, requests: int = REQUESTS) -> AsyncIterator[Load]:
    """Bounded load for the block; stopped (in-flight requests waited for) when it is left early."""
    running = Load(app.http_port, clients=CLIENTS, requests=requests, duration=120, request_timeout=60).start()
    try:
        yield running
    finally:
        await trio.to_thread.run_sync(running.stop)


async def all_served(running: Load) -> LoadReport:
    """Wait for the load's end: every request completed, none failed."""
    report = await trio.to_thread.run_sync(running.wait)
    assert (report.completed, report.failed) == (running.requests, 0), report.errors
    return report


async def nothing_held(debugger: Debugger) -> None:
    """No stop current, none published since, no thread suspended: the app runs free."""
    assert not [e for e in stops.pending_events(debugger) if isinstance(e, Stopped)]
    assert debugger.state == "running" and debugger.terminal is None
    assert await suspended_threads(debugger.vm) == 0


async def first_stop(debugger: Debugger, running: Load, **options: Any) -> tuple[str, Stop]:
    """A breakpoint on the hot line with ``options``, and its first stop under load."""
    bp = await debugger.set_breakpoint(JETTY_HANDLER, HOT_LINE, **options)
    assert bp.status == "verified", bp
    stop = await next_stop(debugger)
    assert stop.breakpoint_ids == (bp.breakpoint_id,) and stop.reason == "breakpoint"
    return bp.breakpoint_id, stop


@pytest.mark.parametrize("options", [{"condition": ALWAYS}, {"hit_count": 3}], ids=["condition", "hit_count"])
async def test_a_breakpoint_removed_at_its_first_stop_never_stops_the_server_again(
        jetty: JettyApp, options: dict[str, Any]) -> None:
    with trio.fail_after(240):
        async with session(jetty) as debugger, load(jetty) as running:
            breakpoint_id, stop = await first_stop(debugger, running, **options)
            await debugger.remove_breakpoint(breakpoint_id)
            assert debugger.current_stop == stop  # the stop the user looks at stays until resumed
            await debugger.resume(stop.stop_id)
            await all_served(running)
            await nothing_held(debugger)
            cleanup = await debugger.detach()
            assert (cleanup.status, cleanup.execution_state) == ("complete", "running")


async def test_a_step_from_the_first_stop_lands_in_its_own_thread_not_on_a_removed_breakpoints_stop(
        jetty: JettyApp) -> None:
    with trio.fail_after(240):
        async with session(jetty) as debugger, load(jetty) as running:
            breakpoint_id, stop = await first_stop(debugger, running, condition=ALWAYS)
            await debugger.remove_breakpoint(breakpoint_id)
            assert stop.thread_id is not None
            await debugger.step(stop.stop_id, stop.thread_id, "over")
            landed = await next_stop(debugger)
            assert landed.reasons == ("step",) and landed.breakpoint_ids == ()
            assert landed.thread_name == stop.thread_name and landed.location is not None
            assert landed.location.line == find_jetty_mark("jetty-reply")[1]
            await debugger.resume(landed.stop_id)
            await all_served(running)
            await nothing_held(debugger)


@pytest.mark.parametrize("change", ["remove", "disable", "never_true"])
async def test_a_change_racing_with_hits_leaves_no_stop_and_no_suspension_behind(jetty: JettyApp,
                                                                                 change: str) -> None:
    """The change comes while hits are judged and queued, without waiting for a stop: whatever was current is
    resumed, and the breakpoint never stops the server after that."""
    with trio.fail_after(240):
        async with session(jetty) as debugger, load(jetty) as running:
            await trio.to_thread.run_sync(running.wait_completed, 20)  # the server is busy
            bp = await debugger.set_breakpoint(JETTY_HANDLER, HOT_LINE, condition=ALWAYS)
            if change == "remove":
                await debugger.remove_breakpoint(bp.breakpoint_id)
            elif change == "disable":
                await debugger.update_breakpoint(bp.breakpoint_id, enabled=False)
            else:  # a new condition re-makes the requests: hits of the old ones are let go
                await debugger.update_breakpoint(bp.breakpoint_id, condition="target == null")
            current = debugger.current_stop
            if current is not None:  # one made before the change
                await debugger.resume(current.stop_id)
            await all_served(running)
            await nothing_held(debugger)
            cleanup = await debugger.detach()
            assert (cleanup.status, cleanup.execution_state) == ("complete", "running")


async def test_detach_with_hits_queued_and_judged_releases_every_one(jetty: JettyApp) -> None:
    with trio.fail_after(240):
        async with session(jetty) as debugger, load(jetty) as running:
            await first_stop(debugger, running, condition=ALWAYS)
            cleanup = await debugger.detach()
            assert (cleanup.status, cleanup.execution_state) == ("complete", "running")
            await all_served(running)


async def test_logpoint_and_never_true_condition_under_load_keep_every_request_served(jetty: JettyApp) -> None:
    """Hits judged at once across threads: counts stay exact (every hit of the never-true condition is seen and
    none counts; the logpoint counts every hit it logs, captured or dropped by the rate limit)."""
    with trio.fail_after(240):
        async with session(jetty) as debugger, load(jetty) as running:
            never = await debugger.set_breakpoint(JETTY_HANDLER, HOT_LINE, condition="target == null")
            logged = await debugger.set_breakpoint(JETTY_HANDLER, HOT_LINE, action="log",
                                                   log_message="{target}", max_hits=10_000)
            await all_served(running)
            held = {bp.breakpoint_id: bp for bp in debugger.list_breakpoints()}
            assert held[never.breakpoint_id].hits == 0
            assert held[logged.breakpoint_id].hits is not None and held[logged.breakpoint_id].hits > 0
            hits = [e for e in stops.pending_events(debugger) if isinstance(e, LogpointHit)]
            assert hits and all(h.message == "/hello" for h in hits)
            assert debugger.state == "running" and await suspended_threads(debugger.vm) == 0

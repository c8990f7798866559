"""Coroutines that crash stop at the throw (docs/design.md §3.11), against OpenJDK 17 running kotlinc-built fixtures on
Debian's kotlinx-coroutines 1.0.1 (``fixtures/coroutines/.../ktcrash/Crash.kt``).

The default exception breakpoint (uncaught, every throwable) must stop where a coroutine's code threw what
killed it — on the dispatcher's worker for ``GlobalScope.launch(Dispatchers.Default)``, in the block for
``runBlocking`` — and not for exceptions the app catches, nor for a cancelled coroutine. Synchronisation is by
engine events and printed lines, never by sleeping.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from jdwp.debugger import Debugger, Stop, Stopped
from support.coroutines import compile_coroutines, coroutine_mark, coroutines_classpath
from support.engines import engine, printed
from support.jvm import Debuggee, debuggees
from support.live import require_tool
from support.stops import next_stop

pytestmark = pytest.mark.live

MAIN = "com.example.ktcrash.CrashKt"
FACADE = "com.example.ktcrash.CrashKt"


@pytest.fixture(scope="module")
def coroutine_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_coroutines(tmp_path_factory.mktemp("coroutine-classes"), kotlinc=require_tool("kotlinc"))


@pytest.fixture
def crash(coroutine_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(coroutines_classpath(coroutine_classes), MAIN, java=require_tool("java"))


async def no_stop_until_printed(debugger: Debugger, debuggee: Debuggee, pattern: str) -> None:
    """The program prints ``pattern`` with no stop on the way (any stop fails the test)."""
    async with trio.open_nursery() as nursery:
        async def watch() -> None:
            event = await debugger.events.receive()
            stop = event.stop if isinstance(event, Stopped) else None
            pytest.fail(f"unexpected event {event}: stop at {stop and stop.location}, {stop and stop.exception}")
        nursery.start_soon(watch)
        await printed(debuggee, pattern)
        nursery.cancel_scope.cancel()


def at(stop: Stop) -> tuple[str, str, int | None]:
    where = stop.location
    assert where is not None
    return where.class_name, where.method, where.line


async def test_a_launch_on_the_default_dispatcher_that_crashes_stops_at_its_throw(crash: Debuggee) -> None:
    with trio.fail_after(90):
        async with engine(crash) as debugger:
            bp = await debugger.set_exception_breakpoint()  # uncaught, every throwable: the tool's default
            assert bp.status == "verified"
            crash.send("launch-crash")
            stop = await next_stop(debugger)
            assert stop.reason == "exception" and stop.breakpoint_ids == (bp.breakpoint_id,)
            assert stop.thread_name.startswith("DefaultDispatcher-worker-")
            thrown = stop.exception
            assert (thrown.type, thrown.message) == ("java.lang.IllegalStateException", "launch crashed at 41")
            assert thrown.crashes_coroutine and "ends the coroutine" in (thrown.note or "")
            assert (thrown.catch_location.class_name, thrown.catch_location.method) == (
                "kotlin.coroutines.jvm.internal.BaseContinuationImpl", "resumeWith")
            assert thrown.throw_location == stop.location
            assert at(stop) == (f"{FACADE}$launchCrash$job$1", "invokeSuspend", coroutine_mark("ktc-throw-launch"))
            # Everything holds: the stop is an ordinary one, its frames read like any other.
            frames = (await debugger.stack(stop.stop_id, stop.thread_id)).frames
            assert (frames[0].method, frames[0].line) == ("invokeSuspend", coroutine_mark("ktc-throw-launch"))
            mark = len(crash.lines)
            await debugger.resume(stop.stop_id)
            # The coroutine dies of it as before (kotlinx prints it through the worker's uncaught handler), and
            # nothing stops again on its way out; the app lives on.
            await no_stop_until_printed(debugger, crash, "^done launch-crash$")
            await printed(crash, "launch crashed at 41", after=mark)  # the worker's handler, on stderr


async def test_a_crash_three_suspend_calls_deep_stops_once_at_the_innermost_throw(crash: Debuggee) -> None:
    with trio.fail_after(90):
        async with engine(crash) as debugger:
            await debugger.set_exception_breakpoint()
            crash.send("deep-crash")
            stop = await next_stop(debugger)
            assert at(stop) == (FACADE, "failDeep", coroutine_mark("ktc-throw-deep"))
            assert stop.exception.type == "java.lang.IllegalArgumentException" and stop.exception.crashes_coroutine
            await debugger.resume(stop.stop_id)
            # middle's and the lambda's state machines throw the same object again (ResultKt.throwOnFailure):
            # those are the crash on its way out, not new stops.
            await no_stop_until_printed(debugger, crash, "^done deep-crash$")


async def test_a_crash_under_run_blocking_stops_in_the_block_not_in_join_blocking(crash: Debuggee) -> None:
    with trio.fail_after(90):
        async with engine(crash) as debugger:
            await debugger.set_exception_breakpoint()
            crash.send("blocking-crash")
            stop = await next_stop(debugger)
            assert stop.thread_name == "blocking"
            assert at(stop) == (f"{FACADE}$blockingCrash$worker$1$1", "invokeSuspend",
                                coroutine_mark("ktc-throw-blocking"))
            thrown = stop.exception
            assert (thrown.type, thrown.message) == ("java.lang.UnsupportedOperationException", "blocking crashed")
            assert thrown.crashes_coroutine
            await debugger.resume(stop.stop_id)
            # joinBlocking throws it to the thread, which dies of it (uncaught, for the VM too): shown already.
            await no_stop_until_printed(debugger, crash, "^done blocking-crash$")
            await printed(crash, 'Exception in thread "blocking"')


async def test_cancelled_coroutines_and_exceptions_the_app_catches_do_not_stop(crash: Debuggee) -> None:
    with trio.fail_after(90):
        async with engine(crash) as debugger:
            await debugger.set_exception_breakpoint()
            crash.send("cancel")
            await no_stop_until_printed(debugger, crash, "^done cancel$")
            crash.send("caught")
            await no_stop_until_printed(debugger, crash, "^done caught$")
            assert "handled caught inside" in crash.lines


async def test_a_caught_only_breakpoint_leaves_coroutine_crashes_to_the_uncaught_ones(crash: Debuggee) -> None:
    with trio.fail_after(90):
        async with engine(crash) as debugger:
            await debugger.set_exception_breakpoint("java.lang.IllegalStateException", caught=True, uncaught=False)
            crash.send("caught")  # caught by the app's own catch clause: stops
            stop = await next_stop(debugger)
            assert at(stop)[2] == coroutine_mark("ktc-throw-caught") and not stop.exception.crashes_coroutine
            await debugger.resume(stop.stop_id)
            await printed(crash, "^done caught$")
            crash.send("launch-crash")  # caught only by BaseContinuationImpl: counts as uncaught
            await no_stop_until_printed(debugger, crash, "^done launch-crash$")


async def test_a_removed_breakpoint_takes_its_crash_watch_with_it(crash: Debuggee) -> None:
    with trio.fail_after(90):
        async with engine(crash) as debugger:
            bp = await debugger.set_exception_breakpoint()
            crash.send("launch-crash")
            stop = await next_stop(debugger)
            assert stop.exception.crashes_coroutine
            await debugger.resume(stop.stop_id)
            await no_stop_until_printed(debugger, crash, "^done launch-crash$")
            await debugger.remove_breakpoint(bp.breakpoint_id)
            mark = len(crash.lines)
            crash.send("launch-crash")
            await no_stop_until_printed(debugger, crash, "^done launch-crash$")
            await printed(crash, "launch crashed at 41", after=mark)
            # Set again once coroutines are loaded: the watch is made at once.
            await debugger.set_exception_breakpoint()
            crash.send("deep-crash")
            stop = await next_stop(debugger)
            assert at(stop) == (FACADE, "failDeep", coroutine_mark("ktc-throw-deep"))
            await debugger.resume(stop.stop_id)
            await no_stop_until_printed(debugger, crash, "^done deep-crash$")


async def test_a_stdlib_coroutine_that_crashes_stops_at_its_throw(crash: Debuggee) -> None:
    with trio.fail_after(90):
        async with engine(crash) as debugger:
            await debugger.set_exception_breakpoint()
            crash.send("stdlib-crash")
            stop = await next_stop(debugger)
            assert stop.thread_name == "resumer"  # resumed there: the throw is in that thread
            assert at(stop)[1:] == ("invokeSuspend", coroutine_mark("ktc-throw-stdlib"))
            assert stop.exception.type == "java.lang.ArithmeticException" and stop.exception.crashes_coroutine
            await debugger.resume(stop.stop_id)
            # Its completion puts the failure in a queue; the "stdlib" thread's getOrThrow throws it again.
            await no_stop_until_printed(debugger, crash, "^done stdlib-crash$")

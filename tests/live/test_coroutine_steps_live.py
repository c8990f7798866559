"""Steps that follow the coroutine (DESIGN.md §8.4), against OpenJDK 17 running kotlinc-built fixtures on Debian's
kotlinx-coroutines 1.0.1 (``fixtures/coroutines/.../ktcrash/Crash.kt``, its ``quote`` command).

A step over a suspension point (``delay``, ``withContext``, ``await``) stops on the next line of the same
coroutine, on whatever thread resumes it; a step over a suspend function's last line goes on in the coroutine
that awaited it; a step out of a suspend function returns to its awaiting coroutine; no stop is ever in
``invokeSuspend`` without a line, nor in kotlinx's dispatchers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio

import jdwp
from jdwp.debugger import Debugger, Stop, open_debugger
from jdwp.debugger.model import StepKind
from support.coroutines import compile_coroutines, coroutine_mark, coroutines_classpath
from support.jvm import Debuggee, debuggees
from support.live import require_tool
from support.stops import next_stop

pytestmark = pytest.mark.live

MAIN = "com.example.ktcrash.CrashKt"
FILE = "Crash.kt"


@pytest.fixture(scope="module")
def coroutine_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_coroutines(tmp_path_factory.mktemp("coroutine-classes"), kotlinc=require_tool("kotlinc"))


@pytest.fixture
def crash(coroutine_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(coroutines_classpath(coroutine_classes), MAIN, java=require_tool("java"))


@asynccontextmanager
async def engine(debuggee: Debuggee) -> AsyncIterator[Debugger]:
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        yield debugger


def place(stop: Stop) -> tuple[str, int | None]:
    assert stop.location is not None
    return stop.location.method, stop.location.line


async def stepped(debugger: Debugger, stop: Stop, kind: StepKind) -> Stop:
    """Step the stop's thread and return the next stop, which must be that step's, on a line."""
    await debugger.step(stop.stop_id, stop.thread_id, kind)
    landed = await next_stop(debugger)
    assert landed.reason == "step" and landed.location is not None, landed
    assert landed.location.line is not None, f"a stop with line null: {landed.location}"
    assert not landed.location.class_name.startswith(("kotlinx.", "kotlin.")), landed.location
    return landed


async def test_steps_over_delay_with_context_await_and_a_last_line_stay_in_the_coroutine(crash: Debuggee) -> None:
    with trio.fail_after(120):
        async with engine(crash) as debugger:
            await debugger.set_breakpoint(file=FILE, line=coroutine_mark("ktc-base-delay"))
            crash.send("quote")
            stop = await next_stop(debugger)
            assert place(stop) == ("fetchBase", coroutine_mark("ktc-base-delay"))
            # delay(5) suspends fetchBase; a worker of Dispatchers.Default resumes it.
            stop = await stepped(debugger, stop, "over")
            assert place(stop) == ("fetchBase", coroutine_mark("ktc-base-after"))
            stop = await stepped(debugger, stop, "over")
            assert place(stop) == ("fetchBase", coroutine_mark("ktc-base-after") + 1)
            # fetchBase returns into the resumeWith loop that resumed it, which resumes fetchPrice next.
            stop = await stepped(debugger, stop, "over")
            assert place(stop) == ("fetchPrice", coroutine_mark("ktc-price-return"))
            # The case: `return base + 1` lands in quote, not in $fetchPrice$1.invokeSuspend (line null)
            # and then in DispatchedTask.run.
            stop = await stepped(debugger, stop, "over")
            assert place(stop) == ("quote", coroutine_mark("ktc-quote-with"))
            # withContext(Dispatchers.IO) suspends quote until its block has run on an IO thread.
            stop = await stepped(debugger, stop, "over")
            assert place(stop) == ("quote", coroutine_mark("ktc-quote-async"))
            stop = await stepped(debugger, stop, "over")
            assert place(stop) == ("quote", coroutine_mark("ktc-quote-await"))
            stop = await stepped(debugger, stop, "over")  # await: suspends unless the async is done already
            assert place(stop) == ("quote", coroutine_mark("ktc-quote-end"))
            assert not stop.pending_steps
            await debugger.resume(stop.stop_id)
            await trio.to_thread.run_sync(lambda: crash.wait_for_line("^quoted 145$", timeout=30))


async def test_step_out_of_a_resumed_suspend_function_returns_to_the_awaiting_coroutine(crash: Debuggee) -> None:
    with trio.fail_after(120):
        async with engine(crash) as debugger:
            await debugger.set_breakpoint(file=FILE, line=coroutine_mark("ktc-base-after"))
            crash.send("quote")
            stop = await next_stop(debugger)
            assert place(stop) == ("fetchBase", coroutine_mark("ktc-base-after"))
            stop = await stepped(debugger, stop, "out")
            assert place(stop) == ("fetchPrice", coroutine_mark("ktc-price-return"))
            stop = await stepped(debugger, stop, "out")
            assert place(stop) == ("quote", coroutine_mark("ktc-quote-with"))
            await debugger.resume(stop.stop_id)
            await trio.to_thread.run_sync(lambda: crash.wait_for_line("^quoted 145$", timeout=30))


async def test_a_step_over_a_suspension_in_a_launched_lambda_follows_it(crash: Debuggee) -> None:
    with trio.fail_after(120):
        async with engine(crash) as debugger:
            await debugger.set_breakpoint(file=FILE, line=coroutine_mark("ktc-blocking-delay"))
            crash.send("blocking-crash")
            stop = await next_stop(debugger)
            assert place(stop) == ("invokeSuspend", coroutine_mark("ktc-blocking-delay"))
            stop = await stepped(debugger, stop, "over")
            assert place(stop) == ("invokeSuspend", coroutine_mark("ktc-throw-blocking"))
            await debugger.resume(stop.stop_id)
            await trio.to_thread.run_sync(lambda: crash.wait_for_line("^done blocking-crash$", timeout=30))


async def test_a_step_into_a_suspending_call_comes_back_as_a_step_over_it(crash: Debuggee) -> None:
    with trio.fail_after(120):
        async with engine(crash) as debugger:
            await debugger.set_breakpoint(file=FILE, line=coroutine_mark("ktc-price-call"))
            crash.send("quote")
            stop = await next_stop(debugger)
            assert place(stop) == ("fetchPrice", coroutine_mark("ktc-price-call"))
            # Into a suspend function of the app: its first line, as for any Kotlin function.
            stop = await stepped(debugger, stop, "into")
            assert place(stop) == ("fetchBase", coroutine_mark("ktc-base-delay") - 1)
            stop = await stepped(debugger, stop, "over")
            assert place(stop) == ("fetchBase", coroutine_mark("ktc-base-delay"))
            # Into delay (kotlinx: filtered), which suspends: the next line once fetchBase resumes.
            stop = await stepped(debugger, stop, "into")
            assert place(stop) == ("fetchBase", coroutine_mark("ktc-base-after"))
            await debugger.resume(stop.stop_id)
            await trio.to_thread.run_sync(lambda: crash.wait_for_line("^quoted 145$", timeout=30))


async def test_a_step_over_the_last_line_of_a_suspend_call_that_did_not_suspend_goes_on_in_its_caller(
        crash: Debuggee) -> None:
    with trio.fail_after(120):
        async with engine(crash) as debugger:
            await debugger.set_breakpoint(file=FILE, line=coroutine_mark("ktc-now-return"))
            crash.send("now")
            stop = await next_stop(debugger)
            assert place(stop) == ("fetchNow", coroutine_mark("ktc-now-return"))
            stop = await stepped(debugger, stop, "over")
            assert place(stop) == ("priceNow", coroutine_mark("ktc-now-after"))
            await debugger.resume(stop.stop_id)
            await trio.to_thread.run_sync(lambda: crash.wait_for_line("^now 4$", timeout=30))

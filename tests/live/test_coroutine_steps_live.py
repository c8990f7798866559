"""Steps that follow the coroutine (docs/design.md §3.11), against OpenJDK 17 running kotlinc-built fixtures on Debian's
kotlinx-coroutines 1.0.1 (``fixtures/coroutines/.../ktcrash/Crash.kt``, its ``quote`` command).

A step over a suspension point (``delay``, ``withContext``, ``await``) stops on the next line of the same
coroutine, on whatever thread resumes it; a step over a suspend function's last line goes on in the coroutine
that awaited it; a step out of a suspend function returns to its awaiting coroutine; no stop is ever in
``invokeSuspend`` without a line, nor in kotlinx's dispatchers.

A step tells a suspension from a return by the value its frame returned (``COROUTINE_SUSPENDED``); the tests
that take ``return_values`` also run as on a VM that sends none (an exit by a throw never has one), where kotlinc's
prologue lines and the state machine's ``label`` tell instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from jdwp.debugger import Debugger, Stop
from jdwp.debugger.classes.capabilities import Capabilities, VmCapabilities
from jdwp.debugger.model import StepKind
from support.coroutines import compile_coroutines, coroutine_mark, coroutines_classpath
from support.engines import engine
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


@pytest.fixture(params=["sent", "not sent"])
def return_values(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The engine as the VM is (``sent``), or as on one that sends no method return values (JDWP before 1.6)."""
    if request.param == "not sent":
        learn = VmCapabilities._learn

        def without(self: VmCapabilities, *answers: object) -> Capabilities:
            self._known = dataclasses.replace(learn(self, *answers), method_return_values=False)  # type: ignore[arg-type]
            return self._known

        monkeypatch.setattr(VmCapabilities, "_learn", without)
    return str(request.param)


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


Move = tuple[StepKind, str, str | int]  # a step, then the method and the line (a mark, or a line number) it stops at


async def walk(crash: Debuggee, start: str, command: str, moves: list[Move], done: str, file: str = FILE,
               last_thread: str | None = None) -> None:
    """Stop at the line marked ``start`` while ``command`` runs, make each move in turn (the last one's stop in
    ``last_thread`` when given), then let the program finish (it prints ``done``)."""
    with trio.fail_after(120):
        async with engine(crash) as debugger:
            await debugger.set_breakpoint(file=file, line=coroutine_mark(start))
            crash.send(command)
            stop = await next_stop(debugger)
            assert stop.location is not None and stop.location.line == coroutine_mark(start)
            for kind, method, line in moves:
                stop = await stepped(debugger, stop, kind)
                assert place(stop) == (method, coroutine_mark(line) if isinstance(line, str) else line), (kind, line)
            assert not stop.pending_steps
            assert last_thread is None or stop.thread_name == last_thread
            await debugger.resume(stop.stop_id)
            await trio.to_thread.run_sync(lambda: crash.wait_for_line(done, timeout=30))


async def test_steps_over_delay_with_context_await_and_a_last_line_stay_in_the_coroutine(
        crash: Debuggee, return_values: str) -> None:
    await walk(crash, "ktc-base-delay", "quote", [
        ("over", "fetchBase", "ktc-base-after"),  # delay(5) suspends fetchBase; a Default worker resumes it
        ("over", "fetchBase", coroutine_mark("ktc-base-after") + 1),
        # fetchBase returns into the resumeWith loop that resumed it, which resumes fetchPrice next
        ("over", "fetchPrice", "ktc-price-return"),
        # the case: `return base + 1` lands in quote, not in $fetchPrice$1.invokeSuspend (line null) and
        # then in DispatchedTask.run
        ("over", "quote", "ktc-quote-with"),
        ("over", "quote", "ktc-quote-async"),  # withContext(Dispatchers.IO) suspends quote until its block ran
        ("over", "quote", "ktc-quote-await"),
        ("over", "quote", "ktc-quote-end"),  # await: suspends unless the async is done already
    ], "^quoted 145$")


async def test_step_out_of_a_resumed_suspend_function_returns_to_the_awaiting_coroutine(
        crash: Debuggee, return_values: str) -> None:
    await walk(crash, "ktc-base-after", "quote", [("out", "fetchPrice", "ktc-price-return"),
                                                  ("out", "quote", "ktc-quote-with")], "^quoted 145$")


async def test_a_step_over_a_suspension_in_a_launched_lambda_follows_it(crash: Debuggee, return_values: str) -> None:
    await walk(crash, "ktc-blocking-delay", "blocking-crash", [("over", "invokeSuspend", "ktc-throw-blocking")],
               "^done blocking-crash$")


async def test_a_step_into_a_suspending_call_comes_back_as_a_step_over_it(crash: Debuggee, return_values: str) -> None:
    await walk(crash, "ktc-price-call", "quote", [
        ("into", "fetchBase", coroutine_mark("ktc-base-delay") - 1),  # an app suspend function: its first line
        ("over", "fetchBase", "ktc-base-delay"),
        ("into", "fetchBase", "ktc-base-after"),  # into delay (kotlinx: filtered), which suspends
    ], "^quoted 145$")


async def test_a_step_over_the_last_line_of_a_suspend_call_that_did_not_suspend_goes_on_in_its_caller(
        crash: Debuggee, return_values: str) -> None:
    await walk(crash, "ktc-now-return", "now", [("over", "priceNow", "ktc-now-after")], "^now 4$")


@pytest.mark.parametrize("command", ["stdlib-step", "stdlib-step-late"])
async def test_a_stdlib_coroutine_resumed_by_a_thread_of_its_own_is_followed_there(crash: Debuggee,
                                                                                    command: str) -> None:
    # stdlib-step-late: the stepping thread returns out of the one-line suspend lambda (its suspended return is
    # on the line of its call: no landing there) into startStdlib's code well before the coroutine resumes
    await walk(crash, "ktc-stdlib-suspend", command, [("over", "stdlibWork", "ktc-stdlib-after")],
               "^stdlib got 6$", file="Stdlib.kt", last_thread="resumer")


async def test_a_step_that_waits_for_a_cancelled_coroutine_makes_no_stop_and_detach_leaves_nothing(
        crash: Debuggee) -> None:
    with trio.fail_after(120):
        async with engine(crash) as debugger:
            await debugger.set_breakpoint(file=FILE, line=coroutine_mark("ktc-cancel-delay"))
            crash.send("cancel")
            stop = await next_stop(debugger)
            await debugger.step(stop.stop_id, stop.thread_id, "over")  # delay(60_000): cancelled after 50 ms
            await trio.to_thread.run_sync(lambda: crash.wait_for_line("^done cancel$", timeout=30))
            cleanup = await debugger.detach()
            assert cleanup.status == "complete" and cleanup.execution_state == "running"
        mark = len(crash.lines)
        crash.send("quote")  # nothing of the session is left in the VM: the program runs through
        await trio.to_thread.run_sync(lambda: crash.wait_for_line("^quoted 145$", after=mark, timeout=30))

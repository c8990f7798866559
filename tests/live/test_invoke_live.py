"""Method calls in expressions (``--allow-invoke``) on a real OpenJDK 17 debuggee (``Invokable``).

Every method of the debuggee prints "APP CODE RAN": without invocation allowed nothing prints; with it,
overloads are chosen by the arguments' runtime types, a thrown exception is the result, a method that
blocks past the 2 s deadline leaves the VM resumable (and detachable, running), and a thread that no event
suspended is refused by the VM with a clear error.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import Debugger, EvaluationFailed, open_debugger
from jdwp.debugger.reading.invoke import Calls
from jdwp.protocol.constants import Tag
from jdwp.protocol.types import ReferenceTypeId
from jdwp.protocol.values import Value
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool
from support.stops import next_stop

INVOKABLE = "com.example.debuggee.Invokable"


@pytest.fixture
def invokable(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, INVOKABLE, java=require_tool("java"))


@asynccontextmanager
async def stopped(debuggee: Debuggee, allow: bool) -> AsyncIterator[tuple[Debugger, Any, str]]:
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        debugger.allow_invoke = allow
        await debugger.set_breakpoint(INVOKABLE, find_mark("invoke")[1])
        stop = await next_stop(debugger)
        frame = (await debugger.stack(stop.stop_id, stop.thread_id, limit=1)).frames[0]
        yield debugger, stop, frame.frame_id


async def wait_line(debuggee: Debuggee, pattern: str, after: int, timeout: float = 10.0) -> None:
    await trio.to_thread.run_sync(partial(debuggee.wait_for_line, pattern, after=after, timeout=timeout))


def app_ran(debuggee: Debuggee, since: int) -> list[str]:
    return [line for line in debuggee.lines[since:] if "APP CODE RAN" in line]


async def test_no_app_code_runs_without_invocation_allowed(invokable: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped(invokable, allow=False) as (debugger, stop, frame):
            before = len(invokable.lines)
            for text in ("plus(2)", "this.greet(\"x\")", "Invokable.twice(3)"):
                with pytest.raises(EvaluationFailed, match="--allow-invoke"):
                    await debugger.evaluate(stop.stop_id, frame, text)
            assert (await debugger.evaluate(stop.stop_id, frame, "base + 2")).value == "42"
            assert app_ran(invokable, before) == []
            await debugger.resume(stop.stop_id)


async def test_calls_choose_overloads_and_an_exception_is_the_result(invokable: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped(invokable, allow=True) as (debugger, stop, frame):
            before = len(invokable.lines)

            async def value(text: str) -> Any:
                return await debugger.evaluate(stop.stop_id, frame, text)

            assert (await value("plus(2)")).value == "42"
            assert (await value("this.plus(2L)")).value == "1042"
            assert (await value("plus('a')")).value == "137"  # char widens to int before long
            assert (await value("greet(\"x\")")).value == "hi x"  # String is more specific than Object
            greeted = await value("greet(this)")
            assert (greeted.value, greeted.runtime_type) == ("object", "java.lang.String")
            assert (await value("Invokable.twice(21) + 1")).value == "43"
            assert (await value("nothing()")).kind == "void"
            with pytest.raises(EvaluationFailed, match="ambiguous"):
                await value("pick(\"a\", \"b\")")
            with pytest.raises(EvaluationFailed, match="no method plus"):
                await value("plus(true)")
            thrown = await value("fail()")
            assert thrown.thrown is not None and thrown.kind == "object"
            assert (thrown.thrown.type, thrown.thrown.message) == ("java.lang.IllegalStateException",
                                                                   "broken on purpose")
            assert thrown.runtime_type == "java.lang.IllegalStateException" and thrown.object_id
            assert app_ran(invokable, before) == [
                "APP CODE RAN: plus(int) 2", "APP CODE RAN: plus(long) 2", "APP CODE RAN: plus(int) 97",
                "APP CODE RAN: greet(String)", "APP CODE RAN: greet(Object)", "APP CODE RAN: twice",
                "APP CODE RAN: nothing", "APP CODE RAN: fail"]
            # The thread ran methods: its frames were read again, so the frame ID still works.
            assert (await debugger.locals(stop.stop_id, frame)).this is not None
            assert (await value("round + base")).kind == "primitive"
            await debugger.resume(stop.stop_id)
            again = await next_stop(debugger)  # the VM runs on and stops again
            await debugger.resume(again.stop_id)


async def test_a_method_blocking_past_the_deadline_leaves_the_vm_resumable(invokable: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped(invokable, allow=True) as (debugger, stop, frame):
            before = len(invokable.lines)
            started = trio.current_time()
            with pytest.raises(EvaluationFailed, match="did not return within 2 s"):
                await debugger.evaluate(stop.stop_id, frame, "Invokable.slow()")
            assert trio.current_time() - started < 3
            with pytest.raises(EvaluationFailed, match="still running on this thread"):
                await debugger.evaluate(stop.stop_id, frame, "plus(1)")
            await debugger.resume(stop.stop_id)  # while slow() still sleeps
            await wait_line(invokable, "APP CODE RAN: slow end", before)
            again = await next_stop(debugger)  # the thread was released when slow() returned: it runs on
            assert again.thread_name == "main"
            await debugger.resume(again.stop_id)


async def test_detach_during_a_blocked_call_leaves_the_vm_running(invokable: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped(invokable, allow=True) as (debugger, stop, frame):
            before = len(invokable.lines)
            with pytest.raises(EvaluationFailed, match="did not return"):
                await debugger.evaluate(stop.stop_id, frame, "Invokable.slow()")
            cleanup = await debugger.detach()
            assert cleanup.status == "complete"
        await wait_line(invokable, "APP CODE RAN: slow end", before)
        ended = len(invokable.lines)
        await wait_line(invokable, r"^round \d+", ended)  # the main thread loops again
        await wait_line(invokable, r"^round \d+", len(invokable.lines))


async def test_a_thread_no_event_suspended_is_refused(invokable: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped(invokable, allow=True) as (debugger, stop, frame):
            vm = debugger.vm
            threads = await vm.all_threads()
            names = [await vm.thread_reference.name(t) for t in threads]
            idler = threads[names.index("idler")]
            (ref,) = await vm.classes_by_signature("Lcom/example/debuggee/Invokable;")
            method = next(m for m in await vm.reference_type.methods(ReferenceTypeId(ref.type_id))
                          if m.name == "twice")
            calls: Calls = debugger._session.calls
            before = len(invokable.lines)
            with pytest.raises(EvaluationFailed, match="suspended by an event"):
                await calls.invoke(stop.stop_id, idler, ReferenceTypeId(ref.type_id), method, None,
                                   [Value(Tag.INT, 1)])
            assert app_ran(invokable, before) == []
            assert (await debugger.evaluate(stop.stop_id, frame, "Invokable.twice(2)")).value == "4"
            await debugger.resume(stop.stop_id)

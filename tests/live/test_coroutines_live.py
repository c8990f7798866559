"""Async stacks of coroutines (docs/design.md §3.11, issue 25), through the engine, on OpenJDK 17 running the
``ktcoroutines`` fixture (kotlinc 1.3, Debian's kotlinx-coroutines 1.0.1).

Each test stops on a line of suspend code after it resumed from a suspension, reads the stack's
``async_frames`` (the continuation chain and the coroutine) and the continuation as an object, with the three
metadata sources: none (raw ``L$0`` names, ``line`` null), the fixture's class files on the host
(``class_path``) and ``invoke`` (the stdlib's ``DebugMetadataKt`` run in the VM). ``Secret`` and ``Done`` print
"APP CODE RAN" if any of their methods runs: without invocation nothing may.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from jdwp.debugger import AsyncStack, ClassPath, Debugger, Stop
from jdwp.debugger.reading.async_stacks import MAX_CHAIN
from support import stops
from support.engines import engine
from support.jvm import COROUTINE_JARS, Debuggee, coroutine_classpath, debuggees, find_mark
from support.live import require_tool, unavailable

APP = "com.example.ktcoroutines.CoroutinesKt"
FILE = "Coroutines.kt"
KT = "com.example.ktcoroutines.CoroutinesKt"


def line(mark: str) -> int:
    return find_mark(mark)[1]


LEAF_DELAY = line("ktc-leaf") - 2  # `delay(2)`: where leaf last suspended
MIDDLE_CALL = line("ktc-leaf") + 5  # `val got = leaf(start)`
OUTER_CALL = line("ktc-leaf") + 11  # `val total = middle(prefix)`


@pytest.fixture
def coroutines_app(kotlin_classes: Path) -> Iterator[Debuggee]:
    if not all(jar.is_file() for jar in COROUTINE_JARS):
        unavailable(f"kotlinx-coroutines is not at {COROUTINE_JARS} (Debian's libkotlinx-coroutines-java)")
    yield from debuggees(coroutine_classpath(kotlin_classes), APP, java=require_tool("java"))


def tattles(debuggee: Debuggee, since: int) -> list[str]:
    return [text for text in debuggee.lines[since:] if "APP CODE RAN" in text]


def invocations(debugger: Debugger) -> list[str]:
    """The names of the ``*.InvokeMethod`` commands the engine sends from now on (a spy on its client)."""
    sent: list[str] = []
    original = debugger.vm.request

    async def request(command: Any, *args: Any, **fields: Any) -> Any:
        if command.name.endswith("InvokeMethod"):
            sent.append(command.name)
        return await original(command, *args, **fields)

    debugger.vm.request = request  # type: ignore[method-assign]
    return sent


async def stop_at(debugger: Debugger, mark: str) -> Stop:
    bp = await debugger.set_breakpoint(file=FILE, line=line(mark))
    stop = await stops.next_stop(debugger)
    assert stop.breakpoint_ids == (bp.breakpoint_id,), stop
    await debugger.remove_breakpoint(bp.breakpoint_id)
    return stop


async def async_stack(debugger: Debugger, stop: Stop) -> AsyncStack:
    page = await debugger.stack(stop.stop_id, stop.thread_id)
    assert page.async_frames is not None, page
    return page.async_frames


def spilled(frame: object) -> dict[str, tuple[str, str | None]]:
    return {s.name: (s.field, s.value) for s in frame.spilled}  # type: ignore[attr-defined]


async def test_launch_chain_without_metadata(coroutines_app: Debuggee) -> None:
    """Three suspend calls deep in a `launch`: the continuations from leaf's up to the launch lambda, the
    coroutine named "worker"; no metadata, so raw field names and null lines; no app code runs."""
    with trio.fail_after(60):
        async with engine(coroutines_app) as debugger:
            since = len(coroutines_app.lines)
            invoked = invocations(debugger)
            stop = await stop_at(debugger, "ktc-leaf")
            found = await async_stack(debugger, stop)
            assert found.metadata == "none" and not found.truncated and found.note is None
            classes = [f.continuation for f in found.frames]
            assert classes == [f"{KT}$leaf$1", f"{KT}$middle$1", f"{KT}$outer$1", f"{KT}$kotlinxLoop$1$job$1"], found
            assert all(f.line is None and f.metadata == "none" and f.source == FILE for f in found.frames)
            leaf = found.frames[0]
            assert leaf.label == 1 and leaf.method == "invokeSuspend"
            assert [s.name for s in leaf.spilled] == ["I$0", "I$1", "L$0"]
            assert leaf.spilled[2].runtime_type == "com.example.ktcoroutines.Secret"
            assert found.coroutine is not None and found.coroutine.name == "worker"
            assert found.coroutine.class_name == "kotlinx.coroutines.StandaloneCoroutine"
            page = await debugger.object(stop.stop_id, leaf.object_id)
            assert page.continuation is not None and page.continuation.label == 1
            assert [s.field for s in page.continuation.spilled] == ["I$0", "I$1", "L$0"]
            await debugger.resume(stop.stop_id)
            assert tattles(coroutines_app, since) == [] and invoked == []


async def test_launch_chain_with_class_path(coroutines_app: Debuggee, kotlin_classes: Path) -> None:
    """The fixture's class files on the host name each continuation's function, line and variables."""
    with trio.fail_after(60):
        async with engine(coroutines_app) as debugger:
            debugger.coroutines.class_path = ClassPath((kotlin_classes,))
            since = len(coroutines_app.lines)
            invoked = invocations(debugger)
            stop = await stop_at(debugger, "ktc-leaf")
            found = await async_stack(debugger, stop)
            assert found.metadata == "class_path"
            shown = [(f.class_name, f.method, f.source, f.line, f.metadata) for f in found.frames[:3]]
            assert shown == [(KT, "leaf", FILE, LEAF_DELAY, "class_path"),
                             (KT, "middle", FILE, MIDDLE_CALL, "class_path"),
                             (KT, "outer", FILE, OUTER_CALL, "class_path")], shown
            leaf, middle, outer = found.frames[:3]
            assert [(s.name, s.field) for s in leaf.spilled] == [("seed", "I$0"), ("doubled", "I$1"), ("secret", "L$0")]
            seed = int(spilled(leaf)["seed"][1] or "")
            assert spilled(leaf)["doubled"][1] == str(seed * 2)
            assert spilled(middle)["start"][1] == str(seed)  # middle passed start to leaf
            assert spilled(outer)["tag"][1] is not None and spilled(outer)["tag"][1].startswith("round")
            page = await debugger.object(stop.stop_id, middle.object_id)
            assert page.continuation is not None and page.continuation.method == "middle"
            assert {s.name for s in page.continuation.spilled} >= {"start"}
            await debugger.resume(stop.stop_id)
            assert tattles(coroutines_app, since) == [] and invoked == []


async def test_with_context_unwraps_the_scope(coroutines_app: Debuggee, kotlin_classes: Path) -> None:
    """Inside `withContext(Dispatchers.Default)` of an `async`: the block's continuation, then (through the
    DispatchedCoroutine's uCont) viaContext's, then the async lambda; the coroutine is "asyncer"."""
    with trio.fail_after(60):
        async with engine(coroutines_app) as debugger:
            debugger.coroutines.class_path = ClassPath((kotlin_classes,))
            stop = await stop_at(debugger, "ktc-context")
            found = await async_stack(debugger, stop)
            assert [f.continuation for f in found.frames] == [f"{KT}$viaContext$inside$1", f"{KT}$viaContext$1",
                                                              f"{KT}$kotlinxLoop$1$deferred$1"], found
            assert found.frames[1].method == "viaContext" and "before" in spilled(found.frames[1])
            assert found.coroutine is not None and found.coroutine.name == "asyncer"
            assert found.coroutine.class_name == "kotlinx.coroutines.DeferredCoroutine"
            await debugger.resume(stop.stop_id)


async def test_stdlib_only_coroutine(coroutines_app: Debuggee, kotlin_classes: Path) -> None:
    """createCoroutine + suspendCoroutine resumed by the fixture's own queue: the chain ends at `Done`."""
    with trio.fail_after(60):
        async with engine(coroutines_app) as debugger:
            debugger.coroutines.class_path = ClassPath((kotlin_classes,))
            since = len(coroutines_app.lines)
            stop = await stop_at(debugger, "ktc-plain")
            assert stop.thread_name == "plain-loop"
            found = await async_stack(debugger, stop)
            assert [(f.continuation, f.method) for f in found.frames] == [
                (f"{KT}$plain$1", "plain"), (f"{KT}$plainLoop$block$1", "invokeSuspend")], found
            assert found.frames[0].line == line("ktc-plain") - 1 and "before" in spilled(found.frames[0])
            assert found.coroutine is not None and found.coroutine.class_name == "com.example.ktcoroutines.Done"
            assert found.coroutine.name is None
            await debugger.resume(stop.stop_id)
            assert tattles(coroutines_app, since) == []


async def test_invoked_metadata(coroutines_app: Debuggee) -> None:
    """With invocation allowed, the stdlib's DebugMetadataKt answers (no class path given); it runs stdlib
    code only, never the app's."""
    with trio.fail_after(60):
        async with engine(coroutines_app) as debugger:
            debugger.allow_invoke = True
            since = len(coroutines_app.lines)
            invoked = invocations(debugger)
            stop = await stop_at(debugger, "ktc-leaf")
            found = await async_stack(debugger, stop)
            assert found.metadata == "invoke" and found.note is None, found
            shown = [(f.class_name, f.method, f.line, f.metadata) for f in found.frames[:3]]
            assert shown == [(KT, "leaf", LEAF_DELAY, "invoke"), (KT, "middle", MIDDLE_CALL, "invoke"),
                             (KT, "outer", OUTER_CALL, "invoke")], shown
            assert [s.name for s in found.frames[0].spilled] == ["seed", "doubled", "secret"]
            # per continuation: its getStackTraceElement(), then DebugMetadataKt.getSpilledVariableFieldMapping
            assert invoked[:2] == ["ObjectReference.InvokeMethod", "ClassType.InvokeMethod"], invoked
            assert len(invoked) == 2 * len(found.frames), invoked
            # the frames were read anew after the calls: the locals of the top frame still read
            page = await debugger.stack(stop.stop_id, stop.thread_id)
            assert (await debugger.locals(stop.stop_id, page.frames[0].frame_id)).availability == "available"
            await debugger.resume(stop.stop_id)
            assert tattles(coroutines_app, since) == []


async def test_hostile_chains_stay_bounded(coroutines_app: Debuggee) -> None:
    """Chains no compiler makes (the fixture links `completion`s by reflection): a cycle of two ends when an
    object comes again, a chain of 70 at the cap of 64; both say truncated and name no coroutine."""
    with trio.fail_after(60):
        async with engine(coroutines_app) as debugger:
            bp = await debugger.set_breakpoint(file=FILE, line=line("ktc-spin"))
            seen: dict[str, AsyncStack] = {}
            while len(seen) < 2:
                stop = await stops.next_stop(debugger)
                if stop.thread_name not in seen:
                    seen[stop.thread_name] = await async_stack(debugger, stop)
                await debugger.resume(stop.stop_id)
            await debugger.remove_breakpoint(bp.breakpoint_id)
            cycle, deep = seen["cycle-loop"], seen["deep-loop"]
            assert len(cycle.frames) == 2 and cycle.truncated and cycle.coroutine is None, cycle
            assert cycle.frames[0].object_id != cycle.frames[1].object_id
            assert len(deep.frames) == MAX_CHAIN and deep.truncated and deep.coroutine is None
            assert len({f.object_id for f in deep.frames}) == MAX_CHAIN

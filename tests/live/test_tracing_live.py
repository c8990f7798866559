"""The library's tracing path and frame arguments against a real JVM (``com.example.debuggee.Shop``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

import jdwp
from jdwp.protocol.constants import Tag
from jdwp.signatures import parse_method_signature
from support.engines import printed
from support.jvm import Debuggee, debuggees
from support.live import require_tool
from support.real_programs import GSON_MAIN, gson_classpath

SHOP = "com.example.debuggee.Shop"


@pytest.fixture
def shop(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, SHOP, java=require_tool("java"))


BUSY_ROUNDS, BUSY_THREADS = 300, 4


@pytest.fixture
def busy_shop(java_classes: Path) -> Iterator[Debuggee]:
    """Four threads calling at once, started suspended: every call is traced from the first."""
    yield from debuggees(java_classes, SHOP, java=require_tool("java"), ready=False, suspend=True,
                         extra_args=(f"-Drounds={BUSY_ROUNDS}", f"-Dthreads={BUSY_THREADS}"))


@pytest.fixture
def shop_nodebug(java_classes_nodebug: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes_nodebug, SHOP, java=require_tool("java"))


@pytest.fixture
def gson_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Debuggee]:
    """``fixtures/gson``'s GsonMain on Debian's Gson, started suspended: its whole run is traced."""
    path = gson_classpath(tmp_path_factory.mktemp("gson"))
    yield from debuggees(path, GSON_MAIN, ready=False, suspend=True, java=require_tool("java"))


async def first_events(port: int, count: int) -> tuple[list[jdwp.TraceEvent], dict[str, int]]:
    events: list[jdwp.TraceEvent] = []
    with trio.fail_after(60):
        async with jdwp.open_jdwp_tcp("127.0.0.1", port) as vm:
            async with jdwp.open_tracer(vm, [SHOP]) as tracer:
                async for event in tracer:
                    events.append(event)
                    if len(events) == count:
                        break
                statistics = tracer.statistics()
            await vm.dispose()
    return events, statistics


async def test_calls_come_with_named_arguments_and_returns_with_values(shop: Debuggee) -> None:
    events, statistics = await first_events(shop.port, 12)
    calls = [e for e in events if e.kind == "call"]
    returns = [e for e in events if e.kind == "return"]
    assert {e.method for e in calls} == {"add", "sell"} and all(e.class_name == SHOP for e in events)
    sell = next(e for e in calls if e.method == "sell")
    assert [(a.name, a.type_name) for a in sell.arguments] == [("item", "java.lang.String"), ("count", "int"),
                                                               ("price", "double")]
    assert sell.arguments[0].value.tag == Tag.STRING and sell.arguments[1].value == jdwp.Value(Tag.INT, 1)
    assert sell.signature == "(Ljava/lang/String;ID)J" and str(sell).startswith(f"→ {SHOP}.sell(item=<string #")
    add_return = next(e for e in returns if e.method == "add")
    assert add_return.value == jdwp.Value(Tag.BOOLEAN, True)
    assert all(e.value is not None and e.value.tag == Tag.LONG for e in returns if e.method == "sell")
    assert statistics["argument_errors"] == 0 and statistics["calls"] == len(calls)
    assert shop.process.poll() is None  # released and running


async def test_without_a_variable_table_arguments_are_named_by_position(shop_nodebug: Debuggee) -> None:
    events, _ = await first_events(shop_nodebug.port, 8)
    sell = next(e for e in events if e.kind == "call" and e.method == "sell")
    assert [(a.name, a.type_name) for a in sell.arguments] == [("arg0", "java.lang.String"), ("arg1", "int"),
                                                               ("arg2", "double")]
    assert sell.arguments[2].value.tag == Tag.DOUBLE and sell.arguments[1].value == jdwp.Value(Tag.INT, 1)


async def test_the_arguments_of_a_frame_deeper_in_the_stack(shop: Debuggee) -> None:
    with trio.fail_after(60):
        async with jdwp.open_jdwp_tcp("127.0.0.1", shop.port) as vm:
            await vm.suspend()
            try:
                for thread in await vm.all_threads():
                    if await vm.thread_reference.name(thread) == "main":
                        frames = await vm.thread_reference.frames(thread)
                        break
                main_frame = frames[-1]  # Shop.main(String[]) at the bottom
                layout = await vm.stack_frame.argument_layout(main_frame.location.class_id,
                                                              main_frame.location.method_id)
                (args,) = await vm.stack_frame.arguments(thread, main_frame)
                status = await vm.thread_reference.status(thread)
            finally:
                await vm.resume()
            await vm.dispose()
    assert (layout.method, layout.static, layout.from_table) == ("main", True, True)
    assert (args.name, args.type_name, args.value.tag) == ("args", "java.lang.String[]", Tag.ARRAY)
    assert status.suspended and status.status in (jdwp.ThreadStatus.SLEEPING, jdwp.ThreadStatus.RUNNING)


async def trace_to_the_end(port: int, *, backlog: int | None = None) -> tuple[list[jdwp.TraceEvent], dict[str, int]]:
    """Every trace event of a run of ``busy_shop``, until the VM exits. With ``backlog``, the reader stops
    reading after the first call of ``sell`` (every method of the run has been seen: the reader takes a
    method's first event itself) until the tracer has held a thread because nobody took its events."""
    events: list[jdwp.TraceEvent] = []
    with trio.fail_after(120):
        async with jdwp.open_jdwp_tcp("127.0.0.1", port) as vm, jdwp.open_tracer(vm, [SHOP]) as tracer:
            await vm.resume()
            async for event in tracer:
                events.append(event)
                if backlog is not None and (event.kind, event.method) == ("call", "sell"):
                    while not tracer.statistics()["backlog_waits"]:
                        await trio.sleep(0.01)  # waits for the tracer to hold a thread (bounded by fail_after)
                    backlog = None
            statistics = tracer.statistics()
    return events, statistics


def assert_each_thread_nests(events: list[jdwp.TraceEvent]) -> None:
    """Per thread, every call is followed by its own return, with the arguments the program passed."""
    by_thread: dict[int, list[jdwp.TraceEvent]] = {}
    for event in events:
        by_thread.setdefault(event.thread, []).append(event)
    stalls = [seen for seen in by_thread.values() if len(seen) == 4 * BUSY_ROUNDS]
    assert len(stalls) == BUSY_THREADS, {thread: len(seen) for thread, seen in by_thread.items()}
    for seen in stalls:
        for i in range(0, len(seen), 2):
            call, ret = seen[i], seen[i + 1]
            assert (call.kind, ret.kind, call.method) == ("call", "return", ret.method)
            count = call.arguments[1].value.value
            round_ = i // 4
            assert count == (1 + round_ % 4 if call.method == "add" else 1), (i, call)


async def test_threads_calling_at_once_are_traced_each_in_its_own_order(busy_shop: Debuggee) -> None:
    """The tracer answers entries in the connection's reader (jdwp/tracing.py): threads' events interleave, each
    thread's calls and returns nest, and every entry's arguments are its own."""
    events, statistics = await trace_to_the_end(busy_shop.port)
    assert_each_thread_nests(events)
    assert statistics["argument_errors"] == 0 and statistics["resume_errors"] == 0
    assert statistics["calls"] == sum(event.kind == "call" for event in events)


async def test_a_reader_that_falls_behind_holds_the_traced_threads_and_loses_nothing(
        busy_shop: Debuggee, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``Tracer.BACKLOG`` untaken events, entries keep their threads suspended until the reader catches up:
    the program waits for the reader, memory stays bounded, and every call is still traced."""
    monkeypatch.setattr(jdwp.Tracer, "BACKLOG", 40)
    events, statistics = await trace_to_the_end(busy_shop.port, backlog=40)
    assert statistics["backlog_waits"] > 0
    assert_each_thread_nests(events)
    assert statistics["calls"] == sum(event.kind == "call" for event in events)


async def test_threads_held_for_the_backlog_are_let_go_when_the_tracer_ends(
        busy_shop: Debuggee, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader that leaves the tracer's block while threads wait for it to catch up: they run on."""
    monkeypatch.setattr(jdwp.Tracer, "BACKLOG", 40)
    with trio.fail_after(120):
        async with jdwp.open_jdwp_tcp("127.0.0.1", busy_shop.port) as vm:
            async with jdwp.open_tracer(vm, [SHOP]) as tracer:
                await vm.resume()
                async for event in tracer:
                    if (event.kind, event.method) == ("call", "sell"):
                        break
                while not tracer.statistics()["backlog_waits"]:
                    await trio.sleep(0.01)  # waits for the tracer to hold a thread (bounded by fail_after)
            await printed(busy_shop, f"^done {BUSY_THREADS} stalls$")  # every held thread was let go
            late = [event async for event in tracer]  # what was finished before the end, then no wait
            assert all(event.kind in ("call", "return") for event in late)


async def test_a_real_librarys_calls_each_come_with_their_arguments(gson_app: Debuggee) -> None:
    """Gson's ``JsonReader`` through GsonMain's run: methods with arguments (``push(int)``, ``fillBuffer(int)``,
    ``nextNonWhitespace(boolean)``…) called between methods without (``peek()``, ``nextName()``…), whose
    threads are let go unread. Each release moves the thread's frame generation, read or not; a guess that
    missed one would be refused after its thread ran on (the release goes out with the read) and lose that
    call's arguments, as one call in fourteen did on Derby's ``EmbedPreparedStatement``."""
    events: list[jdwp.TraceEvent] = []
    with trio.fail_after(120):
        async with jdwp.open_jdwp_tcp("127.0.0.1", gson_app.port) as vm, jdwp.open_tracer(
                vm, ["com.google.gson.stream.JsonReader"]) as tracer:
            await vm.resume()
            async for event in tracer:  # to the program's end
                events.append(event)
            statistics = tracer.statistics()
    calls = [e for e in events if e.kind == "call"]
    assert statistics["argument_errors"] == 0 and statistics["calls"] == len(calls) > 200
    assert [e for e in calls if len(e.arguments) != len(parse_method_signature(e.signature).parameters)] == []
    read = {e.method for e in calls if e.arguments}
    unread = {e.method for e in calls if not e.arguments}
    assert {"push", "fillBuffer"} <= read and {"peek", "nextName"} <= unread, (read, unread)
    depth = 0
    for event in events:  # one thread: calls and returns nest
        depth += 1 if event.kind == "call" else -1
        assert depth >= 0

"""Previews against real OpenJDK 17 debuggees (docs/design.md §3.7): every object and array summary carries a
one-line ``preview`` read from fields — plain objects, records and Kotlin data classes by their first fields,
containers by their size, boxes and enums by value — without running app code, at a cost that does not grow
with the number of objects shown.

Java: ``fixtures/java/.../Carts.java`` (``Loud.toString()`` prints "APP CODE RAN": it must never print).
Kotlin: ``fixtures/kotlin/com/example/ktvalues`` (a data class ``Person`` holding a ``Place``, and Kotlin's
collection builders).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import BreakpointVerified, Debugger, InvalidArgument, Stopped, open_debugger
from jdwp.debugger.reading.previews import MAX_PREVIEW
from support.jvm import Debuggee, debuggees, find_mark, kotlin_classpath
from support.live import require_tool

CARTS = "com.example.debuggee.Carts"
KT = "com.example.ktvalues"


@pytest.fixture
def carts(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, CARTS, java=require_tool("java"))


@pytest.fixture
def values_app(kotlin_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(kotlin_classpath(kotlin_classes), f"{KT}.ValuesKt", java=require_tool("java"))


@asynccontextmanager
async def stopped(debuggee: Debuggee, mark: str, **where: Any) -> AsyncIterator[tuple[Debugger, Any, dict[str, Any]]]:
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        bp = await debugger.set_breakpoint(**where, line=find_mark(mark)[1])
        assert bp.status == "verified", bp.reason
        event = await debugger.events.receive()
        while isinstance(event, BreakpointVerified):
            event = await debugger.events.receive()
        assert isinstance(event, Stopped), event
        stop = event.stop
        page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
        result = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
        yield debugger, stop, {local.name: local for local in result.locals}
        await debugger.resume(stop.stop_id)


async def test_java_objects_containers_boxes_and_arrays_have_previews(carts: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped(carts, "carts-look", class_name=CARTS) as (_, _, by_name):
            preview = {name: local.preview for name, local in by_name.items()}
            assert preview["item"] == 'Item(sku="voucher", priceCents=-500, qty=1)'
            assert preview["account"] == 'Account(name="alice", balance=961)'
            assert preview["point"] == "Point(x=3, y=-4)"  # a record, by its components' fields
            assert preview["status"] == "OPEN" and preview["boxed"] == "42"
            assert preview["order"] == 'Order(buyer=Account(…), item=Item(…), status=OPEN, lines=ArrayList(…))'
            assert preview["lines"] == "ArrayList(size=4)"
            assert preview["stock"] == "HashMap(size=3)"
            assert preview["fixed"] == "ArrayList(size=2)"  # Arrays$ArrayList, by its array's length
            assert preview["sorted"] == "TreeMap(size=3)"
            assert preview["linked"] == "LinkedList(size=5)"
            assert preview["set"] == "HashSet(size=2)"
            assert preview["frozen"] == "UnmodifiableRandomAccessList(size=4)"
            assert preview["concurrent"] == "ConcurrentHashMap(size=3)"
            assert preview["numbers"] == "[3, 5, 7, 9, 11, 13, 15, 17, …]"
            assert preview["words"] is None  # an array of objects: its runtime type and length say String[2]
            assert preview["plain"] == "Object()"
            assert preview["loud"] == "Loud(id=9)"
            assert preview["problem"] == 'IllegalStateException(detailMessage="boom", …)'
            assert preview["self"] == 'Thread(name="main", …)'
            wide = preview["wide"]
            assert len(wide) <= MAX_PREVIEW and wide.startswith('Wide(note="' + "x" * 40 + '…", a=1, b=2, c=3, d=4')
            assert wide.endswith(", …)")
            assert by_name["round"].preview is None  # primitives and strings have none
            assert by_name["item"].value is None  # a preview is not a value: `value` keeps its meaning
            assert not any("APP CODE RAN" in line for line in carts.lines)


async def test_object_depth_zero_one_and_two(carts: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped(carts, "carts-look", class_name=CARTS) as (debugger, stop, by_name):
            order = by_name["order"].object_id
            bare = await debugger.object(stop.stop_id, order, depth=0)
            assert all(f.preview is None for f in bare.fields)
            one = {f.name: f.preview for f in (await debugger.object(stop.stop_id, order)).fields}
            assert one["buyer"] == 'Account(name="alice", balance=961)' and one["lines"] == "ArrayList(size=4)"
            assert one["status"] == "OPEN"
            lines = await debugger.object(stop.stop_id, by_name["lines"].object_id)
            assert [e.preview for e in lines.elements][:2] == ['Item(sku="voucher", priceCents=-500, qty=1)',
                                                               'Item(sku="pen", priceCents=150, qty=2)']
            two = await debugger.object(stop.stop_id, by_name["wide"].object_id, depth=2)
            assert {f.name: f.preview for f in two.fields}["self"].startswith('Wide(note="xxx')
            account = await debugger.object(stop.stop_id, order, depth=2)
            shown = {f.name: f.preview for f in account.fields}
            assert shown["lines"] == "ArrayList(size=4)"
            with pytest.raises(InvalidArgument):
                await debugger.object(stop.stop_id, order, depth=3)
            entries = await debugger.object(stop.stop_id, by_name["stock"].object_id)
            assert {e.key.value: e.value.preview for e in entries.entries} == {"a": "1", "b": "2", "c": "3"}


async def test_a_page_of_objects_costs_a_few_round_trips_not_one_each(carts: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped(carts, "carts-look", class_name=CARTS) as (debugger, stop, by_name):
            lines = by_name["lines"].object_id
            await debugger.object(stop.stop_id, lines, depth=0)  # the classes' layouts, once
            extra = {}
            for limit in (1, 4):  # one item or four: the same round trips more
                bare = await rounds(debugger, debugger.object(stop.stop_id, lines, limit=limit, depth=0))
                state = debugger._stops.current
                assert state is not None
                state.cache.forget("preview")  # as at a new stop
                shown = await rounds(debugger, debugger.object(stop.stop_id, lines, limit=limit, depth=1))
                extra[limit] = shown - bare
            # The items' fields in one round, then the text of strings not seen before (the first item's was read
            # with the locals; the other three's take the summary's usual three rounds): however many items.
            assert extra == {1: 1, 4: 4}, extra


async def rounds(debugger: Debugger, call: Any) -> int:
    """The sequential round trips of a call: a write after a reply has come since the previous write starts
    one (as bench/roundtrips.py counts them); requests pipelined together share it."""
    vm = debugger.vm
    write = vm._write
    counted = [0, -1]

    async def counting(data: bytes) -> None:
        replies = vm.statistics()["replies"]
        if replies != counted[1]:
            counted[0] += 1
            counted[1] = replies
        await write(data)

    vm._write = counting  # type: ignore[method-assign]
    try:
        await call
    finally:
        del vm._write
    return counted[0]


async def test_a_kotlin_data_class_and_kotlin_s_collections(values_app: Debuggee) -> None:
    with trio.fail_after(90):
        async with stopped(values_app, "ktv-look", file="Values.kt") as (debugger, stop, by_name):
            preview = {name: local.preview for name, local in by_name.items()}
            assert preview["person"] == 'Person(name="Ada", age=36, home=Place(…))'
            assert preview["registry"] == "Registry(owner=Person(…))"
            assert preview["noList"] == "EmptyList(size=0)" and preview["noMap"] == "EmptyMap(size=0)"
            assert preview["fixed"] == "ArrayList(size=3)" and preview["growing"] == "ArrayList(size=2)"
            assert preview["one"] == "SingletonList(size=1)" and preview["pair"] == "SingletonMap(size=1)"
            assert preview["pairs"] == "LinkedHashMap(size=3)"
            registry = await debugger.object(stop.stop_id, by_name["registry"].object_id, depth=2)
            assert registry.fields[0].preview == 'Person(name="Ada", age=36, home=Place(city="London", zip=1815))'

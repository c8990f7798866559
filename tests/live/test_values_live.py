"""Values against a real OpenJDK 17 debuggee (``Shapes``): runtime types, stable object handles, objects,
arrays, strings and containers read without running app code (docs/design.md §3.7).

The debuggee calls ``Shapes.look`` in a loop on one object (``Shapes.KEPT``); its marked line is where
every test stops. ``Loud`` overrides ``size()``/``toString()`` to print "APP CODE RAN": it must never
print while the engine reads. Synchronisation is by engine events and printed lines, never by sleeping.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import (
    BreakpointVerified,
    Debugger,
    InvalidArgument,
    NotFound,
    StaleReference,
    Stopped,
    open_debugger,
)
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool

SHAPES = "com.example.debuggee.Shapes"


@pytest.fixture
def shapes(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, SHAPES, java=require_tool("java"))


@asynccontextmanager
async def stopped_in_look(debuggee: Debuggee) -> AsyncIterator[tuple[Debugger, Any, dict[str, Any], Any]]:
    """An engine stopped at the marked line: the debugger, the stop, the locals by name, and ``this``."""
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        await debugger.set_breakpoint(SHAPES, find_mark("shapes")[1])
        stop = await next_stop(debugger)
        page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
        result = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
        yield debugger, stop, {local.name: local for local in result.locals}, result.this


async def next_stop(debugger: Debugger) -> Any:
    event = await debugger.events.receive()
    while isinstance(event, BreakpointVerified):
        event = await debugger.events.receive()
    assert isinstance(event, Stopped), event
    return event.stop


async def test_runtime_types_and_handles_that_stay_the_same_across_stops(shapes: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped_in_look(shapes) as (debugger, stop, by_name, this):
            assert by_name["anObject"].type == "java.lang.Object"
            assert by_name["anObject"].runtime_type == "java.util.ArrayList"
            assert by_name["ints"].runtime_type == "int[]" and by_name["ints"].length == 2500
            assert by_name["odd"].runtime_type == "java.lang.String"
            assert by_name["round"].runtime_type is None  # a primitive has none
            assert this.runtime_type == SHAPES and this.object_id.startswith("obj-")
            assert by_name["cycle"].runtime_type == "com.example.debuggee.Shapes$Derived"
            await debugger.resume(stop.stop_id)
            again = await next_stop(debugger)
            page = await debugger.stack(again.stop_id, again.thread_id, limit=1)
            later = await debugger.locals(again.stop_id, page.frames[0].frame_id)
            assert later.this is not None and later.this.object_id == this.object_id  # the same object: KEPT
            assert {v.name: v for v in later.locals}["anObject"].object_id != by_name["anObject"].object_id
            await debugger.resume(again.stop_id)


async def test_object_fields_through_the_superclass_chain_then_statics(shapes: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped_in_look(shapes) as (debugger, stop, by_name, _):
            handle = by_name["cycle"].object_id
            page = await debugger.object(stop.stop_id, handle, view="fields")
            assert (page.kind, page.view, page.runtime_type) == ("object", "fields", f"{SHAPES}$Derived")
            fields = [(f.name, f.declaring_class.rsplit("$", 1)[-1], f.static) for f in page.fields]
            assert fields == [("shared", "Derived", False), ("next", "Derived", False), ("nothing", "Derived", False),
                              ("shared", "Base", False), ("name", "Base", False), ("KIND", "Base", True)]
            shared = [f.value for f in page.fields if f.name == "shared"]
            assert shared == ["2", "1"]  # the shadowed field is there, under its declaring class
            nxt = page.fields[1]
            assert (nxt.kind, nxt.object_id, nxt.runtime_type) == ("object", handle, f"{SHAPES}$Derived")  # a cycle
            assert page.fields[2].kind == "null" and page.fields[4].value == "base"
            assert page.total == 6 and page.next_offset is None
            second = await debugger.object(stop.stop_id, handle, offset=4, limit=1)
            assert [f.name for f in second.fields] == ["name"] and second.next_offset == 5
            await debugger.resume(stop.stop_id)


async def test_arrays_of_every_type_paged(shapes: Debuggee) -> None:
    expected = {"flags": ["true", "false"], "bytes": ["-1", "0", "1"], "chars": ["a", "\ud83d", "\ude00"],
                "shorts": ["-2", "2"], "longs": [str(-(1 << 63)), str((1 << 60) + 7)], "floats": ["0.5", "NaN"],
                "doubles": ["1.0E10", "-0.0"]}
    with trio.fail_after(60):
        async with stopped_in_look(shapes) as (debugger, stop, by_name, _):
            for name, values in expected.items():
                page = await debugger.object(stop.stop_id, by_name[name].object_id)
                assert [e.value for e in page.elements] == values, name
                assert page.length == len(values) and page.kind == "array"
            ints = by_name["ints"].object_id
            page = await debugger.object(stop.stop_id, ints, offset=1000, limit=1000)
            assert page.elements[0].index == 1000 and page.elements[0].value == str(1000 * 1000)
            assert len(page.elements) == 1000 and page.next_offset == 2000 and page.runtime_type == "int[]"
            last = await debugger.object(stop.stop_id, ints, offset=2000, limit=1000)
            assert len(last.elements) == 500 and last.next_offset is None
            objects = await debugger.object(stop.stop_id, by_name["objects"].object_id)
            assert [(e.kind, e.runtime_type) for e in objects.elements] == [
                ("string", "java.lang.String"), ("object", "java.lang.Integer"), ("null", None),
                ("object", f"{SHAPES}$Derived")]
            assert objects.elements[3].object_id == by_name["cycle"].object_id
            await debugger.resume(stop.stop_id)


async def test_strings_paged_in_utf16_units_never_splitting_a_pair(shapes: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped_in_look(shapes) as (debugger, stop, by_name, _):
            odd = await debugger.object(stop.stop_id, by_name["odd"].object_id)
            assert odd.text == "a\x00b \U0001F600 end" and odd.length == 10 and odd.next_offset is None
            cut = await debugger.object(stop.stop_id, by_name["odd"].object_id, limit=5)
            assert cut.text == "a\x00b " and cut.next_offset == 4  # the pair starting at 4 waits for the next page
            huge = by_name["huge"].object_id
            assert by_name["huge"].length == 1 << 20 and by_name["huge"].truncated
            text, offset, pages = "", 0, 0
            while offset is not None:
                page = await debugger.object(stop.stop_id, huge, offset=offset, limit=65536)
                text, offset, pages = text + page.text, page.next_offset, pages + 1
            assert pages == 16 and text == "0123456789abcdef" * 65536
            await debugger.resume(stop.stop_id)


async def test_bad_object_input_changes_nothing(shapes: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped_in_look(shapes) as (debugger, stop, by_name, _):
            with pytest.raises(NotFound):
                await debugger.object(stop.stop_id, "obj-99999")
            with pytest.raises(NotFound, match="another debugging session"):
                await debugger.object(stop.stop_id, "s9-obj-1")
            with pytest.raises(NotFound):
                await debugger.object(stop.stop_id, "0x5")  # a raw wire ID is not a handle
            with pytest.raises(InvalidArgument, match="past the end"):
                await debugger.object(stop.stop_id, by_name["ints"].object_id, offset=2501)
            with pytest.raises(InvalidArgument, match="between 1 and 1000"):
                await debugger.object(stop.stop_id, by_name["ints"].object_id, limit=1001)
            with pytest.raises(InvalidArgument, match="between 1 and 200"):
                await debugger.object(stop.stop_id, by_name["cycle"].object_id, limit=201, view="fields")
            old = stop.stop_id
            await debugger.resume(stop.stop_id)
            with pytest.raises(StaleReference):
                await debugger.object(old, by_name["ints"].object_id)


async def test_containers_show_their_contents_without_running_app_code(shapes: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped_in_look(shapes) as (debugger, stop, by_name, _):
            printed_before = len(shapes.lines)

            async def view(name: str, **kw: Any) -> Any:
                return await debugger.object(stop.stop_id, by_name[name].object_id, **kw)

            def texts(page: Any) -> list[Any]:
                return [e.value for e in page.elements]

            empty, one = await view("empty"), await view("one")
            assert (empty.view, empty.size, empty.elements) == ("list", 0, ())
            assert (one.size, texts(one)) == (1, ["only"])
            many = await view("many", offset=5000, limit=100)
            assert many.size == 10000 and many.next_offset == 5100
            assert many.elements[0].index == 5000 and many.elements[0].runtime_type == "java.lang.Integer"
            assert [e.kind for e in (await view("withNull")).elements] == ["string", "null", "string"]
            assert texts(await view("fixed")) == ["f0", "f1"]
            loud = await view("loud")
            assert loud.runtime_type.endswith("Shapes$Loud") and texts(loud) == ["quiet"]
            hashed = await view("hash")
            assert hashed.view == "map" and hashed.size == 3
            pairs = {e.key.value: (e.value.kind, e.value.runtime_type) for e in hashed.entries}
            assert pairs == {None: ("object", "java.lang.Integer"), "one": ("object", "java.lang.Integer"),
                             "nullValue": ("null", None)}
            assert next(e.key.kind for e in hashed.entries if e.key.value is None) == "null"  # the null key
            colliding = await view("colliding")
            assert colliding.size == 12 and len(colliding.entries) == 12  # one treeified bin, walked by next
            ordered = await view("ordered")
            assert [e.key.value for e in ordered.entries] == ["zeta", "alpha", "mid"]
            big = await view("bigMap", limit=100)
            assert big.size == 10000 and len(big.entries) == 100 and big.next_offset == 100
            assert [e.value for e in (await view("set")).elements] == ["s1"]
            assert [e.value for e in (await view("orderedSet")).elements] == ["b", "a", "c"]
            wrapped = await view("unmodifiable")
            assert texts(wrapped) == ["only"] and "wrapped java.util.ArrayList" in wrapped.note
            assert [e.key.value for e in (await view("synced")).entries] == ["zeta", "alpha", "mid"]
            nothing = await view("nothingHere")
            assert (nothing.view, nothing.size) == ("list", 0)
            boxed = await view("boxed")
            assert (boxed.view, boxed.value.value) == ("value", "12345")
            built = await view("builder")
            assert built.text == "built \U0001F600" and built.length == 8
            selfish = await view("selfish")
            assert selfish.entries[0].value.object_id == by_name["selfish"].object_id  # a cycle, not followed
            raw = await view("many", view="fields")
            assert raw.view == "fields" and "elementData" in [f.name for f in raw.fields]
            queue = await view("unknownQueue")  # PriorityQueue: its heap's array, in heap order (said)
            assert queue.view == "list" and [e.value for e in queue.elements] == ["p"] and "heap order" in queue.note
            assert not any("APP CODE RAN" in line for line in shapes.lines[printed_before:])
            await debugger.resume(stop.stop_id)


async def test_linked_ring_tree_and_concurrent_containers_paged_in_iteration_order(shapes: Debuggee) -> None:
    with trio.fail_after(120):
        async with stopped_in_look(shapes) as (debugger, stop, by_name, _):
            printed_before = len(shapes.lines)

            async def view(name: str, **kw: Any) -> Any:
                return await debugger.object(stop.stop_id, by_name[name].object_id, **kw)

            async def every(name: str, limit: int, what: str = "elements") -> list[Any]:
                found, offset = [], 0
                while offset is not None:
                    page = await view(name, offset=offset, limit=limit)
                    items = getattr(page, what)
                    assert [item.index for item in items] == list(range(offset, offset + len(items)))
                    found, offset = found + list(items), page.next_offset
                return found

            def texts(page: Any) -> list[Any]:
                return [e.value for e in page.elements]

            for name in ("linkedEmpty", "dequeEmpty"):
                empty = await view(name)
                assert (empty.view, empty.size, empty.elements, empty.next_offset) == ("list", 0, (), None), name
            for name in ("linkedOne", "dequeOne"):
                assert (await view(name)).view == "list" and texts(await view(name)) == ["only"], name
            assert texts(await view("linked")) == ["l0", "l1", "l2"]
            assert texts(await view("deque")) == ["d2", "d3", "d4", "d5", "d6"]  # the ring wrapped
            many = [e.value for e in await every("linkedMany", 300)]
            assert many[:2000] == [None if k % 7 == 0 else f"e{k}" for k in range(2000)]
            tail = await view("linkedMany", offset=1995, limit=10)  # read from the last node backwards
            assert [e.index for e in tail.elements] == list(range(1995, 2001)) and tail.size == 2001
            assert tail.elements[-1].object_id == by_name["linkedMany"].object_id  # holds itself: not followed
            assert texts(await view("linkedMany", offset=8, limit=3)) == ["e8", "e9", "e10"]
            assert [e.value for e in await every("dequeMany", 1000)] == [f"q{k}" for k in range(2999, -1, -1)]

            assert (await view("sortedEmpty")).entries == () and (await view("sortedSetEmpty")).elements == ()
            one = await view("sortedOne")
            assert one.view == "map" and [(e.key.value, e.value.runtime_type) for e in one.entries] == [
                ("only", "java.lang.Integer")]
            assert [e.key.value for e in (await view("sorted")).entries] == ["alpha", "mid", "zeta"]
            tree = await every("sortedMany", 100, "entries")
            assert [(e.key.value, e.value.value) for e in tree] == [
                (f"k{k * 3:04d}", None if k % 5 == 0 else f"v{k}") for k in range(1000)]
            middle = await view("sortedMany", offset=500, limit=7)
            assert middle.size == 1000 and middle.next_offset == 507 and middle.entries[0].key.value == "k1500"
            sorted_set = await view("sortedSet")
            assert (sorted_set.view, texts(sorted_set)) == ("set", ["t0", "t1", "t2"])

            assert (await view("concurrentEmpty")).entries == ()
            assert [(e.key.value, e.value.value) for e in (await view("concurrentOne")).entries] == [("only", "one")]
            assert sorted(e.key.value for e in (await view("concurrent")).entries) == ["c1", "c2"]
            big = await every("concurrentMany", 1000, "entries")
            assert sorted(e.key.value for e in big) == sorted(f"c{k}" for k in range(5000))
            assert (await view("concurrentMany", limit=10)).size == 5000
            colliding = await view("concurrentColliding")  # one bin of 12 equal hashes: a TreeBin
            assert colliding.size == 12 and len(colliding.entries) == 12
            assert {e.key.runtime_type for e in colliding.entries} == {f"{SHAPES}$Key"}
            assert len({e.key.object_id for e in colliding.entries}) == 12
            raw = await view("concurrentColliding", view="fields")
            table = next(f.object_id for f in raw.fields if f.name == "table")
            bins = await debugger.object(stop.stop_id, table, limit=1000)
            assert [e.runtime_type for e in bins.elements if e.kind != "null"] == [
                "java.util.concurrent.ConcurrentHashMap$TreeBin"]  # the shape the reader walks from first
            with pytest.raises(InvalidArgument, match="past the end"):
                await view("sortedMany", offset=1001)
            assert not any("APP CODE RAN" in line for line in shapes.lines[printed_before:])
            await debugger.resume(stop.stop_id)

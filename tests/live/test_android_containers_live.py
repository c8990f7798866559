"""Android's array-backed containers read from their fields on a real OpenJDK 17 debuggee (``Droid``).

``android.util.ArrayMap``/``ArraySet``/``SparseArray`` and androidx's ``ArrayMap``/``SimpleArrayMap``/``ArraySet``
cannot run on OpenJDK: the debuggee uses stand-ins in the same packages with the same field layouts as the
real classes (fixtures/java/android, fixtures/java/androidx; the sources they follow are cited there and in
``jdwp.debugger.reading.containers.arraymaps``). Their ``size()`` prints "APP CODE RAN": it must never print
while we read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import open_debugger
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool
from support.stops import next_stop

DROID = "com.example.debuggee.Droid"


@pytest.fixture
def droid(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, DROID, java=require_tool("java"))


def java_hash(text: str | None) -> int:
    """``String.hashCode()`` (0 for the null key, as ArrayMap files it)."""
    value = 0
    units = (text or "").encode("utf-16-be")
    for k in range(0, len(units), 2):
        value = (31 * value + int.from_bytes(units[k:k + 2], "big")) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


async def test_android_array_containers_without_running_app_code(droid: Debuggee) -> None:
    with trio.fail_after(90):
        async with jdwp.open_jdwp_tcp("127.0.0.1", droid.port) as vm, open_debugger(vm) as debugger:
            await debugger.set_breakpoint(DROID, find_mark("droid")[1])
            stop = await next_stop(debugger)
            frame = (await debugger.stack(stop.stop_id, stop.thread_id, limit=1)).frames[0]
            by_name = {v.name: v for v in (await debugger.locals(stop.stop_id, frame.frame_id)).locals}
            printed_before = len(droid.lines)

            async def view(name: str, **kw: Any) -> Any:
                return await debugger.object(stop.stop_id, by_name[name].object_id, **kw)

            async def every(name: str, limit: int, what: str) -> list[Any]:
                found: list[Any] = []
                offset: int | None = 0
                while offset is not None:
                    page = await view(name, offset=offset, limit=limit)
                    items = getattr(page, what)
                    assert [item.index for item in items] == list(range(offset, offset + len(items)))
                    found, offset = found + list(items), page.next_offset
                return found

            for name, kind in (("mapEmpty", "map"), ("sparseEmpty", "map"), ("xMapEmpty", "map"),
                               ("setEmpty", "set"), ("xSetEmpty", "set")):
                page = await view(name)
                assert (page.view, page.size, page.next_offset) == (kind, 0, None), name
                assert (page.entries if kind == "map" else page.elements) == (), name

            one = await view("mapOne")
            assert [(e.key.value, e.value.value, e.value.runtime_type) for e in one.entries] == [
                ("only", "1", "java.lang.Integer")]
            assert [e.value for e in (await view("setOne")).elements] == ["only"]
            sparse_one = await view("sparseOne")
            assert [(e.key.kind, e.key.value, e.value.value) for e in sparse_one.entries] == [
                ("primitive", "-7", "only")]
            assert [(e.key.value, e.value.value) for e in (await view("xSimpleOne")).entries] == [("only", "one")]

            many = await every("mapMany", 64, "entries")  # 301 entries: key at 2i, value at 2i+1, paged
            keys = [e.key.value for e in many]
            expected = {f"m{k}": k for k in range(300)}
            assert len(many) == 301 and set(keys) == {*expected, None}
            assert [java_hash(k) for k in keys] == sorted(java_hash(k) for k in keys)  # mHashes order
            for entry in many:
                if entry.key.value is None:
                    assert entry.key.kind == "null" and entry.value.value == "null key"
                elif expected[entry.key.value] % 10 == 0:
                    assert entry.value.kind == "null"
                else:
                    assert entry.value.runtime_type == "java.lang.Integer"
            middle = await view("mapMany", offset=150, limit=10)
            assert middle.size == 301 and middle.next_offset == 160 and middle.entries[0].index == 150

            members = await every("setMany", 100, "elements")
            assert len(members) == 251 and {e.value for e in members} == {f"s{k}" for k in range(250)} | {None}

            sparse = await every("sparseMany", 40, "entries")
            assert [e.key.value for e in sparse] == [str(k * 10) for k in range(150)]
            assert [e.value.value for e in sparse] == [None if k == 3 else f"v{k}" for k in range(150)]
            assert sparse[3].value.kind == "null"

            garbage = await view("sparseGarbage")  # slots 1 and 4 hold DELETED until gc(): skipped
            assert garbage.size == 4 and garbage.next_offset is None
            assert [(e.index, e.key.value, e.value.value) for e in garbage.entries] == [
                (0, "0", "g0"), (1, "2", "g2"), (2, "3", "g3"), (3, "5", "g5")]
            tail = await view("sparseGarbage", offset=2, limit=1)
            assert [(e.index, e.key.value) for e in tail.entries] == [(2, "3")] and tail.next_offset == 3

            x_map = await view("xMapMany")  # androidx ArrayMap: SimpleArrayMap's Kotlin fields hashes/array/size
            assert x_map.runtime_type == "androidx.collection.ArrayMap" and x_map.size == 20
            assert [(e.key.value, e.value.value) for e in x_map.entries] == [(f"x{k}", f"y{k}") for k in range(20)]
            x_set = await view("xSetMany")  # androidx ArraySet: hashes/array/_size
            assert (x_set.view, [e.value for e in x_set.elements]) == ("set", [f"e{k}" for k in range(9)])

            raw = await view("sparseGarbage", view="fields")
            assert {"mKeys", "mValues", "mSize", "mGarbage", "DELETED"} <= {f.name for f in raw.fields}
            assert not any("APP CODE RAN" in line for line in droid.lines[printed_before:])
            await debugger.resume(stop.stop_id)

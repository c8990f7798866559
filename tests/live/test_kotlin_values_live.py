"""Kotlin values compiled by kotlinc 1.3, read on OpenJDK 17 without running app code (docs/design.md §3.7–3.8):
data classes by their Kotlin property names, a companion's properties (static fields of the outer class),
and what Kotlin's collection builders return, each in the view its contents call for.

The debuggee is ``fixtures/kotlin/com/example/ktvalues`` (``ValuesKt``): its main loop calls ``look`` every
few milliseconds; every test stops at its marked line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import BreakpointVerified, Debugger, EvaluationFailed, Stopped, open_debugger
from support.jvm import Debuggee, debuggees, find_mark, kotlin_classpath
from support.live import require_tool

PACKAGE = "com.example.ktvalues"


@pytest.fixture
def values_app(kotlin_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(kotlin_classpath(kotlin_classes), f"{PACKAGE}.ValuesKt", java=require_tool("java"))


@asynccontextmanager
async def stopped_in_look(debuggee: Debuggee) -> AsyncIterator[tuple[Debugger, Any, str, dict[str, Any]]]:
    """An engine stopped at the marked line: the debugger, the stop, the top frame's ID, the locals by name."""
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        bp = await debugger.set_breakpoint(file="Values.kt", line=find_mark("ktv-look")[1])
        assert bp.status == "verified", bp.reason
        event = await debugger.events.receive()
        while isinstance(event, BreakpointVerified):
            event = await debugger.events.receive()
        assert isinstance(event, Stopped), event
        stop = event.stop
        page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
        result = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
        yield debugger, stop, page.frames[0].frame_id, {local.name: local for local in result.locals}
        await debugger.resume(stop.stop_id)


def shown(summary: Any) -> tuple[str, str | None, str | None]:
    return summary.kind, summary.value, summary.runtime_type


async def test_a_data_class_shows_its_properties_by_their_kotlin_names(values_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped_in_look(values_app) as (debugger, stop, _, by_name):
            person = by_name["person"]
            assert (person.type, person.runtime_type) == (f"{PACKAGE}.Person", f"{PACKAGE}.Person")
            page = await debugger.object(stop.stop_id, person.object_id)
            assert (page.view, page.runtime_type, page.total) == ("fields", f"{PACKAGE}.Person", 3)
            assert page.fields is not None
            assert [(f.name, f.declaring_class, f.declared_type, f.static) for f in page.fields] == [
                ("name", f"{PACKAGE}.Person", "java.lang.String", False),
                ("age", f"{PACKAGE}.Person", "int", False),
                ("home", f"{PACKAGE}.Person", f"{PACKAGE}.Place", False)]
            name, age, home = page.fields
            assert shown(name) == ("string", "Ada", "java.lang.String")
            assert shown(age) == ("primitive", "36", None)
            assert home.runtime_type == f"{PACKAGE}.Place"
            place = await debugger.object(stop.stop_id, home.object_id)
            assert place.fields is not None
            assert [(f.name, f.value) for f in place.fields] == [("city", "London"), ("zip", "1815")]


async def test_a_companion_s_properties_are_the_outer_class_s_statics(values_app: Debuggee) -> None:
    """kotlinc keeps a companion's properties (``const`` or not) as static fields of the outer class, next
    to the ``Companion`` instance; the registry's fields list them after its own."""
    with trio.fail_after(60):
        async with stopped_in_look(values_app) as (debugger, stop, _, by_name):
            page = await debugger.object(stop.stop_id, by_name["registry"].object_id)
            assert page.fields is not None
            assert [(f.name, f.static) for f in page.fields] == [
                ("owner", False), ("LIMIT", True), ("created", True), ("DEFAULT", True), ("Companion", True)]
            statics = {f.name: f for f in page.fields}
            assert statics["LIMIT"].value == "64" and statics["created"].value == "1"
            assert statics["Companion"].runtime_type == f"{PACKAGE}.Registry$Companion"


@pytest.mark.parametrize("local, runtime_type, view", [
    ("noList", "kotlin.collections.EmptyList", "list"),
    ("noSet", "kotlin.collections.EmptySet", "set"),
    ("noMap", "kotlin.collections.EmptyMap", "map"),
], ids=["emptyList", "emptySet", "emptyMap"])
async def test_kotlin_s_empty_collections_are_empty_views(values_app: Debuggee, local: str, runtime_type: str,
                                                          view: str) -> None:
    with trio.fail_after(60):
        async with stopped_in_look(values_app) as (debugger, stop, frame_id, by_name):
            assert by_name[local].runtime_type == runtime_type
            page = await debugger.object(stop.stop_id, by_name[local].object_id)
            assert (page.view, page.size, page.total, page.next_offset, page.note) == (view, 0, 0, None, None)
            assert (page.entries if view == "map" else page.elements) == ()
            assert (await debugger.evaluate(stop.stop_id, frame_id, f"{local}.size")).value == "0"
            raw = await debugger.object(stop.stop_id, by_name[local].object_id, view="fields")
            assert raw.view == "fields"  # a Kotlin object: its INSTANCE and serialVersionUID, raw


async def test_list_builders_show_their_elements(values_app: Debuggee) -> None:
    """listOf(1, 2, 3) is java.util.Arrays$ArrayList on the JVM, mutableListOf an ArrayList."""
    with trio.fail_after(60):
        async with stopped_in_look(values_app) as (debugger, stop, _, by_name):
            assert by_name["fixed"].runtime_type == "java.util.Arrays$ArrayList"
            fixed = await debugger.object(stop.stop_id, by_name["fixed"].object_id)
            assert (fixed.view, fixed.size) == ("list", 3) and fixed.elements is not None
            assert [e.runtime_type for e in fixed.elements] == ["java.lang.Integer"] * 3
            boxes = [await debugger.object(stop.stop_id, e.object_id) for e in fixed.elements]
            assert [(b.view, b.value.value if b.value else None) for b in boxes] == [
                ("value", "1"), ("value", "2"), ("value", "3")]
            assert by_name["growing"].runtime_type == "java.util.ArrayList"
            growing = await debugger.object(stop.stop_id, by_name["growing"].object_id)
            assert growing.view == "list" and growing.elements is not None
            assert [(e.index, e.value) for e in growing.elements] == [(0, "a"), (1, "b")]


async def test_map_builders_show_their_entries_in_order(values_app: Debuggee) -> None:
    """mapOf of several pairs is a LinkedHashMap, in the order written."""
    with trio.fail_after(60):
        async with stopped_in_look(values_app) as (debugger, stop, _, by_name):
            assert by_name["pairs"].runtime_type == "java.util.LinkedHashMap"
            pairs = await debugger.object(stop.stop_id, by_name["pairs"].object_id)
            assert (pairs.view, pairs.size) == ("map", 3) and pairs.entries is not None
            assert [e.key.value for e in pairs.entries] == ["a", "b", "c"]


async def test_evaluating_data_class_paths_and_companion_properties(values_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped_in_look(values_app) as (debugger, stop, frame_id, _):
            async def evaluate(expression: str) -> Any:
                return await debugger.evaluate(stop.stop_id, frame_id, expression)

            assert shown(await evaluate("person.home.city")) == ("string", "London", "java.lang.String")
            assert (await evaluate("registry.owner.age + 1")).value == "37"
            assert (await evaluate("Registry.created")).value == "1"  # as Kotlin writes it
            assert (await evaluate(f"{PACKAGE}.Registry.LIMIT")).value == "64"
            assert shown(await evaluate("Registry.DEFAULT.name")) == ("string", "nobody", "java.lang.String")
            assert (await evaluate("Registry.Companion")).runtime_type == f"{PACKAGE}.Registry$Companion"
            assert (await evaluate("fixed[2] == fixed[2] && growing[1] == \"b\"")).value == "true"
            assert (await evaluate("pairs[\"b\"]")).runtime_type == "java.lang.Integer"
            with pytest.raises(EvaluationFailed, match="no such key"):
                await evaluate("pairs[\"z\"]")


@pytest.mark.parametrize("local, runtime_type, view, contents", [
    ("one", "java.util.Collections$SingletonList", "list", [("object", "7", "java.lang.Integer")]),
    ("oneSet", "java.util.Collections$SingletonSet", "set", [("string", "solo", "java.lang.String")]),
    ("pair", "java.util.Collections$SingletonMap", "map", [("string", "k", "java.lang.String"),
                                                           ("object", "1", "java.lang.Integer")]),
], ids=["listOf-one", "setOf-one", "mapOf-one-pair"])
async def test_one_element_builders_show_their_element(values_app: Debuggee, local: str, runtime_type: str,
                                                       view: str, contents: list[Any]) -> None:
    """Kotlin's listOf(x), setOf(x) and mapOf(a to b) are java.util.Collections' singletons on the JVM."""
    with trio.fail_after(60):
        async with stopped_in_look(values_app) as (debugger, stop, frame_id, by_name):
            assert by_name[local].runtime_type == runtime_type
            page = await debugger.object(stop.stop_id, by_name[local].object_id)
            assert (page.view, page.size, page.total, page.next_offset) == (view, 1, 1, None)
            if view == "map":
                assert page.entries is not None
                assert [shown(page.entries[0].key), shown(page.entries[0].value)] == contents
                assert (await debugger.evaluate(stop.stop_id, frame_id, "pair[\"k\"]")).runtime_type == (
                    "java.lang.Integer")
            else:
                assert page.elements is not None and [shown(e) for e in page.elements] == contents
                assert (await debugger.evaluate(stop.stop_id, frame_id, f"{local}.size")).value == "1"
            assert await debugger.object(stop.stop_id, by_name[local].object_id, offset=1) == dataclasses.replace(
                page, offset=1, next_offset=None, elements=() if page.elements is not None else None,
                entries=() if page.entries is not None else None)
            raw = await debugger.object(stop.stop_id, by_name[local].object_id, view="fields")
            assert raw.view == "fields"


async def test_boxed_elements_unbox_in_arithmetic_and_comparisons(values_app: Debuggee) -> None:
    """A Kotlin ``List<Int>`` or ``Map<String, Int>`` holds ``java.lang.Integer``s: Java unboxes the operands of
    arithmetic, numeric comparisons and ``==`` with a primitive (JLS §5.6, §15.21.1), so expressions do."""
    with trio.fail_after(60):
        async with stopped_in_look(values_app) as (debugger, stop, frame_id, _):
            async def evaluate(expression: str) -> Any:
                return await debugger.evaluate(stop.stop_id, frame_id, expression)

            assert shown(await evaluate("fixed[0] + fixed[2]")) == ("primitive", "4", None)
            assert (await evaluate("pairs[\"b\"] * 10L")).value == "20"
            assert (await evaluate("-one[0]")).value == "-7"
            assert (await evaluate("fixed[1] == 2 && 2 == fixed[1] && fixed[1] != 3")).value == "true"
            assert (await evaluate("fixed[1] < pairs[\"c\"] && pair[\"k\"] >= 1")).value == "true"
            assert (await evaluate("fixed[0] / 2.0")).value == "0.5"
            assert (await evaluate("\"n=\" + fixed[2]")).value == "n=3"
            assert (await evaluate("fixed[0] == pair[\"k\"]")).value == "true"  # two objects: identity, as Java
            with pytest.raises(EvaluationFailed, match="needs numbers"):
                await evaluate("person + 1")


async def test_a_companion_s_property_reads_through_the_companion_too(values_app: Debuggee) -> None:
    """``Registry.Companion.created`` is Kotlin too: the companion object has no field of its own (kotlinc keeps
    the property as a static of ``Registry``), so the read goes to the outer class that declares it."""
    with trio.fail_after(60):
        async with stopped_in_look(values_app) as (debugger, stop, frame_id, _):
            async def evaluate(expression: str) -> Any:
                return await debugger.evaluate(stop.stop_id, frame_id, expression)

            assert (await evaluate("Registry.Companion.created")).value == "1"
            assert (await evaluate("Registry.Companion.LIMIT")).value == "64"
            assert shown(await evaluate("Registry.Companion.DEFAULT.name")) == ("string", "nobody", "java.lang.String")
            with pytest.raises(EvaluationFailed, match=r"Registry\$Companion has no field 'missing'"):
                await evaluate("Registry.Companion.missing")
            with pytest.raises(EvaluationFailed, match=r"Person has no field 'LIMIT'"):
                await evaluate("person.LIMIT")  # only a companion reads its outer class's statics

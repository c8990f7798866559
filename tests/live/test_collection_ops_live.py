"""Collection operations and ``depth`` of evaluate in a real OpenJDK 17 frame (``Shapes.look``), computed from
what the readers show (docs/tools.md, "Collection operations"): ``map``, ``filter``, ``sumOf``, ``count``,
``first``, ``any``, ``keys``, ``values`` over arrays, lists, sets and maps, the container limit (a sum over part of
a longer list is refused, a list over it says so), the errors naming an unsupported form; and Java's ``==``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

import jdwp
from jdwp.debugger import Computed, EvaluationFailed, ObjectPage, Summary, open_debugger
from jdwp.debugger.reading.expressions import ExpressionSyntaxError
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool
from support.stops import next_stop

SHAPES = "com.example.debuggee.Shapes"

SCALARS: list[tuple[str, str]] = [
    # (expression, value): each computed here, nothing of the app run
    ("bytes.sumOf { it }", "0"),  # an array
    ("one.count { it == \"only\" }", "1"),
    ("withNull.any { it == null }", "true"),
    ("withNull.count { x -> x != null }", "2"),
    ("ordered.values.sumOf { it }", "12"),  # boxes unboxed: zeta 4, alpha 5, mid 3
    ("ordered.filter { it.value > 3 }.size", "2"),
    ("many.first { it > 41 }", "42"),  # found within the first 1,000 of 10,000
    ("many.any { it == 999 }", "true"),
    ("linked.first { it != \"l0\" }", "l1"),
    ("set.any { it == \"s1\" }", "true"),
    ("longs.sumOf { it }", str(-(2**63) + (1 << 60) + 7)),
    ("floats.count { it > 0 }", "1"),  # NaN > 0 is false
    ("objects.count { it instanceof String }", "1"),
    ("hash.keys.count { it == null }", "1"),
    ("ordered.filter { it.value < 5 }.keys.first { it != \"zeta\" }", "mid"),
    ("sorted.keys.first { it != \"alpha\" }", "mid"),
]


@pytest.fixture
def shapes(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, SHAPES, java=require_tool("java"))


async def test_collection_operations_in_a_java_frame(shapes: Debuggee) -> None:
    with trio.fail_after(120):
        async with jdwp.open_jdwp_tcp("127.0.0.1", shapes.port) as vm, open_debugger(vm) as debugger:
            await debugger.set_breakpoint(SHAPES, find_mark("shapes")[1])
            stop = await next_stop(debugger)
            frame = (await debugger.stack(stop.stop_id, stop.thread_id, limit=1)).frames[0].frame_id

            async def value(expression: str) -> Summary:
                found = await debugger.evaluate(stop.stop_id, frame, expression)
                assert isinstance(found, Summary), expression
                return found

            for expression, expected in SCALARS:
                assert (await value(expression)).value == expected, expression

            mapped = await debugger.evaluate(stop.stop_id, frame, "withNull.map { it }")
            assert isinstance(mapped, Computed) and mapped.kind == "list" and mapped.length == 3
            assert [e.value for e in mapped.elements] == ["a", None, "c"] and mapped.note is None
            kept = await debugger.evaluate(stop.stop_id, frame, "ordered.filter { it.value > 3 }")
            assert isinstance(kept, Computed) and kept.kind == "map"
            assert [(e.key.value, e.value.value) for e in kept.entries] == [("zeta", "4"), ("alpha", "5")]
            keys = await debugger.evaluate(stop.stop_id, frame, "ordered.keys")
            assert isinstance(keys, Computed) and [e.value for e in keys.elements] == ["zeta", "alpha", "mid"]
            lengths = await debugger.evaluate(stop.stop_id, frame, 'ordered.map { it.key + "=" + it.value }')
            assert isinstance(lengths, Computed) and lengths.elements[0].value == "zeta=4"
            # A string's length as Kotlin spells it, in this Java frame too (read on the host, as summaries do).
            long_keys = await debugger.evaluate(stop.stop_id, frame, "ordered.count { it.key.length > 3 }")
            assert isinstance(long_keys, Summary) and long_keys.value == "2"  # zeta, alpha; not mid
            assert (await value('(one[0] + "!").length')).value == "5"
            # Over the container limit: a list says it was cut; a sum or count over part is refused.
            cut = await debugger.evaluate(stop.stop_id, frame, "many.map { it * 2 }")
            assert isinstance(cut, Computed) and cut.length == 1000 and cut.elements[999].value == "1998"
            assert cut.note == "computed over the first 1,000 of 10,000 elements"
            for refused, reason in [("many.sumOf { it }", "reads at most 1,000"),
                                    ("ints.count { it > 0 }", "reads at most 1,000"),
                                    ("many.any { it < 0 }", "no element of the first 1,000 (of 10,000)"),
                                    ("one.first { it == \"x\" }", "NoSuchElementException"),
                                    ("many.map { it }[0]", "makes a list"),
                                    ("cycle.map { it }", "is not an array or a list, set or map"),
                                    ("one.count { it }", "must give a boolean"),
                                    ("ordered.map { it }", "map entry"),
                                    ("ordered.map { it.size }", "has .key and .value")]:
                with pytest.raises(EvaluationFailed) as caught:
                    await debugger.evaluate(stop.stop_id, frame, refused)
                assert reason in str(caught.value), refused
            for syntax in ["many.sortedBy { it }", "ordered.map { k, v -> k }", "many.map { it"]:
                with pytest.raises(ExpressionSyntaxError):
                    await debugger.evaluate(stop.stop_id, frame, syntax)

            # Java's ==: strings by their text; two boxes by identity; a box and a primitive by value.
            assert (await value('one[0] == "only"')).value == "true"
            assert (await value("objects[1] == 3")).value == "true"
            assert (await value("many[500] == many[500]")).value == "true"  # the same Integer object
            assert (await value("bigMap[500] == many[500]")).value == "false"  # -500 and 500: two objects
            assert (await value("objects[3] == cycle")).value == "true"

            # depth: an object result answered as get_debugger_object's first page.
            page = await debugger.evaluate(stop.stop_id, frame, "ordered", depth=1)
            assert isinstance(page, ObjectPage) and page.view == "map" and page.entries is not None
            assert [e.key.value for e in page.entries] == ["zeta", "alpha", "mid"]
            fields = await debugger.evaluate(stop.stop_id, frame, "cycle", depth=1)
            assert isinstance(fields, ObjectPage) and fields.fields is not None
            assert (await debugger.evaluate(stop.stop_id, frame, "round", depth=2)).kind == "primitive"
            items = await debugger.evaluate_each(stop.stop_id, frame, ["one", "round"], depth=1)
            assert isinstance(items[0].value, ObjectPage) and isinstance(items[1].value, Summary)
            await debugger.resume(stop.stop_id)
    assert not any("APP CODE RAN" in line for line in shapes.lines)

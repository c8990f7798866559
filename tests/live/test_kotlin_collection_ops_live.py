"""Collection operations and ``==`` in a Kotlin frame (``fixtures/kotlin/com/example/ktkinds``, ``kinds``): a
``List<String>``, ``Map<String, Int>`` of boxes, read by the readers and computed here (docs/tools.md,
"Collection operations" and "``==`` in a Java frame and in a Kotlin frame").
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

import jdwp
from jdwp.debugger import Computed, EvaluationFailed, ObjectPage, Summary, open_debugger
from support.jvm import Debuggee, debuggees, find_mark, kotlin_classpath
from support.live import require_tool
from support.stops import next_stop

PACKAGE = "com.example.ktkinds"


@pytest.fixture
def kinds_app(kotlin_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(kotlin_classpath(kotlin_classes), f"{PACKAGE}.KindsKt", java=require_tool("java"))


async def test_collection_operations_and_equals_in_a_kotlin_frame(kinds_app: Debuggee) -> None:
    with trio.fail_after(90):
        async with jdwp.open_jdwp_tcp("127.0.0.1", kinds_app.port) as vm, open_debugger(vm) as debugger:
            await debugger.set_breakpoint(file="Kinds.kt", line=find_mark("ktk-look")[1])
            stop = await next_stop(debugger)
            frame = (await debugger.stack(stop.stop_id, stop.thread_id, limit=1)).frames[0].frame_id

            async def value(expression: str) -> str | None:
                found = await debugger.evaluate(stop.stop_id, frame, expression)
                assert isinstance(found, Summary), expression
                return found.value

            assert await value("prices.values.sumOf { it }") == "6"  # Map<String, Int>: boxes unboxed
            assert await value("names.first { it.length == 3 }") == "fig"
            assert await value("names.count { n -> n.length > 3 }") == "2"
            assert await value("scores.values.any { it == count }") == "true"  # Kotlin ==: equal boxes
            assert await value("scores.filter { it.value > 1 }.size") == "2"
            lengths = await debugger.evaluate(stop.stop_id, frame, "names.map { it.length }")
            assert isinstance(lengths, Computed) and [e.value for e in lengths.elements] == ["4", "3", "5"]
            high = await debugger.evaluate(stop.stop_id, frame, "scores.filter { it.value > 1 }.keys")
            assert isinstance(high, Computed) and [e.value for e in high.elements] == ["b", "c"]
            cheap = await debugger.evaluate(stop.stop_id, frame, 'prices.filter { it.key != "pear" }')
            assert isinstance(cheap, Computed) and cheap.kind == "map"
            assert [(e.key.value, e.value.value) for e in cheap.entries] == [("fig", "1"), ("apple", "2")]
            # Kotlin's ==: strings by text, boxes by value of one box class, enums by identity; others refused.
            assert await value('word == "kot" + "lin"') == "true"
            assert await value('scores["c"] == count && big != count') == "true"
            assert await value("status == Status.OK") == "true"
            assert await value("order == maybe") == "true"  # the same object: equals is reflexive
            with pytest.raises(EvaluationFailed, match="equals"):
                await value("names == prices")  # equals() of two other objects would run app code
            page = await debugger.evaluate(stop.stop_id, frame, "scores", depth=1)
            assert isinstance(page, ObjectPage) and page.entries is not None and len(page.entries) == 3
            await debugger.resume(stop.stop_id)

"""Kotlin values inline and Kotlin's expression forms, on code compiled by kotlinc 1.3, OpenJDK 17 (docs/design.md
§3.10).

The debuggee is ``fixtures/kotlin/com/example/ktkinds`` (``KindsKt``): its main loop calls ``kinds`` every few
milliseconds; every test stops at one of its marked lines.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import BreakpointVerified, Debugger, EvaluationFailed, LogpointHit, Stopped, open_debugger
from support.jvm import Debuggee, debuggees, find_mark, kotlin_classpath
from support.live import require_tool

PACKAGE = "com.example.ktkinds"


@pytest.fixture
def kinds_app(kotlin_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(kotlin_classpath(kotlin_classes), f"{PACKAGE}.KindsKt", java=require_tool("java"))


@asynccontextmanager
async def stopped_at(debuggee: Debuggee, mark: str, in_class: str | None = None
                     ) -> AsyncIterator[tuple[Debugger, Any, str, dict[str, Any]]]:
    """An engine stopped at the marked line (in the class ``in_class`` when given: other stops there are
    resumed): the debugger, the stop, the top frame's ID, the locals by name."""
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        bp = await debugger.set_breakpoint(file="Kinds.kt", line=find_mark(mark)[1])
        # A line of a class not loaded yet (Order's, right after "ready") binds when it loads: it stays armed.
        assert bp.status == "verified" or (in_class is not None and bp.reason is not None
                                           and "stays armed" in bp.reason.message), bp.reason
        for _ in range(10):
            event = await debugger.events.receive()
            while isinstance(event, BreakpointVerified):
                event = await debugger.events.receive()
            assert isinstance(event, Stopped), event
            stop = event.stop
            if in_class is None or stop.location.class_name == in_class:
                break
            await debugger.resume(stop.stop_id)
        assert in_class is None or stop.location.class_name == in_class
        page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
        result = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
        yield debugger, stop, page.frames[0].frame_id, {local.name: local for local in result.locals}
        await debugger.resume(stop.stop_id)


async def test_boxes_chars_and_enums_show_their_values_inline(kinds_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped_at(kinds_app, "ktk-look") as (debugger, stop, frame_id, by_name):
            shown = {name: (by_name[name].kind, by_name[name].value, by_name[name].runtime_type) for name in (
                "count", "flag", "big", "small", "tiny", "ratio", "exact", "letter", "status")}
            assert shown == {
                "count": ("object", "3", "java.lang.Integer"), "flag": ("object", "true", "java.lang.Boolean"),
                "big": ("object", "5000000000", "java.lang.Long"), "small": ("object", "7", "java.lang.Short"),
                "tiny": ("object", "-2", "java.lang.Byte"), "ratio": ("object", "1.5", "java.lang.Float"),
                "exact": ("object", "0.25", "java.lang.Double"), "letter": ("object", "x", "java.lang.Character"),
                "status": ("object", "OK", f"{PACKAGE}.Status")}
            assert by_name["order"].value is None  # an object of no such kind shows no value
            scores = await debugger.object(stop.stop_id, by_name["scores"].object_id)
            assert scores.view == "map" and scores.entries is not None
            assert [(e.key.value, e.value.kind, e.value.value, e.value.runtime_type) for e in scores.entries] == [
                ("a", "object", "1", "java.lang.Integer"), ("b", "object", "2", "java.lang.Integer"),
                ("c", "object", "3", "java.lang.Integer")]
            names = await debugger.object(stop.stop_id, by_name["names"].object_id)
            assert names.elements is not None and [e.value for e in names.elements] == ["pear", "fig", "apple"]
            result = await debugger.evaluate(stop.stop_id, frame_id, "scores[\"b\"]")
            assert (result.kind, result.value, result.runtime_type) == ("object", "2", "java.lang.Integer")
            assert (await debugger.evaluate(stop.stop_id, frame_id, "status")).value == "OK"
            fields = await debugger.object(stop.stop_id, by_name["status"].object_id, view="fields")
            assert fields.fields is not None and {f.name: f.value for f in fields.fields}["name"] == "OK"


async def test_kotlin_expression_forms(kinds_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped_at(kinds_app, "ktk-look") as (debugger, stop, frame_id, _):
            async def value(expression: str) -> str | None:
                return (await debugger.evaluate(stop.stop_id, frame_id, expression)).value

            assert await value('"$total"') == "12"
            assert await value('"total $total and ${order.id + 1}, ${word.length} ${count}"') == (
                "total 12 and 43, 6 3")
            assert await value('"\\$total"') == "$total"
            assert await value("maybe?.id") == "42"
            assert (await debugger.evaluate(stop.stop_id, frame_id, "nothing?.id")).kind == "null"
            assert await value("maybe!!.id") == "42"
            with pytest.raises(EvaluationFailed, match="!! of null"):
                await value("nothing!!.id")
            assert await value("nothing?.note ?: word") == "kotlin"
            assert await value("total in 1..20") == "true"
            assert await value("total !in 1..11") == "true"
            assert await value("count in 3..3 && letter in 'a'..'z'") == "true"
            assert await value("big as Long") == "5000000000"
            assert (await debugger.evaluate(stop.stop_id, frame_id, "count as? Long")).kind == "null"
            with pytest.raises(EvaluationFailed, match="not a Long"):
                await value("count as Long")
            assert await value("maybe is Order && word is String && count is Int") == "true"
            assert await value("word.length") == "6"
            assert await value("wide.length + \"ab\".length") == "10"  # read from the fields: 16 bytes, coder 1
            assert await value("names.size + scores.size") == "6"
            assert await value("order.label") == "order-42"
            with pytest.raises(EvaluationFailed, match="not initialised yet"):
                await value("order.later")
            assert await value("scores[\"a\"] == 1 && count == scores[\"c\"]") == "true"
            assert await value("maybe === order && nothing == null") == "true"
            assert await value("status == Status.OK && status != Status.FAIL && status !== Status.FAIL") == "true"
            with pytest.raises(EvaluationFailed, match="contains"):
                await value("\"fig\" in names")
            with pytest.raises(EvaluationFailed, match="equals"):
                await value("names == prices")


async def test_names_listed_in_inlined_code_evaluate_as_listed(kinds_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped_at(kinds_app, "ktk-single") as (debugger, stop, frame_id, by_name):
            assert "this@singleOrNull" in by_name
            for name in by_name:
                result = await debugger.evaluate(stop.stop_id, frame_id, name)
                assert (result.kind, result.value, result.object_id) == (
                    by_name[name].kind, by_name[name].value, by_name[name].object_id), name
            assert (await debugger.evaluate(stop.stop_id, frame_id, "this@singleOrNull.size")).value == "3"


async def test_a_capture_copied_with_an_inline_function_is_listed_by_its_source_name(kinds_app: Debuggee) -> None:
    """The Comparator that the inline ``ranked`` makes is copied into ``kinds`` with the lambda's capture as its
    field ``$prices$inlined``; stopped in its ``compare``, the capture is listed as ``prices``."""
    with trio.fail_after(60):
        async with stopped_at(kinds_app, "ktk-compare", f"{PACKAGE}.KindsKt$kinds$$inlined$ranked$1") as (
                debugger, stop, frame_id, by_name):
            assert "prices" in by_name and by_name["prices"].captured
            assert "$prices$inlined" not in by_name
            assert (await debugger.evaluate(stop.stop_id, frame_id, "prices[\"fig\"]")).value == "1"
            assert (await debugger.evaluate(stop.stop_id, frame_id, "prices.size")).value == "3"


async def test_a_logpoint_shows_boxes_and_enums_by_their_values(kinds_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with jdwp.open_jdwp_tcp("127.0.0.1", kinds_app.port) as vm, open_debugger(vm) as debugger:
            await debugger.set_breakpoint(file="Kinds.kt", line=find_mark("ktk-look")[1], action="log",
                                          log_message="count={count} status={status} {\"$total!\"}", max_hits=1)
            event = await debugger.events.receive()
            while not isinstance(event, LogpointHit):
                assert not isinstance(event, Stopped), event
                event = await debugger.events.receive()
            assert event.message == "count=3 status=OK 12!"


async def test_this_at_the_class_label_in_a_lambda_is_the_instance_it_was_made_in(kinds_app: Debuggee) -> None:
    with trio.fail_after(60):
        async with stopped_at(kinds_app, "ktk-lazy", f"{PACKAGE}.Order$label$2") as (
                debugger, stop, frame_id, _):
            outer = await debugger.evaluate(stop.stop_id, frame_id, "this@Order")
            assert outer.runtime_type == f"{PACKAGE}.Order"
            assert (await debugger.evaluate(stop.stop_id, frame_id, "this@Order.id")).value == "42"
            assert (await debugger.evaluate(stop.stop_id, frame_id, "this")).runtime_type == f"{PACKAGE}.Order$label$2"
            with pytest.raises(EvaluationFailed, match="not a receiver in scope"):
                await debugger.evaluate(stop.stop_id, frame_id, "this@Nothing")

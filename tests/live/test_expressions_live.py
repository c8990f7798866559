"""Read-only expressions evaluated in a real OpenJDK 17 frame (``Shapes.look``), docs/design.md §3.8: locals,
fields (inherited and shadowed), statics, arrays, Java's numeric promotion, strings, ``instanceof``,
and the errors: a null dereference, an unknown name, a method call, a bad index, a parse error's column.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

import jdwp
from jdwp.debugger import EvaluationFailed, Summary, open_debugger
from jdwp.debugger.reading.expressions import ExpressionSyntaxError
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool
from support.stops import next_stop

SHAPES = "com.example.debuggee.Shapes"


@pytest.fixture
def shapes(java_classes: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, SHAPES, java=require_tool("java"))


VALUES: list[tuple[str, str, str | None, str | None]] = [
    # (expression, kind, value, runtime_type)
    ("round >= 0", "primitive", "true", None),
    ("this == this", "primitive", "true", None),
    ("cycle.shared", "primitive", "2", None),  # Derived's field shadows Base's
    ("cycle.name", "string", "base", "java.lang.String"),  # inherited
    ("cycle.next.next == cycle", "primitive", "true", None),
    ("cycle.nothing", "null", None, None),
    ("cycle.next", "object", None, "com.example.debuggee.Shapes$Derived"),
    ("this", "object", None, SHAPES),
    ("counter", "primitive", "7", None),  # a static of the frame's class
    ("Shapes.counter + com.example.debuggee.Shapes.counter", "primitive", "14", None),
    ("Base.KIND", "string", "base-kind", "java.lang.String"),  # a loaded nested class by simple name
    ("KEPT == this", "primitive", "true", None),
    ("ints.length", "primitive", "2500", None),
    ("ints[3] + ints[2499]", "primitive", str(9 + 2499 * 2499), None),
    ("ints[2499] * ints[2499]", "primitive", str(((2499**4 + 2**31) % 2**32) - 2**31), None),  # wraps
    ("2147483647 + 1", "primitive", "-2147483648", None),
    ("2147483647 + 1L", "primitive", "2147483648", None),
    ("longs[0] - 1", "primitive", str(2**63 - 1), None),  # long wraps too
    ("-7 / 2", "primitive", "-3", None),
    ("-7 % 2", "primitive", "-1", None),
    ("7 / 2.0", "primitive", "3.5", None),
    ("1.0 / 0", "primitive", "Infinity", None),
    ("doubles[0] * 10", "primitive", "1.0E11", None),
    ("floats[0] + 1", "primitive", "1.5", None),
    ("chars[0] + 1", "primitive", "98", None),
    ("flags[1] || bytes[0] < shorts[1]", "primitive", "true", None),
    ("false && nope", "primitive", "false", None),  # short-circuit: the unknown name is never read
    ('cycle.name == "base"', "primitive", "true", None),  # strings compare by text
    ('"n=" + round % 1 + \'!\' + 1.5f + null', "string", "n=0!1.5null", "java.lang.String"),
    ("objects[0] + cycle.name", "string", "sbase", "java.lang.String"),
    ("anObject instanceof java.util.List && anObject instanceof RandomAccess", "primitive", "true", None),
    ("cycle instanceof Base && !(cycle instanceof java.util.List)", "primitive", "true", None),
    ("ints instanceof int[] && ints instanceof Cloneable && !(null instanceof Object)", "primitive", "true", None),
    ("objects[3] == cycle", "primitive", "true", None),
    ("objects[1]", "object", "3", "java.lang.Integer"),  # a box shows its value (docs/design.md §3.7)
    # Containers through the view readers: their fields, never size(), get() or toString().
    ("many.size + one.size + hash.size + set.size", "primitive", str(10000 + 1 + 3 + 1), None),
    ("one[0]", "string", "only", "java.lang.String"),
    ("anObject[1]", "string", "y", "java.lang.String"),  # declared Object: the runtime type decides
    ("many[9999] == many[9999]", "primitive", "true", None),
    ("many[7]", "object", "7", "java.lang.Integer"),
    ("withNull[1]", "null", None, None),
    ("fixed[1] + unmodifiable[0]", "string", "f1only", "java.lang.String"),
    ('hash["one"]', "object", "1", "java.lang.Integer"),
    ("hash[null] == hash[null]", "primitive", "true", None),
    ('hash["nullValue"]', "null", None, None),
    ('ordered["mid"] == ordered["mid"]', "primitive", "true", None),
    ("bigMap[5] == bigMap[5] && bigMap.size == 10000", "primitive", "true", None),
    ("bigMap[5L] == bigMap[5]", "primitive", "true", None),  # the boxed key's value compares numerically
    ("loud[0]", "string", "quiet", "java.lang.String"),  # Loud overrides size(): never called
    ("loud.size", "primitive", "1", None),
    ("concurrent.size", "primitive", "2", None),  # ConcurrentHashMap has no field size: its view's count
]

FAILURES: list[tuple[str, str]] = [
    ("cycle.nothing.x", "null dereference"),
    ("nope + 1", "unknown name 'nope'"),
    ("odd.length()", "invocation"),
    ("ints[2500]", "out of range"),
    ("ints[1L]", "must be an int"),
    ("1 / (round - round)", "division by zero"),
    ('"x" + anObject', "toString"),
    ("cycle[0]", "not an array, a list or a map"),
    ("cycle.missing", "has no field 'missing'"),
    ("round && true", "boolean"),
    ("Shapes.nothing", "no static field 'nothing'"),
    ("one[1]", "out of range"),
    ('one["x"]', "list index must be an int"),
    ('hash["absent"]', "no such key"),
    ("set[0]", "not an array, a list or a map"),
]


async def test_expressions_in_a_real_frame(shapes: Debuggee) -> None:
    with trio.fail_after(90):
        async with jdwp.open_jdwp_tcp("127.0.0.1", shapes.port) as vm, open_debugger(vm) as debugger:
            await debugger.set_breakpoint(SHAPES, find_mark("shapes")[1])
            stop = await next_stop(debugger)
            frame = (await debugger.stack(stop.stop_id, stop.thread_id, limit=1)).frames[0].frame_id
            for expression, kind, value, runtime in VALUES:
                result = await debugger.evaluate(stop.stop_id, frame, expression)
                assert isinstance(result, Summary)
                assert (result.kind, result.value, result.runtime_type) == (kind, value, runtime), expression
            for expression, reason in FAILURES:
                with pytest.raises(EvaluationFailed) as caught:
                    await debugger.evaluate(stop.stop_id, frame, expression)
                assert reason in str(caught.value), expression
                assert caught.value.code == "DEBUGGER_EVALUATION_FAILED"
            with pytest.raises(ExpressionSyntaxError) as syntax:
                await debugger.evaluate(stop.stop_id, frame, "cycle.name ==")
            assert syntax.value.column == 14 and syntax.value.code == "INVALID_ARGUMENT"
            # Handles are the session's: an object reached by an expression keeps the id the locals show.
            shown = {v.name: v for v in (await debugger.locals(stop.stop_id, frame)).locals}
            reached = await debugger.evaluate(stop.stop_id, frame, "objects[3]")
            assert reached.object_id == shown["cycle"].object_id
            await debugger.resume(stop.stop_id)
    assert not any("APP CODE RAN" in line for line in shapes.lines)


async def test_a_bare_name_finds_a_static_of_the_class_a_frame_is_nested_in(shapes: Debuggee) -> None:
    """In ``Shapes.Key.compareTo`` (a nested class's frame), ``counter`` is ``Shapes.counter``, as the source
    reads it; a field of ``this`` still comes first."""
    with trio.fail_after(90):
        async with jdwp.open_jdwp_tcp("127.0.0.1", shapes.port) as vm, open_debugger(vm) as debugger:
            await debugger.set_breakpoint(SHAPES, find_mark("shapes-key")[1])
            stop = await next_stop(debugger)
            frame = (await debugger.stack(stop.stop_id, stop.thread_id, limit=1)).frames[0].frame_id
            for expression, value in (("counter", "7"), ("counter + id - id", "7"), ("KEPT == KEPT", "true")):
                result = await debugger.evaluate(stop.stop_id, frame, expression)
                assert isinstance(result, Summary) and result.value == value, expression
            with pytest.raises(EvaluationFailed, match="or the classes it is nested in"):
                await debugger.evaluate(stop.stop_id, frame, "nowhere")
            await debugger.detach()

"""The values real libraries hold, against Debian's Gson and Guava on OpenJDK 17 (docs/tools.md, "Values"):
``fixtures/gson``'s ``GsonMain`` deserialises a graph with the real Gson (maps Gson builds are its
``LinkedTreeMap``), then holds the JDK's and Guava's common values. Each is read from its fields, never by
running app code, and shown as IntelliJ shows it (``BigDecimal`` as ``1234.50``). Also: previews on every
stop of a thread that steps on and on (they used to vanish from its third stop).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import BreakpointVerified, Debugger, InvalidArgument, LogpointHit, Stop, Stopped, open_debugger
from jdwp.debugger.model import Capture
from support.jvm import Debuggee, debuggees
from support.live import require_tool
from support.real_programs import GSON_MAIN, gson_classpath, gson_mark
from support.stops import first_stop_after_start

pytestmark = pytest.mark.live

#: The next stop past the suspended start, passing over breakpoints binding only.
next_stop = partial(first_stop_after_start, passing=(BreakpointVerified,))


@pytest.fixture(scope="module")
def gson_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    return gson_classpath(tmp_path_factory.mktemp("gson"))


@pytest.fixture
def gson_app(gson_path: str) -> Iterator[Debuggee]:
    yield from debuggees(gson_path, GSON_MAIN, ready=False, suspend=True, java=require_tool("java"))



@asynccontextmanager
async def at_mark(debuggee: Debuggee, mark: str) -> AsyncIterator[tuple[Debugger, Stop, dict[str, Any]]]:
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        bp = await debugger.set_breakpoint(GSON_MAIN, gson_mark(mark))
        assert bp.status in ("verified", "pending"), bp.reason
        stop = await next_stop(debugger)
        page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
        result = await debugger.locals(stop.stop_id, page.frames[0].frame_id)
        yield debugger, stop, {local.name: local for local in result.locals}


def without_preview(summaries: Any) -> list[str]:
    """The names of objects and arrays of a primitive type with no preview (an array of objects has none by
    design: its type and length say it)."""
    return [s.name for s in summaries if (s.kind == "object" or (s.kind == "array" and not (
        s.runtime_type or "").endswith("[][]") and (s.runtime_type or "").split("[")[0] in (
        "int", "long", "byte", "char", "short", "boolean", "float", "double"))) and s.preview is None]


async def test_every_stop_of_a_stepping_thread_keeps_its_previews(gson_app: Debuggee) -> None:
    """Steps with a capture of the locals (as an agent steps): from the thread's third stop on, frame 0's locals
    were read ahead with a guess of its frame ID, without previews, and kept as the stop's locals."""
    with trio.fail_after(120):
        async with at_mark(gson_app, "gson-step") as (debugger, stop, by_name):
            assert not without_preview(by_name.values())
            sizes = []
            for _ in range(7):
                await debugger.step(stop.stop_id, stop.thread_id or "", "over", capture=Capture(locals=True))
                stop = await next_stop(debugger)
                assert stop.capture is not None and stop.capture.locals is not None
                captured = stop.capture.locals.locals
                assert captured and not without_preview(captured), (stop.location, without_preview(captured))
                page = await debugger.stack(stop.stop_id, stop.thread_id, limit=1)
                listed = (await debugger.locals(stop.stop_id, page.frames[0].frame_id)).locals
                assert not without_preview(listed), (stop.location, without_preview(listed))
                fresh = await debugger.evaluate(stop.stop_id, None, "ledger.amounts")
                assert fresh.preview == "ArrayList(size=3)"  # a value first read at this stop
                sizes.append({s.name: s.preview for s in captured}["steps"])
            # A preview is of its own stop: the deque grows as the thread steps.
            assert sizes[:3] == ["ArrayDeque(size=1)", "ArrayDeque(size=2)", "ArrayDeque(size=3)"], sizes
            await debugger.resume(stop.stop_id)


def contents(page: Any) -> Any:
    """A page as plain data: its text, its entries (key, value) or elements, or its value; each item as its value
    or else its preview."""
    if page.text is not None:
        return page.text
    if page.entries is not None:
        return [(e.key.value or e.key.preview, e.value.value or e.value.preview) for e in page.entries]
    if page.elements is not None:
        return [e.value or e.preview for e in page.elements]
    if page.value is not None:
        return page.value.value
    return None


#: Each local of the gson-look stop: its preview, and what get_debugger_object shows (text, entries, elements).
SHOWN = {
    "byUser": ("LinkedTreeMap(size=2)", None),  # Gson's map for Map<String, User>, in insertion order
    "loose": ("LinkedTreeMap(size=3)", [("k", "v"), ("n", "2.5"), ("list", "ArrayList(size=2)")]),
    "price": ("1234.50", "1234.50"),
    "negative": ("-0.05", "-0.05"),
    "big": ("12345678901234567890.12", "12345678901234567890.12"),  # intCompact INFLATED: intVal's digits
    "scaled": ("1.2345E+7", "1.2345E+7"),
    "serial": ("123456789012345678901234567890", "123456789012345678901234567890"),
    "small": ("-42", "-42"),
    "zero": ("0", "0"),
    "colors": ("EnumMap(size=2)", [("RED", "1"), ("BLUE", "3")]),
    "heap": ("PriorityQueue(size=5)", ["1", "2", "4", "5", "3"]),  # heap order, as the array holds them
    "linkedQueue": ("ConcurrentLinkedQueue(size=3)", ["a", "b", "c"]),
    "blocking": ("LinkedBlockingQueue(size=2)", ["x", "y"]),
    "bounded": ("ArrayBlockingQueue(size=4)", ["8", "9", "10", "11"]),  # a ring that wrapped
    "deque": ("ConcurrentLinkedDeque(size=2)", ["p", "q"]),
    "blockingDeque": ("LinkedBlockingDeque(size=3)", ["m", "n", "o"]),
    "guavaList": ("RegularImmutableList(size=3)", ["g1", "g2", "g3"]),
    "guavaSet": ("RegularImmutableSet(size=2)", ["s1", "s2"]),
    "guavaMap": ("RegularImmutableMap(size=2)", [("one", "1"), ("two", "2")]),
    "guavaOne": ("SingletonImmutableList(size=1)", ["only"]),
    "jdkList": ("ListN(size=3)", ["j1", "j2", "j3"]),  # List.of, Set.of, Map.of: java.util.ImmutableCollections
    "jdkOne": ("List12(size=1)", ["solo"]),
    "jdkTwo": ("List12(size=2)", ["a", "b"]),
    "jdkSetOne": ("Set12(size=1)", ["z"]),
    "jdkMapOne": ("Map1(size=1)", [("k", "9")]),
    "streamed": ("ListN(size=2)", ["4", "5"]),
    "present": ('Optional(value="here")', "here"),
    "absent": ("Optional(value=null)", None),
    "counter": ("7", "7"),  # as toString() prints it
    "total": ("-9000000000", "-9000000000"),
    "flag": ("true", "true"),
    "holder": ('AtomicReference(value="held")', "held"),
    "day": ("2026-12-07", "2026-12-07"),
    "instant": ("2023-11-14T22:13:20.123Z", "2023-11-14T22:13:20.123Z"),
    "duration": ("PT1H2M3.5S", "PT1H2M3.5S"),
}


async def test_library_values_are_shown_as_intellij_shows_them(gson_app: Debuggee) -> None:
    with trio.fail_after(120):
        async with at_mark(gson_app, "gson-look") as (debugger, stop, by_name):
            for name, (preview, shown) in SHOWN.items():
                if preview is not None:
                    assert by_name[name].preview == preview, name
                page = await debugger.object(stop.stop_id, by_name[name].object_id)
                if shown is not None:
                    assert contents(page) == shown, name
            # Set.of and Map.of keep a salted table: their items come in table order, which each run changes
            for name, preview, shown in (("jdkSet", "SetN(size=3)", ["t1", "t2", "t3"]),
                                         ("jdkMap", "MapN(size=3)", [("one", "1"), ("three", "3"), ("two", "2")])):
                assert by_name[name].preview == preview, name
                assert sorted(contents(await debugger.object(stop.stop_id, by_name[name].object_id))) == shown
            heap = await debugger.object(stop.stop_id, by_name["heap"].object_id)
            assert heap.note is not None and "heap order" in heap.note
            users = await debugger.object(stop.stop_id, by_name["byUser"].object_id)
            assert [e.key.value for e in users.entries] == ["bob", "ann"]
            # the second page of a linked map starts where the first ended
            second = await debugger.object(stop.stop_id, by_name["loose"].object_id, offset=2, limit=1)
            assert contents(second) == [("list", "ArrayList(size=2)")] and second.next_offset is None
            bob = await debugger.object(stop.stop_id, by_name["bob"].object_id, depth=2)
            assert {f.name: f.preview for f in bob.fields}["balance"] == "1234.50"
            await debugger.resume(stop.stop_id)
        assert not any("Exception" in line for line in gson_app.lines)


async def test_expressions_read_them_sizes_and_keys(gson_app: Debuggee) -> None:
    with trio.fail_after(120):
        async with at_mark(gson_app, "gson-look") as (debugger, stop, _):
            async def value(expression: str) -> str | None:
                return (await debugger.evaluate(stop.stop_id, None, expression)).value

            assert (await debugger.evaluate(stop.stop_id, None, 'byUser["bob"]')).preview.startswith(
                'User(name="Bob", age=41')
            assert await value('byUser["bob"].age') == "41"
            assert await value('loose["k"]') == "v"
            assert await value('colors["RED"]') == "1" and await value('colors["BLUE"]') == "3"
            assert await value("colors.size") == "2" and await value("colors.isEmpty()") == "false"
            assert await value("byUser.size()") == "2" and await value("heap.size") == "5"
            assert await value("linkedQueue.size") == "3" and await value("bounded[0]") == "8"
            assert await value('guavaMap["two"]') == "2" and await value("guavaList[2]") == "g3"
            assert await value("guavaSet.isEmpty") == "false" and await value("blockingDeque.size()") == "3"
            assert await value("byUser.size == 2 && colors.size < heap.size") == "true"
            assert await value('jdkMap["two"]') == "2" and await value("jdkList[1]") == "j2"
            assert await value("jdkSet.size") == "3" and await value("jdkOne.size()") == "1"
            with pytest.raises(Exception, match="no such key"):
                await value('colors["GREEN"]')
            await debugger.resume(stop.stop_id)


async def test_conditions_and_log_messages_call_methods_only_with_allow_invoke(gson_app: Debuggee) -> None:
    """A type whose text only its code knows is read through its methods where the user accepts running app
    code (``--allow-invoke``): the breakpoint says once that each hit runs it."""
    line = gson_mark("gson-step")
    with trio.fail_after(120):
        async with jdwp.open_jdwp_tcp("127.0.0.1", gson_app.port) as vm, open_debugger(vm) as debugger:
            with pytest.raises(InvalidArgument, match="--allow-invoke"):
                await debugger.set_breakpoint(GSON_MAIN, line, condition='price.toPlainString().equals("1234.50")')
            debugger.allow_invoke = True
            logged = await debugger.set_breakpoint(GSON_MAIN, line, action="log",
                                                   log_message="plain={price.toPlainString()} "
                                                               "json={gson.toJson(colors).length()}")
            assert logged.note is not None and "each hit runs app code" in logged.note
            stopping = await debugger.set_breakpoint(
                GSON_MAIN, line, condition='price.toPlainString().equals("1234.50") && !serial.toString().isEmpty()')
            assert stopping.note is not None
            plain = await debugger.set_breakpoint(GSON_MAIN, gson_mark("gson-look"), condition="heap.size > 1")
            assert plain.note is None  # reads fields only
            stop = await next_stop(debugger)
            assert stop.breakpoint_ids == (plain.breakpoint_id,)
            await debugger.resume(stop.stop_id)
            hit: LogpointHit | None = None
            stop = None
            while stop is None or hit is None:
                event = await debugger.events.receive()
                if isinstance(event, LogpointHit):
                    hit = event
                elif isinstance(event, Stopped):
                    stop = event.stop
            assert hit is not None and hit.message == "plain=1234.50 json=18", hit.message
            assert stop.breakpoint_ids == (stopping.breakpoint_id,) and stop.condition_error is None
            await debugger.resume(stop.stop_id)


JAVAC_MAIN = "com.sun.tools.javac.Main"
ATTR = "com.sun.tools.javac.comp.Attr"
#: The first line of ``Attr.visitMethodDef(JCMethodDecl tree)`` in OpenJDK 17's jdk.compiler (with its
#: variable table: ``tree`` is named).
VISIT_METHOD_DEF = 991


@pytest.fixture
def javac_app(tmp_path: Path) -> Iterator[Debuggee]:
    """javac itself (``jdk.compiler``, in every JDK) compiling a two-method class, suspended at start."""
    source = tmp_path / "Hello.java"
    source.write_text("class Hello {\n  static int add(int a, int b) { return a + b; }\n"
                      "  public static void main(String[] args) { System.out.println(add(1, 2)); }\n}\n",
                      encoding="utf-8")
    yield from debuggees(tmp_path, JAVAC_MAIN, ready=False, suspend=True, java=require_tool("java"),
                         args=("-d", str(tmp_path / "out"), str(source)))


async def test_javac_s_own_list_and_names(javac_app: Debuggee) -> None:
    """javac's cons list (``tree.params``) has a size and elements; its ``Name`` keeps its fields (its text is
    only its code's), and with --allow-invoke a condition may call ``toString()`` on it."""
    with trio.fail_after(120):
        async with jdwp.open_jdwp_tcp("127.0.0.1", javac_app.port) as vm, open_debugger(vm) as debugger:
            debugger.allow_invoke = True
            bp = await debugger.set_breakpoint(ATTR, VISIT_METHOD_DEF,
                                               condition='tree.name.toString().equals("add")')
            assert bp.note is not None and "app code" in bp.note
            stop = await next_stop(debugger)
            assert stop.condition_error is None, stop.condition_error

            async def value(expression: str) -> Any:
                return await debugger.evaluate(stop.stop_id, None, expression)

            assert (await value("tree.params.size")).value == "2"
            assert (await value("tree.params.size()")).value == "2"
            assert (await value("tree.params.isEmpty")).value == "false"
            first = await value("tree.params[0]")
            assert first.runtime_type == "com.sun.tools.javac.tree.JCTree$JCVariableDecl"
            assert (await value("tree.params[1].name.toString()")).value == "b"
            params = await debugger.object(stop.stop_id, (await value("tree.params")).object_id)
            assert params.view == "list" and params.size == 2 and (await value("tree.params")).preview == "List(size=2)"
            name = await debugger.object(stop.stop_id, (await value("tree.name")).object_id)
            assert name.view == "fields"  # a Name's text is in javac's shared table: only its code reads it
            await debugger.resume(stop.stop_id)

"""The values real libraries hold, against Debian's Gson and Guava on OpenJDK 17 (docs/tools.md, "Values"):
``fixtures/gson``'s ``GsonMain`` deserialises a graph with the real Gson (maps Gson builds are its
``LinkedTreeMap``), then holds the JDK's and Guava's common values. Each is read from its fields, never by
running app code, and shown as IntelliJ shows it (``BigDecimal`` as ``1234.50``). Also: previews on every
stop of a thread that steps on and on (they used to vanish from its third stop).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import BreakpointVerified, Debugger, Stop, Stopped, open_debugger
from jdwp.debugger.model import Capture
from support.jvm import Debuggee, debuggees
from support.live import require_tool
from support.real_programs import GSON_MAIN, gson_classpath, gson_mark

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def gson_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    return gson_classpath(tmp_path_factory.mktemp("gson"))


@pytest.fixture
def gson_app(gson_path: str) -> Iterator[Debuggee]:
    yield from debuggees(gson_path, GSON_MAIN, ready=False, suspend=True, java=require_tool("java"))


async def next_stop(debugger: Debugger) -> Stop:
    while True:
        event = await debugger.events.receive()
        if isinstance(event, BreakpointVerified):
            continue
        assert isinstance(event, Stopped), event
        if event.stop.reasons == ("vm_start",):
            await debugger.resume(event.stop.stop_id)
            continue
        return event.stop


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

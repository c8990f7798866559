"""The values Jackson builds, against Debian's Jackson (databind 2.14) on OpenJDK 17 (docs/tools.md, "Values"):
``fixtures/jackson``'s ``JacksonMain`` reads JSON into the ``LinkedHashMap``/``ArrayList``/``BigDecimal`` values
databind makes (``USE_BIG_DECIMAL_FOR_FLOATS``) and into Jackson's own tree. Each is read from its fields, never
by running app code: a decimal reads as IntelliJ shows it (``1234.50``), map keys and indexes work in expressions,
and a type no reader knows (``ObjectNode``) shows its fields.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
import trio

import jdwp
from jdwp.debugger import BreakpointVerified, open_debugger
from support.jvm import Debuggee, debuggees
from support.live import require_tool
from support.real_programs import JACKSON_MAIN, jackson_classpath, jackson_mark
from support.stops import first_stop_after_start

pytestmark = pytest.mark.live

#: The next stop past the suspended start, passing over breakpoints binding only.
next_stop = partial(first_stop_after_start, passing=(BreakpointVerified,))


@pytest.fixture
def jackson_app(tmp_path: Path) -> Iterator[Debuggee]:
    path = jackson_classpath(tmp_path)
    yield from debuggees(path, JACKSON_MAIN, ready=False, suspend=True, java=require_tool("java"))



async def test_jacksons_maps_lists_and_decimals_read_as_intellij_shows_them(jackson_app: Debuggee) -> None:
    with trio.fail_after(120):
        async with jdwp.open_jdwp_tcp("127.0.0.1", jackson_app.port) as vm, open_debugger(vm) as debugger:
            bp = await debugger.set_breakpoint(JACKSON_MAIN, jackson_mark("jackson-look"))
            assert bp.status in ("verified", "pending"), bp.reason
            stop = await next_stop(debugger)
            page = await debugger.stack(stop.stop_id, stop.thread_id or "", limit=1)
            listed = {local.name: local for local in (await debugger.locals(stop.stop_id,
                                                                             page.frames[0].frame_id)).locals}
            assert listed["total"].preview == "1234.50"
            assert listed["count"].value == "2"
            assert listed["parsed"].preview is not None and listed["parsed"].preview.startswith("LinkedHashMap")

            async def value(expression: str) -> str | None:
                found = await debugger.evaluate(stop.stop_id, None, expression)
                return found.value if found.value is not None else found.preview

            assert await value('parsed["orders"][0]["user"]') == "bob"
            assert await value('parsed["orders"][0]["total"]') == "1234.50"
            # Past a long's range: BigInteger digits computed on the host, then the scale applied.
            assert await value('parsed["orders"][1]["total"]') == "12345678901234567890.125"
            assert await value('parsed["orders"].size') == "2"
            assert await value('parsed["open"]') == "true"
            assert await value('parsed["note"]') is None
            # Jackson's own tree has no reader: its fields show (ObjectNode keeps its entries in _children).
            tree = await debugger.evaluate(stop.stop_id, None, "tree")
            assert tree.object_id is not None
            shown = await debugger.object(stop.stop_id, tree.object_id)
            assert "_children" in {f.name for f in shown.fields}
            assert await value('tree._children["orders"]._children.size') == "2"
            await debugger.resume(stop.stop_id)

"""Hostile strings on OpenJDK 17 (docs/design.md §2.7, issue 23 item 2), through the engine API the MCP tools use.

``BigStrings`` stops with a 30,000,000-char ``String`` (UTF16; its whole ``StringReference.Value`` would be a
90 MB reply, over the 64 MiB packet cap: it ended the session before) and a 10,000,000-char ``StringBuilder``
in its locals. Every read-only call keeps the app alive (its process running, no ``hs_err`` file) and the
session alive (a further call works), with answers bounded in bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from test_values_live import next_stop

import jdwp
from jdwp.debugger import LogpointHit, open_debugger
from support.hostile import answer_bytes, app_alive
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool

BIG_STRINGS = "com.example.hostile.BigStrings"
HUGE_LENGTH, BUILDER_LENGTH = 30_000_000, 10_000_000


@pytest.fixture
def big_strings(java_classes: Path, tmp_path: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, BIG_STRINGS, java=require_tool("java"), extra_args=("-Xmx512m",),
                         cwd=tmp_path)


async def test_a_30m_char_string_and_a_10m_char_builder_are_read_as_far_as_shown(
        big_strings: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(120):
        async with jdwp.open_jdwp_tcp("127.0.0.1", big_strings.port) as vm, open_debugger(vm) as debugger:
            bp = await debugger.set_breakpoint(BIG_STRINGS, find_mark("hostile-strings")[1])
            stop = await next_stop(debugger)
            frame = (await debugger.stack(stop.stop_id, stop.thread_id, limit=1)).frames[0].frame_id
            found = await debugger.locals(stop.stop_id, frame)
            by_name = {local.name: local for local in found.locals}
            huge = by_name["huge"]
            assert (huge.kind, huge.length, huge.truncated) == ("string", HUGE_LENGTH, True)
            assert huge.value == "x\u20ac" * 128
            assert answer_bytes(found) < 16_384
            assert (by_name["small"].value, by_name["small"].length) == ("tail", 4)
            assert vm.statistics()["oversized"] == 0  # nothing over the cap was even asked

            # A page deep inside the string: that page's units only.
            page = await debugger.object(stop.stop_id, huge.object_id, offset=29_990_000, limit=10_000)
            assert (page.total, page.next_offset, page.text) == (HUGE_LENGTH, None, "x\u20ac" * 5_000)
            assert answer_bytes(page) < 65_536

            # The builder's page: its slice of the 10M-element backing array.
            builder = await debugger.object(stop.stop_id, by_name["builder"].object_id, offset=5_000_000, limit=52)
            assert builder.view == "string" and builder.total == BUILDER_LENGTH
            expected = "".join(chr(ord("a") + k % 26) for k in range(5_000_000, 5_000_052))
            assert builder.text == expected

            # Expressions: a comparison by length, a comparison that would need the whole text is refused.
            assert (await debugger.evaluate(stop.stop_id, frame, 'huge == "x"')).value == "false"
            refused = await _evaluation_error(debugger, stop.stop_id, frame, 'huge + "!"')
            assert "30,000,000 characters" in refused
            assert (await debugger.evaluate(stop.stop_id, frame, "huge")).length == HUGE_LENGTH

            assert app_alive(big_strings, tmp_path)
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.resume(stop.stop_id)

            # A condition on the huge string is judged without reading it whole; the session goes on.
            line = find_mark("hostile-strings")[1]
            conditional = await debugger.set_breakpoint(BIG_STRINGS, line, condition='huge != "x"')
            again = await next_stop(debugger)
            await debugger.remove_breakpoint(conditional.breakpoint_id)
            await debugger.resume(again.stop_id)

            # A logpoint whose template names the huge string renders a bounded prefix.
            logpoint = await debugger.set_breakpoint(BIG_STRINGS, line, action="log", log_message="{huge}|{small}")
            event = await debugger.events.receive()
            while not isinstance(event, LogpointHit):
                event = await debugger.events.receive()
            await debugger.remove_breakpoint(logpoint.breakpoint_id)
            assert event.message == "x\u20ac" * 128 + "…|tail"
            assert app_alive(big_strings, tmp_path) and not vm.is_closed


async def _evaluation_error(debugger: object, stop_id: str, frame: str, expression: str) -> str:
    from jdwp.debugger import EvaluationFailed

    with pytest.raises(EvaluationFailed) as info:
        await debugger.evaluate(stop_id, frame, expression)  # type: ignore[attr-defined]
    return str(info.value)

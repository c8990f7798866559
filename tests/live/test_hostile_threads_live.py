"""Hostile stacks and threads on OpenJDK 17 (docs/design.md §2.7, issue 23 item 2), through the engine API the MCP
tools use.

``DeepStacks`` has 5,000 parked threads and one thread 10,000 frames deep that reaches the marked line in a
loop. Stack pages (``ThreadReference.Frames`` 11,6 with the page's start and length), thread listings at a
breakpoint's stop and at a pause (at most 1,000 threads, ``truncated``), and locals keep the app alive (its
process running, no ``hs_err`` file) and the session alive, with answers bounded in bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from test_values_live import next_stop

import jdwp
from jdwp.debugger import open_debugger
from support.hostile import answer_bytes, app_alive
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool

DEEP_STACKS = "com.example.hostile.DeepStacks"


@pytest.fixture
def deep_stacks(java_classes: Path, tmp_path: Path) -> Iterator[Debuggee]:
    yield from debuggees(java_classes, DEEP_STACKS, java=require_tool("java"), extra_args=("-Xmx256m",),
                         cwd=tmp_path)


async def test_a_10000_frame_stack_and_5000_threads_are_read_in_bounded_pages(
        deep_stacks: Debuggee, tmp_path: Path) -> None:
    with trio.fail_after(180):
        async with jdwp.open_jdwp_tcp("127.0.0.1", deep_stacks.port) as vm, open_debugger(vm) as debugger:
            bp = await debugger.set_breakpoint(DEEP_STACKS, find_mark("hostile-deep")[1])
            stop = await next_stop(debugger)
            assert stop.thread_name == "deep"
            top = await debugger.stack(stop.stop_id, stop.thread_id, limit=20)
            assert len(top.frames) == 20 and top.total == 1000 and top.truncated and top.next_offset == 20
            assert top.frames[0].method == "tick" and top.frames[2].method == "down"
            assert answer_bytes(top) < 16_384
            deep = await debugger.stack(stop.stop_id, stop.thread_id, offset=990, limit=100)
            assert len(deep.frames) == 10 and deep.next_offset is None and deep.frames[-1].index == 999
            assert all(f.method == "down" for f in deep.frames)
            found = await debugger.locals(stop.stop_id, deep.frames[0].frame_id)
            assert {v.name for v in found.locals} >= {"depth"}

            listing = await debugger.threads(stop.stop_id, stack_depth=5)
            assert listing.total >= 5_001 and listing.truncated and len(listing.threads) == 1000
            assert listing.note is not None and "stack_depth 5 was cut to 2 frames a thread" in listing.note
            assert sum(len(t.frames or ()) for t in listing.threads) <= 2_000
            assert answer_bytes(listing) < 1_000_000
            assert app_alive(deep_stacks, tmp_path)
            await debugger.remove_breakpoint(bp.breakpoint_id)
            await debugger.resume(stop.stop_id)

            paused = await debugger.pause()
            at_pause = await debugger.threads(paused.stop_id)
            assert at_pause.total >= 5_001 and at_pause.truncated and len(at_pause.threads) == 1000
            running = await debugger.threads()
            assert running.truncated and len(running.threads) == 1000
            await debugger.resume(paused.stop_id)
            assert app_alive(deep_stacks, tmp_path) and not vm.is_closed
            assert len(await vm.all_threads()) >= 5_001  # the session answers after all of it

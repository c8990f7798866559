"""Hostile heaps on a real OpenJDK 17 debuggee (``hostile.BigContainers``, docs/design.md §2.7): 1,000,000-entry
``HashMap``/``HashSet``/``LinkedHashMap``/``ConcurrentHashMap``, a 1,000,000-element ``Object[]`` and
``ArrayList`` and a 10,000,000-element ``int[]``, read through the engine's ``object`` (what
``get_debugger_object`` calls) and ``evaluate``.

HotSpot's agent ends the whole VM when one ``ArrayReference.GetValues`` asks for more than ~65,536
references (:mod:`jdwp.debugger.reading.tables`); these tables have 2,097,152 slots. Every read must leave the app
running (no ``hs_err`` file, the process alive) and the session usable, and answer a bounded page. A page
deep in a hash map is located within a budget per call (:data:`jdwp.debugger.reading.hashscan.PAGE_BUDGET`),
kept for the stop, so asking again goes on: the loop below asks until the page comes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

import jdwp
from jdwp.debugger import BreakpointVerified, Debugger, EvaluationFailed, Stopped, open_debugger
from jdwp.debugger.reading import hashscan
from support.jvm import Debuggee, debuggees, find_mark
from support.live import require_tool

BIG = "com.example.hostile.BigContainers"
ENTRIES = 1_000_000


_WORKING_DIRS: dict[int, Path] = {}


@pytest.fixture
def big(java_classes: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Debuggee]:
    cwd = tmp_path_factory.mktemp("big-containers")  # where the VM would write an hs_err file
    for debuggee in debuggees(java_classes, BIG, java=require_tool("java"), extra_args=("-Xmx1g",), cwd=cwd):
        _WORKING_DIRS[id(debuggee)] = cwd
        yield debuggee


def alive(debuggee: Debuggee) -> None:
    """The app still runs: the process is up, the agent printed no exit error, the VM wrote no hs_err file."""
    assert debuggee.process.poll() is None, "\n".join(debuggee.lines[-20:])
    assert not any("JDWP exit error" in line for line in debuggee.lines), debuggee.lines[-5:]
    assert not list(_WORKING_DIRS[id(debuggee)].glob("hs_err*")), "the VM crashed"


@asynccontextmanager
async def stopped(debuggee: Debuggee) -> AsyncIterator[tuple[Debugger, Any, str, dict[str, Any]]]:
    async with jdwp.open_jdwp_tcp("127.0.0.1", debuggee.port) as vm, open_debugger(vm) as debugger:
        await debugger.set_breakpoint(BIG, find_mark("big-containers")[1])
        event = await debugger.events.receive()
        while isinstance(event, BreakpointVerified):
            event = await debugger.events.receive()
        assert isinstance(event, Stopped), event
        stop = event.stop
        frame = (await debugger.stack(stop.stop_id, stop.thread_id, limit=1)).frames[0].frame_id
        result = await debugger.locals(stop.stop_id, frame)
        yield debugger, stop, frame, {local.name: local for local in result.locals}
        await debugger.resume(stop.stop_id)


async def page_at(debugger: Debugger, stop_id: str, object_id: str, offset: int) -> Any:
    """The page at ``offset``, asked again while it answers "not located yet" (each call is bounded)."""
    for _ in range(30):
        page = await debugger.object(stop_id, object_id, offset=offset, limit=100)
        if page.note is None or "not located yet" not in page.note:
            return page
        assert page.offset == offset and page.next_offset == offset and not (page.entries or page.elements)
    raise AssertionError(f"page {offset} of {object_id} never located")


def check_entry(key: Any, value: Any) -> None:
    assert key.kind == "string" and key.value.startswith("k"), key
    assert value.kind != "null" and value.runtime_type == "java.lang.Integer", value


async def test_pages_of_million_entry_hash_containers_keep_the_app_and_session_alive(
        big: Debuggee, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hashscan, "PAGE_BUDGET", 2.0)  # shorter calls: the same rule, asked more often
    with trio.fail_after(600):
        async with stopped(big) as (debugger, stop, _, by_name):
            for name in ("hashMap", "concurrentMap", "linkedMap", "hashSet"):
                first = await debugger.object(stop.stop_id, by_name[name].object_id, limit=100)
                assert first.size == ENTRIES and first.next_offset == 100, (name, first)
                items = first.entries if first.view == "map" else first.elements
                assert len(items) == 100 and [i.index for i in items] == list(range(100))
                if first.view == "map":
                    for entry in first.entries:
                        check_entry(entry.key, entry.value)
                if name == "linkedMap":  # insertion order
                    assert [e.key.value for e in first.entries] == [f"k{i}" for i in range(100)]
                alive(big)
            # 900,000 in each: one call, bounded by the budget: the page or "ask again", the app alive.
            for name in ("hashMap", "concurrentMap", "hashSet"):
                page = await debugger.object(stop.stop_id, by_name[name].object_id, offset=900_000, limit=100)
                assert page.size == ENTRIES and page.offset == 900_000, name
                alive(big)
            # The LinkedHashMap's is walked from its tail, asked until it comes.
            deep = await page_at(debugger, stop.stop_id, by_name["linkedMap"].object_id, 900_000)
            assert [e.key.value for e in deep.entries] == [f"k{i}" for i in range(900_000, 900_100)]
            # A deep HashMap page (100,000 Integer keys) asked until it comes: right entries, no repeats.
            deep = await page_at(debugger, stop.stop_id, by_name["byNumber"].object_id, 90_000)
            assert deep.offset == 90_000 and len(deep.entries) == 100 and deep.next_offset == 90_100
            # A second page at the same stop reads only its own nodes: the scan is kept.
            calls = debugger.vm.statistics()["requests"]
            after = await debugger.object(stop.stop_id, by_name["byNumber"].object_id, offset=90_100, limit=100)
            assert debugger.vm.statistics()["requests"] - calls < 1_000
            texts = [e.value.value for e in deep.entries + after.entries]  # each value is "k" and its key
            assert len(set(texts)) == 200 and all(t.startswith("k") for t in texts)
            assert all(e.key.runtime_type == "java.lang.Integer" for e in deep.entries)
            alive(big)


async def test_big_arrays_and_lists_read_only_the_page(big: Debuggee) -> None:
    with trio.fail_after(120):
        async with stopped(big) as (debugger, stop, _, by_name):
            for name, total in (("objects", ENTRIES), ("list", ENTRIES), ("ints", 10_000_000)):
                for offset in (0, 900_000):
                    page = await debugger.object(stop.stop_id, by_name[name].object_id, offset=offset, limit=1000)
                    assert page.total == total and len(page.elements) == 1000, (name, offset)
                    assert page.elements[0].index == offset
                    if name == "ints":
                        assert page.elements[999].value == str(offset + 999)
                    else:
                        assert page.elements[0].value == f"k{offset}"
            alive(big)


async def test_key_lookups_read_one_bin(big: Debuggee) -> None:
    with trio.fail_after(120):
        async with stopped(big) as (debugger, stop, frame, _):
            for expression, expected in (('hashMap["k69999"] + 1', "70000"), ('linkedMap["k999999"] == 999999', "true"),
                                         ('concurrentMap["k123456"] - 6', "123450"), ("byNumber[42]", "k42"),
                                         ("concurrentByLong[99999]", "k99999")):
                calls = debugger.vm.statistics()["requests"]
                summary = await debugger.evaluate(stop.stop_id, frame, expression)
                assert summary.value == expected, (expression, summary)
                assert debugger.vm.statistics()["requests"] - calls < 50, expression
            for expression in ('hashMap["absent"]', "byNumber[100000]", 'concurrentMap["k-1"]'):
                with pytest.raises(EvaluationFailed, match="no such key"):
                    await debugger.evaluate(stop.stop_id, frame, expression)
            alive(big)

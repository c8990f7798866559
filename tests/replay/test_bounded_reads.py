"""Bounded commands against a scripted OpenJDK 17 heap (docs/design.md §2.7): no ``ArrayReference.GetValues``
(13,2) asks for more than 4,096 elements — HotSpot's agent ends the VM above ~65,536 references
(:mod:`jdwp.debugger.reading.tables`) — a hash map's table is scanned once per stop however many pages are read, and
a key lookup reads one bin. The heap is :mod:`heap_vm`'s: a ``HashMap`` of 10,000 ``Integer`` keys in a table
of 16,384 buckets (Integer ``k`` in bucket ``k``, as on OpenJDK) and an ``ArrayList`` of 10,000.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from heap_vm import standard_heap
from test_debugger_faults import locals_at_a_hit, scripted
from test_engine_waves import wave_handlers

from jdwp.debugger import Debugger, EvaluationFailed
from jdwp.debugger.reading.tables import MAX_ELEMENTS, read_region, spans
from support.fakevm import Handler, ScriptedVm, WaveVm


@asynccontextmanager
async def recorded() -> AsyncIterator[tuple[WaveVm, Debugger, str, dict[str, Any], str, list[tuple[int, int]]]]:
    """The heap's stop, and every ``ArrayReference.GetValues`` asked: ``(first index, length)``."""
    heap, local_names = standard_heap()
    asked: list[tuple[int, int]] = []

    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = heap.handlers(vm_ref, local_names)
        base = wave_handlers(vm_ref)
        table["VirtualMachine.IDSizes"] = base["VirtualMachine.IDSizes"]
        table["VirtualMachine.Version"] = base["VirtualMachine.Version"]
        region = table["ArrayReference.GetValues"]

        def recording(out: Any) -> Any:
            asked.append((out.first_index, out.length))
            return region(out)

        table["ArrayReference.GetValues"] = recording
        return table

    async with scripted(handlers, WaveVm) as (fake, debugger):
        assert isinstance(fake, WaveVm)
        stop_id, result = await locals_at_a_hit(fake, debugger)
        frame = (await debugger.stack(stop_id, debugger.current_stop.thread_id)).frames[0].frame_id  # type: ignore[union-attr]
        yield fake, debugger, stop_id, {v.name: v for v in result.locals}, frame, asked


def test_spans_cover_a_region_in_bounded_chunks() -> None:
    assert spans(0, 0) == []
    assert spans(5, 4096) == [(5, 4096)]
    assert spans(0, 10_000) == [(0, 4096), (4096, 4096), (8192, 1808)]
    assert sum(n for _, n in spans(123, 2_097_152)) == 2_097_152
    assert max(n for _, n in spans(0, 10_000_000)) == MAX_ELEMENTS


async def test_no_array_read_asks_for_more_than_4096_elements() -> None:
    async with recorded() as (_, debugger, stop_id, by_name, frame, asked):
        for offset in (0, 100, 5_000, 9_900):
            page = await debugger.object(stop_id, by_name["map"].object_id, offset=offset, limit=100)
            assert [e.index for e in page.entries] == list(range(offset, offset + 100))
            assert [e.value.value for e in page.entries] == [f"v{k}" for k in range(offset, offset + 100)]
        page = await debugger.object(stop_id, by_name["list"].object_id, offset=9_000, limit=1000)
        assert len(page.elements) == 1000
        summary = await debugger.evaluate(stop_id, frame, "map[77]")
        assert summary.value == "v77"
        assert asked and max(length for _, length in asked) <= MAX_ELEMENTS
        # The table was read once for the stop, as far as the last page needed (entry 9,999 is in slot 9,999):
        # no slot twice, and not all 16,384.
        table_reads = sorted((first, length) for first, length in asked if length > 1 and length != 1000)
        assert all(a + n <= b for (a, n), (b, _) in itertools.pairwise(table_reads))
        assert 10_000 <= sum(length for _, length in table_reads) < 16_384
        await debugger.resume(stop_id)


async def test_a_second_page_at_the_same_stop_reads_no_table() -> None:
    async with recorded() as (_, debugger, stop_id, by_name, _frame, asked):
        await debugger.object(stop_id, by_name["map"].object_id, limit=100)
        first = len(asked)
        assert first == 1 and asked[0] == (0, MAX_ELEMENTS)  # as far as the page needs: one chunk
        page = await debugger.object(stop_id, by_name["map"].object_id, offset=100, limit=100)
        assert page.entries[0].value.value == "v100" and len(asked) == first
        await debugger.resume(stop_id)


async def test_a_key_lookup_reads_one_bin() -> None:
    async with recorded() as (vm, debugger, stop_id, _, frame, asked):
        assert (await debugger.evaluate(stop_id, frame, "map[4242]")).value == "v4242"
        # Integer 4242's bin (its hashCode spread, masked by the table's length), and those a Long, Float or
        # Double 4242 would be in (the evaluator compares numbers across boxed types): slots, not the table.
        assert (4242, 1) in asked and len(asked) <= 4 and all(length == 1 for _, length in asked)
        # Once the classes are known (the first lookup learnt them): the map's table and length, the bins'
        # slots, their nodes, the keys' types and boxed values, the value's text.
        before = len(vm.waves)
        assert (await debugger.evaluate(stop_id, frame, "map[17]")).value == "v17"
        assert len(vm.waves) - before <= 7, "\n".join(map(str, vm.waves[before:]))
        with pytest.raises(EvaluationFailed, match="no such key"):
            await debugger.evaluate(stop_id, frame, "map[20000]")
        await debugger.resume(stop_id)


async def test_a_long_region_is_read_in_chunks_in_one_write() -> None:
    async with recorded() as (vm, debugger, stop_id, by_name, _, asked):
        page = await debugger.object(stop_id, by_name["map"].object_id, limit=1)  # the table's handle, by a field
        assert page.entries
        fields = await debugger.object(stop_id, by_name["map"].object_id, view="fields", limit=50)
        table = next(f for f in fields.fields if f.name == "table")
        wire, _ = debugger.values.resolve(table.object_id)  # type: ignore[arg-type]
        asked.clear()
        before = len(vm.waves)
        region = await read_region(debugger.vm, wire, 10, 16_000)
        assert len(region.values) == 16_000 and asked == spans(10, 16_000)
        assert len(vm.waves) - before == 1  # four commands, one write
        await debugger.resume(stop_id)

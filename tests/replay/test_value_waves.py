"""Round trips of value reads, counted as waves against a scripted heap (issue 12's budgets, as
bench/roundtrips.py measures them on a real JVM): a page of 100 entries of a 10,000-entry ``HashMap`` or
``ArrayList`` in at most 4, an object of 50 fields with 20 strings in at most 3, ``a.b.c[3].d`` in at most 4
(5 when its classes were never named in the session: see the test).

Each object is first seen in the frame's locals (its runtime type is known from there); its classes'
layouts are not: the first page also asks them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from heap_vm import standard_heap
from test_debugger_faults import locals_at_a_hit, scripted
from test_engine_waves import wave_handlers

from jdwp.debugger import Debugger
from support.fakevm import Handler, ScriptedVm, WaveVm


@asynccontextmanager
async def at_the_heap(nested: bool = False, previews: int = 0
                      ) -> AsyncIterator[tuple[WaveVm, Debugger, str, dict[str, Any], str]]:
    heap, local_names = standard_heap(nested)

    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = heap.handlers(vm_ref, local_names)
        base = wave_handlers(vm_ref)
        table["VirtualMachine.IDSizes"] = base["VirtualMachine.IDSizes"]
        table["VirtualMachine.Version"] = base["VirtualMachine.Version"]
        return table

    async with scripted(handlers, WaveVm) as (fake, debugger):
        assert isinstance(fake, WaveVm)
        debugger.preview_depth = previews  # previews' reads would warm the caches these budgets start without
        stop_id, result = await locals_at_a_hit(fake, debugger)
        frame = (await debugger.stack(stop_id, debugger.current_stop.thread_id)).frames[0].frame_id  # type: ignore[union-attr]
        yield fake, debugger, stop_id, {v.name: v for v in result.locals}, frame


async def counted(vm: WaveVm, call: Any) -> tuple[Any, list[list[str]]]:
    before = len(vm.waves)
    result = await call
    return result, vm.waves[before:]


def names(waves: list[list[str]]) -> list[list[str]]:
    return [sorted(set(wave)) for wave in waves]


async def test_a_page_of_a_big_hash_map_and_array_list_is_at_most_five_waves() -> None:
    async with at_the_heap() as (vm, debugger, stop_id, by_name, _):
        page, waves = await counted(vm, debugger.object(stop_id, by_name["map"].object_id, limit=100))
        assert page.size == 10_000 and len(page.entries) == 100
        # The map's fields with its nodes' class (named by the table's type) and the boxed primitives' classes
        # by name, the table with its length and those classes' layouts, the nodes, the keys' types and the
        # values' text. Integer, a class first seen here, is named by its type ID: no wave of its own. Then the
        # boxed values' primitives, all 100 in one wave (docs/design.md §3.7: shown inline).
        assert names(waves) == [
            ["ObjectReference.GetValues", "VirtualMachine.ClassesBySignature"],
            ["ArrayReference.GetValues", "ArrayReference.Length", "ClassType.Superclass", "ReferenceType.Fields"],
            ["ObjectReference.GetValues"],
            ["ObjectReference.ReferenceType", "StringReference.Value"],
            ["ObjectReference.GetValues"]]
        assert all(entry.value.value is not None for entry in page.entries)
        assert "ReferenceType.Signature" not in [name for wave in waves for name in wave]
        for name, offset in (("map", 100), ("map", 200), ("list", 0), ("list", 5000)):
            page, waves = await counted(vm, debugger.object(stop_id, by_name[name].object_id, offset=offset,
                                                            limit=100))
            assert page.size == 10_000 and len(page.entries or page.elements) == 100
            assert len(waves) <= 5, (name, offset, names(waves))
        await debugger.resume(stop_id)


async def test_an_object_of_fifty_fields_is_at_most_three_waves() -> None:
    async with at_the_heap() as (vm, debugger, stop_id, by_name, _):
        page, waves = await counted(vm, debugger.object(stop_id, by_name["wide"].object_id, limit=50))
        assert len(page.fields) == 50 and sum(f.kind == "string" for f in page.fields) == 20
        # Its class's layout came with the locals; Object's comes with the fields' values, then the strings.
        assert len(waves) <= 3, names(waves)
        await debugger.resume(stop_id)


async def test_a_chain_of_fields_and_an_index_is_at_most_four_waves_when_its_classes_are_named() -> None:
    # As in the bench: B and D are nested in the breakpoint's class, whose bind named them (not their layouts,
    # not the objects' types). Each hop asks the next value's declared class's layout while it reads the value,
    # and reads the next field from it with the value's runtime type, which confirms it.
    async with at_the_heap(nested=True) as (vm, debugger, stop_id, _, frame):
        summary, waves = await counted(vm, debugger.evaluate(stop_id, frame, "a.b.c[3].d"))
        assert summary.value == "3"
        assert names(waves) == [
            ["ClassType.Superclass", "ObjectReference.GetValues", "ReferenceType.Fields"],  # a.b, B's layout
            ["ClassType.Superclass", "ObjectReference.GetValues", "ObjectReference.ReferenceType",
             "ReferenceType.Fields"],  # b.c with b's type, D's layout
            ["ArrayReference.GetValues", "ArrayReference.Length"],  # c[3]
            ["ObjectReference.GetValues", "ObjectReference.ReferenceType"]]  # .d with c[3]'s type
        summary, waves = await counted(vm, debugger.evaluate(stop_id, frame, "a.b.c[3].d"))
        assert summary.value == "3"
        assert names(waves) == [["ObjectReference.GetValues"], ["ObjectReference.GetValues"],
                                ["ArrayReference.GetValues"], ["ObjectReference.GetValues"]]
        await debugger.resume(stop_id)


async def test_a_chain_over_classes_never_named_in_the_session_is_five_waves() -> None:
    # The least there is: B's fields need B's type ID, which only a round trip gives (by name, while a.b is
    # read), so b.c is read in the third; c[3] and .d follow. D is named while b.c is read.
    async with at_the_heap() as (vm, debugger, stop_id, _, frame):
        summary, waves = await counted(vm, debugger.evaluate(stop_id, frame, "a.b.c[3].d"))
        assert summary.value == "3"
        assert names(waves) == [
            ["ObjectReference.GetValues", "VirtualMachine.ClassesBySignature"],
            ["ClassType.Superclass", "ObjectReference.ReferenceType", "ReferenceType.Fields"],
            ["ObjectReference.GetValues", "VirtualMachine.ClassesBySignature"],
            ["ArrayReference.GetValues", "ArrayReference.Length", "ClassType.Superclass", "ReferenceType.Fields"],
            ["ObjectReference.GetValues", "ObjectReference.ReferenceType"]]
        summary, waves = await counted(vm, debugger.evaluate(stop_id, frame, "a.b.c[3].d"))
        assert summary.value == "3" and len(waves) == 4
        await debugger.resume(stop_id)


async def test_a_hop_whose_runtime_class_is_not_the_declared_one_reads_from_the_runtime_class() -> None:
    # Once B's layout is known (a.b.c[3].d), e, declared B, is read ahead from it: but e is a B2 whose own c
    # shadows B's, and the field nearest the runtime class wins. Once X's is (a.x.c[3].d), y, declared X, is
    # read ahead from it: but y is a B, so X's c is refused (INVALID_FIELDID, as ART answers). Both read again.
    async with at_the_heap() as (vm, debugger, stop_id, _, frame):
        for expression, value in (("a.b.c[3].d", "3"), ("a.e.c[3].d", "13"), ("a.x.c[3].d", "3"),
                                  ("a.y.c[3].d", "3")):
            summary, waves = await counted(vm, debugger.evaluate(stop_id, frame, expression))
            assert (expression, summary.value) == (expression, value)
            if expression in ("a.e.c[3].d", "a.y.c[3].d"):  # the hop read ahead, then again: one wave more
                assert names(waves)[1] == ["ObjectReference.GetValues", "ObjectReference.ReferenceType"], waves
        await debugger.resume(stop_id)

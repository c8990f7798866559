"""The library values' readers (:mod:`jdwp.debugger.reading.containers`) against a scripted OpenJDK 17 heap when
a class is unloaded in the middle of a read (docs/tools.md, "Values"): Gson's ``LinkedTreeMap`` whose node class
the VM no longer describes (``ReferenceType.Fields`` answers ``INVALID_CLASS``, 21) and a ``BigDecimal`` whose
``BigInteger`` class goes the same way. The locals are still listed (those previews say ``(…)``), the object's
page is a clear error (``DEBUGGER_STALE_REFERENCE``, naming the refusal), nothing is left suspended by the
read, and the session goes on.
"""

from __future__ import annotations

from typing import Any

import pytest
from heap_vm import OBJECT, STRING, Heap
from test_debugger_faults import locals_at_a_hit, scripted

from jdwp.debugger import StaleReference
from jdwp.protocol.constants import ErrorCode, Tag
from jdwp.protocol.values import Value
from support.fakevm import Handler, ScriptedVm

NODE = 0x2002
BIG_INTEGER = 0x2004


def library_heap() -> tuple[Heap, list[tuple[str, str, Value]]]:
    heap = Heap()
    heap.klass(OBJECT, "Ljava/lang/Object;", 0)
    heap.klass(STRING, "Ljava/lang/String;", OBJECT)
    abstract_map = heap.klass(0x2000, "Ljava/util/AbstractMap;", OBJECT)
    tree_map = heap.klass(0x2001, "Lcom/google/gson/internal/LinkedTreeMap;", abstract_map,
                          ("root", "Lcom/google/gson/internal/LinkedTreeMap$Node;"), ("size", "I"),
                          ("header", "Lcom/google/gson/internal/LinkedTreeMap$Node;"))
    node_fields = [(n, "Lcom/google/gson/internal/LinkedTreeMap$Node;") for n in ("parent", "left", "right", "next",
                                                                               "prev")]
    heap.klass(NODE, "Lcom/google/gson/internal/LinkedTreeMap$Node;", OBJECT, *node_fields,
               ("key", "Ljava/lang/Object;"), ("value", "Ljava/lang/Object;"))
    number = heap.klass(0x2003, "Ljava/lang/Number;", OBJECT)
    heap.klass(BIG_INTEGER, "Ljava/math/BigInteger;", number, ("signum", "I"), ("mag", "[I"))
    big_decimal = heap.klass(0x2005, "Ljava/math/BigDecimal;", number, ("intVal", "Ljava/math/BigInteger;"),
                             ("scale", "I"), ("intCompact", "J"))
    ints = heap.klass(0x2006, "[I", 0)
    header = heap.obj(NODE)
    second = heap.obj(NODE, key=heap.string("ann"), value=heap.string("Ann"), next=header)
    first = heap.obj(NODE, key=heap.string("bob"), value=heap.string("Bob"), next=second)
    heap.objects[header.object_id][1]["next"] = first
    the_map = heap.obj(tree_map, header=header, root=first, size=Value(Tag.INT, 2))
    unscaled = heap.obj(BIG_INTEGER, signum=Value(Tag.INT, 1), mag=heap.array(ints, Tag.INT, [2, 5]))
    inflated = heap.obj(big_decimal, intVal=unscaled, scale=Value(Tag.INT, 2), intCompact=Value(Tag.LONG, -(1 << 63)))
    return heap, [("byUser", "Ljava/util/Map;", the_map), ("price", "Ljava/math/BigDecimal;", inflated)]


@pytest.mark.parametrize("unloaded", [NODE, BIG_INTEGER])
async def test_a_class_unloaded_mid_read_is_a_clear_error_and_the_session_goes_on(unloaded: int) -> None:
    heap, local_names = library_heap()
    gone = {"now": False}

    def handlers(vm_ref: list[ScriptedVm]) -> dict[str, Handler]:
        table = heap.handlers(vm_ref, local_names)
        fields = table["ReferenceType.Fields"]

        def unloading(out: Any) -> Any:
            return ErrorCode.INVALID_CLASS if gone["now"] and out.ref_type == unloaded else fields(out)

        table["ReferenceType.Fields"] = unloading
        return table

    async with scripted(handlers) as (vm, debugger):
        gone["now"] = True  # before the session has read the class: its first read of it is refused
        stop_id, listed = await locals_at_a_hit(vm, debugger)
        by_name = {local.name: local for local in listed.locals}
        shown = {"byUser": "LinkedTreeMap(size=2)", "price": "85899345.97"}  # mag [2, 5]: 2 * 2**32 + 5, scale 2
        name = "byUser" if unloaded == NODE else "price"
        assert by_name[name].preview in (None, f"{by_name[name].runtime_type.rsplit('.', 1)[-1]}(…)"), by_name[name]
        other = "price" if name == "byUser" else "byUser"
        assert by_name[other].preview == shown[other]  # the other value is read as usual
        with pytest.raises(StaleReference, match=r"was unloaded while it was read .*INVALID_CLASS"):
            await debugger.object(stop_id, by_name[name].object_id)
        page = await debugger.object(stop_id, by_name[other].object_id)  # the session goes on at the same stop
        assert page.size == 2 or page.text == shown[other]
        suspends = vm.count("VirtualMachine.Suspend") + vm.count("ThreadReference.Suspend")
        await debugger.resume(stop_id)
        assert vm.count("VirtualMachine.Resume") >= 1 and suspends == 0  # the read suspended nothing of its own

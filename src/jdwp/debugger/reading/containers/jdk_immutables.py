"""The JDK's own immutable collections, what ``List.of``, ``Set.of``, ``Map.of``, ``copyOf`` and
``Stream.toList()`` build (``java.util.ImmutableCollections``; the fields checked against OpenJDK 17's class files
with ``javap -p`` and verified live):

- ``ListN`` (``elements``, the array, whole): shown as a list, a page being one slice of the array;
- ``List12`` and ``Set12`` (``e0``, ``e1``): one or two elements; with one, ``e1`` holds the class's static
  marker ``ImmutableCollections.EMPTY``, read to tell them apart;
- ``Map1`` (``k0``, ``v0``);
- ``SetN`` (``elements``) and ``MapN`` (``table``, keys and values side by side): open-addressing tables with
  ``null`` in the free slots, and the count in ``size``. A page reads the table once and skips the free slots;
  the items come in table order, which is not the order they were given in (the JDK salts each run's order).

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/tools.md ("Values").
"""

from __future__ import annotations

from ....protocol.constants import ACC_STATIC
from ....protocol.types import FieldId, ReferenceTypeId
from ....protocol.values import Value
from ..objects import ELEMENT_LIMITS, as_values, page_bounds
from ..tables import read_region
from ..values import stale_on_collected
from .base import Answer, Reader, wire

_OUTER = "java.util.ImmutableCollections"
LIST_N = f"{_OUTER}$ListN"
#: The one-or-two classes and their view.
TWO = {f"{_OUTER}$List12": "list", f"{_OUTER}$Set12": "set"}
MAP_1 = f"{_OUTER}$Map1"
#: The table-backed classes: the field of their table, the slots an item takes in it, and their view.
TABLES = {f"{_OUTER}$SetN": ("elements", 1, "set"), f"{_OUTER}$MapN": ("table", 2, "map")}
#: Every class this module reads.
ALL = (LIST_N, *TWO, MAP_1, *TABLES)


async def list_n(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "elements")
    if read is None or read["elements"].is_null:
        return reader.missing(owner, "elements")
    array = read["elements"]
    size = await reader.values.array_length(reader.values.handle(array))
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "elements")
    items: list[Value] = []
    if end > start:
        with stale_on_collected(reader.handle):
            items = as_values(await read_region(reader.values.vm, wire(array), start, end - start))
    return await reader.list_page(items, size, start, end)


async def one_or_two(reader: Reader, owner: str) -> Answer:
    view = TWO[owner]
    read = await reader.own_fields(owner, "e0", "e1")
    if read is None:
        return reader.missing(owner, "e0, e1")
    marker = await _empty_marker(reader)
    if marker is None:
        return None, f"{_OUTER} has no static EMPTY marker this server reads; shown as fields"
    items = [read["e0"]] if read["e1"].object_id == marker.object_id else [read["e0"], read["e1"]]
    start, end = page_bounds(reader.offset, reader.limit, len(items), ELEMENT_LIMITS, "elements")
    return await reader.list_page(items[start:end], len(items), start, end, view)


async def map_1(reader: Reader, owner: str) -> Answer:
    return await reader.one_item(owner, ("k0", "v0"), "map")


async def table(reader: Reader, owner: str) -> Answer:
    field, stride, view = TABLES[owner]
    read = await reader.own_fields(owner, field, "size")
    if read is None or read[field].is_null:
        return reader.missing(owner, f"{field}, size")
    size = int(read["size"].value or 0)
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS,
                             "entries" if view == "map" else "elements")
    if end <= start:
        return (await reader.map_page([], size, start, end) if view == "map"
                else await reader.list_page([], size, start, end, view))
    vm = reader.values.vm
    slots_array = read[field]
    length = await reader.values.array_length(reader.values.handle(slots_array))
    with stale_on_collected(reader.handle):
        slots = as_values(await read_region(vm, wire(slots_array), 0, length))
    live = [slots[i:i + stride] for i in range(0, len(slots) - stride + 1, stride) if not slots[i].is_null]
    if len(live) != size:
        return None, f"{owner}'s {field} holds {len(live)} items, not its size {size}; shown as fields"
    page = live[start:end]
    if view == "map":
        return await reader.map_page([(item[0], item[1]) for item in page], size, start, end)
    return await reader.list_page([item[0] for item in page], size, start, end, view)


async def _empty_marker(reader: Reader) -> Value | None:
    """``ImmutableCollections.EMPTY``, the object a one-element ``List12``/``Set12`` holds in ``e1``."""
    vm = reader.values.vm
    refs = await vm.classes_by_signature("L" + _OUTER.replace(".", "/") + ";")
    if not refs:
        return None
    info = await reader.layouts.head(ReferenceTypeId(refs[0].type_id))
    field = next((f for f in info.fields if f.name == "EMPTY" and f.mod_bits & ACC_STATIC), None)
    if field is None:
        return None
    (value,) = await vm.reference_type.get_values(info.type_id, [FieldId(field.field_id)])
    return value

"""Guava's immutable collections (Debian's ``libguava-java``, Guava 31; the fields checked against its class
files and verified live): ``RegularImmutableList`` (``array``), ``RegularImmutableSet`` (``elements``),
``SingletonImmutableList``/``SingletonImmutableSet`` (``element``), ``RegularImmutableMap`` (``entries``, an
array of ``ImmutableEntry`` ``key``/``value``) and ``SingletonImmutableBiMap`` (``singleKey``/``singleValue``):
``ImmutableList.of``/``copyOf``, ``ImmutableSet.of`` and ``ImmutableMap.of`` build these. In the order they
were built with, as their iterators give them.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/tools.md ("Values").
"""

from __future__ import annotations

from ....protocol.values import Value
from ..objects import ELEMENT_LIMITS, as_values, page_bounds
from ..tables import read_region
from ..values import stale_on_collected
from .base import Answer, Reader, wire

_PACKAGE = "com.google.common.collect"
#: Each array-backed class, the field of its array and the view it is shown as.
ARRAYS = {f"{_PACKAGE}.RegularImmutableList": ("array", "list"), f"{_PACKAGE}.RegularImmutableSet": ("elements", "set"),
          f"{_PACKAGE}.RegularImmutableMap": ("entries", "map")}
#: Each one-element class and the fields it holds its element (a map: its key and value) in.
SINGLES = {f"{_PACKAGE}.SingletonImmutableList": (("element",), "list"),
           f"{_PACKAGE}.SingletonImmutableSet": (("element",), "set"),
           f"{_PACKAGE}.SingletonImmutableBiMap": (("singleKey", "singleValue"), "map")}


async def backed(reader: Reader, owner: str) -> Answer:
    field, view = ARRAYS[owner]
    read = await reader.own_fields(owner, field)
    if read is None or read[field].is_null:
        return reader.missing(owner, field)
    array = read[field]
    size = await reader.values.array_length(reader.values.handle(array))
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS,
                             "entries" if view == "map" else "elements")
    items: list[Value] = []
    if end > start:
        with stale_on_collected(reader.handle):
            items = as_values(await read_region(reader.values.vm, wire(array), start, end - start))
    if view != "map":
        return await reader.list_page(items, size, start, end, view)
    live = [entry for entry in items if not entry.is_null]
    if len(live) != len(items):
        return None, f"{owner}'s entries array has empty slots: its layout does not match; shown as fields"
    if not live:
        return await reader.map_page([], size, start, end)
    ids = await reader.node_fields(live[0], None, "key", "value")
    if ids is None:
        return None, "the map's entries do not have the fields key, value this server reads; shown as fields"
    pairs = [(key, value) for key, value in await reader.read_nodes(live, ids)]
    return await reader.map_page(pairs, size, start, end)


async def single(reader: Reader, owner: str) -> Answer:
    names, view = SINGLES[owner]
    return await reader.one_item(owner, names, view)

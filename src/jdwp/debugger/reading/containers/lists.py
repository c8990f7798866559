"""Array-backed lists: ``java.util.ArrayList`` (``elementData``, ``size``) and ``java.util.Arrays$ArrayList``
(``a``), OpenJDK 17, verified live.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``view: "auto"``). A page is
one ``ArrayReference.GetValues`` (13,2) of the backing array's slice (:mod:`..tables`), then the summaries.
"""

from __future__ import annotations

from ....protocol.values import Value
from ..objects import ELEMENT_LIMITS, as_values, element, page_bounds
from ..tables import read_region
from ..values import stale_on_collected
from .base import Answer, Reader, wire


async def array_list(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "elementData", "size")
    if read is None:
        return reader.missing(owner, "elementData, size")
    return await _backed(reader, read["elementData"], int(read["size"].value or 0))


async def arrays_list(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "a")
    if read is None or read["a"].is_null:
        return reader.missing(owner, "a")
    return await _backed(reader, read["a"], await reader.values.array_length(reader.values.handle(read["a"])))


async def _backed(reader: Reader, array: Value, size: int) -> Answer:
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "elements")
    summaries = []
    if end > start:
        with stale_on_collected(reader.handle):
            region = await read_region(reader.values.vm, wire(array), start, end - start)
        summaries = await reader.values.summarize(as_values(region))
    return reader.page("list", size, start, end,
                       elements=tuple(element(start + i, s) for i, s in enumerate(summaries))), None

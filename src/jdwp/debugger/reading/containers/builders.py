"""``java.lang.AbstractStringBuilder`` (``StringBuilder``, ``StringBuffer``): ``value`` (bytes with ``coder``
on OpenJDK 9+, chars on Android) and ``count``, shown as the text so far.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``view: "auto"``).
"""

from __future__ import annotations

from ..objects import UNIT_LIMITS, page_bounds, slice_page
from ..strings import read_units
from ..values import stale_on_collected
from .base import Answer, Reader, wire


async def builder(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "value", "count")
    if read is None or read["value"].is_null:
        return reader.missing(owner, "value, count")
    coder = await reader.own_fields(owner, "coder")
    count = int(read["count"].value or 0)
    array = wire(read["value"])
    # Only the page's units of the backing array, in bounded chunks (bytes with coder on OpenJDK 9+, chars
    # on Android): a 10M-char builder's page no longer reads the other 9,99x,xxx.
    start, end = page_bounds(reader.offset, reader.limit, count, UNIT_LIMITS, "UTF-16 units")
    units = 1 if coder and coder["coder"].value == 1 else None
    with stale_on_collected(reader.handle):
        part = await read_units(reader.values.vm, array, units, start, end)
    return slice_page(reader.handle, "object", reader.runtime, count, start, end, part), None

"""``java.util.ArrayDeque``: ``elements``, ``head``, ``tail`` (OpenJDK 17, verified live); the ring's page is at
most two ``ArrayReference.GetValues`` (13,2), sent together.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``view: "auto"``).
"""

from __future__ import annotations

from functools import partial

from ..._gather import gather
from ..objects import ELEMENT_LIMITS, as_values, page_bounds
from ..tables import read_region
from ..values import stale_on_collected
from .base import Answer, Reader, wire


async def array_deque(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "elements", "head", "tail")
    if read is None or read["elements"].is_null:
        return reader.missing(owner, "elements, head, tail")
    array = read["elements"]
    length = await reader.values.array_length(reader.values.handle(array))
    head, tail = int(read["head"].value or 0), int(read["tail"].value or 0)
    if length == 0 or not (0 <= head < length and 0 <= tail < length):
        return None, f"{owner}'s head {head} and tail {tail} do not fit its array of {length}; shown as fields"
    size = (tail - head) % length
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "elements")
    if end == start:
        return await reader.walked_list([], size, start, end)
    first, last = (head + start) % length, (head + end - 1) % length
    spans = [(first, last - first + 1)] if first <= last else [(first, length - first), (0, last + 1)]
    vm = reader.values.vm
    with stale_on_collected(reader.handle):
        regions = await gather([partial(read_region, vm, wire(array), index, count) for index, count in spans])
    return await reader.walked_list([v for region in regions for v in as_values(region)], size, start, end)

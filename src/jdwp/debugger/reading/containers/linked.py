"""``java.util.LinkedList``: ``first``, ``last``, ``size``; nodes ``LinkedList$Node`` ``item``/``next``/``prev``
(OpenJDK 17, verified live). A page walks from the nearer end, one node per round trip
(``ObjectReference.GetValues`` 9,2).

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``view: "auto"``).

Cycles: a node met twice is not followed again. Links that end before the page does (a thread the stop did
not suspend was changing the container) make that page the last one, with a note.
"""

from __future__ import annotations

from ....protocol.values import Value
from ..objects import ELEMENT_LIMITS, page_bounds
from .base import Answer, Reader


async def linked_list(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "first", "last", "size")
    if read is None:
        return reader.missing(owner, "first, last, size")
    size = int(read["size"].value or 0)
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "elements")
    if end == start or read["first"].is_null:
        return await reader.walked_list([], size, start, end)
    backwards = start > size - end  # walk from the nearer end: fewer nodes read
    here = read["last"] if backwards else read["first"]
    ids = await reader.node_fields(here, "java.util.LinkedList$Node", "item", "next", "prev")
    if ids is None:
        return None, "the list's nodes do not have the fields item, next, prev this server reads; shown as fields"
    wanted = size - start if backwards else end
    items: list[Value] = []
    seen: set[int] = set()
    while len(items) < wanted and not here.is_null and here.object_id not in seen:
        seen.add(here.object_id)
        (fields,) = await reader.read_nodes([here], ids)
        items.append(fields[0])
        here = fields[2] if backwards else fields[1]
    if backwards:
        items.reverse()  # items[0] is now index size - len(items)
        first = size - len(items)
        items = items[start - first:end - first] if start >= first else []
    else:
        items = items[start:end]
    return await reader.walked_list(items, size, start, end)

"""javac's own ``com.sun.tools.javac.util.List`` (module ``jdk.compiler``, in every JDK): an immutable cons list,
``head`` and ``tail``, ending at the shared empty list (``EMPTY_LIST``, whose ``tail`` is null). Shown as its
elements, so that ``tree.params.size`` and ``params[0]`` work on it (OpenJDK 17's
``com/sun/tools/javac/util/List.java``; verified live on javac).

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/tools.md ("Values"). One
``ObjectReference.GetValues`` (9,2) a cell; the size is a walk of every cell (javac's ``List.size()`` walks
too), at most :data:`.queues.MAX_WALK`.
"""

from __future__ import annotations

from ....protocol.values import Value
from ..objects import ELEMENT_LIMITS, page_bounds
from .base import Answer, Reader
from .queues import MAX_WALK

LIST = "com.sun.tools.javac.util.List"


async def cons_list(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "head", "tail")
    if read is None:
        return reader.missing(owner, "head, tail")
    cell = reader.values.value_of(reader.handle)
    ids = await reader.node_fields(cell, owner, "head", "tail")
    if ids is None:
        return reader.missing(owner, "head, tail")
    items: list[Value] = []
    head, tail = read["head"], read["tail"]
    seen: set[int] = set()
    while not tail.is_null and cell.object_id not in seen and len(items) <= MAX_WALK:
        seen.add(cell.object_id)
        items.append(head)
        cell = tail
        ((head, tail),) = await reader.read_nodes([cell], ids)
    if len(items) > MAX_WALK:
        return None, f"the list has more than {MAX_WALK:,} cells; shown as fields"
    size = len(items)
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "elements")
    return await reader.list_page(items[start:end], size, start, end)

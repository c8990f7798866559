"""``Collections$Unmodifiable*`` and ``Synchronized*``: the wrapped collection (``c``) or map (``m``), read
by its own reader (:meth:`.base.Reader.nested`, at most :data:`.base.MAX_DEPTH` wrappers deep).

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``view: "auto"``).
"""

from __future__ import annotations

from ..objects import ObjectPage
from .base import MAX_DEPTH, Answer, Reader

#: Each wrapper class and the field that holds what it wraps.
WRAPPED = {"java.util.Collections$UnmodifiableCollection": "c", "java.util.Collections$SynchronizedCollection": "c",
           "java.util.Collections$UnmodifiableMap": "m", "java.util.Collections$SynchronizedMap": "m"}


async def wrapper(reader: Reader, owner: str) -> Answer:
    name = WRAPPED[owner]
    held = await reader.held(owner, name) if reader.depth < MAX_DEPTH else None
    if held is None:
        return reader.missing(owner, name)
    inner, chain = held
    page, note = await reader.nested(inner, chain)
    if page is None:
        return None, note
    return ObjectPage(reader.handle, "object", reader.runtime, page.view, page.offset, page.total, page.next_offset,
                      size=page.size, elements=page.elements, entries=page.entries,
                      note=f"the contents of the wrapped {chain[0].name} ({inner})"), None

"""``Collections$Empty*`` and Kotlin's ``EmptyList``/``EmptySet``/``EmptyMap`` (empty, nothing read);
``Collections$SingletonList``/``SingletonSet`` (``element``) and ``SingletonMap`` (``k``, ``v``): Kotlin's
``listOf(x)``, ``setOf(x)`` and ``mapOf(a to b)`` on the JVM.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``view: "auto"``).
"""

from __future__ import annotations

from ..objects import ELEMENT_LIMITS, page_bounds
from .base import Answer, Reader

#: Each class and the view it is shown as.
EMPTY = {"java.util.Collections$EmptyList": "list", "java.util.Collections$EmptySet": "set",
         "java.util.Collections$EmptyMap": "map", "kotlin.collections.EmptyList": "list",
         "kotlin.collections.EmptySet": "set", "kotlin.collections.EmptyMap": "map"}
SINGLETONS = {"java.util.Collections$SingletonList": "list", "java.util.Collections$SingletonSet": "set",
              "java.util.Collections$SingletonMap": "map"}


async def empty(reader: Reader, owner: str) -> Answer:
    view = EMPTY[owner]
    page_bounds(reader.offset, reader.limit, 0, ELEMENT_LIMITS, "entries" if view == "map" else "elements")
    if view == "map":
        return reader.page(view, 0, 0, 0, entries=()), None
    return reader.page(view, 0, 0, 0, elements=()), None


async def singleton(reader: Reader, owner: str) -> Answer:
    view = SINGLETONS[owner]
    return await reader.one_item(owner, ("k", "v") if view == "map" else ("element",), view)

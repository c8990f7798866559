"""Boxed primitives (``java.lang.Integer`` … ``Double``: their ``value``), shown as the one value they hold.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``view: "auto"``).
"""

from __future__ import annotations

from ....protocol.constants import Tag
from ....protocol.values import Value
from ..objects import ELEMENT_LIMITS, ObjectPage, page_bounds
from .base import Answer, Reader

BOXED = frozenset(f"java.lang.{n}" for n in ("Integer", "Long", "Short", "Byte", "Character", "Boolean", "Float",
                                              "Double"))
#: Their signatures: :mod:`.hashmaps` resolves them by name with a session's first hash map page.
BOXED_SIGNATURES = tuple(sorted("L" + name.replace(".", "/") + ";" for name in BOXED))


async def boxed(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "value")
    if read is None:
        return reader.missing(owner, "value")
    page_bounds(reader.offset, reader.limit, 1, ELEMENT_LIMITS, "values")
    (summary,) = await reader.values.summarize([read["value"]])
    return ObjectPage(reader.handle, "object", reader.runtime, "value", 0, 1, None, value=summary), None


#: Classes that hold one value in their field ``value``, shown as it (``AtomicBoolean``'s int as a boolean):
#: ``java.util.concurrent.atomic``'s (``AtomicInteger.java`` … on OpenJDK 17) and ``Optional``'s (null when
#: empty). The atomics of a primitive are previewed as it (:func:`atomic_text`, ``7``, as ``toString()``
#: prints it); the others by their fields (``Optional(value="here")``).
HOLDERS = frozenset({"java.util.concurrent.atomic.AtomicInteger", "java.util.concurrent.atomic.AtomicLong",
                     "java.util.concurrent.atomic.AtomicBoolean", "java.util.concurrent.atomic.AtomicReference",
                     "java.util.Optional"})


async def holder(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "value")
    if read is None:
        return reader.missing(owner, "value")
    page_bounds(reader.offset, reader.limit, 1, ELEMENT_LIMITS, "values")
    value = read["value"]
    if owner.endswith("AtomicBoolean"):
        value = Value(Tag.BOOLEAN, bool(value.value))
    (summary,) = await reader.values.summarize([value])
    note = "empty" if owner == "java.util.Optional" and value.is_null else None
    return ObjectPage(reader.handle, "object", reader.runtime, "value", 0, 1, None, value=summary, note=note), None


#: The atomics whose preview is their primitive's text.
ATOMIC_PRIMITIVES = ("java.util.concurrent.atomic.AtomicInteger", "java.util.concurrent.atomic.AtomicLong",
                     "java.util.concurrent.atomic.AtomicBoolean")


async def atomic_text(reader: Reader, owner: str) -> str | None:
    read = await reader.own_fields(owner, "value")
    if read is None:
        return None
    value = read["value"]
    if owner.endswith("AtomicBoolean"):
        return "true" if value.value else "false"
    return str(value.value)

"""``java.util.TreeMap``: ``root``, ``size``; entries ``TreeMap$Entry`` ``key``/``value``/``left``/``right``.
``java.util.TreeSet``: ``m``, read when it is a ``TreeMap`` (OpenJDK 17, verified live). In order, without
subtree sizes: each round trip reads every unread subtree that can still hold an entry of the page (each holds
at least one), so a page costs about the tree's depth in round trips and reads only the subtrees left of the
page's end.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``view: "auto"``).

Cycles: a node met twice is not followed again. Links that end before the page does (a thread the stop did
not suspend was changing the container) make that page the last one, with a note.
"""

from __future__ import annotations

from ....protocol.values import Value
from ..objects import ELEMENT_LIMITS, ClassInfo, page_bounds
from .base import Answer, Reader


async def tree_set(reader: Reader, owner: str) -> Answer:
    held = await reader.held(owner, "m")
    if held is None:
        return reader.missing(owner, "m")
    inner, chain = held
    if not any(c.name == "java.util.TreeMap" for c in chain):
        return None, f"this set's map is a {chain[0].name}, not a java.util.TreeMap; shown as fields"
    return await _tree(reader, inner, chain, "set")


async def tree_map(reader: Reader, owner: str) -> Answer:
    return await _tree(reader, reader.handle, reader.chain, "map")


async def _tree(reader: Reader, handle: str, chain: tuple[ClassInfo, ...], view: str) -> Answer:
    read = await reader.fields(handle, chain, "java.util.TreeMap", "root", "size")
    if read is None:
        return reader.missing("java.util.TreeMap", "root, size")
    size = int(read["size"].value or 0)
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "entries" if view == "map"
                             else "elements")
    if end == start or read["root"].is_null:
        return await reader.walked_map([], size, start, end, view)
    ids = await reader.node_fields(read["root"], "java.util.TreeMap$Entry", "key", "value", "left", "right")
    if ids is None:
        return None, "the map's entries do not have the fields key, value, left, right this server reads; shown " \
                     "as fields"
    # In-order sequence of read entries (key, value) and unread subtrees (a node Value)
    sequence: list[tuple[Value, Value] | Value] = [read["root"]]
    seen: set[int] = set()
    while True:
        expand: list[int] = []
        least = 0  # entries certainly before this position: a subtree holds at least one
        for position, item in enumerate(sequence):
            if least >= end:
                break
            if isinstance(item, Value):
                expand.append(position)
            least += 1
        if not expand:
            break
        fields = await reader.read_nodes([sequence[p] for p in expand], ids)  # type: ignore[misc]
        replaced: dict[int, list[tuple[Value, Value] | Value]] = {}
        for position, (key, value, left, right) in zip(expand, fields, strict=True):
            seen.add(sequence[position].object_id)  # type: ignore[union-attr]
            parts: list[tuple[Value, Value] | Value] = []
            if not left.is_null and left.object_id not in seen:
                parts.append(left)
            parts.append((key, value))
            if not right.is_null and right.object_id not in seen:
                parts.append(right)
            replaced[position] = parts
        sequence = [part for p, item in enumerate(sequence) for part in replaced.get(p, [item])]
    pairs = [item for item in sequence[start:end] if isinstance(item, tuple)]
    return await reader.walked_map(pairs, size, start, end, view)

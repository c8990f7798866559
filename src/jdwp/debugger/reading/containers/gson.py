"""Gson's ``com.google.gson.internal.LinkedTreeMap``, the map Gson builds for every JSON object it reads into a
``Map`` (and ``JsonObject``'s members): entries in insertion order, from ``header`` (a sentinel node) along the
nodes' ``next`` back to ``header``, and ``size`` (Gson 2.10's ``LinkedTreeMap.java``, Debian's
``libgoogle-gson-java``; verified live). ``m["k"]`` walks the entries for the key (:mod:`..expressions.evaluator`).

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/tools.md ("Values"). One
``ObjectReference.GetValues`` (9,2) a node, from the first: a page at offset k reads k nodes before its own.
"""

from __future__ import annotations

from ....protocol.values import Value
from ..objects import ELEMENT_LIMITS, page_bounds
from .base import Answer, Reader

NODE = "com.google.gson.internal.LinkedTreeMap$Node"


async def linked_tree_map(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "header", "size")
    if read is None or read["header"].is_null:
        return reader.missing(owner, "header, size")
    size = int(read["size"].value or 0)
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "entries")
    header = read["header"]
    if end == start:
        return await reader.walked_map([], size, start, end, "map")
    ids = await reader.node_fields(header, NODE, "key", "value", "next")
    if ids is None:
        return None, "the map's nodes do not have the fields key, value, next this server reads; shown as fields"
    ((_, _, here),) = await reader.read_nodes([header], ids)
    pairs: list[tuple[Value, Value]] = []
    seen = {header.object_id}
    while len(pairs) < end and not here.is_null and here.object_id not in seen:
        seen.add(here.object_id)
        ((key, value, following),) = await reader.read_nodes([here], ids)
        pairs.append((key, value))
        here = following
    return await reader.walked_map(pairs[start:end], size, start, end, "map")

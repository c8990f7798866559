"""A key lookup in a hash map: the entries of only the bins its key's ``hashCode`` can be in
(:mod:`..hashbins`), for ``HashMap`` (``LinkedHashMap``) and ``ConcurrentHashMap``.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``map[key]`` in expressions).
"""

from __future__ import annotations

from functools import partial

from ....protocol.constants import Tag
from ....protocol.values import Value
from ..._gather import gather
from .. import hashbins
from ..hashscan import Resizing, walk_chains
from ..objects import ClassInfo, Layouts
from ..tables import read_region
from ..values import Values, stale_on_collected
from . import concurrent
from .base import Reader, wire


async def bin_entries(values: Values, layouts: Layouts, handle: str, chain: tuple[ClassInfo, ...],
                      codes: set[int]) -> list[tuple[Value, Value]] | None:
    """The entries of the bins a ``HashMap`` (``LinkedHashMap``) or ``ConcurrentHashMap`` keeps keys of the
    ``hashCode``\\ s ``codes`` in (:mod:`..hashbins`): the table's length and those slots, then each bin's chain
    (a treeified bin keeps its ``next`` chain; a ``ConcurrentHashMap`` ``TreeBin`` is walked from ``first``).
    ``None`` when the object is no such map, its layout differs, or it was stopped mid-resize: then the caller
    scans its entries."""
    names = {info.name for info in chain}
    is_concurrent = "java.util.concurrent.ConcurrentHashMap" in names
    owner = "java.util.concurrent.ConcurrentHashMap" if is_concurrent else "java.util.HashMap"
    if owner not in names:
        return None
    reader = Reader(values, layouts, handle, chain, 0, None, 0)
    read = await reader.own_fields(owner, "table")
    if read is None:
        return None
    if read["table"].is_null:
        return []
    table = read["table"]
    table_id = wire(table)
    with stale_on_collected(handle):
        length = await values.array_length(values.handle(table))
        if length <= 0 or length & (length - 1):
            return None  # not a power of two: not the layout these rules are for
        spread = hashbins.concurrent_spread if is_concurrent else hashbins.hash_map_spread
        slots = sorted({hashbins.bin_index(spread(code), length) for code in codes})
        regions = await gather([partial(read_region, values.vm, table_id, slot, 1) for slot in slots])
        heads = [v.object_id for region in regions for v in region.values if not v.is_null]
        if not heads:
            return []
        head = Value(Tag.OBJECT, heads[0])
        if is_concurrent:
            ids = await reader.node_fields(head, "java.util.concurrent.ConcurrentHashMap$Node", "hash", "key", "val",
                                           "next")
            if ids is None:
                return None
            try:
                bins = await concurrent.bins(reader, ids, 1 << 20, heads)
            except (Resizing, concurrent.NoFirst):
                return None
        else:
            ids = await reader.node_fields(head, None, "key", "value", "next")
            if ids is None:
                return None
            bins = await walk_chains(values.vm, heads, ids, 1 << 20)
    return [(key, value) for chain_ in bins for _, key, value in chain_]

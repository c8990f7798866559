"""Hash maps and sets: ``java.util.HashMap`` (``table``, ``size``; nodes ``HashMap$Node``
``key``/``value``/``next``: a treeified bin keeps its ``next`` chain, so it is walked the same way),
``LinkedHashMap`` (``head`` and the entries' ``after``, for insertion order) and ``HashSet`` (its ``map``),
OpenJDK 17, verified live. Android's libcore uses the same names (``LinkedHashMap``'s entries are
``LinkedHashMapEntry`` there, with the same ``after``), which the field checks confirm at run time.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``view: "auto"``).

A page scans the bucket table only as far as the page's end and walks the chains of the buckets before it,
level by level (:mod:`..hashscan`, kept for the stop, within a time budget per call); a map with insertion
order walks its links from the nearer end, one node a round trip (each link is known only from the node
before). A session's first hash map page also resolves the boxed primitives' classes by name
(``VirtualMachine.ClassesBySignature`` 1,2, with the map's fields) and their layouts (with the table): keys
and values of those classes are then named by their type IDs, without a round trip of their own after the
nodes.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ....protocol.constants import Tag
from ....protocol.types import FieldId
from ....protocol.values import Value
from ..._gather import gather
from ..hashscan import LinkedScan, TableScan, Unfinished, no_chains, walk_chains
from ..objects import ELEMENT_LIMITS, ClassInfo, Layouts, page_bounds
from ..stop_cache import current_cache
from ..values import stale_on_collected
from .base import Answer, Reader
from .boxes import BOXED_SIGNATURES


async def hash_map(reader: Reader, owner: str) -> Answer:
    return await _map(reader, reader.handle, reader.chain, "map", False)


async def linked_hash_map(reader: Reader, owner: str) -> Answer:
    return await _map(reader, reader.handle, reader.chain, "map", True)


async def hash_set(reader: Reader, owner: str) -> Answer:
    held = await reader.held(owner, "map")
    if held is None:
        return reader.missing(owner, "map")
    inner, chain = held
    ordered = any(c.name == "java.util.LinkedHashMap" for c in chain)
    return await _map(reader, inner, chain, "set", ordered)


async def _map(reader: Reader, handle: str, chain: tuple[ClassInfo, ...], view: str, ordered: bool) -> Answer:
    owner = "java.util.HashMap"
    values, layouts = reader.values, reader.layouts
    sizing = ("threshold", "loadFactor") if not ordered and all(
        Layouts.find(chain, n, owner) for n in ("threshold", "loadFactor")) else ()
    table_field = Layouts.find(chain, "table", owner)
    node_class = table_field.signature[1:] if table_field is not None and not ordered else None
    # Two waves, each sent at once (not two chains, whose second steps would leave apart): the map's fields
    # with, by name, the nodes' class (the table's type names it) and the boxed primitives' classes (the
    # likeliest keys and values, then named by their type IDs: no round trip of their own at the end);
    # then the table's length and first slots (a scan's start, unless this stop has one), and those
    # classes' layouts.
    names = ([node_class] if node_class is not None else []) + list(BOXED_SIGNATURES)
    link_names = ("head", "tail") if ordered else ()
    first: list[Any] = [partial(reader.fields, handle, chain, owner, "table", "size", *sizing),
                        partial(layouts.resolve, names)]
    if ordered:
        first.append(partial(reader.fields, handle, chain, "java.util.LinkedHashMap", *link_names))
    read, _, *linked_fields = await gather(first)
    links = linked_fields[0] if ordered else {}
    if read is None or links is None:
        return reader.missing(owner, "table, size (head, tail for LinkedHashMap)")
    size = int(read["size"].value or 0)
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "entries")
    prefetch = partial(layouts.prefetch, [t for n in names if (t := layouts.candidate(n)) is not None])
    pairs: list[tuple[Value, Value]] = []
    if ordered:
        await prefetch()
        if end > start and not links["head"].is_null:
            try:
                found = await _insertion_order(reader, links["head"], links["tail"], size, start, end)
            except Unfinished as unfinished:
                return reader.unfinished(view, size, start, unfinished), None
            if found is None:
                return None, "the map's entries do not have the fields key, value, after, before this server reads"
            pairs = found
    elif end > start and not read["table"].is_null:
        table = read["table"]
        key = ("hash", table.object_id, size)
        cache = current_cache()
        scan = cache.get("scan", key)
        second: list[Any] = [prefetch]
        if scan is None:
            scan = TableScan(values.vm, table.object_id, size, no_chains, [])
            second.insert(0, partial(scan.start, partial(values.array_length, values.handle(table)),
                                     _capacity(read, size), end))
        with stale_on_collected(reader.handle):
            await gather(second)
        # asked above: no round trip unless the VM refused it
        node_info = await layouts.named(node_class) if node_class is not None else None
        if not await _use_nodes(reader, scan, node_info):
            return None, "the map's nodes do not have the fields key, value, next this server reads"
        cache.put("scan", key, scan)
        try:
            with stale_on_collected(reader.handle):
                pairs = await scan.entries(start, end)
        except Unfinished as unfinished:
            return reader.unfinished(view, size, start, unfinished), None
    else:
        await prefetch()
    return await reader.map_page(pairs, size, start, start + len(pairs), view)


async def _use_nodes(reader: Reader, scan: TableScan, node_info: ClassInfo | None) -> bool:
    """Give ``scan`` the nodes' fields (``key``, ``value``, ``next``): from the table's node class, else from
    a node's own class; ``False`` when they lack one."""
    if scan.pair_ids:
        return True
    names = ("key", "value", "next")
    node_chain: tuple[ClassInfo, ...] = (node_info,) if node_info is not None else ()
    if any(Layouts.find(node_chain, n) is None for n in names):  # not the table's node class: ask a node
        with stale_on_collected(reader.handle):
            head = await scan.first_head()
        if head is None:
            return True  # an empty table: no node to read
        node_chain = await reader.layouts.chain(await reader.values.type_id(reader.values.handle(
            Value(Tag.OBJECT, head))))
    found = [Layouts.find(node_chain, n) for n in names]
    if any(f is None for f in found):
        return False
    ids = [FieldId(f.field_id) for f in found if f is not None]
    vm, limit = reader.values.vm, scan.size + 1
    scan.use(lambda heads, pairs: walk_chains(vm, heads, ids, limit, pairs), ids[:2])
    return True


async def _insertion_order(reader: Reader, head: Value, tail: Value, size: int, start: int, end: int
                           ) -> list[tuple[Value, Value]] | None:
    """Entries ``start`` … ``end-1`` of a ``LinkedHashMap`` in insertion order (``head``/``after`` or
    ``tail``/``before``, from the nearer end; kept for the stop), or ``None`` when the entries' class lacks
    the fields."""
    key = ("linked", head.object_id, tail.object_id if not tail.is_null else 0, size)
    cache = current_cache()
    scan: LinkedScan | None = cache.get("scan", key)
    if scan is None:
        ids = await reader.node_fields(head, None, "key", "value", "after", "before")
        if ids is None:
            return None
        scan = LinkedScan(reader.values.vm, size, head.object_id, tail.object_id if not tail.is_null else 0,
                          ids)
        cache.put("scan", key, scan)
    with stale_on_collected(reader.handle):
        return await scan.entries(start, end)


def _capacity(read: dict[str, Value], size: int) -> int | None:
    """The table length a HashMap likely has: ``threshold / loadFactor`` (exact for a power-of-two table
    of the default load factor), else the least power of two that holds ``size`` at 0.75."""
    threshold, factor = read.get("threshold"), read.get("loadFactor")
    if threshold is not None and factor is not None and factor.value:
        guess = round(int(threshold.value or 0) / float(factor.value))
        if guess > 0:
            return guess
    capacity = 16
    while capacity * 3 // 4 < size:
        capacity *= 2
    return capacity

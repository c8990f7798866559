"""Well-known containers shown as their contents, read from their fields without running app code.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). DESIGN.md §7.2 (``view: "auto"``).

A reader is chosen by the most derived class of the object's superclass chain that has one (a subclass
of ``ArrayList`` keeps ArrayList's fields). Each reader first checks that the fields it relies on exist
(by name, in the class that declares them on OpenJDK 17); a layout that differs answers ``None`` and a
note, and the object is shown as fields. Readers on OpenJDK 17, verified live:

- ``java.util.ArrayList``: ``elementData``, ``size``; ``java.util.Arrays$ArrayList``: ``a``.
- ``java.util.HashMap`` (and ``HashSet``'s ``map``): ``table``, ``size``; nodes ``HashMap$Node``
  ``key``/``value``/``next`` (a treeified bin keeps its ``next`` chain, so it is walked the same way);
  ``LinkedHashMap``: ``head`` and the entries' ``after``, for insertion order.
- ``Collections$Unmodifiable*``/``Synchronized*``: the wrapped ``c`` or ``m``; ``Collections$Empty*``
  and Kotlin's ``EmptyList``/``EmptySet``/``EmptyMap``: empty, nothing read; ``Collections$SingletonList``
  and ``SingletonSet``: ``element``, ``SingletonMap``: ``k``, ``v`` (Kotlin's ``listOf(x)``, ``setOf(x)``
  and ``mapOf(a to b)`` on the JVM).
- Boxed primitives: ``value``; ``AbstractStringBuilder``: ``value`` (bytes with ``coder`` on OpenJDK 9+,
  chars on Android) and ``count``.

``LinkedList``, ``ArrayDeque``, ``TreeMap``/``TreeSet`` and ``ConcurrentHashMap``: :mod:`.linked`. Android's
``ArrayMap``, ``ArraySet``, ``SparseArray`` and androidx's ``SimpleArrayMap``/``ArrayMap``/``ArraySet``:
:mod:`.arraymaps`.

Android's libcore uses the same names for these classes (``LinkedHashMap``'s entries are
``LinkedHashMapEntry`` there, with the same ``after``), which the field checks confirm at run time.

A page reads only what it needs, and no command more than a VM's agent survives (:mod:`.tables`): a list
page is one ``ArrayReference.GetValues`` (13,2) of the backing array's slice; a hash map page scans the
bucket table only as far as the page's end and walks the chains of the buckets before it, level by level
(:mod:`.hashscan`, kept for the stop, within a time budget per call); a map with insertion order walks its
links from the nearer end, one node a round trip (each link is known only from the node before). A key
lookup reads only the key's bins (:func:`bin_entries`, :mod:`.hashbins`). A session's first hash
map page also resolves the boxed primitives' classes by name (``VirtualMachine.ClassesBySignature`` 1,2, with
the map's fields) and their layouts (with the table): keys and values of those classes are then named by
their type IDs, without a round trip of their own after the nodes.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ....protocol.constants import Tag
from ....protocol.types import FieldId, ObjectId
from ....protocol.values import Value
from ..._gather import gather
from .. import hashbins
from ..hashscan import PAGE_BUDGET, LinkedScan, Resizing, TableScan, Unfinished, no_chains, walk_chains
from ..objects import (
    ELEMENT_LIMITS,
    UNIT_LIMITS,
    ClassInfo,
    Entry,
    Layouts,
    ObjectPage,
    as_values,
    element,
    next_of,
    page_bounds,
    slice_page,
)
from ..strings import read_units
from ..tables import read_region
from ..values import Values, stale_on_collected
from . import arraymaps, linked

Answer = tuple[ObjectPage | None, str | None]
_MAX_DEPTH = 4
_BOXED = {f"java.lang.{n}" for n in ("Integer", "Long", "Short", "Byte", "Character", "Boolean", "Float", "Double")}
#: Resolved by name with a session's first hash map page (see :meth:`_Reader.hash_map`).
_BOXED_SIGNATURES = tuple(sorted("L" + name.replace(".", "/") + ";" for name in _BOXED))
_EMPTY = {"java.util.Collections$EmptyList": "list", "java.util.Collections$EmptySet": "set",
          "java.util.Collections$EmptyMap": "map", "kotlin.collections.EmptyList": "list",
          "kotlin.collections.EmptySet": "set", "kotlin.collections.EmptyMap": "map"}
_SINGLETONS = {"java.util.Collections$SingletonList": "list", "java.util.Collections$SingletonSet": "set",
               "java.util.Collections$SingletonMap": "map"}
_ARRAY_MAPS = {"android.util.ArrayMap", "androidx.collection.SimpleArrayMap"}
_ARRAY_SETS = {"android.util.ArraySet", "androidx.collection.ArraySet"}
_WRAPPERS = {"java.util.Collections$UnmodifiableCollection": "c", "java.util.Collections$SynchronizedCollection": "c",
             "java.util.Collections$UnmodifiableMap": "m", "java.util.Collections$SynchronizedMap": "m"}


class _Reader:
    def __init__(self, values: Values, layouts: Layouts, handle: str, chain: tuple[ClassInfo, ...], offset: int,
                 limit: int | None, depth: int) -> None:
        self.values, self.layouts, self.handle, self.chain = values, layouts, handle, chain
        self.offset, self.limit, self.depth = offset, limit, depth
        self.runtime = chain[0].name

    async def fields(self, handle: str, chain: tuple[ClassInfo, ...], owner: str, *names: str
                     ) -> dict[str, Value] | None:
        """The named instance fields declared in ``owner`` (one ``ObjectReference.GetValues``), or ``None``
        when the class lacks one of them. A chain of the runtime class alone is completed when ``owner`` is a
        superclass."""
        if len(chain) == 1 and chain[0].name != owner:
            chain = await self.layouts.chain(chain[0].type_id)
        found = [Layouts.find(chain, name, owner) for name in names]
        if any(f is None for f in found):
            return None
        wire, _ = self.values.resolve(handle)
        with stale_on_collected(handle):
            read = await self.values.vm.object_reference.get_values(wire, [FieldId(f.field_id) for f in found
                                                                           if f is not None])
        return dict(zip(names, read, strict=True))

    def missing(self, owner: str, names: str) -> Answer:
        return None, f"{owner} does not have the fields {names} this server reads; shown as fields"

    def unfinished(self, view: str, size: int, start: int, unfinished: Unfinished) -> ObjectPage:
        """A page whose entries were not located in time: none, the same offset next, and a note."""
        contents: dict[str, Any] = {"entries": ()} if view == "map" else {"elements": ()}
        return self.page(view, size, start, start, **contents, note=(
            f"not located yet: {unfinished.located:,} of the {unfinished.wanted:,} entries this page must walk "
            f"past were read in {PAGE_BUDGET:g} s (JDWP reads one node a command, and an entry's place is known "
            "only from the chains before it); they are kept for this stop: ask for the same page again to go on"))

    def page(self, view: str, size: int, start: int, end: int, **contents: Any) -> ObjectPage:
        return ObjectPage(self.handle, "object", self.runtime, view, start, size, next_of(end, size),  # type: ignore[arg-type]
                          size=size, **contents)

    # --- lists -------------------------------------------------------------------------------------

    async def array_list(self, owner: str, view: str = "list") -> Answer:
        read = await self.fields(self.handle, self.chain, owner, "elementData", "size")
        if read is None:
            return self.missing(owner, "elementData, size")
        return await self.backed_list(read["elementData"], int(read["size"].value or 0), view)

    async def arrays_list(self, owner: str) -> Answer:
        read = await self.fields(self.handle, self.chain, owner, "a")
        if read is None or read["a"].is_null:
            return self.missing(owner, "a")
        return await self.backed_list(read["a"], await self.values.array_length(self.values.handle(read["a"])))

    async def backed_list(self, array: Value, size: int, view: str = "list") -> Answer:
        start, end = page_bounds(self.offset, self.limit, size, ELEMENT_LIMITS, "elements")
        summaries = []
        if end > start:
            with stale_on_collected(self.handle):
                region = await read_region(self.values.vm, ObjectId(int(array.value)), start, end - start)  # type: ignore[arg-type]
            summaries = await self.values.summarize(as_values(region))
        return self.page(view, size, start, end,
                         elements=tuple(element(start + i, s) for i, s in enumerate(summaries))), None

    # --- hash maps and sets ------------------------------------------------------------------------

    async def hash_map(self, handle: str, chain: tuple[ClassInfo, ...], view: str, ordered: bool) -> Answer:
        owner = "java.util.HashMap"
        sizing = ("threshold", "loadFactor") if not ordered and all(
            Layouts.find(chain, n, owner) for n in ("threshold", "loadFactor")) else ()
        table_field = Layouts.find(chain, "table", owner)
        node_class = table_field.signature[1:] if table_field is not None and not ordered else None
        # Two waves, each sent at once (not two chains, whose second steps would leave apart): the map's fields
        # with, by name, the nodes' class (the table's type names it) and the boxed primitives' classes (the
        # likeliest keys and values, then named by their type IDs: no round trip of their own at the end);
        # then the table's length and first slots (a scan's start, unless this stop has one), and those
        # classes' layouts.
        names = ([node_class] if node_class is not None else []) + list(_BOXED_SIGNATURES)
        link_names = ("head", "tail") if ordered else ()
        first: list[Any] = [partial(self.fields, handle, chain, owner, "table", "size", *sizing),
                            partial(self.layouts.resolve, names)]
        if ordered:
            first.append(partial(self.fields, handle, chain, "java.util.LinkedHashMap", *link_names))
        read, _, *linked_fields = await gather(first)
        links = linked_fields[0] if ordered else {}
        if read is None or links is None:
            return self.missing(owner, "table, size (head, tail for LinkedHashMap)")
        size = int(read["size"].value or 0)
        start, end = page_bounds(self.offset, self.limit, size, ELEMENT_LIMITS, "entries")
        prefetch = partial(self.layouts.prefetch, [t for n in names if (t := self.layouts.candidate(n)) is not None])
        pairs: list[tuple[Value, Value]] = []
        if ordered:
            await prefetch()
            if end > start and not links["head"].is_null:
                try:
                    found = await self.insertion_order(links["head"], links["tail"], size, start, end)
                except Unfinished as unfinished:
                    return self.unfinished(view, size, start, unfinished), None
                if found is None:
                    return None, "the map's entries do not have the fields key, value, after, before this server reads"
                pairs = found
        elif end > start and not read["table"].is_null:
            table = read["table"]
            key = ("hash", int(table.value), size)
            scan = self.values.scans.get(key)
            second: list[Any] = [prefetch]
            if scan is None:
                scan = TableScan(self.values.vm, int(table.value), size, no_chains, [])
                second.insert(0, partial(scan.start, partial(self.values.array_length, self.values.handle(table)),
                                         _capacity(read, size), end))
            with stale_on_collected(self.handle):
                await gather(second)
            node_info = await self.node_class(node_class)  # asked above: no round trip unless the VM refused it
            if not await self.use_nodes(scan, node_info):
                return None, "the map's nodes do not have the fields key, value, next this server reads"
            self.values.scans.put(key, scan)
            try:
                with stale_on_collected(self.handle):
                    pairs = await scan.entries(start, end)
            except Unfinished as unfinished:
                return self.unfinished(view, size, start, unfinished), None
        else:
            await prefetch()
        flat = await self.values.summarize([v for pair in pairs for v in pair])
        if view == "set":
            elements = tuple(element(start + i, flat[2 * i]) for i in range(len(pairs)))
            return self.page("set", size, start, start + len(pairs), elements=elements), None
        entries = tuple(Entry(start + i, flat[2 * i], flat[2 * i + 1]) for i in range(len(pairs)))
        return self.page("map", size, start, start + len(pairs), entries=entries), None

    async def node_class(self, signature: str | None) -> ClassInfo | None:
        return await self.layouts.named(signature) if signature is not None else None

    async def use_nodes(self, scan: TableScan, node_info: ClassInfo | None) -> bool:
        """Give ``scan`` the nodes' fields (``key``, ``value``, ``next``): from the table's node class, else from
        a node's own class; ``False`` when they lack one."""
        if scan.pair_ids:
            return True
        names = ("key", "value", "next")
        node_chain: tuple[ClassInfo, ...] = (node_info,) if node_info is not None else ()
        if any(Layouts.find(node_chain, n) is None for n in names):  # not the table's node class: ask a node
            with stale_on_collected(self.handle):
                head = await scan.first_head()
            if head is None:
                return True  # an empty table: no node to read
            node_chain = await self.layouts.chain(await self.values.type_id(self.values.handle(
                Value(Tag.OBJECT, head))))
        found = [Layouts.find(node_chain, n) for n in names]
        if any(f is None for f in found):
            return False
        ids = [FieldId(f.field_id) for f in found if f is not None]
        vm, limit = self.values.vm, scan.size + 1
        scan.use(lambda heads, pairs: walk_chains(vm, heads, ids, limit, pairs), ids[:2])
        return True

    async def insertion_order(self, head: Value, tail: Value, size: int, start: int, end: int
                              ) -> list[tuple[Value, Value]] | None:
        """Entries ``start`` … ``end-1`` of a ``LinkedHashMap`` in insertion order (``head``/``after`` or
        ``tail``/``before``, from the nearer end; kept for the stop), or ``None`` when the entries' class lacks
        the fields."""
        key = ("linked", int(head.value), int(tail.value) if not tail.is_null else 0, size)  # type: ignore[arg-type]
        scan: LinkedScan | None = self.values.scans.get(key)
        if scan is None:
            entry_chain = await self.layouts.chain(await self.values.type_id(self.values.handle(head)))
            found = [Layouts.find(entry_chain, n) for n in ("key", "value", "after", "before")]
            if any(f is None for f in found):
                return None
            ids = [FieldId(f.field_id) for f in found if f is not None]
            scan = LinkedScan(self.values.vm, size, int(head.value), int(tail.value) if not tail.is_null else 0,  # type: ignore[arg-type]
                              ids)
            self.values.scans.put(key, scan)
        with stale_on_collected(self.handle):
            return await scan.entries(start, end)

    async def hash_set(self, owner: str) -> Answer:
        read = await self.fields(self.handle, self.chain, owner, "map")
        if read is None or read["map"].is_null:
            return self.missing(owner, "map")
        inner = self.values.handle(read["map"])
        chain = await self.layouts.chain(await self.values.type_id(inner))
        ordered = any(c.name == "java.util.LinkedHashMap" for c in chain)
        return await self.hash_map(inner, chain, "set", ordered)

    # --- wrappers, empties, boxes, builders ---------------------------------------------------------

    async def wrapper(self, owner: str, name: str) -> Answer:
        read = await self.fields(self.handle, self.chain, owner, name)
        if read is None or read[name].is_null or self.depth >= _MAX_DEPTH:
            return self.missing(owner, name)
        inner = self.values.handle(read[name])
        chain = await self.layouts.chain(await self.values.type_id(inner))
        page, note = await read_container(self.values, self.layouts, inner, chain, self.offset, self.limit,
                                          self.depth + 1)
        if page is None:
            return None, note
        return ObjectPage(self.handle, "object", self.runtime, page.view, page.offset, page.total, page.next_offset,
                          size=page.size, elements=page.elements, entries=page.entries,
                          note=f"the contents of the wrapped {chain[0].name} ({inner})"), None

    def empty(self, view: str) -> Answer:
        page_bounds(self.offset, self.limit, 0, ELEMENT_LIMITS, "entries" if view == "map" else "elements")
        if view == "map":
            return self.page(view, 0, 0, 0, entries=()), None
        return self.page(view, 0, 0, 0, elements=()), None

    async def singleton(self, owner: str, view: str) -> Answer:
        names = ("k", "v") if view == "map" else ("element",)
        read = await self.fields(self.handle, self.chain, owner, *names)
        if read is None:
            return self.missing(owner, ", ".join(names))
        start, end = page_bounds(self.offset, self.limit, 1, ELEMENT_LIMITS, "entries" if view == "map" else
                                 "elements")
        flat = await self.values.summarize([read[n] for n in names]) if end > start else []
        if view == "map":
            return self.page(view, 1, start, end, entries=(Entry(0, flat[0], flat[1]),) if flat else ()), None
        return self.page(view, 1, start, end, elements=(element(0, flat[0]),) if flat else ()), None

    async def boxed(self, owner: str) -> Answer:
        read = await self.fields(self.handle, self.chain, owner, "value")
        if read is None:
            return self.missing(owner, "value")
        page_bounds(self.offset, self.limit, 1, ELEMENT_LIMITS, "values")
        (summary,) = await self.values.summarize([read["value"]])
        return ObjectPage(self.handle, "object", self.runtime, "value", 0, 1, None, value=summary), None

    async def builder(self, owner: str) -> Answer:
        read = await self.fields(self.handle, self.chain, owner, "value", "count")
        if read is None or read["value"].is_null:
            return self.missing(owner, "value, count")
        coder = await self.fields(self.handle, self.chain, owner, "coder")
        count = int(read["count"].value or 0)
        array = ObjectId(int(read["value"].value))  # type: ignore[arg-type]
        # Only the page's units of the backing array, in bounded chunks (bytes with coder on OpenJDK 9+, chars
        # on Android): a 10M-char builder's page no longer reads the other 9,99x,xxx.
        start, end = page_bounds(self.offset, self.limit, count, UNIT_LIMITS, "UTF-16 units")
        units = 1 if coder and coder["coder"].value == 1 else None
        with stale_on_collected(self.handle):
            part = await read_units(self.values.vm, array, units, start, end)
        return slice_page(self.handle, "object", self.runtime, count, start, end, part), None


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


async def read_container(values: Values, layouts: Layouts, handle: str, chain: tuple[ClassInfo, ...], offset: int,
                         limit: int | None, depth: int = 0) -> Answer:
    """The object as its contents when its class (or a superclass) is a known container, else ``None``
    and a note (``None`` too when it is no container at all)."""
    reader = _Reader(values, layouts, handle, chain, offset, limit, depth)
    for info in chain:
        name = info.name
        if name in _EMPTY:
            return reader.empty(_EMPTY[name])
        if name in _WRAPPERS:
            return await reader.wrapper(name, _WRAPPERS[name])
        if name in _SINGLETONS:
            return await reader.singleton(name, _SINGLETONS[name])
        if name == "java.util.ArrayList":
            return await reader.array_list(name)
        if name == "java.util.Arrays$ArrayList":
            return await reader.arrays_list(name)
        if name == "java.util.LinkedHashMap":
            return await reader.hash_map(handle, chain, "map", True)
        if name == "java.util.HashMap":
            return await reader.hash_map(handle, chain, "map", False)
        if name == "java.util.HashSet":
            return await reader.hash_set(name)
        if name == "java.util.LinkedList":
            return await linked.linked_list(reader, name)
        if name == "java.util.ArrayDeque":
            return await linked.array_deque(reader, name)
        if name == "java.util.TreeMap":
            return await linked.tree_map(reader, handle, chain, "map")
        if name == "java.util.TreeSet":
            return await linked.tree_set(reader, name)
        if name == "java.util.concurrent.ConcurrentHashMap":
            return await linked.concurrent_map(reader, name)
        if name in _ARRAY_MAPS:
            return await arraymaps.array_map(reader, name)
        if name in _ARRAY_SETS:
            return await arraymaps.array_set(reader, name)
        if name == "android.util.SparseArray":
            return await arraymaps.sparse_array(reader, name)
        if name in _BOXED:
            return await reader.boxed(name)
        if name == "java.lang.AbstractStringBuilder":
            return await reader.builder(name)
    return None, None


async def bin_entries(values: Values, layouts: Layouts, handle: str, chain: tuple[ClassInfo, ...],
                      codes: set[int]) -> list[tuple[Value, Value]] | None:
    """The entries of the bins a ``HashMap`` (``LinkedHashMap``) or ``ConcurrentHashMap`` keeps keys of the
    ``hashCode``\\ s ``codes`` in (:mod:`.hashbins`): the table's length and those slots, then each bin's chain
    (a treeified bin keeps its ``next`` chain; a ``ConcurrentHashMap`` ``TreeBin`` is walked from ``first``).
    ``None`` when the object is no such map, its layout differs, or it was stopped mid-resize: then the caller
    scans its entries."""
    names = {info.name for info in chain}
    concurrent = "java.util.concurrent.ConcurrentHashMap" in names
    owner = "java.util.concurrent.ConcurrentHashMap" if concurrent else "java.util.HashMap"
    if owner not in names:
        return None
    reader = _Reader(values, layouts, handle, chain, 0, None, 0)
    read = await reader.fields(handle, chain, owner, "table")
    if read is None:
        return None
    if read["table"].is_null:
        return []
    table = read["table"]
    wire = ObjectId(int(table.value))  # type: ignore[arg-type]
    with stale_on_collected(handle):
        length = await values.array_length(values.handle(table))
        if length <= 0 or length & (length - 1):
            return None  # not a power of two: not the layout these rules are for
        spread = hashbins.concurrent_spread if concurrent else hashbins.hash_map_spread
        slots = sorted({hashbins.bin_index(spread(code), length) for code in codes})
        regions = await gather([partial(read_region, values.vm, wire, slot, 1) for slot in slots])
        heads = [int(v.value) for region in regions for v in region.values if not v.is_null]
        if not heads:
            return []
        head = Value(Tag.OBJECT, heads[0])
        if concurrent:
            ids = await linked.node_fields(reader, head, "java.util.concurrent.ConcurrentHashMap$Node", "hash", "key",
                                           "val", "next")
            if ids is None:
                return None
            try:
                bins = await linked.bins(reader, ids, 1 << 20, heads)
            except (Resizing, linked.NoFirst):
                return None
        else:
            node_chain = await layouts.chain(await values.type_id(values.handle(head)))
            found = [Layouts.find(node_chain, n) for n in ("key", "value", "next")]
            if any(f is None for f in found):
                return None
            bins = await walk_chains(values.vm, heads, [FieldId(f.field_id) for f in found if f is not None], 1 << 20)
    return [(key, value) for chain_ in bins for _, key, value in chain_]

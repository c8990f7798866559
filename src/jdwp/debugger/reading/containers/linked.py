"""Containers made of linked nodes or a ring: ``LinkedList``, ``ArrayDeque``, ``TreeMap``/``TreeSet`` and
``ConcurrentHashMap``, read from their fields without running app code (the readers of :mod:`.containers`).

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). DESIGN.md §7.2 (``view: "auto"``).

Fields each reader checks (OpenJDK 17, verified live); a missing one shows the object as fields, with a note:

- ``java.util.LinkedList``: ``first``, ``last``, ``size``; nodes ``LinkedList$Node`` ``item``/``next``/``prev``.
  A page walks from the nearer end, one node per round trip (``ObjectReference.GetValues`` 9,2).
- ``java.util.ArrayDeque``: ``elements``, ``head``, ``tail``; the ring's page is at most two
  ``ArrayReference.GetValues`` (13,2), sent together.
- ``java.util.TreeMap``: ``root``, ``size``; entries ``TreeMap$Entry`` ``key``/``value``/``left``/``right``.
  ``java.util.TreeSet``: ``m``, read when it is a ``TreeMap``. In order, without subtree sizes: each round
  trip reads every unread subtree that can still hold an entry of the page (each holds at least one), so a
  page costs about the tree's depth in round trips and reads only the subtrees left of the page's end.
- ``java.util.concurrent.ConcurrentHashMap``: ``table``, ``baseCount``, ``counterCells`` (``CounterCell``
  ``value``) for the size, as ``sumCount()`` adds them; nodes ``ConcurrentHashMap$Node``
  ``hash``/``key``/``val``/``next``. A bin headed by a ``TreeBin`` (hash -2) is walked from its ``first``
  along ``next``; a ``ReservationNode`` (hash -3, a ``computeIfAbsent`` in flight) holds nothing. A
  ``ForwardingNode`` (hash -1) means the VM stopped during a resize: the map is shown as fields, with a note.
  The table is scanned as far as the page needs and kept for the stop (:class:`.hashscan.TableScan`).

Cycles: a node met twice is not followed again. Links that end before the page does (a thread the stop did
not suspend was changing the container) make that page the last one, with a note.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from ....protocol.constants import Tag
from ....protocol.types import FieldId, ObjectId
from ....protocol.values import Value
from ..._gather import gather
from ..hashscan import Resizing, TableScan, Unfinished, no_chains, read_fields, walk_chains
from ..objects import ELEMENT_LIMITS, ClassInfo, Entry, Layouts, as_values, element, page_bounds
from ..tables import read_region
from ..values import stale_on_collected

if TYPE_CHECKING:
    from . import Answer, _Reader

_CHM = "java.util.concurrent.ConcurrentHashMap"
_MOVED, _TREEBIN, _RESERVED = -1, -2, -3


def _wire(value: Value) -> ObjectId:
    return ObjectId(int(value.value))  # type: ignore[arg-type]


async def node_fields(reader: _Reader, node: Value, owner: str, *names: str) -> list[FieldId] | None:
    """The field IDs of ``names`` declared in ``owner``, found from one node's class (asked once per class)."""
    chain = await reader.layouts.chain(await reader.values.type_id(reader.values.handle(node)))
    found = [Layouts.find(chain, name, owner) for name in names]
    if any(f is None for f in found):
        return None
    return [FieldId(f.field_id) for f in found if f is not None]


async def _read_nodes(reader: _Reader, nodes: list[Value], ids: list[FieldId]) -> list[list[Value]]:
    """The same fields of many nodes, in one round trip."""
    vm = reader.values.vm
    with stale_on_collected(reader.handle):
        return await gather([partial(vm.object_reference.get_values, _wire(n), ids) for n in nodes])


def _short(size: int, start: int, end: int, count: int) -> tuple[int, dict[str, str]]:
    """The page's end for ``next_offset``, and a note when the links ended before the page did (the
    container changing in a thread the stop did not suspend): then the page is the last one."""
    if start + count >= end:
        return start + count, {}
    return size, {"note": f"the links ended after {start + count} of {size} items: the container may be "
                          "changing in a thread this stop did not suspend"}


async def _list_page(reader: _Reader, items: list[Value], size: int, start: int, end: int) -> Answer:
    summaries = await reader.values.summarize(items)
    last, note = _short(size, start, end, len(items))
    return reader.page("list", size, start, last, **note,
                       elements=tuple(element(start + i, s) for i, s in enumerate(summaries))), None


async def _map_page(reader: _Reader, pairs: list[tuple[Value, Value]], size: int, start: int, end: int,
                    view: str) -> Answer:
    flat = await reader.values.summarize([v for pair in pairs for v in pair])
    last, note = _short(size, start, end, len(pairs))
    if view == "set":
        return reader.page("set", size, start, last, **note,
                           elements=tuple(element(start + i, flat[2 * i]) for i in range(len(pairs)))), None
    entries = tuple(Entry(start + i, flat[2 * i], flat[2 * i + 1]) for i in range(len(pairs)))
    return reader.page("map", size, start, last, **note, entries=entries), None


# --- LinkedList ----------------------------------------------------------------------------------------

async def linked_list(reader: _Reader, owner: str) -> Answer:
    read = await reader.fields(reader.handle, reader.chain, owner, "first", "last", "size")
    if read is None:
        return reader.missing(owner, "first, last, size")
    size = int(read["size"].value or 0)
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "elements")
    if end == start or read["first"].is_null:
        return await _list_page(reader, [], size, start, end)
    backwards = start > size - end  # walk from the nearer end: fewer nodes read
    here = read["last"] if backwards else read["first"]
    ids = await node_fields(reader, here, "java.util.LinkedList$Node", "item", "next", "prev")
    if ids is None:
        return None, "the list's nodes do not have the fields item, next, prev this server reads; shown as fields"
    wanted = size - start if backwards else end
    items: list[Value] = []
    seen: set[int] = set()
    while len(items) < wanted and not here.is_null and int(here.value) not in seen:  # type: ignore[arg-type]
        seen.add(int(here.value))  # type: ignore[arg-type]
        (fields,) = await _read_nodes(reader, [here], ids)
        items.append(fields[0])
        here = fields[2] if backwards else fields[1]
    if backwards:
        items.reverse()  # items[0] is now index size - len(items)
        first = size - len(items)
        items = items[start - first:end - first] if start >= first else []
    else:
        items = items[start:end]
    return await _list_page(reader, items, size, start, end)


# --- ArrayDeque ----------------------------------------------------------------------------------------

async def array_deque(reader: _Reader, owner: str) -> Answer:
    read = await reader.fields(reader.handle, reader.chain, owner, "elements", "head", "tail")
    if read is None or read["elements"].is_null:
        return reader.missing(owner, "elements, head, tail")
    array = read["elements"]
    length = await reader.values.array_length(reader.values.handle(array))
    head, tail = int(read["head"].value or 0), int(read["tail"].value or 0)
    if length == 0 or not (0 <= head < length and 0 <= tail < length):
        return None, f"{owner}'s head {head} and tail {tail} do not fit its array of {length}; shown as fields"
    size = (tail - head) % length
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "elements")
    if end == start:
        return await _list_page(reader, [], size, start, end)
    first, last = (head + start) % length, (head + end - 1) % length
    spans = [(first, last - first + 1)] if first <= last else [(first, length - first), (0, last + 1)]
    vm = reader.values.vm
    with stale_on_collected(reader.handle):
        regions = await gather([partial(read_region, vm, _wire(array), index, count) for index, count in spans])
    return await _list_page(reader, [v for region in regions for v in as_values(region)], size, start, end)


# --- TreeMap and TreeSet ---------------------------------------------------------------------------------

async def tree_set(reader: _Reader, owner: str) -> Answer:
    read = await reader.fields(reader.handle, reader.chain, owner, "m")
    if read is None or read["m"].is_null:
        return reader.missing(owner, "m")
    inner = reader.values.handle(read["m"])
    chain = await reader.layouts.chain(await reader.values.type_id(inner))
    if not any(c.name == "java.util.TreeMap" for c in chain):
        return None, f"this set's map is a {chain[0].name}, not a java.util.TreeMap; shown as fields"
    return await tree_map(reader, inner, chain, "set")


async def tree_map(reader: _Reader, handle: str, chain: tuple[ClassInfo, ...], view: str) -> Answer:
    read = await reader.fields(handle, chain, "java.util.TreeMap", "root", "size")
    if read is None:
        return reader.missing("java.util.TreeMap", "root, size")
    size = int(read["size"].value or 0)
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "entries" if view == "map"
                             else "elements")
    if end == start or read["root"].is_null:
        return await _map_page(reader, [], size, start, end, view)
    ids = await node_fields(reader, read["root"], "java.util.TreeMap$Entry", "key", "value", "left", "right")
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
        fields = await _read_nodes(reader, [sequence[p] for p in expand], ids)  # type: ignore[misc]
        replaced: dict[int, list[tuple[Value, Value] | Value]] = {}
        for position, (key, value, left, right) in zip(expand, fields, strict=True):
            seen.add(int(sequence[position].value))  # type: ignore[union-attr, arg-type]
            parts: list[tuple[Value, Value] | Value] = []
            if not left.is_null and int(left.value) not in seen:  # type: ignore[arg-type]
                parts.append(left)
            parts.append((key, value))
            if not right.is_null and int(right.value) not in seen:  # type: ignore[arg-type]
                parts.append(right)
            replaced[position] = parts
        sequence = [part for p, item in enumerate(sequence) for part in replaced.get(p, [item])]
    pairs = [item for item in sequence[start:end] if isinstance(item, tuple)]
    return await _map_page(reader, pairs, size, start, end, view)


# --- ConcurrentHashMap -----------------------------------------------------------------------------------

async def concurrent_map(reader: _Reader, owner: str) -> Answer:
    read = await reader.fields(reader.handle, reader.chain, owner, "table", "baseCount", "counterCells")
    if read is None:
        return reader.missing(owner, "table, baseCount, counterCells")
    size = int(read["baseCount"].value or 0)
    if not read["counterCells"].is_null:
        cells = await _counter_cells(reader, read["counterCells"])
        if cells is None:
            return None, "the map's counter cells do not have the field value this server reads; shown as fields"
        size += cells
    size = max(size, 0)  # sumCount() may dip below zero while removals race; a stopped VM shows it as empty
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "entries")
    if end == start or read["table"].is_null:
        return await _map_page(reader, [], size, start, end, "map")
    table = read["table"]
    key = ("chm", int(table.value), size)  # type: ignore[arg-type]
    scan = reader.values.scans.get(key)
    if scan is None:
        scan = TableScan(reader.values.vm, int(table.value), size, no_chains, [])  # type: ignore[arg-type]
        with stale_on_collected(reader.handle):
            await scan.start(partial(reader.values.array_length, reader.values.handle(table)), None, end)
        with stale_on_collected(reader.handle):
            head = await scan.first_head()
        if head is not None:
            ids = await node_fields(reader, Value(Tag.OBJECT, head), f"{_CHM}$Node", "hash", "key", "val", "next")
            if ids is None:
                return None, "the map's nodes do not have the fields hash, key, val, next this server reads; " \
                             "shown as fields"
            scan.use(partial(bins, reader, ids, size + 1), ids[1:3])
        reader.values.scans.put(key, scan)
    try:
        with stale_on_collected(reader.handle):
            pairs = await scan.entries(start, end)
    except Resizing:
        reader.values.scans.put(key, None)
        return None, "the map was being resized when the VM stopped (a ForwardingNode in its table); shown as fields"
    except Unfinished as unfinished:
        return reader.unfinished("map", size, start, unfinished), None
    except NoFirst:
        return None, "the map's TreeBin does not have the field first this server reads; shown as fields"
    return await _map_page(reader, pairs, size, start, end, "map")


class NoFirst(Exception):
    pass


async def bins(reader: _Reader, ids: list[FieldId], limit: int, heads: Sequence[int], pairs: bool = True
               ) -> list[list[tuple[int, Value, Value]]]:
    """Each bin's entries: a plain bin's chain; a ``TreeBin``'s (hash -2) from its ``first`` along ``next``;
    none for a ``ReservationNode`` (hash -3). A ``ForwardingNode`` (hash -1) raises :class:`Resizing`."""
    vm = reader.values.vm
    out: list[list[tuple[int, Value, Value]]] = [[] for _ in heads]
    follow: list[tuple[int, int]] = []  # (bin, node) whose chain is walked from that node on
    bins: list[tuple[int, int]] = []
    none = Value.null()
    read = await read_fields(vm, heads, ids if pairs else [ids[0], ids[3]])
    for slot, (head, fields) in enumerate(zip(heads, read, strict=True)):
        hash_, key, val, nxt = fields if pairs else (fields[0], none, none, fields[1])
        code = int(hash_.value)  # type: ignore[arg-type]
        if code == _MOVED:
            raise Resizing
        if code == _TREEBIN:
            bins.append((slot, head))
        elif code != _RESERVED:
            out[slot].append((head, key, val))
            if not nxt.is_null:
                follow.append((slot, int(nxt.value)))  # type: ignore[arg-type]
    if bins:
        first_ids = await node_fields(reader, Value(Tag.OBJECT, bins[0][1]), f"{_CHM}$TreeBin", "first")
        if first_ids is None:
            raise NoFirst
        for (slot, _), (first,) in zip(bins, await read_fields(vm, [b for _, b in bins], first_ids), strict=True):
            if not first.is_null:
                follow.append((slot, int(first.value)))  # type: ignore[arg-type]
    if follow:
        chains = await walk_chains(vm, [node for _, node in follow], ids[1:], limit, pairs)
        for (slot, _), chain in zip(follow, chains, strict=True):
            out[slot].extend(chain)
    return out


async def _counter_cells(reader: _Reader, cells: Value) -> int | None:
    """The sum of the cells' values (``CounterCell.value``), or ``None`` when a cell lacks the field."""
    length = await reader.values.array_length(reader.values.handle(cells))
    with stale_on_collected(reader.handle):
        region = await read_region(reader.values.vm, _wire(cells), 0, length)
    present = [v for v in region.values if not v.is_null]
    if not present:
        return 0
    ids = await node_fields(reader, present[0], f"{_CHM}$CounterCell", "value")
    if ids is None:
        return None
    return sum(int(fields[0].value or 0) for fields in await _read_nodes(reader, present, ids))

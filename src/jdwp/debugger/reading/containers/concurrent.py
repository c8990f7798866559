"""``java.util.concurrent.ConcurrentHashMap``: ``table``, ``baseCount``, ``counterCells`` (``CounterCell``
``value``) for the size, as ``sumCount()`` adds them; nodes ``ConcurrentHashMap$Node`` ``hash``/``key``/``val``/
``next`` (OpenJDK 17, verified live). A bin headed by a ``TreeBin`` (hash -2) is walked from its ``first`` along
``next``; a ``ReservationNode`` (hash -3, a ``computeIfAbsent`` in flight) holds nothing. A ``ForwardingNode``
(hash -1) means the VM stopped during a resize: the map is shown as fields, with a note. The table is scanned as
far as the page needs and kept for the stop (:class:`..hashscan.TableScan`).

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``view: "auto"``).

Cycles: a node met twice is not followed again. Links that end before the page does (a thread the stop did
not suspend was changing the container) make that page the last one, with a note.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from ....protocol.constants import Tag
from ....protocol.types import FieldId
from ....protocol.values import Value
from ..hashscan import Resizing, TableScan, Unfinished, no_chains, read_fields, walk_chains
from ..objects import ELEMENT_LIMITS, page_bounds
from ..stop_cache import current_cache
from ..tables import read_region
from ..values import stale_on_collected
from .base import Answer, Reader, wire

_CHM = "java.util.concurrent.ConcurrentHashMap"
_MOVED, _TREEBIN, _RESERVED = -1, -2, -3



async def concurrent_map(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "table", "baseCount", "counterCells")
    if read is None:
        return reader.missing(owner, "table, baseCount, counterCells")
    size = int(read["baseCount"].value or 0)
    if not read["counterCells"].is_null:
        cells = await counter_cells(reader, read["counterCells"])
        if cells is None:
            return None, "the map's counter cells do not have the field value this server reads; shown as fields"
        size += cells
    size = max(size, 0)  # sumCount() may dip below zero while removals race; a stopped VM shows it as empty
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "entries")
    if end == start or read["table"].is_null:
        return await reader.walked_map([], size, start, end, "map")
    table = read["table"]
    key = ("chm", table.object_id, size)
    cache = current_cache()
    scan = cache.get("scan", key)
    if scan is None:
        scan = TableScan(reader.values.vm, table.object_id, size, no_chains, [])
        with stale_on_collected(reader.handle):
            await scan.start(partial(reader.values.array_length, reader.values.handle(table)), None, end)
        with stale_on_collected(reader.handle):
            head = await scan.first_head()
        if head is not None:
            ids = await reader.node_fields(Value(Tag.OBJECT, head), f"{_CHM}$Node", "hash", "key", "val", "next")
            if ids is None:
                return None, "the map's nodes do not have the fields hash, key, val, next this server reads; " \
                             "shown as fields"
            scan.use(partial(bins, reader, ids, size + 1), ids[1:3])
        cache.put("scan", key, scan)
    try:
        with stale_on_collected(reader.handle):
            pairs = await scan.entries(start, end)
    except Resizing:
        cache.put("scan", key, None)
        return None, "the map was being resized when the VM stopped (a ForwardingNode in its table); shown as fields"
    except Unfinished as unfinished:
        return reader.unfinished("map", size, start, unfinished), None
    except NoFirst:
        return None, "the map's TreeBin does not have the field first this server reads; shown as fields"
    return await reader.walked_map(pairs, size, start, end, "map")


class NoFirst(Exception):
    pass


async def bins(reader: Reader, ids: list[FieldId], limit: int, heads: Sequence[int], pairs: bool = True
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
                follow.append((slot, nxt.object_id))
    if bins:
        first_ids = await reader.node_fields(Value(Tag.OBJECT, bins[0][1]), f"{_CHM}$TreeBin", "first")
        if first_ids is None:
            raise NoFirst
        for (slot, _), (first,) in zip(bins, await read_fields(vm, [b for _, b in bins], first_ids), strict=True):
            if not first.is_null:
                follow.append((slot, first.object_id))
    if follow:
        chains = await walk_chains(vm, [node for _, node in follow], ids[1:], limit, pairs)
        for (slot, _), chain in zip(follow, chains, strict=True):
            out[slot].extend(chain)
    return out


async def counter_cells(reader: Reader, cells: Value) -> int | None:
    """The sum of the cells' values (``CounterCell.value``), or ``None`` when a cell lacks the field."""
    length = await reader.values.array_length(reader.values.handle(cells))
    with stale_on_collected(reader.handle):
        region = await read_region(reader.values.vm, wire(cells), 0, length)
    present = [v for v in region.values if not v.is_null]
    if not present:
        return 0
    ids = await reader.node_fields(present[0], f"{_CHM}$CounterCell", "value")
    if ids is None:
        return None
    return sum(int(fields[0].value or 0) for fields in await reader.read_nodes(present, ids))

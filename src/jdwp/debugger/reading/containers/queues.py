"""Queues and deques of ``java.util`` and ``java.util.concurrent``, and ``CopyOnWriteArrayList``: their elements,
read from their fields without running app code (OpenJDK 17's sources, ``java/util/PriorityQueue.java`` and
``java/util/concurrent/*.java``; verified live).

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/tools.md ("Values").

- Array-backed: ``PriorityQueue`` and ``PriorityBlockingQueue`` (``queue``, ``size``: the heap's array, so the
  elements are listed in heap order, which the page says: ``poll()`` would take them in another);
  ``ArrayBlockingQueue`` (``items``, ``takeIndex``, ``count``: a ring from ``takeIndex``);
  ``CopyOnWriteArrayList`` (``array``, all of it).
- Linked: ``ConcurrentLinkedQueue`` (``head``; nodes ``item``/``next``), ``ConcurrentLinkedDeque`` (``head``;
  ``item``/``next``), ``LinkedBlockingQueue`` (``head``, a dummy node, and ``count``, an ``AtomicInteger``'s
  ``value``; ``item``/``next``) and ``LinkedBlockingDeque`` (``first``, ``count``; ``item``/``next``). A node
  whose ``item`` is null is a removed one (or the dummy) and is skipped, as the queues' iterators skip it; a
  node linked to itself (unlinked by a removal) ends the walk. The walk is one ``ObjectReference.GetValues``
  (9,2) a node; the two ``Concurrent`` ones keep no count, so their size is a walk of them all, at most
  :data:`MAX_WALK` nodes.
"""

from __future__ import annotations

from functools import partial

from ....protocol.values import Value
from ..._gather import gather
from ..objects import ELEMENT_LIMITS, as_values, page_bounds
from ..tables import read_region
from ..values import stale_on_collected
from .base import Answer, Reader, wire

#: The most nodes walked to count a queue that keeps no count.
MAX_WALK = 10_000
_HEAP_NOTE = ("the elements in heap order (the queue's array): poll() takes them in priority order, which only "
              "the first one is certain to have")


async def walk_items(reader: Reader, first: Value, node_owner: str, wanted: int) -> list[Value] | None:
    r"""The non-null ``item``\ s of linked nodes from ``first`` along ``next``, at most ``wanted``; the walk ends
    at a null link or a node met before (one linked to itself: unlinked by a removal). ``None`` when the nodes
    lack the fields."""
    if first.is_null or wanted <= 0:
        return []
    ids = await reader.node_fields(first, node_owner, "item", "next")
    if ids is None:
        return None
    items: list[Value] = []
    seen: set[int] = set()
    here = first
    while len(items) < wanted and not here.is_null and here.object_id not in seen and len(seen) <= MAX_WALK:
        seen.add(here.object_id)
        ((value, following),) = await reader.read_nodes([here], ids)
        if not value.is_null:
            items.append(value)
        here = following
    return items


async def _array_page(reader: Reader, array: Value, size: int, first: int = 0, **note: str) -> Answer:
    """A list page of the ``size`` elements an array holds from slot ``first`` on (a ring: wraps at its end)."""
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "elements")
    if end == start:
        return await reader.walked_list([], size, start, end)
    vm = reader.values.vm
    with stale_on_collected(reader.handle):
        length = await reader.values.array_length(reader.values.handle(array))
        if length < size or not 0 <= first < max(length, 1):
            return None, "the queue's array is shorter than its count says: its layout does not match; shown as " \
                         "fields"
        low, high = (first + start) % length, (first + end - 1) % length
        spans = [(low, high - low + 1)] if low <= high else [(low, length - low), (0, high + 1)]
        regions = await gather([partial(read_region, vm, wire(array), index, count) for index, count in spans])
    return await reader.list_page([v for region in regions for v in as_values(region)], size, start, end, **note)


async def priority_queue(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "queue", "size")
    if read is None or read["queue"].is_null:
        return reader.missing(owner, "queue, size")
    return await _array_page(reader, read["queue"], int(read["size"].value or 0), note=_HEAP_NOTE)


async def array_blocking_queue(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "items", "takeIndex", "count")
    if read is None or read["items"].is_null:
        return reader.missing(owner, "items, takeIndex, count")
    return await _array_page(reader, read["items"], int(read["count"].value or 0), int(read["takeIndex"].value or 0))


async def copy_on_write_list(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "array")
    if read is None or read["array"].is_null:
        return reader.missing(owner, "array")
    size = await reader.values.array_length(reader.values.handle(read["array"]))
    return await _array_page(reader, read["array"], size)


#: Each linked queue: the field of its first node, the field of its count (``None``: it keeps none), and
#: the class that declares its nodes.
LINKED = {"java.util.concurrent.ConcurrentLinkedQueue": ("head", None),
          "java.util.concurrent.ConcurrentLinkedDeque": ("head", None),
          "java.util.concurrent.LinkedBlockingQueue": ("head", "count"),
          "java.util.concurrent.LinkedBlockingDeque": ("first", "count")}


async def linked_queue(reader: Reader, owner: str) -> Answer:
    head_field, count_field = LINKED[owner]
    names = (head_field,) if count_field is None else (head_field, count_field)
    read = await reader.own_fields(owner, *names)
    if read is None:
        return reader.missing(owner, ", ".join(names))
    head = read[head_field]
    node_owner = f"{owner}$Node"
    if count_field is None:  # no count: walk them all (bounded) to know the size
        items = await walk_items(reader, head, node_owner, MAX_WALK + 1)
        if items is None:
            return None, "the queue's nodes do not have the fields item, next this server reads; shown as fields"
        if len(items) > MAX_WALK:
            return None, f"the queue keeps no count and has more than {MAX_WALK:,} elements; shown as fields"
        size = len(items)
        start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "elements")
        return await reader.list_page(items[start:end], size, start, end)
    count = read[count_field]
    if count.is_object:  # LinkedBlockingQueue's AtomicInteger
        inner = await reader.fields(reader.values.handle(count), await reader.layouts.chain(
            await reader.values.type_id(reader.values.handle(count))), "java.util.concurrent.atomic.AtomicInteger",
            "value") if not count.is_null else None
        if inner is None:
            return reader.missing(owner, f"{count_field} (an AtomicInteger's value)")
        count = inner["value"]
    size = int(count.value or 0)
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "elements")
    items = await walk_items(reader, head, node_owner, end)
    if items is None:
        return None, "the queue's nodes do not have the fields item, next this server reads; shown as fields"
    return await reader.walked_list(items[start:end], size, start, end)

"""What every container reader shares: :class:`Reader` (one object's page being read: its handle, class
chain and page bounds), the :data:`Answer` each reader returns, and the page helpers the readers build
their answers with.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``view: "auto"``). Imports no
reader module: the readers import this one, and :mod:`jdwp.debugger.reading.containers` hands each
:class:`Reader` the table it picks nested readers from (a wrapper's contents).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any

from ....protocol.types import FieldId, ObjectId
from ....protocol.values import Value
from ..._gather import gather
from ..hashscan import PAGE_BUDGET, Unfinished
from ..objects import ELEMENT_LIMITS, ClassInfo, Entry, Layouts, ObjectPage, element, next_of, page_bounds
from ..values import Values, stale_on_collected

#: A page of the object's contents, or ``None`` and a note saying why it is shown as fields.
Answer = tuple[ObjectPage | None, str | None]
#: One row of the table: how the objects of one class (named by the row's key, passed as ``owner``) are read.
ReadFn = Callable[["Reader", str], Awaitable[Answer]]
#: How an object shown as a text (``BigDecimal``) makes it from its fields: ``None`` when the layout differs.
TextFn = Callable[["Reader", str], Awaitable["str | None"]]
#: How deep wrappers are followed into the containers they wrap.
MAX_DEPTH = 4


def wire(value: Value) -> ObjectId:
    """The object ID of an object ``value`` read from a field or an array."""
    return value.object_id


class Reader:
    """One object's page being read: the object (``handle``, class ``chain``), the page bounds, how deep in
    wrappers it is, and the table of readers a nested read picks from."""

    def __init__(self, values: Values, layouts: Layouts, handle: str, chain: tuple[ClassInfo, ...], offset: int,
                 limit: int | None, depth: int, table: Mapping[str, ReadFn] | None = None) -> None:
        self.values, self.layouts, self.handle, self.chain = values, layouts, handle, chain
        self.offset, self.limit, self.depth = offset, limit, depth
        self.table: Mapping[str, ReadFn] = table or {}
        self.runtime = chain[0].name

    async def read(self) -> Answer:
        """The reader of the most derived class of the chain that has one, or ``(None, None)``: no container."""
        for info in self.chain:
            read = self.table.get(info.name)
            if read is not None:
                return await read(self, info.name)
        return None, None

    async def nested(self, handle: str, chain: tuple[ClassInfo, ...]) -> Answer:
        """Another object (a wrapper's contents) read with the same page bounds, one level deeper."""
        return await Reader(self.values, self.layouts, handle, chain, self.offset, self.limit, self.depth + 1,
                            self.table).read()

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
        wire_id, _ = self.values.resolve(handle)
        with stale_on_collected(handle):
            read = await self.values.vm.object_reference.get_values(wire_id, [FieldId(f.field_id) for f in found
                                                                              if f is not None])
        return dict(zip(names, read, strict=True))

    async def own_fields(self, owner: str, *names: str) -> dict[str, Value] | None:
        """:meth:`fields` of this reader's own object."""
        return await self.fields(self.handle, self.chain, owner, *names)

    async def held(self, owner: str, name: str) -> tuple[str, tuple[ClassInfo, ...]] | None:
        """The object this one's field ``name`` (declared in ``owner``) holds, as its handle and class chain
        (a wrapper's collection, a set's map); ``None`` when the class lacks the field or it is null."""
        read = await self.own_fields(owner, name)
        if read is None or read[name].is_null:
            return None
        inner = self.values.handle(read[name])
        return inner, await self.layouts.chain(await self.values.type_id(inner))

    async def node_fields(self, node: Value, owner: str | None, *names: str) -> list[FieldId] | None:
        """The field IDs of ``names`` declared in ``owner`` (in any class when ``None``), found from one node's
        class (asked once per class)."""
        chain = await self.layouts.chain(await self.values.type_id(self.values.handle(node)))
        found = [Layouts.find(chain, name, owner) for name in names]
        if any(f is None for f in found):
            return None
        return [FieldId(f.field_id) for f in found if f is not None]

    async def read_nodes(self, nodes: list[Value], ids: list[FieldId]) -> list[list[Value]]:
        """The same fields of many nodes, in one round trip."""
        vm = self.values.vm
        with stale_on_collected(self.handle):
            return await gather([partial(vm.object_reference.get_values, wire(n), ids) for n in nodes])

    async def one_item(self, owner: str, names: tuple[str, ...], view: str) -> Answer:
        """The page of a container of one item held in ``owner``'s fields ``names``: an element (one name), or
        a map's key and value (two)."""
        read = await self.own_fields(owner, *names)
        if read is None:
            return self.missing(owner, ", ".join(names))
        start, end = page_bounds(self.offset, self.limit, 1, ELEMENT_LIMITS, "entries" if view == "map" else
                                 "elements")
        flat = await self.values.summarize([read[n] for n in names]) if end > start else []
        if view == "map":
            return self.page(view, 1, start, end, entries=(Entry(0, flat[0], flat[1]),) if flat else ()), None
        return self.page(view, 1, start, end, elements=(element(0, flat[0]),) if flat else ()), None

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

    async def list_page(self, items: list[Value], size: int, start: int, end: int, view: str = "list",
                        **note: str) -> Answer:
        """A list (or set) page of ``items``, the elements ``start`` … ``end-1``, summarized."""
        summaries = await self.values.summarize(items)
        return self.page(view, size, start, end, **note,
                         elements=tuple(element(start + i, s) for i, s in enumerate(summaries))), None

    async def map_page(self, pairs: list[tuple[Value, Value]], size: int, start: int, end: int, view: str = "map",
                       **note: str) -> Answer:
        """A map page of ``pairs``, the entries ``start`` … ``end-1``, summarized; a set page of their keys when
        ``view`` is ``"set"``."""
        flat = await self.values.summarize([v for pair in pairs for v in pair])
        if view == "set":
            return self.page("set", size, start, end, **note,
                             elements=tuple(element(start + i, flat[2 * i]) for i in range(len(pairs)))), None
        entries = tuple(Entry(start + i, flat[2 * i], flat[2 * i + 1]) for i in range(len(pairs)))
        return self.page("map", size, start, end, **note, entries=entries), None

    async def walked_list(self, items: list[Value], size: int, start: int, end: int) -> Answer:
        """:meth:`list_page` of what a walk of links found for the page ``start`` … ``end-1``."""
        last, note = _ended(size, start, end, len(items))
        return await self.list_page(items, size, start, last, **note)

    async def walked_map(self, pairs: list[tuple[Value, Value]], size: int, start: int, end: int, view: str
                         ) -> Answer:
        """:meth:`map_page` of what a walk of links found for the page ``start`` … ``end-1``."""
        last, note = _ended(size, start, end, len(pairs))
        return await self.map_page(pairs, size, start, last, view, **note)


def _ended(size: int, start: int, end: int, count: int) -> tuple[int, dict[str, str]]:
    """The page's end for ``next_offset``, and a note when the links ended before the page did (the
    container changing in a thread the stop did not suspend): then the page is the last one."""
    if start + count >= end:
        return start + count, {}
    return size, {"note": f"the links ended after {start + count} of {size} items: the container may be "
                          "changing in a thread this stop did not suspend"}

"""The size of a well-known container, read from the fields its reader (:mod:`.containers`' readers) relies on, and
nothing more: what a preview (``ArrayList(size=4)``, :mod:`..previews`) shows.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.7 (previews), §2.7 (bounded reads).

A size is one ``ObjectReference.GetValues`` (9,2) of the container's size field (``ArrayList.size``,
``HashMap.size``, ``LinkedList.size``, ``TreeMap.size``, ``Vector.elementCount``, Android's ``ArrayMap.mSize``
and their Kotlin releases' names, :data:`.arraymaps.MAP_LAYOUTS`); a few need a second step: an array's length
(``Arrays$ArrayList.a``, ``ArrayDeque`` from its ``head``/``tail`` and its ring's length), an inner map or
collection (``HashSet.map``, ``TreeSet.m``, the ``Collections`` wrappers' ``c``/``m``), or
``ConcurrentHashMap``'s ``baseCount`` plus its counter cells (one per CPU at most, as ``sumCount()`` adds them).
No table, list or tree is walked: a 1,000,000-entry map's size costs what a 4-entry one's does. The readers
without a size field of their own (:data:`.PAGED`: ``EnumMap``, the queues, Gson's ``LinkedTreeMap``, Guava's
immutable collections, javac's ``List``) answer a one-item page of themselves, whose size is their count field,
their array's length or, for the ones that keep no count, a bounded walk. ``None`` when
the layout is not the one these rules are for (the preview then shows ``(…)``), or for ``SparseArray`` while
its ``mGarbage`` is set (only ``gc()``, which we must not call, knows the size then).
"""

from __future__ import annotations

from ....protocol.errors import CommandError
from ...errors import StaleReference
from ..objects import ClassInfo, Layouts
from ..values import Values, previewing
from . import PAGED, READERS
from .arraymaps import MAP_LAYOUTS, SET_LAYOUTS
from .base import Reader
from .concurrent import counter_cells
from .singletons import EMPTY as _EMPTY
from .singletons import SINGLETONS as _SINGLETONS
from .wrappers import WRAPPED as _WRAPPERS

_MAX_DEPTH = 4
#: Containers whose size is one int field of the class that declares it (on OpenJDK 17 and libcore).
_SIZE_FIELD = {"java.util.ArrayList": "size", "java.util.HashMap": "size", "java.util.LinkedList": "size",
               "java.util.TreeMap": "size", "java.util.Vector": "elementCount",
               "java.util.IdentityHashMap": "size", "java.util.WeakHashMap": "size",
               "java.util.ImmutableCollections$SetN": "size", "java.util.ImmutableCollections$MapN": "size"}
#: Sets backed by a map in one field: their size is the map's.
_BY_MAP = {"java.util.HashSet": "map", "java.util.TreeSet": "m"}
_ARRAY_MAPS = {"android.util.ArrayMap": MAP_LAYOUTS, "androidx.collection.SimpleArrayMap": MAP_LAYOUTS,
               "android.util.ArraySet": SET_LAYOUTS, "androidx.collection.ArraySet": SET_LAYOUTS}


def container_name(chain: tuple[ClassInfo, ...]) -> str | None:
    """The most derived class of ``chain`` whose size this module reads (as :func:`.read_container` picks a
    reader), or ``None``."""
    for info in chain:
        name = info.name
        if (name in _SIZE_FIELD or name in _BY_MAP or name in _EMPTY or name in _SINGLETONS or name in _WRAPPERS
                or name in _ARRAY_MAPS or name in ("java.util.Arrays$ArrayList", "java.util.ArrayDeque",
                                                   "java.util.concurrent.ConcurrentHashMap",
                                                   "android.util.SparseArray") or name in PAGED):
            return name
    return None


async def container_size(values: Values, layouts: Layouts, handle: str, chain: tuple[ClassInfo, ...],
                         depth: int = 0) -> int | None:
    """The container's size, or ``None`` when its layout differs, it is not a container, or it was collected."""
    try:
        return await _size(Reader(values, layouts, handle, chain, 0, None, depth), container_name(chain))
    except (CommandError, StaleReference):  # collected, or a class the VM no longer describes: no size
        return None


async def _size(reader: Reader, name: str | None) -> int | None:
    if name is None:
        return None
    if name in _EMPTY:
        return 0
    if name in _SINGLETONS:
        return 1
    if name in _SIZE_FIELD:
        return await _int_field(reader, reader.handle, reader.chain, name, _SIZE_FIELD[name])
    if name in _BY_MAP or name in _WRAPPERS:
        field = _BY_MAP.get(name) or _WRAPPERS[name]
        read = await reader.fields(reader.handle, reader.chain, name, field)
        if read is None or read[field].is_null or reader.depth >= _MAX_DEPTH:
            return None
        inner = reader.values.handle(read[field])
        chain = await reader.layouts.chain(await reader.values.type_id(inner))
        return await container_size(reader.values, reader.layouts, inner, chain, reader.depth + 1)
    if name == "java.util.Arrays$ArrayList":
        read = await reader.fields(reader.handle, reader.chain, name, "a")
        if read is None or read["a"].is_null:
            return None
        return await reader.values.array_length(reader.values.handle(read["a"]))
    if name == "java.util.ArrayDeque":
        read = await reader.fields(reader.handle, reader.chain, name, "elements", "head", "tail")
        if read is None or read["elements"].is_null:
            return None
        length = await reader.values.array_length(reader.values.handle(read["elements"]))
        head, tail = int(read["head"].value or 0), int(read["tail"].value or 0)
        return (tail - head) % length if length and 0 <= head < length and 0 <= tail < length else None
    if name == "java.util.concurrent.ConcurrentHashMap":
        read = await reader.fields(reader.handle, reader.chain, name, "baseCount", "counterCells")
        if read is None:
            return None
        size = int(read["baseCount"].value or 0)
        if not read["counterCells"].is_null:
            cells = await counter_cells(reader, read["counterCells"])
            if cells is None:
                return None
            size += cells
        return max(size, 0)  # as the reader shows it: sumCount() may dip below zero while removals race
    if name in PAGED:  # no size field: the size a one-item page of its reader finds (walked, for a linked one)
        with previewing(0):
            page, _ = await Reader(reader.values, reader.layouts, reader.handle, reader.chain, 0, 1, reader.depth,
                                   READERS).read()
        return page.size if page is not None else None
    if name == "android.util.SparseArray":
        read = await reader.fields(reader.handle, reader.chain, name, "mSize", "mGarbage")
        return None if read is None or read["mGarbage"].value else int(read["mSize"].value or 0)
    for _hashes, _array, size_field in _ARRAY_MAPS[name]:
        if Layouts.find(reader.chain, size_field, name) is not None:
            return await _int_field(reader, reader.handle, reader.chain, name, size_field)
    return None


async def _int_field(reader: Reader, handle: str, chain: tuple[ClassInfo, ...], owner: str, field: str) -> int | None:
    read = await reader.fields(handle, chain, owner, field)
    return None if read is None else int(read[field].value or 0)

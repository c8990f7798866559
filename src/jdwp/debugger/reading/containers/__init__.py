"""Well-known containers shown as their contents, read from their fields without running app code.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``view: "auto"``).

A reader is chosen by the most derived class of the object's superclass chain that has a row in
:data:`READERS` (a subclass of ``ArrayList`` keeps ArrayList's fields). Each reader first checks that the
fields it relies on exist (by name, in the class that declares them on OpenJDK 17); a layout that differs
answers ``None`` and a note, and the object is shown as fields. Each reader module's docstring lists the
fields it reads and how they were verified; :mod:`.base` holds what they share.

Adding a view: one module with an async reader ``(reader: Reader, owner: str) -> Answer`` (``owner`` is
the class's name), and one row per class it reads in :data:`READERS`.

A page reads only what it needs, and no command more than a VM's agent survives (:mod:`..tables`): a list
page is one ``ArrayReference.GetValues`` (13,2) of the backing array's slice; a hash map page scans the
bucket table only as far as the page's end (:mod:`.hashmaps`); linked containers walk from the nearer end.
A key lookup reads only the key's bins (:func:`bin_entries`, :mod:`.lookup`).
"""

from __future__ import annotations

from ..objects import ClassInfo, Layouts
from ..values import Values
from . import (
    arraymaps,
    boxes,
    builders,
    concurrent,
    deques,
    enummaps,
    gson,
    guava,
    hashmaps,
    javac,
    jdk_immutables,
    linked,
    lists,
    numbers,
    queues,
    singletons,
    times,
    trees,
    wrappers,
)
from .base import Answer, Reader, ReadFn, TextFn
from .lookup import bin_entries

__all__ = ["PAGED", "READERS", "TEXTS", "Answer", "bin_entries", "read_container", "read_text"]

#: The table: a class's binary name → its reader.
READERS: dict[str, ReadFn] = {
    **{name: singletons.empty for name in singletons.EMPTY},
    **{name: wrappers.wrapper for name in wrappers.WRAPPED},
    **{name: singletons.singleton for name in singletons.SINGLETONS},
    "java.util.ArrayList": lists.array_list,
    "java.util.Arrays$ArrayList": lists.arrays_list,
    "java.util.LinkedHashMap": hashmaps.linked_hash_map,
    "java.util.HashMap": hashmaps.hash_map,
    "java.util.HashSet": hashmaps.hash_set,
    "java.util.LinkedList": linked.linked_list,
    "java.util.ArrayDeque": deques.array_deque,
    "java.util.TreeMap": trees.tree_map,
    "java.util.TreeSet": trees.tree_set,
    "java.util.concurrent.ConcurrentHashMap": concurrent.concurrent_map,
    **{name: arraymaps.array_map for name in arraymaps.ARRAY_MAPS},
    **{name: arraymaps.array_set for name in arraymaps.ARRAY_SETS},
    "android.util.SparseArray": arraymaps.sparse_array,
    **{name: boxes.boxed for name in boxes.BOXED},
    "java.lang.AbstractStringBuilder": builders.builder,
    **{name: boxes.holder for name in boxes.HOLDERS},
    "java.math.BigDecimal": numbers.big_decimal,
    "java.math.BigInteger": numbers.big_integer,
    **{name: times.time_value for name in times.TIMES},
    "java.util.EnumMap": enummaps.enum_map,
    "java.util.PriorityQueue": queues.priority_queue,
    "java.util.concurrent.PriorityBlockingQueue": queues.priority_queue,
    "java.util.concurrent.ArrayBlockingQueue": queues.array_blocking_queue,
    "java.util.concurrent.CopyOnWriteArrayList": queues.copy_on_write_list,
    **{name: queues.linked_queue for name in queues.LINKED},
    "com.google.gson.internal.LinkedTreeMap": gson.linked_tree_map,
    **{name: guava.backed for name in guava.ARRAYS},
    **{name: guava.single for name in guava.SINGLES},
    javac.LIST: javac.cons_list,
    jdk_immutables.LIST_N: jdk_immutables.list_n,
    **{name: jdk_immutables.one_or_two for name in jdk_immutables.TWO},
    jdk_immutables.MAP_1: jdk_immutables.map_1,
    **{name: jdk_immutables.table for name in jdk_immutables.TABLES},
}

#: Classes shown as a text their fields make (``BigDecimal`` as ``1234.50``): a page of the text, and the text
#: as their preview. Each gives the text, or ``None`` when the layout differs.
TEXTS: dict[str, TextFn] = {
    "java.math.BigDecimal": numbers.big_decimal_text,
    "java.math.BigInteger": numbers.big_integer_text,
    **{name: times.time_value_text for name in times.TIMES},
    **{name: boxes.atomic_text for name in boxes.ATOMIC_PRIMITIVES},
}

#: Readers whose size a preview learns from a one-item page (:mod:`.sizes` reads the others' size fields).
PAGED = frozenset({"java.util.EnumMap", "java.util.PriorityQueue", "java.util.concurrent.PriorityBlockingQueue",
                   "java.util.concurrent.ArrayBlockingQueue", "java.util.concurrent.CopyOnWriteArrayList",
                   *queues.LINKED, "com.google.gson.internal.LinkedTreeMap", *guava.ARRAYS, *guava.SINGLES,
                   javac.LIST, jdk_immutables.LIST_N, *jdk_immutables.TWO, jdk_immutables.MAP_1})


async def read_container(values: Values, layouts: Layouts, handle: str, chain: tuple[ClassInfo, ...], offset: int,
                         limit: int | None, depth: int = 0) -> Answer:
    """The object as its contents when its class (or a superclass) is a known container, else ``None``
    and a note (``None`` too when it is no container at all)."""
    return await Reader(values, layouts, handle, chain, offset, limit, depth, READERS).read()


async def read_text(values: Values, layouts: Layouts, handle: str, chain: tuple[ClassInfo, ...]) -> str | None:
    """The text of an object whose class (or a superclass) has a row in :data:`TEXTS`, else ``None``."""
    for info in chain:
        text = TEXTS.get(info.name)
        if text is not None:
            return await text(Reader(values, layouts, handle, chain, 0, None, 0), info.name)
    return None

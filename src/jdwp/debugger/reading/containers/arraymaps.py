"""Android's array-backed containers — ``ArrayMap``, ``ArraySet``, ``SparseArray`` and androidx's
``SimpleArrayMap``/``ArrayMap``/``ArraySet`` — read from their fields without running app code (readers
of :mod:`jdwp.debugger.reading.containers`).

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.7 (``view: "auto"``).

Fields each reader checks, from the sources (a layout that has none of the listed name sets is shown as
fields, with a note):

- ``android.util.ArrayMap`` (frameworks/base core/java/android/util/ArrayMap.java): ``mHashes`` (sorted key
  hashes), ``mArray`` (key at 2i, value at 2i+1), ``mSize``.
- ``android.util.ArraySet`` (core/java/android/util/ArraySet.java): ``mHashes``, ``mArray`` (one element per
  slot), ``mSize``.
- ``androidx.collection.SimpleArrayMap`` (and ``ArrayMap``, its subclass): ``mHashes``/``mArray``/``mSize`` in
  the Java releases (SimpleArrayMap.java), ``hashes``/``array``/``size`` in the Kotlin ones (SimpleArrayMap.kt,
  1.3 and later). ``androidx.collection.ArraySet``: ``mHashes``/``mArray``/``mSize`` (ArraySet.java),
  ``hashes``/``array``/``_size`` (ArraySet.kt).
- ``android.util.SparseArray`` (core/java/android/util/SparseArray.java): ``mKeys`` (sorted ints), ``mValues``,
  ``mSize``, ``mGarbage`` and the static marker ``DELETED``. A removal leaves ``DELETED`` in ``mValues`` and
  sets ``mGarbage`` until ``gc()`` compacts the arrays (the class runs it from ``size()``, which we must not
  call): while ``mGarbage`` is set, the size and positions are known only after reading all ``mSize`` slots
  and skipping the markers, as ``gc()`` would.

These layouts were checked in the published sources and class files, not on a device: on OpenJDK the live
tests read stand-ins with the same fields (fixtures/java/android, fixtures/java/androidx).

A page is the fields (one ``ObjectReference.GetValues`` 9,2), then the backing array's length and the
page's slots together (``ArrayReference.Length`` 13,1 and ``GetValues`` 13,2, in chunks of at most 4,096:
:mod:`.tables`), then the summaries.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from ....protocol.constants import ACC_STATIC, ErrorCode
from ....protocol.errors import CommandError
from ....protocol.types import FieldId
from ....protocol.values import Value
from ..._gather import gather
from ..objects import ELEMENT_LIMITS, Layouts, as_values, page_bounds
from ..tables import read_region
from ..values import stale_on_collected
from .base import Answer, Reader, wire

#: (hashes, array, size) names of each known release, tried in order.
MAP_LAYOUTS = (("mHashes", "mArray", "mSize"), ("hashes", "array", "size"))
SET_LAYOUTS = (("mHashes", "mArray", "mSize"), ("hashes", "array", "_size"))
ARRAY_MAPS = ("android.util.ArrayMap", "androidx.collection.SimpleArrayMap")
ARRAY_SETS = ("android.util.ArraySet", "androidx.collection.ArraySet")


async def _backing(reader: Reader, owner: str, layouts: tuple[tuple[str, str, str], ...]
                   ) -> tuple[Value, int] | str:
    """The backing array and the size, from the first layout whose three fields ``owner`` declares;
    else the note saying which fields were looked for."""
    for hashes, array, size in layouts:
        if Layouts.find(reader.chain, hashes, owner) is None:
            continue
        read = await reader.own_fields(owner, array, size)
        if read is not None and not read[array].is_null:
            return read[array], int(read[size].value or 0)
    wanted = " or ".join("/".join(names) for names in layouts)
    return f"{owner} does not have the fields {wanted} this server reads; shown as fields"


async def _slots(reader: Reader, array: Value, first: int, count: int) -> list[Value] | None:
    """``count`` slots of the backing array from ``first``, with its length asked at the same time;
    ``None`` when the array is shorter than the size says (a layout that does not match)."""
    vm = reader.values.vm
    thunks: list[Any] = [partial(reader.values.array_length, reader.values.handle(array))]
    if count:
        thunks.append(partial(read_region, vm, wire(array), first, count))
    replies = await _read_arrays(reader, thunks)
    if replies is None:
        return None
    return as_values(replies[1]) if count else []


async def _read_arrays(reader: Reader, thunks: list[Any]) -> list[Any] | None:
    """The replies of ``thunks`` (reads of backing arrays), in one round trip; ``None`` when the VM says an
    index or length is out of range: the array is shorter than the size says (a layout that does not match)."""
    try:
        with stale_on_collected(reader.handle):
            return await gather(thunks)
    except CommandError as exc:
        if exc.code in (ErrorCode.INVALID_INDEX, ErrorCode.INVALID_LENGTH):
            return None
        raise


def _short(owner: str, size: int, per: int) -> Answer:
    return None, (f"{owner}'s array is shorter than its size {size} needs ({per} slot{'s' if per > 1 else ''} per "
                  "item): its layout does not match; shown as fields")


async def array_map(reader: Reader, owner: str) -> Answer:
    def build(slots: list[Value], size: int, start: int, end: int) -> Awaitable[Answer]:
        return reader.map_page(list(zip(slots[0::2], slots[1::2], strict=True)), size, start, end)
    return await _array_page(reader, owner, MAP_LAYOUTS, 2, "entries", build)


async def array_set(reader: Reader, owner: str) -> Answer:
    def build(slots: list[Value], size: int, start: int, end: int) -> Awaitable[Answer]:
        return reader.list_page(slots, size, start, end, "set")
    return await _array_page(reader, owner, SET_LAYOUTS, 1, "elements", build)


async def _array_page(reader: Reader, owner: str, layouts: tuple[tuple[str, str, str], ...], per: int, what: str,
                      build: Callable[[list[Value], int, int, int], Awaitable[Answer]]) -> Answer:
    """The page of an array-backed map (``per`` = 2 slots an entry) or set (1): the slots of the page's items,
    handed to ``build`` with the size and the page's bounds."""
    found = await _backing(reader, owner, layouts)
    if isinstance(found, str):
        return None, found
    array, size = found
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, what)
    slots = await _slots(reader, array, per * start, per * (end - start))
    if slots is None:
        return _short(owner, size, per)
    return await build(slots, size, start, end)


async def sparse_array(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "mKeys", "mValues", "mSize", "mGarbage")
    if read is None or read["mKeys"].is_null or read["mValues"].is_null:
        return reader.missing(owner, "mKeys, mValues, mSize, mGarbage")
    keys, values, stored = read["mKeys"], read["mValues"], int(read["mSize"].value or 0)
    vm = reader.values.vm
    if not read["mGarbage"].value:
        start, end = page_bounds(reader.offset, reader.limit, stored, ELEMENT_LIMITS, "entries")
        pairs = await _sparse_slots(reader, keys, values, start, end - start, None)
        if pairs is None:
            return _short(owner, stored, 1)
        return await reader.map_page(pairs, stored, start, end)
    deleted = _static_field(reader, owner, "DELETED")
    if deleted is None:
        return None, f"{owner} has removals pending (mGarbage) but no static DELETED marker this server reads; " \
                     "shown as fields"
    type_id, field_id = deleted
    pairs = await _sparse_slots(reader, keys, values, 0, stored,
                                partial(vm.reference_type.get_values, type_id, [field_id]))
    if pairs is None:
        return _short(owner, stored, 1)
    size = len(pairs)  # the DELETED slots are left out, as gc() would
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "entries")
    return await reader.map_page(pairs[start:end], size, start, end)


async def _sparse_slots(reader: Reader, keys: Value, values: Value, first: int, count: int,
                        marker: Any) -> list[tuple[Value, Value]] | None:
    """Keys and values ``first`` … ``first+count-1`` in one round trip (and the ``DELETED`` marker, whose
    slots are left out, when ``marker`` reads it); ``None`` when an array is shorter than the size."""
    if count == 0:
        return []
    vm = reader.values.vm
    thunks: list[Any] = [partial(read_region, vm, wire(keys), first, count),
                         partial(read_region, vm, wire(values), first, count)]
    if marker is not None:
        thunks.append(marker)
    replies = await _read_arrays(reader, thunks)
    if replies is None:
        return None
    pairs = list(zip(as_values(replies[0]), as_values(replies[1]), strict=True))
    if marker is None:
        return pairs
    (deleted,) = replies[2]
    if deleted.is_null:
        return pairs
    return [(key, value) for key, value in pairs if value.is_null or value.value != deleted.value]


def _static_field(reader: Reader, owner: str, name: str) -> tuple[Any, FieldId] | None:
    for info in reader.chain:
        if info.name != owner:
            continue
        for field in info.fields:
            if field.name == name and field.mod_bits & ACC_STATIC:
                return info.type_id, FieldId(field.field_id)
    return None

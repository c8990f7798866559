"""``java.util.EnumMap``: ``keyUniverse`` (the enum's constants, by ordinal), ``vals`` (the value of each
ordinal, null when absent, the static marker ``NULL`` for a null value) and ``size`` (OpenJDK 17,
``java/util/EnumMap.java``; verified live). Entries in ordinal order, as its iterator gives them; ``m["RED"]``
finds a key by its constant's name (:mod:`..expressions.evaluator`).

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/tools.md ("Values"). A page is the fields,
then both arrays (``ArrayReference.GetValues`` 13,2, one enum's constants: a few) and the ``NULL`` marker in one
round trip.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ....protocol.constants import ACC_STATIC
from ....protocol.types import FieldId
from ....protocol.values import Value
from ..._gather import gather
from ..objects import ELEMENT_LIMITS, as_values, page_bounds
from ..tables import read_region
from ..values import stale_on_collected
from .base import Answer, Reader, wire


async def enum_map(reader: Reader, owner: str) -> Answer:
    read = await reader.own_fields(owner, "keyUniverse", "vals", "size")
    if read is None or read["keyUniverse"].is_null or read["vals"].is_null:
        return reader.missing(owner, "keyUniverse, vals, size")
    size = int(read["size"].value or 0)
    start, end = page_bounds(reader.offset, reader.limit, size, ELEMENT_LIMITS, "entries")
    marker = next(((info.type_id, FieldId(f.field_id)) for info in reader.chain if info.name == owner
                   for f in info.fields if f.name == "NULL" and f.mod_bits & ACC_STATIC), None)
    values, vm = reader.values, reader.values.vm
    keys, vals = read["keyUniverse"], read["vals"]
    with stale_on_collected(reader.handle):
        length = min(await values.array_length(values.handle(keys)), await values.array_length(values.handle(vals)))
        thunks: list[Any] = [partial(read_region, vm, wire(keys), 0, length),
                             partial(read_region, vm, wire(vals), 0, length)] if length else []
        if marker is not None:
            thunks.append(partial(vm.reference_type.get_values, marker[0], [marker[1]]))
        replies = await gather(thunks) if thunks else []
    if not length:
        return await reader.walked_map([], size, start, end, "map")
    null = replies[2][0].object_id if marker is not None and not replies[2][0].is_null else None
    pairs = [(key, Value.null() if null is not None and value.object_id == null else value)
             for key, value in zip(as_values(replies[0]), as_values(replies[1]), strict=True) if not value.is_null]
    return await reader.walked_map(pairs[start:end], size, start, end, "map")

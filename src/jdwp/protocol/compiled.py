"""Readers made from a record's wire specs, for the replies that have no hand-framed decoder.

Layer: ``jdwp.protocol`` (sans-IO); imports only ``fast``, ``records``, ``types``, ``values``, ``_frozen``.

Construct takes 30-100 µs to read even a one-field reply (an int, a string, an ID), and most of a debugging
session's replies are such small records: a journey read about thirty of them through construct. A record
whose fields are all of the kinds below (numbers, booleans, strings, IDs, locations, tagged values, nested
records and counted lists of these) gets a reader that makes one :class:`.fast.Reader` call per field; any
other record keeps its construct spec. The spec stays the definition: ``tests/unit/test_fast.py`` checks
every reader made here against it with hypothesis, as it checks the hand-framed decoders.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import construct as c

from ._frozen import maker
from .fast import Reader
from .records import spec_of
from .types import (
    Boolean,
    Byte,
    FieldIdSpec,
    FrameIdSpec,
    IdSizes,
    Int,
    Location,
    Long,
    MethodIdSpec,
    ObjectIdSpec,
    ReferenceTypeIdSpec,
    String,
    counted_element,
)
from .values import TaggedObjectId, TaggedValue

__all__ = ["reply_reader"]

Step = Callable[[Reader], Any]

_STEPS: list[tuple[c.Construct, Step]] = [
    (Byte, Reader.byte), (Int, Reader.i32), (Long, Reader.i64), (Boolean, Reader.boolean), (String, Reader.string),
    (ObjectIdSpec, Reader.object_id), (ReferenceTypeIdSpec, Reader.reference_type_id),
    (MethodIdSpec, Reader.method_id), (FieldIdSpec, Reader.field_id), (FrameIdSpec, Reader.frame_id),
    (TaggedValue, Reader.tagged), (TaggedObjectId, Reader.tagged_object), (spec_of(Location), Reader.location),
]


def reply_reader(cls: type) -> Callable[[bytes, IdSizes], Any] | None:
    """A decoder of a body holding exactly one ``cls`` record, or ``None`` when a field is of another kind."""
    read = _record_step(cls)
    if read is None:
        return None

    def decode(body: bytes, sizes: IdSizes) -> Any:
        reader = Reader(body, sizes)
        value = read(reader)
        reader.done()
        return value

    return decode


def _record_step(cls: type) -> Step | None:
    steps = [_step(f.metadata["wire"]) for f in dataclasses.fields(cls)]
    if not steps or any(step is None for step in steps):
        return None
    make: Callable[..., Any] = maker(cls)
    if len(steps) == 1:
        only: Step = steps[0]  # type: ignore[assignment]  # checked above
        return lambda reader: make(only(reader))
    return lambda reader: make(*[step(reader) for step in steps])  # type: ignore[misc]  # checked above


def _step(spec: c.Construct) -> Step | None:
    for known, step in _STEPS:
        if spec is known:
            return step
    element = counted_element(spec)
    if element is not None:
        read = _step(element)
        if read is None:
            return None
        return lambda reader: [read(reader) for _ in range(reader.count())]
    record_class = getattr(spec, "record_class", None)
    if record_class is not None:
        return _record_step(record_class)
    return None

"""JDWP data types: IDs and their run-time sizes, strings, booleans, locations.

Layer: ``jdwp.protocol`` (sans-IO). Spec: "Data Types".

ID widths are not fixed: ``VirtualMachine.IDSizes`` (1,7) reports them per VM, and ART in a 32-bit
process uses 4-byte method and field IDs. Every construct here reads its width from the parse/build
context (``spec.parse(body, **sizes.params())``), never from a constant.
"""

from __future__ import annotations

from typing import Any, NewType

import construct as c
from construct import this

from .constants import TypeTag
from .records import record, wire
from .strings import decode_string, encode_string

ObjectId = NewType("ObjectId", int)
ThreadId = NewType("ThreadId", int)
ThreadGroupId = NewType("ThreadGroupId", int)
StringId = NewType("StringId", int)
ClassLoaderId = NewType("ClassLoaderId", int)
ClassObjectId = NewType("ClassObjectId", int)
ArrayId = NewType("ArrayId", int)
ModuleId = NewType("ModuleId", int)
ReferenceTypeId = NewType("ReferenceTypeId", int)
ClassId = NewType("ClassId", int)
InterfaceId = NewType("InterfaceId", int)
ArrayTypeId = NewType("ArrayTypeId", int)
MethodId = NewType("MethodId", int)
FieldId = NewType("FieldId", int)
FrameId = NewType("FrameId", int)

# Constructs for IDs; each reads its width from the context parameters.
ObjectIdSpec = c.BytesInteger(this._params.object_id_size)
ReferenceTypeIdSpec = c.BytesInteger(this._params.reference_type_id_size)
MethodIdSpec = c.BytesInteger(this._params.method_id_size)
FieldIdSpec = c.BytesInteger(this._params.field_id_size)
FrameIdSpec = c.BytesInteger(this._params.frame_id_size)

Byte = c.Int8ub
Int = c.Int32sb
Long = c.Int64sb
CountSpec = c.Int32sb  # a count is a spec "int"; a negative one fails to parse, as construct's Array rejects it


class _Boolean(c.Construct):  # type: ignore[misc]
    """One byte; any non-zero value is true, as the spec's ``boolean`` says."""

    def _parse(self, stream: Any, context: Any, path: str) -> bool:
        return bool(c.stream_read(stream, 1, path) != b"\x00")

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        c.stream_write(stream, b"\x01" if obj else b"\x00", 1, path)
        return obj

    def _sizeof(self, context: Any, path: str) -> int:
        return 1


class _String(c.Construct):  # type: ignore[misc]
    """The spec's ``string``: a signed 4-byte length, then UTF-8 (see :mod:`.strings`)."""

    def _parse(self, stream: Any, context: Any, path: str) -> str:
        length = int.from_bytes(c.stream_read(stream, 4, path), "big", signed=True)
        if length < 0:
            raise c.ConstructError(f"negative string length {length}", path=path)
        return decode_string(c.stream_read(stream, length, path))

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        if not isinstance(obj, str):
            raise c.ConstructError(f"expected str, got {type(obj).__name__}", path=path)
        data = encode_string(obj)
        c.stream_write(stream, len(data).to_bytes(4, "big") + data, 4 + len(data), path)
        return obj

    def _sizeof(self, context: Any, path: str) -> int:
        raise c.SizeofError(path=path)


Boolean = _Boolean()
String = _String()


class _PlainList(c.Adapter):  # type: ignore[misc]
    """Decode construct's ``ListContainer`` to a plain ``list``, so records hold ordinary Python values."""

    def _decode(self, obj: Any, context: Any, path: str) -> list[Any]:
        return list(obj)

    def _encode(self, obj: Any, context: Any, path: str) -> Any:
        return obj


def counted(element: c.Construct) -> c.Construct:
    """A spec "int" count followed by that many elements, decoded as a ``list``."""
    spec = _PlainList(c.PrefixedArray(CountSpec, element))
    spec.counted_element = element  # for readers made from the spec (see :mod:`.compiled`)
    return spec


def counted_element(spec: c.Construct) -> c.Construct | None:
    """The element of a :func:`counted` spec; ``None`` for any other spec."""
    return getattr(spec, "counted_element", None)


def greedy(element: c.Construct) -> c.Construct:
    """Elements until the end of the data, decoded as a ``list``."""
    return _PlainList(c.GreedyRange(element))


def repeated(count: int, element: c.Construct) -> c.Construct:
    """Exactly ``count`` elements, decoded as a ``list``."""
    return _PlainList(c.Array(count, element))


@record
class IdSizes:
    """The ID widths a VM uses, from ``VirtualMachine.IDSizes`` (1,7).

    Field order is the reply's order, so this is also that reply's record.
    """

    field_id_size: int = wire(Int)
    method_id_size: int = wire(Int)
    object_id_size: int = wire(Int)
    reference_type_id_size: int = wire(Int)
    frame_id_size: int = wire(Int)

    def params(self) -> dict[str, int]:
        """Context parameters for ``parse``/``build``."""
        return {
            "field_id_size": self.field_id_size,
            "method_id_size": self.method_id_size,
            "object_id_size": self.object_id_size,
            "reference_type_id_size": self.reference_type_id_size,
            "frame_id_size": self.frame_id_size,
        }

    def check(self) -> None:
        """Raise ``ValueError`` for a width no VM can mean (each must be 1 to 8 bytes)."""
        for name, size in self.params().items():
            if not 1 <= size <= 8:
                raise ValueError(f"IDSizes: {name} = {size} is outside 1..8")


#: HotSpot's sizes on a 64-bit JVM: every ID is 8 bytes.
HOTSPOT_64 = IdSizes(8, 8, 8, 8, 8)


@record
class Location:
    """A code position: a class, a method in it, and a code index (bytecode offset) in that method."""

    type_tag: int = wire(Byte)
    class_id: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    method_id: MethodId = wire(MethodIdSpec)
    index: int = wire(c.Int64ub)

    @property
    def tag(self) -> TypeTag:
        return TypeTag(self.type_tag)

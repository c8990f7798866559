"""JDWP values: tagged and untagged values, tagged object IDs and array regions.

Layer: ``jdwp.protocol`` (sans-IO). Spec: "Data Types" (``value``, ``untagged-value``,
``tagged-objectID``, ``arrayregion``).

Values are on the hot path (frame values, array regions, events), so the byte work is done by plain
functions over ``bytes`` (:func:`read_value`, :func:`write_value`) that both the constructs here and the
hand-framed decoders in :mod:`.fast` call.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable
from typing import Any, Union

import construct as c

from ._frozen import fast_init, maker
from .constants import OBJECT_TAGS, Tag
from .types import ObjectId

Primitive = Union[int, float, bool, str, None]

_PRIMITIVES: dict[int, struct.Struct] = {
    Tag.BYTE: struct.Struct(">b"),
    Tag.CHAR: struct.Struct(">H"),
    Tag.FLOAT: struct.Struct(">f"),
    Tag.DOUBLE: struct.Struct(">d"),
    Tag.INT: struct.Struct(">i"),
    Tag.LONG: struct.Struct(">q"),
    Tag.SHORT: struct.Struct(">h"),
    Tag.BOOLEAN: struct.Struct(">B"),
}
_OBJECT_TAG_INTS = frozenset(int(t) for t in OBJECT_TAGS)
_TAGS = {int(t): t for t in Tag}


@fast_init
@dataclasses.dataclass(frozen=True, slots=True)
class Value:
    """A Java value with its tag.

    ``value`` is an ``int`` for integral types and for object tags (the object ID; 0 is ``null``), a
    ``float`` for float/double, a ``bool`` for boolean, a one-character ``str`` for char (a UTF-16 code
    unit, so it may be a lone surrogate), and ``None`` for void.
    """

    tag: Tag
    value: Primitive

    @property
    def is_object(self) -> bool:
        return self.tag in OBJECT_TAGS

    @property
    def is_null(self) -> bool:
        return self.tag in OBJECT_TAGS and self.value == 0

    @property
    def object_id(self) -> ObjectId:
        """The object ID of an object value (0 for ``null``), typed as one: where a value read from the VM
        is used as an object, its ID is taken here, once. ``TypeError`` for a value of a primitive tag."""
        raw = self.value
        if type(raw) is not int or self.tag not in OBJECT_TAGS:
            raise TypeError(f"a {self.tag.name} value has no object ID")
        return ObjectId(raw)

    @classmethod
    def null(cls) -> Value:
        return cls(Tag.OBJECT, 0)


#: ``Value(tag, value)`` for the decoders (see :func:`._frozen.maker`).
_make_value = maker(Value)


def tag_of(byte: int) -> Tag:
    """The :class:`Tag` for a tag byte; ``ValueError`` for one the spec does not define."""
    tag = _TAGS.get(byte)
    if tag is None:
        raise ValueError(f"unknown value tag {byte} ({chr(byte)!r})" if 32 <= byte < 127 else
                         f"unknown value tag {byte}")
    return tag


def read_value(buf: bytes, pos: int, tag: int, object_id_size: int) -> tuple[Primitive, int]:
    """Read the untagged value of ``tag`` at ``pos``; return it and the next position."""
    fmt = _PRIMITIVES.get(tag)
    if fmt is not None:
        end = pos + fmt.size
        if end > len(buf):
            raise ValueError("value runs past the end of the packet")
        (raw,) = fmt.unpack_from(buf, pos)
        if tag == Tag.BOOLEAN:
            return raw != 0, end
        if tag == Tag.CHAR:
            return chr(raw), end
        return raw, end
    if tag in _OBJECT_TAG_INTS:
        end = pos + object_id_size
        if end > len(buf):
            raise ValueError("object ID runs past the end of the packet")
        return int.from_bytes(buf[pos:end], "big"), end
    if tag == Tag.VOID:
        return None, pos
    tag_of(tag)  # raises for an unknown tag
    raise ValueError(f"tag {tag} has no value")  # pragma: no cover - every Tag is handled above


def read_tagged(buf: bytes, pos: int, object_id_size: int) -> tuple[Value, int]:
    """Read a tagged value at ``pos``."""
    if pos >= len(buf):
        raise ValueError("tagged value runs past the end of the packet")
    tag = tag_of(buf[pos])
    raw, pos = read_value(buf, pos + 1, tag, object_id_size)
    return _make_value(tag, raw), pos


def read_tagged_list(buf: bytes, pos: int, count: int, object_id_size: int) -> tuple[list[Value], int]:
    """Read ``count`` tagged values from ``pos``: :func:`read_tagged` in a loop, inlined (frame values)."""
    out: list[Value] = []
    append = out.append
    size = len(buf)
    primitives, object_tags, tags, make = _PRIMITIVES, _OBJECT_TAG_INTS, _TAGS, _make_value
    boolean, char = int(Tag.BOOLEAN), int(Tag.CHAR)
    for _ in range(count):
        if pos >= size:
            raise ValueError("tagged value runs past the end of the packet")
        byte = buf[pos]
        pos += 1
        fmt = primitives.get(byte)
        raw: Primitive
        if fmt is not None:
            end = pos + fmt.size
            if end > size:
                raise ValueError("value runs past the end of the packet")
            raw = fmt.unpack_from(buf, pos)[0]
            if byte == boolean:
                raw = raw != 0
            elif byte == char:
                raw = chr(raw)  # type: ignore[arg-type]
        elif byte in object_tags:
            end = pos + object_id_size
            if end > size:
                raise ValueError("object ID runs past the end of the packet")
            raw = int.from_bytes(buf[pos:end], "big")
        else:
            tag_of(byte)  # raises for an unknown tag; what is left is VOID, which has no value
            end, raw = pos, None
        pos = end
        append(make(tags[byte], raw))
    return out, pos


def write_value(tag: int, value: Primitive, object_id_size: int) -> bytes:
    """The untagged bytes of ``value`` as ``tag``."""
    fmt = _PRIMITIVES.get(tag)
    if fmt is not None:
        if tag == Tag.CHAR:
            if not isinstance(value, str) or len(value) != 1 or ord(value) > 0xFFFF:
                raise ValueError(f"a char value is one UTF-16 code unit, got {value!r}")
            return fmt.pack(ord(value))
        if tag == Tag.BOOLEAN:
            return b"\x01" if value else b"\x00"
        return fmt.pack(value)
    if tag in _OBJECT_TAG_INTS:
        if not isinstance(value, int) or value < 0:
            raise ValueError(f"an object ID is a non-negative int, got {value!r}")
        return value.to_bytes(object_id_size, "big")
    if tag == Tag.VOID:
        return b""
    raise ValueError(f"unknown value tag {tag}")


class _TaggedValue(c.Construct):  # type: ignore[misc]
    """The spec's ``value``: a tag byte, then the value in that tag's format."""

    def _parse(self, stream: Any, context: Any, path: str) -> Value:
        tag = tag_of(c.stream_read(stream, 1, path)[0])
        size = _size_of(tag, context._params.object_id_size)
        raw, _ = read_value(c.stream_read(stream, size, path), 0, tag, size)
        return Value(tag, raw)

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        data = bytes([obj.tag]) + write_value(obj.tag, obj.value, context._params.object_id_size)
        c.stream_write(stream, data, len(data), path)
        return obj

    def _sizeof(self, context: Any, path: str) -> int:
        raise c.SizeofError(path=path)


class _TaggedObjectId(_TaggedValue):
    """The spec's ``tagged-objectID``: an object tag and an object ID, as a :class:`Value`."""

    def _parse(self, stream: Any, context: Any, path: str) -> Value:
        value = super()._parse(stream, context, path)
        if value.tag not in OBJECT_TAGS:
            raise c.ConstructError(f"tag {value.tag.name} is not an object tag", path=path)
        return value


class UntaggedValue(c.Construct):  # type: ignore[misc]
    """The spec's ``untagged-value``: its type is known from elsewhere.

    Building takes a :class:`Value` (its tag says the format). Parsing needs the tag from the context:
    ``tag_from(context)`` — e.g. the field's type or the array's component type, which the caller passes
    as a context parameter.
    """

    def __init__(self, tag_from: Callable[[Any], int]) -> None:
        super().__init__()
        self._tag_from = tag_from

    def _parse(self, stream: Any, context: Any, path: str) -> Value:
        try:
            tag = tag_of(int(self._tag_from(context)))
        except (KeyError, AttributeError, TypeError) as exc:
            raise c.ConstructError(f"untagged value: its type is not in the context ({exc})",
                                   path=path) from None
        if tag == Tag.VOID:
            # No field or array component is void; a zero-width element would also let a forged count
            # of 2**31 spin without consuming a byte.
            raise c.ConstructError("untagged value: void is not a field or component type", path=path)
        size = _size_of(tag, context._params.object_id_size)
        raw, _ = read_value(c.stream_read(stream, size, path), 0, tag, size)
        return Value(tag, raw)

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        if obj.tag == Tag.VOID:
            raise c.ConstructError("untagged value: void is not a field or component type", path=path)
        data = write_value(obj.tag, obj.value, context._params.object_id_size)
        c.stream_write(stream, data, len(data), path)
        return obj

    def _sizeof(self, context: Any, path: str) -> int:
        raise c.SizeofError(path=path)


def _size_of(tag: int, object_id_size: int) -> int:
    fmt = _PRIMITIVES.get(tag)
    if fmt is not None:
        return fmt.size
    return 0 if tag == Tag.VOID else object_id_size


@fast_init
@dataclasses.dataclass(frozen=True, slots=True)
class ArrayRegion:
    """The spec's ``arrayregion``: the component tag and the values.

    For a primitive component type the values are plain Python values (as in :class:`Value`); for
    object components each value is a :class:`Value` with the object's own tag.
    """

    tag: Tag
    values: list[Any]


def read_array_region(buf: bytes, pos: int, object_id_size: int) -> tuple[ArrayRegion, int]:
    if pos + 5 > len(buf):
        raise ValueError("array region header runs past the end of the packet")
    tag = tag_of(buf[pos])
    count = int.from_bytes(buf[pos + 1 : pos + 5], "big", signed=True)
    pos += 5
    if count < 0:
        raise ValueError(f"negative array region length {count}")
    values: list[Any] = []
    append = values.append
    if tag in _OBJECT_TAG_INTS:
        for _ in range(count):
            value, pos = read_tagged(buf, pos, object_id_size)
            append(value)
        return ArrayRegion(tag, values), pos
    fmt = _PRIMITIVES.get(tag)
    if fmt is None:
        raise ValueError(f"array region of tag {tag.name}")
    end = pos + fmt.size * count
    if end > len(buf):
        raise ValueError("array region runs past the end of the packet")
    raw = list(struct.unpack_from(f">{count}{fmt.format[-1]}", buf, pos))
    if tag == Tag.BOOLEAN:
        raw = [b != 0 for b in raw]
    elif tag == Tag.CHAR:
        raw = [chr(u) for u in raw]
    return ArrayRegion(tag, raw), end


def write_array_region(region: ArrayRegion, object_id_size: int) -> bytes:
    parts = [bytes([region.tag]), len(region.values).to_bytes(4, "big")]
    if region.tag in _OBJECT_TAG_INTS:
        for value in region.values:
            parts.append(bytes([value.tag]) + write_value(value.tag, value.value, object_id_size))
    else:
        parts.extend(write_value(region.tag, v, object_id_size) for v in region.values)
    return b"".join(parts)


class _ArrayRegion(c.Construct):  # type: ignore[misc]
    def _parse(self, stream: Any, context: Any, path: str) -> ArrayRegion:
        rest = stream.read()
        region, end = read_array_region(rest, 0, context._params.object_id_size)
        stream.seek(end - len(rest), 1)  # give back what the region did not use
        return region

    def _build(self, obj: Any, stream: Any, context: Any, path: str) -> Any:
        data = write_array_region(obj, context._params.object_id_size)
        c.stream_write(stream, data, len(data), path)
        return obj

    def _sizeof(self, context: Any, path: str) -> int:
        raise c.SizeofError(path=path)


TaggedValue = _TaggedValue()
TaggedObjectId = _TaggedObjectId()
ArrayRegionSpec = _ArrayRegion()

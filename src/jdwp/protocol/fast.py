"""Hand-framed decoders for the hot replies: frames, frame values, composite events, class lists.

Layer: ``jdwp.protocol`` (sans-IO); imports only ``types``, ``values``, ``strings``.

The construct specs in :mod:`.commands` stay the definition of each format; these functions are a faster
reading of the same bytes and must return equal objects (``tests/unit/test_fast.py`` checks that with
hypothesis). They raise ``ValueError``/``struct.error``/``IndexError`` on bad bytes, which
:mod:`.commands._base` turns into ``ProtocolError`` in its one place.
"""

from __future__ import annotations

import struct
from functools import lru_cache
from typing import Any

from .strings import decode_string
from .types import IdSizes
from .values import read_array_region, read_tagged, read_tagged_list, read_value, tag_of

_INT = struct.Struct(">i")
_LONG = struct.Struct(">q")
_FORMATS = {1: "B", 2: "H", 4: "I", 8: "Q"}


class IrregularSizes(Exception):
    """An ID width ``struct`` has no format for (3, 5, 6 or 7 bytes): use the construct spec instead."""


def _fmt(size: int) -> str:
    fmt = _FORMATS.get(size)
    if fmt is None:
        raise IrregularSizes(size)
    return fmt


# Caches are keyed by the widths as ints: hashing a tuple of ints is much cheaper than hashing IdSizes.
@lru_cache(maxsize=64)
def _location_struct(reference_type_id_size: int, method_id_size: int) -> struct.Struct:
    return struct.Struct(">B" + _fmt(reference_type_id_size) + _fmt(method_id_size) + "Q")


@lru_cache(maxsize=64)
def _frame_struct(frame_id_size: int, reference_type_id_size: int, method_id_size: int) -> struct.Struct:
    return struct.Struct(">" + _fmt(frame_id_size) + "B" + _fmt(reference_type_id_size) + _fmt(method_id_size) + "Q")


@lru_cache(maxsize=64)
def thread_location_event_struct(object_id_size: int, reference_type_id_size: int,
                                 method_id_size: int) -> struct.Struct:
    """A composite holding exactly one event of thread + location (breakpoint, step, method entry/exit)."""
    return struct.Struct(">BiBi" + _fmt(object_id_size) + "B" + _fmt(reference_type_id_size)
                         + _fmt(method_id_size) + "Q")


class Reader:
    """A cursor over one packet body, sized for one VM's IDs."""

    __slots__ = ("_location", "buf", "pos", "sizes")

    def __init__(self, buf: bytes, sizes: IdSizes) -> None:
        self.buf = buf
        self.pos = 0
        self.sizes = sizes
        self._location = _location_struct(sizes.reference_type_id_size, sizes.method_id_size)

    def _take(self, n: int) -> int:
        start = self.pos
        end = start + n
        if end > len(self.buf):
            raise ValueError(f"needs {n} bytes at offset {start}, only {len(self.buf) - start} left")
        self.pos = end
        return start

    def byte(self) -> int:
        return self.buf[self._take(1)]

    def boolean(self) -> bool:
        return self.buf[self._take(1)] != 0

    def i32(self) -> int:
        return _INT.unpack_from(self.buf, self._take(4))[0]  # type: ignore[no-any-return]

    def i64(self) -> int:
        return _LONG.unpack_from(self.buf, self._take(8))[0]  # type: ignore[no-any-return]

    def count(self) -> int:
        n = self.i32()
        if n < 0:
            raise ValueError(f"negative count {n}")
        return n

    def _id(self, size: int) -> int:
        start = self._take(size)
        return int.from_bytes(self.buf[start : start + size], "big")

    def object_id(self) -> Any:  # an ID NewType; Any spares every caller a cast
        return self._id(self.sizes.object_id_size)

    def reference_type_id(self) -> Any:  # an ID NewType; Any spares every caller a cast
        return self._id(self.sizes.reference_type_id_size)

    def field_id(self) -> Any:  # an ID NewType; Any spares every caller a cast
        return self._id(self.sizes.field_id_size)

    def string(self) -> str:
        n = self.count()
        start = self._take(n)
        return decode_string(self.buf[start : start + n])

    def location(self, cls: Any) -> Any:
        return cls(*self._location.unpack_from(self.buf, self._take(self._location.size)))

    def tagged(self) -> Any:
        value, self.pos = read_tagged(self.buf, self.pos, self.sizes.object_id_size)
        return value

    def tagged_object(self) -> Any:
        value = self.tagged()
        if not value.is_object:
            raise ValueError(f"tag {value.tag.name} is not an object tag")
        return value

    def untagged(self, tag: int) -> Any:
        value, self.pos = read_value(self.buf, self.pos, tag_of(tag), self.sizes.object_id_size)
        return value

    def array_region(self) -> Any:
        region, self.pos = read_array_region(self.buf, self.pos, self.sizes.object_id_size)
        return region

    def done(self) -> None:
        if self.pos != len(self.buf):
            raise ValueError(f"{len(self.buf) - self.pos} unexpected trailing bytes")


def frames(body: bytes, sizes: IdSizes, frame_cls: Any, location_cls: Any) -> list[Any]:
    """``ThreadReference.Frames`` reply: ``[frame_cls(frame_id, location_cls(...))]``."""
    frame = _frame_struct(sizes.frame_id_size, sizes.reference_type_id_size, sizes.method_id_size)
    (count,) = _INT.unpack_from(body, 0)
    if count < 0:
        raise ValueError(f"negative frame count {count}")
    if len(body) != 4 + count * frame.size:
        raise ValueError(f"{count} frames need {4 + count * frame.size} bytes, got {len(body)}")
    return [
        frame_cls(fid, location_cls(tag, cls, method, index))
        for fid, tag, cls, method, index in frame.iter_unpack(body[4:])
    ]


def tagged_values(body: bytes, sizes: IdSizes) -> list[Any]:
    """A count of tagged values (``StackFrame.GetValues``, ``ObjectReference.GetValues``)."""
    reader = Reader(body, sizes)
    count = reader.count()
    values, reader.pos = read_tagged_list(body, reader.pos, count, sizes.object_id_size)
    reader.done()
    return values


def class_list(body: bytes, sizes: IdSizes, cls: Any, generic: bool) -> list[Any]:
    """``VirtualMachine.AllClasses`` / ``AllClassesWithGeneric`` reply entries.

    A VM of a real app lists tens of thousands of classes, so this reads them in one tight loop of
    ``struct`` reads rather than through :class:`Reader`'s calls.
    """
    head = struct.Struct(">B" + _fmt(sizes.reference_type_id_size) + "i")  # tag, type ID, signature length
    unpack_head, unpack_int, head_size = head.unpack_from, _INT.unpack_from, head.size
    end = len(body)
    (count,) = unpack_int(body, 0)
    if count < 0:
        raise ValueError(f"negative count {count}")
    pos = 4
    out: list[Any] = []
    append = out.append
    for _ in range(count):
        tag, ref, length = unpack_head(body, pos)
        pos += head_size
        if length < 0 or pos + length > end:
            raise ValueError(f"a string of {length} bytes at offset {pos} does not fit in {end}")
        signature = decode_string(body[pos : pos + length])
        pos += length
        if generic:
            (length,) = unpack_int(body, pos)
            pos += 4
            if length < 0 or pos + length > end:
                raise ValueError(f"a string of {length} bytes at offset {pos} does not fit in {end}")
            generic_signature = decode_string(body[pos : pos + length])
            pos += length
            (status,) = unpack_int(body, pos)
            append(cls(tag, ref, signature, generic_signature, status))
        else:
            (status,) = unpack_int(body, pos)
            append(cls(tag, ref, signature, status))
        pos += 4
    if pos != end:
        raise ValueError(f"{end - pos} unexpected trailing bytes")
    return out

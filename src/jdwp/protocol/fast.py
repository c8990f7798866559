"""Hand-framed decoders for the hot replies (frames, frame values, class lists, a class's methods, line and
variable tables) and their tools.

The tools: :class:`Reader` (a cursor over a body), :class:`PerSizes` (structs precompiled once per VM's
ID widths) and :func:`id_format`; :mod:`.commands.composite` reads composite events with them.

Layer: ``jdwp.protocol`` (sans-IO); imports only ``types``, ``values``, ``strings``, ``constants``, ``_frozen``.

The construct specs in :mod:`.commands` stay the definition of each format; these functions are a faster
reading of the same bytes and must return equal objects (``tests/unit/test_fast.py`` checks that with
hypothesis). They raise ``ValueError``/``struct.error``/``IndexError`` on bad bytes, which
:mod:`.commands._base` turns into ``ProtocolError`` in its one place.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Generic, TypeVar, cast

from ._frozen import maker
from .constants import ClassStatus, TypeTag
from .strings import decode_string
from .types import IdSizes, Location
from .values import read_array_region, read_tagged, read_tagged_list, read_value, tag_of

_INT = struct.Struct(">i")
_LONG = struct.Struct(">q")
_FORMATS = {1: "B", 2: "H", 4: "I", 8: "Q"}

T = TypeVar("T")

#: ``Location(type_tag, class_id, method_id, index)`` for decoders (see :func:`._frozen.maker`).
make_location = maker(Location)


class TrailingBytes(ValueError):
    """A body with bytes left over after its whole format was read."""

    def __init__(self, count: int) -> None:
        super().__init__(f"{count} unexpected trailing bytes")
        self.count = count


class IrregularSizes(Exception):
    """An ID width ``struct`` has no format for (3, 5, 6 or 7 bytes): use the construct spec instead."""


def id_format(size: int) -> str:
    """The ``struct`` format of an ID of ``size`` bytes (unsigned, as the construct specs read IDs).

    Raises:
        IrregularSizes: ``struct`` has no such format; the caller falls back to the construct spec.
    """
    fmt = _FORMATS.get(size)
    if fmt is None:
        raise IrregularSizes(size)
    return fmt


# Caches are keyed by the widths as ints: hashing a tuple of ints is much cheaper than hashing IdSizes.
@lru_cache(maxsize=64)
def _location_struct(reference_type_id_size: int, method_id_size: int) -> struct.Struct:
    return struct.Struct(">B" + id_format(reference_type_id_size) + id_format(method_id_size) + "Q")


@lru_cache(maxsize=64)
def _frame_struct(frame_id_size: int, reference_type_id_size: int, method_id_size: int) -> struct.Struct:
    return struct.Struct(">" + id_format(frame_id_size) + "B" + id_format(reference_type_id_size)
                         + id_format(method_id_size) + "Q")


class PerSizes(Generic[T]):
    """Something built once per set of ID widths, such as a decoder's precompiled structs.

    A connection decodes every packet with the same :class:`IdSizes` object, so the last one is kept
    for an identity check that costs less than hashing it; other widths go through an LRU cache.
    """

    __slots__ = ("_build", "last")

    def __init__(self, build: Callable[[IdSizes], T]) -> None:
        self._build = lru_cache(maxsize=64)(lambda *widths: build(IdSizes(*widths)))
        #: ``(sizes, value)`` of the latest call; hot callers read it inline before calling :meth:`get`.
        self.last: tuple[IdSizes | None, T] = (None, cast(T, None))  # no sizes object is None

    def get(self, sizes: IdSizes) -> T:
        """The value for ``sizes``; raises what the build raises (``IrregularSizes``) uncached."""
        value: T = self._build(sizes.field_id_size, sizes.method_id_size, sizes.object_id_size,
                               sizes.reference_type_id_size, sizes.frame_id_size)
        self.last = (sizes, value)  # one tuple, so a reader never pairs one VM's sizes with another's value
        return value


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

    def method_id(self) -> Any:  # an ID NewType; Any spares every caller a cast
        return self._id(self.sizes.method_id_size)

    def frame_id(self) -> Any:  # an ID NewType; Any spares every caller a cast
        return self._id(self.sizes.frame_id_size)

    def string(self) -> str:
        n = self.count()
        start = self._take(n)
        return decode_string(self.buf[start : start + n])

    def location(self) -> Location:
        return make_location(*self._location.unpack_from(self.buf, self._take(self._location.size)))

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
            raise TrailingBytes(len(self.buf) - self.pos)


def frames(body: bytes, sizes: IdSizes, make_frame: Callable[[int, int, int, int, int], T]) -> list[T]:
    """``ThreadReference.Frames`` reply: ``[make_frame(frame_id, *location_fields)]``."""
    frame = _frame_struct(sizes.frame_id_size, sizes.reference_type_id_size, sizes.method_id_size)
    (count,) = _INT.unpack_from(body, 0)
    if count < 0:
        raise ValueError(f"negative frame count {count}")
    if len(body) != 4 + count * frame.size:
        raise ValueError(f"{count} frames need {4 + count * frame.size} bytes, got {len(body)}")
    return [make_frame(*fields) for fields in frame.iter_unpack(body[4:])]


def tagged_values(body: bytes, sizes: IdSizes) -> list[Any]:
    """A count of tagged values (``StackFrame.GetValues``, ``ObjectReference.GetValues``)."""
    reader = Reader(body, sizes)
    count = reader.count()
    values, reader.pos = read_tagged_list(body, reader.pos, count, sizes.object_id_size)
    reader.done()
    return values


def class_list(body: bytes, sizes: IdSizes, make: Callable[..., T], generic: bool) -> list[T]:
    """``VirtualMachine.AllClasses`` / ``AllClassesWithGeneric`` reply entries, each ``make(*fields)``."""
    return [make(*fields) for fields in _class_entries(body, sizes, generic)]


def prepared_classes(body: bytes, sizes: IdSizes) -> list[tuple[Any, str]]:
    """``(type ID, signature)`` of each prepared class or interface of an ``AllClasses`` reply (no arrays),
    without a record per class (see :func:`.commands.vm.prepared_classes`).

    The breakpoint's first round waits for this (a real app lists tens of thousands of classes): one pass,
    each entry's status read before its signature is decoded, so a class left out costs no string.
    """
    prepared, array = int(ClassStatus.PREPARED), int(TypeTag.ARRAY)
    unpack_head, head_size, count = _class_list_start(body, sizes)
    unpack_int = _INT.unpack_from
    pos = 4
    out: list[tuple[Any, str]] = []
    append = out.append
    for _ in range(count):
        tag, ref, length = unpack_head(body, pos)
        if length < 0:
            raise ValueError(f"negative string length {length}")
        start = pos + head_size
        pos = start + length
        (status,) = unpack_int(body, pos)
        pos += 4
        if status & prepared and tag != array:
            raw = body[start:pos - 4]
            try:
                append((ref, raw.decode("utf-8")))
            except UnicodeDecodeError:
                append((ref, decode_string(raw)))
    if pos != len(body):
        raise TrailingBytes(len(body) - pos)
    return out


def _class_list_start(body: bytes, sizes: IdSizes) -> tuple[Callable[[bytes, int], tuple[Any, ...]], int, int]:
    """A class list's entry head (tag, type ID, signature length): its reader and size at these ID widths;
    and the list's count."""
    head = struct.Struct(">B" + id_format(sizes.reference_type_id_size) + "i")
    (count,) = _INT.unpack_from(body, 0)
    if count < 0:
        raise ValueError(f"negative count {count}")
    return head.unpack_from, head.size, count


def _class_entries(body: bytes, sizes: IdSizes, generic: bool) -> list[tuple[Any, ...]]:
    """The entries of a class list: ``(tag, type ID, signature, [generic signature,] status)``.

    A VM of a real app lists tens of thousands of classes, so this reads them in one tight loop of
    ``struct`` reads rather than through :class:`Reader`'s calls, and decodes each signature inline
    (:func:`.strings.decode_string` only for one that is not plain UTF-8). A length that runs past the
    end leaves the next read past the end too, which ``struct`` refuses.
    """
    unpack_head, head_size, count = _class_list_start(body, sizes)
    unpack_int = _INT.unpack_from
    pos = 4
    out: list[tuple[Any, ...]] = []
    append = out.append
    for _ in range(count):
        tag, ref, length = unpack_head(body, pos)
        if length < 0:
            raise ValueError(f"negative string length {length}")
        pos += head_size
        raw = body[pos : pos + length]
        try:
            signature = raw.decode("utf-8")
        except UnicodeDecodeError:
            signature = decode_string(raw)
        pos += length
        if generic:
            (length,) = unpack_int(body, pos)
            if length < 0:
                raise ValueError(f"negative string length {length}")
            pos += 4
            raw = body[pos : pos + length]
            try:
                generic_signature = raw.decode("utf-8")
            except UnicodeDecodeError:
                generic_signature = decode_string(raw)
            pos += length
            (status,) = unpack_int(body, pos)
            append((tag, ref, signature, generic_signature, status))
        else:
            (status,) = unpack_int(body, pos)
            append((tag, ref, signature, status))
        pos += 4
    if pos != len(body):
        raise TrailingBytes(len(body) - pos)
    return out


def _string(body: bytes, pos: int) -> tuple[str, int]:
    """A length-prefixed string at ``pos``; the position after it."""
    (length,) = _INT.unpack_from(body, pos)
    pos += 4
    if length < 0 or pos + length > len(body):
        raise ValueError(f"a string of {length} bytes at offset {pos} does not fit in {len(body)}")
    return decode_string(body[pos : pos + length]), pos + length


def _count(body: bytes, pos: int) -> int:
    count: int = _INT.unpack_from(body, pos)[0]
    if count < 0:
        raise ValueError(f"negative count {count}")
    return count


def methods(body: bytes, sizes: IdSizes, make: Callable[..., T], generic: bool) -> list[T]:
    """``ReferenceType.Methods`` / ``MethodsWithGeneric`` entries: ``make(method_id, name, signature,
    [generic_signature,] mod_bits)``. Every breakpoint reads the methods of the classes it may bind in."""
    method_id = struct.Struct(">" + id_format(sizes.method_id_size))
    unpack_id, id_size, unpack_int = method_id.unpack_from, method_id.size, _INT.unpack_from
    out: list[T] = []
    pos = 4
    for _ in range(_count(body, 0)):
        (ident,) = unpack_id(body, pos)
        name, pos = _string(body, pos + id_size)
        signature, pos = _string(body, pos)
        if generic:
            generic_signature, pos = _string(body, pos)
            out.append(make(ident, name, signature, generic_signature, unpack_int(body, pos)[0]))
        else:
            out.append(make(ident, name, signature, unpack_int(body, pos)[0]))
        pos += 4
    if pos != len(body):
        raise TrailingBytes(len(body) - pos)
    return out


_LINE_TABLE_HEAD = struct.Struct(">qqi")
_LINE_ENTRY = struct.Struct(">qi")


def line_table(body: bytes, make_entry: Callable[[int, int], T]) -> tuple[int, int, list[T]]:
    """``Method.LineTable``: ``(start, end, [make_entry(code_index, line)])``."""
    start, end, count = _LINE_TABLE_HEAD.unpack_from(body, 0)
    if count < 0:
        raise ValueError(f"negative count {count}")
    head = _LINE_TABLE_HEAD.size
    if len(body) != head + count * _LINE_ENTRY.size:
        raise ValueError(f"{count} lines need {head + count * _LINE_ENTRY.size} bytes, got {len(body)}")
    return start, end, [make_entry(*fields) for fields in _LINE_ENTRY.iter_unpack(body[head:])]


_INT_INT = struct.Struct(">ii")


def variable_table(body: bytes, make_slot: Callable[..., T], generic: bool) -> tuple[int, list[T]]:
    """``Method.VariableTable`` / ``VariableTableWithGeneric``: ``(arg_cnt, [make_slot(code_index, name,
    signature, [generic_signature,] length, slot)])``."""
    (arg_cnt,) = _INT.unpack_from(body, 0)
    unpack_long, unpack_two = _LONG.unpack_from, _INT_INT.unpack_from
    out: list[T] = []
    pos = 8
    for _ in range(_count(body, 4)):
        (code_index,) = unpack_long(body, pos)
        name, pos = _string(body, pos + 8)
        signature, pos = _string(body, pos)
        if generic:
            generic_signature, pos = _string(body, pos)
            length, slot = unpack_two(body, pos)
            out.append(make_slot(code_index, name, signature, generic_signature, length, slot))
        else:
            length, slot = unpack_two(body, pos)
            out.append(make_slot(code_index, name, signature, length, slot))
        pos += 8
    if pos != len(body):
        raise TrailingBytes(len(body) - pos)
    return arg_cnt, out

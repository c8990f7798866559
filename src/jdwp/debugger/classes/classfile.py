"""Class files read on the host: a class's name and its runtime-visible annotations, nothing more.

Layer: ``jdwp.debugger.classes`` (pure functions over bytes; no I/O, nothing of the VM). Spec: the JVM
Specification (SE 17), §4.1 (``ClassFile``), §4.4 (the constant pool), §4.7.16
(``RuntimeVisibleAnnotations``) and §4.7.16.1 (``element_value``).

JDWP has no command that answers a class's annotations, so what Kotlin writes into them (the
``@DebugMetadata`` of a coroutine's state machine: :mod:`.debug_metadata`) is read from the app's own class
files when the server is given them. Only the constant pool, the class's name and its attributes are
decoded; fields and methods are skipped by their lengths. Bytes that do not follow the format raise
:class:`ClassFormatError`, never anything else, whatever the file holds.
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Union

from ...protocol.strings import decode_string

__all__ = ["Annotation", "ClassFormatError", "ClassInfo", "ElementValue", "read_class"]

MAGIC = 0xCAFEBABE
RUNTIME_VISIBLE_ANNOTATIONS = "RuntimeVisibleAnnotations"
MAX_NESTING = 16  # annotations inside annotations: far more than any compiler writes

# Constant pool tags (§4.4, table 4.4-B) and the bytes each entry takes after its tag.
_UTF8, _INTEGER, _FLOAT, _LONG, _DOUBLE, _CLASS = 1, 3, 4, 5, 6, 7
_FIXED_SIZES = {_INTEGER: 4, _FLOAT: 4, _LONG: 8, _DOUBLE: 8, _CLASS: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4,
                15: 3, 16: 2, 17: 4, 18: 4, 19: 2, 20: 2}


class ClassFormatError(ValueError):
    """The bytes are not a class file this reader understands (cut short, a bad tag or index)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Annotation:
    """One annotation: its type as a descriptor (``Lkotlin/coroutines/jvm/internal/DebugMetadata;``) and its
    elements by name. Defaults the compiler did not write are absent (the reader of the type applies them)."""

    type: str
    values: dict[str, ElementValue]


#: An element's value: a constant (int, float, str; a boolean or char as its int), an enum constant as
#: ``(type descriptor, name)``, a class literal as its descriptor inside a 1-tuple, a nested annotation, or
#: a list of these; ``None`` only from a dex (``VALUE_NULL``), which class files cannot say.
ElementValue = Union[int, float, str, tuple[str, ...], Annotation, list["ElementValue"], None]


@dataclasses.dataclass(frozen=True, slots=True)
class ClassInfo:
    """What is read of a class file: its internal name (``com/x/Foo$bar$1``) and its visible annotations."""

    name: str
    annotations: tuple[Annotation, ...]

    @property
    def signature(self) -> str:
        """The JNI signature JDWP names the class by (``Lcom/x/Foo$bar$1;``)."""
        return f"L{self.name};"


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, size: int) -> bytes:
        end = self.at + size
        if size < 0 or end > len(self.data):
            raise ClassFormatError(f"cut short at byte {self.at} (wanted {size} more)")
        chunk, self.at = self.data[self.at : end], end
        return chunk

    def u1(self) -> int:
        return self.take(1)[0]

    def u2(self) -> int:
        return int.from_bytes(self.take(2), "big")

    def u4(self) -> int:
        return int.from_bytes(self.take(4), "big")


class _Pool:
    """The constant pool: index → (tag, raw bytes after the tag)."""

    def __init__(self, reader: _Reader) -> None:
        count = reader.u2()
        self.entries: list[tuple[int, bytes] | None] = [None] * max(count, 1)
        index = 1
        while index < count:
            tag = reader.u1()
            if tag == _UTF8:
                self.entries[index] = (tag, reader.take(reader.u2()))
            elif tag in _FIXED_SIZES:
                self.entries[index] = (tag, reader.take(_FIXED_SIZES[tag]))
            else:
                raise ClassFormatError(f"unknown constant pool tag {tag} at entry {index}")
            index += 2 if tag in (_LONG, _DOUBLE) else 1  # §4.4.5: longs and doubles take two entries

    def entry(self, index: int, *tags: int) -> bytes:
        found = self.entries[index] if 0 < index < len(self.entries) else None
        if found is None or found[0] not in tags:
            raise ClassFormatError(f"constant pool entry {index} is not of tag {tags}")
        return found[1]

    def utf8(self, index: int) -> str:
        return decode_string(self.entry(index, _UTF8))  # modified UTF-8 (§4.4.7), as JDWP strings may be

    def class_name(self, index: int) -> str:
        return self.utf8(int.from_bytes(self.entry(index, _CLASS), "big"))

    def constant(self, tag: str, index: int) -> int | float | str:
        if tag == "s":
            return self.utf8(index)
        if tag in "BCISZ":
            return int.from_bytes(self.entry(index, _INTEGER), "big", signed=True)
        if tag == "J":
            return int.from_bytes(self.entry(index, _LONG), "big", signed=True)
        if tag == "F":
            return float(struct.unpack(">f", self.entry(index, _FLOAT))[0])
        return float(struct.unpack(">d", self.entry(index, _DOUBLE))[0])


def read_class(data: bytes) -> ClassInfo:
    """The class's name and its ``RuntimeVisibleAnnotations`` (an empty tuple when it has none).

    Raises:
        ClassFormatError: ``data`` is not a well-formed class file.
    """
    reader, pool, _ = _start(data)
    reader.take(2)  # access flags
    name = pool.class_name(reader.u2())
    reader.take(2)  # super class
    reader.take(2 * reader.u2())  # interfaces
    for _ in range(2):  # fields, then methods: skipped with their attributes
        for _ in range(reader.u2()):
            reader.take(6)
            _skip_attributes(reader)
    annotations: tuple[Annotation, ...] = ()
    for _ in range(reader.u2()):
        attribute, length = pool.utf8(reader.u2()), reader.u4()
        body = reader.take(length)
        if attribute == RUNTIME_VISIBLE_ANNOTATIONS:
            inner = _Reader(body)
            annotations = tuple(_annotation(inner, pool, 0) for _ in range(inner.u2()))
    return ClassInfo(name, annotations)


def _start(data: bytes) -> tuple[_Reader, _Pool, int]:
    """A reader past the constant pool, the pool, and the class file's major version.

    Raises:
        ClassFormatError: no ``CAFEBABE``, or a pool that does not parse.
    """
    reader = _Reader(data)
    if reader.u4() != MAGIC:
        raise ClassFormatError("not a class file (no CAFEBABE)")
    reader.take(2)  # minor version
    major = reader.u2()
    return reader, _Pool(reader), major


def _skip_attributes(reader: _Reader) -> None:
    for _ in range(reader.u2()):
        reader.take(2)
        reader.take(reader.u4())


def _annotation(reader: _Reader, pool: _Pool, depth: int) -> Annotation:
    if depth > MAX_NESTING:
        raise ClassFormatError("annotations nested too deep")
    kind = pool.utf8(reader.u2())
    values = {}
    for _ in range(reader.u2()):
        name = pool.utf8(reader.u2())
        values[name] = _element(reader, pool, depth)
    return Annotation(kind, values)


def _element(reader: _Reader, pool: _Pool, depth: int) -> ElementValue:
    """One ``element_value`` (§4.7.16.1), by its tag."""
    tag = chr(reader.u1())
    if tag in "BCDFIJSZs":
        return pool.constant(tag, reader.u2())
    if tag == "e":
        return (pool.utf8(reader.u2()), pool.utf8(reader.u2()))
    if tag == "c":
        return (pool.utf8(reader.u2()),)
    if tag == "@":
        return _annotation(reader, pool, depth + 1)
    if tag == "[":
        return [_element(reader, pool, depth + 1) for _ in range(reader.u2())]
    raise ClassFormatError(f"unknown element_value tag {tag!r}")

"""Dex files read on the host: each class's name and its runtime-visible annotations, nothing more.

Layer: ``jdwp.debugger.classes`` (pure functions over bytes; no I/O, nothing of the VM). Spec: AOSP's "Dalvik
Executable format" (source.android.com, ``dex-format``): ``header_item``, ``string_id_item``, ``type_id_item``,
``field_id_item``, ``class_def_item``, ``annotations_directory_item``, ``annotation_set_item``,
``annotation_item`` and ``encoded_value``. Little-endian throughout; strings are MUTF-8 like class files'.

An APK's code has no class files and ART keeps no constant pool a debugger could ask for (JDWP has no
annotation command either): the ``@DebugMetadata`` of a coroutine's state machine (:mod:`.debug_metadata`)
is read from the APK's ``classes*.dex`` on the host. A class's annotations are at its ``class_def_item``'s
``annotations_off``: an ``annotations_directory_item`` whose ``class_annotations_off`` is an
``annotation_set_item``; only items of visibility ``VISIBILITY_RUNTIME`` are kept (what
``Class.getAnnotation`` sees on ART). Values come out as :mod:`.classfile` gives them, so one reader serves
both. Bytes that do not follow the format raise :class:`~.classfile.ClassFormatError`.
"""

from __future__ import annotations

import struct

from ...protocol.strings import decode_string
from .classfile import MAX_NESTING, Annotation, ClassFormatError, ClassInfo, ElementValue

__all__ = ["read_dex"]

HEADER_SIZE = 0x70
VISIBILITY_RUNTIME = 1
NO_INDEX = 0xFFFFFFFF
# encoded_value types (value_type, the low 5 bits of the first byte)
_BYTE, _SHORT, _CHAR, _INT, _LONG, _FLOAT, _DOUBLE = 0x00, 0x02, 0x03, 0x04, 0x06, 0x10, 0x11
_METHOD_TYPE, _METHOD_HANDLE, _STRING, _TYPE, _FIELD, _METHOD, _ENUM = 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B
_ARRAY, _ANNOTATION, _NULL, _BOOLEAN = 0x1C, 0x1D, 0x1E, 0x1F


class _Dex:
    def __init__(self, data: bytes) -> None:
        if len(data) < HEADER_SIZE or data[:4] != b"dex\n" or data[7] != 0:
            raise ClassFormatError("not a dex file (no dex\\n magic)")
        self.data = data
        (self.string_count, self.string_off, self.type_count, self.type_off, self.proto_count, self.proto_off,
         self.field_count, self.field_off, self.method_count, self.method_off, self.class_count,
         self.class_off) = struct.unpack_from("<12I", data, 0x38)

    def u4(self, at: int) -> int:
        if at < 0 or at + 4 > len(self.data):
            raise ClassFormatError(f"cut short at byte {at}")
        return int.from_bytes(self.data[at : at + 4], "little")

    def u2(self, at: int) -> int:
        if at < 0 or at + 2 > len(self.data):
            raise ClassFormatError(f"cut short at byte {at}")
        return int.from_bytes(self.data[at : at + 2], "little")

    def uleb128(self, at: int) -> tuple[int, int]:
        value = shift = 0
        for count in range(5):
            if at + count >= len(self.data):
                raise ClassFormatError(f"cut short in a uleb128 at byte {at}")
            byte = self.data[at + count]
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value, at + count + 1
        raise ClassFormatError(f"a uleb128 longer than 5 bytes at byte {at}")

    def string(self, index: int) -> str:
        if not 0 <= index < self.string_count:
            raise ClassFormatError(f"string index {index} out of range")
        _, start = self.uleb128(self.u4(self.string_off + 4 * index))  # utf16_size, then the MUTF-8 bytes
        end = self.data.find(b"\x00", start)
        if end < 0:
            raise ClassFormatError(f"string {index} has no terminating NUL")
        return decode_string(self.data[start:end])

    def type(self, index: int) -> str:
        if not 0 <= index < self.type_count:
            raise ClassFormatError(f"type index {index} out of range")
        return self.string(self.u4(self.type_off + 4 * index))

    def field(self, index: int) -> tuple[str, str]:
        """A field's class descriptor and name (``field_id_item``: class_idx u2, type_idx u2, name_idx u4)."""
        if not 0 <= index < self.field_count:
            raise ClassFormatError(f"field index {index} out of range")
        at = self.field_off + 8 * index
        return self.type(self.u2(at)), self.string(self.u4(at + 4))

    def annotation(self, at: int, depth: int) -> tuple[Annotation, int]:
        """An ``encoded_annotation`` at ``at``; returns it and the offset after it."""
        if depth > MAX_NESTING:
            raise ClassFormatError("annotations nested too deep")
        type_index, at = self.uleb128(at)
        size, at = self.uleb128(at)
        values: dict[str, ElementValue] = {}
        for _ in range(size):
            name_index, at = self.uleb128(at)
            values[self.string(name_index)], at = self.value(at, depth)
        return Annotation(self.type(type_index), values), at

    def value(self, at: int, depth: int) -> tuple[ElementValue, int]:
        """An ``encoded_value``: ``(value_arg << 5) | value_type``, then ``value_arg + 1`` bytes for sized
        types (none for array, annotation, null, boolean)."""
        if at >= len(self.data):
            raise ClassFormatError(f"cut short in an encoded_value at byte {at}")
        head = self.data[at]
        kind, arg, at = head & 0x1F, head >> 5, at + 1
        if kind == _ARRAY:
            size, at = self.uleb128(at)
            items = []
            for _ in range(size):
                item, at = self.value(at, depth + 1)
                items.append(item)
            return items, at
        if kind == _ANNOTATION:
            return self.annotation(at, depth + 1)
        if kind == _NULL:
            return None, at
        if kind == _BOOLEAN:
            return arg, at
        raw = self.data[at : at + arg + 1]
        if len(raw) != arg + 1:
            raise ClassFormatError(f"cut short in an encoded_value at byte {at}")
        at += arg + 1
        if kind in (_BYTE, _SHORT, _INT, _LONG):
            return int.from_bytes(raw, "little", signed=True), at  # sign-extended
        if kind in (_FLOAT, _DOUBLE):  # zero-extended to the right: these are the value's high bytes
            width = 4 if kind == _FLOAT else 8
            bits = int.from_bytes(raw, "little") << (8 * (width - len(raw)))
            return float(struct.unpack("<f" if width == 4 else "<d", bits.to_bytes(width, "little"))[0]), at
        index = int.from_bytes(raw, "little")
        if kind == _CHAR:
            return index, at
        if kind == _STRING:
            return self.string(index), at
        if kind == _TYPE:
            return (self.type(index),), at
        if kind == _ENUM:
            return self.field(index), at
        if kind in (_FIELD, _METHOD, _METHOD_TYPE, _METHOD_HANDLE):
            return (f"#{kind:x}:{index}",), at  # never in @DebugMetadata; kept opaque
        raise ClassFormatError(f"unknown encoded_value type 0x{kind:02x}")

    def class_annotations(self, annotations_off: int) -> tuple[Annotation, ...]:
        if annotations_off == 0:
            return ()
        set_off = self.u4(annotations_off)  # annotations_directory_item.class_annotations_off
        if set_off == 0:
            return ()
        found = []
        for entry in range(self.u4(set_off)):
            item = self.u4(set_off + 4 + 4 * entry)  # annotation_off_item → annotation_item
            if item >= len(self.data):
                raise ClassFormatError(f"annotation_item offset {item} past the end")
            if self.data[item] == VISIBILITY_RUNTIME:
                found.append(self.annotation(item + 1, 0)[0])
        return tuple(found)


def read_dex(data: bytes) -> list[ClassInfo]:
    """Every class defined in a dex file, with its runtime-visible annotations.

    Raises:
        ClassFormatError: ``data`` is not a well-formed dex file.
    """
    dex = _Dex(data)
    classes = []
    for index in range(dex.class_count):
        at = dex.class_off + 32 * index  # class_def_item: 8 u4s; class_idx first, annotations_off the 6th
        descriptor = dex.type(dex.u4(at))
        if not (descriptor.startswith("L") and descriptor.endswith(";")):
            raise ClassFormatError(f"class_def {index} names {descriptor!r}, not a class")
        classes.append(ClassInfo(descriptor[1:-1], dex.class_annotations(dex.u4(at + 20))))
    return classes

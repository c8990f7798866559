"""One class's dex out of a dex file: what ART's ``RedefineClasses`` takes for each class it redefines.

Layer: ``jdwp.debugger.classes`` (pure functions over bytes; no I/O, nothing of the VM). Spec: AOSP's "Dalvik
Executable format" (``header_item``, ``class_def_item``, ``class_data_item``, ``map_list``).

ART redefines a class from a dex file that defines exactly that class: ``Redefiner::ClassRedefinition::
CheckClass`` (art/openjdkjvmti/ti_redefine.cc) refuses any other with ``ILLEGAL_ARGUMENT`` ("Expected 1
class def in dex file but found %d"). A Gradle build's dex archive (``project_dex_archive``) already holds a
dex per class; an APK's ``classes*.dex`` holds thousands. A one-class dex is sent as it is; from a larger
one each class is cut out without re-indexing anything: the string, type, proto, field and method tables
stay whole (a dex may name what it does not define), the class's ``class_def_item`` moves to the first slot
and the table shrinks to it, the ``class_data_item`` section to that class's item, and the bytes no longer
inside a section are zeroed (the dex verifier accepts zeroed space between sections, and checks every
class data item the map lists against a ``class_def``). The checksum (Adler-32) and signature (SHA-1) are
recomputed. Bytes that do not follow the format raise :class:`~.classfile.ClassFormatError`.
"""

from __future__ import annotations

import hashlib
import struct
import zlib

from .classfile import ClassFormatError
from .dex import _Dex, read_dex

__all__ = ["dex_classes", "one_class_dex", "one_class_dexes"]

_CLASS_DEF_ITEM, _CLASS_DATA_ITEM = 0x0006, 0x2000
_CLASS_DEF_SIZE = 32
_MAP_OFF, _CLASS_DEFS_SIZE = 0x34, 0x60


def dex_classes(data: bytes) -> list[str]:
    """The internal names (``com/x/Foo``) of the classes a dex defines, in ``class_def`` order.

    Raises:
        ClassFormatError: ``data`` is not a well-formed dex file.
    """
    return [info.name for info in read_dex(data)]


def one_class_dex(data: bytes, index: int) -> bytes:
    """A dex that defines only the ``index``-th class of ``data`` (``data`` itself when it defines one).

    Raises:
        ClassFormatError: ``data`` is not a well-formed dex file, or that class has no class data.
    """
    dex = _Dex(data)
    if dex.class_count == 1 and index == 0:
        return data
    if not 0 <= index < dex.class_count:
        raise ClassFormatError(f"no class_def {index} in a dex of {dex.class_count}")
    return _cut(dex, index, _map(dex))


def one_class_dexes(data: bytes) -> list[tuple[str, bytes]]:
    """Each class the dex defines, by internal name, with a dex that defines only it (each as large as
    ``data``: for a few classes; :func:`one_class_dex` cuts one).

    Raises:
        ClassFormatError: ``data`` is not a well-formed dex file.
    """
    return [(name, one_class_dex(data, index)) for index, name in enumerate(dex_classes(data))]


def _map(dex: _Dex) -> dict[int, tuple[int, int, int]]:
    """The ``map_list`` as type → (entry's offset in the file, item count, section offset)."""
    map_off = dex.u4(_MAP_OFF)
    found = {}
    for entry in range(dex.u4(map_off)):
        at = map_off + 4 + 12 * entry
        found[dex.u2(at)] = (at, dex.u4(at + 4), dex.u4(at + 8))
    return found


def _cut(dex: _Dex, index: int, sections: dict[int, tuple[int, int, int]]) -> bytes:
    out = bytearray(dex.data)
    start = dex.class_off + _CLASS_DEF_SIZE * index
    class_def = dex.data[start : start + _CLASS_DEF_SIZE]
    end_of_defs = dex.class_off + _CLASS_DEF_SIZE * dex.class_count
    out[dex.class_off : end_of_defs] = class_def + bytes(end_of_defs - dex.class_off - _CLASS_DEF_SIZE)
    struct.pack_into("<I", out, _CLASS_DEFS_SIZE, 1)
    if _CLASS_DEF_ITEM in sections:
        struct.pack_into("<I", out, sections[_CLASS_DEF_ITEM][0] + 4, 1)
    class_data_off = struct.unpack_from("<I", class_def, 24)[0]  # class_def_item.class_data_off
    if _CLASS_DATA_ITEM in sections:
        entry, count, section = sections[_CLASS_DATA_ITEM]
        end = _class_data_end(dex, section, count)
        if class_data_off:  # the section is that one item; the other items' bytes are zeroed space
            item_end = _class_data_end(dex, class_data_off, 1)
            out[section:class_data_off] = bytes(class_data_off - section)
            out[item_end:end] = bytes(end - item_end)
            struct.pack_into("<II", out, entry + 4, 1, class_data_off)
        else:  # a class without fields or methods: no class data at all
            raise ClassFormatError(f"class_def {index} has no class data (an empty class: nothing to redefine)")
    signature = hashlib.sha1(out[0x20:]).digest()
    out[0x0C:0x20] = signature
    struct.pack_into("<I", out, 0x08, zlib.adler32(bytes(out[0x0C:])))
    return bytes(out)


def _class_data_end(dex: _Dex, at: int, count: int) -> int:
    """Where ``count`` consecutive ``class_data_item``s starting at ``at`` end."""
    for _ in range(count):
        sizes = []
        for _ in range(4):  # static fields, instance fields, direct methods, virtual methods
            size, at = dex.uleb128(at)
            sizes.append(size)
        for _ in range(2 * (sizes[0] + sizes[1]) + 3 * (sizes[2] + sizes[3])):  # field: 2 ulebs; method: 3
            _, at = dex.uleb128(at)
    return at

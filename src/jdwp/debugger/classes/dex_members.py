"""A dex class's shape read on the host, as :mod:`.class_members` reads a class file's: modifiers, superclass,
interfaces, fields, methods.

Layer: ``jdwp.debugger.classes`` (pure functions over bytes; no I/O, nothing of the VM). Spec: AOSP's "Dalvik
Executable format": ``class_def_item``, ``type_list``, ``class_data_item`` (``encoded_field``,
``encoded_method``), ``field_id_item``, ``method_id_item``, ``proto_id_item``.

A reload (:mod:`..changes`) sends a dex class as the app's build made it; this reader runs only when ART refuses
it, to say what changed beside what the VM has loaded (a method added, a field removed), as a class file's shape
does on a JVM. Names come out as a class file spells them (``com/x/Foo``, JNI descriptors), and access flags as
the VM reports them: ART reports a method's modifiers as art/openjdkjvmti/ti_method.cc
``GetMethodModifiers`` makes them, ``synchronized`` when the source declares it (the dex's
``ACC_DECLARED_SYNCHRONIZED``, not its ``ACC_SYNCHRONIZED``), not ``native`` when abstract, and without the
dex-only bits above 0xFFFF (``ACC_CONSTRUCTOR`` …). Bytes that do not follow the format raise
:class:`~.classfile.ClassFormatError`.
"""

from __future__ import annotations

from .class_members import ClassShape, Member
from .classfile import ClassFormatError
from .dex import NO_INDEX, _Dex

__all__ = ["read_dex_shape"]

_ACC_SYNCHRONIZED, _ACC_NATIVE, _ACC_ABSTRACT, _ACC_DECLARED_SYNCHRONIZED = 0x0020, 0x0100, 0x0400, 0x20000
_JAVA_FLAGS = 0xFFFF


def read_dex_shape(data: bytes, index: int) -> ClassShape:
    """What the ``index``-th ``class_def`` of the dex declares; its ``major`` is 0 (a dex has no class-file
    version).

    Raises:
        ClassFormatError: ``data`` is not a well-formed dex file, or has no such class.
    """
    dex = _Dex(data)
    if not 0 <= index < dex.class_count:
        raise ClassFormatError(f"no class_def {index} in a dex of {dex.class_count}")
    at = dex.class_off + 32 * index  # class_def_item: class_idx, access_flags, superclass_idx, interfaces_off, …
    name = _internal(dex.type(dex.u4(at)))
    super_index, interfaces_off, class_data_off = dex.u4(at + 8), dex.u4(at + 12), dex.u4(at + 24)
    superclass = _internal(dex.type(super_index)) if super_index != NO_INDEX else None
    interfaces = tuple(_internal(descriptor) for descriptor in _type_list(dex, interfaces_off))
    fields: list[Member] = []
    methods: list[Member] = []
    if class_data_off:
        sizes = []
        pos = class_data_off
        for _ in range(4):  # static fields, instance fields, direct methods, virtual methods
            size, pos = dex.uleb128(pos)
            sizes.append(size)
        for kind, size in enumerate(sizes):
            member = 0
            for _ in range(size):
                diff, pos = dex.uleb128(pos)  # each list's indexes are deltas, from 0 for its first
                flags, pos = dex.uleb128(pos)
                member += diff
                if kind < 2:
                    fields.append(_field(dex, member, flags))
                else:
                    _, pos = dex.uleb128(pos)  # code_off
                    methods.append(_method(dex, member, flags))
    return ClassShape(name, 0, dex.u4(at + 4) & _JAVA_FLAGS, superclass, interfaces, tuple(fields), tuple(methods))


def _internal(descriptor: str) -> str:
    return descriptor[1:-1] if descriptor.startswith("L") and descriptor.endswith(";") else descriptor


def _type_list(dex: _Dex, offset: int) -> list[str]:
    """The types of a ``type_list`` (size u4, then a u2 type index each); none at offset 0."""
    if not offset:
        return []
    return [dex.type(dex.u2(offset + 4 + 2 * entry)) for entry in range(dex.u4(offset))]


def _field(dex: _Dex, index: int, flags: int) -> Member:
    if not 0 <= index < dex.field_count:
        raise ClassFormatError(f"field index {index} out of range")
    at = dex.field_off + 8 * index  # field_id_item: class_idx u2, type_idx u2, name_idx u4
    return Member(dex.string(dex.u4(at + 4)), dex.type(dex.u2(at + 2)), flags & _JAVA_FLAGS)


def _method(dex: _Dex, index: int, flags: int) -> Member:
    if not 0 <= index < dex.method_count:
        raise ClassFormatError(f"method index {index} out of range")
    at = dex.method_off + 8 * index  # method_id_item: class_idx u2, proto_idx u2, name_idx u4
    proto = dex.u2(at + 2)
    if not 0 <= proto < dex.proto_count:
        raise ClassFormatError(f"proto index {proto} out of range")
    proto_at = dex.proto_off + 12 * proto  # proto_id_item: shorty_idx, return_type_idx, parameters_off
    descriptor = f"({''.join(_type_list(dex, dex.u4(proto_at + 8)))}){dex.type(dex.u4(proto_at + 4))}"
    access = flags & _JAVA_FLAGS & ~_ACC_SYNCHRONIZED
    if access & _ACC_ABSTRACT:
        access &= ~_ACC_NATIVE
    if flags & _ACC_DECLARED_SYNCHRONIZED:
        access |= _ACC_SYNCHRONIZED
    return Member(dex.string(dex.u4(at + 4)), descriptor, access)

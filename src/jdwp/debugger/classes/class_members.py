"""A class file's shape read on the host: version, name, modifiers, superclass, interfaces, fields, methods.

Layer: ``jdwp.debugger.classes`` (pure functions over bytes; no I/O, nothing of the VM). Spec: the JVM
Specification (SE 17), §4.1 (``ClassFile``), §4.5 (``field_info``) and §4.6 (``method_info``).

A reload (:mod:`..changes`) sends a class file's bytes as they are; this reader only tells which loaded class
they redefine (``this_class``), whether the VM can read their version, and — when the VM refuses them —
what changed beside what the VM has loaded (a method added, a field removed). Bytes that do not follow the
format raise :class:`~.classfile.ClassFormatError`.
"""

from __future__ import annotations

import dataclasses

from .classfile import _skip_attributes, _start

__all__ = ["ClassShape", "Member", "read_shape"]


@dataclasses.dataclass(frozen=True, slots=True)
class Member:
    """A field or method: its name, its JNI descriptor and its access flags."""

    name: str
    descriptor: str
    access: int


@dataclasses.dataclass(frozen=True, slots=True)
class ClassShape:
    """What a class file declares. ``name`` is internal (``com/x/Foo``); ``major`` its class-file version."""

    name: str
    major: int
    access: int
    superclass: str | None
    interfaces: tuple[str, ...]
    fields: tuple[Member, ...]
    methods: tuple[Member, ...]

    @property
    def signature(self) -> str:
        return f"L{self.name};"


def read_shape(data: bytes) -> ClassShape:
    """The class file's declarations (attributes skipped).

    Raises:
        ClassFormatError: ``data`` is not a well-formed class file.
    """
    reader, pool, major = _start(data)
    access = reader.u2()
    name = pool.class_name(reader.u2())
    super_index = reader.u2()
    superclass = pool.class_name(super_index) if super_index else None  # only java/lang/Object has none
    interfaces = tuple(pool.class_name(reader.u2()) for _ in range(reader.u2()))
    members: list[tuple[Member, ...]] = []
    for _ in range(2):  # fields, then methods
        found = []
        for _ in range(reader.u2()):
            flags, member_name, descriptor = reader.u2(), pool.utf8(reader.u2()), pool.utf8(reader.u2())
            _skip_attributes(reader)
            found.append(Member(member_name, descriptor, flags))
        members.append(tuple(found))
    return ClassShape(name, major, access, superclass, interfaces, members[0], members[1])

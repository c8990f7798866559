"""A refused reload in words: which class, and what changed that the VM cannot take.

Layer: ``jdwp.debugger.changes`` (trio, via ``jdwp.client``). ``VirtualMachine.RedefineClasses`` (1,18) is all or
nothing: one class the VM refuses fails the command with one JDWP error (60–72) and no class is redefined.
The error says what kind of change was refused, not where; for the changes of shape (a method or field added
or removed, modifiers, superclass or interfaces) each new class, its class file's or its dex's declarations
(:mod:`..classes.class_members`, :mod:`..classes.dex_members`), is compared with what the VM has loaded
(``ReferenceType.Methods`` 2,5, ``Fields`` 2,4, ``Modifiers`` 2,3, ``Interfaces`` 2,10, ``ClassType.Superclass``
3,1), so the message names the class and the change. HotSpot redefines method bodies only (JVMTI
``RedefineClasses``: no member added or removed, no modifier, superclass or interface changed); ART's
``Redefiner`` (art/openjdkjvmti/ti_redefine.cc, ``CheckClass`` and its siblings) refuses the same.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...client import JdwpClient
from ...protocol.constants import ErrorCode
from ...protocol.errors import CommandError
from ...protocol.types import ReferenceTypeId
from ...signatures import method_text
from ..classes.class_members import ClassShape, Member
from ..errors import DebuggerError, InvalidArgument, Unsupported
from ..names import binary_name_of, type_name

__all__ = ["refusal"]

#: Modifier bits a redefinition compares (JVMS table 4.1-B / 4.6-A): ACC_SUPER and the like are no change.
_CLASS_BITS = 0x0001 | 0x0010 | 0x0200 | 0x0400 | 0x2000 | 0x4000
#: The modifiers a source edit changes, by kind: a field's access, static, final, volatile, transient (JVMS
#: table 4.5-A); a method's access, static, final, synchronized, native, abstract (4.6-A). Only these: HotSpot
#: reports a field's ``ReferenceType.Fields`` bits with flags of its own beside them (0x0800 on a
#: ``static final`` field of a servlet, seen on OpenJDK 17), which no class file has.
_MEMBER_BITS = {"field": 0x00DF, "method": 0x053F}

#: What each code says, and whether the bytes were at fault (``InvalidArgument``) or the VM cannot do it.
_WHAT: dict[int, tuple[str, bool]] = {
    ErrorCode.INVALID_CLASS_FORMAT: ("the VM cannot read the class bytes", True),
    ErrorCode.CIRCULAR_CLASS_DEFINITION: ("the classes would be their own superclass", True),
    ErrorCode.FAILS_VERIFICATION: ("the new bytecode fails the VM's verifier", True),
    ErrorCode.ADD_METHOD_NOT_IMPLEMENTED: ("a method would be added", False),
    ErrorCode.SCHEMA_CHANGE_NOT_IMPLEMENTED: ("fields would change (added, removed or retyped)", False),
    ErrorCode.INVALID_TYPESTATE: ("the class is not in a state it can be redefined in (not prepared yet)", False),
    ErrorCode.HIERARCHY_CHANGE_NOT_IMPLEMENTED: ("the superclass or interfaces would change", False),
    ErrorCode.DELETE_METHOD_NOT_IMPLEMENTED: ("a method would be removed", False),
    ErrorCode.UNSUPPORTED_VERSION: ("the class file's version is newer than this VM reads", True),
    ErrorCode.NAMES_DONT_MATCH: ("the bytes define another class than the one loaded", True),
    ErrorCode.CLASS_MODIFIERS_CHANGE_NOT_IMPLEMENTED: ("the class's modifiers would change", False),
    ErrorCode.METHOD_MODIFIERS_CHANGE_NOT_IMPLEMENTED: ("a method's modifiers would change", False),
    ErrorCode.CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED: ("a class attribute (nest members, records, permitted "
                                                       "subclasses) would change", False),
}
_SHAPE_CODES = frozenset({63, 64, 66, 67, 70, 71})
_AFTER = ("nothing was redefined: the app runs its old code. This VM reloads method bodies only; restart the app "
          "to run this change")


async def refusal(vm: JdwpClient, failure: CommandError, sent: Sequence[tuple[ReferenceTypeId, str, ClassShape | None]]
                  ) -> DebuggerError:
    """The error to raise for ``RedefineClasses`` refused with ``failure``; ``sent`` is each class's type ID,
    binary name and its shape (None: not read)."""
    what, bytes_at_fault = _WHAT.get(failure.code, (None, True))
    if what is None:
        return InvalidArgument(f"{failure}; nothing was redefined: the app runs its old code")
    changes: list[str] = []
    if failure.code in _SHAPE_CODES:
        for ref, name, shape in sent:
            if shape is not None:
                found = await _changes(vm, ref, shape)
                if found:
                    changes.append(f"{name} {'; '.join(found)}")
    names = [name for _, name, _ in sent]
    where = "; ".join(changes) if changes else (names[0] if len(names) == 1 else f"one of {', '.join(names)}")
    code = f"{ErrorCode(failure.code).name} ({failure.code})"
    tail = _AFTER if failure.code in _SHAPE_CODES else "nothing was redefined: the app runs its old code"
    message = f"the VM refused the reload ({code}): {what}: {where}; {tail}"
    return InvalidArgument(message) if bytes_at_fault else Unsupported(message)


async def _changes(vm: JdwpClient, ref: ReferenceTypeId, new: ClassShape) -> list[str]:
    """What ``new`` changes beside the loaded class, in words (empty: nothing of its shape)."""
    old_fields = {(f.name, f.signature): f.mod_bits for f in await vm.reference_type.fields(ref)}
    old_methods = {(m.name, m.signature): m.mod_bits for m in await vm.reference_type.methods(ref)}
    found = _members("field", old_fields, new.fields) + _members("method", old_methods, new.methods)
    modifiers = await vm.reference_type.modifiers(ref)
    if (modifiers ^ new.access) & _CLASS_BITS:
        found.append(f"changes the class's modifiers ({modifiers & _CLASS_BITS:#06x} → "
                     f"{new.access & _CLASS_BITS:#06x})")
    interfaces = {binary_name_of(await vm.reference_type.signature(i)) for i in await vm.reference_type.interfaces(ref)}
    if interfaces != {name.replace("/", ".") for name in new.interfaces}:
        found.append("changes the interfaces it implements")
    if new.access & 0x0200 == 0:  # a class: its superclass (ClassType.Superclass is for classes only)
        superclass = await vm.class_type.superclass(ref)
        old_super = binary_name_of(await vm.reference_type.signature(superclass)) if superclass else None
        new_super = new.superclass.replace("/", ".") if new.superclass else None
        if old_super != new_super:
            found.append(f"changes its superclass from {old_super} to {new_super}")
    return found


def _members(kind: str, old: dict[tuple[str, str], int], new: Sequence[Member]) -> list[str]:
    fresh = {(m.name, m.descriptor): m.access for m in new}
    found = [f"adds {kind} {_text(kind, *key)}" for key in fresh if key not in old]
    found += [f"removes {kind} {_text(kind, *key)}" for key in old if key not in fresh]
    found += [f"changes the modifiers of {kind} {_text(kind, *key)}" for key, bits in fresh.items()
              if key in old and (old[key] ^ bits) & _MEMBER_BITS[kind]]
    return found


def _text(kind: str, name: str, descriptor: str) -> str:
    return f"`{type_name(descriptor)} {name}`" if kind == "field" else f"`{method_text(name, descriptor)}`"

"""Command sets 2–6 and 8: ReferenceType, ClassType, ArrayType, InterfaceType, Method, Field.

Layer: ``jdwp.protocol`` (sans-IO). Spec: the command sets of the same names.
"""

from __future__ import annotations

import construct as c

from .. import fast, fast_encode
from .._frozen import maker
from ..constants import AccessFlags
from ..fast_encode import FIELD, METHOD, REFERENCE_TYPE
from ..records import record, spec_of, wire
from ..types import (
    Boolean,
    Byte,
    ClassLoaderId,
    ClassObjectId,
    FieldId,
    FieldIdSpec,
    Int,
    Long,
    MethodId,
    MethodIdSpec,
    ModuleId,
    ObjectIdSpec,
    ReferenceTypeId,
    ReferenceTypeIdSpec,
    String,
    ThreadId,
    counted,
)
from ..values import TaggedObjectId, TaggedValue, UntaggedValue, Value
from ._base import Command, Empty

__all__ = ["ArrayType", "ClassType", "Field", "InterfaceType", "Method", "ReferenceType"]


# --- ReferenceType (2) ---------------------------------------------------------------------------


def _modifiers(self: FieldInfo | MethodInfo | GenericFieldInfo | GenericMethodInfo) -> AccessFlags:
    """``mod_bits`` as flags: ``AccessFlags.STATIC in method.modifiers``."""
    return AccessFlags(self.mod_bits)


#: ``mod_bits`` as :class:`AccessFlags`, shared by the field and method records.
MODIFIERS_PROPERTY = property(_modifiers)


@record
class RefTypeOut:
    ref_type: ReferenceTypeId = wire(ReferenceTypeIdSpec)


@record
class SignatureReply:
    signature: str = wire(String)


@record
class ClassLoaderReply:
    class_loader: ClassLoaderId = wire(ObjectIdSpec)


@record
class ModifiersReply:
    mod_bits: int = wire(Int)


@record
class FieldInfo:
    field_id: FieldId = wire(FieldIdSpec)
    name: str = wire(String)
    signature: str = wire(String)
    mod_bits: int = wire(Int)

    modifiers = MODIFIERS_PROPERTY


@record
class FieldsReply:
    declared: list[FieldInfo] = wire(counted(spec_of(FieldInfo)))


@record
class MethodInfo:
    method_id: MethodId = wire(MethodIdSpec)
    name: str = wire(String)
    signature: str = wire(String)
    mod_bits: int = wire(Int)

    modifiers = MODIFIERS_PROPERTY


@record
class MethodsReply:
    declared: list[MethodInfo] = wire(counted(spec_of(MethodInfo)))


@record
class GetStaticValuesOut:
    ref_type: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    fields: list[FieldId] = wire(counted(FieldIdSpec))


@record
class ValuesReply:
    values: list[Value] = wire(counted(TaggedValue))


@record
class SourceFileReply:
    source_file: str = wire(String)


@record
class TypeRef:
    ref_type_tag: int = wire(Byte)
    type_id: ReferenceTypeId = wire(ReferenceTypeIdSpec)


@record
class NestedTypesReply:
    classes: list[TypeRef] = wire(counted(spec_of(TypeRef)))


@record
class StatusReply:
    status: int = wire(Int)


@record
class InterfacesReply:
    interfaces: list[ReferenceTypeId] = wire(counted(ReferenceTypeIdSpec))


@record
class ClassObjectReply:
    class_object: ClassObjectId = wire(ObjectIdSpec)


@record
class SourceDebugExtensionReply:
    extension: str = wire(String)


@record
class SignatureWithGenericReply:
    signature: str = wire(String)
    generic_signature: str = wire(String)


@record
class GenericFieldInfo:
    field_id: FieldId = wire(FieldIdSpec)
    name: str = wire(String)
    signature: str = wire(String)
    generic_signature: str = wire(String)
    mod_bits: int = wire(Int)

    modifiers = MODIFIERS_PROPERTY


@record
class FieldsWithGenericReply:
    declared: list[GenericFieldInfo] = wire(counted(spec_of(GenericFieldInfo)))


@record
class GenericMethodInfo:
    method_id: MethodId = wire(MethodIdSpec)
    name: str = wire(String)
    signature: str = wire(String)
    generic_signature: str = wire(String)
    mod_bits: int = wire(Int)

    modifiers = MODIFIERS_PROPERTY


@record
class MethodsWithGenericReply:
    declared: list[GenericMethodInfo] = wire(counted(spec_of(GenericMethodInfo)))


@record
class InstancesOut:
    ref_type: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    max_instances: int = wire(Int)


@record
class InstancesReply:
    instances: list[Value] = wire(counted(TaggedObjectId))


@record
class ClassFileVersionReply:
    major_version: int = wire(Int)
    minor_version: int = wire(Int)


@record
class ConstantPoolReply:
    count: int = wire(Int)
    bytes: bytes = wire(c.Prefixed(c.Int32ub, c.GreedyBytes))


@record
class ModuleReply:
    module: ModuleId = wire(ObjectIdSpec)


_encode_ref_type = fast_encode.fixed(RefTypeOut, REFERENCE_TYPE)
_make_method = maker(MethodInfo)
_make_generic_method = maker(GenericMethodInfo)


class ReferenceType:
    """Command set 2."""

    Signature = Command(2, 1, "ReferenceType.Signature", RefTypeOut, SignatureReply, fast_encode=_encode_ref_type)
    ClassLoader = Command(2, 2, "ReferenceType.ClassLoader", RefTypeOut, ClassLoaderReply, fast_encode=_encode_ref_type)
    Modifiers = Command(2, 3, "ReferenceType.Modifiers", RefTypeOut, ModifiersReply, fast_encode=_encode_ref_type)
    Fields = Command(2, 4, "ReferenceType.Fields", RefTypeOut, FieldsReply, fast_encode=_encode_ref_type)
    Methods = Command(2, 5, "ReferenceType.Methods", RefTypeOut, MethodsReply, fast_encode=_encode_ref_type,
                      fast_reply=lambda body, sizes: MethodsReply(fast.methods(body, sizes, _make_method,
                                                                               generic=False)))
    GetValues = Command(2, 6, "ReferenceType.GetValues", GetStaticValuesOut, ValuesReply,
                        fast_encode=fast_encode.counted(GetStaticValuesOut, REFERENCE_TYPE, item=FIELD))
    SourceFile = Command(2, 7, "ReferenceType.SourceFile", RefTypeOut, SourceFileReply, fast_encode=_encode_ref_type)
    NestedTypes = Command(2, 8, "ReferenceType.NestedTypes", RefTypeOut, NestedTypesReply, fast_encode=_encode_ref_type)
    Status = Command(2, 9, "ReferenceType.Status", RefTypeOut, StatusReply, fast_encode=_encode_ref_type)
    Interfaces = Command(2, 10, "ReferenceType.Interfaces", RefTypeOut, InterfacesReply, fast_encode=_encode_ref_type)
    ClassObject = Command(2, 11, "ReferenceType.ClassObject", RefTypeOut, ClassObjectReply,
                          fast_encode=_encode_ref_type)
    SourceDebugExtension = Command(2, 12, "ReferenceType.SourceDebugExtension", RefTypeOut,
                                   SourceDebugExtensionReply, fast_encode=_encode_ref_type)
    SignatureWithGeneric = Command(2, 13, "ReferenceType.SignatureWithGeneric", RefTypeOut,
                                   SignatureWithGenericReply)
    FieldsWithGeneric = Command(2, 14, "ReferenceType.FieldsWithGeneric", RefTypeOut, FieldsWithGenericReply,
                                fast_encode=_encode_ref_type)
    MethodsWithGeneric = Command(2, 15, "ReferenceType.MethodsWithGeneric", RefTypeOut,
                                 MethodsWithGenericReply, fast_encode=_encode_ref_type,
                                 fast_reply=lambda body, sizes: MethodsWithGenericReply(
                                     fast.methods(body, sizes, _make_generic_method, generic=True)))
    Instances = Command(2, 16, "ReferenceType.Instances", InstancesOut, InstancesReply)
    ClassFileVersion = Command(2, 17, "ReferenceType.ClassFileVersion", RefTypeOut, ClassFileVersionReply,
                               fast_encode=_encode_ref_type)
    ConstantPool = Command(2, 18, "ReferenceType.ConstantPool", RefTypeOut, ConstantPoolReply)
    Module = Command(2, 19, "ReferenceType.Module", RefTypeOut, ModuleReply, fast_encode=_encode_ref_type)


# --- ClassType (3), ArrayType (4), InterfaceType (5) ---------------------------------------------

#: Untagged field values are typed by the field: pass ``field_tags={field_id: Tag}`` to decode them.
FieldUntaggedValue = UntaggedValue(lambda ctx: ctx._params.field_tags[ctx.field_id])


@record
class ClassOut:
    clazz: ReferenceTypeId = wire(ReferenceTypeIdSpec)


@record
class SuperclassReply:
    superclass: ReferenceTypeId = wire(ReferenceTypeIdSpec)


@record
class FieldValue:
    field_id: FieldId = wire(FieldIdSpec)
    value: Value = wire(FieldUntaggedValue)


@record
class ClassSetValuesOut:
    clazz: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    values: list[FieldValue] = wire(counted(spec_of(FieldValue)))


@record
class StaticInvokeOut:
    clazz: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    thread: ThreadId = wire(ObjectIdSpec)
    method_id: MethodId = wire(MethodIdSpec)
    arguments: list[Value] = wire(counted(TaggedValue))
    options: int = wire(Int)


@record
class InvokeReply:
    return_value: Value = wire(TaggedValue)
    exception: Value = wire(TaggedObjectId)


@record
class NewInstanceReply:
    new_object: Value = wire(TaggedObjectId)
    exception: Value = wire(TaggedObjectId)


@record
class ArrayNewInstanceOut:
    arr_type: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    length: int = wire(Int)


@record
class ArrayNewInstanceReply:
    new_array: Value = wire(TaggedObjectId)


class ClassType:
    """Command set 3."""

    Superclass = Command(3, 1, "ClassType.Superclass", ClassOut, SuperclassReply)
    SetValues = Command(3, 2, "ClassType.SetValues", ClassSetValuesOut, Empty)
    InvokeMethod = Command(3, 3, "ClassType.InvokeMethod", StaticInvokeOut, InvokeReply)
    NewInstance = Command(3, 4, "ClassType.NewInstance", StaticInvokeOut, NewInstanceReply)


class ArrayType:
    """Command set 4."""

    NewInstance = Command(4, 1, "ArrayType.NewInstance", ArrayNewInstanceOut, ArrayNewInstanceReply)


class InterfaceType:
    """Command set 5."""

    InvokeMethod = Command(5, 1, "InterfaceType.InvokeMethod", StaticInvokeOut, InvokeReply)


# --- Method (6), Field (8) -----------------------------------------------------------------------


@record
class MethodOut:
    ref_type: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    method_id: MethodId = wire(MethodIdSpec)


@record
class LineEntry:
    line_code_index: int = wire(Long)
    line_number: int = wire(Int)


@record
class LineTableReply:
    """``start``/``end`` are the method's lowest and highest code index; -1 for a native method."""

    start: int = wire(Long)
    end: int = wire(Long)
    lines: list[LineEntry] = wire(counted(spec_of(LineEntry)))


@record
class VariableSlot:
    """A local variable, live for ``length`` code units from ``code_index``."""

    code_index: int = wire(Long)
    name: str = wire(String)
    signature: str = wire(String)
    length: int = wire(Int)
    slot: int = wire(Int)


@record
class VariableTableReply:
    arg_cnt: int = wire(Int)
    slots: list[VariableSlot] = wire(counted(spec_of(VariableSlot)))


@record
class BytecodesReply:
    bytecodes: bytes = wire(c.Prefixed(c.Int32ub, c.GreedyBytes))


@record
class IsObsoleteReply:
    is_obsolete: bool = wire(Boolean)


@record
class GenericVariableSlot:
    code_index: int = wire(Long)
    name: str = wire(String)
    signature: str = wire(String)
    generic_signature: str = wire(String)
    length: int = wire(Int)
    slot: int = wire(Int)


@record
class VariableTableWithGenericReply:
    arg_cnt: int = wire(Int)
    slots: list[GenericVariableSlot] = wire(counted(spec_of(GenericVariableSlot)))


_encode_method = fast_encode.fixed(MethodOut, REFERENCE_TYPE, METHOD)
_make_line = maker(LineEntry)
_make_slot = maker(VariableSlot)
_make_generic_slot = maker(GenericVariableSlot)


class Method:
    """Command set 6."""

    LineTable = Command(6, 1, "Method.LineTable", MethodOut, LineTableReply, fast_encode=_encode_method,
                        fast_reply=lambda body, _: LineTableReply(*fast.line_table(body, _make_line)))
    VariableTable = Command(6, 2, "Method.VariableTable", MethodOut, VariableTableReply,
                            fast_encode=_encode_method,
                            fast_reply=lambda body, _: VariableTableReply(
                                *fast.variable_table(body, _make_slot, generic=False)))
    Bytecodes = Command(6, 3, "Method.Bytecodes", MethodOut, BytecodesReply)
    IsObsolete = Command(6, 4, "Method.IsObsolete", MethodOut, IsObsoleteReply)
    VariableTableWithGeneric = Command(6, 5, "Method.VariableTableWithGeneric", MethodOut,
                                       VariableTableWithGenericReply, fast_encode=_encode_method,
                                       fast_reply=lambda body, _: VariableTableWithGenericReply(
                                           *fast.variable_table(body, _make_generic_slot, generic=True)))


class Field:
    """Command set 8: the spec defines no commands in it."""

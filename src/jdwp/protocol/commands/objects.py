"""Command sets 9, 10, 13, 14, 17, 18: objects, strings, arrays, class loaders, class objects, modules.

Layer: ``jdwp.protocol`` (sans-IO). Spec: ObjectReference (9), StringReference (10), ArrayReference (13),
ClassLoaderReference (14), ClassObjectReference (17), ModuleReference (18).
"""

from __future__ import annotations

from .. import fast_encode
from ..constants import TypeTag
from ..fast_encode import FIELD, INT, OBJECT
from ..records import record, spec_of, wire
from ..types import (
    Boolean,
    Byte,
    ClassLoaderId,
    FieldId,
    FieldIdSpec,
    Int,
    MethodId,
    MethodIdSpec,
    ObjectId,
    ObjectIdSpec,
    ReferenceTypeId,
    ReferenceTypeIdSpec,
    String,
    ThreadId,
    counted,
)
from ..values import ArrayRegion, ArrayRegionSpec, TaggedObjectId, TaggedValue, UntaggedValue, Value
from ._base import Command, Empty
from .reftypes import FieldValue, InvokeReply, TypeRef, ValuesReply

__all__ = [
    "ArrayReference",
    "ClassLoaderReference",
    "ClassObjectReference",
    "ModuleReference",
    "ObjectReference",
    "StringReference",
]


@record
class ObjectOut:
    object: ObjectId = wire(ObjectIdSpec)


@record
class ReferenceTypeReply:
    ref_type_tag: int = wire(Byte)
    type_id: ReferenceTypeId = wire(ReferenceTypeIdSpec)

    @property
    def tag(self) -> TypeTag:
        """``ref_type_tag`` as its enum (class, interface or array)."""
        return TypeTag(self.ref_type_tag)


@record
class ObjectGetValuesOut:
    object: ObjectId = wire(ObjectIdSpec)
    fields: list[FieldId] = wire(counted(FieldIdSpec))


@record
class ObjectSetValuesOut:
    """Values are untagged on the wire: decoding needs ``field_tags={field_id: Tag}``."""

    object: ObjectId = wire(ObjectIdSpec)
    values: list[FieldValue] = wire(counted(spec_of(FieldValue)))


@record
class MonitorInfoReply:
    owner: ThreadId = wire(ObjectIdSpec)
    entry_count: int = wire(Int)
    waiters: list[ThreadId] = wire(counted(ObjectIdSpec))


@record
class ObjectInvokeOut:
    object: ObjectId = wire(ObjectIdSpec)
    thread: ThreadId = wire(ObjectIdSpec)
    clazz: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    method_id: MethodId = wire(MethodIdSpec)
    arguments: list[Value] = wire(counted(TaggedValue))
    options: int = wire(Int)


@record
class IsCollectedReply:
    is_collected: bool = wire(Boolean)


@record
class ReferringObjectsOut:
    object: ObjectId = wire(ObjectIdSpec)
    max_referrers: int = wire(Int)


@record
class ReferringObjectsReply:
    referring_objects: list[Value] = wire(counted(TaggedObjectId))


_encode_object = fast_encode.fixed(ObjectOut, OBJECT)


class ObjectReference:
    """Command set 9 (the spec skips command 4)."""

    ReferenceType = Command(9, 1, "ObjectReference.ReferenceType", ObjectOut, ReferenceTypeReply,
                            fast_encode=_encode_object)
    GetValues = Command(9, 2, "ObjectReference.GetValues", ObjectGetValuesOut, ValuesReply,
                        fast_encode=fast_encode.counted(ObjectGetValuesOut, OBJECT, item=FIELD))
    SetValues = Command(9, 3, "ObjectReference.SetValues", ObjectSetValuesOut, Empty)
    MonitorInfo = Command(9, 5, "ObjectReference.MonitorInfo", ObjectOut, MonitorInfoReply)
    InvokeMethod = Command(9, 6, "ObjectReference.InvokeMethod", ObjectInvokeOut, InvokeReply)
    DisableCollection = Command(9, 7, "ObjectReference.DisableCollection", ObjectOut, Empty,
                                fast_encode=_encode_object)
    EnableCollection = Command(9, 8, "ObjectReference.EnableCollection", ObjectOut, Empty,
                               fast_encode=_encode_object)
    IsCollected = Command(9, 9, "ObjectReference.IsCollected", ObjectOut, IsCollectedReply)
    ReferringObjects = Command(9, 10, "ObjectReference.ReferringObjects", ReferringObjectsOut,
                               ReferringObjectsReply)


@record
class StringOut:
    string_object: ObjectId = wire(ObjectIdSpec)


@record
class StringValueReply:
    string_value: str = wire(String)


class StringReference:
    """Command set 10."""

    Value = Command(10, 1, "StringReference.Value", StringOut, StringValueReply,
                    fast_encode=fast_encode.fixed(StringOut, OBJECT))


@record
class ArrayOut:
    array_object: ObjectId = wire(ObjectIdSpec)


@record
class ArrayLengthReply:
    array_length: int = wire(Int)


@record
class ArrayGetValuesOut:
    array_object: ObjectId = wire(ObjectIdSpec)
    first_index: int = wire(Int)
    length: int = wire(Int)


@record
class ArrayGetValuesReply:
    values: ArrayRegion = wire(ArrayRegionSpec)


#: Untagged array elements are typed by the array: pass ``component_tag=Tag`` to decode them.
ComponentUntaggedValue = UntaggedValue(lambda ctx: ctx._params.component_tag)


@record
class ArraySetValuesOut:
    array_object: ObjectId = wire(ObjectIdSpec)
    first_index: int = wire(Int)
    values: list[Value] = wire(counted(ComponentUntaggedValue))


class ArrayReference:
    """Command set 13."""

    Length = Command(13, 1, "ArrayReference.Length", ArrayOut, ArrayLengthReply,
                     fast_encode=fast_encode.fixed(ArrayOut, OBJECT))
    GetValues = Command(13, 2, "ArrayReference.GetValues", ArrayGetValuesOut, ArrayGetValuesReply,
                        fast_encode=fast_encode.fixed(ArrayGetValuesOut, OBJECT, INT, INT))
    SetValues = Command(13, 3, "ArrayReference.SetValues", ArraySetValuesOut, Empty)


@record
class ClassLoaderOut:
    class_loader_object: ClassLoaderId = wire(ObjectIdSpec)


@record
class VisibleClassesReply:
    classes: list[TypeRef] = wire(counted(spec_of(TypeRef)))


class ClassLoaderReference:
    """Command set 14."""

    VisibleClasses = Command(14, 1, "ClassLoaderReference.VisibleClasses", ClassLoaderOut,
                             VisibleClassesReply)


@record
class ClassObjectOut:
    class_object: ObjectId = wire(ObjectIdSpec)


class ClassObjectReference:
    """Command set 17."""

    ReflectedType = Command(17, 1, "ClassObjectReference.ReflectedType", ClassObjectOut, ReferenceTypeReply)


@record
class ModuleOut:
    module: ObjectId = wire(ObjectIdSpec)


@record
class ModuleNameReply:
    name: str = wire(String)


@record
class ModuleClassLoaderReply:
    class_loader: ClassLoaderId = wire(ObjectIdSpec)


class ModuleReference:
    """Command set 18 (JDWP 9 and later)."""

    Name = Command(18, 1, "ModuleReference.Name", ModuleOut, ModuleNameReply)
    ClassLoader = Command(18, 2, "ModuleReference.ClassLoader", ModuleOut, ModuleClassLoaderReply)

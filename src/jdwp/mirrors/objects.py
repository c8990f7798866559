"""Typed methods for command sets 9, 10, 13, 14, 17, 18: objects, strings, arrays, loaders, modules.

Layer: ``jdwp`` (no I/O of its own).
"""

from __future__ import annotations

from ..protocol.commands import (
    ArrayReference,
    ClassLoaderReference,
    ClassObjectReference,
    ModuleReference,
    ObjectReference,
    StringReference,
)
from ..protocol.commands.objects import MonitorInfoReply, ReferenceTypeReply
from ..protocol.commands.reftypes import FieldValue, InvokeReply, TypeRef
from ..protocol.types import ClassLoaderId, FieldId, MethodId, ObjectId, ReferenceTypeId, ThreadId
from ..protocol.values import ArrayRegion, Value
from ._base import Namespace


class ObjectReferenceCommands(Namespace):
    """ObjectReference (9)."""

    async def reference_type(self, object: ObjectId) -> ReferenceTypeReply:
        """ObjectReference.ReferenceType (9,1): the object's runtime type."""
        return await self._client.request(ObjectReference.ReferenceType, object=object)

    async def get_values(self, object: ObjectId, fields: list[FieldId]) -> list[Value]:
        """ObjectReference.GetValues (9,2): instance field values."""
        return (await self._client.request(ObjectReference.GetValues, object=object, fields=fields)).values

    async def set_values(self, object: ObjectId, values: list[FieldValue]) -> None:
        """ObjectReference.SetValues (9,3)."""
        await self._client.request(ObjectReference.SetValues, object=object, values=values)

    async def monitor_info(self, object: ObjectId) -> MonitorInfoReply:
        """ObjectReference.MonitorInfo (9,5)."""
        return await self._client.request(ObjectReference.MonitorInfo, object=object)

    async def invoke_method(self, object: ObjectId, thread: ThreadId, clazz: ReferenceTypeId,
                            method_id: MethodId, arguments: list[Value], options: int = 0) -> InvokeReply:
        """ObjectReference.InvokeMethod (9,6): run an instance method on a thread suspended by an event."""
        return await self._client.request(ObjectReference.InvokeMethod, object=object, thread=thread, clazz=clazz,
                                          method_id=method_id, arguments=arguments, options=options)

    async def disable_collection(self, object: ObjectId) -> None:
        """ObjectReference.DisableCollection (9,7)."""
        await self._client.request(ObjectReference.DisableCollection, object=object)

    async def enable_collection(self, object: ObjectId) -> None:
        """ObjectReference.EnableCollection (9,8)."""
        await self._client.request(ObjectReference.EnableCollection, object=object)

    async def is_collected(self, object: ObjectId) -> bool:
        """ObjectReference.IsCollected (9,9)."""
        return (await self._client.request(ObjectReference.IsCollected, object=object)).is_collected

    async def referring_objects(self, object: ObjectId, max_referrers: int = 0) -> list[Value]:
        """ObjectReference.ReferringObjects (9,10)."""
        reply = await self._client.request(ObjectReference.ReferringObjects, object=object,
                                           max_referrers=max_referrers)
        return reply.referring_objects


class StringReferenceCommands(Namespace):
    """StringReference (10)."""

    async def value(self, string_object: ObjectId) -> str:
        """StringReference.Value (10,1): the whole string (no length limit: mind huge strings)."""
        return (await self._client.request(StringReference.Value, string_object=string_object)).string_value


class ArrayReferenceCommands(Namespace):
    """ArrayReference (13)."""

    async def length(self, array_object: ObjectId) -> int:
        """ArrayReference.Length (13,1)."""
        return (await self._client.request(ArrayReference.Length, array_object=array_object)).array_length

    async def get_values(self, array_object: ObjectId, first_index: int, length: int) -> ArrayRegion:
        """ArrayReference.GetValues (13,2): ``length`` elements from ``first_index``."""
        reply = await self._client.request(ArrayReference.GetValues, array_object=array_object,
                                           first_index=first_index, length=length)
        return reply.values

    async def set_values(self, array_object: ObjectId, first_index: int, values: list[Value]) -> None:
        """ArrayReference.SetValues (13,3): values must carry the array's component tag."""
        await self._client.request(ArrayReference.SetValues, array_object=array_object, first_index=first_index,
                                   values=values)


class ClassLoaderReferenceCommands(Namespace):
    """ClassLoaderReference (14)."""

    async def visible_classes(self, class_loader_object: ClassLoaderId) -> list[TypeRef]:
        """ClassLoaderReference.VisibleClasses (14,1)."""
        reply = await self._client.request(ClassLoaderReference.VisibleClasses,
                                           class_loader_object=class_loader_object)
        return reply.classes


class ClassObjectReferenceCommands(Namespace):
    """ClassObjectReference (17)."""

    async def reflected_type(self, class_object: ObjectId) -> ReferenceTypeReply:
        """ClassObjectReference.ReflectedType (17,1)."""
        return await self._client.request(ClassObjectReference.ReflectedType, class_object=class_object)


class ModuleReferenceCommands(Namespace):
    """ModuleReference (18)."""

    async def name(self, module: ObjectId) -> str:
        """ModuleReference.Name (18,1): empty for an unnamed module."""
        return (await self._client.request(ModuleReference.Name, module=module)).name

    async def class_loader(self, module: ObjectId) -> ClassLoaderId:
        """ModuleReference.ClassLoader (18,2)."""
        return (await self._client.request(ModuleReference.ClassLoader, module=module)).class_loader

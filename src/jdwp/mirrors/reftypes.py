"""Typed methods for command sets 2–6: ReferenceType, ClassType, ArrayType, InterfaceType, Method.

Layer: ``jdwp`` (no I/O of its own).
"""

from __future__ import annotations

from ..protocol.commands import ArrayType, ClassType, InterfaceType, Method, ReferenceType
from ..protocol.commands.reftypes import (
    ClassFileVersionReply,
    ConstantPoolReply,
    FieldInfo,
    FieldValue,
    GenericFieldInfo,
    GenericMethodInfo,
    InvokeReply,
    LineTableReply,
    MethodInfo,
    NewInstanceReply,
    SignatureWithGenericReply,
    TypeRef,
    VariableTableReply,
    VariableTableWithGenericReply,
)
from ..protocol.types import (
    ClassLoaderId,
    ClassObjectId,
    FieldId,
    MethodId,
    ModuleId,
    ReferenceTypeId,
    ThreadId,
)
from ..protocol.values import Value
from ._base import Namespace


class ReferenceTypeCommands(Namespace):
    """ReferenceType (2): classes, interfaces and array types."""

    async def signature(self, ref_type: ReferenceTypeId) -> str:
        """ReferenceType.Signature (2,1): the JNI signature, e.g. ``"Lcom/x/Foo;"``."""
        return (await self._client.request(ReferenceType.Signature, ref_type=ref_type)).signature

    async def class_loader(self, ref_type: ReferenceTypeId) -> ClassLoaderId:
        """ReferenceType.ClassLoader (2,2): 0 for the bootstrap loader."""
        return (await self._client.request(ReferenceType.ClassLoader, ref_type=ref_type)).class_loader

    async def modifiers(self, ref_type: ReferenceTypeId) -> int:
        """ReferenceType.Modifiers (2,3): the access flags."""
        return (await self._client.request(ReferenceType.Modifiers, ref_type=ref_type)).mod_bits

    async def fields(self, ref_type: ReferenceTypeId) -> list[FieldInfo]:
        """ReferenceType.Fields (2,4): the fields declared by this type."""
        return (await self._client.request(ReferenceType.Fields, ref_type=ref_type)).declared

    async def methods(self, ref_type: ReferenceTypeId) -> list[MethodInfo]:
        """ReferenceType.Methods (2,5): the methods declared by this type."""
        return (await self._client.request(ReferenceType.Methods, ref_type=ref_type)).declared

    async def get_values(self, ref_type: ReferenceTypeId, fields: list[FieldId]) -> list[Value]:
        """ReferenceType.GetValues (2,6): static field values."""
        return (await self._client.request(ReferenceType.GetValues, ref_type=ref_type, fields=fields)).values

    async def source_file(self, ref_type: ReferenceTypeId) -> str:
        """ReferenceType.SourceFile (2,7).

        Raises:
            AbsentInformation: the class has no source file attribute.
        """
        return (await self._client.request(ReferenceType.SourceFile, ref_type=ref_type)).source_file

    async def nested_types(self, ref_type: ReferenceTypeId) -> list[TypeRef]:
        """ReferenceType.NestedTypes (2,8)."""
        return (await self._client.request(ReferenceType.NestedTypes, ref_type=ref_type)).classes

    async def status(self, ref_type: ReferenceTypeId) -> int:
        """ReferenceType.Status (2,9): ClassStatus bits."""
        return (await self._client.request(ReferenceType.Status, ref_type=ref_type)).status

    async def interfaces(self, ref_type: ReferenceTypeId) -> list[ReferenceTypeId]:
        """ReferenceType.Interfaces (2,10)."""
        return (await self._client.request(ReferenceType.Interfaces, ref_type=ref_type)).interfaces

    async def class_object(self, ref_type: ReferenceTypeId) -> ClassObjectId:
        """ReferenceType.ClassObject (2,11)."""
        return (await self._client.request(ReferenceType.ClassObject, ref_type=ref_type)).class_object

    async def source_debug_extension(self, ref_type: ReferenceTypeId) -> str:
        """ReferenceType.SourceDebugExtension (2,12)."""
        return (await self._client.request(ReferenceType.SourceDebugExtension, ref_type=ref_type)).extension

    async def signature_with_generic(self, ref_type: ReferenceTypeId) -> SignatureWithGenericReply:
        """ReferenceType.SignatureWithGeneric (2,13)."""
        return await self._client.request(ReferenceType.SignatureWithGeneric, ref_type=ref_type)

    async def fields_with_generic(self, ref_type: ReferenceTypeId) -> list[GenericFieldInfo]:
        """ReferenceType.FieldsWithGeneric (2,14)."""
        return (await self._client.request(ReferenceType.FieldsWithGeneric, ref_type=ref_type)).declared

    async def methods_with_generic(self, ref_type: ReferenceTypeId) -> list[GenericMethodInfo]:
        """ReferenceType.MethodsWithGeneric (2,15)."""
        return (await self._client.request(ReferenceType.MethodsWithGeneric, ref_type=ref_type)).declared

    async def instances(self, ref_type: ReferenceTypeId, max_instances: int = 0) -> list[Value]:
        """ReferenceType.Instances (2,16): live instances (0 = all)."""
        reply = await self._client.request(ReferenceType.Instances, ref_type=ref_type, max_instances=max_instances)
        return reply.instances

    async def class_file_version(self, ref_type: ReferenceTypeId) -> ClassFileVersionReply:
        """ReferenceType.ClassFileVersion (2,17)."""
        return await self._client.request(ReferenceType.ClassFileVersion, ref_type=ref_type)

    async def constant_pool(self, ref_type: ReferenceTypeId) -> ConstantPoolReply:
        """ReferenceType.ConstantPool (2,18)."""
        return await self._client.request(ReferenceType.ConstantPool, ref_type=ref_type)

    async def module(self, ref_type: ReferenceTypeId) -> ModuleId:
        """ReferenceType.Module (2,19)."""
        return (await self._client.request(ReferenceType.Module, ref_type=ref_type)).module


class ClassTypeCommands(Namespace):
    """ClassType (3)."""

    async def superclass(self, clazz: ReferenceTypeId) -> ReferenceTypeId:
        """ClassType.Superclass (3,1): 0 for ``java.lang.Object``."""
        return (await self._client.request(ClassType.Superclass, clazz=clazz)).superclass

    async def set_values(self, clazz: ReferenceTypeId, values: list[FieldValue]) -> None:
        """ClassType.SetValues (3,2): set static fields."""
        await self._client.request(ClassType.SetValues, clazz=clazz, values=values)

    async def invoke_method(self, clazz: ReferenceTypeId, thread: ThreadId, method_id: MethodId,
                            arguments: list[Value], options: int = 0) -> InvokeReply:
        """ClassType.InvokeMethod (3,3): run a static method on a thread suspended by an event."""
        return await self._client.request(ClassType.InvokeMethod, clazz=clazz, thread=thread,
                                          method_id=method_id, arguments=arguments, options=options)

    async def new_instance(self, clazz: ReferenceTypeId, thread: ThreadId, method_id: MethodId,
                           arguments: list[Value], options: int = 0) -> NewInstanceReply:
        """ClassType.NewInstance (3,4)."""
        return await self._client.request(ClassType.NewInstance, clazz=clazz, thread=thread,
                                          method_id=method_id, arguments=arguments, options=options)


class ArrayTypeCommands(Namespace):
    """ArrayType (4)."""

    async def new_instance(self, arr_type: ReferenceTypeId, length: int) -> Value:
        """ArrayType.NewInstance (4,1)."""
        return (await self._client.request(ArrayType.NewInstance, arr_type=arr_type, length=length)).new_array


class InterfaceTypeCommands(Namespace):
    """InterfaceType (5)."""

    async def invoke_method(self, clazz: ReferenceTypeId, thread: ThreadId, method_id: MethodId,
                            arguments: list[Value], options: int = 0) -> InvokeReply:
        """InterfaceType.InvokeMethod (5,1): run a static interface method."""
        return await self._client.request(InterfaceType.InvokeMethod, clazz=clazz, thread=thread,
                                          method_id=method_id, arguments=arguments, options=options)


class MethodCommands(Namespace):
    """Method (6)."""

    async def line_table(self, ref_type: ReferenceTypeId, method_id: MethodId) -> LineTableReply:
        """Method.LineTable (6,1): code index → line number.

        Raises:
            AbsentInformation: the class was compiled without line numbers.
        """
        return await self._client.request(Method.LineTable, ref_type=ref_type, method_id=method_id)

    async def variable_table(self, ref_type: ReferenceTypeId, method_id: MethodId) -> VariableTableReply:
        """Method.VariableTable (6,2): arguments and locals with their live ranges.

        Raises:
            AbsentInformation: the class was compiled without ``-g``.
        """
        return await self._client.request(Method.VariableTable, ref_type=ref_type, method_id=method_id)

    async def bytecodes(self, ref_type: ReferenceTypeId, method_id: MethodId) -> bytes:
        """Method.Bytecodes (6,3)."""
        return (await self._client.request(Method.Bytecodes, ref_type=ref_type, method_id=method_id)).bytecodes

    async def is_obsolete(self, ref_type: ReferenceTypeId, method_id: MethodId) -> bool:
        """Method.IsObsolete (6,4)."""
        return (await self._client.request(Method.IsObsolete, ref_type=ref_type, method_id=method_id)).is_obsolete

    async def variable_table_with_generic(self, ref_type: ReferenceTypeId,
                                          method_id: MethodId) -> VariableTableWithGenericReply:
        """Method.VariableTableWithGeneric (6,5)."""
        return await self._client.request(Method.VariableTableWithGeneric, ref_type=ref_type, method_id=method_id)

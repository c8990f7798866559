"""Command set 1, VirtualMachine: commands about the VM as a whole.

Layer: ``jdwp.protocol`` (sans-IO). Spec: "VirtualMachine Command Set (1)".
Record field names are the spec's names in snake_case.
"""

from __future__ import annotations

import construct as c

from .. import fast, fast_encode
from .._frozen import maker
from ..constants import ClassStatus, TypeTag
from ..fast import IrregularSizes
from ..fast_encode import INT, OBJECT
from ..records import record, spec_of, wire
from ..types import (
    Boolean,
    IdSizes,
    Int,
    Long,
    ModuleId,
    ObjectId,
    ObjectIdSpec,
    ReferenceTypeId,
    ReferenceTypeIdSpec,
    String,
    StringId,
    ThreadGroupId,
    ThreadId,
    counted,
    repeated,
)
from ..types import Byte as ByteSpec
from ._base import DECODE_FAILURES, Command, Empty, _undecodable

__all__ = ["VirtualMachine", "prepared_classes"]


def _tag(self: ClassRef | ClassInfo | GenericClassInfo) -> TypeTag:
    """``ref_type_tag`` as its enum (class, interface or array)."""
    return TypeTag(self.ref_type_tag)


def _class_status(self: ClassRef | ClassInfo | GenericClassInfo) -> ClassStatus:
    """``status`` as flags: ``ClassStatus.PREPARED in info.class_status``."""
    return ClassStatus(self.status)


#: Read-only views of a class record's fields as enums, shared by the three class records.
TAG_PROPERTY = property(_tag)
CLASS_STATUS_PROPERTY = property(_class_status)


@record
class VersionReply:
    description: str = wire(String)
    jdwp_major: int = wire(Int)
    jdwp_minor: int = wire(Int)
    vm_version: str = wire(String)
    vm_name: str = wire(String)


@record
class ClassesBySignatureOut:
    signature: str = wire(String)


@record
class ClassRef:
    """A loaded reference type: its kind (TypeTag), ID and ClassStatus bits."""

    ref_type_tag: int = wire(ByteSpec)
    type_id: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    status: int = wire(Int)

    tag = TAG_PROPERTY
    class_status = CLASS_STATUS_PROPERTY


@record
class ClassesBySignatureReply:
    classes: list[ClassRef] = wire(counted(spec_of(ClassRef)))


@record
class ClassInfo:
    ref_type_tag: int = wire(ByteSpec)
    type_id: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    signature: str = wire(String)
    status: int = wire(Int)

    tag = TAG_PROPERTY
    class_status = CLASS_STATUS_PROPERTY


@record
class AllClassesReply:
    classes: list[ClassInfo] = wire(counted(spec_of(ClassInfo)))


@record
class ThreadsReply:
    threads: list[ThreadId] = wire(counted(ObjectIdSpec))


@record
class ThreadGroupsReply:
    groups: list[ThreadGroupId] = wire(counted(ObjectIdSpec))


@record
class ExitOut:
    exit_code: int = wire(Int)


@record
class CreateStringOut:
    utf: str = wire(String)


@record
class CreateStringReply:
    string_object: StringId = wire(ObjectIdSpec)


@record
class CapabilitiesReply:
    can_watch_field_modification: bool = wire(Boolean)
    can_watch_field_access: bool = wire(Boolean)
    can_get_bytecodes: bool = wire(Boolean)
    can_get_synthetic_attribute: bool = wire(Boolean)
    can_get_owned_monitor_info: bool = wire(Boolean)
    can_get_current_contended_monitor: bool = wire(Boolean)
    can_get_monitor_info: bool = wire(Boolean)


@record
class ClassPathsReply:
    base_dir: str = wire(String)
    classpaths: list[str] = wire(counted(String))
    bootclasspaths: list[str] = wire(counted(String))


@record
class ObjectRefCount:
    object: ObjectId = wire(ObjectIdSpec)
    ref_cnt: int = wire(Int)


@record
class DisposeObjectsOut:
    requests: list[ObjectRefCount] = wire(counted(spec_of(ObjectRefCount)))


@record
class CapabilitiesNewReply:
    can_watch_field_modification: bool = wire(Boolean)
    can_watch_field_access: bool = wire(Boolean)
    can_get_bytecodes: bool = wire(Boolean)
    can_get_synthetic_attribute: bool = wire(Boolean)
    can_get_owned_monitor_info: bool = wire(Boolean)
    can_get_current_contended_monitor: bool = wire(Boolean)
    can_get_monitor_info: bool = wire(Boolean)
    can_redefine_classes: bool = wire(Boolean)
    can_add_method: bool = wire(Boolean)
    can_unrestrictedly_redefine_classes: bool = wire(Boolean)
    can_pop_frames: bool = wire(Boolean)
    can_use_instance_filters: bool = wire(Boolean)
    can_get_source_debug_extension: bool = wire(Boolean)
    can_request_vm_death_event: bool = wire(Boolean)
    can_set_default_stratum: bool = wire(Boolean)
    can_get_instance_info: bool = wire(Boolean)
    can_request_monitor_events: bool = wire(Boolean)
    can_get_monitor_frame_info: bool = wire(Boolean)
    can_use_source_name_filters: bool = wire(Boolean)
    can_get_constant_pool: bool = wire(Boolean)
    can_force_early_return: bool = wire(Boolean)
    reserved: list[bool] = wire(repeated(11, Boolean))  # reserved22 … reserved32


@record
class ClassDef:
    ref_type: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    classfile: bytes = wire(c.Prefixed(c.Int32ub, c.GreedyBytes))


@record
class RedefineClassesOut:
    classes: list[ClassDef] = wire(counted(spec_of(ClassDef)))


@record
class SetDefaultStratumOut:
    stratum_id: str = wire(String)


@record
class GenericClassInfo:
    ref_type_tag: int = wire(ByteSpec)
    type_id: ReferenceTypeId = wire(ReferenceTypeIdSpec)
    signature: str = wire(String)
    generic_signature: str = wire(String)
    status: int = wire(Int)

    tag = TAG_PROPERTY
    class_status = CLASS_STATUS_PROPERTY


@record
class AllClassesWithGenericReply:
    classes: list[GenericClassInfo] = wire(counted(spec_of(GenericClassInfo)))


@record
class InstanceCountsOut:
    ref_types: list[ReferenceTypeId] = wire(counted(ReferenceTypeIdSpec))


@record
class InstanceCountsReply:
    counts: list[int] = wire(counted(Long))


@record
class AllModulesReply:
    modules: list[ModuleId] = wire(counted(ObjectIdSpec))


_make_class_info = maker(ClassInfo)
_make_generic_class_info = maker(GenericClassInfo)


class VirtualMachine:
    """Command set 1."""

    Version = Command(1, 1, "VirtualMachine.Version", Empty, VersionReply)
    ClassesBySignature = Command(1, 2, "VirtualMachine.ClassesBySignature", ClassesBySignatureOut,
                                 ClassesBySignatureReply, fast_encode=fast_encode.text(ClassesBySignatureOut))
    AllClasses = Command(
        1, 3, "VirtualMachine.AllClasses", Empty, AllClassesReply,
        fast_reply=lambda body, sizes: AllClassesReply(fast.class_list(body, sizes, _make_class_info, generic=False)))
    AllThreads = Command(1, 4, "VirtualMachine.AllThreads", Empty, ThreadsReply)
    TopLevelThreadGroups = Command(1, 5, "VirtualMachine.TopLevelThreadGroups", Empty, ThreadGroupsReply)
    Dispose = Command(1, 6, "VirtualMachine.Dispose", Empty, Empty)
    IDSizes = Command(1, 7, "VirtualMachine.IDSizes", Empty, IdSizes)
    Suspend = Command(1, 8, "VirtualMachine.Suspend", Empty, Empty)
    Resume = Command(1, 9, "VirtualMachine.Resume", Empty, Empty)
    Exit = Command(1, 10, "VirtualMachine.Exit", ExitOut, Empty)
    CreateString = Command(1, 11, "VirtualMachine.CreateString", CreateStringOut, CreateStringReply)
    Capabilities = Command(1, 12, "VirtualMachine.Capabilities", Empty, CapabilitiesReply)
    ClassPaths = Command(1, 13, "VirtualMachine.ClassPaths", Empty, ClassPathsReply)
    DisposeObjects = Command(1, 14, "VirtualMachine.DisposeObjects", DisposeObjectsOut, Empty,
                             fast_encode=fast_encode.counted_records(DisposeObjectsOut, element=ObjectRefCount,
                                                                     element_kinds=(OBJECT, INT)))
    HoldEvents = Command(1, 15, "VirtualMachine.HoldEvents", Empty, Empty)
    ReleaseEvents = Command(1, 16, "VirtualMachine.ReleaseEvents", Empty, Empty)
    CapabilitiesNew = Command(1, 17, "VirtualMachine.CapabilitiesNew", Empty, CapabilitiesNewReply)
    RedefineClasses = Command(1, 18, "VirtualMachine.RedefineClasses", RedefineClassesOut, Empty)
    SetDefaultStratum = Command(1, 19, "VirtualMachine.SetDefaultStratum", SetDefaultStratumOut, Empty)
    AllClassesWithGeneric = Command(
        1, 20, "VirtualMachine.AllClassesWithGeneric", Empty, AllClassesWithGenericReply,
        fast_reply=lambda body, sizes: AllClassesWithGenericReply(
            fast.class_list(body, sizes, _make_generic_class_info, generic=True)))
    InstanceCounts = Command(1, 21, "VirtualMachine.InstanceCounts", InstanceCountsOut, InstanceCountsReply)
    AllModules = Command(1, 22, "VirtualMachine.AllModules", Empty, AllModulesReply)



def prepared_classes(body: bytes, sizes: IdSizes) -> list[tuple[ReferenceTypeId, str]]:
    """An ``AllClasses`` reply read as ``(type ID, signature)`` of each prepared class or interface (arrays
    left out), without a :class:`ClassInfo` per class: an app's VM lists tens of thousands of classes, and a
    breakpoint needs only these two facts of each.

    Raises:
        ProtocolError: the bytes are not an ``AllClasses`` reply.
    """
    try:
        return fast.prepared_classes(body, sizes)
    except IrregularSizes:
        reply = VirtualMachine.AllClasses.decode_reply(body, sizes)
        return [(info.type_id, info.signature) for info in reply.classes
                if info.status & ClassStatus.PREPARED and info.ref_type_tag != TypeTag.ARRAY]
    except DECODE_FAILURES as exc:
        raise _undecodable("VirtualMachine.AllClasses reply", body, exc) from None

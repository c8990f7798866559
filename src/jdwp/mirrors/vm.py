"""Typed methods for command set 1, VirtualMachine (methods of the client itself).

Layer: ``jdwp`` (no I/O of its own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from ..protocol.commands import VirtualMachine as VM
from ..protocol.commands.vm import (
    CapabilitiesNewReply,
    CapabilitiesReply,
    ClassDef,
    ClassInfo,
    ClassPathsReply,
    ClassRef,
    GenericClassInfo,
    ObjectRefCount,
    VersionReply,
)
from ..protocol.types import IdSizes, ModuleId, ReferenceTypeId, StringId, ThreadGroupId, ThreadId

if TYPE_CHECKING:
    from ..protocol.commands import Command

R = TypeVar("R")


class VirtualMachineCommands:
    """VirtualMachine (1): the commands about the whole VM."""

    if TYPE_CHECKING:
        async def request(self, command: Command[Any, R], out: Any = None, /, *, timeout: float | None = None,
                          **fields: Any) -> R: ...

    async def version(self) -> VersionReply:
        """VirtualMachine.Version (1,1): the JDWP version and the VM's name and version."""
        return await self.request(VM.Version)

    async def classes_by_signature(self, signature: str) -> list[ClassRef]:
        """VirtualMachine.ClassesBySignature (1,2): every loaded class with this JNI signature.

        Args:
            signature: e.g. ``"Lcom/example/Foo;"``. One entry per class loader that loaded it.
        """
        return (await self.request(VM.ClassesBySignature, signature=signature)).classes

    async def all_classes(self) -> list[ClassInfo]:
        """VirtualMachine.AllClasses (1,3)."""
        return (await self.request(VM.AllClasses)).classes

    async def all_threads(self) -> list[ThreadId]:
        """VirtualMachine.AllThreads (1,4): the live threads started by the application."""
        return (await self.request(VM.AllThreads)).threads

    async def top_level_thread_groups(self) -> list[ThreadGroupId]:
        """VirtualMachine.TopLevelThreadGroups (1,5)."""
        return (await self.request(VM.TopLevelThreadGroups)).groups

    async def fetch_id_sizes(self) -> IdSizes:
        """VirtualMachine.IDSizes (1,7), asked again (the client already holds them as ``vm.id_sizes``)."""
        return await self.request(VM.IDSizes)

    async def suspend(self) -> None:
        """VirtualMachine.Suspend (1,8): suspend every thread (counted; each needs a resume)."""
        await self.request(VM.Suspend)

    async def resume(self) -> None:
        """VirtualMachine.Resume (1,9): undo one suspension of every thread."""
        await self.request(VM.Resume)

    async def exit(self, exit_code: int) -> None:
        """VirtualMachine.Exit (1,10): terminate the VM with this exit code."""
        await self.request(VM.Exit, exit_code=exit_code)

    async def create_string(self, utf: str) -> StringId:
        """VirtualMachine.CreateString (1,11): a new string object in the VM."""
        return (await self.request(VM.CreateString, utf=utf)).string_object

    async def capabilities(self) -> CapabilitiesReply:
        """VirtualMachine.Capabilities (1,12)."""
        return await self.request(VM.Capabilities)

    async def class_paths(self) -> ClassPathsReply:
        """VirtualMachine.ClassPaths (1,13)."""
        return await self.request(VM.ClassPaths)

    async def dispose_objects(self, requests: list[ObjectRefCount]) -> None:
        """VirtualMachine.DisposeObjects (1,14): release object IDs the VM may then reuse."""
        await self.request(VM.DisposeObjects, requests=requests)

    async def hold_events(self) -> None:
        """VirtualMachine.HoldEvents (1,15)."""
        await self.request(VM.HoldEvents)

    async def release_events(self) -> None:
        """VirtualMachine.ReleaseEvents (1,16)."""
        await self.request(VM.ReleaseEvents)

    async def capabilities_new(self) -> CapabilitiesNewReply:
        """VirtualMachine.CapabilitiesNew (1,17)."""
        return await self.request(VM.CapabilitiesNew)

    async def redefine_classes(self, classes: list[ClassDef]) -> None:
        """VirtualMachine.RedefineClasses (1,18)."""
        await self.request(VM.RedefineClasses, classes=classes)

    async def set_default_stratum(self, stratum_id: str) -> None:
        """VirtualMachine.SetDefaultStratum (1,19)."""
        await self.request(VM.SetDefaultStratum, stratum_id=stratum_id)

    async def all_classes_with_generic(self) -> list[GenericClassInfo]:
        """VirtualMachine.AllClassesWithGeneric (1,20)."""
        return (await self.request(VM.AllClassesWithGeneric)).classes

    async def instance_counts(self, ref_types: list[ReferenceTypeId]) -> list[int]:
        """VirtualMachine.InstanceCounts (1,21)."""
        return (await self.request(VM.InstanceCounts, ref_types=ref_types)).counts

    async def all_modules(self) -> list[ModuleId]:
        """VirtualMachine.AllModules (1,22)."""
        return (await self.request(VM.AllModules)).modules


__all__ = ["VirtualMachineCommands"]

"""Typed async methods for every JDWP command, mixed into :class:`jdwp.JdwpClient`.

Layer: ``jdwp`` (no I/O of its own: every method calls the client's ``request``).
VirtualMachine commands (set 1) are methods of the client itself (``await vm.version()``); every other
command set is a namespace attribute named after the set in snake_case
(``await vm.thread_reference.frames(thread, 0, -1)``, ``await vm.stack_frame.get_values(...)``).
Methods return the reply's single field when it has one, else the reply record.
"""

from __future__ import annotations

from ._base import Requester
from .objects import (
    ArrayReferenceCommands,
    ClassLoaderReferenceCommands,
    ClassObjectReferenceCommands,
    ModuleReferenceCommands,
    ObjectReferenceCommands,
    StringReferenceCommands,
)
from .reftypes import (
    ArrayTypeCommands,
    ClassTypeCommands,
    InterfaceTypeCommands,
    MethodCommands,
    ReferenceTypeCommands,
)
from .threads import (
    EventRequestCommands,
    StackFrameCommands,
    ThreadGroupReferenceCommands,
    ThreadReferenceCommands,
)
from .vm import VirtualMachineCommands

__all__ = ["Mirrors"]


class Mirrors(VirtualMachineCommands):
    """The typed command surface; the client supplies ``request``."""

    def __init__(self) -> None:
        requester: Requester = self
        self.reference_type = ReferenceTypeCommands(requester)
        self.class_type = ClassTypeCommands(requester)
        self.array_type = ArrayTypeCommands(requester)
        self.interface_type = InterfaceTypeCommands(requester)
        self.method = MethodCommands(requester)
        self.object_reference = ObjectReferenceCommands(requester)
        self.string_reference = StringReferenceCommands(requester)
        self.thread_reference = ThreadReferenceCommands(requester)
        self.thread_group_reference = ThreadGroupReferenceCommands(requester)
        self.array_reference = ArrayReferenceCommands(requester)
        self.class_loader_reference = ClassLoaderReferenceCommands(requester)
        self.event_request = EventRequestCommands(requester)
        self.stack_frame = StackFrameCommands(requester)
        self.class_object_reference = ClassObjectReferenceCommands(requester)
        self.module_reference = ModuleReferenceCommands(requester)

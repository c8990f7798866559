"""THE command table: every command of every JDWP command set, plus Android's DDM set.

Layer: ``jdwp.protocol`` (sans-IO). Spec: the JDWP specification's command sets 1–18 and 64; set 199 is
Android's DDM channel. One namespace class per set (``ThreadReference.Frames``), each attribute a
:class:`Command` with its number, its spec name and its out/reply records. :data:`BY_ID` and
:data:`ALL_COMMANDS` are derived from the namespaces, never written by hand.
"""

from __future__ import annotations

from typing import Any

from ._base import Command, Empty
from .composite import EventCommands as Event
from .events import DDM, EventRequest
from .objects import (
    ArrayReference,
    ClassLoaderReference,
    ClassObjectReference,
    ModuleReference,
    ObjectReference,
    StringReference,
)
from .reftypes import ArrayType, ClassType, Field, InterfaceType, Method, ReferenceType
from .threads import StackFrame, ThreadGroupReference, ThreadReference
from .vm import VirtualMachine

#: The namespaces by command set number, in the spec's order.
COMMAND_SETS: dict[int, type] = {
    1: VirtualMachine,
    2: ReferenceType,
    3: ClassType,
    4: ArrayType,
    5: InterfaceType,
    6: Method,
    8: Field,
    9: ObjectReference,
    10: StringReference,
    11: ThreadReference,
    12: ThreadGroupReference,
    13: ArrayReference,
    14: ClassLoaderReference,
    15: EventRequest,
    16: StackFrame,
    17: ClassObjectReference,
    18: ModuleReference,
    64: Event,
    199: DDM,
}


def _collect() -> list[Command[Any, Any]]:
    commands: list[Command[Any, Any]] = []
    for number, namespace in COMMAND_SETS.items():
        for value in vars(namespace).values():
            if isinstance(value, Command):
                if value.command_set != number:
                    raise RuntimeError(f"{value.name} is in set {number} but numbered {value.command_set}")
                commands.append(value)
    return sorted(commands, key=lambda cmd: cmd.key)


ALL_COMMANDS: tuple[Command[Any, Any], ...] = tuple(_collect())
BY_ID: dict[tuple[int, int], Command[Any, Any]] = {cmd.key: cmd for cmd in ALL_COMMANDS}
BY_NAME: dict[str, Command[Any, Any]] = {cmd.name: cmd for cmd in ALL_COMMANDS}
if len(BY_ID) != len(ALL_COMMANDS) or len(BY_NAME) != len(ALL_COMMANDS):
    raise RuntimeError("two commands share a number or a name")

__all__ = [
    "ALL_COMMANDS",
    "BY_ID",
    "BY_NAME",
    "COMMAND_SETS",
    "DDM",
    "ArrayReference",
    "ArrayType",
    "ClassLoaderReference",
    "ClassObjectReference",
    "ClassType",
    "Command",
    "Empty",
    "Event",
    "EventRequest",
    "Field",
    "InterfaceType",
    "Method",
    "ModuleReference",
    "ObjectReference",
    "ReferenceType",
    "StackFrame",
    "StringReference",
    "ThreadGroupReference",
    "ThreadReference",
    "VirtualMachine",
]

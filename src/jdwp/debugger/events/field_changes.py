"""What a watchpoint's hit saw: the field, the value it held and the value being written.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.2.

A field event (``Event.Composite`` 64,100, kinds 20 and 21) comes while the accessing thread is suspended
*before* the access: JVMTI's ``FieldModification`` carries the value to be written (``valueToBe``) and the
field still holds the old one. So the old value is read at the event, under its suspension:
``ObjectReference.GetValues`` (9,2) of the event's object, or ``ReferenceType.GetValues`` (2,6) of the
declaring class for a static field — one round trip, then the values' summaries (a string's text).

The values are also names for the watchpoint's condition and log message: ``new_value`` (a write) and
``old_value`` (the value the field holds: for a read, the value read). They are app data: never logged.
"""

from __future__ import annotations

from ...client import JdwpClient
from ...protocol.commands.events import FieldAccessEvent, FieldModificationEvent
from ...protocol.types import ObjectId
from ..model import FieldChange, Local
from ..names import type_name
from ..reading.frames import local_of
from ..reading.values import Values
from ..requests.watchpoints import WatchedField

__all__ = ["read_change"]

FieldEvent = FieldAccessEvent | FieldModificationEvent


async def read_change(vm: JdwpClient, values: Values, watched: WatchedField,
                      event: FieldEvent) -> tuple[FieldChange, tuple[Local, ...]]:
    """The change a field event reports, and the names it gives conditions and log messages.

    Raises:
        JdwpError: the VM would not read the field (the object was collected, the thread ended).
    """
    holder = event.object
    if watched.static or holder.is_null:
        (current,) = await vm.reference_type.get_values(watched.declaring, [watched.field_id])
        object_id = None
    else:
        (current,) = await vm.object_reference.get_values(ObjectId(int(holder.value or 0)), [watched.field_id])
        object_id = values.handle(holder)
    written = event.value_to_be if isinstance(event, FieldModificationEvent) else None
    shown = [current] if written is None else [current, written]
    summaries = await values.summarize(shown, [watched.signature] * len(shown))
    declared = type_name(watched.signature)
    field = f"{watched.owner}.{watched.name}"
    names = [local_of("old_value", declared, summaries[0])]
    if written is None:
        return FieldChange(field, "read", object_id, summaries[0]), tuple(names)
    names.insert(0, local_of("new_value", declared, summaries[1]))
    return FieldChange(field, "write", object_id, summaries[0], summaries[1]), tuple(names)

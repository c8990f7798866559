"""Watchpoints: stop (or log) where a field is written or read, in every class loader that loads its class.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.2 (``set_debugger_watchpoint``).

One ``EventRequest.Set(FIELD_MODIFICATION (21) | FIELD_ACCESS (20), policy, [FieldOnly(declaring, field)])``
(15,1; modKind 9) per loaded class of that name and access kind (``any`` makes both). ``FieldOnly`` is what
keeps the VM from reporting every field of the app: OpenJDK's back end turns it into one JVMTI field watch
on that field only (``SetFieldModificationWatch``/``SetFieldAccessWatch``), and ART's JVMTI does the same
(``art_jvmti.h``: ``can_generate_field_modification_events``/``can_generate_field_access_events``, both 1).
No ``ClassOnly``/``ClassMatch`` is added: for field events those filter by the class of the *code* doing
the access (the event's location, JDWP spec of modKind 4 and 5), which would hide exactly the writers in
other classes that the question "who writes this?" is about.

The class is found by name (``ClassMatch`` class-prepare request first, shared through
:class:`.prepares.PrepareRequests`, then ``VirtualMachine.ClassesBySignature`` 1,2, so none loads unseen);
the field is looked up in the class and its superclasses (``ReferenceType.Fields`` 2,4, ``ClassType.
Superclass`` 3,1): a Kotlin property is its backing field (its own name). A watchpoint with a condition, hit
count, logpoint or ``suspend: "thread"`` asks ``EVENT_THREAD`` and is judged like a line breakpoint
(:mod:`.hits`, :mod:`..events.judge`), with ``new_value`` (and ``old_value``) as names. It shares the
session's IDs and its limit of 100 breakpoints.
"""

from __future__ import annotations

import dataclasses
import logging

from ...protocol.commands.events import FieldAccessEvent, FieldModificationEvent, FieldOnly
from ...protocol.commands.reftypes import FieldInfo
from ...protocol.constants import ACC_STATIC, EventKind
from ...protocol.errors import CommandError
from ...protocol.types import ReferenceTypeId
from ..errors import InvalidArgument, Unsupported
from ..model import LOCATION_UNAVAILABLE, Reason, WatchAccess, Watchpoint
from ..names import binary_name_of, is_binary_name
from .by_class import ByClassName, ClassEntry
from .hits import HitPlan
from .kind import Meaning, WatchedField

__all__ = ["WatchedField", "Watchpoints", "watch_kinds"]

log = logging.getLogger("jdwp.debugger")

ACCESSES = ("write", "read", "any")
_KINDS = {"write": (EventKind.FIELD_MODIFICATION,), "read": (EventKind.FIELD_ACCESS,),
          "any": (EventKind.FIELD_MODIFICATION, EventKind.FIELD_ACCESS)}


def watch_kinds(access: str) -> tuple[EventKind, ...]:
    """The event kinds of an access, checked.

    Raises:
        InvalidArgument: not ``write``, ``read`` or ``any``.
    """
    if access not in _KINDS:
        raise InvalidArgument(f'access must be "write", "read" or "any", not {access!r}')
    return _KINDS[access]


@dataclasses.dataclass(kw_only=True)
class _Entry(ClassEntry):
    field: str = ""
    access: WatchAccess = "write"
    reason: Reason | None = None
    fields: dict[int, WatchedField] = dataclasses.field(default_factory=dict)  # request ID -> the field it watches


class Watchpoints(ByClassName[_Entry, Watchpoint]):
    """The watchpoints of one session (:mod:`.by_class` holds what they share with method breakpoints)."""

    EVENTS = (FieldAccessEvent, FieldModificationEvent)

    def meaning(self, event: FieldAccessEvent | FieldModificationEvent) -> Meaning | None:
        """A field access or change of a watchpoint of ours: its stop reason ``watchpoint``, with the field."""
        entry = self.entry_of(event.request_id)
        watched = entry.fields.get(event.request_id) if entry is not None else None
        if entry is None or watched is None:
            return None
        return Meaning("watchpoint", entry.breakpoint_id, field=watched)

    def _snapshot(self, entry: _Entry) -> Watchpoint:
        plan = entry.plan
        return Watchpoint(entry.breakpoint_id, entry.class_name, entry.field, entry.access, entry.shown_status,
                          entry.reason, plan.options if plan else None, entry.counts.hits if plan else None,
                          entry.counts.dropped if plan and plan.options.action == "log" else None)

    def _unbound(self, entry: _Entry) -> None:
        super()._unbound(entry)
        entry.fields.clear()
        entry.reason = None

    async def add(self, class_name: str, field: str, access: str, plan: HitPlan | None,
                  can_modify: bool, can_access: bool) -> Watchpoint:
        """Set a watchpoint: ``verified`` once bound in a loaded class, ``pending`` until one loads, ``rejected``
        while the loaded classes of that name have no such field (it stays armed for later loads).

        Raises:
            InvalidArgument: a bad class name, field name or access. Nothing is changed.
            Unsupported: the VM cannot watch field writes (``can_modify``) or reads (``can_access``), as its
                ``VirtualMachine.CapabilitiesNew`` (1,17) says. Nothing is changed.
            LimitReached: the session holds 100 breakpoints already. Nothing is changed.
        """
        if not isinstance(class_name, str) or not is_binary_name(class_name):
            raise InvalidArgument(f"className {class_name!r} is not a binary class name like com.example.Account")
        if not isinstance(field, str) or not field or not field.replace("$", "_").isidentifier():
            raise InvalidArgument(f"field {field!r} is not a field name (a Kotlin property's is its own name)")
        kinds = watch_kinds(access)
        if EventKind.FIELD_MODIFICATION in kinds and not can_modify:
            raise Unsupported("this VM cannot watch field writes (CapabilitiesNew: canWatchFieldModification is "
                              "false); set a line breakpoint where the field is written instead")
        if EventKind.FIELD_ACCESS in kinds and not can_access:
            raise Unsupported("this VM cannot watch field reads (CapabilitiesNew: canWatchFieldAccess is false); "
                              'use access: "write", or a line breakpoint where it is read')
        entry = _Entry(self._reserve(), plan, class_name=class_name, field=field,
                       access=access)  # type: ignore[arg-type]
        return await self._hold(entry)

    async def _bind(self, entry: _Entry, ref: ReferenceTypeId, tag: int) -> None:
        entry.bound_types.add(ref)
        found = await self._find_field(ref, entry.field)
        if found is None:
            if entry.state != "verified":
                entry.move("found_nothing")
                entry.reason = Reason(LOCATION_UNAVAILABLE, f"{entry.class_name} has no field {entry.field!r} (nor "
                                      "do its superclasses); a Kotlin property's backing field has the property's "
                                      "name, a delegated one is name$delegate")
            return
        for kind in _KINDS[entry.access]:
            request_id = await self._vm.event_request.set(kind, entry.suspend_policy,
                                                          [FieldOnly(found.declaring, found.field_id)])
            self._made(entry, request_id, kind)
            entry.fields[request_id] = found
        entry.move("bound")
        entry.reason = None

    async def _find_field(self, ref: ReferenceTypeId, name: str) -> WatchedField | None:
        """The field ``name`` declared by the class or the nearest superclass declaring it."""
        current = ref
        while current:
            try:
                fields: list[FieldInfo] = await self._vm.reference_type.fields(current)
            except CommandError as exc:
                log.info("ReferenceType.Fields of %#x: %s", current, exc)
                return None
            for info in fields:
                if info.name == name:
                    owner = binary_name_of(await self._vm.reference_type.signature(current))
                    return WatchedField(current, info.field_id, info.name, info.signature,
                                        bool(info.mod_bits & ACC_STATIC), owner)
            try:
                current = await self._vm.class_type.superclass(current)
            except CommandError:  # an interface: its fields are all found above
                return None
        return None

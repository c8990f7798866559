"""Watchpoints: stop (or log) where a field is written or read, in every class loader that loads its class.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). DESIGN.md §8.5 (``set_debugger_watchpoint``).

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
from collections.abc import Callable

from ...client import JdwpClient
from ...protocol.commands.events import ClassMatch, ClassPrepareEvent, FieldOnly
from ...protocol.commands.reftypes import FieldInfo
from ...protocol.constants import ClassStatus, EventKind, SuspendPolicy, TypeTag
from ...protocol.errors import CommandError
from ...protocol.types import FieldId, ReferenceTypeId
from ..classes.symbols import ACC_STATIC
from ..errors import InvalidArgument, Unsupported
from ..model import LOCATION_UNAVAILABLE, Reason, WatchAccess, Watchpoint
from ..names import binary_name_of, is_binary_name, signature_of
from .hits import HitCounts, HitPlan
from .prepares import ClearRequest, PrepareRequests, Watch, clear_requests

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


@dataclasses.dataclass(frozen=True, slots=True)
class WatchedField:
    """A field a request watches: its declaring class, its ID, JNI signature and whether it is static."""

    declaring: ReferenceTypeId
    field_id: FieldId
    name: str
    signature: str
    static: bool
    owner: str  # the declaring class's binary name


@dataclasses.dataclass
class _Entry:
    breakpoint_id: str
    class_name: str
    field: str
    access: WatchAccess
    plan: HitPlan | None
    status: str = "pending"
    reason: Reason | None = None
    requests: dict[int, tuple[EventKind, WatchedField]] = dataclasses.field(default_factory=dict)
    bound_types: set[int] = dataclasses.field(default_factory=set)
    watch: Watch | None = None
    counts: HitCounts = dataclasses.field(default_factory=HitCounts)

    def snapshot(self) -> Watchpoint:
        plan = self.plan
        status = "spent" if self.counts.spent else self.status
        return Watchpoint(self.breakpoint_id, self.class_name, self.field, self.access, status,  # type: ignore[arg-type]
                          self.reason, plan.options if plan else None, self.counts.hits if plan else None,
                          self.counts.dropped if plan and plan.options.action == "log" else None)

    @property
    def suspend_policy(self) -> int:
        if self.plan is not None and self.plan.options.holds_thread_only:
            return SuspendPolicy.EVENT_THREAD
        return SuspendPolicy.ALL


class Watchpoints:
    """The watchpoints of one session; IDs and the limit are the session's breakpoints' (``reserve``)."""

    def __init__(self, vm: JdwpClient, prepares: PrepareRequests, reserve: Callable[[], str]) -> None:
        self._vm = vm
        self._prepares = prepares
        self._reserve = reserve
        self._entries: dict[str, _Entry] = {}
        self._by_request: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def all(self) -> list[Watchpoint]:
        return [e.snapshot() for e in self._entries.values()]

    def owns(self, breakpoint_id: str) -> bool:
        return breakpoint_id in self._entries

    def owner_of(self, request_id: int) -> str | None:
        """The watchpoint ID behind a JDWP field request ID."""
        return self._by_request.get(request_id)

    def field_of(self, request_id: int) -> WatchedField | None:
        """The field a request of ours watches."""
        owner = self._by_request.get(request_id)
        entry = self._entries.get(owner) if owner is not None else None
        found = entry.requests.get(request_id) if entry is not None else None
        return found[1] if found is not None else None

    def hit_state(self, breakpoint_id: str) -> tuple[HitPlan, HitCounts] | None:
        entry = self._entries.get(breakpoint_id)
        if entry is None or entry.plan is None:
            return None
        return entry.plan, entry.counts

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
        entry = _Entry(self._reserve(), class_name, field, access, plan)  # type: ignore[arg-type]
        self._entries[entry.breakpoint_id] = entry
        entry.watch = (ClassMatch(class_name),)
        await self._prepares.watch(entry.watch)
        for ref in await self._vm.classes_by_signature(signature_of(class_name)):
            if ref.status & ClassStatus.PREPARED and ref.ref_type_tag != TypeTag.ARRAY:
                await self._bind(entry, ref.type_id)
        return entry.snapshot()

    async def remove(self, breakpoint_id: str) -> list[str]:
        """Clear one watchpoint's requests; returns what could not be cleared."""
        entry = self._entries.pop(breakpoint_id)
        failures = await clear_requests(self._vm, self._take(entry))
        if entry.watch is not None:
            failures += await clear_requests(self._vm, self._prepares.drop(entry.watch))
        return failures

    async def spend(self, breakpoint_id: str) -> Watchpoint | None:
        """Clear a logging watchpoint's requests once it reached its ``maxHits`` (status ``spent``)."""
        entry = self._entries.get(breakpoint_id)
        if entry is None or entry.counts.spent:
            return None
        entry.counts.spent = True
        taken = self._take(entry)
        if entry.watch is not None:
            taken += self._prepares.drop(entry.watch)
            entry.watch = None
        await clear_requests(self._vm, taken)
        return entry.snapshot()

    async def on_class_prepare(self, event: ClassPrepareEvent) -> list[Watchpoint]:
        """Bind the watchpoints on a class just loaded; return those whose status changed."""
        if event.ref_type_tag == TypeTag.ARRAY:
            return []
        name = binary_name_of(event.signature)
        changed = []
        for entry in list(self._entries.values()):
            if entry.class_name != name or event.type_id in entry.bound_types or entry.counts.spent:
                continue
            before = entry.status
            await self._bind(entry, event.type_id)
            if entry.status != before:
                changed.append(entry.snapshot())
        return changed

    def take_all(self) -> list[ClearRequest]:
        """Forget every field request and return them to clear (detach; class-prepare requests are the
        caller's)."""
        taken = [request for entry in self._entries.values() for request in self._take(entry)]
        self._entries.clear()
        return taken

    async def _bind(self, entry: _Entry, ref: ReferenceTypeId) -> None:
        entry.bound_types.add(ref)
        found = await self._find_field(ref, entry.field)
        if found is None:
            if entry.status != "verified":
                entry.status = "rejected"
                entry.reason = Reason(LOCATION_UNAVAILABLE, f"{entry.class_name} has no field {entry.field!r} (nor "
                                      "do its superclasses); a Kotlin property's backing field has the property's "
                                      "name, a delegated one is name$delegate")
            return
        for kind in _KINDS[entry.access]:
            request_id = await self._vm.event_request.set(kind, entry.suspend_policy,
                                                          [FieldOnly(found.declaring, found.field_id)])
            entry.requests[request_id] = (kind, found)
            self._by_request[request_id] = entry.breakpoint_id
        entry.status, entry.reason = "verified", None

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

    def _take(self, entry: _Entry) -> list[ClearRequest]:
        taken = [ClearRequest(kind, request_id, f"field request of {entry.breakpoint_id}")
                 for request_id, (kind, _) in entry.requests.items()]
        for request_id in entry.requests:
            self._by_request.pop(request_id, None)
        entry.requests.clear()
        return taken


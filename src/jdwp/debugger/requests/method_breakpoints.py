"""Method breakpoints: stop (or log) on entry to a method, or on its exit with the value it returns.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.2.

Every overload of the name is bound, or only the one of ``signature`` (a JNI method signature such as
``(J)J``), in every class loader that loads the class; pending until one does (a ``ClassMatch``
class-prepare request, shared through :class:`.prepares.PrepareRequests`, then
``VirtualMachine.ClassesBySignature`` 1,2). It shares the session's IDs and its 100 breakpoints.

- **Entry** is a plain breakpoint (``EventRequest.Set(BREAKPOINT, …, LocationOnly)`` 15,1) at each overload's
  first code index (its line table's ``start``; 0 without one). That costs only the method's own calls. A
  ``MethodEntry`` request (40) would report the entry of *every* method of the class, to be sorted here —
  and JVMTI method entry events make HotSpot run the threads they cover in the interpreter while set
  (``interp_only_mode``): a cost for the whole app, not only for the method watched.
- **Exit** cannot be a breakpoint: the value returned is on the operand stack, which JDWP cannot read. So it
  is ``EventRequest.Set(METHOD_EXIT_WITH_RETURN_VALUE (42), EVENT_THREAD, [ClassOnly(class)])`` — JDWP 1.6
  added it without a capability bit; JDI's ``canGetMethodReturnValues`` goes by the version, and so does
  this — and plain ``METHOD_EXIT`` (41, no value) where the VM is older or refuses 42 (the breakpoint's
  ``note`` says so). ``ClassOnly`` keeps the VM from reporting every method exit of the app: only the
  class's (and its subclasses') methods, whose exits of other methods are told apart here by method ID and
  released at once (their thread alone was held). While it is set, HotSpot runs threads in the
  interpreter where they run that class's code (JVMTI method exit events); remove it when done.
  ``art_jvmti.h`` has ``can_generate_method_exit_events`` 1 on Android.

Native and abstract methods have no code: an entry breakpoint skips them (listed in the reason when
nothing else binds).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any, Literal

from ...client import JdwpClient
from ...protocol.commands.events import (
    BreakpointEvent,
    ClassOnly,
    LocationOnly,
    MethodExitEvent,
    MethodExitWithReturnValueEvent,
)
from ...protocol.constants import ACC_ABSTRACT, ACC_NATIVE, EventKind, SuspendPolicy
from ...protocol.errors import CommandError
from ...protocol.types import Location, MethodId, ReferenceTypeId
from ..classes.symbols import Symbols
from ..errors import InvalidArgument
from ..model import LOCATION_UNAVAILABLE, BoundLocation, HitOptions, MethodBreakpoint, Reason
from ..names import is_binary_name
from .breakpoint_kind import Owners
from .by_class import ByClassName, ClassEntry
from .hits import HitPlan, plan_hits
from .kind import Meaning
from .prepares import PrepareRequests

__all__ = ["MethodBreakpoints", "MethodOn"]

log = logging.getLogger("jdwp.debugger")

MethodOn = Literal["entry", "exit"]
OLD_VM_NOTE = ("this VM cannot tell the values methods return (JDWP before 1.6, or it refused "
               "MethodExitWithReturnValue): exit stops come without return_value")


@dataclasses.dataclass(kw_only=True)
class _Entry(ClassEntry):
    method: str = ""
    signature: str | None = None
    on: MethodOn = "entry"
    reason: Reason | None = None
    locations: list[BoundLocation] = dataclasses.field(default_factory=list)
    methods: dict[int, str] = dataclasses.field(default_factory=dict)  # bound method ID -> return type signature
    note: str | None = None

    def progress(self) -> Any:
        return self.state, len(self.locations)


class MethodBreakpoints(ByClassName[_Entry, MethodBreakpoint]):
    """The method breakpoints of one session (:mod:`.by_class` holds what they share with watchpoints)."""

    EVENTS = (BreakpointEvent, MethodExitEvent, MethodExitWithReturnValueEvent)

    def __init__(self, vm: JdwpClient, symbols: Symbols, prepares: PrepareRequests, reserve: Callable[[], str],
                 owners: Owners) -> None:
        super().__init__(vm, prepares, reserve, owners)
        self._symbols = symbols

    def meaning(self, event: BreakpointEvent | MethodExitEvent | MethodExitWithReturnValueEvent) -> Meaning | None:
        """An entry breakpoint's hit, or the exit of a method an exit breakpoint binds (with its value, and the
        method's return type, where the VM sends one): stop reason ``breakpoint``."""
        if isinstance(event, BreakpointEvent):
            owner = self.owner_of(event.request_id)
            return Meaning("breakpoint", owner) if owner is not None else None
        exit_of = self.exit_owner(event.request_id, event.location.method_id)
        if exit_of is None:
            return None
        value = event.value if isinstance(event, MethodExitWithReturnValueEvent) else None
        return Meaning("breakpoint", exit_of[0], returned=(value, exit_of[1]) if value is not None else None)

    def _snapshot(self, entry: _Entry) -> MethodBreakpoint:
        plan = entry.plan
        options = plan.options if plan is not None and plan.options != HitOptions() else None
        return MethodBreakpoint(entry.breakpoint_id, entry.class_name, entry.method, entry.signature, entry.on,
                                entry.shown_status, tuple(entry.locations), entry.reason, options,
                                entry.counts.hits if options else None,
                                entry.counts.dropped if options and options.action == "log" else None, entry.note)

    def _unbound(self, entry: _Entry) -> None:
        super()._unbound(entry)
        entry.locations.clear()
        entry.methods.clear()
        entry.reason = None

    def _always_judged(self, entry: _Entry) -> bool:
        return entry.on == "exit"

    def owner_of(self, request_id: int) -> str | None:
        """The breakpoint behind an entry breakpoint's request ID (an exit's is :meth:`exit_owner`'s)."""
        entry = self.entry_of(request_id)
        return entry.breakpoint_id if entry is not None and entry.on == "entry" else None

    def exit_owner(self, request_id: int, method_id: int) -> tuple[str, str] | None:
        """The exit breakpoint behind a method-exit event, when the method that exited is one it binds (another
        method of the class is nobody's), with the method's return type signature."""
        entry = self.entry_of(request_id)
        if entry is None or entry.on != "exit" or method_id not in entry.methods or not entry.live:
            return None
        return entry.breakpoint_id, entry.methods[method_id]

    async def add(self, class_name: str, method: str, signature: str | None, on: str, plan: HitPlan | None,
                  return_values: bool) -> MethodBreakpoint:
        """Set a method breakpoint: ``verified`` once some overload is bound, ``pending`` until the class loads,
        ``rejected`` while the loaded class has no such method with code.

        ``return_values``: the VM can send ``MethodExitWithReturnValue`` (JDWP ≥ 1.6).

        Raises:
            InvalidArgument: a bad class, method, signature or ``on``. Nothing is changed.
            LimitReached: the session holds 100 breakpoints already. Nothing is changed.
        """
        if not isinstance(class_name, str) or not is_binary_name(class_name):
            raise InvalidArgument(f"className {class_name!r} is not a binary class name like com.example.Account")
        if not isinstance(method, str) or not (method in ("<init>", "<clinit>") or (is_binary_name(method)
                                               and "." not in method)):
            raise InvalidArgument(f"method {method!r} is not a method name (a constructor is <init>)")
        if signature is not None and (not isinstance(signature, str) or not signature.startswith("(")
                                      or ")" not in signature):
            raise InvalidArgument(f"signature {signature!r} is not a JNI method signature such as (J)J or "
                                  "(Ljava/lang/String;)V")
        if on not in ("entry", "exit"):
            raise InvalidArgument(f'on must be "entry" or "exit", not {on!r}')
        if on == "exit" and plan is None:
            plan = plan_hits(HitOptions())  # an exit is always judged: other methods' exits are let go at once
        entry = _Entry(self._reserve(), plan, class_name=class_name, method=method, signature=signature,
                       on=on)  # type: ignore[arg-type]
        if on == "exit" and not return_values:
            entry.note = OLD_VM_NOTE
        return await self._hold(entry)

    def _names_code(self, entry: _Entry) -> bool:
        return entry.on == "entry"  # an exit's request names the class: a reload leaves it right

    async def _bind(self, entry: _Entry, ref: ReferenceTypeId, tag: int) -> None:
        entry.bound_types.add(ref)
        methods = await self._symbols.members.methods(ref)
        named = [m for m in methods.values() if m.name == entry.method
                 and (entry.signature is None or m.signature == entry.signature)]
        with_code = [m for m in named if not m.mod_bits & (ACC_NATIVE | ACC_ABSTRACT)]
        if not with_code:
            if not entry.locations:
                entry.move("found_nothing")
                what = f"{entry.method}{entry.signature or ''}"
                entry.reason = Reason(LOCATION_UNAVAILABLE, f"{entry.class_name} has no method {what} with code "
                                      + (f"({len(named)} native or abstract)" if named else
                                         f"(it has {', '.join(sorted({m.name for m in methods.values()})[:20])})"))
            return
        loader = self._symbols.classes.loader(ref)
        if loader is None:
            loader = await self._vm.reference_type.class_loader(ref)
            self._symbols.classes.note_loader(ref, loader)
        locations = []
        for method in with_code:
            table = await self._symbols.lines.get(ref, MethodId(method.method_id))
            start = table.start if table is not None and table.start >= 0 else 0
            locations.append(Location(tag, ref, MethodId(method.method_id), start))
            entry.methods[method.method_id] = method.signature.rpartition(")")[2]
        if entry.on == "exit":
            await self._request_exit(entry, ref)
        else:
            policy = entry.suspend_policy
            for location in locations:
                request_id = await self._vm.event_request.set(EventKind.BREAKPOINT, policy, [LocationOnly(location)])
                self._made(entry, request_id, EventKind.BREAKPOINT)
        positions = await self._symbols.describe(locations)
        for method, location, position in zip(with_code, locations, positions, strict=True):
            entry.locations.append(BoundLocation(position.class_name, f"{method.name}{method.signature}",
                                                 position.source, position.line, location.index,
                                                 f"{loader:#x}"))
        entry.move("bound")
        entry.reason = None

    async def _request_exit(self, entry: _Entry, ref: ReferenceTypeId) -> None:
        """One exit request for the class, with the value when the VM can (kind 42), else without (41)."""
        filters = [ClassOnly(ref)]
        if entry.note is None:
            try:
                request_id = await self._vm.event_request.set(EventKind.METHOD_EXIT_WITH_RETURN_VALUE,
                                                              SuspendPolicy.EVENT_THREAD, filters)
            except CommandError as exc:  # an older agent than its version says: no values, but the stops
                log.info("MethodExitWithReturnValue refused (%s): plain MethodExit", exc)
                entry.note = OLD_VM_NOTE
            else:
                self._made(entry, request_id, EventKind.METHOD_EXIT_WITH_RETURN_VALUE)
                return
        request_id = await self._vm.event_request.set(EventKind.METHOD_EXIT, SuspendPolicy.EVENT_THREAD, filters)
        self._made(entry, request_id, EventKind.METHOD_EXIT)

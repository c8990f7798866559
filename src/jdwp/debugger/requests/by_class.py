"""The base of breakpoints bound by class name: watchpoints and method breakpoints.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). DESIGN.md §8.5 and §8.7 (one base for owned requests).

Such a breakpoint names one class (a binary name). Set, it makes a ``ClassMatch`` class-prepare request on
that name (shared through :class:`.prepares.PrepareRequests`), then asks ``VirtualMachine.
ClassesBySignature`` (1,2) — so no class loads unseen between the two — and binds in each prepared class of
that name, one per class loader; a class loaded later binds it as it is prepared. Its event requests are
its own (``EventRequest.Set`` 15,1), cleared with it (15,2): removed, spent (a logpoint's ``maxHits``) or
at detach, in one write each time. It shares the session's IDs and its limit of 100 breakpoints
(``reserve``). What it binds is the subclass's business (:meth:`ByClassName._bind`).

Changed in place (``update_debugger_breakpoint``, :meth:`ByClassName.update`): a new condition, hit count or
log message is judged from the next hit on, and its requests are made anew only when their suspend policy
changes (a hit judged first asks ``EVENT_THREAD``): a hit between the clear and the new requests would be lost
for nothing otherwise. Disabled, every request of it and its class watch are cleared (it stays held, counted,
status ``disabled``); enabled, it binds anew as when it was set.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ...client import JdwpClient
from ...protocol.commands.events import ClassMatch, ClassPrepareEvent
from ...protocol.constants import ClassStatus, EventKind, SuspendPolicy, TypeTag
from ...protocol.types import ReferenceTypeId
from ..model import BreakpointStatus
from ..names import binary_name_of, signature_of
from .hits import KEEP, HitCounts, HitPlan, Keep, revise_entry
from .owned import OwnedRequests, Owner
from .prepares import ClearRequest, PrepareRequests, Watch, clear_requests

__all__ = ["ByClassName", "ClassEntry"]


@dataclasses.dataclass
class ClassEntry:
    """What every breakpoint bound by class name keeps: its requests, the classes it is bound in, its watch."""

    breakpoint_id: str
    class_name: str
    plan: HitPlan | None
    status: str = "pending"
    requests: dict[int, EventKind] = dataclasses.field(default_factory=dict)  # JDWP request ID -> its kind
    bound_types: set[int] = dataclasses.field(default_factory=set)
    watch: Watch | None = None
    counts: HitCounts = dataclasses.field(default_factory=HitCounts)
    enabled: bool = True  # disabled: no request of it is made, until it is enabled again

    @property
    def shown_status(self) -> BreakpointStatus:
        """Its status as a snapshot tells it: ``disabled`` and ``spent`` before what binding found."""
        if not self.enabled:
            return "disabled"
        return "spent" if self.counts.spent else self.status  # type: ignore[return-value]

    @property
    def suspend_policy(self) -> int:
        """``EVENT_THREAD`` when a hit is judged before it stops (:mod:`.hits`), else ``ALL``."""
        if self.plan is not None and self.plan.options.holds_thread_only:
            return SuspendPolicy.EVENT_THREAD
        return SuspendPolicy.ALL

    def progress(self) -> Any:
        """What a class prepare that changes it changes (its status, unless a subclass says more)."""
        return self.status


E = TypeVar("E", bound=ClassEntry)
S = TypeVar("S")  # the record the engine hands out (Watchpoint, MethodBreakpoint)


class ByClassName(OwnedRequests, Generic[E, S]):
    """The breakpoints of one kind bound by class name, of one session. Its requests are of more than one
    event kind (a watchpoint's reads and writes, a method's entry and exit): each entry keeps the kind of each."""

    KIND, WHAT = EventKind.BREAKPOINT, "request"  # unused: :meth:`_take` names each request by its own kind

    def __init__(self, vm: JdwpClient, prepares: PrepareRequests, reserve: Callable[[], str]) -> None:
        super().__init__(vm)
        self._prepares = prepares
        self._reserve = reserve
        self._entries: dict[str, E] = {}

    # --- what the subclass says ---------------------------------------------------------------------

    def _snapshot(self, entry: E) -> S:
        raise NotImplementedError

    async def _bind(self, entry: E, ref: ReferenceTypeId, tag: int) -> None:
        """Bind in one prepared class of the entry's name (``tag``: its TypeTag)."""
        raise NotImplementedError

    def _unbound(self, entry: E) -> None:
        """Forget what binding found (its requests are cleared already), so that it binds anew."""
        entry.bound_types.clear()
        entry.status = "pending"

    def _always_judged(self, entry: E) -> bool:
        """Whether every hit of it is judged here, options or not (a method exit: other methods' exits are let
        go at once), so that it keeps a plan with no option."""
        return False

    # --- the rest -----------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    def all(self) -> list[S]:
        return [self._snapshot(e) for e in self._entries.values()]

    def owns(self, breakpoint_id: str) -> bool:
        return breakpoint_id in self._entries

    def wants(self, breakpoint_id: str) -> bool:
        """Whether it is held, enabled and not spent (:meth:`.breakpoints.Breakpoints.wants`)."""
        entry = self._entries.get(breakpoint_id)
        return entry is not None and entry.enabled and not entry.counts.spent

    def _entry_of(self, request_id: int) -> E | None:
        owner = self._by_request.get(request_id)
        return self._entries.get(owner) if owner is not None else None

    def hit_state(self, breakpoint_id: str) -> tuple[HitPlan, HitCounts] | None:
        """The plan and counts of a held breakpoint that has options (``None``: a plain one, or not ours)."""
        entry = self._entries.get(breakpoint_id)
        if entry is None or entry.plan is None:
            return None
        return entry.plan, entry.counts

    async def _hold(self, entry: E) -> S:
        """Hold a new entry (its ID reserved): watch for its class, then bind in the prepared ones.

        Raises:
            JdwpError: the VM refused or did not answer (what was made is held: removed with it).
        """
        self._entries[entry.breakpoint_id] = entry
        await self._arm(entry)
        return self._snapshot(entry)

    async def _arm(self, entry: E) -> None:
        """Watch for the entry's class (unless watched already), then bind in the prepared ones."""
        if entry.watch is None:
            entry.watch = (ClassMatch(entry.class_name),)
            await self._prepares.watch(entry.watch)
        for ref in await self._vm.classes_by_signature(signature_of(entry.class_name)):
            # Status as bits: ART reports 3 or 7 for the same kind of class, and interfaces with tag 2 (a capture
            # of real ART events, docs/reliability.md "ART as devices show it").
            if ref.status & ClassStatus.PREPARED and ref.ref_type_tag != TypeTag.ARRAY:
                await self._bind(entry, ref.type_id, ref.ref_type_tag)

    async def _disarm(self, entry: E, *, keep_watch: bool) -> None:
        """Clear the entry's requests (and its class watch unless ``keep_watch``), in one write."""
        taken = self._take(entry)
        if not keep_watch and entry.watch is not None:
            taken += self._prepares.drop(entry.watch)
            entry.watch = None
        await clear_requests(self._vm, taken)
        self._unbound(entry)

    async def update(self, breakpoint_id: str, *, condition: str | Keep | None = KEEP,
                     hit_count: int | Keep | None = KEEP, log_message: str | Keep | None = KEEP,
                     enabled: bool | None = None) -> S:
        """Change one held breakpoint in place (``None`` clears an option, :data:`KEEP` leaves it); a new
        condition or hit count counts its hits from zero.

        Raises:
            InvalidArgument, ExpressionSyntaxError: bad options, or a spent logpoint. Nothing is changed.
            JdwpError: the VM refused or did not answer (what was made is held: removed with it).
        """
        entry = self._entries[breakpoint_id]
        policy = entry.suspend_policy
        revise_entry(breakpoint_id, entry, condition, hit_count, log_message, always_judged=self._always_judged(entry))
        if enabled is False:
            if entry.enabled:
                entry.enabled = False
                await self._disarm(entry, keep_watch=False)
        elif not entry.enabled:
            if enabled:
                entry.enabled = True
                await self._arm(entry)
        elif entry.suspend_policy != policy:
            await self._disarm(entry, keep_watch=True)
            await self._arm(entry)
        return self._snapshot(entry)

    def _made(self, entry: E, request_id: int, kind: EventKind) -> None:
        """Record a request the VM made for ``entry``."""
        entry.requests[request_id] = kind
        self._own(entry, request_id)

    def take(self, breakpoint_id: str) -> list[ClearRequest]:
        """Forget one breakpoint and return its requests and its class watch to clear (one write for many)."""
        entry = self._entries.pop(breakpoint_id)
        taken = self._take(entry)
        if entry.watch is not None:
            taken += self._prepares.drop(entry.watch)
        return taken

    async def remove(self, breakpoint_id: str) -> list[str]:
        """Clear one breakpoint's requests and its class watch; returns what could not be cleared."""
        return await clear_requests(self._vm, self.take(breakpoint_id))

    async def spend(self, breakpoint_id: str) -> S | None:
        """Clear a logging breakpoint's requests once it reached its ``maxHits``; it stays held, ``spent``.

        Returns its snapshot, or ``None`` when it is no longer held or was spent already.
        """
        entry = self._entries.get(breakpoint_id)
        if entry is None or entry.counts.spent:
            return None
        entry.counts.spent = True
        taken = self._take(entry)
        if entry.watch is not None:  # no class loaded later binds it again
            taken += self._prepares.drop(entry.watch)
            entry.watch = None
        await clear_requests(self._vm, taken)
        return self._snapshot(entry)

    async def on_class_prepare(self, event: ClassPrepareEvent) -> list[S]:
        """Bind the breakpoints of the class just loaded; return those that changed."""
        if event.ref_type_tag == TypeTag.ARRAY:
            return []
        name = binary_name_of(event.signature)
        changed = []
        for entry in list(self._entries.values()):
            if entry.class_name != name or event.type_id in entry.bound_types or entry.counts.spent \
                    or not entry.enabled:
                continue
            before = entry.progress()
            await self._bind(entry, event.type_id, event.ref_type_tag)
            if entry.progress() != before:
                changed.append(self._snapshot(entry))
        return changed

    def take_all(self) -> list[ClearRequest]:
        """Forget every request and return them to clear (detach; class-prepare requests are the caller's)."""
        taken = [request for entry in self._entries.values() for request in self._take(entry)]
        self._entries.clear()
        return taken

    def _take(self, entry: Owner) -> list[ClearRequest]:
        """Forget one breakpoint's requests and return them to clear, each named by its own kind."""
        assert isinstance(entry, ClassEntry)
        taken = [ClearRequest(kind, request_id, f"{kind.name.lower()} request of {entry.breakpoint_id}")
                 for request_id, kind in entry.requests.items()]
        for request_id in entry.requests:
            self._by_request.pop(request_id, None)
        entry.requests.clear()
        return taken

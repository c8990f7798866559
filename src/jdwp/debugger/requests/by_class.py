"""The base of breakpoints bound by class name: watchpoints and method breakpoints.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). A peer kind on :class:`.kind.BreakpointKind`, which
writes their update, enable, disable, spend and removal once for every kind.

Such a breakpoint names one class (a binary name). Set, it makes a ``ClassMatch`` class-prepare request on
that name (shared through :class:`.prepares.PrepareRequests`), then asks ``VirtualMachine.
ClassesBySignature`` (1,2) — so no class loads unseen between the two — and binds in each prepared class of
that name, one per class loader; a class loaded later binds it as it is prepared. What it binds is the
subclass's business (:meth:`ByClassName._bind`).

Changed in place (``update_debugger_breakpoint``): a new condition, hit count or log message is judged from
the next hit on, and its requests are made anew only when their suspend policy changes
(:meth:`.kind.BreakpointKind._rearms`).
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from ...protocol.commands.events import ClassMatch, ClassPrepareEvent
from ...protocol.constants import ClassStatus, TypeTag
from ...protocol.types import ReferenceTypeId
from ..names import binary_name_of, signature_of
from .breakpoint_kind import BreakpointKind, Entry, S

__all__ = ["ByClassName", "ClassEntry"]


@dataclasses.dataclass(kw_only=True)
class ClassEntry(Entry):
    """What every breakpoint bound by class name keeps besides an :class:`.breakpoint_kind.Entry`: its class's
    name."""

    class_name: str


E = TypeVar("E", bound=ClassEntry)


class ByClassName(BreakpointKind[E, S]):
    """The breakpoints of one kind bound by class name, of one session. Its requests are of more than one
    event kind (a watchpoint's reads and writes, a method's entry and exit): each entry keeps the kind of each."""

    async def _bind(self, entry: E, ref: ReferenceTypeId, tag: int) -> None:
        """Bind in one prepared class of the entry's name (``tag``: its TypeTag)."""
        raise NotImplementedError

    async def _arm(self, entry: E) -> None:
        """Watch for the entry's class (unless watched already), then bind in the prepared ones."""
        if not entry.watches:
            watch = (ClassMatch(entry.class_name),)
            await self._prepares.watch(watch)
            entry.watches.append(watch)
        for ref in await self._vm.classes_by_signature(signature_of(entry.class_name)):
            # Status as bits: ART reports 3 or 7 for the same kind of class, and interfaces with tag 2 (a capture
            # of real ART events, docs/reliability.md "ART as devices show it").
            if ref.status & ClassStatus.PREPARED and ref.ref_type_tag != TypeTag.ARRAY:
                await self._bind(entry, ref.type_id, ref.ref_type_tag)

    async def on_class_prepare(self, event: ClassPrepareEvent) -> list[S]:
        """Bind the breakpoints of the class just loaded; return those that changed."""
        if event.ref_type_tag == TypeTag.ARRAY:
            return []
        name = binary_name_of(event.signature)
        changed = []
        for entry in list(self._entries.values()):
            if entry.class_name != name or event.type_id in entry.bound_types or not entry.live:
                continue
            before = entry.progress()
            await self._bind(entry, event.type_id, event.ref_type_tag)
            if entry.progress() != before:
                changed.append(self._snapshot(entry))
        return changed

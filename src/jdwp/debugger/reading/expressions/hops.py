"""The hops of a chain of fields and indexes (``a.b.c[3].d``), each asked ahead from declared types.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.8; issue 12's budget (at most 4 round
trips for ``a.b.c[3].d``).

A hop needs the layout of its object's runtime class (``ReferenceType.Fields`` 2,4) to find the field,
and that class comes from ``ObjectReference.ReferenceType`` (9,1) of an object just read: asked one after
the other, a hop over a class not seen yet costs three round trips. The field tables say more: a value
read from a field (or an array element) has the field's declared type (the array's component type), and
its runtime class is most often that very class. So while a value is read, its declared class is asked
for too — its layout when the session knows the class by name, else its type ID by name
(``VirtualMachine.ClassesBySignature`` 1,2). The next hop then reads the field from that layout in the
same round trip as the value's real runtime type, and keeps the value only when the two classes are the
same; otherwise it reads again from the runtime class (a subclass may shadow the field). Nothing is
assumed of a layout: every field ID comes from a class's own table.
"""

from __future__ import annotations

from functools import partial

from ....protocol.commands.reftypes import FieldInfo
from ....protocol.errors import CommandError
from ....protocol.types import FieldId
from ....protocol.values import Value
from ..._gather import gather
from ..objects import Layouts
from ..values import Values, stale_on_collected


class Hops:
    """The declared types of the objects one evaluation read, and the reads they let it ask ahead."""

    def __init__(self, values: Values, layouts: Layouts) -> None:
        self._values = values
        self._layouts = layouts
        self._declared: dict[int, str] = {}

    def declared(self, value: Value) -> str | None:
        """The JNI signature the object was declared with where this evaluation read it, if it did."""
        return self._declared.get(value.object_id) if value.is_object and not value.is_null else None

    def note(self, value: Value, signature: str) -> None:
        if value.is_object and not value.is_null:
            self._declared.setdefault(value.object_id, signature)

    async def prepare(self, signature: str) -> None:
        """Ask ahead for the class a value declared ``signature`` most likely has (an array's: its component
        type's, as its elements are what is read next). Best effort: a refusal changes nothing."""
        wanted = signature.lstrip("[")
        if not wanted.startswith("L"):
            return
        try:
            candidate = self._layouts.candidate(wanted)
            if candidate is not None:
                await self._layouts.prefetch([candidate])
            elif not self._layouts.asked(wanted):
                await self._layouts.resolve([wanted])
        except CommandError:
            return

    async def read_field(self, handle: str, target: Value, field: FieldInfo) -> Value:
        """One instance field of ``target`` (``ObjectReference.GetValues`` 9,2), its declared class asked
        meanwhile."""
        value = await self._read(handle, target, field)
        self.note(value, field.signature)
        return value

    async def _read(self, handle: str, target: Value, field: FieldInfo) -> Value:
        vm = self._values.vm
        with stale_on_collected(handle):
            replies = await gather([
                partial(vm.object_reference.get_values, target.object_id, [FieldId(field.field_id)]),
                partial(self.prepare, field.signature)])
        value: Value = replies[0][0]
        return value

    async def ahead(self, target: Value, handle: str, name: str) -> Value | None:
        """The instance field ``name`` of an object whose runtime class is not known yet, read from its
        declared class's layout with the runtime class in one round trip; ``None`` when that cannot be done
        or the runtime class is another (the caller then reads from the runtime class, known by then)."""
        if self._values.known_type(handle) is not None:
            return None
        declared = self.declared(target)
        candidate = self._layouts.candidate(declared) if declared is not None else None
        if candidate is None:
            return None
        info = self._layouts.known_head(candidate)
        if info is None:  # named, but its layout not asked yet: both with the runtime class
            await gather([partial(self._values.type_id, handle), partial(self._layouts.prefetch, [candidate])])
            return None
        field = Layouts.find((info,), name)
        if field is None:  # declared higher up: the runtime class's chain decides
            return None
        runtime, value = await gather([partial(self._values.type_id, handle),
                                       partial(self._guarded, handle, target, field)])
        if runtime != candidate or not isinstance(value, Value):
            return None
        self.note(value, field.signature)
        return value

    async def _guarded(self, handle: str, target: Value, field: FieldInfo) -> Value | None:
        """A read that may name a field of another class than the object's: refused then (ART says
        INVALID_FIELDID), which only means the guess was wrong."""
        try:
            return await self._read(handle, target, field)
        except CommandError:  # a collected object raised StaleReference already
            return None

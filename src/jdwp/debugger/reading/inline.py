"""Values shown inline in every summary: a box's primitive and an enum constant's name, read from their fields.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.7 (boxed primitives, ``Character`` and enums
show their value in locals, fields, elements, entries and results).

No app code runs: ``java.lang.Integer`` and the other boxes hold their primitive in the final field ``value``
(``toString()`` of a box prints exactly that); an enum constant's ``name`` is the final field of
``java.lang.Enum`` that ``name()`` returns (IntelliJ shows it too, not ``toString()``, which an enum may
override). A class is an enum when its layout has the static ``$VALUES`` array of its own type (javac's and
kotlinc's, see :func:`is_enum`) and its superclass is ``java.lang.Enum``; a constant with a body (``Status$1``,
an anonymous class) is of such a class. Both are immutable, so a value read once is kept with
the handle for the session.

Cost, for the values of one summary: the classes' layouts come with the summary's own second round trip
(:meth:`.objects.Layouts.prefetch`; ``java.lang.Enum``'s once per session when an enum is first seen, and an
anonymous class's superclass once); then one write of
``ObjectReference.GetValues`` (9,2), one per box or enum constant not read yet; then, for enum constants, one
write of ``StringReference.Value`` (10,1) for their names. A page of 100 boxes is one round trip more, not 100.
"""

from __future__ import annotations

import re
from typing import Any

from ...protocol.commands import ObjectReference, StringReference
from ...protocol.constants import ACC_STATIC, Tag
from ...protocol.errors import CommandError
from ...protocol.types import FieldId, ObjectId, ReferenceTypeId
from ...protocol.values import Value
from ..names import java_text
from .objects import ClassInfo, Layouts
from .values import Values

BOXES = frozenset(f"java.lang.{n}" for n in ("Integer", "Long", "Short", "Byte", "Character", "Boolean", "Float",
                                              "Double"))
#: javac's and kotlinc's name of an anonymous class (an enum constant with a body is one): ``Status$1``.
_ANONYMOUS = re.compile(r".*\$[0-9]+")


class Inline:
    """Which classes show a value inline, and the values of the session's boxes and enum constants."""

    def __init__(self, layouts: Layouts) -> None:
        self._layouts = layouts
        #: Per class: the field whose value is shown, and whether it is an enum's name (a string to read).
        self._fields: dict[int, tuple[FieldId, bool] | None] = {}

    async def texts(self, values: Values, objects: list[tuple[str, ReferenceTypeId]],
                    ) -> dict[str, tuple[str, Value | None]]:
        """The inline text of each ``(handle, runtime class)`` that is a box or an enum constant, with a box's
        primitive (kept by :class:`.values.Values`, so that comparing a box needs no second read)."""
        plans: list[tuple[str, FieldId, bool]] = []
        for handle, type_id in objects:
            found = await self._field(type_id)
            if found is not None:
                plans.append((handle, *found))
        if not plans:
            return {}
        vm = values.vm
        requests: list[tuple[Any, Any]] = []
        for handle, field, _ in plans:
            wire, _tag = values.resolve(handle)
            requests.append((ObjectReference.GetValues, ObjectReference.GetValues.out(object=wire, fields=[field])))
        replies = await vm.request_all(requests)
        out: dict[str, tuple[str, Value | None]] = {}
        names: list[tuple[str, ObjectId]] = []
        for (handle, _, named), reply in zip(plans, replies, strict=True):
            if isinstance(reply, CommandError):  # collected meanwhile: the summary shows no value, as before
                continue
            (value,) = reply.values
            if not named:
                out[handle] = (java_text(value.tag, value.value), value)
            elif value.tag == Tag.STRING and not value.is_null:
                names.append((handle, value.object_id))
        if names:
            texts = await vm.request_all([(StringReference.Value, StringReference.Value.out(string_object=wire))
                                          for _, wire in names])
            for (handle, _), text in zip(names, texts, strict=True):
                if not isinstance(text, CommandError):
                    out[handle] = (text.string_value, None)
        return out

    async def _field(self, type_id: ReferenceTypeId) -> tuple[FieldId, bool] | None:
        if type_id in self._fields:
            return self._fields[type_id]
        found: tuple[FieldId, bool] | None = None
        head = self._layouts.known_head(type_id)
        if head is not None:  # a class the VM refused to describe shows no value (it is asked again next time)
            if head.name in BOXES:
                field = Layouts.find((head,), "value")
                found = None if field is None else (FieldId(field.field_id), False)
            else:
                enum = await self._enum_of(head)
                found = None if enum is None else (FieldId(enum.field_id), True)
            self._fields[type_id] = found
        return found

    async def _enum_of(self, head: ClassInfo) -> Any:
        """``java.lang.Enum``'s ``name`` field when ``head`` is an enum or an enum constant's body."""
        enum_class = head if is_enum(head) else None
        superclass = self._layouts.superclass(head.type_id)
        if enum_class is None and superclass and _ANONYMOUS.fullmatch(head.name):
            parent = await self._head(superclass)
            enum_class = parent if parent is not None and is_enum(parent) else None
        root = self._layouts.superclass(enum_class.type_id) if enum_class is not None else None
        enum = await self._head(root) if root else None
        if enum is None or enum.name != "java.lang.Enum":
            return None
        return Layouts.find((enum,), "name")

    async def _head(self, type_id: int) -> ClassInfo | None:
        try:
            return await self._layouts.head(ReferenceTypeId(type_id))
        except CommandError:  # unloaded meanwhile
            return None


def is_enum(head: ClassInfo) -> bool:
    """javac and kotlinc give every enum class the static ``$VALUES`` array of its constants (``values()``
    copies it): a class with one of its own type is an enum, read from the layout the summary asked anyway."""
    own = "[L" + head.name.replace(".", "/") + ";"
    return any(f.name == "$VALUES" and f.signature == own and f.mod_bits & ACC_STATIC for f in head.fields)

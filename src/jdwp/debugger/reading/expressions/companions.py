"""A Kotlin companion object's properties, read through the companion: ``Registry.Companion.created``.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.8 (fields, including private ones).

kotlinc keeps a class's companion properties (``const`` or not) as static fields of the outer class, next to
the static field that holds the companion itself (named as the companion, ``Companion`` unless named); the
companion's class (``Registry$Companion``) has only their accessors. So a field the companion lacks is read
from the outer class, found by name (``VirtualMachine.ClassesBySignature`` 1,2), which must hold this very
object in that field: an ordinary nested class, or another loader's class of the same name, reads nothing.
The field and the holder are read together (``ReferenceType.GetValues`` 2,6). Asked only once the object
has no such field of its own (the error path): reads that succeed cost nothing more.
"""

from __future__ import annotations

from ....protocol.commands.reftypes import FieldInfo
from ....protocol.constants import ACC_STATIC
from ....protocol.types import FieldId, ReferenceTypeId
from ....protocol.values import Value
from ..objects import ClassInfo, Layouts
from ..values import Values


async def outer_static(values: Values, layouts: Layouts, target: Value, name: str) -> Value | None:
    """The static ``name`` of the outer class of ``target``, when ``target`` is its companion object."""
    companion = await layouts.head(await values.type_id(values.handle(target)))
    outer, _, simple = companion.name.rpartition("$")
    if not outer or not simple:
        return None
    holder_signature = "L" + companion.name.replace(".", "/") + ";"
    for ref in await values.vm.classes_by_signature("L" + outer.replace(".", "/") + ";"):
        info = await layouts.head(ReferenceTypeId(ref.type_id))
        holder, wanted = _static(info, simple, holder_signature), _static(info, name)
        if holder is None or wanted is None:
            continue
        same, value = await values.vm.reference_type.get_values(info.type_id, [FieldId(holder.field_id),
                                                                               FieldId(wanted.field_id)])
        if not same.is_null and same.object_id == target.object_id:
            return value
    return None


def _static(info: ClassInfo, name: str, signature: str | None = None) -> FieldInfo | None:
    for field in info.fields:
        if field.name == name and field.mod_bits & ACC_STATIC and signature in (None, field.signature):
            return field
    return None

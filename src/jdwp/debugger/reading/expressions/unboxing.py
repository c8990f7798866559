"""Unboxing of an operator's operands (JLS §5.1.8): a ``java.lang.Integer`` and the other boxes are read as
their primitive, from their ``value`` field, never by calling ``intValue()``.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.8 (Java's numeric promotion, which
unboxes first: JLS §5.6). Kotlin's ``List<Int>`` and ``Map<String, Int>`` hold nothing but boxes, so
``list[0] + 1`` needs this. The box's class is the value's runtime class (``ObjectReference.ReferenceType``
9,1, kept by the session) and its layout (:class:`..objects.Layouts`); the field is one
``ObjectReference.GetValues`` (9,2). A box without a ``value`` field (a layout this server does not know)
stays an object, and the operator then says what it needs.
"""

from __future__ import annotations

from ....protocol.constants import Tag
from ....protocol.types import FieldId
from ..objects import Layouts
from ..values import Values, stale_on_collected
from .context import Result, Text

BOXES = frozenset(f"java.lang.{n}" for n in ("Integer", "Long", "Short", "Byte", "Character", "Boolean", "Float",
                                              "Double"))


async def operands(values: Values, layouts: Layouts, op: str, left: Result, right: Result) -> tuple[Result, Result]:
    """A binary operator's operands, unboxed, except two references of ``==``/``!=``: those compare identity
    (JLS §15.21.3), while a box and a primitive compare values (§15.21.1)."""
    if op in ("==", "!=") and _is_reference(left) and _is_reference(right):
        return left, right
    return await unboxed(values, layouts, left), await unboxed(values, layouts, right)


def _is_reference(value: Result) -> bool:
    return isinstance(value, Text) or value.is_object


async def unboxed(values: Values, layouts: Layouts, value: Result) -> Result:
    """The primitive a box holds; any other value as it is."""
    if isinstance(value, Text) or value.tag != Tag.OBJECT or value.is_null:  # strings and arrays are no boxes
        return value
    handle = values.handle(value)
    known = values.boxed(handle)  # its summary read it (a box never changes: its value field is final)
    if known is not None:
        return known
    info = await layouts.head(await values.type_id(handle))
    field = Layouts.find((info,), "value") if info.name in BOXES else None
    if field is None:
        return value
    with stale_on_collected(handle):
        (read,) = await values.vm.object_reference.get_values(value.object_id,
                                                              [FieldId(field.field_id)])
    return read

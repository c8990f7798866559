"""One object of a coroutine's chain, read from its fields: a continuation, a scope, or the coroutine.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.11. Nothing of the app runs: every
fact is a field, read with ``ObjectReference.GetValues`` (9,2), the classes by ``ClassType.Superclass`` (3,1)
and ``ReferenceType.Fields`` (2,4) (:class:`.objects.Layouts`, kept for the session).

- A **continuation** is an instance of the stdlib's ``kotlin.coroutines.jvm.internal.BaseContinuationImpl``
  (every suspend function's state machine and suspend lambda extends it: ``ContinuationImpl``,
  ``SuspendLambda``, ``RestrictedContinuationImpl``). Its own class declares ``label`` and the spilled
  variables' fields (``L$0``, ``I$1``, ``J$0``, …, by the type letter of what they hold); ``completion``,
  declared by ``BaseContinuationImpl``, is whom it resumes when it returns.
- A **scope** is kotlinx's ``kotlinx.coroutines.internal.ScopeCoroutine`` (``withContext``'s
  ``DispatchedCoroutine``, ``coroutineScope``'s, ``UndispatchedCoroutine``, ``TimeoutCoroutine``): a coroutine
  inside a suspend call, whose ``uCont`` is the caller's continuation; the chain goes on there.
- Anything else ends the chain: an ``AbstractCoroutine`` (``StandaloneCoroutine`` of ``launch``,
  ``DeferredCoroutine`` of ``async``, ``BlockingCoroutine`` of ``runBlocking``), named by the
  ``kotlinx.coroutines.CoroutineName`` element of its ``context`` (a ``kotlin.coroutines.CombinedContext`` list:
  ``left``, ``element``), or a completion of the app's own (a ``Continuation`` it implemented).
"""

from __future__ import annotations

import dataclasses
import re

from ...protocol.commands.reftypes import FieldInfo
from ...protocol.constants import ACC_STATIC
from ...protocol.types import FieldId, ObjectId, ReferenceTypeId
from ...protocol.values import Value
from ..classes.debug_metadata import masked_label
from ..model import CoroutineInfo
from .objects import ClassInfo, Layouts
from .values import Values, stale_on_collected

__all__ = ["ContinuationState", "read_continuation", "read_end"]

BASE_CONTINUATION = "kotlin.coroutines.jvm.internal.BaseContinuationImpl"
SCOPE_COROUTINE = "kotlinx.coroutines.internal.ScopeCoroutine"
ABSTRACT_COROUTINE = "kotlinx.coroutines.AbstractCoroutine"
COMBINED_CONTEXT = "kotlin.coroutines.CombinedContext"
COROUTINE_NAME = "kotlinx.coroutines.CoroutineName"
MAX_CONTEXT_ELEMENTS = 32  # a context is a handful of elements; a longer list is cut, never followed forever
#: A spilled variable's field: the JVM type letter of what it holds, ``$``, its index (the compiler's naming).
SPILLED_FIELD = re.compile(r"[LIJFDZBCS]\$\d+")


@dataclasses.dataclass(frozen=True, slots=True)
class ContinuationState:
    """A continuation as its fields say: ``label`` (masked), ``completion`` (``None`` when null), and its
    spilled fields' values by field name (all of them: which are live is the metadata's to say)."""

    handle: str
    value: Value
    type_id: ReferenceTypeId
    class_name: str
    base_type: ReferenceTypeId
    label: int
    completion: Value | None
    spilled: dict[str, tuple[FieldInfo, Value]]


def is_continuation(chain: tuple[ClassInfo, ...]) -> bool:
    return any(info.name == BASE_CONTINUATION for info in chain)


async def read_continuation(values: Values, layouts: Layouts, value: Value) -> ContinuationState | None:
    """The continuation's state, or ``None`` when the object is not a continuation.

    Raises:
        StaleReference: the object was collected.
    """
    handle = values.handle(value)
    type_id = await values.type_id(handle)
    chain = await layouts.chain(type_id)
    base = next((info for info in chain if info.name == BASE_CONTINUATION), None)
    if base is None:
        return None
    label_field = Layouts.find(chain, "label")
    completion_field = Layouts.find(chain, "completion", BASE_CONTINUATION)
    spilled = [f for f in chain[0].fields if not f.mod_bits & ACC_STATIC and SPILLED_FIELD.fullmatch(f.name)]
    asked = [f for f in (label_field, completion_field) if f is not None] + spilled
    read = await _fields(values, handle, asked)
    label = masked_label(int(read[label_field.field_id].value)) if label_field is not None else 0  # type: ignore[arg-type]
    completion = read.get(completion_field.field_id) if completion_field is not None else None
    return ContinuationState(handle, value, type_id, chain[0].name, base.type_id, label,
                             None if completion is None or completion.is_null else completion,
                             {f.name: (f, read[f.field_id]) for f in spilled})


async def read_end(values: Values, layouts: Layouts, value: Value) -> tuple[CoroutineInfo | None, Value | None]:
    """A non-continuation of the chain: a scope answers ``(None, its uCont)`` (the chain goes on there); the
    rest answer what they are and ``None``: the coroutine, named by its ``CoroutineName`` when it has one.

    Raises:
        StaleReference: an object was collected.
    """
    handle = values.handle(value)
    chain = await layouts.chain(await values.type_id(handle))
    names = {info.name for info in chain}
    if SCOPE_COROUTINE in names:
        field = Layouts.find(chain, "uCont", SCOPE_COROUTINE)
        if field is not None:
            inner = (await _fields(values, handle, [field]))[field.field_id]
            if not inner.is_null:
                return None, inner
    name = None
    if ABSTRACT_COROUTINE in names:
        field = Layouts.find(chain, "context", ABSTRACT_COROUTINE)
        if field is not None:
            name = await _coroutine_name(values, layouts, (await _fields(values, handle, [field]))[field.field_id])
    return CoroutineInfo(chain[0].name, handle, name), None


async def _coroutine_name(values: Values, layouts: Layouts, context: Value) -> str | None:
    """The ``name`` of the context's ``CoroutineName`` element: a ``CombinedContext`` is walked by its
    ``left`` links (its ``element`` is one element; the last ``left`` is an element itself)."""
    for _ in range(MAX_CONTEXT_ELEMENTS):
        if context.is_null:
            return None
        handle = values.handle(context)
        chain = await layouts.chain(await values.type_id(handle))
        if chain[0].name == COMBINED_CONTEXT:
            left, element = Layouts.find(chain, "left"), Layouts.find(chain, "element")
            if left is None or element is None:
                return None
            read = await _fields(values, handle, [left, element])
            found = await _name_of(values, layouts, read[element.field_id])
            if found is not None:
                return found
            context = read[left.field_id]
            continue
        return await _name_of(values, layouts, context)
    return None


async def _name_of(values: Values, layouts: Layouts, element: Value) -> str | None:
    if element.is_null:
        return None
    handle = values.handle(element)
    chain = await layouts.chain(await values.type_id(handle))
    if chain[0].name != COROUTINE_NAME:
        return None
    field = Layouts.find(chain, "name", COROUTINE_NAME)
    if field is None:
        return None
    text = (await _fields(values, handle, [field]))[field.field_id]
    if text.is_null:
        return None
    (summary,) = await values.summarize([text])
    return summary.value


async def _fields(values: Values, handle: str, fields: list[FieldInfo]) -> dict[int, Value]:
    """Instance fields of one object, in one ``ObjectReference.GetValues`` (9,2), by field ID."""
    if not fields:
        return {}
    wire, _ = values.resolve(handle)
    with stale_on_collected(handle):
        read = await values.vm.object_reference.get_values(ObjectId(wire), [FieldId(f.field_id) for f in fields])
    return {int(f.field_id): v for f, v in zip(fields, read, strict=True)}

"""Setting a value in a stopped VM: a local, a field (instance or static) or an array element.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.12 (``set_debugger_value``); the engine
allows it only on a session made with mutation on (the server's ``--allow-mutation``).

The new value is text: a literal of the expression grammar (docs/design.md §3.8: ``100``, ``-1L``, ``2.5f``, ``'c'``,
``true``, ``"text"``, ``null``) or an ``object_id`` of this session. It is checked against the declared
type before anything is sent, as Java's assignment would:

- a primitive takes a literal of its kind, range-checked (``300`` into a ``byte`` is refused, as is ``2.5``
  into an ``int`` or ``true`` into a ``long``); an integral literal (or a ``char``) widens into any numeric
  type where it fits, a decimal one only into ``float`` (finite there) or ``double``. No boxing or unboxing:
  an ``Integer`` takes an ``object_id`` (or ``null``), never ``5``;
- a reference takes ``null``, a string (made with ``VirtualMachine.CreateString`` 1,11, kept from the
  collector until it is stored: ``ObjectReference.DisableCollection`` 9,7), or an object whose runtime type
  is assignable to the declared one (its superclasses and interfaces walked: :mod:`.supertypes`; an array
  to its own type or ``Object``/``Cloneable``/``Serializable``).

Then one command writes it: ``StackFrame.SetValues`` (16,2), ``ObjectReference.SetValues`` (9,3),
``ClassType.SetValues`` (3,2) or ``ArrayReference.SetValues`` (13,3); the value is read back and answered
as a summary. Nothing here logs a value.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Awaitable, Callable

from ...protocol.commands.reftypes import FieldValue
from ...protocol.commands.threads import SlotRequest, SlotValue
from ...protocol.constants import ACC_STATIC, Tag
from ...protocol.types import FieldId, FrameId, ObjectId, ReferenceTypeId, ThreadId
from ...protocol.values import Value
from ..errors import InvalidArgument, NotFound
from ..names import binary_name_of, type_name
from .expressions import ExpressionSyntaxError, parse_expression
from .expressions.context import ARRAY_SUPERTYPES
from .expressions.parser import Literal
from .frames import FrameRef, live_slot
from .objects import Layouts, as_values
from .stop_cache import current_cache
from .supertypes import supertype_names
from .values import Summary, Values

__all__ = ["Place", "find_element", "find_field", "find_in_frame", "write"]

_RANGES = {"B": (-(1 << 7), (1 << 7) - 1), "S": (-(1 << 15), (1 << 15) - 1), "C": (0, 0xFFFF),
           "I": (-(1 << 31), (1 << 31) - 1), "J": (-(1 << 63), (1 << 63) - 1)}
_FLOAT_MAX = 3.4028234663852886e38


@dataclasses.dataclass(frozen=True, slots=True)
class Place:
    """Where a value goes: what it is called, its declared JNI type, and how to write and read it back."""

    what: str  # "local count", "field Account.balance", "element 3 of int[]"
    signature: str
    set: Callable[[Value], Awaitable[None]]
    get: Callable[[], Awaitable[Value]]


async def find_in_frame(values: Values, layouts: Layouts, ref: FrameRef, name: str) -> Place:
    """A live local of the frame named ``name``; else a field of its ``this``; else a static of its class.

    Raises:
        InvalidArgument: nothing of that name here.
    """
    vm, symbols = values.vm, values.symbols
    location = ref.location
    table = await symbols.variables.get(location.class_id, location.method_id)
    slot = live_slot(table, location.index, name) if table is not None else None
    if slot is not None:
        thread, frame, number, signature = ThreadId(ref.thread), FrameId(ref.frame), slot.slot, slot.signature

        async def set_local(value: Value) -> None:
            await vm.stack_frame.set_values(thread, frame, [SlotValue(number, value)])

        async def get_local() -> Value:
            (value,) = await vm.stack_frame.get_values(thread, frame, [SlotRequest(number, ord(signature[0]))])
            return value

        return Place(f"local {name}", signature, set_local, get_local)
    this = await vm.stack_frame.this_object(ThreadId(ref.thread), FrameId(ref.frame))
    if not this.is_null:
        try:
            return await find_field(values, layouts, values.handle(this), name)
        except InvalidArgument:
            pass
    found = await _declared(values, location.class_id, name, static_only=True)
    if found is None:
        raise InvalidArgument(f"{name!r} is not a live local of this frame, a field of its this or a static field "
                              "of its class (Debugger.locals() lists the locals)")
    return _field_place(values, None, *found)


async def find_field(values: Values, layouts: Layouts, object_id: str, name: str) -> Place:
    """The field ``name`` of an object (an instance field of its class or a superclass, or a static one).

    Raises:
        NotFound, StaleReference: not an object of this session, or collected.
        InvalidArgument: an array (use ``index``), or no such field.
    """
    wire, tag = values.resolve(object_id)
    if tag == Tag.ARRAY:
        raise InvalidArgument(f"{object_id} is an array: give index (an element) instead of name")
    type_id = await values.type_id(object_id)
    for info in await layouts.chain(type_id):
        for field in info.fields:
            if field.name == name:
                static = bool(field.mod_bits & ACC_STATIC)
                return _field_place(values, None if static else wire, info.type_id, field.field_id, field.signature,
                                    f"{info.name}.{name}")
    raise InvalidArgument(f"{object_id} ({binary_name_of(await values.symbols.signatures.get(type_id))}) has no field "
                          f"{name!r}")


async def find_element(values: Values, object_id: str, index: int) -> Place:
    """Element ``index`` of an array of this session.

    Raises:
        NotFound, StaleReference: not an object of this session, or collected.
        InvalidArgument: not an array, or the index is out of range.
    """
    wire, tag = values.resolve(object_id)
    if tag != Tag.ARRAY:
        raise InvalidArgument(f"{object_id} is not an array: give name (a field) instead of index")
    if not isinstance(index, int) or isinstance(index, bool):
        raise InvalidArgument(f"index must be an integer, got {index!r}")
    length = await values.array_length(object_id)
    if not 0 <= index < length:
        raise InvalidArgument(f"index {index} is out of range: the array has {length} elements")
    signature = (await values.symbols.signatures.get(await values.type_id(object_id)))[1:]
    vm = values.vm

    async def set_element(value: Value) -> None:
        await vm.array_reference.set_values(wire, index, [value])

    async def get_element() -> Value:
        return as_values(await vm.array_reference.get_values(wire, index, 1))[0]

    return Place(f"element {index} of {type_name('[' + signature)}", signature, set_element, get_element)


async def write(values: Values, place: Place, text: str) -> Summary:
    """Check ``text`` against the place's declared type, write it, and read it back.

    Raises:
        InvalidArgument: not a literal or object ID, out of range, or not assignable; nothing was written.
        NotFound, StaleReference: an object ID not of this session, or collected.
    """
    value, made = await _value_for(values, place, text)
    try:
        await place.set(value)
    finally:
        if made is not None:
            await values.vm.object_reference.enable_collection(made)
    current_cache().forget("scan")  # a table read before may hold the old value
    (summary,) = await values.summarize([await place.get()], [place.signature])
    return summary


async def _value_for(values: Values, place: Place, text: str) -> tuple[Value, ObjectId | None]:
    if not isinstance(text, str):
        raise InvalidArgument("value must be a string: a literal (100, -1L, 2.5f, 'c', true, \"text\", null) or an "
                              "object_id")
    declared = place.signature
    shown = type_name(declared)
    stripped = text.strip()
    literal = _literal_or_handle(values, stripped)
    if declared[0] not in "L[":
        if literal is None:
            raise InvalidArgument(f"{place.what} is a {shown}: give a literal, not an object (no unboxing)")
        return _primitive(literal, declared[0], place.what), None
    if literal is not None and literal.type == "null":
        return Value(Tag.OBJECT, 0), None
    if literal is not None and literal.type != "string":
        raise InvalidArgument(f"{place.what} is a {shown}: a {literal.type} literal cannot be stored there (no "
                              "boxing: give an object_id of a boxed value, a string or null)")
    made = None
    if literal is not None:
        made = ObjectId(await values.vm.create_string(str(literal.value)))
        await values.vm.object_reference.disable_collection(made)
        value = Value(Tag.STRING, made)
    else:
        value = values.value_of(stripped)
    try:
        await _check_assignable(values, value, declared, place.what)
    except BaseException:
        if made is not None:
            await values.vm.object_reference.enable_collection(made)
        raise
    return value, made


def _literal_or_handle(values: Values, text: str) -> Literal | None:
    """The literal ``text`` is, or ``None`` when it is an object ID of this session.

    Raises:
        InvalidArgument: neither (an expression, another session's ID, or no value at all).
    """
    try:
        values.resolve(text)
        return None
    except NotFound as not_handle:
        why = str(not_handle)
    try:
        tree = parse_expression(text)
    except ExpressionSyntaxError as bad:
        raise InvalidArgument(f"value {text!r} is neither a literal (100, -1L, 2.5f, 'c', true, \"text\", null: "
                              f"{bad.reason}) nor an object ID of this session ({why})") from None
    if not isinstance(tree, Literal):
        raise InvalidArgument(f"value {text!r} is an expression; give a literal or an object_id (nothing is evaluated "
                              "when setting a value)")
    return tree


def _primitive(literal: Literal, code: str, what: str) -> Value:
    shown = type_name(code)
    kind, raw = literal.type, literal.value
    if code == "Z":
        if kind != "boolean":
            raise InvalidArgument(f"{what} is a boolean: give true or false, not a {kind} literal")
        return Value(Tag.BOOLEAN, bool(raw))
    if kind in ("boolean", "string", "null"):
        raise InvalidArgument(f"{what} is a {shown}: a {kind} literal cannot be stored there")
    number = ord(str(raw)) if kind == "char" else raw
    assert isinstance(number, (int, float))  # the parser's numeric literals
    if code in _RANGES:
        if kind in ("float", "double"):
            raise InvalidArgument(f"{what} is a {shown}: {literal.value!r} is not an integer")
        low, high = _RANGES[code]
        if not low <= int(number) <= high:
            raise InvalidArgument(f"{number} is out of range for {what}, a {shown} ({low} to {high})")
        if code == "C":
            return Value(Tag.CHAR, chr(int(number)))
        return Value(Tag(ord(code)), int(number))
    if code == "F":
        if not math.isfinite(float(number)) or abs(float(number)) > _FLOAT_MAX:
            raise InvalidArgument(f"{number} is out of range for {what}, a float")
        return Value(Tag.FLOAT, float(number))
    return Value(Tag.DOUBLE, float(number))


async def _check_assignable(values: Values, value: Value, declared: str, what: str) -> None:
    """Whether an object can be stored where ``declared`` is the type (Java's assignment, no conversions)."""
    if value.is_null:
        return
    wanted = binary_name_of(declared)
    handle = values.handle(value)
    type_id = await values.type_id(handle)
    runtime = binary_name_of(await values.symbols.signatures.get(type_id))
    if runtime == wanted:
        return
    if value.tag == Tag.ARRAY or runtime.endswith("[]"):
        fits = wanted in ARRAY_SUPERTYPES
    else:
        fits = wanted in await supertype_names(values, type_id)
    if not fits:
        raise InvalidArgument(f"{handle} is a {runtime}, which cannot be stored in {what}, a {wanted}")


async def _declared(values: Values, class_id: ReferenceTypeId, name: str, *, static_only: bool,
                    ) -> tuple[ReferenceTypeId, FieldId, str, str] | None:
    for field in await values.symbols.members.fields(class_id):
        if field.name == name and (not static_only or field.mod_bits & ACC_STATIC):
            owner = binary_name_of(await values.symbols.signatures.get(class_id))
            return class_id, field.field_id, field.signature, f"{owner}.{name}"
    return None


def _field_place(values: Values, holder: ObjectId | None, declaring: ReferenceTypeId, field_id: FieldId,
                 signature: str, name: str) -> Place:
    vm = values.vm

    async def set_field(value: Value) -> None:
        if holder is None:
            await vm.class_type.set_values(declaring, [FieldValue(field_id, value)])
        else:
            await vm.object_reference.set_values(holder, [FieldValue(field_id, value)])

    async def get_field() -> Value:
        if holder is None:
            (value,) = await vm.reference_type.get_values(declaring, [field_id])
        else:
            (value,) = await vm.object_reference.get_values(holder, [field_id])
        return value

    return Place(f"{'static ' if holder is None else ''}field {name}", signature, set_field, get_field)


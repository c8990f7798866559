"""Kotlin's expression forms in a Kotlin frame, read without running app code (docs/design.md §3.10).

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). Mixed into :class:`.evaluator.Evaluator`, whose reading
of names, fields, supertypes and strings it uses.

A frame is Kotlin when its class's source file ends in ``.kt`` (``ReferenceType.SourceFile`` 2,7, kept per
class by the session); there ``"$x"`` is a template and ``==`` is ``equals()``. What each form reads:

- ``a?.b`` is ``null`` when ``a`` is; ``a!!`` is ``a``, or an error naming the null; ``a ?: b``.
- ``x as T`` / ``x as? T``: the runtime type's superclasses and interfaces are compared with ``T`` (Kotlin's
  names mapped to the JVM's: ``Int`` is ``java.lang.Integer``, ``List`` ``java.util.List``…); ``as`` of a
  value that is not a ``T`` is an error (Kotlin throws), ``as?`` gives ``null``.
- ``x in a..b`` and ``!in``: numbers (boxes unboxed) compared with both ends; ``in`` over anything but a
  range literal would call ``contains()`` and is refused.
- Templates: each part's text as string concatenation makes it (strings, primitives, boxes, ``null``); an
  object whose ``toString()`` would have to run is refused.
- ``s.length`` of a ``String``: from its fields, never its text: OpenJDK 9+'s ``value`` byte array and
  ``coder`` (length = bytes >> coder), JDK 8's ``char[] value``; another layout reads the text.
  An array's ``size`` is its length.
- A property whose backing field is ``name$delegate``: a ``lazy``'s value once initialised (``_value`` of
  ``SynchronizedLazyImpl``, ``SafePublicationLazyImpl``, ``UnsafeLazyImpl``; ``value`` of
  ``InitializedLazyImpl``); before, or for another delegate, an error (``getValue()`` would run code).
- ``==`` on two objects: strings by their text, boxes by their value, the same object is equal to itself,
  an enum constant to no other object (``Enum.equals`` is identity); two other objects would need
  ``equals()`` and are refused (``===`` compares identity).
- ``this@Label``: the frame's ``this`` in a member of ``Label``; in a lambda or local class of ``Label``, its
  ``this$0`` when that is a ``Label``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....protocol.constants import Tag
from ....protocol.types import ReferenceTypeId
from ....protocol.values import Value
from ...errors import EvaluationFailed
from ...names import java_length
from ..inline import is_enum
from ..objects import Layouts
from ..values import Values, stale_on_collected
from . import arithmetic as num
from .context import FrameContext, Result, Text
from .parser import Binary, Cast, Expr, Field, Template
from .unboxing import unboxed

#: Kotlin's names of JVM types (kotlin.* types compile to these).
KOTLIN_TYPES = {
    "Any": "java.lang.Object", "String": "java.lang.String", "CharSequence": "java.lang.CharSequence",
    "Int": "java.lang.Integer", "Long": "java.lang.Long", "Short": "java.lang.Short", "Byte": "java.lang.Byte",
    "Char": "java.lang.Character", "Boolean": "java.lang.Boolean", "Float": "java.lang.Float",
    "Double": "java.lang.Double", "Number": "java.lang.Number", "Comparable": "java.lang.Comparable",
    "Throwable": "java.lang.Throwable", "Iterable": "java.lang.Iterable", "MutableIterable": "java.lang.Iterable",
    "Collection": "java.util.Collection", "MutableCollection": "java.util.Collection", "List": "java.util.List",
    "MutableList": "java.util.List", "Set": "java.util.Set", "MutableSet": "java.util.Set",
    "Map": "java.util.Map", "MutableMap": "java.util.Map",
}
_PRIMITIVE_TYPES = {"Int": Tag.INT, "Long": Tag.LONG, "Short": Tag.SHORT, "Byte": Tag.BYTE, "Char": Tag.CHAR,
                    "Boolean": Tag.BOOLEAN, "Float": Tag.FLOAT, "Double": Tag.DOUBLE}
#: What every primitive's box also is.
_BOX_SUPERTYPES = frozenset({"Any", "Comparable", "java.lang.Object", "java.lang.Comparable", "java.io.Serializable"})
_LAZY_VALUE = {"kotlin.SynchronizedLazyImpl": "_value", "kotlin.SafePublicationLazyImpl": "_value",
               "kotlin.UnsafeLazyImpl": "_value", "kotlin.InitializedLazyImpl": "value"}
_UNINITIALIZED = "kotlin.UNINITIALIZED_VALUE"


def jvm_type(written: str) -> str:
    """A type name as Kotlin writes it, as the JVM names it (``kotlin.Int`` and ``Int`` → ``java.lang.Integer``)."""
    bare = written.removeprefix("kotlin.collections.").removeprefix("kotlin.")
    return KOTLIN_TYPES.get(bare, written)


class KotlinForms:
    """The Kotlin part of an evaluation."""

    _values: Values
    _layouts: Layouts
    _frame: FrameContext
    _is_kotlin: bool | None

    if TYPE_CHECKING:  # provided by the Evaluator this is mixed into
        async def evaluate(self, expr: Expr) -> Result: ...
        async def _member(self, target: Value, name: str) -> Value | None: ...
        async def _text_of(self, value: Result, expr: Expr) -> str: ...
        async def _is_instance(self, operand: Value, type_name: str) -> bool: ...

    async def _kotlin(self) -> bool:
        """Whether the frame's class is Kotlin code (its source file is a ``.kt`` one)."""
        if self._is_kotlin is None:
            source = await self._values.symbols.files.name(self._frame.declaring_type)
            self._is_kotlin = source is not None and source.endswith(".kt")
        return self._is_kotlin

    async def _template(self, expr: Template) -> Text:
        if not await self._kotlin():
            return Text(expr.text)  # Java has no templates: "$x" is those two characters
        out: list[str] = []
        for part in expr.parts:
            if isinstance(part, str):
                out.append(part)
            else:
                value = await self.evaluate(part)
                out.append(await self._text_of(await unboxed(self._values, self._layouts, value), part))
        return Text("".join(out))

    async def _in_range(self, expr: Binary) -> Value:
        bounds = expr.right
        if not (isinstance(bounds, Binary) and bounds.op == ".."):
            raise EvaluationFailed(f"column {expr.column}: 'in' is read only with a range written a..b: in over a "
                                   "collection or another object would call its contains(), which is not run")
        found = [await unboxed(self._values, self._layouts, await self.evaluate(e))
                 for e in (expr.left, bounds.left, bounds.right)]
        if not all(isinstance(v, Value) and v.tag in num.NUMERIC for v in found):
            raise EvaluationFailed(f"column {expr.column}: 'in a..b' needs numbers or chars on every side")
        value, low, high = (v for v in found if isinstance(v, Value))
        return Value(Tag.BOOLEAN, num.compare("<=", low, value) and num.compare("<=", value, high))

    async def _cast(self, expr: Cast) -> Result:
        operand = await self.evaluate(expr.operand)
        written = f"{expr.type_name}{'?' if expr.nullable else ''}"
        if isinstance(operand, Value) and operand.is_null:
            if expr.nullable or expr.safe:
                return operand
            raise EvaluationFailed(f"column {expr.column}: null as {written}: null cannot be cast to a non-null "
                                   "type (Kotlin throws a NullPointerException)")
        if await self._conforms(operand, expr.type_name):
            return operand
        if expr.safe:
            return Value.null()
        raise EvaluationFailed(f"column {expr.column}: the value is not a {written} (Kotlin throws a "
                               f"ClassCastException); as? {written} gives null instead")

    async def _conforms(self, operand: Result, written: str) -> bool:
        bare = written.removeprefix("kotlin.")
        if isinstance(operand, Text):
            return jvm_type(written) in ("java.lang.String", "java.lang.CharSequence", "java.lang.Object",
                                         "java.lang.Comparable", "java.io.Serializable")
        if not operand.is_object:
            wanted = _PRIMITIVE_TYPES.get(bare)
            if wanted is not None:
                return operand.tag == wanted
            return bare in _BOX_SUPERTYPES or (bare in ("Number", "java.lang.Number")
                                               and operand.tag not in (Tag.BOOLEAN, Tag.CHAR))
        return await self._is_instance(operand, jvm_type(written))

    async def _kotlin_equal(self, left: Value, right: Value, expr: Binary) -> bool:
        """Kotlin's ``==`` of two references: ``equals()``, answered where no code needs to run."""
        if left.object_id == right.object_id:
            return True  # null == null, or the same object (equals is reflexive)
        if left.is_null or right.is_null:
            return False
        boxes = [await unboxed(self._values, self._layouts, v) for v in (left, right)]
        if all(isinstance(v, Value) and not v.is_object for v in boxes):
            first, second = boxes
            assert isinstance(first, Value) and isinstance(second, Value)
            names = [await self._values.type_name(self._values.handle(v)) for v in (left, right)]
            if names[0] != names[1]:
                return False  # Integer.equals(a Long) is false
            return first.value == second.value if first.tag == Tag.BOOLEAN else num.compare("==", first, second)
        if await self._is_enum_constant(left) or await self._is_enum_constant(right):
            return False  # Enum.equals is identity (final in java.lang.Enum)
        raise EvaluationFailed(f"column {expr.column}: == of two objects calls equals(), which is not run: "
                               "=== compares identity")

    async def _is_enum_constant(self, value: Value) -> bool:
        head = await self._layouts.head(await self._values.type_id(self._values.handle(value)))
        if is_enum(head):
            return True
        superclass = self._layouts.superclass(head.type_id)
        return superclass is not None and superclass != 0 and is_enum(
            await self._layouts.head(ReferenceTypeId(superclass)))

    async def _kotlin_property(self, target: Value, expr: Field) -> Value | None:
        """``s.length`` of a string, an array's ``size``, or a delegated property's value (see module)."""
        handle = self._values.handle(target)
        if target.tag == Tag.ARRAY and expr.name == "size":
            return Value(Tag.INT, await self._values.array_length(handle))
        if target.tag == Tag.STRING and expr.name == "length":
            return Value(Tag.INT, await self._string_length(target))
        delegate = await self._member(target, f"{expr.name}$delegate")
        if delegate is None:
            return None
        if delegate.is_null or not delegate.is_object:
            raise EvaluationFailed(f"column {expr.column}: property {expr.name!r} has no delegate object")
        kind = await self._values.type_name(self._values.handle(delegate))
        field = _LAZY_VALUE.get(kind)
        found = await self._member(delegate, field) if field is not None else None
        if found is None:
            raise EvaluationFailed(f"column {expr.column}: property {expr.name!r} is delegated to a {kind}: its "
                                   "value comes from getValue(), which is not run")
        if found.is_object and not found.is_null and (
                await self._values.type_name(self._values.handle(found))) == _UNINITIALIZED:
            raise EvaluationFailed(f"column {expr.column}: the lazy property {expr.name!r} is not initialised yet "
                                   "(reading it would run its initialiser)")
        return found

    async def _string_length(self, target: Value) -> int:
        value = await self._member(target, "value")
        if value is not None and value.tag == Tag.ARRAY and not value.is_null:
            handle = self._values.handle(value)
            signature = await self._values.symbols.signatures.get(await self._values.type_id(handle))
            length = await self._values.array_length(handle)
            if signature == "[C":
                return length
            coder = await self._member(target, "coder") if signature == "[B" else None
            if coder is not None and coder.tag == Tag.BYTE:
                return length >> int(coder.value)  # type: ignore[arg-type]
        handle = self._values.handle(target)
        with stale_on_collected(handle):
            text = await self._values.vm.string_reference.value(target.object_id)
        return java_length(text)


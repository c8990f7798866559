"""Evaluate a parsed expression (docs/design.md §3.8) in a stopped frame, reading the VM and never running app code.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.8.

Names: a local (by the name ``get_debugger_locals`` shows, read through the engine's locals), then a
field of ``this`` (instance fields through the superclass chain, then statics), then a static field of
the frame's class, then a class: ``com.x.Foo.BAR`` by its binary name (``VirtualMachine.ClassesBySignature``
1,2), ``Foo.BAR`` by a loaded class's simple name when exactly one loaded class has it
(``VirtualMachine.AllClasses`` 1,3, once per evaluation). Fields: ``ObjectReference.GetValues`` (9,2)
and ``ReferenceType.GetValues`` (2,6) with the class chains of :class:`..objects.Layouts`, each hop asked
ahead from the declared type of the value it reads (:mod:`.hops`). Arrays:
``ArrayReference.Length`` (13,1) and ``GetValues`` (13,2) of one element. ``instanceof`` walks the
runtime type's superclasses and interfaces (``ClassType.Superclass`` 3,1, ``ReferenceType.Interfaces``
2,10) and compares names, so the named type need not be loaded.

Containers go through the ``view: "auto"`` readers of :mod:`..containers` (their fields, never their
methods): ``.size`` and ``.isEmpty`` (and ``size()``, ``isEmpty()``: :mod:`.calls`) of a list, set or map,
``list[i]`` (one element read), and ``map[key]``: on a ``HashMap``,
``LinkedHashMap`` or ``ConcurrentHashMap`` with a string, number, boolean or null key, only the bins Java's
``hashCode`` of the key's type(s) puts it in (:mod:`..hashbins`); otherwise it walks
the entries a page of :data:`MAP_PAGE` at a time in iteration order until a key matches (a string key by its text, an
enum constant by its name written as a string (``colors["RED"]`` on an ``EnumMap``), a number or boolean by the
boxed key's ``value`` field, any other object by identity); an absent key is an
error, as Java's ``get`` would answer ``null`` for it and for a null value alike. Strings are compared
and concatenated by their text; an object in a concatenation is an error (its ``toString()`` would run
app code). Method calls are refused unless the frame context allows invocation (``--allow-invoke``):
then :mod:`..invoke` chooses and runs them; an exception thrown by one ends the evaluation with the
exception as its result (``thrown``), as Java would propagate it. Kotlin's forms (``?.``, ``!!``, ``as``,
``in a..b``, templates, ``s.length``, delegated properties, ``this@label``): :mod:`.kotlin`. Collection
operations (``xs.map { it.price }``, ``filter``, ``sumOf``, ``count``, ``first``, ``any``, ``m.keys``,
``m.values``), computed here from what the readers show: :mod:`.collections`.
"""

from __future__ import annotations

import dataclasses
from contextlib import aclosing
from functools import partial
from typing import Any

from ....protocol.constants import ACC_STATIC, ErrorCode, Tag
from ....protocol.errors import CommandError
from ....protocol.types import FieldId, ReferenceTypeId
from ....protocol.values import Value
from ..._gather import gather
from ...errors import EvaluationFailed
from ...model import Local, Locals
from ...names import binary_name_of, java_length, java_prefix, java_text, type_name
from ..containers import bin_entries, read_container
from ..hashbins import number_hashes, string_hash
from ..objects import Layouts, ObjectPage, as_values
from ..strings import Text as StringText
from ..supertypes import supertypes, walk_supertypes
from ..values import MAX_STRING, Summary, Thrown, Values, stale_on_collected
from . import arithmetic as num
from .calls import Calling
from .collections import CollectionForms, Computed, makes_list
from .companions import outer_static
from .context import ARRAY_SUPERTYPES, FrameContext, Result, Text, Threw, Unknown, dotted_name
from .hops import Hops
from .kotlin import KotlinForms, jvm_type
from .parser import (
    Binary,
    Call,
    Cast,
    Expr,
    Field,
    Held,
    Index,
    InstanceOf,
    Literal,
    Name,
    NotNull,
    Operation,
    Template,
    This,
    Unary,
)
from .unboxing import operands, unboxed

_PRIMITIVE_TAGS = {"int": Tag.INT, "long": Tag.LONG, "float": Tag.FLOAT, "double": Tag.DOUBLE, "char": Tag.CHAR,
                   "byte": Tag.BYTE, "short": Tag.SHORT, "boolean": Tag.BOOLEAN}
_LITERAL_TAGS = {"int": Tag.INT, "long": Tag.LONG, "float": Tag.FLOAT, "double": Tag.DOUBLE, "char": Tag.CHAR,
                 "boolean": Tag.BOOLEAN}
_STRING = "java.lang.String"
#: The most UTF-16 units of a string an expression reads (a comparison or concatenation with a longer one is
#: refused, and says so): the most a string page shows (objects.UNIT_LIMITS).
MAX_EXPRESSION_TEXT = 65_536


def _too_long(read: StringText, expr: Expr) -> str:
    length = f"{read.length:,} characters" if read.length is not None else "too long for the VM to send"
    return (f"column {expr.column}: the string is {length}; expressions read strings of at most "
            f"{MAX_EXPRESSION_TEXT:,} (read a page of it with Debugger.object())")
#: Entries a map lookup reads per round: small pages find early keys fast; the 2 s deadline bounds the rest.
MAP_PAGE = 100


class Evaluator(Calling, KotlinForms, CollectionForms):
    """One evaluation (its class lookups are kept for its duration only: classes load and unload)."""

    def __init__(self, values: Values, layouts: Layouts, frame: FrameContext) -> None:
        self._values = values
        self._vm = values.vm
        self._layouts = layouts
        self._frame = frame
        self._locals: Locals | None = None
        self._simple_names: dict[str, list[ReferenceTypeId]] | None = None
        self._hops = Hops(values, layouts)
        self._is_kotlin: bool | None = None

    async def summary(self, expr: Expr) -> Summary | Computed:
        """The expression's value as the tools show it (with ``runtime_type``); a list a collection operation
        made (:mod:`.collections`) as a :class:`~.collections.Computed`.

        Raises:
            EvaluationFailed: the expression cannot be evaluated here (the message says why and where).
            StaleReference: an object it reads was collected.
        """
        try:
            listed = await self._listed(expr) if makes_list(expr) else None
            if listed is not None:
                return await self._computed(listed)
            result = await self.evaluate(expr)
        except Threw as threw:
            return await self._thrown(threw.exception)
        (summary,) = await self._shown([result])
        return summary

    async def _shown(self, results: list[Result]) -> list[Summary]:
        """Results as the tools show values: the VM's values summarised together, made strings as text."""
        read = await self._values.summarize([r for r in results if isinstance(r, Value) and r.tag != Tag.VOID])
        shown: list[Summary] = []
        for result in results:
            if isinstance(result, Text):
                text, length = java_prefix(result.text, MAX_STRING)
                shown.append(Summary("string", text, length > MAX_STRING, length, None, _STRING))
            elif result.tag == Tag.VOID:
                shown.append(Summary("void", None))
            else:
                shown.append(read.pop(0))
        return shown

    async def _thrown(self, exception: Value) -> Summary:
        (summary,) = await self._values.summarize([exception])
        message = await self._member(exception, "detailMessage")
        text = None
        if message is not None and message.tag == Tag.STRING and not message.is_null:
            text = (await self._values.read_text(message, MAX_STRING)).shown
        return dataclasses.replace(summary, thrown=Thrown(summary.runtime_type or "java.lang.Throwable", text))

    async def evaluate(self, expr: Expr) -> Result:
        if isinstance(expr, Literal):
            return _literal(expr)
        if isinstance(expr, This):
            this = await self._this()
            if this is None:
                raise EvaluationFailed(f"column {expr.column}: this frame has no 'this' (a static method)")
            return this
        if isinstance(expr, Name):
            return await self._name(expr)
        if isinstance(expr, Field):
            if (size := await self._computed_size(expr)) is not None:
                return size
            return await (self._map_part(expr) if makes_list(expr) else self._field(expr))
        if isinstance(expr, Held):
            assert isinstance(expr.value, Value | Text)  # .collections binds only results
            return expr.value
        if isinstance(expr, Operation):
            return await self._operation(expr)
        if isinstance(expr, Index):
            return await self._index(expr)
        if isinstance(expr, Unary):
            return await self._unary(expr)
        if isinstance(expr, Binary):
            return await self._binary(expr)
        if isinstance(expr, InstanceOf):
            return Value(Tag.BOOLEAN, await self._instance_of(expr))
        if isinstance(expr, NotNull):
            found = await self.evaluate(expr.operand)
            if isinstance(found, Value) and found.is_null:
                raise EvaluationFailed(f"column {expr.column}: !! of null (Kotlin throws a NullPointerException)")
            return found
        if isinstance(expr, Cast):
            return await self._cast(expr)
        if isinstance(expr, Template):
            return await self._template(expr)
        assert isinstance(expr, Call)
        return await self._call(expr)

    # --- names and fields --------------------------------------------------------------------------

    async def _frame_locals(self) -> Locals:
        if self._locals is None:
            self._locals = await self._frame.read_locals()
        return self._locals

    async def _this(self) -> Value | None:
        found = (await self._frame_locals()).this
        return None if found is None or found.object_id is None else self._values.value_of(found.object_id)

    async def _name(self, expr: Name) -> Result:
        frame_locals = await self._frame_locals()
        for local in frame_locals.locals:
            if local.name == expr.name:
                return self._local_value(local, expr.column)
        this = await self._this()
        if expr.name.startswith("this@"):
            return await self._labelled_this(expr, this)
        if this is not None:
            found = await self._member(this, expr.name)
            if found is not None:
                return found
        static = await self._static(self._frame.declaring_type, expr.name)
        if static is not None:
            return static
        for outer in await self._enclosing_classes():
            static = await self._static(outer, expr.name)
            if static is not None:
                return static
        why = "" if frame_locals.availability == "available" else (
            f" (the frame's locals are {frame_locals.availability}: {frame_locals.reason})")
        raise Unknown(f"column {expr.column}: unknown name {expr.name!r}: not a local, a field of this or of "
                       f"the frame's class or the classes it is nested in{why}")

    async def _enclosing_classes(self) -> list[ReferenceTypeId]:
        """The loaded classes the frame's class is nested in, innermost first (``a.Outer$Inner$Deep``:
        ``a.Outer$Inner``, ``a.Outer``): Java and Kotlin code reads their static fields by simple name, as
        ``PRICES`` in a handler nested in the class that declares it. Of several classes of one name, those of
        the frame's class loader."""
        signature = await self._values.symbols.signatures.get(self._frame.declaring_type)
        name = signature[1:-1]
        found: list[ReferenceTypeId] = []
        loader = None
        while "$" in name.rpartition("/")[2]:
            name = name.rpartition("$")[0]
            refs = await self._vm.classes_by_signature(f"L{name};")
            if len(refs) > 1:
                loader = loader if loader is not None else await self._vm.reference_type.class_loader(
                    self._frame.declaring_type)
                refs = [r for r in refs if await self._vm.reference_type.class_loader(r.type_id) == loader] or refs
            found += [ReferenceTypeId(r.type_id) for r in refs[:1]]
        return found

    async def _labelled_this(self, expr: Name, this: Value | None) -> Value:
        """``this@Label`` that is no local (an inlined receiver would be one): the frame's ``this`` when the
        label is its class's name, as in Kotlin (``this@Order`` in a member of ``Order``)."""
        label = expr.name.partition("@")[2]
        own = binary_name_of(await self._values.symbols.signatures.get(self._frame.declaring_type)).rpartition(".")[2]
        if this is not None and own == label:
            return this
        if this is not None and own.startswith(label + "$"):
            # A lambda or local class of Label: kotlinc keeps the instance it was made in as this$0.
            outer = await self._member(this, "this$0")
            if outer is not None and outer.tag == Tag.OBJECT and not outer.is_null:
                outer_name = await self._values.type_name(self._values.handle(outer))
                if outer_name.rpartition(".")[2] == label:
                    return outer
        raise Unknown(f"column {expr.column}: {expr.name} is not a receiver in scope here: the locals list the "
                      "labelled receivers of inlined code (this@map…), and this@Class names the frame's class")

    def _local_value(self, local: Local, column: int) -> Value:
        if local.kind == "unavailable":
            raise EvaluationFailed(f"column {column}: local {local.name!r} cannot be read here ({local.reason})")
        if local.kind == "null":
            return Value.null()
        if local.object_id is not None:
            return self._values.value_of(local.object_id)
        return _parse_primitive(local.type, local.value or "")

    async def _field(self, expr: Field) -> Result:
        dotted = dotted_name(expr.target)
        try:
            target = await self.evaluate(expr.target)
        except Unknown:
            if dotted is None:
                raise
            type_id = await self._class_named(dotted)
            if type_id is None:
                raise Unknown(f"column {expr.target.column}: {dotted!r} is not a local, a field or a loaded "
                               "class") from None
            static = await self._static(type_id, expr.name)
            if static is None:
                raise EvaluationFailed(f"column {expr.column}: class {dotted} has no static field "
                                       f"{expr.name!r}") from None
            return static
        if isinstance(target, Text):
            if expr.name == "length":  # Kotlin's property; in a Java frame too, read on the host (no length() run)
                return Value(Tag.INT, java_length(target.text))
            raise EvaluationFailed(f"column {expr.column}: a string made by the expression has no fields")
        if not target.is_object:
            raise EvaluationFailed(f"column {expr.column}: .{expr.name} of a {type_name(chr(target.tag))} value: "
                                   "primitives have no fields")
        if target.is_null:
            if expr.safe:
                return target
            raise EvaluationFailed(f"column {expr.column}: null dereference: .{expr.name} of null")
        if target.tag == Tag.ARRAY and expr.name == "length":
            handle = self._values.handle(target)
            return Value(Tag.INT, await self._values.array_length(handle))
        found = await self._member(target, expr.name)
        if found is None and expr.name in ("size", "isEmpty"):
            page = await self._container(target, 0, 1)
            if page is not None and page.size is not None:
                return Value(Tag.INT, page.size) if expr.name == "size" else Value(Tag.BOOLEAN, page.size == 0)
        if found is None and expr.name == "length" and target.tag == Tag.STRING:
            # A string's length as Kotlin spells it, in a Java frame too (``it.key.length > 3`` in a collection
            # operation): read from the string's own fields, as a summary's ``length`` is; no length() is run.
            return Value(Tag.INT, await self._string_length(target))
        if found is None and await self._kotlin():
            found = await self._kotlin_property(target, expr)
        if found is None and (found := await outer_static(self._values, self._layouts, target, expr.name)) is None:
            runtime = await self._values.type_name(self._values.handle(target))
            raise EvaluationFailed(f"column {expr.column}: {runtime} has no field {expr.name!r}")
        return found

    async def _member(self, target: Value, name: str) -> Value | None:
        """The field ``name`` of an object: its instance field nearest the runtime class, else a static."""
        handle = self._values.handle(target)
        ahead = await self._hops.ahead(target, handle, name)  # see .hops: a class not seen yet costs no extra trip
        if ahead is not None:
            return ahead
        type_id = await self._values.type_id(handle)
        field = Layouts.find((await self._layouts.head(type_id),), name)  # the nearest: no superclass needed
        chain = await self._layouts.chain(type_id) if field is None else ()
        field = field or Layouts.find(chain, name)
        if field is not None:
            return await self._hops.read_field(handle, target, field)
        for info in chain:
            for candidate in info.fields:
                if candidate.name == name and candidate.mod_bits & ACC_STATIC:
                    (value,) = await self._vm.reference_type.get_values(info.type_id, [FieldId(candidate.field_id)])
                    return value
        return None

    async def _static(self, type_id: ReferenceTypeId, name: str) -> Value | None:
        for info in await self._layouts.chain(type_id):
            for candidate in info.fields:
                if candidate.name == name and candidate.mod_bits & ACC_STATIC:
                    (value,) = await self._vm.reference_type.get_values(info.type_id, [FieldId(candidate.field_id)])
                    return value
        return None

    async def _class_named(self, dotted: str) -> ReferenceTypeId | None:
        if "." in dotted:
            refs = await self._vm.classes_by_signature("L" + dotted.replace(".", "/") + ";")
            return ReferenceTypeId(refs[0].type_id) if refs else None
        if self._simple_names is None:
            # Built whole before it is kept: the expressions of one call share this evaluator and run at once
            # (:mod:`..evaluations`), and a half-built table would answer another's lookup "no such class".
            names: dict[str, list[ReferenceTypeId]] = {}
            for info in await self._vm.all_classes():
                if info.signature.startswith("L"):
                    simple = binary_name_of(info.signature).rpartition(".")[2].rpartition("$")[2]
                    names.setdefault(simple, []).append(ReferenceTypeId(info.type_id))
            self._simple_names = names
        found = self._simple_names.get(dotted, [])
        if len(found) > 1:
            raise EvaluationFailed(f"{dotted!r} names {len(found)} loaded classes: write the full class name "
                                   "(com.example.Foo.FIELD)")
        return found[0] if found else None

    # --- index -------------------------------------------------------------------------------------

    async def _index(self, expr: Index) -> Value:
        target = await self.evaluate(expr.target)
        index = await self.evaluate(expr.index)
        if isinstance(target, Text) or not target.is_object:
            raise EvaluationFailed(f"column {expr.column}: only arrays can be indexed")
        if target.is_null:
            raise EvaluationFailed(f"column {expr.column}: null dereference: indexing null")
        if target.tag != Tag.ARRAY:
            return await self._container_index(target, index, expr)
        if isinstance(index, Text) or num.unary_promoted(index.tag) != Tag.INT or index.tag not in num.INTEGRAL:
            raise EvaluationFailed(f"column {expr.index.column}: an array index must be an int")
        position = int(num.number(index))
        handle = self._values.handle(target)
        wire = target.object_id

        async def element() -> Any:  # asked with the length: an index out of range is refused by the VM
            try:
                return await self._vm.array_reference.get_values(wire, position, 1) if position >= 0 else None
            except CommandError as exc:
                if exc.code in (ErrorCode.INVALID_INDEX, ErrorCode.INVALID_LENGTH):
                    return None
                raise

        declared = self._hops.declared(target) or ""
        with stale_on_collected(handle):
            length, region, _ = await gather([partial(self._values.array_length, handle), element,
                                              partial(self._hops.prepare, declared[1:])])
        if region is None or not 0 <= position < length:
            raise EvaluationFailed(f"column {expr.column}: index {position} is out of range: the array has "
                                   f"{length} elements")
        found = as_values(region)[0]
        if declared.startswith("["):
            self._hops.note(found, declared[1:])
        return found

    async def _container(self, target: Value, offset: int, limit: int) -> ObjectPage | None:
        handle = self._values.handle(target)
        chain = await self._layouts.chain(await self._values.type_id(handle))
        page, _ = await read_container(self._values, self._layouts, handle, chain, offset, limit)
        return page if page is not None and page.view in ("list", "set", "map") else None

    async def _container_index(self, target: Value, index: Result, expr: Index) -> Value:
        found = await self._in_bins(target, index, expr)
        if found is not None and found[0]:
            return found[1]
        first = await self._container(target, 0, 1)
        runtime = await self._values.type_name(self._values.handle(target))
        if first is None or first.view == "set":
            raise EvaluationFailed(f"column {expr.column}: {runtime} is not an array, a list or a map this "
                                   "version reads (see Debugger.object() for its fields)")
        total = first.total
        if first.view == "list":
            if isinstance(index, Text) or index.tag not in num.INTEGRAL or index.tag == Tag.LONG:
                raise EvaluationFailed(f"column {expr.index.column}: a list index must be an int")
            position = int(num.number(index))
            if not 0 <= position < total:
                raise EvaluationFailed(f"column {expr.column}: index {position} is out of range: the list has "
                                       f"{total} elements")
            page = first if position == 0 else await self._container(target, position, 1)
            assert page is not None and page.elements is not None
            return self._from_summary(page.elements[0].kind, page.elements[0].object_id, expr)
        if found is not None:
            raise EvaluationFailed(f"column {expr.column}: the {runtime} has no such key (of {total} entries)")
        offset = 0
        while offset < total:
            page = await self._container(target, offset, MAP_PAGE)
            assert page is not None and page.entries is not None
            matches = await self._keys_matching([entry.key for entry in page.entries], index, expr)
            for entry, matched in zip(page.entries, matches, strict=True):
                if matched:
                    return self._from_summary(entry.value.kind, entry.value.object_id, expr)
            offset += len(page.entries)
            if not page.entries:
                break
        raise EvaluationFailed(f"column {expr.column}: the {runtime} has no such key (of {total} entries)")

    async def _in_bins(self, target: Value, index: Result, expr: Index) -> tuple[bool, Value] | None:
        """Whether the hash map has the key ``index`` and its value, from the bins a string, number or boolean
        key falls in (:func:`..containers.bin_entries`); ``None`` when that does not apply (another key, another
        map): then the entries are scanned."""
        if isinstance(index, Value) and index.is_null:
            codes = {0}
        elif self._is_string(index):
            codes = {string_hash(await self._text_of(index, expr))}
        elif isinstance(index, Value) and not index.is_object and index.tag in (*num.NUMERIC, Tag.BOOLEAN):
            codes = number_hashes(index.tag, index.value)
        else:
            return None
        handle = self._values.handle(target)
        chain = await self._layouts.chain(await self._values.type_id(handle))
        pairs = await bin_entries(self._values, self._layouts, handle, chain, codes)
        if pairs is None:
            return None
        matches = await self._keys_matching(await self._values.summarize([key for key, _ in pairs]), index, expr)
        for (_, value), matched in zip(pairs, matches, strict=True):
            if matched:
                return True, value
        return False, Value.null()

    def _from_summary(self, kind: str, object_id: str | None, expr: Expr) -> Value:
        if kind == "null" or object_id is None:
            if kind != "null":
                raise EvaluationFailed(f"column {expr.column}: the container holds a value that cannot be read")
            return Value.null()
        return self._values.value_of(object_id)

    async def _keys_matching(self, keys: list[Summary], wanted: Result, expr: Index) -> list[bool]:
        """Which of a page's keys equal ``wanted``; boxed keys' ``value`` fields are read all at once."""
        if isinstance(wanted, Value) and wanted.is_null:
            return [key.kind == "null" for key in keys]
        if self._is_string(wanted):
            text = await self._text_of(wanted, expr)
            # An enum constant by its name (an EnumMap's key, ``colors["RED"]``): an object whose inline value is a
            # name, not a box's primitive.
            return [(key.kind == "string" and await self._key_text(key, expr) == text)
                    or (key.kind == "object" and key.value == text and key.object_id is not None
                        and self._values.boxed(key.object_id) is None) for key in keys]
        if isinstance(wanted, Text):
            return [False] * len(keys)
        if wanted.is_object:
            return [key.object_id is not None and self._values.value_of(key.object_id).value == wanted.value
                    for key in keys]
        objects = [key.object_id for key in keys if key.kind == "object" and key.object_id is not None]
        # A box's primitive came with its summary (its inline value); only others are read here.
        boxed: dict[str | None, Value | None] = {h: self._values.boxed(h) for h in objects}
        unread = [h for h in objects if boxed[h] is None]
        read = await gather([partial(self._member, self._values.value_of(h), "value") for h in unread]
                            ) if unread else []
        boxed.update(zip(unread, read, strict=True))
        return [_same_primitive(boxed.get(key.object_id), wanted) for key in keys]

    async def _key_text(self, key: Summary, expr: Expr) -> str | None:
        if not key.truncated:
            return key.value  # a summary holds the whole text of a short string
        assert key.object_id is not None
        return await self._text_of(self._values.value_of(key.object_id), expr)

    # --- operators ---------------------------------------------------------------------------------

    async def _unary(self, expr: Unary) -> Value:
        operand = await unboxed(self._values, self._layouts, await self.evaluate(expr.operand))
        if expr.op == "!":
            return Value(Tag.BOOLEAN, not self._boolean(operand, expr))
        if isinstance(operand, Text) or operand.tag not in num.NUMERIC:
            raise EvaluationFailed(f"column {expr.column}: unary - needs a number")
        return num.negate(operand)

    def _boolean(self, value: Result, expr: Expr) -> bool:
        if isinstance(value, Text) or value.tag != Tag.BOOLEAN:
            raise EvaluationFailed(f"column {expr.column}: expected a boolean operand")
        return bool(value.value)

    async def _binary(self, expr: Binary) -> Value | Text:
        op = expr.op
        if op in ("&&", "||"):
            left_true = self._boolean(await unboxed(self._values, self._layouts, await self.evaluate(expr.left)), expr)
            if left_true == (op == "||"):
                return Value(Tag.BOOLEAN, left_true)
            right_true = await unboxed(self._values, self._layouts, await self.evaluate(expr.right))
            return Value(Tag.BOOLEAN, self._boolean(right_true, expr))
        if op == "in":
            return await self._in_range(expr)
        if op == "..":
            raise EvaluationFailed(f"column {expr.column}: a range a..b is read only on the right of in (x in a..b)")
        left = await self.evaluate(expr.left)
        if op == "?:":
            return left if not (isinstance(left, Value) and left.is_null) else await self.evaluate(expr.right)
        right = await self.evaluate(expr.right)
        if op in ("===", "!=="):
            return Value(Tag.BOOLEAN, await self._identical(left, right, expr) == (op == "==="))
        if op in ("==", "!=") and isinstance(left, Value) and isinstance(right, Value) and left.is_object and (
                right.is_object) and not (self._is_string(left) and self._is_string(right)) and await self._kotlin():
            return Value(Tag.BOOLEAN, await self._kotlin_equal(left, right, expr) == (op == "=="))
        left, right = await operands(self._values, self._layouts, op, left, right)
        if op == "+" and (self._is_string(left) or self._is_string(right)):
            return Text(await self._text_of(left, expr) + await self._text_of(right, expr))
        if op in ("==", "!="):
            return Value(Tag.BOOLEAN, await self._equal(left, right, expr) == (op == "=="))
        if not (isinstance(left, Value) and isinstance(right, Value)
                and left.tag in num.NUMERIC and right.tag in num.NUMERIC):
            raise EvaluationFailed(f"column {expr.column}: {op} needs numbers on both sides")
        if op in ("<", "<=", ">", ">="):
            return Value(Tag.BOOLEAN, num.compare(op, left, right))
        try:
            return num.arithmetic(op, left, right)
        except num.IntegerDivisionByZero:
            raise EvaluationFailed(f"column {expr.column}: integer division by zero") from None

    async def _bounded_text(self, value: Result) -> StringText:
        if isinstance(value, Text):
            return StringText(value.text, java_length(value.text))
        assert isinstance(value, Value)
        return await self._values.read_text(value, MAX_EXPRESSION_TEXT)

    @staticmethod
    def _is_string(value: Result) -> bool:
        return isinstance(value, Text) or (value.tag == Tag.STRING and not value.is_null)

    async def _text_of(self, value: Result, expr: Expr) -> str:
        if isinstance(value, Text):
            return value.text
        if value.is_null:
            return "null"
        if value.tag == Tag.STRING:
            # Read as far as an expression may use (docs/design.md §2.7): a 30M-char string is refused, not read.
            read = await self._values.read_text(value, MAX_EXPRESSION_TEXT)
            if read.shown is None or read.truncated:
                raise EvaluationFailed(_too_long(read, expr))
            return read.shown
        if value.is_object:
            raise EvaluationFailed(f"column {expr.column}: an object in a string concatenation would need its "
                                   "toString(), which is not run: concatenate strings and primitives only")
        return java_text(value.tag, value.value)

    async def _identical(self, left: Result, right: Result, expr: Binary) -> bool:
        if isinstance(left, Value) and isinstance(right, Value) and left.is_object and right.is_object:
            return left.object_id == right.object_id
        return await self._equal(left, right, expr)

    async def _equal(self, left: Result, right: Result, expr: Binary) -> bool:
        if self._is_string(left) and self._is_string(right):
            texts: list[StringText] = await gather([partial(self._bounded_text, left),
                                                    partial(self._bounded_text, right)])
            if any(t.shown is None or t.truncated for t in texts):
                lengths = [t.length for t in texts]
                if None not in lengths and lengths[0] != lengths[1]:
                    return False  # strings of different lengths differ, however long
                raise EvaluationFailed(_too_long(next(t for t in texts if t.shown is None or t.truncated), expr))
            return texts[0].shown == texts[1].shown
        if isinstance(left, Text) or isinstance(right, Text):
            # A made string is a new object: identical to nothing in the VM, and not null.
            return False
        if left.is_object and right.is_object:
            return left.object_id == right.object_id
        if left.tag in num.NUMERIC and right.tag in num.NUMERIC:
            return num.compare("==", left, right)
        if left.tag == Tag.BOOLEAN and right.tag == Tag.BOOLEAN:
            return left.value == right.value
        raise EvaluationFailed(f"column {expr.column}: cannot compare {_kind(left)} with {_kind(right)}")

    async def _instance_of(self, expr: InstanceOf) -> bool:
        operand = await self.evaluate(expr.operand)
        kotlin = await self._kotlin()
        nullable = kotlin and expr.type_name.endswith("?")
        written = expr.type_name.removesuffix("?") if kotlin else expr.type_name
        if isinstance(operand, Text):
            return (jvm_type(written) if kotlin else written) in (
                _STRING, "String", "Object", "java.lang.Object", "CharSequence", "java.lang.CharSequence")
        if kotlin and (operand.is_null or not operand.is_object):
            return nullable if operand.is_null else await self._conforms(operand, written)
        if not operand.is_object:
            raise EvaluationFailed(f"column {expr.column}: instanceof needs an object, not a primitive")
        if operand.is_null:
            return False
        return await self._is_instance(operand, jvm_type(written) if kotlin else written)

    async def _is_instance(self, operand: Value, written: str) -> bool:
        """Whether a non-null object is of the type ``written`` (its superclasses and interfaces compared)."""
        handle = self._values.handle(operand)
        type_id = await self._values.type_id(handle)
        runtime = binary_name_of(await self._values.symbols.signatures.get(type_id))
        if operand.tag == Tag.ARRAY or runtime.endswith("[]"):
            return _matches(runtime, written) or written in ARRAY_SUPERTYPES or (
                "." not in written and f"java.lang.{written}" in ARRAY_SUPERTYPES)
        async with aclosing(walk_supertypes(self._values, type_id)) as names:  # closed at once when found early
            async for name in names:
                if _matches(name, written):
                    return True
        return False

    async def _supertypes(self, type_id: ReferenceTypeId) -> tuple[ReferenceTypeId | None, list[ReferenceTypeId]]:
        return await supertypes(self._values, type_id)


def _same_primitive(boxed: Value | None, wanted: Value) -> bool:
    if boxed is None or boxed.is_object or (boxed.tag == Tag.BOOLEAN) != (wanted.tag == Tag.BOOLEAN):
        return False
    if boxed.tag == Tag.BOOLEAN:
        return boxed.value == wanted.value
    return num.compare("==", boxed, wanted)


def _matches(binary: str, written: str) -> bool:
    """Whether a type's binary name (``a.B$C``) is the type written in the expression (``a.B.C``, ``C``)."""
    if written in (binary, binary.replace("$", ".")):
        return True
    return "." not in written and binary.rpartition(".")[2].rpartition("$")[2] == written


def _literal(expr: Literal) -> Result:
    if expr.type == "string":
        return Text(str(expr.value))
    if expr.type == "null":
        return Value.null()
    assert expr.value is not None
    return Value(_LITERAL_TAGS[expr.type], expr.value)


def _parse_primitive(declared: str, text: str) -> Value:
    """A primitive local back from the text the locals show (Java's ``String.valueOf``, which round-trips)."""
    tag = _PRIMITIVE_TAGS.get(declared)
    if tag is None:
        raise EvaluationFailed(f"a local of type {declared} has no value to compute with")
    if tag == Tag.BOOLEAN:
        return Value(tag, text == "true")
    if tag == Tag.CHAR:
        return Value(tag, text)
    if tag in (Tag.FLOAT, Tag.DOUBLE):
        return Value(tag, float(text))
    return Value(tag, int(text))


def _kind(value: Value) -> str:
    if value.is_object:
        return "an object"
    return f"a {type_name(chr(value.tag))}"

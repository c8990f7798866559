"""Collection operations computed here from what the readers show, never by running app code.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). Mixed into :class:`.evaluator.Evaluator`, whose reading of
names, fields, containers and summaries it uses. docs/tools.md ("Collection operations").

Kotlin's spelling, in any frame: ``xs.map { it.price }``, ``xs.filter { … }``, ``xs.sumOf { … }``,
``xs.count { … }``, ``xs.first { … }``, ``xs.any { … }``, with ``it`` or one named parameter (``{ x -> … }``),
and ``m.keys``, ``m.values`` of a map. The source is an array (``ArrayReference.GetValues`` 13,2 of its first
elements) or what ``Debugger.object()`` shows as a list, set or map (:mod:`..containers`, their fields); on a
map, the lambda reads ``it.key`` and ``it.value``. The lambda's body is the expression language itself,
evaluated once per element with the element bound (:func:`bind`, an AST rewrite: no state is shared between
the elements, which are evaluated together so that their reads go out at once, :data:`BATCH` at a time).

Bounded by the container limit (:data:`LIMIT`, the most elements a page shows): over a longer collection
``map``, ``filter``, ``keys`` and ``values`` answer the result over the first :data:`LIMIT` elements and say so
in ``note``; ``count`` and ``sumOf`` are refused (a partial count or sum reads as the whole one); ``first`` and
``any`` answer when an element within the limit decides them, and are refused otherwise. ``map`` and ``filter``
make a list that has no object in the VM: it is the result shown (:class:`Computed`), or the source of another
operation or ``.size``; inside a larger expression it is refused.
"""

from __future__ import annotations

import dataclasses
from functools import partial
from typing import TYPE_CHECKING, Literal

from ....protocol.constants import Tag
from ....protocol.values import Value
from ..._gather import gather
from ...errors import EvaluationFailed
from ...model import OMIT_EMPTY
from ..objects import ELEMENT_LIMITS, Entry, Layouts, ObjectPage, as_values
from ..values import Summary, Values, previewing, stale_on_collected
from . import arithmetic as num
from .context import Result, Text, Unknown
from .parser import Expr, Field, Held, Name, Operation
from .unboxing import unboxed

#: The most elements an operation reads: the most a page of ``Debugger.object()`` shows.
LIMIT = ELEMENT_LIMITS[1]
#: Elements whose lambdas are evaluated at once (their reads pipelined).
BATCH = 100
#: The names that read a map's keys or values as a list (a class's own field of that name is read otherwise).
_MAP_PARTS = ("keys", "values")


@dataclasses.dataclass(frozen=True, slots=True)
class Pair:
    """A map's entry while a lambda reads it (``it.key``, ``it.value``)."""

    key: Value
    value: Value


Item = Result | Pair


@dataclasses.dataclass(frozen=True, slots=True)
class Listed:
    """A collection as an operation reads it: its items, and how many of the source's ``total`` were read."""

    items: tuple[Item, ...]
    read: int
    total: int

    @property
    def cut(self) -> bool:
        return self.read < self.total


@dataclasses.dataclass(frozen=True, slots=True)
class Computed:
    """A list or map an operation made here (it has no object in the VM): its ``length``, and its
    ``elements`` (a list) or ``entries`` (a map, from ``filter`` of a map), each as a local shows a value;
    ``note`` when it was computed over the first elements of a longer collection only."""

    kind: Literal["list", "map"]
    length: int
    elements: tuple[Summary, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    entries: tuple[Entry, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    note: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)


def makes_list(expr: Expr) -> bool:
    """Whether ``expr`` may make a list here (``map``, ``filter``, ``keys``, ``values``)."""
    return (isinstance(expr, Operation) and expr.op in ("map", "filter")) or (
        isinstance(expr, Field) and expr.name in _MAP_PARTS and not expr.safe)


def bind(expr: Expr, name: str, item: Item) -> Expr:
    """``expr`` with the lambda parameter ``name`` bound to ``item``: each ``name`` (and on a map's entry each
    ``name.key`` and ``name.value``) becomes a :class:`Held` value. A nested lambda that names its parameter the
    same shadows it (its body is left as it is)."""
    if isinstance(expr, Field) and isinstance(item, Pair) and isinstance(expr.target, Name) and (
            expr.target.name == name):
        if expr.name not in ("key", "value"):
            raise EvaluationFailed(f"column {expr.column}: a map entry has .key and .value, not .{expr.name}")
        return Held(item.key if expr.name == "key" else item.value, expr.column)
    if isinstance(expr, Name) and expr.name == name:
        if isinstance(item, Pair):
            raise EvaluationFailed(f"column {expr.column}: {name} is a map entry here: read {name}.key or "
                                   f"{name}.value")
        return Held(item, expr.column)
    changes: dict[str, object] = {}
    for field in dataclasses.fields(expr):
        if isinstance(expr, Operation) and field.name == "body" and expr.param == name:
            continue
        value = getattr(expr, field.name)
        if _is_expr(value):
            changes[field.name] = bind(value, name, item)
        elif isinstance(value, tuple) and any(_is_expr(part) for part in value):
            changes[field.name] = tuple(bind(part, name, item) if _is_expr(part) else part for part in value)
    return dataclasses.replace(expr, **changes) if changes else expr  # type: ignore[arg-type]


def _is_expr(value: object) -> bool:
    return dataclasses.is_dataclass(value) and hasattr(value, "column") and not isinstance(value, Held | Value)


class CollectionForms:
    """The collection operations of an evaluation."""

    _values: Values
    _layouts: Layouts

    if TYPE_CHECKING:  # provided by the Evaluator this is mixed into
        async def evaluate(self, expr: Expr) -> Result: ...
        async def _field(self, expr: Field) -> Result: ...
        async def _container(self, target: Value, offset: int, limit: int) -> ObjectPage | None: ...
        def _from_summary(self, kind: str, object_id: str | None, expr: Expr) -> Value: ...
        async def _shown(self, results: list[Result]) -> list[Summary]: ...

    async def _operation(self, expr: Operation) -> Result:
        """The value of a ``count``, ``sumOf``, ``first`` or ``any`` (a ``map`` or ``filter`` inside a larger
        expression is refused: its list has no object in the VM)."""
        if expr.op in ("map", "filter"):
            raise EvaluationFailed(f"column {expr.column}: {expr.op} {{ }} makes a list, which is shown as the "
                                   "result or read by another operation or .size, not used inside an expression")
        source = await self._source(expr.target, expr)
        results = await self._each(source, expr)
        if expr.op in ("count", "sumOf") and source.cut:
            raise EvaluationFailed(f"column {expr.column}: the collection has {source.total:,} elements; "
                                   f"{expr.op} {{ }} reads at most {LIMIT:,}, and over a part it would mislead: "
                                   "narrow it (an index, a smaller collection) or page it with Debugger.object()")
        if expr.op == "sumOf":
            return self._sum(results, expr)
        decided = [self._decided(result, expr) for result in results]
        if expr.op == "count":
            return Value(Tag.INT, sum(decided))
        found = next((i for i, yes in enumerate(decided) if yes), None)
        if found is None and source.cut:
            raise EvaluationFailed(f"column {expr.column}: no element of the first {LIMIT:,} (of {source.total:,}) "
                                   f"matches, and {expr.op} {{ }} reads no further")
        if expr.op == "any":
            return Value(Tag.BOOLEAN, found is not None)
        if found is None:
            raise EvaluationFailed(f"column {expr.column}: no element matches (Kotlin's first {{ }} throws "
                                   "NoSuchElementException)")
        item = source.items[found]
        if isinstance(item, Pair):
            raise EvaluationFailed(f"column {expr.column}: first {{ }} of a map gives an entry: ask for its "
                                   ".key or .value with map { } / filter { }")
        return item

    async def _map_part(self, expr: Field) -> Result:
        """``m.keys`` or ``m.values`` inside a larger expression: refused for a map (a list with no object),
        a field of that name otherwise."""
        try:
            target = await self.evaluate(expr.target)
        except Unknown:
            return await self._field(expr)
        if await self._map_of(target, expr) is not None:
            raise EvaluationFailed(f"column {expr.column}: .{expr.name} of a map is a list, which is shown as the "
                                   "result or read by an operation or .size, not used inside an expression")
        return await self._field(expr)

    async def _computed_size(self, expr: Field) -> Value | None:
        """``.size`` / ``.isEmpty`` of a list an operation made (``None``: ``expr`` is no such thing)."""
        if expr.name not in ("size", "isEmpty") or not makes_list(expr.target):
            return None
        listed = await self._listed(expr.target)
        if listed is None:
            return None
        if listed.cut:
            raise EvaluationFailed(f"column {expr.column}: the collection has {listed.total:,} elements and only "
                                   f"the first {LIMIT:,} are read: its .{expr.name} would mislead")
        size = len(listed.items)
        return Value(Tag.INT, size) if expr.name == "size" else Value(Tag.BOOLEAN, size == 0)

    async def _listed(self, expr: Expr) -> Listed | None:
        """The list ``expr`` makes (``map``, ``filter``, a map's ``keys`` or ``values``), or ``None`` when it makes
        none (a field named ``keys`` of an object that is no map)."""
        if isinstance(expr, Operation):
            source = await self._source(expr.target, expr)
            results = await self._each(source, expr)
            if expr.op == "map":
                return Listed(tuple(results), source.read, source.total)
            kept = tuple(item for item, result in zip(source.items, results, strict=True)
                         if self._decided(result, expr))
            return Listed(kept, source.read, source.total)
        assert isinstance(expr, Field)
        if makes_list(expr.target):  # the keys or values of a map filter { } made
            entries = await self._listed(expr.target)
        else:
            try:
                target = await self.evaluate(expr.target)
            except Unknown:
                return None
            entries = await self._map_of(target, expr)
        if entries is None or not all(isinstance(item, Pair) for item in entries.items):
            return None
        part = tuple(pair.key if expr.name == "keys" else pair.value for pair in entries.items
                     if isinstance(pair, Pair))
        return Listed(part, entries.read, entries.total)

    async def _computed(self, listed: Listed) -> Computed:
        """A made list as the tools show it."""
        note = (f"computed over the first {listed.read:,} of {listed.total:,} elements" if listed.cut else None)
        pairs = [item for item in listed.items if isinstance(item, Pair)]
        if pairs and len(pairs) == len(listed.items):
            shown = await self._shown([v for pair in pairs for v in (pair.key, pair.value)])
            entries = tuple(Entry(i, shown[2 * i], shown[2 * i + 1]) for i in range(len(pairs)))
            return Computed("map", len(pairs), entries=entries, note=note)
        if pairs:
            raise EvaluationFailed("a list of map entries mixed with other values cannot be shown")
        results = [item for item in listed.items if not isinstance(item, Pair)]
        return Computed("list", len(results), elements=tuple(await self._shown(results)), note=note)

    # --- reading the source ----------------------------------------------------------------------

    async def _source(self, target: Expr, expr: Operation) -> Listed:
        if makes_list(target):
            listed = await self._listed(target)
            if listed is not None:
                return listed
        value = await self.evaluate(target)
        if isinstance(value, Text) or not value.is_object or value.tag == Tag.STRING:
            raise EvaluationFailed(f"column {expr.column}: {expr.op} {{ }} needs an array, a list, a set or a map")
        if value.is_null:
            raise EvaluationFailed(f"column {expr.column}: null dereference: {expr.op} {{ }} of null")
        if value.tag == Tag.ARRAY:
            return await self._array(value)
        as_map = await self._map_of(value, expr)
        if as_map is not None:
            return as_map
        with previewing(0):
            page = await self._container(value, 0, LIMIT)
        if page is None or page.elements is None:
            runtime = await self._values.type_name(self._values.handle(value))
            raise EvaluationFailed(f"column {expr.column}: {runtime} is not an array or a list, set or map this "
                                   "version reads (see Debugger.object())")
        items = tuple(self._from_summary(e.kind, e.object_id, expr) for e in page.elements)
        return Listed(items, len(items), page.total)

    async def _array(self, value: Value) -> Listed:
        handle = self._values.handle(value)
        with stale_on_collected(handle):
            length = await self._values.array_length(handle)
            read = min(length, LIMIT)
            region = await self._values.vm.array_reference.get_values(value.object_id, 0, read) if read else None
        return Listed(tuple(as_values(region)) if region is not None else (), read, length)

    async def _map_of(self, value: Result, expr: Expr) -> Listed | None:
        """A map's entries as pairs, or ``None`` when ``value`` is no map this version reads."""
        if isinstance(value, Text) or not value.is_object or value.is_null or value.tag != Tag.OBJECT:
            return None
        with previewing(0):
            page = await self._container(value, 0, LIMIT)
        if page is None or page.entries is None:
            return None
        items = tuple(Pair(self._from_summary(e.key.kind, e.key.object_id, expr),
                           self._from_summary(e.value.kind, e.value.object_id, expr)) for e in page.entries)
        return Listed(items, len(items), page.total)

    # --- the lambda --------------------------------------------------------------------------------

    async def _each(self, source: Listed, expr: Operation) -> list[Result]:
        """The lambda's value for each item read, in order; unboxed unless it is ``map``'s (whose values are
        shown as they are)."""

        async def one(item: Item) -> Result:
            result = await self.evaluate(bind(expr.body, expr.param, item))
            return result if expr.op == "map" else await unboxed(self._values, self._layouts, result)

        results: list[Result] = []
        for start in range(0, len(source.items), BATCH):
            results.extend(await gather([partial(one, item) for item in source.items[start:start + BATCH]]))
        return results

    def _decided(self, result: Result, expr: Operation) -> bool:
        if isinstance(result, Value) and result.tag == Tag.BOOLEAN:
            return bool(result.value)
        raise EvaluationFailed(f"column {expr.column}: the lambda of {expr.op} {{ }} must give a boolean (a "
                               "Boolean box is read as one)")

    def _sum(self, results: list[Result], expr: Operation) -> Value:
        total = Value(Tag.INT, 0)
        for result in results:
            if isinstance(result, Text) or result.tag not in num.NUMERIC or result.tag in (Tag.CHAR, Tag.BOOLEAN):
                raise EvaluationFailed(f"column {expr.column}: the lambda of sumOf {{ }} must give a number")
            total = num.arithmetic("+", total, result)
        return total


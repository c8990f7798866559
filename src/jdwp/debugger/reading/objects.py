"""One object as the tools show it: an object's fields, an array's elements, a string's text, or a
well-known container's contents (:mod:`.containers`), a page at a time, without running app code.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.7 and §6 (200 fields, 1000
elements, 65,536 string units per call).

Fields: the runtime class and its superclasses (``ClassType.Superclass`` 3,1; ``ReferenceType.Fields``
2,4; kept per class for the session), instance fields first, most derived class first, then static
fields. One page costs one ``ObjectReference.GetValues`` (9,2) with every instance field of the page and
one ``ReferenceType.GetValues`` (2,6) per class with statics in it, all sent together; then the values'
summaries (:mod:`.values`). Arrays: one ``ArrayReference.GetValues`` (13,2) per page (chunked by
:mod:`.tables` where a VM's agent needs it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, Literal

from ...client import JdwpClient
from ...protocol.commands.reftypes import FieldInfo
from ...protocol.constants import ACC_STATIC, Tag
from ...protocol.errors import CommandError, ReplyTooLarge
from ...protocol.types import FieldId, ObjectId, ReferenceTypeId
from ...protocol.values import Value
from .._gather import gather
from ..classes.symbols import Symbols
from ..errors import InvalidArgument
from ..model import OMIT_EMPTY, OMIT_NONE, AsyncFrame, Indexed, ValueFields, bound_names, value_fields
from ..names import binary_name_of, java_length, type_name
from .strings import read_units
from .tables import read_region
from .values import Summary, Values, stale_on_collected

ObjectKind = Literal["object", "array", "string"]
View = Literal["fields", "array", "string", "list", "set", "map", "value"]

#: (default, most) items per call: fields, elements or entries, and string units (docs/design.md §6).
FIELD_LIMITS = (50, 200)
ELEMENT_LIMITS = (100, 1000)
UNIT_LIMITS = (8192, 65536)


@dataclasses.dataclass(frozen=True)
class _FieldHead:
    __slots__ = ()
    name: str
    declaring_class: str
    declared_type: str
    static: bool


@dataclasses.dataclass(frozen=True, slots=True)
class ObjectField(ValueFields, _FieldHead):
    """One field: where it is declared, its declared type, and its value's summary (:class:`ValueFields`)."""

    truncated_names: tuple[str, ...] = dataclasses.field(default=(), metadata=OMIT_EMPTY)
    note: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)

    def __post_init__(self) -> None:
        bound_names(self, "name", "declaring_class", "declared_type")


@dataclasses.dataclass(frozen=True, slots=True)
class Element(ValueFields, Indexed):
    """One element of an array or of a list or set view, at ``index`` in iteration order, and its value's
    summary (:class:`ValueFields`)."""

    note: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)


@dataclasses.dataclass(frozen=True, slots=True)
class Entry(Indexed):
    """One entry of a map view, at ``index`` in iteration order (as an :class:`Element` is)."""

    key: Summary
    value: Summary


@dataclasses.dataclass(frozen=True, slots=True)
class ObjectPage:
    """A page of one object's contents; which of the optional fields it has depends on ``view``.

    ``total`` counts what is paged (fields, elements, entries or UTF-16 units); ``next_offset`` is
    ``None`` on the last page. ``note`` says why a container is shown as fields.
    """

    object_id: str
    kind: ObjectKind
    runtime_type: str
    view: View
    offset: int
    total: int
    next_offset: int | None
    length: int | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    size: int | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    fields: tuple[ObjectField, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    elements: tuple[Element, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    entries: tuple[Entry, ...] | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    text: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    value: Summary | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    note: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)
    #: A coroutine's continuation (docs/design.md §3.11): where it suspended and its spilled variables by name.
    continuation: AsyncFrame | None = dataclasses.field(default=None, metadata=OMIT_NONE)


@dataclasses.dataclass(frozen=True, slots=True)
class ClassInfo:
    type_id: ReferenceTypeId
    name: str
    fields: tuple[FieldInfo, ...]


class Layouts:
    """Each class's superclass chain with its declared fields, asked once per class for the session."""

    def __init__(self, vm: JdwpClient, symbols: Symbols) -> None:
        self._vm = vm
        self._symbols = symbols
        self._chains: dict[int, tuple[ClassInfo, ...]] = {}
        self._heads: dict[int, tuple[ClassInfo, int]] = {}
        self._named: dict[str, ReferenceTypeId | None] = {}
        self._refused: set[int] = set()

    async def head(self, type_id: ReferenceTypeId) -> ClassInfo:
        """The class alone, with its declared fields (one round trip, once per class for the session): what a
        reader of that exact class needs, without waiting for its superclasses."""
        found = self._heads.get(type_id)
        if found is None:
            vm, symbols = self._vm, self._symbols
            signature, fields, superclass = await gather([
                partial(symbols.signatures.get, type_id), partial(vm.reference_type.fields, type_id),
                partial(vm.class_type.superclass, type_id)])
            found = self._heads[type_id] = (ClassInfo(type_id, binary_name_of(signature), tuple(fields)),
                                            superclass)
        return found[0]

    async def chain(self, type_id: ReferenceTypeId) -> tuple[ClassInfo, ...]:
        """The class and its superclasses, most derived first (one round trip per class not seen yet)."""
        found = self._chains.get(type_id)
        if found is not None:
            return found
        head = await self.head(type_id)
        superclass = self._heads[type_id][1]
        rest = await self.chain(ReferenceTypeId(superclass)) if superclass else ()
        chain = self._chains[type_id] = (head, *rest)
        return chain

    async def prefetch(self, type_ids: list[ReferenceTypeId]) -> None:
        """The layouts of classes not seen yet, all in one round trip (a class the VM refuses is not asked
        again this way: it is asked when needed, and fails there with its error)."""
        missing = [t for t in type_ids if t not in self._heads and t not in self._refused]
        if missing:
            await gather([partial(self._head_or_nothing, t) for t in missing])

    async def _head_or_nothing(self, type_id: ReferenceTypeId) -> None:
        try:
            await self.head(type_id)
        except CommandError:  # unloaded meanwhile, or not a class
            self._refused.add(type_id)

    def known_chain(self, type_id: ReferenceTypeId) -> tuple[ClassInfo, ...] | None:
        return self._chains.get(type_id)

    async def named(self, signature: str) -> ClassInfo | None:
        """A JDK class by its signature (``Ljava/util/HashMap$Node;``), alone: for the nodes of a JDK container,
        whose class the container's field types name (the boot loader holds one such class). ``None`` when
        it is not loaded."""
        await self.resolve([signature])
        type_id = self._named[signature]
        return None if type_id is None else await self.head(type_id)

    async def resolve(self, signatures: list[str]) -> None:
        """The classes of these signatures by name (``VirtualMachine.ClassesBySignature`` 1,2), those not
        asked yet in one round trip; a name that several loaders define, or none, resolves to nothing. Each
        class found is then named by its type ID without a round trip of its own."""
        missing = [s for s in dict.fromkeys(signatures) if s not in self._named]
        if missing:
            await gather([partial(self._resolve_one, s) for s in missing])

    async def _resolve_one(self, signature: str) -> None:
        refs = await self._vm.classes_by_signature(signature)
        self._named[signature] = ReferenceTypeId(refs[0].type_id) if len(refs) == 1 else None
        if len(refs) == 1:
            self._symbols.signatures.note(refs[0].type_id, signature)

    def candidate(self, signature: str) -> ReferenceTypeId | None:
        """The one class of this signature the session knows (resolved by name, or seen with it), if any:
        the likely runtime class of a value declared with that type (a caller checks the real one)."""
        if signature in self._named:
            return self._named[signature]
        seen = self._symbols.classes.ids_of(signature)
        return ReferenceTypeId(next(iter(seen))) if len(seen) == 1 else None

    def asked(self, signature: str) -> bool:
        return signature in self._named

    def superclass(self, type_id: int) -> int | None:
        """The superclass's type ID of a class whose head is known (0: none, ``java.lang.Object``'s)."""
        found = self._heads.get(type_id)
        return None if found is None else found[1]

    def known_head(self, type_id: int) -> ClassInfo | None:
        found = self._heads.get(type_id)
        return None if found is None else found[0]

    @staticmethod
    def find(chain: tuple[ClassInfo, ...], name: str, owner: str | None = None) -> FieldInfo | None:
        """The instance field ``name`` nearest the runtime class (declared in ``owner`` when given)."""
        for info in chain:
            if owner is not None and info.name != owner:
                continue
            for field in info.fields:
                if field.name == name and not field.mod_bits & ACC_STATIC:
                    return field
        return None


def page_bounds(offset: int, limit: int | None, total: int, limits: tuple[int, int], what: str) -> tuple[int, int]:
    """The page's end, after checking ``offset`` and ``limit`` against ``total`` and the kind's limits.

    Raises:
        InvalidArgument: a limit above the kind's most, or an offset past the end.
    """
    default, most = limits
    wanted = default if limit is None else limit
    if not 1 <= wanted <= most:
        raise InvalidArgument(f"limit for {what} must be between 1 and {most}, not {wanted}")
    if offset < 0 or offset > total:
        raise InvalidArgument(f"offset {offset} is past the end: there are {total} {what}")
    return offset, min(total, offset + wanted)


def next_of(end: int, total: int) -> int | None:
    return end if end < total else None


ContainerReader = Callable[["Values", "Layouts", str, "tuple[ClassInfo, ...]", int, "int | None"],
                           Awaitable["tuple[ObjectPage | None, str | None]"]]


async def read_object(values: Values, layouts: Layouts, handle: str, offset: int, limit: int | None,
                      view: str, containers: ContainerReader | None = None) -> ObjectPage:
    """A page of the object behind ``handle``; with ``view`` ``auto``, ``containers`` may show the object
    as its contents (it answers a page, or ``None`` and a note saying why the fields are shown).

    Raises:
        NotFound: not a handle of this session.
        StaleReference: the object was collected.
        InvalidArgument: a bad view, offset or limit.
    """
    if view not in ("auto", "fields"):
        raise InvalidArgument(f"view must be auto or fields, not {view!r}")
    _, tag = values.resolve(handle)
    if tag == Tag.STRING:
        return await string_page(values, handle, offset, limit)
    if tag == Tag.ARRAY:
        return await array_page(values, handle, offset, limit)
    type_id = await values.type_id(handle)
    note = None
    auto = view == "auto" and containers is not None
    # The runtime class alone first: a container of that exact class needs nothing of its superclasses (the
    # reader asks for them if it does). The whole chain comes with the fields page's first values; a subclass
    # of a container is found on it.
    head_chain = layouts.known_chain(type_id) or (await layouts.head(type_id),)
    if auto:
        assert containers is not None
        page, note = await containers(values, layouts, handle, head_chain, offset, limit)
        if page is not None:
            return page
    chain, known = await _chain_and_first_fields(values, layouts, handle, type_id, offset, limit)
    if auto and note is None and len(head_chain) == 1 and len(chain) > 1:
        assert containers is not None
        page, note = await containers(values, layouts, handle, chain, offset, limit)
        if page is not None:
            return page
    return await fields_page(values, handle, chain, offset, limit, note, known)


async def _chain_and_first_fields(values: Values, layouts: Layouts, handle: str, type_id: ReferenceTypeId,
                                  offset: int, limit: int | None
                                  ) -> tuple[tuple[ClassInfo, ...], dict[tuple[int, int], Value]]:
    """The class chain; while the superclasses' layouts are asked, the runtime class's own instance fields
    that a fields page starts with are read already (they come first): a round trip saved on a new class."""
    head = await layouts.head(type_id)
    own = [f for f in head.fields if not f.mod_bits & ACC_STATIC]
    early = own[offset:offset + (limit or FIELD_LIMITS[0])] if 0 <= offset < len(own) and (
        limit is None or 1 <= limit <= FIELD_LIMITS[1]) else []
    wire, _ = values.resolve(handle)
    if early and layouts.known_chain(type_id) is None:
        with stale_on_collected(handle):
            chain, early_values = await gather([partial(layouts.chain, type_id), partial(
                values.vm.object_reference.get_values, wire, [FieldId(f.field_id) for f in early])])
        known: dict[tuple[int, int], Value] = {(0, int(f.field_id)): v for f, v in zip(early, early_values,
                                                                                     strict=True)}
    else:
        chain, known = await layouts.chain(type_id), {}
    return chain, known


async def fields_page(values: Values, handle: str, chain: tuple[ClassInfo, ...], offset: int, limit: int | None,
                      note: str | None = None, known: dict[tuple[int, int], Value] | None = None) -> ObjectPage:
    """A page of fields; ``known`` holds instance fields' values read already (by field ID)."""
    known = known or {}
    listed = [(f, c) for c in chain for f in c.fields if not f.mod_bits & ACC_STATIC]
    listed += [(f, c) for c in chain for f in c.fields if f.mod_bits & ACC_STATIC]
    start, end = page_bounds(offset, limit, len(listed), FIELD_LIMITS, "fields")
    page = listed[start:end]
    instance = [f.field_id for f, c in page if not f.mod_bits & ACC_STATIC and (0, f.field_id) not in known]
    statics: dict[ReferenceTypeId, list[FieldId]] = {}
    for f, c in page:
        if f.mod_bits & ACC_STATIC:
            statics.setdefault(c.type_id, []).append(f.field_id)
    wire, _ = values.resolve(handle)
    vm = values.vm
    thunks: list[Callable[[], Awaitable[Any]]] = []
    if instance:
        thunks.append(partial(vm.object_reference.get_values, wire, instance))
    thunks += [partial(vm.reference_type.get_values, t, ids) for t, ids in statics.items()]
    with stale_on_collected(handle):
        replies = await gather(thunks) if thunks else []
    read: dict[tuple[int, int], Value] = dict(known)
    results = iter(replies)
    if instance:
        for field_id, value in zip(instance, next(results), strict=True):
            read[(0, field_id)] = value
    for type_id, ids in statics.items():
        for field_id, value in zip(ids, next(results), strict=True):
            read[(type_id, field_id)] = value
    ordered = [read[(c.type_id if f.mod_bits & ACC_STATIC else 0, f.field_id)] for f, c in page]
    summaries = await values.summarize(ordered, [f.signature for f, _ in page])
    fields = tuple(_field(f, c, s) for (f, c), s in zip(page, summaries, strict=True))
    return ObjectPage(handle, "object", chain[0].name, "fields", start, len(listed), next_of(end, len(listed)),
                      fields=fields, note=note)


def _field(info: FieldInfo, owner: ClassInfo, summary: Summary) -> ObjectField:
    return ObjectField(info.name, owner.name, type_name(info.signature), bool(info.mod_bits & ACC_STATIC),
                       **value_fields(summary), note=summary.note)


def element(index: int, summary: Summary) -> Element:
    return Element(index, **value_fields(summary), note=summary.note)


def as_values(region: Any) -> list[Value]:
    """An ``ArrayRegion``'s values as tagged values (primitive regions carry bare values)."""
    if region.tag in (Tag.OBJECT, Tag.STRING, Tag.ARRAY, Tag.THREAD, Tag.THREAD_GROUP, Tag.CLASS_LOADER,
                      Tag.CLASS_OBJECT):
        return list(region.values)
    return [Value(region.tag, v) for v in region.values]


async def array_page(values: Values, handle: str, offset: int, limit: int | None) -> ObjectPage:
    length, runtime = await gather([partial(values.array_length, handle), partial(values.type_name, handle)])
    start, end = page_bounds(offset, limit, length, ELEMENT_LIMITS, "elements")
    summaries: list[Summary] = []
    if end > start:
        wire, _ = values.resolve(handle)
        with stale_on_collected(handle):
            region = await read_region(values.vm, wire, start, end - start)
        summaries = await values.summarize(as_values(region))
    elements = tuple(element(start + i, s) for i, s in enumerate(summaries))
    return ObjectPage(handle, "array", runtime, "array", start, length, next_of(end, length), length=length,
                      elements=elements)


async def string_page(values: Values, handle: str, offset: int, limit: int | None) -> ObjectPage:
    """A page of a string's text: on HotSpot only the page's units of its ``value`` array
    (:meth:`.strings.Strings.backing`); elsewhere the whole text (``StringReference.Value``), or, when the VM's
    reply is over the packet cap, no text, the length where the object's fields give it, and a note."""
    wire, _ = values.resolve(handle)
    with stale_on_collected(handle):
        backing = await values.strings.backing(wire)
        if backing is not None:
            array, coder, length = backing
            start, end = page_bounds(offset, limit, length, UNIT_LIMITS, "UTF-16 units")
            part = await read_units(values.vm, array, coder, start, end) if array is not None else ""
            return slice_page(handle, "string", "java.lang.String", length, start, end, part)
        try:
            text = await values.vm.string_reference.value(ObjectId(wire))
        except ReplyTooLarge as exc:
            read = await values.strings.too_large(wire, exc)
            total = read.length or 0
            start, _ = page_bounds(offset, limit, total, UNIT_LIMITS, "UTF-16 units")
            return ObjectPage(handle, "string", "java.lang.String", "string", start, total, None,
                              length=read.length, note=read.note)
    return text_page(handle, "string", "java.lang.String", text, offset, limit)


def slice_page(handle: str, kind: ObjectKind, runtime: str, length: int, start: int, end: int, part: str,
               view: View = "string") -> ObjectPage:
    """A page of units ``[start, end)`` of a text of ``length`` units, read alone (``part``); it ends before a
    high surrogate whose pair would be cut, as :func:`text_page` does."""
    if end < length and end - start > 1 and part and 0xD800 <= ord(part[-1]) <= 0xDBFF:
        part, end = part[:-1], end - 1
    return ObjectPage(handle, kind, runtime, view, start, length, next_of(end, length), length=length, text=part)


def text_page(handle: str, kind: ObjectKind, runtime: str, text: str, offset: int, limit: int | None,
              view: View = "string") -> ObjectPage:
    """``limit`` UTF-16 units of ``text`` from ``offset``; a page never ends between a surrogate pair's
    halves unless it is one unit long, so a page's text is whole characters where the string's are."""
    length = java_length(text)
    start, end = page_bounds(offset, limit, length, UNIT_LIMITS, "UTF-16 units")
    units = text.encode("utf-16-be", "surrogatepass") if not text.isascii() else None
    if units is None:
        part = text[start:end]
    else:
        if end < length and end - start > 1 and 0xD800 <= int.from_bytes(units[2 * end - 2: 2 * end], "big") <= 0xDBFF:
            end -= 1
        part = units[2 * start: 2 * end].decode("utf-16-be", "surrogatepass")
    return ObjectPage(handle, kind, runtime, view, start, length, next_of(end, length), length=length, text=part)

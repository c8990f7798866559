"""Object handles of a session, and JDWP values summarised as the tools show them (with runtime types).

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.7.

**Handles.** An object's handle (``obj-7``, after the session's prefix) is issued the first time the
engine shows the object and kept for the session: the same wire ID always gets the same handle, so an
object keeps its ``object_id`` across stops and calls. JDWP never reuses an object ID for another object
until it is disposed, so the map needs no pinning: we never call ``ObjectReference.DisableCollection``
(docs/design.md §3.7: no pinning beyond a call). An object the VM has collected answers ``INVALID_OBJECT``
(error 20): :func:`stale_on_collected` turns that into ``StaleReference``.

**Summaries.** :meth:`Values.summarize` turns tagged values into :class:`Summary` records: primitives as
Java prints them, strings (cut at 256 UTF-16 units, with their length), arrays (with their length) and
objects, each with its runtime type. One write asks every array's length and every object's type
together (``ArrayReference.Length`` 13,1, ``ObjectReference.ReferenceType`` 9,1); a second one the
signatures of types not seen before. Strings are read as far as they are shown (:mod:`.strings`): on
HotSpot from their ``value`` and ``coder`` fields, alongside those questions; elsewhere with
``StringReference.Value`` in the first write, where a reply over the packet cap makes a summary with
``truncated``, the length where the object's fields give it, and a ``note``. What was read of a string is
kept with its handle (a string never changes). A type or
an array length, once known, is kept with the handle: neither changes during an object's life. An array
declared of a primitive type (``int[]``, ``byte[][]``) is of exactly that type (such arrays have no
subtypes), so its type is not asked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from functools import partial
from typing import Any, Literal, Protocol

from ...client import JdwpClient
from ...protocol.commands import ArrayReference, ObjectReference, StringReference
from ...protocol.constants import ErrorCode, Tag
from ...protocol.errors import CommandError, ReplyTooLarge
from ...protocol.types import ObjectId, ReferenceTypeId
from ...protocol.values import Value
from .._gather import gather, scoped
from ..classes.symbols import Symbols
from ..errors import NotFound, StaleReference
from ..ids import split_id
from ..model import KIND_SAID, OMIT_EMPTY, ValueFields
from ..names import binary_name_of, java_prefix, java_text
from .strings import Strings, Text

ValueKind = Literal["primitive", "null", "string", "object", "array", "unavailable"]
#: A summary's kind: a value's, or ``void`` for what a void method returns (evaluation results only).
SummaryKind = Literal["primitive", "null", "string", "object", "array", "unavailable", "void"]

MAX_STRING = 256
_STRING_TYPE = "java.lang.String"
_PRIMITIVE_CODES = frozenset("ZBCSIJFD")


def exact_array_type(declared: str | None) -> str | None:
    """``declared`` (a JNI signature) when it fixes the runtime type of an array declared so: an array of a
    primitive type, of any depth (``[I``, ``[[B``), has no subtypes. ``None`` otherwise: a
    ``[Ljava/lang/Object;`` may hold a ``String[]``."""
    if declared is None or not declared.startswith("["):
        return None
    element = declared.lstrip("[")
    return declared if len(element) == 1 and element in _PRIMITIVE_CODES else None


@dataclasses.dataclass(frozen=True, slots=True)
class Thrown:
    """An exception an invoked method threw: its runtime type and message (``None`` when it has none)."""

    type: str
    message: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class Summary(ValueFields):
    """A value as the tools show it (:class:`~jdwp.debugger.model.ValueFields`)."""

    kind: SummaryKind = dataclasses.field(metadata=KIND_SAID)  # keeps its place in ValueFields
    reason: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    #: Set when the value is an exception an invoked method threw (the summary is the exception object).
    thrown: Thrown | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)
    #: Why a value is shown only in part or not at all (a string the VM could only send whole, too large).
    note: str | None = dataclasses.field(default=None, metadata=OMIT_EMPTY)


#: How deep summaries made in this task are previewed (:mod:`.previews`): 0 none (conditions, logpoints and
#: other internal reads), 1 the values' own previews, 2 also the objects inside them. A context variable, so that
#: the tools' reads set it for what they gather and a breakpoint hit judged meanwhile in another task pays nothing.
PREVIEW_DEPTH: ContextVar[int] = ContextVar("preview_depth", default=0)


def previewing(depth: int) -> AbstractContextManager[int]:
    """Summaries made inside the block (and the tasks it starts) carry previews ``depth`` deep."""
    return scoped(PREVIEW_DEPTH, depth)


@dataclasses.dataclass(slots=True)
class _Known:
    """What the session knows of one object: its wire ID and tag, and (once asked) its type and length;
    ``signature``: its type's, when its declaration fixed it (:func:`exact_array_type`) and it was not asked."""

    wire: int
    tag: int
    type_id: int | None = None
    length: int | None = None
    signature: str | None = None
    #: What was read of a string: its first :data:`MAX_STRING` units and length (kept: strings never change).
    text: Text | None = None


@contextmanager
def stale_on_collected(handle: str) -> Iterator[None]:
    """Report JDWP ``INVALID_OBJECT`` from the block as the handle's object having been collected, and
    ``INVALID_CLASS`` (a class its contents need was unloaded in the middle of the read) as its being stale too."""
    try:
        yield
    except CommandError as exc:
        if exc.code == ErrorCode.INVALID_OBJECT:
            raise StaleReference(f"object {handle} no longer exists: the VM has garbage-collected it; read a "
                                 "fresh value (Debugger.locals()) for a live object") from None
        if exc.code == ErrorCode.INVALID_CLASS:
            raise StaleReference(f"object {handle} cannot be read: a class it or its contents need was unloaded "
                                 f"while it was read ({exc}); read a fresh value (Debugger.locals())") from None
        raise


class ClassLayouts(Protocol):
    """The class layouts (:class:`.objects.Layouts`): asked with the signatures of types seen for the first time,
    so that opening an object shown in a summary needs no round trip for its class."""

    async def prefetch(self, classes: list[ReferenceTypeId]) -> Any: ...


class InlineValues(Protocol):
    """The inline values of boxes and enum constants among ``(handle, runtime class)`` pairs (:mod:`.inline`):
    the text shown, and a box's primitive (``None`` for an enum constant)."""

    async def texts(self, values: Values, objects: list[tuple[str, ReferenceTypeId]],
                    ) -> dict[str, tuple[str, Value | None]]: ...


class PreviewTexts(Protocol):
    """The previews of objects and arrays (handles, depth), for summaries made while :data:`PREVIEW_DEPTH` > 0
    (:mod:`.previews`)."""

    async def texts(self, values: Values, handles: list[str], depth: int) -> dict[str, str]: ...


class Values:
    """The session's object handles and the summariser of values (one per :class:`Debugger`).

    ``layouts``, ``inline`` and ``previews`` add to the summaries what the floors that read objects know (each
    is given this :class:`Values` when asked); without them a summary is the value and its type alone.
    """

    def __init__(self, vm: JdwpClient, symbols: Symbols, prefix: str = "", *, layouts: ClassLayouts | None = None,
                 inline: InlineValues | None = None, previews: PreviewTexts | None = None) -> None:
        self.vm = vm
        self.symbols = symbols
        self._prefix = prefix
        self._by_wire: dict[int, str] = {}
        self._known: dict[str, _Known] = {}
        self.strings = Strings(vm, symbols)
        self._layouts = layouts
        self._inline_values = inline
        # Boxes and enum constants are immutable: read once per handle.
        self._inline: dict[str, tuple[str, Value | None]] = {}
        self._previews = previews

    # --- handles -----------------------------------------------------------------------------------

    def handle(self, value: Value) -> str:
        """The session's handle of a non-null object value (issued on first sight, then kept)."""
        wire = value.object_id
        found = self._by_wire.get(wire)
        if found is None:
            found = f"{self._prefix}obj-{len(self._by_wire) + 1}"
            self._by_wire[wire] = found
            self._known[found] = _Known(wire, int(value.tag))
        return found

    def resolve(self, handle: str) -> tuple[ObjectId, int]:
        """The wire ID and tag of one of this session's handles.

        Raises:
            NotFound: not a handle this session issued (another session's, or none at all).
        """
        known = self._known.get(handle)
        if known is not None:
            return ObjectId(known.wire), known.tag
        found = split_id(handle, "obj") if "." not in handle else None
        if found is not None and found[0] != self._prefix and found[0]:
            raise NotFound(f"{handle!r} is an object ID of another debugging session; use it with the session "
                           "that issued it")
        raise NotFound(f"{handle!r} is not an object ID of this session: object IDs come from locals, fields, "
                       "elements and evaluation results (object_id)")

    def value_of(self, handle: str) -> Value:
        wire, tag = self.resolve(handle)
        return Value(Tag(tag), wire)

    async def type_id(self, handle: str) -> ReferenceTypeId:
        """The object's runtime type (``ObjectReference.ReferenceType`` 9,1, asked once per object).

        Raises:
            StaleReference: the object was collected.
        """
        known = self._known[handle]
        if known.type_id is None:
            with stale_on_collected(handle):
                known.type_id = (await self.vm.object_reference.reference_type(ObjectId(known.wire))).type_id
        return ReferenceTypeId(known.type_id)

    def known_type(self, handle: str) -> ReferenceTypeId | None:
        """The object's runtime type when the session has asked it already (no round trip)."""
        type_id = self._known[handle].type_id
        return None if type_id is None else ReferenceTypeId(type_id)

    async def array_length(self, handle: str) -> int:
        known = self._known[handle]
        if known.length is None:
            with stale_on_collected(handle):
                known.length = await self.vm.array_reference.length(ObjectId(known.wire))
        return known.length

    async def type_name(self, handle: str) -> str:
        signature = self._known[handle].signature
        if signature is not None:
            return binary_name_of(signature)
        return binary_name_of(await self.symbols.signatures.get(await self.type_id(handle)))

    async def read_text(self, value: Value, units: int) -> Text:
        """A string value's first ``units`` UTF-16 units and its length, read only as far as that
        (:mod:`.strings`); ``shown`` is ``None`` (with a note) when the VM could only send it whole and it was
        too large. For expressions, conditions and logpoints, which need more of a string than a summary shows.

        Raises:
            StaleReference: the string was collected.
        """
        handle = self.handle(value)
        known = self._known[handle]
        if known.text is not None and (not known.text.truncated or known.text.shown is None or units <= MAX_STRING):
            return known.text  # what a summary read is enough
        with stale_on_collected(handle):
            return (await self.strings.texts([known.wire], units))[known.wire]

    # --- summaries ---------------------------------------------------------------------------------

    async def summarize(self, values: Sequence[Value], declared: Sequence[str | None] = ()) -> list[Summary]:
        """Each value as the tools show it, with runtime types: two round trips at most (see module).

        ``declared``: the JNI signature each value was declared with, where the caller knows it (a local's,
        a field's); an array declared of a primitive type needs no question about its type.
        """
        handles = [self.handle(v) if v.is_object and not v.is_null else None for v in values]
        texts: set[str] = set()  # the strings among the values (no type to ask)
        requests: list[tuple[Any, Any]] = []
        asked: list[tuple[str, str]] = []  # (what, handle) of each request
        seen: set[str] = set()
        unread: list[str] = []  # strings not read yet
        for index, (value, handle) in enumerate(zip(values, handles, strict=True)):
            if handle is None or handle in seen:
                continue
            seen.add(handle)
            known = self._known[handle]
            wire = ObjectId(known.wire)
            if value.tag == Tag.STRING:
                texts.add(handle)
                if known.text is None:
                    unread.append(handle)
                continue
            if known.type_id is None and known.signature is None:
                exact = exact_array_type(declared[index]) if index < len(declared) else None
                if value.tag == Tag.ARRAY and exact is not None:
                    known.signature = exact
                else:
                    requests.append((ObjectReference.ReferenceType, ObjectReference.ReferenceType.out(object=wire)))
                    asked.append(("type", handle))
            if value.tag == Tag.ARRAY and known.length is None:
                requests.append((ArrayReference.Length, ArrayReference.Length.out(array_object=wire)))
                asked.append(("length", handle))
        if unread and (await self.strings.reading_layout()).kind == "compact":
            await self._read_strings(unread, requests, asked)
        else:
            for handle in unread:
                requests.append((StringReference.Value, StringReference.Value.out(
                    string_object=ObjectId(self._known[handle].wire))))
                asked.append(("text", handle))
            if requests:
                await self._learn(asked, await self.vm.request_all(requests))
        types = [ReferenceTypeId(t) for t in dict.fromkeys(self._known[h].type_id for h in handles
                                                              if h is not None and h not in texts) if t is not None]
        classes = [ReferenceTypeId(t) for t in dict.fromkeys(
            self._known[h].type_id for h in handles if h is not None and self._known[h].tag == Tag.OBJECT)
            if t is not None]  # arrays have no layout to ask for
        depth = PREVIEW_DEPTH.get()
        thunks: list[Callable[[], Awaitable[Any]]] = [partial(self.symbols.signatures.fetch, types)]
        if self._layouts is not None and classes:
            thunks.append(partial(self._layouts.prefetch, classes))
        if depth > 0 and self._previews is not None:
            # The previews of arrays whose declaration fixed their type (an int[]: no signature to wait for)
            # are read alongside the signatures, not after them: a round trip saved on a frame's locals.
            fixed = [h for h in dict.fromkeys(handles) if h is not None and self._known[h].signature is not None
                     and self._known[h].length is not None]
            if fixed:
                thunks.append(partial(self._previews.texts, self, fixed, depth))
        await gather(thunks)
        await self._read_inline(handles)
        shown: dict[str, str] = {}
        if depth > 0 and self._previews is not None:
            wanted = [h for h in dict.fromkeys(handles) if h is not None and h not in texts]
            if wanted:
                shown = await self._previews.texts(self, wanted, depth)
        return [self._summary(v, h, shown.get(h) if h is not None else None)
                for v, h in zip(values, handles, strict=True)]

    async def _read_inline(self, handles: list[str | None]) -> None:
        """The inline values (a box's primitive, an enum's name) of objects not read yet: one batch."""
        if self._inline_values is None:
            return
        unread: dict[str, ReferenceTypeId] = {}
        for handle in handles:
            if handle is not None and handle not in self._inline and handle not in unread:
                known = self._known[handle]
                if known.tag == Tag.OBJECT and known.type_id is not None:
                    unread[handle] = ReferenceTypeId(known.type_id)
        if unread:
            self._inline.update(await self._inline_values.texts(self, list(unread.items())))

    def boxed(self, handle: str) -> Value | None:
        """The primitive a box holds, when a summary of it read it already (its inline value); else ``None``."""
        shown = self._inline.get(handle)
        return shown[1] if shown is not None else None

    async def _read_strings(self, unread: list[str], requests: list[tuple[Any, Any]],
                            asked: list[tuple[str, str]]) -> None:
        """Compact strings read from their fields (:meth:`Strings.texts`) while the other questions are asked."""
        wires = [self._known[h].wire for h in unread]

        async def others() -> None:
            if requests:
                await self._learn(asked, await self.vm.request_all(requests))

        async def strings() -> None:
            try:
                read = await self.strings.texts(wires, MAX_STRING)
            except CommandError as exc:
                with stale_on_collected(unread[0]):
                    raise exc from None
            for handle, wire in zip(unread, wires, strict=True):
                self._known[handle].text = read[wire]

        await gather([others, strings])

    async def _learn(self, asked: list[tuple[str, str]], answers: list[Any]) -> None:
        """Keep what one write of questions answered; the first error is raised (after the rest is kept)."""
        failure: tuple[str, CommandError] | None = None
        for (what, handle), answer in zip(asked, answers, strict=True):
            if what == "text" and isinstance(answer, ReplyTooLarge):
                self._known[handle].text = await self.strings.too_large(self._known[handle].wire, answer)
            elif isinstance(answer, CommandError):
                failure = failure or (handle, answer)
            elif what == "text":
                shown, length = java_prefix(answer.string_value, MAX_STRING)
                self._known[handle].text = Text(shown, length)
            elif what == "type":
                self._known[handle].type_id = answer.type_id
            else:
                self._known[handle].length = answer.array_length
        if failure is not None:
            with stale_on_collected(failure[0]):
                raise failure[1]

    def known(self, handle: str) -> tuple[int, int | None, int | None]:
        """The tag, runtime type (``None`` when not asked) and array length (``None``) the session knows of one
        of its handles, without a round trip."""
        known = self._known[handle]
        return known.tag, known.type_id, known.length

    def runtime_name(self, handle: str) -> str | None:
        """The object's runtime class name when the session knows it already (no round trip)."""
        known = self._known[handle]
        if known.type_id is not None:
            return self.symbols.signatures.name(known.type_id)
        return binary_name_of(known.signature) if known.signature is not None else None

    def inline_text(self, handle: str) -> str | None:
        """The inline value (a box's, an enum constant's) a summary read already; else ``None``."""
        shown = self._inline.get(handle)
        return shown[0] if shown is not None else None

    def _summary(self, value: Value, handle: str | None, preview: str | None = None) -> Summary:
        if value.is_null:
            return Summary("null", None)
        if handle is None:
            return Summary("primitive", java_text(value.tag, value.value))
        known = self._known[handle]
        if value.tag == Tag.STRING:
            text = known.text
            assert text is not None  # read by summarize
            return Summary("string", text.shown, text.truncated, text.length, handle, _STRING_TYPE, note=text.note)
        runtime = self.runtime_name(handle)
        if value.tag == Tag.ARRAY:
            return Summary("array", None, False, known.length, handle, runtime, preview=preview)
        shown = self._inline.get(handle)
        return Summary("object", shown[0] if shown is not None else None, False, None, handle, runtime,
                       preview=preview)


def unavailable(reason: str) -> Summary:
    return Summary("unavailable", None, reason=reason)

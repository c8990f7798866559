"""Strings read only as far as they are shown (docs/design.md §2.7): a 30M-char local costs its first units.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``).

``StringReference.Value`` (10,1) sends a whole string, whatever its length: a 30,000,000-char string is a
90 MB reply. Where the VM lets us, a string is read from its own fields instead:

- **HotSpot** (OpenJDK 9+ compact strings): ``java.lang.String`` has ``byte[] value`` and ``byte coder``
  (0 = LATIN1, 1 = UTF16, two bytes a unit in the platform's order, little-endian on the x86 and ARM VMs we
  meet). One ``ObjectReference.GetValues`` (9,2) reads both, ``ArrayReference.Length`` (13,1) gives the
  length (``length >> coder`` units), and only the shown prefix of ``value`` is read, at most
  :data:`.tables.MAX_ELEMENTS` elements per ``ArrayReference.GetValues`` (13,2): HotSpot's libjdwp makes a JNI local
  frame per reply, and a very large one takes the VM down (issue 23 measured a VM death above ~65,536
  references). A string whose whole text is shown (``length <= units``) is asked with
  ``StringReference.Value``: its reply is bounded by then, and the VM decodes it.
- **ART** keeps a string's characters inline in the object (``art/runtime/mirror/string.h``: ``count_`` and
  a ``value_``/``value_compressed_`` union, no array), so only ``StringReference.Value`` can read them. Its
  reply may exceed the packet cap: the client then fails that request alone (``ReplyTooLarge``, the body
  skipped unread) and the summary says so, with the length from the ``count`` field: with string
  compression (Android 8 on) that header keeps the compression flag in ``count_``'s lowest bit and the length
  in the bits above it, so the length is ``count >> 1``.
- Any other layout: ``StringReference.Value``, and a note without a length when it is too large.

The layout is learnt once per session on HotSpot 9+ (``java.lang.String`` by name, then its declared fields,
``ReferenceType.Fields`` 2,4: two round trips, once); another VM is read with ``StringReference.Value`` at
once, and its layout is asked only for the length of a string too large to send. A string's text never
changes, so what was read of one is kept with its handle by the caller.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, Literal

from ...client import JdwpClient
from ...protocol.commands import ArrayReference, ObjectReference, StringReference, VirtualMachine
from ...protocol.constants import ACC_STATIC, Tag
from ...protocol.errors import CommandError, ReplyTooLarge, UsageError
from ...protocol.types import FieldId, ObjectId, ReferenceTypeId
from .._gather import gather
from ..classes.symbols import Symbols
from ..names import java_prefix
from .tables import read_region

_STRING = "Ljava/lang/String;"


@dataclasses.dataclass(frozen=True, slots=True)
class StringLayout:
    """How this VM's ``java.lang.String`` can be read: ``compact`` (HotSpot's ``value``/``coder``),
    ``counted`` (ART's ``count``, characters inline) or ``opaque`` (neither: ``StringReference.Value``)."""

    kind: Literal["compact", "counted", "opaque"]
    value: FieldId | None = None
    coder: FieldId | None = None
    count: FieldId | None = None


OPAQUE = StringLayout("opaque")


@dataclasses.dataclass(frozen=True, slots=True)
class Text:
    """What was read of one string: ``shown`` (at most the units asked, cut as :func:`java_prefix` cuts),
    its ``length`` in UTF-16 units (``None`` when not even that could be read) and a ``note`` when the
    text could not be read at all."""

    shown: str | None
    length: int | None
    note: str | None = None

    @property
    def truncated(self) -> bool:
        return self.shown is None or (self.length is not None and self.length > len_units(self.shown))


def len_units(text: str) -> int:
    return java_prefix(text, 0)[1]


def too_large_note(error: ReplyTooLarge, length: int | None) -> str:
    of = f"its {length:,} characters" if length is not None else "it"
    return (f"the VM sends a string whole (StringReference.Value) and {of} took a {error.length:,}-byte reply, "
            f"over the {error.limit:,}-byte packet limit: the text was not read (the session is unaffected)")


def decode_units(region: Any, coder: int | None) -> str:
    """Array elements as text: a ``char[]`` (Android's builders), or compact bytes by ``coder``."""
    if region.tag == Tag.CHAR:
        return "".join(region.values)
    data = bytes(b & 0xFF for b in region.values)
    if coder == 1:
        return data.decode("utf-16-le", "surrogatepass")
    return data.decode("latin-1")


async def read_units(vm: JdwpClient, array: ObjectId, coder: int | None, start: int, end: int) -> str:
    """UTF-16 units ``[start, end)`` of a backing array (compact bytes with ``coder``, or chars), read in
    bounded chunks (:func:`.tables.read_region`)."""
    shift = 1 if coder == 1 else 0
    first, last = start << shift, end << shift
    if last <= first:
        return ""
    return decode_units(await read_region(vm, array, first, last - first), coder)


class Strings:
    """The session's string reader (one per :class:`~jdwp.debugger.reading.values.Values`)."""

    def __init__(self, vm: JdwpClient, symbols: Symbols) -> None:
        self.vm = vm
        self.symbols = symbols
        self._layout: StringLayout | None = None

    async def layout(self) -> StringLayout:
        """``java.lang.String``'s layout on this VM (asked once: by name, then its declared fields)."""
        if self._layout is None:
            self._layout = await self._read_layout()
        return self._layout

    async def reading_layout(self) -> StringLayout:
        """The layout to read strings by: a VM that is not HotSpot 9+ (``VirtualMachine.Version`` 1,1, read at
        attach) is read with ``StringReference.Value`` without asking (ART can only be read so); its layout is
        asked only when a reply is too large, for the length (:meth:`too_large`)."""
        if self._layout is not None:
            return self._layout
        try:
            version = self.vm.version_info
        except UsageError:
            return await self.layout()
        if version.jdwp_major < 9 or not any(name in version.vm_name for name in ("HotSpot", "OpenJDK")):
            return OPAQUE
        return await self.layout()

    async def _read_layout(self) -> StringLayout:
        known = self.symbols.classes.ids_of(_STRING)
        type_id = min(known) if known else None
        if type_id is None:
            try:
                found = await self.vm.request(VirtualMachine.ClassesBySignature, signature=_STRING)
            except CommandError:
                return OPAQUE
            if not found.classes:
                return OPAQUE
            type_id = found.classes[0].type_id
            self.symbols.signatures.note(type_id, _STRING)
        declared = await self.symbols.members.fields(ReferenceTypeId(type_id))
        fields = {f.name: f for f in declared if not f.mod_bits & ACC_STATIC}
        value, coder, count = fields.get("value"), fields.get("coder"), fields.get("count")
        if value is not None and value.signature == "[B" and coder is not None and coder.signature == "B":
            return StringLayout("compact", value=value.field_id, coder=coder.field_id)
        if value is None and count is not None and count.signature == "I":
            return StringLayout("counted", count=count.field_id)
        return OPAQUE

    async def texts(self, wires: Sequence[int], units: int) -> dict[int, Text]:
        """The first ``units`` UTF-16 units (and the length) of each string, read as the layout allows."""
        layout = await self.reading_layout()
        if not wires:
            return {}
        if layout.kind != "compact":
            return await self._whole(wires, units, layout)
        assert layout.value is not None and layout.coder is not None
        answers = await self.vm.request_all([(ObjectReference.GetValues, ObjectReference.GetValues.out(
            object=ObjectId(w), fields=[layout.value, layout.coder])) for w in wires])
        arrays: dict[int, tuple[ObjectId, int]] = {}
        texts: dict[int, Text] = {}
        for wire, answer in zip(wires, answers, strict=True):
            if isinstance(answer, CommandError):
                raise answer
            value, coder = answer.values
            if value.is_null:  # a String whose constructor has not run yet
                texts[wire] = Text("", 0)
            else:
                arrays[wire] = (ObjectId(int(value.value)), int(coder.value or 0))
        if not arrays:
            return texts
        lengths = await self.vm.request_all([(ArrayReference.Length, ArrayReference.Length.out(array_object=a))
                                             for a, _ in arrays.values()])
        short: list[int] = []
        long: list[tuple[int, ObjectId, int, int]] = []
        for (wire, (array, coder)), answer in zip(arrays.items(), lengths, strict=True):
            if isinstance(answer, CommandError):
                raise answer
            length = answer.array_length >> (1 if coder == 1 else 0)
            if length <= units:
                short.append(wire)
            else:
                long.append((wire, array, coder, length))
        thunks: list[Callable[[], Awaitable[Any]]] = []
        if short:
            thunks.append(partial(self._whole, short, units, layout))
        for _, array, coder, length in long:
            # One unit past the cut, so that java_prefix does not split a surrogate pair there.
            thunks.append(partial(read_units, self.vm, array, coder, 0, min(length, units + 1)))
        results = await gather(thunks)
        if short:
            texts.update(results[0])
            results = results[1:]
        for (wire, _, _, length), text in zip(long, results, strict=True):
            texts[wire] = Text(java_prefix(text, units)[0], length)
        return texts

    async def _whole(self, wires: Sequence[int], units: int, layout: StringLayout) -> dict[int, Text]:
        answers = await self.vm.request_all([(StringReference.Value, StringReference.Value.out(
            string_object=ObjectId(w))) for w in wires])
        texts: dict[int, Text] = {}
        for wire, answer in zip(wires, answers, strict=True):
            if isinstance(answer, ReplyTooLarge):
                texts[wire] = await self.too_large(wire, answer, layout)
            elif isinstance(answer, CommandError):
                raise answer
            else:
                shown, length = java_prefix(answer.string_value, units)
                texts[wire] = Text(shown, length)
        return texts

    async def too_large(self, wire: int, error: ReplyTooLarge, layout: StringLayout | None = None) -> Text:
        """A string whose ``StringReference.Value`` was over the cap: its length from its own fields where
        the layout has one, and a note."""
        if layout is None or layout is OPAQUE:
            layout = await self.layout()
        length: int | None = None
        if layout.kind == "counted" and layout.count is not None:
            try:
                (count,) = await self.vm.object_reference.get_values(ObjectId(wire), [layout.count])
                length = int(count.value or 0) >> 1  # ART's count_: length << 1 | compression flag
            except CommandError:
                length = None
        return Text(None, length, too_large_note(error, length))

    async def backing(self, wire: int) -> tuple[ObjectId | None, int, int] | None:
        """A compact string's backing array (``None`` for an unset one), coder and length in UTF-16 units,
        from its fields (two round trips); ``None`` when the layout is not compact."""
        layout = await self.reading_layout()
        if layout.kind != "compact":
            return None
        assert layout.value is not None and layout.coder is not None
        value, coder_value = await self.vm.object_reference.get_values(ObjectId(wire), [layout.value, layout.coder])
        if value.is_null:
            return None, 0, 0
        array, coder = value.object_id, int(coder_value.value or 0)
        return array, coder, await self.vm.array_reference.length(array) >> (1 if coder == 1 else 0)

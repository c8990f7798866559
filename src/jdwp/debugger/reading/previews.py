"""Previews: an object or array in one line of at most 120 characters, read from its fields, no app code run.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.7; bounds §2.7.

What a preview shows (every object and array summary a tool returns has one while :data:`.values.PREVIEW_DEPTH`
is above 0; strings are shown as their text already):

- a thread by its name and a throwable by its message (``Thread(name="main", …)``,
  ``IllegalStateException(detailMessage="boom", …)``);
- a plain object, a Java record or a Kotlin data class: its short class name and its first
  :data:`MAX_FIELDS` instance fields in the order a fields page lists them (most derived class first; static
  and synthetic fields — ``this$0``, javac's captured ``val$x`` — left out): ``Item(sku="voucher",
  priceCents=-500, qty=1)``; ``, …`` when there are more;
- a value shown as a text its fields make (:data:`.containers.TEXTS`): that text, ``1234.50`` for a
  ``BigDecimal``, ``2026-12-07`` for a ``LocalDate``;
- a well-known container: its size, from its size field alone (:mod:`.containers.sizes`):
  ``ArrayList(size=4)``, ``HashMap(size=3)`` (``ArrayList(…)`` when its layout is not the one read);
- a box or an enum constant: its value (``1``, ``OK``), as the summary's ``value`` has it (:mod:`.inline`);
- an array of a primitive type (one dimension): its first :data:`MAX_ELEMENTS` elements, ``[3, 5, 7, …]``. An
  array of objects has none: its elements would need a summary each (their types, their text), and its
  ``runtime_type`` and ``length`` say ``String[3]`` already.

Inside a preview a string is quoted and cut at :data:`MAX_TEXT` UTF-16 units (``…``), a box or enum constant
shows its value, an array its type and length (``int[4]``), and another object its short class name and
``(…)`` — or, at depth 2, its own preview (whose objects are short names again). Anything past 120 characters
is cut with ``…``.

Cost, for all the objects of one summary at once: their classes' chains (asked once per class for the
session, with :class:`.objects.Layouts`); one write of ``ObjectReference.GetValues`` (9,2, the preview's
fields) and ``ArrayReference.GetValues`` (13,2, the first elements), with the containers' size fields read
alongside; then the summary of what those held (its own two or three round trips, strings and boxes included).
A page of 100 objects is a few round trips more, not 100. Previews are kept for the stop (a field may change
once the app runs): :meth:`Previews.begin`.
"""

from __future__ import annotations

import dataclasses
import re
from functools import partial
from typing import Any

from ...protocol.commands import ArrayReference, ObjectReference
from ...protocol.constants import ACC_STATIC, ACC_SYNTHETIC, Tag
from ...protocol.errors import CommandError
from ...protocol.types import FieldId, ObjectId, ReferenceTypeId
from ...protocol.values import Value
from .._gather import gather
from ..errors import StaleReference
from .containers import TEXTS, read_text
from .containers.sizes import container_name, container_size
from .objects import ClassInfo, Layouts, as_values
from .stop_cache import StopCache, current_cache
from .values import Summary, Values, previewing

__all__ = ["MAX_ELEMENTS", "MAX_FIELDS", "MAX_PREVIEW", "MAX_TEXT", "Previews", "short_name"]

MAX_PREVIEW = 120
MAX_FIELDS = 5
MAX_ELEMENTS = 8
MAX_TEXT = 40
#: Classes whose fields say nothing a reader wants (``Class``'s are its reflection caches).
_OPAQUE = frozenset({"java.lang.Class"})
#: Classes (and their subclasses) shown by the one field that names them rather than by their first fields:
#: a thread by its name, a throwable by its message (``getMessage()``'s field, never run).
_NAMED_BY = {"java.lang.Thread": "name", "java.lang.Throwable": "detailMessage"}
#: An array of a primitive type, of one dimension: its elements need no summary of their own.
_PRIMITIVE_ARRAY = re.compile(r"(?:boolean|byte|char|short|int|long|float|double)\[\]")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


@dataclasses.dataclass(frozen=True, slots=True)
class _Plan:
    """How one class is previewed: ``container`` (a size to read), or its first fields (``more``: it has others)."""

    name: str
    container: bool = False
    text: bool = False
    fields: tuple[tuple[str, FieldId, str], ...] = ()
    more: bool = False


class Previews:
    """Builds the previews of a session's summaries (:class:`.values.Values` asks it). How each class is previewed
    is kept for the session; the previews themselves for the stop that reads them (its :mod:`.stop_cache`: fields
    change as the app runs)."""

    def __init__(self, layouts: Layouts) -> None:
        self._layouts = layouts
        self._plans: dict[int, _Plan | None] = {}

    async def texts(self, values: Values, handles: list[str], depth: int) -> dict[str, str]:
        """The preview of each of ``handles`` (objects and arrays a summary has just read: tag, type and length
        known), ``depth`` 1 or 2; a handle with none (collected meanwhile, a class the VM would not describe) is
        left out."""
        shown = current_cache()
        todo = [h for h in handles if not shown.has("preview", (h, depth))]
        if todo:
            await self._build(values, shown, todo, depth)
        return {h: text for h in handles if (text := shown.get("preview", (h, depth))) is not None}

    async def _build(self, values: Values, shown: StopCache, handles: list[str], depth: int) -> None:
        plain: list[tuple[str, _Plan]] = []
        arrays: list[tuple[str, int]] = []
        for handle in handles:
            tag, _type_id, length = values.known(handle)
            inline = values.inline_text(handle)
            if inline is not None:
                shown.put("preview", (handle, depth), _cut(inline))
            elif tag == Tag.ARRAY and _PRIMITIVE_ARRAY.fullmatch(values.runtime_name(handle) or ""):
                if length == 0:
                    shown.put("preview", (handle, depth), "[]")
                elif length is not None:
                    arrays.append((handle, min(length, MAX_ELEMENTS)))
        types = {h: t for h in handles if (t := values.known(h)[1]) is not None and values.known(h)[0] != Tag.ARRAY
                 and values.inline_text(h) is None}
        new = [t for t in dict.fromkeys(types.values()) if t not in self._plans]
        if new:
            await gather([partial(self._plan, ReferenceTypeId(t)) for t in new])
        for handle, type_id in types.items():
            plan = self._plans.get(type_id)
            if plan is not None:
                plain.append((handle, plan))
        read_fields = [(h, p) for h, p in plain if not p.container and not p.text and p.fields]
        sized = [(h, p) for h, p in plain if p.container]
        texted = [h for h, p in plain if p.text]
        for handle, plan in plain:
            if not plan.container and not plan.text and not plan.fields:
                shown.put("preview", (handle, depth), _cut(f"{plan.name}({'…' if plan.more else ''})"))
        requests: list[tuple[Any, Any]] = []
        for handle, plan in read_fields:
            wire, _ = values.resolve(handle)
            requests.append((ObjectReference.GetValues, ObjectReference.GetValues.out(
                object=wire, fields=[f for _, f, _ in plan.fields])))
        for handle, count in arrays:
            wire, _ = values.resolve(handle)
            requests.append((ArrayReference.GetValues, ArrayReference.GetValues.out(
                array_object=ObjectId(wire), first_index=0, length=count)))
        thunks: list[Any] = [partial(values.vm.request_all, requests)] if requests else []
        thunks += [partial(self._size, values, h) for h, _ in sized]
        thunks += [partial(self._text, values, h) for h in texted]
        answers = await gather(thunks) if thunks else []
        replies = answers[0] if requests else []
        sizes = answers[1:] if requests else answers
        texts = sizes[len(sized):]
        sizes = sizes[:len(sized)]
        for handle, text in zip(texted, texts, strict=True):
            shown.put("preview", (handle, depth), _cut(text) if text is not None else None)
        for (handle, plan), size in zip(sized, sizes, strict=True):
            shown.put("preview", (handle, depth),
                      _cut(f"{plan.name}(size={size})" if size is not None else f"{plan.name}(…)"))
        # What the fields and elements held, summarised together: one summary for the whole page's previews.
        nested: list[Value] = []
        declared: list[str | None] = []
        spans: list[tuple[int, int] | None] = []
        for reply, (_handle, plan) in zip(replies, read_fields, strict=False):
            if isinstance(reply, CommandError):
                spans.append(None)
                continue
            spans.append((len(nested), len(reply.values)))
            nested += reply.values
            declared += [signature for _, _, signature in plan.fields]
        for reply in replies[len(read_fields):]:
            if isinstance(reply, CommandError):
                spans.append(None)
                continue
            items = as_values(reply.values)
            spans.append((len(nested), len(items)))
            nested += items
            declared += [None] * len(items)
        with previewing(depth - 1):
            summaries = await values.summarize(nested, declared) if nested else []
        spans_of = iter(spans)
        for handle, plan in read_fields:
            span = next(spans_of)
            if span is None:
                continue
            start, count = span
            parts = [f"{name}={_inner(s)}" for (name, _, _), s in zip(plan.fields, summaries[start:start + count],
                                                                        strict=True)]
            shown.put("preview", (handle, depth), _joined(f"{plan.name}(", parts, plan.more, ")"))
        for handle, count in arrays:
            span = next(spans_of)
            if span is None:
                continue
            start, got = span
            length = values.known(handle)[2] or 0
            parts = [_inner(s) for s in summaries[start:start + got]]
            shown.put("preview", (handle, depth), _joined("[", parts, length > count, "]"))
        for handle in handles:  # none (collected meanwhile, a class the VM would not describe): not asked again
            shown.keep("preview", (handle, depth), None)

    async def _plan(self, type_id: ReferenceTypeId) -> None:
        """The class's plan, from its chain (asked once per class): a container, or its first fields."""
        try:
            chain = await self._layouts.chain(type_id)
        except CommandError:  # unloaded meanwhile: no preview (asked again next time)
            return
        self._plans[type_id] = plan_of(chain)

    async def _text(self, values: Values, handle: str) -> str | None:
        """The text an object of a class in :data:`.containers.TEXTS` is shown as (``1234.50``), or ``None``."""
        type_id = values.known(handle)[1]
        chain = self._layouts.known_chain(ReferenceTypeId(type_id)) if type_id is not None else None
        if not chain:
            return None
        try:
            return await read_text(values, self._layouts, handle, chain)
        except (CommandError, StaleReference):  # collected meanwhile: no preview
            return None

    async def _size(self, values: Values, handle: str) -> int | None:
        type_id = values.known(handle)[1]
        chain = self._layouts.known_chain(ReferenceTypeId(type_id)) if type_id is not None else None
        return await container_size(values, self._layouts, handle, chain) if chain else None


def plan_of(chain: tuple[ClassInfo, ...]) -> _Plan:
    """How objects of the class ``chain`` starts with are previewed."""
    name = short_name(chain[0].name)
    if any(info.name in TEXTS for info in chain):
        return _Plan(name, text=True)
    if container_name(chain) is not None:
        return _Plan(name, container=True)
    if chain[0].name in _OPAQUE:
        return _Plan(name, more=True)
    for info in chain:
        field = _NAMED_BY.get(info.name)
        found = Layouts.find((info,), field) if field is not None else None
        if found is not None:
            return _Plan(name, fields=((found.name, FieldId(found.field_id), found.signature),), more=True)
    listed = [(f.name, FieldId(f.field_id), f.signature) for info in chain for f in info.fields
              if not f.mod_bits & (ACC_STATIC | ACC_SYNTHETIC)]
    return _Plan(name, fields=tuple(listed[:MAX_FIELDS]), more=len(listed) > MAX_FIELDS)


def short_name(binary: str) -> str:
    """A class's name as a preview shows it: no package, a nested class by its own name (``Main$Item`` →
    ``Item``) unless that is a number (an anonymous class, ``Main$1``), no hidden class suffix (``/0x…``)."""
    name = binary.split("/", 1)[0].rsplit(".", 1)[-1]
    dims = ""
    while name.endswith("[]"):
        name, dims = name[:-2], dims + "[]"
    own = name.rsplit("$", 1)[-1]
    if own and not own.isdigit() and "$$" not in name:
        name = own
    return name + dims


def _inner(summary: Summary) -> str:
    """A value inside a preview."""
    if summary.kind == "null":
        return "null"
    if summary.kind == "primitive":
        return summary.value or ""
    if summary.kind == "string":
        if summary.value is None:
            return '"…"'
        text = summary.value[:MAX_TEXT]
        cut = summary.truncated or len(summary.value) > MAX_TEXT
        return '"' + "".join(_ESCAPES.get(c, c if c >= " " else f"\\u{ord(c):04x}") for c in text) + (
            '…"' if cut else '"')
    if summary.kind == "array":
        runtime = short_name(summary.runtime_type or "?[]")
        at = runtime.find("[]")
        return f"{runtime[:at]}[{summary.length}]{runtime[at + 2:]}" if at >= 0 else runtime
    if summary.kind == "object":
        if summary.value is not None:
            return summary.value
        if summary.preview is not None:
            return summary.preview
        return f"{short_name(summary.runtime_type or 'Object')}(…)"
    return "?"


def _joined(opening: str, parts: list[str], more: bool, closing: str) -> str:
    """``opening`` + parts joined by ``, `` + ``closing``, at most :data:`MAX_PREVIEW` characters: from the part
    that would pass it on, ``…`` stands for the rest (as it does for ``more`` parts not read)."""
    out = opening
    for index, part in enumerate(parts):
        piece = (", " if index else "") + part
        if len(out) + len(piece) + len(closing) + 3 > MAX_PREVIEW:  # room left for ", …"
            return _cut(out + (", …" if index else "…") + closing)
        out += piece
    return _cut(out + ((", …" if parts else "…") if more else "") + closing)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_PREVIEW else text[:MAX_PREVIEW - 1] + "…"

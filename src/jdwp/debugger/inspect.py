"""Stack and locals of a stopped thread, in as few round trips as the protocol allows.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). DESIGN.md §3.

Stack: ``ThreadReference.FrameCount`` and ``Frames`` together, then class facts and line tables of the
frames' methods together (cached): two round trips for unseen classes, one for seen ones. A frame running
inlined Kotlin code shows the inline function's source and line (``inlined``). Locals: the method's
variable table and its class's fields (cached), then ``StackFrame.GetValues`` with ``ThisObject``, then
every string's value and every array's length together: three round trips. In a lambda or local class,
the variables it captured are read from ``this`` (``ObjectReference.GetValues``, 9,2): one round more.
No field traversal beyond that, no ``toString()``, no invocation.

Kotlin's locals read as written (:mod:`.synthetic`): its inlining markers (``$i$f$…``, ``$i$a$…``) are
left out, ``x$iv`` is shown as ``x`` and ``$this$map`` as ``this@map`` unless another variable has that name.
"""

from __future__ import annotations

import dataclasses
from functools import partial
from typing import Any

from ..client import JdwpClient
from ..protocol.commands.reftypes import FieldInfo, VariableSlot
from ..protocol.commands.threads import SlotRequest
from ..protocol.constants import ErrorCode, Tag
from ..protocol.errors import CommandError
from ..protocol.types import FieldId, FrameId, Location, ObjectId, ThreadId
from ..protocol.values import Value
from ._gather import gather
from .model import ABSENT_INFORMATION, EMPTY_OR_UNAVAILABLE, NATIVE_METHOD, Frame, Local, Locals, StackPage
from .names import binary_name_of, java_prefix, java_text, type_name
from .symbols import ACC_STATIC, Symbols
from .synthetic import captured_name, is_inline_marker, source_name

MAX_FRAMES_PER_STOP = 1000
MAX_LOCALS = 100
MAX_STRING = 256


@dataclasses.dataclass(frozen=True, slots=True)
class FrameRef:
    """What a frame handle stands for, valid while its stop is current."""

    thread: ThreadId
    frame: FrameId
    location: Location


async def stack_page(vm: JdwpClient, symbols: Symbols, thread: ThreadId, offset: int, limit: int,
                     frame_handle: str, known_count: int | None = None,
                     ) -> tuple[StackPage, dict[str, FrameRef], int]:
    """One page of frames; ``frame_handle`` is a format string taking the frame index.

    ``known_count`` is the thread's frame count when an earlier page of the same stop learnt it.
    Returns the page, the new frame handles it issued, and the frame count.
    """
    if known_count is None:
        # The count and the frames go out together; "all from offset" cannot overrun the stack.
        total_frames, tail = await gather([lambda: vm.thread_reference.frame_count(thread),
                                           lambda: _frames_from(vm, thread, offset)])
    else:
        total_frames = known_count
        wanted = min(limit, min(known_count, MAX_FRAMES_PER_STOP) - offset)
        tail = await vm.thread_reference.frames(thread, offset, wanted) if wanted > 0 else []
    total = min(total_frames, MAX_FRAMES_PER_STOP)
    raw = tail[: max(0, min(limit, total - offset))]
    positions = await symbols.describe([f.location for f in raw])
    frames, handles = [], {}
    for index, (frame, position) in enumerate(zip(raw, positions, strict=True), start=offset):
        handle = frame_handle.format(index)
        handles[handle] = FrameRef(thread, frame.frame_id, frame.location)
        frames.append(Frame(handle, index, position.class_name, position.method, position.source, position.line,
                            position.code_index, position.inlined, truncated_names=position.truncated_names))
    end = offset + len(frames)
    page = StackPage(tuple(frames), total, end if end < total else None, total_frames > total)
    return page, handles, total_frames


async def _frames_from(vm: JdwpClient, thread: ThreadId, offset: int) -> list[Any]:
    try:
        return await vm.thread_reference.frames(thread, offset, -1)
    except CommandError as exc:
        if exc.code in (ErrorCode.INVALID_INDEX, ErrorCode.INVALID_LENGTH):
            return []  # offset at or past the bottom of the stack
        raise


async def frame_locals(vm: JdwpClient, symbols: Symbols, ref: FrameRef) -> Locals:
    """The variables live at the frame's code index, those ``this`` captured, and ``this`` when it has one."""
    location = ref.location
    table, _, fields = await gather([lambda: symbols.variable_table(location.class_id, location.method_id),
                                     lambda: symbols.signature(location.class_id),
                                     lambda: _fields_if_nested(symbols, location)])
    if table is None:
        this = await _this(vm, symbols, ref)
        why = NATIVE_METHOD if await symbols.is_native(location) else ABSENT_INFORMATION
        return Locals("unavailable", (), this, why)
    if not table.slots:
        this = await _this(vm, symbols, ref)
        return Locals("unknown", (), this, EMPTY_OR_UNAVAILABLE)
    live = sorted((v for v in table.slots
                   if v.name != "this" and _is_live(v, location.index) and not is_inline_marker(v.name)),
                  key=lambda v: (v.slot, v.code_index))
    names = _shown_names([v.name for v in live])
    captured = _captured(fields, set(names))
    shown = live[:MAX_LOCALS]
    shown_captured = captured[: MAX_LOCALS - len(shown)]
    slots = [SlotRequest(v.slot, ord(v.signature[0])) for v in shown]
    values, this_value = await gather([
        lambda: vm.stack_frame.get_values(ref.thread, ref.frame, slots) if slots else _nothing(),
        lambda: vm.stack_frame.this_object(ref.thread, ref.frame)])
    has_this = not this_value.is_null
    if not has_this:
        shown_captured = []
    this_id = ObjectId(int(this_value.value)) if has_this else ObjectId(0)
    details, captured_values = await gather([
        partial(_details, vm, values),
        lambda: vm.object_reference.get_values(this_id, [FieldId(f.field_id) for _, f in shown_captured])
        if shown_captured else _nothing()])
    captured_details = await _details(vm, captured_values)
    locals_ = [_local(name, type_name(v.signature), value, detail)
               for name, v, value, detail in zip(names[: len(shown)], shown, values, details, strict=True)]
    locals_ += [dataclasses.replace(_local(name, type_name(f.signature), value, detail), captured=True)
                for (name, f), value, detail in zip(shown_captured, captured_values, captured_details, strict=True)]
    this = None
    if has_this:
        this = _local("this", binary_name_of(await symbols.signature(location.class_id)), this_value, None)
    truncated = len(live) + (len(captured) if has_this else 0) > len(locals_)
    return Locals("available", tuple(locals_), this, None, truncated)


async def _fields_if_nested(symbols: Symbols, location: Location) -> list[FieldInfo]:
    """The fields of the frame's class when it may hold captured variables: only a nested class
    (``Foo$1``, ``Foo$main$1``) can; a top-level class has nothing to capture."""
    signature = symbols.cached_signature(location.class_id)
    if signature is not None and "$" not in signature.rpartition("/")[2]:
        return []
    return await symbols.fields(location.class_id)


def _shown_names(raw: list[str]) -> list[str]:
    """Kotlin's names as written (``value$iv`` → ``value``), unless that would make two variables look alike."""
    recovered = [source_name(name) for name in raw]
    taken = set(raw)
    counts: dict[str, int] = {}
    for name in recovered:
        counts[name] = counts.get(name, 0) + 1
    return [new if new == old or (new not in taken and counts[new] == 1) else old
            for old, new in zip(raw, recovered, strict=True)]


def _captured(fields: list[FieldInfo], taken: set[str]) -> list[tuple[str, FieldInfo]]:
    """The instance fields of a lambda or local class that hold captured variables, under their names;
    a variable of the method with the same name hides the captured one."""
    out = []
    for field in fields:
        name = captured_name(field.name)
        if name is None or field.mod_bits & ACC_STATIC or name in taken:
            continue
        taken = taken | {name}
        out.append((name, field))
    return out


async def _nothing() -> list[Value]:
    return []


async def _this(vm: JdwpClient, symbols: Symbols, ref: FrameRef) -> Local | None:
    try:
        value = await vm.stack_frame.this_object(ref.thread, ref.frame)
    except CommandError as exc:
        if exc.code in (ErrorCode.OPAQUE_FRAME, ErrorCode.NATIVE_METHOD):
            return None
        raise
    if value.is_null:
        return None
    return _local("this", binary_name_of(await symbols.signature(ref.location.class_id)), value, None)


def _is_live(variable: VariableSlot, index: int) -> bool:
    return variable.code_index <= index < variable.code_index + variable.length


async def _details(vm: JdwpClient, values: list[Value]) -> list[str | int | None]:
    """Each string's text and each array's length (``None`` for other values), all in one round trip."""

    async def detail(value: Value) -> str | int:
        object_id = ObjectId(int(value.value))  # type: ignore[arg-type]
        if value.tag == Tag.STRING:
            return await vm.string_reference.value(object_id)
        return await vm.array_reference.length(object_id)

    out: list[str | int | None] = [None] * len(values)
    wanted = [i for i, v in enumerate(values) if not v.is_null and v.tag in (Tag.STRING, Tag.ARRAY)]
    if wanted:
        results = await gather([partial(detail, values[i]) for i in wanted])
        for i, result in zip(wanted, results, strict=True):
            out[i] = result
    return out


def _local(name: str, declared: str, value: Value, detail: str | int | None) -> Local:
    if value.is_null:
        return Local(name, declared, "null", None)
    if not value.is_object:
        return Local(name, declared, "primitive", java_text(value.tag, value.value))
    object_id = f"{value.value:#x}"
    if value.tag == Tag.STRING and isinstance(detail, str):
        shown, length = java_prefix(detail, MAX_STRING)
        return Local(name, declared, "string", shown, length > MAX_STRING, length, object_id)
    if value.tag == Tag.ARRAY:
        return Local(name, declared, "array", None, False, detail if isinstance(detail, int) else None, object_id)
    return Local(name, declared, "object", None, False, None, object_id)

"""Stack and locals of a stopped thread, in as few round trips as the protocol allows.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). DESIGN.md §3.

Stack: ``ThreadReference.FrameCount`` and ``Frames`` together, then class facts and line tables of the
frames' methods together (cached): two round trips for unseen classes, one for seen ones. Locals: the method's
variable table (cached), then ``StackFrame.GetValues`` with ``ThisObject``, then every string's value and
every array's length and every object's runtime type together (:mod:`.values`): three round trips, and
one more for types not seen before. No ``toString()``, no invocation.
"""

from __future__ import annotations

import dataclasses
from functools import partial
from typing import Any

from ..client import JdwpClient
from ..protocol.commands.reftypes import VariableSlot
from ..protocol.commands.threads import SlotRequest
from ..protocol.constants import ErrorCode, error_name
from ..protocol.errors import CommandError
from ..protocol.types import FrameId, Location, ThreadId
from ..protocol.values import Value
from ._gather import gather
from .model import ABSENT_INFORMATION, EMPTY_OR_UNAVAILABLE, NATIVE_METHOD, Frame, Local, Locals, StackPage
from .names import binary_name_of, type_name
from .symbols import Symbols
from .values import Summary, Values, unavailable

MAX_FRAMES_PER_STOP = 1000
MAX_LOCALS = 100


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
                            position.code_index, truncated_names=position.truncated_names))
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


async def frame_locals(vm: JdwpClient, symbols: Symbols, ref: FrameRef, values: Values) -> Locals:
    """The variables live at the frame's code index, and ``this`` when the method has one."""
    location = ref.location
    table, _ = await gather([lambda: symbols.variable_table(location.class_id, location.method_id),
                             lambda: symbols.signature(location.class_id)])
    if table is None:
        this = await _this(vm, symbols, ref, values)
        why = NATIVE_METHOD if await symbols.is_native(location) else ABSENT_INFORMATION
        return Locals("unavailable", (), this, why)
    if not table.slots:
        this = await _this(vm, symbols, ref, values)
        return Locals("unknown", (), this, EMPTY_OR_UNAVAILABLE)
    live = sorted((v for v in table.slots if v.name != "this" and _is_live(v, location.index)),
                  key=lambda v: (v.slot, v.code_index))
    shown = live[:MAX_LOCALS]
    slots = [SlotRequest(v.slot, ord(v.signature[0])) for v in shown]
    read, this_value = await gather([lambda: _slot_values(vm, ref, slots),
                                     lambda: vm.stack_frame.this_object(ref.thread, ref.frame)])
    readable = [v for v in read if isinstance(v, Value)]
    summaries = iter(await values.summarize([*readable, this_value]))
    locals_ = tuple(_local(v.name, type_name(v.signature), next(summaries) if isinstance(value, Value)
                           else unavailable(value))
                    for v, value in zip(shown, read, strict=True))
    this_summary = next(summaries)
    this = None
    if not this_value.is_null:
        this = _local("this", binary_name_of(await symbols.signature(location.class_id)), this_summary)
    return Locals("available", locals_, this, None, len(live) > len(shown))


_SLOT_ERRORS = (ErrorCode.INVALID_SLOT, ErrorCode.TYPE_MISMATCH, ErrorCode.OPAQUE_FRAME)


async def _slot_values(vm: JdwpClient, ref: FrameRef, slots: list[SlotRequest]) -> list[Value | str]:
    """Every slot's value; one the VM cannot read is the name of its error instead.

    ``StackFrame.GetValues`` (16,1) answers for all slots or none: ART fails the whole reply at the first
    slot it cannot read (a slot whose register the compiled frame dropped, a type the verifier disagrees
    with). Then each slot is asked alone, all at once (one more round trip), so one bad slot loses only
    itself.
    """
    if not slots:
        return []
    try:
        return list(await vm.stack_frame.get_values(ref.thread, ref.frame, slots))
    except CommandError as exc:
        if exc.code not in _SLOT_ERRORS or len(slots) == 1:
            if exc.code in _SLOT_ERRORS:
                return [error_name(exc.code)]
            raise

    async def one(slot: SlotRequest) -> Value | str:
        try:
            return (await vm.stack_frame.get_values(ref.thread, ref.frame, [slot]))[0]
        except CommandError as exc:
            if exc.code not in _SLOT_ERRORS:
                raise
            return error_name(exc.code)

    return list(await gather([partial(one, slot) for slot in slots]))


async def _this(vm: JdwpClient, symbols: Symbols, ref: FrameRef, values: Values) -> Local | None:
    try:
        value = await vm.stack_frame.this_object(ref.thread, ref.frame)
    except CommandError as exc:
        if exc.code in (ErrorCode.OPAQUE_FRAME, ErrorCode.NATIVE_METHOD):
            return None
        raise
    if value.is_null:
        return None
    (summary,) = await values.summarize([value])
    return _local("this", binary_name_of(await symbols.signature(ref.location.class_id)), summary)


def _is_live(variable: VariableSlot, index: int) -> bool:
    return variable.code_index <= index < variable.code_index + variable.length


def _local(name: str, declared: str, summary: Summary) -> Local:
    return Local(name, declared, summary.kind, summary.value, summary.truncated, summary.length,
                 summary.object_id, summary.runtime_type, summary.reason)

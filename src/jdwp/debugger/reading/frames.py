"""Stack and locals of a stopped thread, in as few round trips as the protocol allows.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.6.

Stack: ``ThreadReference.FrameCount`` and ``Frames`` together, then class facts and line tables of the
frames' methods together (cached): two round trips for unseen classes, one for seen ones. A frame running
inlined Kotlin code is shown as IntelliJ shows it (:mod:`.inline_frames`): the inline functions' frames
(``inlined``, their source and line; handles ``….f0.i1``, the same JVM frame) above the real frame, which shows
the call's line; the variable tables that takes are one more round, only for frames in inlined code.
Locals (of the JVM frame, for its inline frames too): the method's variable table and its class's fields
(cached), then ``StackFrame.GetValues`` with ``ThisObject`` (one write,
:meth:`~jdwp.client.JdwpClient.request_all`), then every string's value, every array's length and every
object's runtime type together (:mod:`.values`): three round trips, and one more for types not seen before. In
a lambda or local class, the variables it captured are read from ``this`` (``ObjectReference.GetValues``,
9,2): one round more. No ``toString()``, no invocation.

Kotlin's locals read as written (:mod:`.synthetic`): its inlining markers (``$i$f$…``, ``$i$a$…``) are
left out, ``x$iv`` is shown as ``x`` and ``$this$map`` as ``this@map`` unless another variable has that name.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from functools import partial
from typing import Any

from ...client import JdwpClient
from ...protocol.commands import Command, StackFrame, ThreadReference
from ...protocol.commands.reftypes import FieldInfo, VariableSlot, VariableTableReply
from ...protocol.commands.threads import FrameGetValuesOut, FrameOut, FramesOut, SlotRequest, ThreadOut
from ...protocol.constants import ACC_STATIC, ErrorCode, Tag, error_name
from ...protocol.errors import CommandError, UsageError
from ...protocol.types import FieldId, FrameId, Location, ThreadId
from ...protocol.values import Value
from .._gather import gather
from ..classes.symbols import Symbols
from ..classes.synthetic import captured_name, is_inline_marker, source_name
from ..model import (
    ABSENT_INFORMATION,
    EMPTY_OR_UNAVAILABLE,
    NATIVE_METHOD,
    Frame,
    Local,
    Locals,
    SourcePosition,
    StackPage,
    value_fields,
)
from ..names import binary_name_of, java_text, type_name
from .inline_frames import InlineChain, inline_chain
from .values import Summary, ValueKind, Values, unavailable

log = logging.getLogger("jdwp.debugger")

MAX_FRAMES_PER_STOP = 1000
MAX_LOCALS = 100


@dataclasses.dataclass(frozen=True, slots=True)
class FrameRef:
    """What a frame handle stands for, valid while its stop is current."""

    thread: ThreadId
    frame: FrameId
    location: Location


class WrongFrameGuess(Exception):
    """Frame 0's ID was guessed (:mod:`jdwp.frame_guess`) and ``ThreadReference.Frames`` named another: the values
    read with the guess are dropped; ``actual`` is the real frame."""

    def __init__(self, actual: FrameRef) -> None:
        super().__init__("frame 0 has another ID than the one guessed")
        self.actual = actual


async def stack_page(vm: JdwpClient, symbols: Symbols, thread: ThreadId, offset: int, limit: int,
                     frame_handle: str, known_count: int | None = None,
                     ) -> tuple[StackPage, dict[str, FrameRef], int]:
    """One page of frames; ``frame_handle`` is a format string taking the frame index.

    ``known_count`` is the thread's frame count when an earlier page of the same stop learnt it.
    Returns the page, the new frame handles it issued, and the frame count.
    """
    if known_count is None:
        # The count and the page's frames go out together (docs/design.md §2.7: never "all from offset", which is
        # a 10,000-frame reply on a deep recursion).
        total_frames, tail = await count_and_frames(vm, thread, offset, min(limit, MAX_FRAMES_PER_STOP - offset))
    else:
        total_frames = known_count
        wanted = min(limit, min(known_count, MAX_FRAMES_PER_STOP) - offset)
        tail = await vm.thread_reference.frames(thread, offset, wanted) if wanted > 0 else []
    return await describe_page(symbols, thread, tail, offset, limit, total_frames, frame_handle)


async def describe_page(symbols: Symbols, thread: ThreadId, tail: list[Any], offset: int, limit: int,
                        total_frames: int, frame_handle: str) -> tuple[StackPage, dict[str, FrameRef], int]:
    """The page :func:`stack_page` makes of frames already read (``ThreadReference.Frames`` from ``offset``),
    when the thread has ``total_frames``: what a stop being made does with the frames it asked with its first
    questions (:mod:`..events.capture`)."""
    total = min(total_frames, MAX_FRAMES_PER_STOP)
    raw = tail[: max(0, min(limit, total - offset))]
    positions = await symbols.describe([f.location for f in raw])
    chains = await _inline_chains(symbols, [f.location for f in raw], positions)
    frames, handles = [], {}
    for index, (frame, position, chain) in enumerate(zip(raw, positions, chains, strict=True), start=offset):
        handle = frame_handle.format(index)
        ref = FrameRef(thread, frame.frame_id, frame.location)
        handles[handle] = ref
        if chain is not None:  # the inline functions' frames above the real one (IntelliJ's)
            for depth, inlined in zip(range(len(chain.inlined), 0, -1), chain.inlined, strict=True):
                handles[f"{handle}.i{depth}"] = ref
                frames.append(_frame(f"{handle}.i{depth}", index, inlined))
            position = chain.real
        frames.append(_frame(handle, index, position))
    end = offset + len(frames)
    page = StackPage(tuple(frames), total, end if end < total else None, total_frames > total)
    return page, handles, total_frames


def _frame(handle: str, index: int, position: SourcePosition) -> Frame:
    return Frame.at(handle, index, position)


async def _inline_chains(symbols: Symbols, locations: list[Location], positions: list[SourcePosition],
                         ) -> list[InlineChain | None]:
    """Each frame's inlined calls (:mod:`.inline_frames`), from its method's variable table. The table is read
    (one round for all) only for a frame whose line is inlined code; one read already (the stop's frame) is
    used for any frame, which finds an inlined lambda's body too (its lines are its caller's own)."""
    wanted = [loc for loc, position in zip(locations, positions, strict=True)
              if symbols.variables.known(loc.class_id, loc.method_id) is None and position.inlined]
    if wanted:
        await gather([partial(_read_variables, symbols, loc) for loc in dict.fromkeys(wanted)])
    chains: list[InlineChain | None] = []
    for loc, position in zip(locations, positions, strict=True):
        known = symbols.variables.known(loc.class_id, loc.method_id)
        lines = symbols.lines.known(loc.class_id, loc.method_id)
        if known is None or known[0] is None or lines is None:
            chains.append(None)
            continue
        chains.append(inline_chain(position, lines, known[0], partial(symbols.code_line, loc.class_id),
                                   partial(symbols.call_site_line, loc.class_id)))
    return chains


async def _read_variables(symbols: Symbols, location: Location) -> None:
    """A frame's variable table for its inline frames; one the VM will not give leaves the frame as it is."""
    try:
        await symbols.variables.get(location.class_id, location.method_id)
    except CommandError as exc:
        log.debug("variable table for inline frames not read: %s", exc)


async def count_and_frames(vm: JdwpClient, thread: ThreadId, offset: int, limit: int) -> tuple[int, list[Any]]:
    """``FrameCount`` (11,7) and at most ``limit`` frames from ``offset`` (``Frames`` 11,6), in one write. A
    stack that ends within the page answers the frames ``INVALID_LENGTH``; the count, which came with it,
    says how many there are, and they are asked again (one more round trip, for a short stack only)."""
    if limit <= 0:
        return (await vm.thread_reference.frame_count(thread)), []
    count, frames = await vm.request_all([(ThreadReference.FrameCount, ThreadOut(thread)),
                                          (ThreadReference.Frames, FramesOut(thread, offset, limit))])
    if isinstance(count, CommandError):
        raise count
    if isinstance(frames, CommandError):
        if frames.code in (ErrorCode.INVALID_INDEX, ErrorCode.INVALID_LENGTH):
            remaining = min(limit, count.frame_count - offset)
            if remaining <= 0:
                return count.frame_count, []  # offset at or past the bottom of the stack
            return count.frame_count, await vm.thread_reference.frames(thread, offset, remaining)
        raise frames
    return count.frame_count, frames.frames


async def frame_locals(vm: JdwpClient, symbols: Symbols, ref: FrameRef, values: Values,
                       names: frozenset[str] | None = None, *, guessed: bool = False) -> Locals:
    """The variables live at the frame's code index, those ``this`` captured, and ``this`` when it has one.

    ``names``: the caller looks up only these names (a judged hit's condition and message). When each is a
    live local, only those locals are read, and neither ``this`` nor the captured variables (``Locals.this``
    is then ``None``): ``StackFrame.ThisObject`` is one command less in the round trip a hit spends with its
    thread paused, and each slot left out is a value less to read and make on every hit.

    ``guessed``: ``ref`` is frame 0 of its thread with a guessed ID (:mod:`jdwp.frame_guess`).
    ``ThreadReference.Frames`` goes out first in the same write as the values, and confirms it.

    Raises:
        WrongFrameGuess: ``guessed``, and frame 0 has another ID (or place); nothing read is kept.
    """
    location = ref.location
    table, fields = await _variables_and_fields(symbols, location)
    if guessed and (table is None or not table.slots):
        await _confirm_top(vm, ref, [])
    if table is None:
        this = await _this(vm, symbols, ref, values)
        if await symbols.members.is_native(location):
            return Locals("unavailable", (), this, NATIVE_METHOD)
        return Locals("unavailable", await _arguments_by_position(vm, ref, values), this, ABSENT_INFORMATION)
    if not table.slots:
        this = await _this(vm, symbols, ref, values)
        return Locals("unknown", (), this, EMPTY_OR_UNAVAILABLE)
    plan = _slot_plan(table, location.index)
    wants_this = names is None or not names <= plan.shown_names
    if not wants_this and names is not None and len(names) < len(plan.shown):
        plan = _named_plan(plan, names)  # only what the caller looks up: fewer slots read, fewer values made
    live, names_shown, shown, slots = plan.live, plan.names, plan.shown, plan.slots
    captured = _captured(fields, set(names_shown)) if wants_this else []
    shown_captured = captured[: MAX_LOCALS - len(shown)]
    read, this_value = await _slots_and_this(vm, ref, slots, wants_this, guessed)
    this_values = [this_value] if this_value is not None and not this_value.is_null else []
    has_this = bool(this_values)
    if not has_this:
        shown_captured = []
    captured_values = await vm.object_reference.get_values(
        this_values[0].object_id, [FieldId(f.field_id) for _, f in shown_captured]
    ) if shown_captured else []
    readable = [v for v in read if isinstance(v, Value)]
    declared = [signature for signature, v in zip(plan.signatures, read, strict=True) if isinstance(v, Value)]
    declared += [f.signature for _, f in shown_captured]
    summaries = iter(await values.summarize([*readable, *captured_values, *this_values], declared))
    locals_ = [local_of(name, declared, next(summaries) if isinstance(value, Value) else unavailable(value))
               for name, declared, value in zip(names_shown[: len(shown)], plan.declared, read, strict=True)]
    locals_ += [dataclasses.replace(local_of(name, type_name(f.signature), next(summaries)), captured=True)
                for name, f in shown_captured]
    this = None
    if has_this:
        this = local_of("this", binary_name_of(await symbols.signatures.get(location.class_id)), next(summaries))
    truncated = len(live) + (len(captured) if has_this else 0) > len(locals_)
    return Locals("available", tuple(locals_), this, None, truncated)


async def _arguments_by_position(vm: JdwpClient, ref: FrameRef, values: Values) -> tuple[Local, ...]:
    """A method without a variable table (a class compiled without ``-g``, as most packaged libraries are): its
    arguments, named ``arg0``, ``arg1``… and read from the slots its signature lays them out in
    (:meth:`jdwp.mirrors.arguments.ArgumentReader.argument_layout`): the parameters are the first locals of
    every frame, after ``this``. Its other locals have no known slot or type. A VM that refuses the read (a
    slot whose type it judges otherwise) leaves none shown."""
    location = ref.location
    try:
        layout = await vm.stack_frame.argument_layout(location.class_id, location.method_id)
        if not layout.slots:
            return ()
        read = await vm.stack_frame.get_values(ref.thread, ref.frame, layout.requests())
    except (CommandError, UsageError, ValueError) as exc:  # UsageError, ValueError: a method or signature unknown
        log.debug("arguments by position not read: %s", exc)
        return ()
    summaries = await values.summarize(read, layout.signatures)
    return tuple(local_of(name, type_name(signature), summary)
                 for name, signature, summary in zip(layout.names, layout.signatures, summaries, strict=True))


@dataclasses.dataclass(frozen=True, slots=True)
class SlotPlan:
    """What a method's variable table says of one code index: the variables live there (sorted by slot), their
    names as shown, the first ``MAX_LOCALS`` of them with their declared types (as Java writes them, and as
    JNI signatures), and the slots to ask for them."""

    live: list[VariableSlot]
    names: list[str]
    shown: list[VariableSlot]
    shown_names: frozenset[str]
    declared: list[str]
    signatures: list[str]
    slots: list[SlotRequest]


_PLANS: dict[tuple[int, int], tuple[VariableTableReply, SlotPlan]] = {}
_PLANS_KEPT = 1024


def named_slot_plan(symbols: Symbols, location: Location, names: frozenset[str]) -> SlotPlan | None:
    """The slots to read for ``names`` at ``location``, from what is cached now, when each name is a live local
    shown there (no ``this``, no captured variable); ``None`` when that takes a round trip or a name is not
    such a local. For a judged hit read without awaits (:mod:`..events.quick_hits`)."""
    known = symbols.variables.known(location.class_id, location.method_id)
    if known is None or known[0] is None or not known[0].slots:
        return None
    plan = _slot_plan(known[0], location.index)
    if not names <= plan.shown_names:
        return None
    return _named_plan(plan, names) if len(names) < len(plan.shown) else plan


def raw_locals(plan: SlotPlan, read: Sequence[Value], values: Values) -> Locals:
    """The locals of ``plan`` from their values, summarised without a round trip (:func:`raw_summary`): what an
    evaluation needs of them."""
    locals_ = [local_of(name, declared, raw_summary(values, value))
               for name, declared, value in zip(plan.names[: len(plan.shown)], plan.declared, read, strict=True)]
    return Locals("available", tuple(locals_), None, None, len(plan.live) > len(locals_))


def raw_summary(values: Values, value: Value) -> Summary:
    """``value`` as a summary made without a round trip: a primitive as text, an object by handle only."""
    if value.is_null:
        return Summary("null", None)
    if not value.is_object:
        return Summary("primitive", java_text(value.tag, value.value))
    kind: ValueKind = "string" if value.tag == Tag.STRING else "array" if value.tag == Tag.ARRAY else "object"
    return Summary(kind, None, object_id=values.handle(value))


def live_slot(table: VariableTableReply, index: int, name: str) -> VariableSlot | None:
    """The variable live at ``index`` that the locals show as ``name`` (what setting a local writes)."""
    plan = _slot_plan(table, index)
    return next((slot for slot, shown in zip(plan.live, plan.names, strict=False) if shown == name), None)


def _slot_plan(table: VariableTableReply, index: int) -> SlotPlan:
    """The plan of ``table`` at ``index``, worked out once: a breakpoint's hits all come to the same index.

    Keyed by the table object (the session's cache holds one per method) and checked by identity, so a table
    read again, or another session's, is never served another's plan.
    """
    key = (id(table), index)
    cached = _PLANS.get(key)
    if cached is not None and cached[0] is table:
        return cached[1]
    live = sorted((v for v in table.slots if v.name != "this" and _is_live(v, index) and not is_inline_marker(v.name)),
                  key=lambda v: (v.slot, v.code_index))
    names = _shown_names([v.name for v in live])
    shown = live[:MAX_LOCALS]
    plan = SlotPlan(live, names, shown, frozenset(names[: len(shown)]), [type_name(v.signature) for v in shown],
                     [v.signature for v in shown], [SlotRequest(v.slot, ord(v.signature[0])) for v in shown])
    if len(_PLANS) >= _PLANS_KEPT:
        _PLANS.pop(next(iter(_PLANS)))
    _PLANS[key] = (table, plan)
    return plan


_NAMED: dict[tuple[int, frozenset[str]], tuple[SlotPlan, SlotPlan]] = {}


def _named_plan(plan: SlotPlan, names: frozenset[str]) -> SlotPlan:
    """``plan`` cut to the variables shown as ``names`` (all of them among its shown ones), worked out once per
    plan and names: a conditional breakpoint's every hit reads the same few slots. ``live`` stays whole, so the
    locals read say they are ``truncated``."""
    key = (id(plan), names)
    cached = _NAMED.get(key)
    if cached is not None and cached[0] is plan:
        return cached[1]
    kept = [i for i, name in enumerate(plan.names[: len(plan.shown)]) if name in names]
    named = SlotPlan(plan.live, [plan.names[i] for i in kept], [plan.shown[i] for i in kept],
                      frozenset(plan.names[i] for i in kept), [plan.declared[i] for i in kept],
                      [plan.signatures[i] for i in kept], [plan.slots[i] for i in kept])
    if len(_NAMED) >= _PLANS_KEPT:
        _NAMED.pop(next(iter(_NAMED)))
    _NAMED[key] = (plan, named)
    return named


async def _variables_and_fields(symbols: Symbols, location: Location,
                                ) -> tuple[VariableTableReply | None, list[FieldInfo]]:
    """The method's variable table and, for a nested class, its fields: from the caches when both are
    there (every hit after a breakpoint's first), else asked together with the class's signature."""
    known = symbols.variables.known(location.class_id, location.method_id)
    signature = symbols.signatures.known(location.class_id)
    if known is not None and signature is not None:
        if "$" not in signature.rpartition("/")[2]:
            return known[0], []
        fields = symbols.members.known_fields(location.class_id)
        if fields is not None:
            return known[0], fields
    table, _, fields = await gather([lambda: symbols.variables.get(location.class_id, location.method_id),
                                     lambda: symbols.signatures.get(location.class_id),
                                     lambda: _fields_if_nested(symbols, location)])
    return table, fields


async def _slots_and_this(vm: JdwpClient, ref: FrameRef, slots: list[SlotRequest], wants_this: bool,
                          guessed: bool = False) -> tuple[list[Value | str], Value | None]:
    """``StackFrame.GetValues`` (16,1) and ``ThisObject`` (16,3) in one write; ``this`` is ``None`` when not
    wanted. A slot the VM cannot read is its error's name (see :func:`_slot_values_after`). ``guessed``:
    ``ThreadReference.Frames`` goes first and must confirm ``ref`` (see :func:`frame_locals`)."""
    requests: list[tuple[Command[Any, Any], Any]] = []
    if slots:
        requests.append((StackFrame.GetValues, FrameGetValuesOut(ref.thread, ref.frame, slots)))
    if wants_this:
        requests.append((StackFrame.ThisObject, FrameOut(ref.thread, ref.frame)))
    if guessed:
        replies = await _confirm_top(vm, ref, requests)
    else:
        replies = await vm.request_all(requests)
    this_value = None
    if wants_this:
        this_reply = replies.pop()
        if isinstance(this_reply, CommandError):
            raise this_reply
        this_value = this_reply.object_this
    if not slots:
        return [], this_value
    (got,) = replies
    if not isinstance(got, CommandError):
        return list(got.values), this_value
    return await _slot_values_after(vm, ref, slots, got), this_value


async def _fields_if_nested(symbols: Symbols, location: Location) -> list[FieldInfo]:
    """The fields of the frame's class when it may hold captured variables: only a nested class
    (``Foo$1``, ``Foo$main$1``) can; a top-level class has nothing to capture."""
    signature = symbols.signatures.known(location.class_id)
    if signature is not None and "$" not in signature.rpartition("/")[2]:
        return []
    return await symbols.members.fields(location.class_id)


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


# What ART answers for one slot it cannot read: INVALID_SLOT (a register without a name on Android 9-10, smali
# issues #651 and #737, jadx PR #1137), TYPE_MISMATCH, OPAQUE_FRAME, and INVALID_OBJECT (a register the table
# calls an object that holds an int at that point; docs/reliability.md, "ART as devices show it").
_SLOT_ERRORS = (ErrorCode.INVALID_SLOT, ErrorCode.TYPE_MISMATCH, ErrorCode.OPAQUE_FRAME, ErrorCode.INVALID_OBJECT)


async def _confirm_top(vm: JdwpClient, ref: FrameRef, requests: list[tuple[Command[Any, Any], Any]]) -> list[Any]:
    """``ThreadReference.Frames`` (11,6) for frame 0, then ``requests`` (made with ``ref``'s guessed ID), in one
    write; their replies once Frames confirmed the guess.

    Raises:
        WrongFrameGuess: frame 0 is another frame ID or place than ``ref``.
        CommandError: Frames failed (the thread is not suspended, or gone).
    """
    top, *replies = await vm.request_all([(ThreadReference.Frames, FramesOut(ref.thread, 0, 1)), *requests])
    if isinstance(top, CommandError):
        raise top
    (frame,) = top.frames
    if frame.frame_id != ref.frame or frame.location != ref.location:
        raise WrongFrameGuess(FrameRef(ref.thread, frame.frame_id, frame.location))
    return replies


async def _slot_values_after(vm: JdwpClient, ref: FrameRef, slots: list[SlotRequest],
                            failed: CommandError) -> list[Value | str]:
    """Every slot's value after ``StackFrame.GetValues`` (16,1) failed for them all with ``failed``.

    It answers for all slots or none: ART fails the whole reply at the first slot it cannot read (a slot
    whose register the compiled frame dropped, a type the verifier disagrees with). Then each slot is asked
    alone, all at once (one more round trip), so one bad slot loses only itself; a slot the VM cannot read
    is the name of its error instead.
    """
    if failed.code not in _SLOT_ERRORS:
        raise failed
    if len(slots) == 1:
        return [error_name(failed.code)]

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
    return local_of("this", binary_name_of(await symbols.signatures.get(ref.location.class_id)), summary)


def _is_live(variable: VariableSlot, index: int) -> bool:
    return variable.code_index <= index < variable.code_index + variable.length


def local_of(name: str, declared: str, summary: Summary) -> Local:
    kind = "unavailable" if summary.kind == "void" else summary.kind  # a variable is never void
    return Local(name, declared, **{**value_fields(summary), "kind": kind}, reason=summary.reason, note=summary.note)

"""Async stacks: the coroutine a stopped thread runs, as the chain of its continuations (docs/design.md §3.11).

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). What IntelliJ's coroutine debugger shows below
the real frames, read from fields alone (no app code runs unless the metadata comes from ``invoke``).

**Where it starts.** The topmost frame of the page that runs suspend code: a suspend function (its last
parameter is a ``kotlin.coroutines.Continuation``) or a state machine's ``invokeSuspend(Object)``. Its
continuation is, in this order, the function's ``$continuation`` local (its own state machine, once made),
``this`` of ``invokeSuspend`` (the state machine or the suspend lambda), or the ``$completion`` parameter
(a suspend function without a state machine of its own, such as a tail call: its caller's continuation).
The variable table (``Method.VariableTable``, 6,2) and ``StackFrame.GetValues`` (16,1) / ``ThisObject`` (16,3)
read them.

**The chain** (:mod:`.continuations`) follows ``completion`` from continuation to continuation, through
kotlinx's scopes (``ScopeCoroutine.uCont``), to the first object that is neither: the coroutine. Each
continuation's line and variable names come from its ``@DebugMetadata`` (:mod:`.coroutine_metadata`);
without it, ``line`` is null and the spilled fields keep their names. Bounded: at most
:data:`MAX_CHAIN` continuations, and an object seen twice ends the chain (``truncated``).
"""

from __future__ import annotations

from ...client import JdwpClient
from ...protocol.commands.reftypes import MethodInfo, VariableSlot
from ...protocol.commands.threads import SlotRequest
from ...protocol.errors import CommandError
from ...protocol.values import Value
from ..classes.symbols import Symbols
from ..model import AsyncFrame, AsyncStack, CoroutineInfo, MetadataSource, SpilledVariable
from .continuations import SPILLED_FIELD, ContinuationState, read_continuation, read_end
from .coroutine_metadata import Facts, Invoker, MetadataSources
from .frames import FrameRef
from .objects import Layouts
from .values import Summary, Values

__all__ = ["MAX_CHAIN", "continuation_frame", "read_async_stack", "start_of"]

MAX_CHAIN = 64
INVOKE_SUSPEND = ("invokeSuspend", "(Ljava/lang/Object;)Ljava/lang/Object;")
_CONTINUATION_LAST = "Lkotlin/coroutines/Continuation;)"


def is_suspend_code(method: MethodInfo) -> bool:
    return (method.name, method.signature) == INVOKE_SUSPEND or _CONTINUATION_LAST in method.signature


async def start_of(vm: JdwpClient, symbols: Symbols, frames: list[FrameRef]) -> Value | None:
    """The continuation of the topmost frame running suspend code, ``None`` when no frame does.

    Only frames whose methods are cached (a stack page described them) are looked at: a stack without
    suspend code costs no command.
    """
    for ref in frames:
        loc = ref.location
        method = symbols.members.known_methods(loc.class_id).get(loc.method_id)
        if method is None or not is_suspend_code(method):
            continue
        try:
            table = await symbols.variables.get(loc.class_id, loc.method_id)
        except CommandError:
            table = None
        live = {v.name: v for v in (table.slots if table is not None else ()) if _live(v, loc.index)}
        for name in ("$continuation", "this", "$completion"):
            value = await _read(vm, ref, live, name, method)
            if value is not None and not value.is_null:
                return value
    return None


def _live(variable: VariableSlot, index: int) -> bool:
    return variable.code_index <= index < variable.code_index + variable.length


async def _read(vm: JdwpClient, ref: FrameRef, live: dict[str, VariableSlot], name: str,
                method: MethodInfo) -> Value | None:
    try:
        if name == "this":
            if (method.name, method.signature) != INVOKE_SUSPEND:
                return None
            return await vm.stack_frame.this_object(ref.thread, ref.frame)
        variable = live.get(name)
        if variable is None:
            return None
        (value,) = await vm.stack_frame.get_values(ref.thread, ref.frame, [SlotRequest(variable.slot, ord("L"))])
        return value
    except CommandError:  # a slot the compiled frame dropped (ART), an opaque frame: try the next candidate
        return None


async def read_async_stack(values: Values, layouts: Layouts, sources: MetadataSources, start: Value,
                           invoker: Invoker | None) -> AsyncStack:
    """The chain from ``start`` (see module).

    Raises:
        StaleReference: an object of the chain was collected meanwhile.
    """
    read: list[tuple[ContinuationState, Facts | None]] = []
    seen: set[int] = set()
    coroutine: CoroutineInfo | None = None
    truncated = True
    current: Value | None = start
    for _ in range(MAX_CHAIN * 2):  # continuations and scopes
        if current is None:
            truncated = False
            break
        if int(current.value) in seen or len(read) >= MAX_CHAIN:  # type: ignore[arg-type]
            break
        seen.add(int(current.value))  # type: ignore[arg-type]
        state = await read_continuation(values, layouts, current)
        if state is None:
            coroutine, current = await read_end(values, layouts, current)
            continue
        read.append((state, await sources.facts(state, invoker)))
        current = state.completion
    frames = await _frames(values, read)
    notes = []
    if invoker is not None and invoker.failed is not None:
        notes.append(f"invoking DebugMetadataKt failed, so the rest was read without it: {invoker.failed}")
    problems = sources.class_path.problems if sources.class_path is not None else []
    if problems:
        notes.append(f"{len(problems)} file(s) of the class path could not be read, e.g. {problems[0][:300]}")
    note = "; ".join(notes) or None
    metadata: MetadataSource = "invoke" if invoker is not None else sources.configured
    return AsyncStack(tuple(frames), coroutine, metadata, truncated, note)


async def continuation_frame(values: Values, layouts: Layouts, sources: MetadataSources, value: Value,
                             invoker: Invoker | None) -> AsyncFrame | None:
    """One continuation as an async frame (for ``get_debugger_object``); ``None`` for another object."""
    state = await read_continuation(values, layouts, value)
    if state is None:
        return None
    (frame,) = await _frames(values, [(state, await sources.facts(state, invoker))])
    return frame


async def _frames(values: Values, read: list[tuple[ContinuationState, Facts | None]]) -> list[AsyncFrame]:
    """The frames, with every spilled variable's summary read together (one summarising pass for the chain)."""
    rows: list[list[tuple[str, str, Value, str]]] = []
    for state, facts in read:
        if facts is not None:
            pairs = [(field, name) for field, name in facts.spilled if field in state.spilled]
        else:
            pairs = [(field, field) for field in sorted(state.spilled, key=_field_order)]
        rows.append([(name, field, state.spilled[field][1], state.spilled[field][0].signature)
                     for field, name in pairs])
    flat = [row for frame_rows in rows for row in frame_rows]
    summaries = iter(await values.summarize([r[2] for r in flat], [r[3] for r in flat]) if flat else [])
    frames = []
    for (state, facts), frame_rows in zip(read, rows, strict=True):
        spilled = tuple(_spilled(name, field, next(summaries)) for name, field, _, _ in frame_rows)
        if facts is None:
            source = await values.symbols.files.name(state.type_id)
            frames.append(AsyncFrame(state.class_name, INVOKE_SUSPEND[0], source, None, state.label, spilled,
                                     state.handle, state.class_name, "none"))
        else:
            frames.append(AsyncFrame(facts.class_name, facts.method, facts.source, facts.line, state.label, spilled,
                                     state.handle, state.class_name, facts.metadata, facts.next_line))
    return frames


def _field_order(name: str) -> tuple[str, int]:
    kind, _, index = name.partition("$")
    return kind, int(index) if SPILLED_FIELD.fullmatch(name) else 0


def _spilled(name: str, field: str, summary: Summary) -> SpilledVariable:
    kind = "unavailable" if summary.kind == "void" else summary.kind
    return SpilledVariable(name, field, kind, summary.value, summary.truncated, summary.length, summary.object_id,
                           summary.runtime_type, note=summary.note)

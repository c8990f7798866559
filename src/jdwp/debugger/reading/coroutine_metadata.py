"""What a continuation's ``@DebugMetadata`` says at its label, from the first source that answers.

Layer: ``jdwp.debugger.reading`` (trio, via ``jdwp.client``). docs/design.md §3.11.

JDWP has no command for a class's annotations, and ART keeps no constant pool a debugger could read
(``ReferenceType.ConstantPool`` 2,18 is refused: ART's ``art_jvmti.h`` leaves ``can_get_constant_pool`` off),
so the metadata comes, in this order, from:

1. ``invoke`` (only with ``--allow-invoke``: code runs in the VM): the continuation's own
   ``BaseContinuationImpl.getStackTraceElement()`` (which loads the stdlib's ``DebugMetadataKt`` if nothing
   had yet), then ``DebugMetadataKt.getSpilledVariableFieldMapping(continuation)`` (static), on the stop's
   event thread, single-threaded (:mod:`.invoke`). The answers are read from their fields (a
   ``StackTraceElement``'s ``declaringClass``, ``methodName``, ``fileName``, ``lineNumber``; a ``String[]``);
2. ``class_path``: the app's classes given to the server, read on the host (:mod:`..classes.class_path`);
3. nothing: the caller shows the raw field names and ``line`` null.
"""

from __future__ import annotations

import dataclasses
import logging

import trio

from ...protocol.commands.reftypes import MethodInfo
from ...protocol.errors import CommandError
from ...protocol.types import FieldId, ObjectId, ReferenceTypeId, ThreadId
from ...protocol.values import Value
from ..classes.class_path import ClassPath
from ..classes.smap import Smap
from ..errors import EvaluationFailed
from ..model import MetadataSource
from .continuations import ContinuationState
from .invoke import Calls
from .objects import Layouts, as_values
from .tables import read_region
from .values import Values

__all__ = ["Facts", "MetadataSources"]

log = logging.getLogger("jdwp.debugger")

DEBUG_METADATA_KT = "Lkotlin/coroutines/jvm/internal/DebugMetadataKt;"
STACK_TRACE_ELEMENT = ("getStackTraceElement", "()Ljava/lang/StackTraceElement;")
SPILLED_MAPPING = ("getSpilledVariableFieldMapping",
                   "(Lkotlin/coroutines/jvm/internal/BaseContinuationImpl;)[Ljava/lang/String;")
MAX_MAPPING = 512  # field/name pairs: far more than one suspension point spills


@dataclasses.dataclass(frozen=True, slots=True)
class Facts:
    """One continuation at its label: where it was written and last suspended, and its live spilled
    variables as ``(field, name)`` pairs."""

    class_name: str
    method: str
    source: str | None
    line: int | None
    spilled: list[tuple[str, str]]
    metadata: MetadataSource
    next_line: int | None = None


@dataclasses.dataclass(slots=True)
class Invoker:
    """Where invocation may run for one read: the session's calls, the stop and its event thread."""

    calls: Calls
    stop_id: str
    thread: ThreadId
    failed: str | None = None


class MetadataSources:
    """The sources of one session: its class path (read once, in a worker thread) and, per read, an invoker."""

    def __init__(self, values: Values, layouts: Layouts, class_path: ClassPath | None) -> None:
        self._values, self._layouts = values, layouts
        self.class_path = class_path
        self._loading = trio.Lock()
        self._smaps: dict[str, Smap | None] = {}  # by the binary name of a function's class

    @property
    def configured(self) -> MetadataSource:
        return "class_path" if self.class_path is not None else "none"

    async def facts(self, state: ContinuationState, invoker: Invoker | None) -> Facts | None:
        """The metadata of ``state`` from the first source that has it; ``None`` when none has. Its lines are
        the user's (:meth:`_own_lines`)."""
        found = await self._facts(state, invoker)
        return await self._own_lines(found) if found is not None else None

    async def _own_lines(self, facts: Facts) -> Facts:
        """DebugMetadata's lines are raw lines of the function's method: one in the body of an inline call made
        there (``mutex.withLock``: line 84 of an 81-line file) is shown at that call's line, through the
        declaring class's SMAP (its ``KotlinDebug`` stratum). A class the VM will not find keeps them raw."""
        if facts.line is None and facts.next_line is None:
            return facts
        if facts.class_name not in self._smaps:
            try:
                refs = await self._values.vm.classes_by_signature("L" + facts.class_name.replace(".", "/") + ";")
                smap = await self._values.symbols.files.map(ReferenceTypeId(refs[0].type_id)) if refs else None
            except CommandError as exc:
                log.info("the lines of %s stay raw: %s", facts.class_name, exc)
                return facts
            self._smaps[facts.class_name] = smap
        smap = self._smaps[facts.class_name]
        if smap is None:
            return facts
        return dataclasses.replace(facts, line=smap.own_line(facts.line) if facts.line is not None else None,
                                   next_line=smap.own_line(facts.next_line) if facts.next_line is not None else None)

    async def _facts(self, state: ContinuationState, invoker: Invoker | None) -> Facts | None:
        if invoker is not None and invoker.failed is None:
            try:
                found = await self._invoked(state, invoker)
            except EvaluationFailed as exc:
                invoker.failed = str(exc)  # one failure (a deadline, a refused thread) ends invoking for the read
                found = None
            if found is not None:
                return found
        if self.class_path is None:
            return None
        if not self.class_path.loaded:
            async with self._loading:
                if not self.class_path.loaded:
                    await trio.to_thread.run_sync(self.class_path.load)
        signature = await self._values.symbols.signatures.get(state.type_id)
        metadata = self.class_path.lookup(signature)
        if metadata is None:
            return None
        return Facts(metadata.class_name or state.class_name, metadata.method_name or "invokeSuspend",
                     metadata.source_file or None, metadata.line(state.label), metadata.spilled_at(state.label),
                     "class_path", metadata.next_line(state.label))

    async def _invoked(self, state: ContinuationState, invoker: Invoker) -> Facts | None:
        vm = self._values.vm
        getter = await _method(self._values, state.base_type, *STACK_TRACE_ELEMENT)
        if getter is None:
            return None
        outcome = await invoker.calls.invoke(invoker.stop_id, invoker.thread, state.base_type, getter, state.value, [])
        element = outcome.value
        if outcome.exception is not None or element.is_null:
            return None
        refs = await vm.classes_by_signature(DEBUG_METADATA_KT)
        pairs: list[tuple[str, str]] = []
        if refs:
            kt = ReferenceTypeId(refs[0].type_id)
            mapping = await _method(self._values, kt, *SPILLED_MAPPING)
            if mapping is not None:
                got = await invoker.calls.invoke(invoker.stop_id, invoker.thread, kt, mapping, None, [state.value])
                if got.exception is None and not got.value.is_null:
                    texts = await self._strings(got.value)
                    pairs = list(zip(texts[0::2], texts[1::2], strict=False))
        declaring, method, source, line = await self._element(element)
        # A named module prefixes the class ("module/com.x.Foo"), as StackTraceElement's own format does.
        return Facts(declaring.rpartition("/")[2] or state.class_name, method or "invokeSuspend", source,
                     line if line is not None and line >= 0 else None, pairs, "invoke")

    async def _element(self, element: Value) -> tuple[str, str, str | None, int | None]:
        """A ``StackTraceElement``'s ``declaringClass``, ``methodName``, ``fileName``, ``lineNumber`` fields."""
        values = self._values
        handle = values.handle(element)
        chain = await self._layouts.chain(await values.type_id(handle))
        names = ("declaringClass", "methodName", "fileName", "lineNumber")
        fields = [Layouts.find(chain, name) for name in names]
        present = [f for f in fields if f is not None]
        wire, _ = values.resolve(handle)
        read = await values.vm.object_reference.get_values(ObjectId(wire), [FieldId(f.field_id) for f in present])
        by_id = {int(f.field_id): v for f, v in zip(present, read, strict=True)}
        texts = await values.summarize([by_id[int(f.field_id)] for f in fields[:3] if f is not None])
        text_iter = iter(s.value for s in texts)
        declaring, method, source = (next(text_iter) if f is not None else None for f in fields[:3])
        number = fields[3]
        line = int(by_id[int(number.field_id)].value) if number is not None else None  # type: ignore[arg-type]
        return declaring or "", method or "", source, line

    async def _strings(self, array: Value) -> list[str]:
        handle = self._values.handle(array)
        length = min(await self._values.array_length(handle), MAX_MAPPING * 2)
        if length == 0:
            return []
        wire, _ = self._values.resolve(handle)
        region = await read_region(self._values.vm, wire, 0, length)
        summaries = await self._values.summarize(as_values(region))
        return [s.value or "" for s in summaries]


async def _method(values: Values, type_id: ReferenceTypeId, name: str, signature: str) -> MethodInfo | None:
    methods = await values.symbols.members.methods(type_id)
    return next((m for m in methods.values() if m.name == name and m.signature == signature), None)

"""Cached facts about loaded classes: names, source files, methods, line and variable tables.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). Everything here is immutable for a loaded class,
so it is fetched once per class (or method) and kept for the session. Batch lookups fetch what is
missing for many locations in one pipelined round (class facts and line tables together).
"""

from __future__ import annotations

import bisect
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import partial
from typing import Any

from ..client import JdwpClient
from ..protocol.commands.reftypes import LineTableReply, MethodInfo, VariableTableReply
from ..protocol.constants import ErrorCode
from ..protocol.errors import AbsentInformation, CommandError
from ..protocol.types import Location, MethodId, ReferenceTypeId
from ._gather import gather
from .model import NO_CODE_INDEX, SourcePosition
from .names import binary_name_of

ACC_NATIVE = 0x0100
ACC_SYNTHETIC = 0x1000
JDWP_SYNTHETIC = 0xF0000000  # JDWP's own synthetic bit in Method modBits (ReferenceType.Methods, 2,5)


class Symbols:
    def __init__(self, vm: JdwpClient) -> None:
        self._vm = vm
        self._signatures: dict[int, str] = {}
        self._sources: dict[int, str | None] = {}
        self._methods: dict[int, dict[int, MethodInfo]] = {}
        self._lines: dict[tuple[int, int], LineTableReply | None] = {}
        self._variables: dict[tuple[int, int], VariableTableReply | None] = {}
        self._loaders: dict[int, int] = {}

    # --- single facts ------------------------------------------------------------------------------

    async def signature(self, ref: ReferenceTypeId) -> str:
        if ref not in self._signatures:
            self._signatures[ref] = await self._vm.reference_type.signature(ref)
        return self._signatures[ref]

    async def source(self, ref: ReferenceTypeId) -> str | None:
        if ref not in self._sources:
            try:
                self._sources[ref] = await self._vm.reference_type.source_file(ref)
            except AbsentInformation:
                self._sources[ref] = None
        return self._sources[ref]

    async def methods(self, ref: ReferenceTypeId) -> dict[int, MethodInfo]:
        if ref not in self._methods:
            self._methods[ref] = {m.method_id: m for m in await self._vm.reference_type.methods(ref)}
        return self._methods[ref]

    async def line_table(self, ref: ReferenceTypeId, method: MethodId) -> LineTableReply | None:
        """The method's line table, or ``None`` when it has none (compiled without ``-g:lines``, or native)."""
        key = (ref, method)
        if key not in self._lines:
            try:
                self._lines[key] = await self._vm.method.line_table(ref, method)
            except CommandError as exc:
                if not _is_absent(exc):
                    raise
                self._lines[key] = None
        return self._lines[key]

    async def variable_table(self, ref: ReferenceTypeId, method: MethodId) -> VariableTableReply | None:
        """The method's variables, or ``None`` when absent (compiled without ``-g:vars``, or native)."""
        key = (ref, method)
        if key not in self._variables:
            try:
                self._variables[key] = await self._vm.method.variable_table(ref, method)
            except CommandError as exc:
                if not _is_absent(exc):
                    raise
                self._variables[key] = None
        return self._variables[key]

    async def class_loader(self, ref: ReferenceTypeId) -> int:
        if ref not in self._loaders:
            self._loaders[ref] = await self._vm.reference_type.class_loader(ref)
        return self._loaders[ref]

    # --- batches -----------------------------------------------------------------------------------

    async def prefetch_classes(self, refs: Iterable[int]) -> None:
        """Signature, source file and methods of every class not cached yet: one round trip."""
        thunks: list[Callable[[], Awaitable[Any]]] = []
        for ref in dict.fromkeys(refs):
            rid = ReferenceTypeId(ref)
            if ref not in self._signatures:
                thunks.append(partial(self.signature, rid))
            if ref not in self._sources:
                thunks.append(partial(self.source, rid))
            if ref not in self._methods:
                thunks.append(partial(self.methods, rid))
        if thunks:
            await gather(thunks)

    async def prefetch_lines(self, keys: Iterable[tuple[int, int]]) -> None:
        """Line tables of every (class, method) not cached yet: one round trip."""
        missing = [k for k in dict.fromkeys(keys) if k not in self._lines]
        if missing:
            await gather([partial(self.line_table, ReferenceTypeId(k[0]), MethodId(k[1])) for k in missing])

    async def describe(self, locations: Sequence[Location]) -> list[SourcePosition]:
        """Class, method, source and line of each location, in one round trip.

        A location names its method, so its line table need not wait for the class's facts.
        """
        classes = [loc.class_id for loc in locations]
        methods = [(loc.class_id, loc.method_id) for loc in locations]
        await gather([lambda: self.prefetch_classes(classes), lambda: self.prefetch_lines(methods)])
        return [self.position(loc) for loc in locations]

    async def prefetch_signatures(self, refs: Iterable[int]) -> None:
        """Signatures of every type not cached yet: one round trip (the runtime types of values)."""
        missing = [ReferenceTypeId(r) for r in dict.fromkeys(refs) if r not in self._signatures]
        if missing:
            await gather([partial(self.signature, r) for r in missing])

    def cached_name(self, ref: int) -> str | None:
        """The binary name of a type whose signature is cached (after :meth:`prefetch_signatures`)."""
        signature = self._signatures.get(ref)
        return binary_name_of(signature) if signature is not None else None

    def position(self, loc: Location) -> SourcePosition:
        """Describe a location from the cache (after :meth:`describe` or the prefetches)."""
        signature = self._signatures.get(loc.class_id)
        method = self._methods.get(loc.class_id, {}).get(loc.method_id)
        table = self._lines.get((loc.class_id, loc.method_id))
        return SourcePosition(
            class_name=binary_name_of(signature) if signature else f"<class {loc.class_id:#x}>",
            method=method.name if method else f"<method {loc.method_id:#x}>",
            source=self._sources.get(loc.class_id),
            line=line_at(table, loc.index) if table else None,
            code_index=code_index(loc),
        )

    async def modifiers(self, loc: Location) -> int:
        """The access flags of the location's method (0 when the class no longer lists it)."""
        method = (await self.methods(loc.class_id)).get(loc.method_id)
        return method.mod_bits if method else 0

    async def is_native(self, loc: Location) -> bool:
        return code_index(loc) == NO_CODE_INDEX or bool(await self.modifiers(loc) & ACC_NATIVE)


def code_index(loc: Location) -> int:
    """The location's code index; a native method's (JDWP's unsigned 64-bit -1) is -1."""
    return NO_CODE_INDEX if loc.index >= 1 << 63 else loc.index


def _is_absent(exc: CommandError) -> bool:
    """ABSENT_INFORMATION, or NATIVE_METHOD: HotSpot's answer for a native method's tables (it has no code)."""
    return isinstance(exc, AbsentInformation) or exc.code == ErrorCode.NATIVE_METHOD


def line_at(table: LineTableReply, index: int) -> int | None:
    """The line of the code index: the entry with the greatest start at or before it."""
    if not table.lines or index < 0:
        return None
    entries = sorted((e.line_code_index, e.line_number) for e in table.lines)
    position = bisect.bisect_right(entries, (index, float("inf"))) - 1
    return entries[position][1] if position >= 0 else None

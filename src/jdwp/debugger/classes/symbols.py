"""Cached facts about loaded classes: names, source files, source maps, methods, line and variable tables.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). Everything here is immutable for a loaded class,
so it is fetched once per class (or method) and kept for the session. Batch lookups fetch what is
missing for many locations in one pipelined round (class facts and line tables together).

A class's lines are read through its source map (:mod:`.smap`) when it has one: a line of inlined Kotlin
code is the inline function's file and line (:meth:`Symbols.code_line`). The map
(``ReferenceType.SourceDebugExtension``, 2,12) is asked for only of a VM whose
``VirtualMachine.CapabilitiesNew`` (1,17) says ``canGetSourceDebugExtension``; the capabilities are asked
once, with the first batch that needs them.
"""

from __future__ import annotations

import bisect
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from ...client import JdwpClient
from ...protocol.commands import Command, Method, ReferenceType
from ...protocol.commands.reftypes import (
    FieldInfo,
    LineTableReply,
    MethodInfo,
    MethodOut,
    RefTypeOut,
    VariableTableReply,
)
from ...protocol.commands.vm import CapabilitiesNewReply, VersionReply
from ...protocol.constants import ACC_NATIVE, ErrorCode
from ...protocol.errors import AbsentInformation, CommandError, UsageError
from ...protocol.strings import decode_string
from ...protocol.types import Location, MethodId, ReferenceTypeId
from .._gather import gather
from ..model import NO_CODE_INDEX, SourcePosition
from ..names import binary_name_of
from .smap import Smap, read_smap

log = logging.getLogger("jdwp.debugger")

#: The commands of :meth:`Symbols._read_classes`, by what each reply is kept as.
_CLASS_COMMANDS: dict[str, Command[Any, Any]] = {
    "signature": ReferenceType.Signature, "source": ReferenceType.SourceFile, "methods": ReferenceType.Methods,
    "smap": ReferenceType.SourceDebugExtension}


@dataclasses.dataclass(frozen=True, slots=True)
class Capabilities:
    """What this engine needs to know of the VM (all false when the VM cannot say)."""

    source_debug_extension: bool = False
    source_name_filters: bool = False
    #: ``canWatchFieldModification`` / ``canWatchFieldAccess`` (watchpoints).
    field_modification: bool = False
    field_access: bool = False
    #: ``MethodExitWithReturnValue`` (event kind 42): JDWP 1.6 added it with no capability bit of its own;
    #: JDI's ``canGetMethodReturnValues`` goes by the version (>= 1.6), and so does this.
    method_return_values: bool = False
    can_pop_frames: bool = False
    #: ``canRedefineClasses`` / ``canForceEarlyReturn`` (:mod:`..changes`).
    can_redefine_classes: bool = False
    can_force_early_return: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class CodeLine:
    """Where a line of a class's code was written: source file, line, package directories, holder.

    ``owner`` is the binary name of the class the source belongs to: the class itself, or for inlined
    Kotlin code the class of the inline function (its map's path, ``com/x/InlineKt``). ``directories``
    is that source's package as a path (``com/x``; ``""`` in the default package; ``None`` when a map
    names a file without a path).
    """

    source: str | None
    line: int
    directories: str | None
    owner: str | None
    inlined: bool = False


class Symbols:
    def __init__(self, vm: JdwpClient) -> None:
        self._vm = vm
        self._capabilities: Capabilities | None = None
        self._signatures: dict[int, str] = {}
        self._listed: Mapping[int, str] = {}  # the last class listing's signatures (a breakpoint's)
        self._by_signature: dict[str, set[int]] = {}
        self._sources: dict[int, str | None] = {}
        self._smaps: dict[int, Smap | None] = {}
        self._smap_texts: dict[int, bytes] = {}  # maps a sweep read (UTF-8), parsed when first used (most never are)
        self._methods: dict[int, dict[int, MethodInfo]] = {}
        self._fields: dict[int, list[FieldInfo]] = {}
        self._lines: dict[tuple[int, int], LineTableReply | None] = {}
        self._variables: dict[tuple[int, int], VariableTableReply | None] = {}
        self._loaders: dict[int, int] = {}
        self._redefined: set[int] = set()  # classes reloaded this session (:meth:`forget_code`)

    # --- the VM ------------------------------------------------------------------------------------

    async def capabilities(self) -> Capabilities:
        """The VM's capabilities, asked once (with its JDWP version when the connection did not read it).

        Source-name filters: OpenJDK's back end implements ``SourceNameMatch`` since JDWP 1.6 but reports
        ``canUseSourceNameFilters`` false (JDI goes by the version too); either one is enough. A VM that
        cannot answer has no capabilities.
        """
        if self._capabilities is not None:
            return self._capabilities
        if self.version_known:
            return self.learn_capabilities(await _or_none(self._vm.capabilities_new))
        reply, version = await gather([partial(_or_none, self._vm.capabilities_new),
                                       partial(_or_none, self._vm.version)])
        return self._learn(reply, version)

    @property
    def version_known(self) -> bool:
        """Whether the connection read the VM's version when it opened (then the capabilities are one
        command, which a caller may send with others and hand to :meth:`learn_capabilities`)."""
        try:
            return self._vm.version_info is not None
        except UsageError:
            return False

    def learn_capabilities(self, reply: CapabilitiesNewReply | CommandError | None) -> Capabilities:
        """The answer to ``VirtualMachine.CapabilitiesNew`` (1,17) sent by a caller (an error: none), when the
        version is known (:attr:`version_known`)."""
        if isinstance(reply, CommandError):
            log.info("%s: the engine goes on without it", reply)
            reply = None
        return self._learn(reply, self._vm.version_info)

    def _learn(self, reply: CapabilitiesNewReply | None, version: VersionReply | None) -> Capabilities:
        # From the capabilities and the JDWP version only, never ``vmVersion``: ART's is no Java version (its
        # ``vmName`` is ``Dalvik``; docs/reliability.md, "ART as devices show it").
        if self._capabilities is None:  # learnt once: a second answer changes nothing
            names = bool(reply and reply.can_use_source_name_filters) or bool(
                version and (version.jdwp_major, version.jdwp_minor) >= (1, 6))
            six = bool(version and (version.jdwp_major, version.jdwp_minor) >= (1, 6))
            self._capabilities = Capabilities(bool(reply and reply.can_get_source_debug_extension), names,
                                              bool(reply and reply.can_watch_field_modification),
                                              bool(reply and reply.can_watch_field_access), six,
                                              bool(reply and reply.can_pop_frames),
                                              bool(reply and reply.can_redefine_classes),
                                              bool(reply and reply.can_force_early_return))
        return self._capabilities

    def refuse_source_name_filters(self) -> None:
        """The VM refused a ``SourceNameMatch`` request after all: use class patterns from now on."""
        if self._capabilities is not None:
            self._capabilities = dataclasses.replace(self._capabilities, source_name_filters=False)

    @property
    def known_capabilities(self) -> Capabilities | None:
        return self._capabilities

    # --- single facts ------------------------------------------------------------------------------

    async def signature(self, ref: ReferenceTypeId) -> str:
        signature = self.cached_signature(ref)
        if signature is None:
            signature = await self._vm.reference_type.signature(ref)
            self.note_signature(ref, signature)
        return signature

    def note_signature(self, ref: int, signature: str) -> None:
        """A type's signature learnt another way (``VirtualMachine.ClassesBySignature`` names it)."""
        if ref not in self._signatures:
            self._signatures[ref] = signature
            self._by_signature.setdefault(signature, set()).add(ref)

    def note_listing(self, signatures: Mapping[int, str]) -> None:
        """The signatures of a class listing (``VirtualMachine.AllClasses``, which a breakpoint reads): a type
        listed there needs no ``ReferenceType.Signature`` later. A type ID names one class for as long as the
        connection lasts (a JDWP back end does not reuse IDs), so an older listing is never wrong, only short.
        """
        self._listed = signatures

    def ids_of(self, signature: str) -> set[int]:
        """The types with this signature the session has seen (several when class loaders each define one)."""
        return self._by_signature.get(signature, set())

    def forget_code(self, ref: int) -> None:
        """A class was redefined (``VirtualMachine.RedefineClasses`` 1,18): its methods, line and variable
        tables and source map are read anew when next needed (its name, source file and loader stay).

        From now on a method of it that its new code does not list is obsolete (a frame still runs its old
        body) and has no tables here: HotSpot's JDWP agent ends the VM when asked ``Method.LineTable`` or
        ``VariableTable`` of one (libjdwp ``util.c`` ``isMethodNative`` treats JVMTI's INVALID_METHODID as
        fatal: "JDWP exit error … on checking for a native interface"), so it is never asked.
        """
        self._redefined.add(ref)
        self._methods.pop(ref, None)
        self._fields.pop(ref, None)
        self._smaps.pop(ref, None)
        self._smap_texts.pop(ref, None)
        for key in [key for key in self._lines if key[0] == ref]:
            del self._lines[key]
        for key in [key for key in self._variables if key[0] == ref]:
            del self._variables[key]

    async def _obsolete(self, ref: int, method: int) -> bool:
        """Whether ``method`` is a method of a redefined class that its new code does not list (:meth:`forget_code`)."""
        return ref in self._redefined and method not in await self.methods(ReferenceTypeId(ref))

    async def _not_obsolete(self, keys: Iterable[tuple[int, int]], tables: dict[tuple[int, int], Any]
                            ) -> list[tuple[int, int]]:
        """``keys`` without the obsolete methods', which are cached in ``tables`` as having none."""
        keys = list(dict.fromkeys(keys))
        if not self._redefined or not any(ref in self._redefined for ref, _ in keys):
            return keys
        kept = []
        for key in keys:
            if await self._obsolete(*key):
                tables.setdefault(key, None)
            else:
                kept.append(key)
        return kept

    async def source(self, ref: ReferenceTypeId) -> str | None:
        if ref not in self._sources:
            try:
                self._sources[ref] = await self._vm.reference_type.source_file(ref)
            except AbsentInformation:
                self._sources[ref] = None
        return self._sources[ref]

    async def smap(self, ref: ReferenceTypeId) -> Smap | None:
        """The class's source map; ``None`` when it has none, or the VM cannot give one."""
        if ref in self._smap_texts:
            return self.cached_smap(ref)
        if ref not in self._smaps:
            if not (await self.capabilities()).source_debug_extension:
                return None
            try:
                text: str | None = await self._vm.reference_type.source_debug_extension(ref)
            except CommandError as exc:
                if not isinstance(exc, AbsentInformation):
                    log.debug("ReferenceType.SourceDebugExtension of %#x: %s", ref, exc)
                text = None
            self._smaps[ref] = read_smap(text, self.cached_signature(ref) or f"class {ref:#x}")
        return self._smaps[ref]

    def cached_smap(self, ref: int) -> Smap | None:
        text = self._smap_texts.pop(ref, None)
        if text is not None:
            self._smaps[ref] = read_smap(decode_string(text), self.cached_signature(ref) or f"class {ref:#x}")
        return self._smaps.get(ref)

    def _has_smap_answer(self, ref: int) -> bool:
        """Whether the class's source map was asked and answered (parsed, or its text kept to parse)."""
        return ref in self._smaps or ref in self._smap_texts

    def has_map(self, ref: int) -> bool:
        """Whether the class has a source map (cached; a swept one not parsed yet counts)."""
        return ref in self._smap_texts or self._smaps.get(ref) is not None

    def smap_mentions(self, ref: int, name: str) -> bool:
        """Whether the class's map (cached) names a source file ``name``; a swept map that does not even
        contain the text is never parsed."""
        text = self._smap_texts.get(ref)
        if text is not None and name.encode() not in text:
            return False
        smap = self.cached_smap(ref)
        return smap is not None and smap.mentions(name)

    def files_named_alike(self, refs: Iterable[int], name: str) -> set[str]:
        """The source files (classes' own, and those their cached maps name) whose names are ``name`` but for
        case, as written: for a hint about a file name that matched nothing."""
        lowered = name.lower()
        ascii_lowered = lowered.encode() if name.isascii() else None  # then the bytes need no decoding first
        found: set[str] = set()
        for ref in refs:
            source = self._sources.get(ref)
            if source is not None and source.lower() == lowered:
                found.add(source)
            text = self._smap_texts.get(ref)
            if text is not None and (ascii_lowered not in text.lower() if ascii_lowered is not None
                                     else lowered not in decode_string(text).lower()):
                continue
            smap = self.cached_smap(ref) if text is not None else self._smaps.get(ref)
            if smap is not None:
                found.update(file.name for file in smap.files if file.name.lower() == lowered)
        return found

    def smap_output_file(self, ref: int) -> str | None:
        """The file a class's map (cached) says the class was compiled from: its header's output file name
        (JSR-45 §3.1: ``SMAP``, then that name), which kotlinc writes as the class's own source file."""
        text = self._smap_texts.get(ref)
        if text is not None:
            lines = text.split(b"\n", 2)
            return (decode_string(lines[1]).strip() or None) if len(lines) > 1 else None
        smap = self._smaps.get(ref)
        return smap.output_file if smap is not None else None

    def cached_source(self, ref: int) -> str | None:
        return self._sources.get(ref)

    def cached_signature(self, ref: int) -> str | None:
        signature = self._signatures.get(ref)
        if signature is None:
            signature = self._listed.get(ref)
            if signature is not None:
                self.note_signature(ref, signature)
        return signature

    def cached_methods(self, ref: int) -> dict[int, MethodInfo]:
        return self._methods.get(ref, {})

    def cached_line_table(self, ref: int, method: int) -> LineTableReply | None:
        return self._lines.get((ref, method))

    def known_variable_table(self, ref: int, method: int) -> tuple[VariableTableReply | None] | None:
        """``(table,)`` once :meth:`variable_table` has an answer (the table may be ``None``: absent), else
        ``None``: lets a hot path skip an await when everything it needs is cached."""
        key = (ref, method)
        return (self._variables[key],) if key in self._variables else None

    def cached_fields(self, ref: int) -> list[FieldInfo] | None:
        return self._fields.get(ref)

    async def fields(self, ref: ReferenceTypeId) -> list[FieldInfo]:
        """The fields the class declares; none when the VM cannot list them (they only add captured
        variables to locals, which go on without them)."""
        if ref not in self._fields:
            try:
                self._fields[ref] = await self._vm.reference_type.fields(ref)
            except CommandError as exc:
                log.debug("ReferenceType.Fields of %#x: %s", ref, exc)
                self._fields[ref] = []
        return self._fields[ref]

    async def methods(self, ref: ReferenceTypeId) -> dict[int, MethodInfo]:
        if ref not in self._methods:
            self._methods[ref] = {m.method_id: m for m in await self._vm.reference_type.methods(ref)}
        return self._methods[ref]

    async def line_table(self, ref: ReferenceTypeId, method: MethodId) -> LineTableReply | None:
        """The method's line table, or ``None`` when it has none (compiled without ``-g:lines``, or native)."""
        key = (ref, method)
        if key not in self._lines and await self._obsolete(ref, method):
            self._lines[key] = None
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
        if key not in self._variables and await self._obsolete(ref, method):
            self._variables[key] = None
        if key not in self._variables:
            try:
                self._variables[key] = await self._vm.method.variable_table(ref, method)
            except CommandError as exc:
                if not _is_absent(exc):
                    raise
                self._variables[key] = None
        return self._variables[key]

    async def prefetch_variable_table(self, location: Location | None) -> None:
        """The variable table of a stop's method (if it has a place), read with the stop: the locals asked
        next need it. A VM that cannot give it now says so again when they ask, where the error belongs."""
        if location is None:
            return
        try:
            await self.variable_table(location.class_id, location.method_id)
        except CommandError as exc:
            log.debug("variable table of a stop's method not read ahead: %s", exc)

    def cached_loader(self, ref: int) -> int | None:
        return self._loaders.get(ref)

    def note_loader(self, ref: int, loader: int) -> None:
        """A class's loader as a caller's own ``ReferenceType.ClassLoader`` (2,2) answered it."""
        self._loaders[ref] = loader

    # --- batches -----------------------------------------------------------------------------------

    async def prefetch_classes(self, refs: Iterable[int], *, methods: bool = True) -> None:
        """Signature, source file, source map and methods of every class not cached yet: one round trip.

        The first batch of a session also asks the VM's capabilities, and then the maps in a second round
        (only a VM that has them is asked for maps).
        """
        refs = list(dict.fromkeys(refs))
        if self._capabilities is not None:
            await self._read_classes(refs, methods)
            return
        thunks: list[Callable[[], Awaitable[Any]]] = []
        for ref in refs:
            rid = ReferenceTypeId(ref)
            if self.cached_signature(ref) is None:
                thunks.append(partial(self.signature, rid))
            if ref not in self._sources:
                thunks.append(partial(self.source, rid))
            if methods and ref not in self._methods:
                thunks.append(partial(self.methods, rid))
        if self._capabilities is None:
            thunks.append(self.capabilities)
        else:
            thunks += self._smap_thunks(refs)
        if thunks:
            await gather(thunks)
        await self.prefetch_smaps(refs)  # a no-op unless the capabilities came with this batch

    async def _read_classes(self, refs: list[int], methods: bool) -> None:
        """What :meth:`prefetch_classes` asks once the capabilities are known, in one write (no task per
        command): the replies are kept as :meth:`signature`, :meth:`source`, :meth:`methods` and
        :meth:`smap` keep them, and the first error those would raise is raised once all are kept."""
        maps = self._capabilities is not None and self._capabilities.source_debug_extension
        asked: list[tuple[str, int]] = []
        for ref in refs:
            asked += [(what, ref) for what, wanted in (
                ("signature", self.cached_signature(ref) is None), ("source", ref not in self._sources),
                ("methods", methods and ref not in self._methods), ("smap", maps and not self._has_smap_answer(ref)))
                if wanted]
        if not asked:
            return
        replies = await self._vm.request_all([(_CLASS_COMMANDS[what], RefTypeOut(ReferenceTypeId(ref)))
                                              for what, ref in asked])
        failure: CommandError | None = None
        for (what, ref), reply in zip(asked, replies, strict=True):
            error = reply if isinstance(reply, CommandError) else None
            if what == "signature":
                if error is None:
                    self.note_signature(ref, reply.signature)
            elif what == "source":
                if error is None or isinstance(error, AbsentInformation):
                    self._sources.setdefault(ref, None if error else reply.source_file)
                    error = None
            elif what == "methods":
                if error is None:
                    self._methods.setdefault(ref, {m.method_id: m for m in reply.declared})
            else:  # the source map: none when the VM cannot give one, never an error (as smap() keeps it)
                if error is not None and not isinstance(error, AbsentInformation):
                    log.debug("ReferenceType.SourceDebugExtension of %#x: %s", ref, error)
                if not self._has_smap_answer(ref):  # another task may have read it while these were asked
                    text = None if error else reply.extension
                    self._smaps[ref] = read_smap(text, self.cached_signature(ref) or f"class {ref:#x}")
                error = None
            failure = failure or error
        if failure is not None:
            raise failure

    async def prefetch_sources(self, refs: Iterable[int]) -> None:
        """The source file names of every class not asked yet: one round trip."""
        thunks = [partial(self.source, ReferenceTypeId(ref)) for ref in dict.fromkeys(refs) if ref not in self._sources]
        if thunks:
            await gather(thunks)

    async def prefetch_smaps(self, refs: Iterable[int]) -> None:
        """The source maps of every class not asked yet: one round trip (none when the VM has no maps)."""
        if self._capabilities is None:
            await self.capabilities()
        thunks = self._smap_thunks(refs)
        if thunks:
            await gather(thunks)

    def _smap_thunks(self, refs: Iterable[int]) -> list[Callable[[], Awaitable[Any]]]:
        if self._capabilities is None or not self._capabilities.source_debug_extension:
            return []
        return [partial(self.smap, ReferenceTypeId(ref)) for ref in dict.fromkeys(refs)
                if not self._has_smap_answer(ref)]

    # --- sweeps: every class of a listing, for a source file the user names ---------------------------------

    async def sweep_sources(self, refs: Iterable[int]) -> None:
        """The source file names (``ReferenceType.SourceFile``, 2,7) of every class not asked yet, in one write.

        A sweep asks tens of thousands of classes: the replies are read raw (:meth:`JdwpClient.request_each`),
        without a decoded record or an error object each. A class the VM cannot answer for now (unloaded) is
        not kept, and is asked again when it matters.
        """
        missing = [ref for ref in dict.fromkeys(refs) if ref not in self._sources]
        if not missing:
            return
        answers = await self._vm.request_each(ReferenceType.SourceFile, self._type_bodies(missing),
                                              timeout=self._sweep_timeout(missing))
        for ref, (error, body) in zip(missing, answers, strict=True):
            if not error:
                self._sources.setdefault(ref, decode_string(body[4:]))
            elif error == ErrorCode.ABSENT_INFORMATION:
                self._sources.setdefault(ref, None)

    async def sweep_smaps(self, refs: Iterable[int]) -> None:
        """The source maps (``ReferenceType.SourceDebugExtension``, 2,12) of every class not asked yet, in one
        write, read raw as :meth:`sweep_sources` reads; kept as text and parsed when first used (a sweep looks
        for one file's name in them). A VM without maps is not asked."""
        capabilities = self._capabilities if self._capabilities is not None else await self.capabilities()
        if not capabilities.source_debug_extension:
            return
        missing = [ref for ref in dict.fromkeys(refs) if not self._has_smap_answer(ref)]
        if not missing:
            return
        answers = await self._vm.request_each(ReferenceType.SourceDebugExtension, self._type_bodies(missing),
                                              timeout=self._sweep_timeout(missing))
        for ref, (error, body) in zip(missing, answers, strict=True):
            if self._has_smap_answer(ref):
                continue
            if error:
                self._smaps[ref] = None  # absent (most classes), or not to be had: none, as smap() keeps it
            else:
                self._smap_texts[ref] = body[4:]  # a JDWP string: its length, then its UTF-8

    def _sweep_timeout(self, refs: Sequence[int]) -> float:
        """A sweep's deadline: the usual one, and a millisecond more per command (a slow link, ADB's, carries
        tens of thousands of answers for seconds; a VM that answers none still fails in bounded time)."""
        return self._vm.request_timeout + len(refs) / 1000

    def _type_bodies(self, refs: Sequence[int]) -> list[bytes]:
        """The out-data of a ``ReferenceType`` command that takes only the type (``refType``), for each."""
        size = self._vm.id_sizes.reference_type_id_size
        return [ref.to_bytes(size, "big") for ref in refs]

    async def prefetch_lines(self, keys: Iterable[tuple[int, int]]) -> None:
        """Line tables of every (class, method) not cached yet: one round trip."""
        missing = [k for k in await self._not_obsolete(keys, self._lines) if k not in self._lines]
        if not missing:
            return
        # One write, answered in this task (as :meth:`line_table` keeps each; its first error is raised).
        replies = await self._vm.request_all([(Method.LineTable, MethodOut(ReferenceTypeId(ref), MethodId(method)))
                                              for ref, method in missing])
        failure: CommandError | None = None
        for key, reply in zip(missing, replies, strict=True):
            if not isinstance(reply, CommandError):
                self._lines.setdefault(key, reply)
            elif _is_absent(reply):
                self._lines.setdefault(key, None)
            else:
                failure = failure or reply
        if failure is not None:
            raise failure

    async def prefetch_variable_tables(self, keys: Iterable[tuple[int, int]]) -> None:
        """Variable tables (``Method.VariableTable`` 6,2) of every (class, method) not cached yet: one round trip.
        A table the VM cannot give is cached as absent only when it says so; other failures are left uncached."""
        missing = [k for k in await self._not_obsolete(keys, self._variables) if k not in self._variables]
        if not missing:
            return
        replies = await self._vm.request_all([(Method.VariableTable, MethodOut(ReferenceTypeId(ref), MethodId(method)))
                                              for ref, method in missing])
        for key, reply in zip(missing, replies, strict=True):
            if not isinstance(reply, CommandError):
                self._variables.setdefault(key, reply)
            elif _is_absent(reply):
                self._variables.setdefault(key, None)

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
        missing = [ReferenceTypeId(r) for r in dict.fromkeys(refs) if self.cached_signature(r) is None]
        if missing:
            await gather([partial(self.signature, r) for r in missing])

    def cached_name(self, ref: int) -> str | None:
        """The binary name of a type whose signature is cached (after :meth:`prefetch_signatures`)."""
        signature = self.cached_signature(ref)
        return binary_name_of(signature) if signature is not None else None

    def position(self, loc: Location) -> SourcePosition:
        """Describe a location from the cache (after :meth:`describe` or the prefetches).

        Inlined code is shown where it was written: the inline function's source and line, ``inlined``.
        """
        signature = self.cached_signature(loc.class_id)
        method = self._methods.get(loc.class_id, {}).get(loc.method_id)
        table = self._lines.get((loc.class_id, loc.method_id))
        raw = line_at(table, loc.index) if table else None
        code = self.code_line(loc.class_id, raw) if raw is not None else None
        return SourcePosition(
            class_name=binary_name_of(signature) if signature else f"<class {loc.class_id:#x}>",
            method=method.name if method else f"<method {loc.method_id:#x}>",
            source=code.source if code else self._sources.get(loc.class_id),
            line=code.line if code else None,
            code_index=code_index(loc),
            inlined=code.inlined if code else False,
        )

    def code_line(self, ref: int, line: int, name: str | None = None) -> CodeLine:
        """Where line ``line`` of the class's line table was written (from the cache), through its map.

        ``name`` is the class's binary name when the caller knows it (from a class listing or event);
        else its signature's.
        """
        if name is None:
            signature = self.cached_signature(ref)
            name = binary_name_of(signature) if signature else None
        smap = self.cached_smap(ref)
        mapped = smap.map(line) if smap is not None else None
        if mapped is None:
            directories = name.rpartition(".")[0].replace(".", "/") if name else None
            return CodeLine(self._sources.get(ref), line, directories, name)
        path = mapped.file.path
        if path is None:
            directories = None
            owner = name
        else:
            directories = mapped.file.directories
            owner = path.replace("/", ".")
        return CodeLine(mapped.file.name, mapped.line, directories, owner, mapped.inlined)

    def call_site_line(self, ref: int, line: int) -> CodeLine | None:
        """Where inlined line ``line`` of the class's line table was called from, in the class's own file (its
        map's ``KotlinDebug`` stratum, from the cache); ``None`` when the map does not say."""
        smap = self.cached_smap(ref)
        site = smap.call_site(line) if smap is not None else None
        if site is None:
            return None
        file, called = site
        owner = file.path.replace("/", ".") if file.path is not None else None
        return CodeLine(file.name, called, file.directories, owner)

    async def modifiers(self, loc: Location) -> int:
        """The access flags of the location's method (0 when the class no longer lists it)."""
        method = (await self.methods(loc.class_id)).get(loc.method_id)
        return method.mod_bits if method else 0

    async def is_native(self, loc: Location) -> bool:
        return code_index(loc) == NO_CODE_INDEX or bool(await self.modifiers(loc) & ACC_NATIVE)


async def _or_none(ask: Callable[[], Awaitable[Any]]) -> Any:
    try:
        return await ask()
    except CommandError as exc:
        log.info("%s: the engine goes on without it", exc)
        return None


def code_index(loc: Location) -> int:
    """The location's code index; a native method's (JDWP's unsigned 64-bit -1) is -1."""
    return NO_CODE_INDEX if loc.index >= 1 << 63 else loc.index


def _is_absent(exc: CommandError) -> bool:
    """ABSENT_INFORMATION, or NATIVE_METHOD: HotSpot's answer for a native method's tables (it has no code)."""
    return isinstance(exc, AbsentInformation) or exc.code == ErrorCode.NATIVE_METHOD


def line_locations(table: LineTableReply) -> list[tuple[int, int]]:
    """The method's line locations as JDI reads its table: ``(code index, line)`` by code index, one per index.

    Of entries with the same code index the last in table order is kept: kotlinc writes several at one index
    (``KotlinToJVMBytecodeCompiler.findMainClass``: 225, 232, 225, 226, 225 at index 16) and JDI's
    ``ConcreteMethodImpl.getBaseLocations`` (openjdk/jdk, src/jdk.jdi/share/classes/com/sun/tools/jdi/) records
    "only the last line entry at a particular location" — the line jdb shows there, 225. HotSpot's back end
    steps by the same rule (its ``findLineNumber`` in stepControl.c), so a step stops where these lines change.
    """
    cached = _LOCATIONS.get(id(table))
    if cached is not None and cached[0] is table:
        return cached[1]
    by_index: dict[int, int] = {}
    # Sorted here, never assumed: ART's tables come unsorted by code index (docs/reliability.md, "ART as devices
    # show it"). The sort is stable, so entries of one index keep their table order.
    for entry in sorted(table.lines, key=lambda e: e.line_code_index):
        by_index[entry.line_code_index] = entry.line_number
    found = sorted(by_index.items())
    if len(_LOCATIONS) >= _LOCATIONS_KEPT:
        _LOCATIONS.pop(next(iter(_LOCATIONS)))
    _LOCATIONS[id(table)] = (table, found)
    return found


#: :func:`line_locations` of recent tables, keyed by the table object and checked by identity (a stack
#: describes the same few methods again and again).
_LOCATIONS: dict[int, tuple[LineTableReply, list[tuple[int, int]]]] = {}
_LOCATIONS_KEPT = 1024


def line_at(table: LineTableReply, index: int) -> int | None:
    """The line of the code index, as JDI's ``ConcreteMethodImpl.codeIndexToLineInfo`` gives it: the line location
    with the greatest code index at or before it (:func:`line_locations`), and code before the first location
    belongs to the first location's line ("prolog" code: kotlinc's parameter checks of a public function come
    before its first entry, so a step into it lands there, on the function's first line as jdb shows it).
    ``None`` only for a method without line entries, or a native method's index.
    """
    if not table.lines or index < 0:
        return None
    found = line_locations(table)
    position = bisect.bisect_right(found, (index, 1 << 62)) - 1
    return found[max(position, 0)][1]

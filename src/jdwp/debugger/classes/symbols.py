"""Facts about loaded classes, by what each knows, and where a location's code was written.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). Everything here is immutable for a loaded class,
so it is fetched once per class (or method) and kept for the session. :class:`Symbols` holds one keeper
per kind of fact, each asked one way (an async getter that uses its cache, a batch ``fetch`` where
batching matters, ``known`` for what is cached):

- ``capabilities`` (:mod:`.capabilities`): what the VM can do;
- ``signatures`` (:mod:`.signatures`) and ``classes`` (:mod:`.class_lists`): types' signatures, the class
  listings, the types of a signature, class loaders;
- ``members`` (:mod:`.members`): the methods and fields a class declares;
- ``lines`` and ``variables`` (:mod:`.line_tables`): methods' line and variable tables;
- ``files`` (:mod:`.source_maps`): classes' source file names and source maps.

What needs several of them is here: the facts of many classes in one round trip
(:meth:`Symbols.prefetch_classes`), a location's class, method, source and line (:meth:`Symbols.describe`),
and a class's line through its source map (:meth:`Symbols.code_line`): a line of inlined Kotlin code is the
inline function's file and line. The capabilities are asked once, with the first batch that needs them.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import partial
from typing import Any

from ...client import JdwpClient
from ...protocol.commands import Command, ReferenceType
from ...protocol.commands.reftypes import RefTypeOut
from ...protocol.errors import AbsentInformation, CommandError
from ...protocol.types import Location, ReferenceTypeId
from .._gather import gather
from ..model import SourcePosition
from ..names import binary_name_of
from .capabilities import Capabilities, VmCapabilities
from .class_lists import ClassLists
from .line_tables import LineTables, Obsolete, VariableTables, code_index, line_at, line_locations
from .members import Members
from .signatures import Signatures
from .smap import read_smap
from .source_maps import SourceFiles

__all__ = ["Capabilities", "CodeLine", "Symbols", "code_index", "line_at", "line_locations"]

log = logging.getLogger("jdwp.debugger")

#: The commands of :meth:`Symbols._read_classes`, by what each reply is kept as.
_CLASS_COMMANDS: dict[str, Command[Any, Any]] = {
    "signature": ReferenceType.Signature, "source": ReferenceType.SourceFile, "methods": ReferenceType.Methods,
    "smap": ReferenceType.SourceDebugExtension}


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
    """The facts of one session's classes (see the module)."""

    def __init__(self, vm: JdwpClient) -> None:
        self._vm = vm
        self.capabilities = VmCapabilities(vm)
        self.classes = ClassLists()
        self.signatures = Signatures(vm, self.classes)
        self.members = Members(vm)
        obsolete = Obsolete(self.members.methods)
        self._obsolete = obsolete
        self.lines = LineTables(vm, obsolete)
        self.variables = VariableTables(vm, obsolete)
        self.files = SourceFiles(vm, self.capabilities, self.signatures)

    def forget_code(self, ref: int) -> None:
        """A class was redefined (``VirtualMachine.RedefineClasses`` 1,18): its methods, line and variable tables
        and source map are read anew when next needed (its name, source file and loader stay); a method its new
        code does not list is obsolete from now on and has no tables (:class:`.line_tables.Obsolete`)."""
        self._obsolete.redefined.add(ref)
        self.members.forget(ref)
        self.lines.forget(ref)
        self.variables.forget(ref)
        self.files.forget_map(ref)

    # --- batches -----------------------------------------------------------------------------------

    async def prefetch_classes(self, refs: Iterable[int], *, methods: bool = True) -> None:
        """Signature, source file, source map and methods of every class not cached yet: one round trip.

        The first batch of a session also asks the VM's capabilities, and then the maps in a second round
        (only a VM that has them is asked for maps).
        """
        refs = list(dict.fromkeys(refs))
        if self.capabilities.known is not None:
            await self._read_classes(refs, methods)
            return
        signatures, files, members = self.signatures, self.files, self.members
        thunks: list[Callable[[], Awaitable[Any]]] = []
        for ref in refs:
            rid = ReferenceTypeId(ref)
            if signatures.known(ref) is None:
                thunks.append(partial(signatures.get, rid))
            if ref not in files.names:
                thunks.append(partial(files.name, rid))
            if methods and ref not in members.methods_of:
                thunks.append(partial(members.methods, rid))
        thunks.append(self.capabilities.get)
        await gather(thunks)
        # The capabilities came with this batch: the maps, when the VM has them, parsed as they come.
        if self.capabilities.known is not None and self.capabilities.known.source_debug_extension:
            maps = [partial(files.map, ReferenceTypeId(ref)) for ref in refs if not files.answered(ref)]
            if maps:
                await gather(maps)

    async def _read_classes(self, refs: list[int], methods: bool) -> None:
        """What :meth:`prefetch_classes` asks once the capabilities are known, in one write (no task per
        command): the replies are kept as the keepers' getters keep them, and the first error those would raise
        is raised once all are kept."""
        known = self.capabilities.known
        maps = known is not None and known.source_debug_extension
        signatures, files, members = self.signatures, self.files, self.members
        asked: list[tuple[str, int]] = []
        for ref in refs:
            asked += [(what, ref) for what, wanted in (
                ("signature", signatures.known(ref) is None), ("source", ref not in files.names),
                ("methods", methods and ref not in members.methods_of), ("smap", maps and not files.answered(ref)))
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
                    signatures.note(ref, reply.signature)
            elif what == "source":
                if error is None or isinstance(error, AbsentInformation):
                    files.names.setdefault(ref, None if error else reply.source_file)
                    error = None
            elif what == "methods":
                if error is None:
                    members.methods_of.setdefault(ref, {m.method_id: m for m in reply.declared})
            else:  # the source map: none when the VM cannot give one, never an error (as files.map() keeps it)
                if error is not None and not isinstance(error, AbsentInformation):
                    log.debug("ReferenceType.SourceDebugExtension of %#x: %s", ref, error)
                if not files.answered(ref):  # another task may have read it while these were asked
                    text = None if error else reply.extension
                    files.maps[ref] = read_smap(text, signatures.known(ref) or f"class {ref:#x}")
                error = None
            failure = failure or error
        if failure is not None:
            raise failure


    # --- locations -----------------------------------------------------------------------------------

    async def describe(self, locations: Sequence[Location]) -> list[SourcePosition]:
        """Class, method, source and line of each location, in one round trip.

        A location names its method, so its line table need not wait for the class's facts.
        """
        classes = [loc.class_id for loc in locations]
        methods = [(loc.class_id, loc.method_id) for loc in locations]
        await gather([lambda: self.prefetch_classes(classes), lambda: self.lines.fetch(methods)])
        return [self.position(loc) for loc in locations]

    def position(self, loc: Location) -> SourcePosition:
        """Describe a location from the cache (after :meth:`describe` or the keepers' fetches).

        Inlined code is shown where it was written: the inline function's source and line, ``inlined``.
        """
        signature = self.signatures.known(loc.class_id)
        method = self.members.known_methods(loc.class_id).get(loc.method_id)
        table = self.lines.known(loc.class_id, loc.method_id)
        raw = line_at(table, loc.index) if table else None
        code = self.code_line(loc.class_id, raw) if raw is not None else None
        return SourcePosition(
            class_name=binary_name_of(signature) if signature else f"<class {loc.class_id:#x}>",
            method=method.name if method else f"<method {loc.method_id:#x}>",
            source=code.source if code else self.files.known_name(loc.class_id),
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
            name = self.signatures.name(ref)
        smap = self.files.known_map(ref)
        mapped = smap.map(line) if smap is not None else None
        if mapped is None:
            directories = name.rpartition(".")[0].replace(".", "/") if name else None
            return CodeLine(self.files.known_name(ref), line, directories, name)
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
        smap = self.files.known_map(ref)
        site = smap.call_site(line) if smap is not None else None
        if site is None:
            return None
        file, called = site
        owner = file.path.replace("/", ".") if file.path is not None else None
        return CodeLine(file.name, called, file.directories, owner)

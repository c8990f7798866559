"""Where classes were written: their source file names (``ReferenceType.SourceFile``, 2,7) and source maps
(``ReferenceType.SourceDebugExtension``, 2,12, JSR-45: :mod:`.smap`), asked once per class for the session.

Layer: ``jdwp.debugger.classes`` (trio, via ``jdwp.client``); no MCP, no ``android``.

A batch (:meth:`SourceFiles.fetch_names`, :meth:`SourceFiles.fetch_maps`) may ask tens of thousands of classes
(every class of a listing, for a source file the user names): its replies are read raw
(:meth:`JdwpClient.request_each`), without a decoded record or an error object each, and a map is kept as
text, parsed when first used (most never are). A map is asked for only of a VM whose capabilities say
``canGetSourceDebugExtension`` (:mod:`.capabilities`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from ...client import JdwpClient
from ...protocol.commands import ReferenceType
from ...protocol.constants import ErrorCode
from ...protocol.errors import AbsentInformation, CommandError
from ...protocol.strings import decode_string
from ...protocol.types import ReferenceTypeId
from .capabilities import VmCapabilities
from .signatures import Signatures
from .smap import Smap, read_smap

__all__ = ["SourceFiles"]

log = logging.getLogger("jdwp.debugger")


class SourceFiles:
    """Each class's source file name (:meth:`name`, :meth:`known_name`, :meth:`fetch_names`) and source map
    (:meth:`map`, :meth:`known_map`, :meth:`fetch_maps`)."""

    def __init__(self, vm: JdwpClient, capabilities: VmCapabilities, signatures: Signatures) -> None:
        self._vm = vm
        self._capabilities = capabilities
        self._signatures = signatures
        self.names: dict[int, str | None] = {}
        self.maps: dict[int, Smap | None] = {}
        self.texts: dict[int, bytes] = {}  # maps a batch read (UTF-8), parsed when first used

    # --- source file names ---------------------------------------------------------------------------

    async def name(self, ref: ReferenceTypeId) -> str | None:
        if ref not in self.names:
            try:
                self.names[ref] = await self._vm.reference_type.source_file(ref)
            except AbsentInformation:
                self.names[ref] = None
        return self.names[ref]

    def known_name(self, ref: int) -> str | None:
        return self.names.get(ref)

    async def fetch_names(self, refs: Iterable[int]) -> None:
        """The source file names of every class not asked yet, in one write, read raw. A class the VM cannot
        answer for now (unloaded) is not kept, and is asked again when it matters."""
        missing = [ref for ref in dict.fromkeys(refs) if ref not in self.names]
        if not missing:
            return
        answers = await self._vm.request_each(ReferenceType.SourceFile, self._type_bodies(missing),
                                              timeout=self._batch_timeout(missing))
        for ref, (error, body) in zip(missing, answers, strict=True):
            if not error:
                self.names.setdefault(ref, decode_string(body[4:]))
            elif error == ErrorCode.ABSENT_INFORMATION:
                self.names.setdefault(ref, None)

    # --- source maps ---------------------------------------------------------------------------------

    async def map(self, ref: ReferenceTypeId) -> Smap | None:
        """The class's source map; ``None`` when it has none, or the VM cannot give one."""
        if ref in self.texts:
            return self.known_map(ref)
        if ref not in self.maps:
            if not (await self._capabilities.get()).source_debug_extension:
                return None
            try:
                text: str | None = await self._vm.reference_type.source_debug_extension(ref)
            except CommandError as exc:
                if not isinstance(exc, AbsentInformation):
                    log.debug("ReferenceType.SourceDebugExtension of %#x: %s", ref, exc)
                text = None
            self.maps[ref] = read_smap(text, self._signatures.known(ref) or f"class {ref:#x}")
        return self.maps[ref]

    def known_map(self, ref: int) -> Smap | None:
        text = self.texts.pop(ref, None)
        if text is not None:
            self.maps[ref] = read_smap(decode_string(text), self._signatures.known(ref) or f"class {ref:#x}")
        return self.maps.get(ref)

    def forget_map(self, ref: int) -> None:
        """The class was redefined: its source map is read anew (its source file's name stays)."""
        self.maps.pop(ref, None)
        self.texts.pop(ref, None)

    def answered(self, ref: int) -> bool:
        """Whether the class's source map was asked and answered (parsed, or its text kept to parse)."""
        return ref in self.maps or ref in self.texts

    def has_map(self, ref: int) -> bool:
        """Whether the class has a source map (cached; one read in a batch and not parsed yet counts)."""
        return ref in self.texts or self.maps.get(ref) is not None

    async def fetch_maps(self, refs: Iterable[int]) -> None:
        """The source maps of every class not asked yet, in one write, read raw as :meth:`fetch_names` reads;
        kept as text and parsed when first used. A VM without maps is not asked."""
        capabilities = self._capabilities.known or await self._capabilities.get()
        if not capabilities.source_debug_extension:
            return
        missing = [ref for ref in dict.fromkeys(refs) if not self.answered(ref)]
        if not missing:
            return
        answers = await self._vm.request_each(ReferenceType.SourceDebugExtension, self._type_bodies(missing),
                                              timeout=self._batch_timeout(missing))
        for ref, (error, body) in zip(missing, answers, strict=True):
            if self.answered(ref):
                continue
            if error:
                self.maps[ref] = None  # absent (most classes), or not to be had: none, as map() keeps it
            else:
                self.texts[ref] = body[4:]  # a JDWP string: its length, then its UTF-8

    def map_mentions(self, ref: int, name: str) -> bool:
        """Whether the class's map (cached) names a source file ``name``; a map kept as text that does not even
        contain the name is never parsed."""
        text = self.texts.get(ref)
        if text is not None and name.encode() not in text:
            return False
        smap = self.known_map(ref)
        return smap is not None and smap.mentions(name)

    def named_alike(self, refs: Iterable[int], name: str) -> set[str]:
        """The source files (classes' own, and those their cached maps name) whose names are ``name`` but for
        case, as written: for a hint about a file name that matched nothing."""
        lowered = name.lower()
        ascii_lowered = lowered.encode() if name.isascii() else None  # then the bytes need no decoding first
        found: set[str] = set()
        for ref in refs:
            source = self.names.get(ref)
            if source is not None and source.lower() == lowered:
                found.add(source)
            text = self.texts.get(ref)
            if text is not None and (ascii_lowered not in text.lower() if ascii_lowered is not None
                                     else lowered not in decode_string(text).lower()):
                continue
            smap = self.known_map(ref) if text is not None else self.maps.get(ref)
            if smap is not None:
                found.update(file.name for file in smap.files if file.name.lower() == lowered)
        return found

    def output_file(self, ref: int) -> str | None:
        """The file a class's map (cached) says the class was compiled from: its header's output file name
        (JSR-45 §3.1: ``SMAP``, then that name), which kotlinc writes as the class's own source file."""
        text = self.texts.get(ref)
        if text is not None:
            lines = text.split(b"\n", 2)
            return (decode_string(lines[1]).strip() or None) if len(lines) > 1 else None
        smap = self.maps.get(ref)
        return smap.output_file if smap is not None else None

    def _batch_timeout(self, refs: Sequence[int]) -> float:
        """A batch's deadline: the usual one, and a millisecond more per command (a slow link, ADB's, carries
        tens of thousands of answers for seconds; a VM that answers none still fails in bounded time)."""
        return self._vm.request_timeout + len(refs) / 1000

    def _type_bodies(self, refs: Sequence[int]) -> list[bytes]:
        """The out-data of a ``ReferenceType`` command that takes only the type (``refType``), for each."""
        size = self._vm.id_sizes.reference_type_id_size
        return [ref.to_bytes(size, "big") for ref in refs]

"""The app's own classes on the host (the server's ``--class-path``): their ``@DebugMetadata`` by class.

Layer: ``jdwp.debugger.classes``; reads files on the host (synchronous: the engine runs :meth:`ClassPath.load`
in a worker thread), never the VM. docs/design.md §3.11.

An entry is a directory of class files (searched below it), a ``.jar``/``.zip`` of class files, an ``.apk``
(its ``classes*.dex``), a ``.dex`` or a single ``.class``. Every class whose bytes name the annotation is
parsed (:mod:`.classfile`, :mod:`.dex`); what it says is kept under the class's JNI signature, as JDWP names
classes (``Lcom/x/AppKt$load$1;``). A file that cannot be read or parsed is skipped and named in
:attr:`ClassPath.problems`: the rest still serves. Bounds: a member over :data:`MAX_MEMBER_BYTES` (a zip
bomb, a hostile archive) is skipped the same way, and at most :data:`MAX_FILES` files are read per entry.

The classes on the host may not be those the VM loaded (an older build): nothing checks that, and the
answer names its source (``class_path``) so a reader can tell.
"""

from __future__ import annotations

import logging
import zipfile
from collections.abc import Iterator
from pathlib import Path

from .classfile import ClassFormatError, read_class
from .debug_metadata import DebugMetadata, debug_metadata_of
from .dex import read_dex

__all__ = ["ClassPath"]

log = logging.getLogger("jdwp.debugger")

MAX_MEMBER_BYTES = 256 * 1024 * 1024
MAX_FILES = 200_000
#: A class file that carries the annotation names its type, or (renamed by R8) the stdlib's continuation
#: classes it extends; one naming neither is not parsed. A dex is always parsed: R8 renames those too.
_MARKERS = (b"kotlin/coroutines/jvm/internal/DebugMetadata", b"kotlin/coroutines/jvm/internal/")


class ClassPath:
    """``@DebugMetadata`` of the classes found on the given paths, read once (:meth:`load`)."""

    def __init__(self, entries: tuple[Path, ...]) -> None:
        self.entries = entries
        self.problems: list[str] = []
        self._metadata: dict[str, DebugMetadata] | None = None

    @property
    def loaded(self) -> bool:
        return self._metadata is not None

    def load(self) -> None:
        """Read every entry (blocking; once). Files that fail are listed in :attr:`problems`."""
        if self._metadata is not None:
            return
        found: dict[str, DebugMetadata] = {}
        for entry in self.entries:
            try:
                for name, data in _files(entry):
                    if isinstance(data, str):
                        self.problems.append(f"{name}: {data}")
                    else:
                        self._read(name, data, found)
            except (OSError, zipfile.BadZipFile, ValueError) as exc:
                self.problems.append(f"{entry}: {exc}")
        self._metadata = found
        for problem in self.problems[:20]:
            log.warning("class path: skipped %s", problem)
        log.info("class path: %d classes with @DebugMetadata in %d entries", len(found), len(self.entries))

    def lookup(self, signature: str) -> DebugMetadata | None:
        """The metadata of the class with this JNI signature, if the class path holds it (after :meth:`load`)."""
        return (self._metadata or {}).get(signature)

    def _read(self, name: str, data: bytes, found: dict[str, DebugMetadata]) -> None:
        is_dex = name.endswith(".dex")
        if not is_dex and not any(marker in data for marker in _MARKERS):
            return
        try:
            classes = read_dex(data) if is_dex else [read_class(data)]
        except ClassFormatError as exc:
            self.problems.append(f"{name}: {exc}")
            return
        for info in classes:
            metadata = debug_metadata_of(info.annotations)
            if metadata is not None:
                found[info.signature] = metadata


def _files(entry: Path) -> Iterator[tuple[str, bytes | str]]:
    """``(name, bytes)`` of every class or dex file of one class path entry; ``(name, why)`` of one skipped."""
    if entry.is_dir():
        paths = (p for p in entry.rglob("*") if p.suffix in (".class", ".dex") and p.is_file())
        for count, path in enumerate(paths):
            if count >= MAX_FILES:
                raise ValueError(f"more than {MAX_FILES} class files")
            too_big = path.stat().st_size > MAX_MEMBER_BYTES
            yield str(path), f"larger than {MAX_MEMBER_BYTES} bytes" if too_big else path.read_bytes()
        return
    suffix = entry.suffix.lower()
    if suffix in (".class", ".dex"):
        yield str(entry), entry.read_bytes()
        return
    if suffix not in (".jar", ".zip", ".apk"):
        raise ValueError("not a directory, .jar, .zip, .apk, .dex or .class")
    wanted = ".dex" if suffix == ".apk" else ".class"
    with zipfile.ZipFile(entry) as archive:
        members = [m for m in archive.infolist() if m.filename.endswith(wanted) and not m.is_dir()]
        if len(members) > MAX_FILES:
            raise ValueError(f"more than {MAX_FILES} {wanted} members")
        for member in members:
            name = f"{entry}!{member.filename}"
            if member.file_size > MAX_MEMBER_BYTES:  # the size the archive declares; zipfile stops at it
                yield name, f"larger than {MAX_MEMBER_BYTES} bytes"
            else:
                yield name, archive.read(member)

"""What a reload sends, read from the paths given: class files, class directories, jars; dex files, APKs and
dex directories.

Layer: ``jdwp.debugger.changes``; reads files on the host (synchronous: the engine runs :func:`read_sources`
in a worker thread), never the VM.

Each class found is a :class:`NewClass`: its internal name as its own bytes say (a class file's
``this_class``, a dex's ``class_def_item``), never as its path says, and the bytes to send
(``VirtualMachine.RedefineClasses`` 1,18 takes a class file on a JVM and, on ART, a dex defining only that
class: :mod:`..classes.dex_split`). A path given that does not exist, or is not a class file, dex, jar,
APK or directory, is an error; inside a directory or an archive, other files are passed over, and a member
that cannot be parsed is listed as skipped with the reason. Bounds: :data:`MAX_CLASSES` classes per reload,
:data:`MAX_BYTES` bytes per member and :data:`MAX_ENTRIES` entries looked at below a directory.
"""

from __future__ import annotations

import dataclasses
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Literal

from ..classes.class_members import ClassShape, read_shape
from ..classes.classfile import ClassFormatError
from ..classes.dex_members import read_dex_shape
from ..classes.dex_split import dex_classes, one_class_dex
from ..errors import InvalidArgument

__all__ = ["MAX_CLASSES", "NewClass", "Read", "Skipped", "read_sources"]

MAX_CLASSES = 100_000
MAX_BYTES = 64 * 1024 * 1024
MAX_ENTRIES = 200_000
Format = Literal["class", "dex"]


@dataclasses.dataclass(frozen=True, slots=True)
class NewClass:
    """A class to redefine: its internal name, the bytes read, where, and (a class file) its shape. From a dex,
    ``data`` is the whole dex and ``dex_index`` the class's ``class_def``: its own dex is cut when it is sent
    (:meth:`payload`), so an APK's thousands of classes cost nothing until one is loaded."""

    name: str
    data: bytes
    origin: str
    format: Format
    shape: ClassShape | None = None
    dex_index: int | None = None

    @property
    def signature(self) -> str:
        return f"L{self.name};"

    def payload(self) -> bytes:
        """The bytes ``RedefineClasses`` takes: the class file, or a dex defining this class only.

        Raises:
            ClassFormatError: the dex cannot be cut.
        """
        return self.data if self.dex_index is None else one_class_dex(self.data, self.dex_index)

    def declared(self) -> ClassShape | None:
        """What the class declares, for the message of a refused reload: a class file's shape, read with it; a
        dex class's, read now (only when the VM refused it: an APK's classes cost nothing until then). None when
        the dex's class data does not parse."""
        if self.dex_index is None:
            return self.shape
        try:
            return read_dex_shape(self.data, self.dex_index)
        except ClassFormatError:
            return None


@dataclasses.dataclass(frozen=True, slots=True)
class Skipped:
    """A class (or a file) not redefined, and why."""

    name: str
    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class Read:
    classes: list[NewClass]
    skipped: list[Skipped]


def read_sources(paths: Sequence[str]) -> Read:
    """Every class of ``paths``: ``.class`` files, ``.jar``/``.zip``/``.apk`` archives, ``.dex`` files, and
    directories of any of these (searched below them). A class found twice is kept once (the first).

    Raises:
        InvalidArgument: no paths, a path that does not exist or is of no kind above, or more than
            :data:`MAX_CLASSES` classes. Nothing was read into the VM.
    """
    if not paths:
        raise InvalidArgument("give paths: class files, class directories or jars (a JVM); dex files, an APK or a "
                              "dex output directory (Android)")
    found: dict[str, NewClass] = {}
    skipped: list[Skipped] = []
    for text in paths:
        path = Path(text).expanduser()
        if not path.exists():
            raise InvalidArgument(f"{text}: no such file or directory")
        if path.is_file() and _kind(path) is None:
            raise InvalidArgument(f"{text} is not a class file, dex, jar or APK (by its name: .class, .dex, .jar, "
                                  ".zip or .apk)")
        files = _files_below(path, text) if path.is_dir() else [path]
        for file in files:
            for item in _read_file(file):
                if isinstance(item, Skipped) and file == path and _kind(path) in (".class", ".dex"):
                    raise InvalidArgument(f"{text}: {item.reason}")
                if isinstance(item, Skipped):
                    skipped.append(item)
                elif item.name not in found:
                    found[item.name] = item
                if len(found) > MAX_CLASSES:
                    raise InvalidArgument(f"more than {MAX_CLASSES} classes in {text}: give the classes that changed")
    return Read(list(found.values()), skipped)


def _files_below(directory: Path, text: str) -> list[Path]:
    """The class, dex and archive files below ``directory``, looking at :data:`MAX_ENTRIES` entries at most."""
    found = []
    for seen, entry in enumerate(directory.rglob("*")):
        if seen >= MAX_ENTRIES:
            raise InvalidArgument(f"{text} holds more than {MAX_ENTRIES} files: give the build's output directory of "
                                  "the changed classes")
        if _kind(entry) and entry.is_file():
            found.append(entry)
    return sorted(found)


def _kind(path: Path) -> str | None:
    suffix = path.suffix.lower()
    return suffix if suffix in (".class", ".dex", ".jar", ".zip", ".apk") else None


def _read_file(path: Path) -> Iterator[NewClass | Skipped]:
    kind = _kind(path)
    if path.stat().st_size > MAX_BYTES and kind in (".class", ".dex"):
        yield Skipped(str(path), f"larger than {MAX_BYTES // (1024 * 1024)} MB: not read")
        return
    if kind in (".class", ".dex"):
        yield from _parse(path.read_bytes(), str(path), kind)
        return
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                member = info.filename.lower()
                member_kind = ".class" if member.endswith(".class") else ".dex" if member.endswith(".dex") else None
                if member_kind is None or info.is_dir():
                    continue
                origin = f"{path}!{info.filename}"
                if info.file_size > MAX_BYTES:
                    yield Skipped(origin, f"larger than {MAX_BYTES // (1024 * 1024)} MB: not read")
                    continue
                yield from _parse(archive.read(info), origin, member_kind)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InvalidArgument(f"{path} is not a readable jar, zip or APK: {exc}") from exc


def _parse(data: bytes, origin: str, kind: str) -> Iterator[NewClass | Skipped]:
    try:
        if kind == ".class":
            shape = read_shape(data)
            yield NewClass(shape.name, data, origin, "class", shape)
        else:
            for index, name in enumerate(dex_classes(data)):
                yield NewClass(name, data, origin, "dex", dex_index=index)
    except ClassFormatError as exc:
        yield Skipped(origin, f"not a well-formed {kind[1:]} file: {exc}")

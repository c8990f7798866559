"""JSR-45 source maps (SMAP): which source file and line each line of a class's code came from.

Layer: ``jdwp.debugger`` (pure functions and records; no I/O). Spec: JSR-45, "Debugging Support for Other
Languages", the SourceDebugExtension format. Kotlin writes one into every class that holds inlined code
(``ReferenceType.SourceDebugExtension``, JDWP 2,12)::

    SMAP
    App.kt                      the class's own source file
    Kotlin                      the default stratum
    *S Kotlin                   a stratum ...
    *F                          ... its files: "+ id name" then the path, or "id name"
    + 1 App.kt
    com/x/AppKt
    + 2 Inline.kt
    com/x/InlineKt
    *L                          ... its lines: InputStartLine#FileId,RepeatCount:OutputStartLine,Increment
    1#1,22:1                    App.kt 1..22 is the class's line 1..22 (the file's own code)
    4#2,7:23                    Inline.kt 4..10 was inlined as the class's lines 23..29
    *E

Kotlin's file path is the internal name of the class that holds the source (``com/x/InlineKt``), so its
directories are the source's package. Output lines past the file's own are inlined code: mapped, they
never show a line past the end of the file. A text that does not follow the format raises
:class:`SmapError`; :func:`read_smap` turns that into ``None`` and a log line (never the user's error).
"""

from __future__ import annotations

import dataclasses
import logging
import re

log = logging.getLogger("jdwp.debugger")

KOTLIN = "Kotlin"
KOTLIN_DEBUG = "KotlinDebug"  # inlined lines -> the call site in the caller's file
MAX_LINE_RANGES = 65536  # per stratum: more than any class's code can use (a bound on a hostile VM's text)

_LINE_INFO = re.compile(r"(\d+)(?:#(\d+))?(?:,(\d+))?:(\d+)(?:,(\d+))?")


class SmapError(ValueError):
    """A SourceDebugExtension that is not a JSR-45 SMAP this module can read."""


@dataclasses.dataclass(frozen=True, slots=True)
class SmapFile:
    """A source file of a stratum: its name (``Inline.kt``) and, when given, its path (``com/x/InlineKt``)."""

    name: str
    path: str | None = None

    @property
    def directories(self) -> str | None:
        """The path's directories (``com/x``), or ``None`` without a path."""
        if self.path is None:
            return None
        return self.path.rpartition("/")[0]


@dataclasses.dataclass(frozen=True, slots=True)
class LineRange:
    """``repeat`` input lines from ``input_start`` of file ``file_id``, each ``increment`` output lines long."""

    input_start: int
    file_id: int
    repeat: int
    output_start: int
    increment: int

    def input_line(self, output_line: int) -> int | None:
        if self.increment <= 0:
            return None  # an input line of zero output lines maps nothing
        offset = output_line - self.output_start
        if offset < 0 or offset >= self.repeat * self.increment:
            return None
        return self.input_start + offset // self.increment


@dataclasses.dataclass(frozen=True, slots=True)
class MappedLine:
    """Where one output line came from: the file, its line, and whether it is inlined code."""

    file: SmapFile
    line: int
    inlined: bool


@dataclasses.dataclass(frozen=True, slots=True)
class Stratum:
    name: str
    files: dict[int, SmapFile]
    lines: tuple[LineRange, ...]

    def map(self, output_line: int) -> tuple[SmapFile, int] | None:
        """The file and input line of an output line: the first range that covers it (as JDI reads it)."""
        entry = self.covering(output_line)
        if entry is None:
            return None
        line = entry.input_line(output_line)
        return (self.files[entry.file_id], line) if line is not None else None

    def covering(self, output_line: int) -> LineRange | None:
        for entry in self.lines:
            if entry.input_line(output_line) is not None:
                return entry
        return None


@dataclasses.dataclass(frozen=True, slots=True)
class Smap:
    output_file: str
    default_stratum: str
    strata: dict[str, Stratum]

    @property
    def source_stratum(self) -> Stratum | None:
        """The stratum that names the sources: ``Kotlin`` when present, else the default stratum."""
        return self.strata.get(KOTLIN) or self.strata.get(self.default_stratum)

    def map(self, output_line: int) -> MappedLine | None:
        """The source file and line of an output line, or ``None`` when the map does not cover it.

        Only Kotlin marks code as inlined: a line of another file than the class's own (the file of the
        first range), or one that does not map to itself. Other languages' strata (JSP) map every line
        to another file, and none of it is inlined.
        """
        stratum = self.source_stratum
        if stratum is None or not stratum.lines:
            return None
        found = stratum.map(output_line)
        if found is None:
            return None
        file, line = found
        inlined = False
        if stratum.name == KOTLIN:
            own = stratum.files.get(stratum.lines[0].file_id)
            inlined = file != own or line != output_line
        return MappedLine(file, line, inlined)

    def call_site(self, output_line: int) -> tuple[SmapFile, int] | None:
        """Where an inlined output line was called from (Kotlin's ``KotlinDebug`` stratum), if known.

        Kotlin writes the call's line as the start of a range that covers the whole inlined body
        (``13#1,7:23``: lines 23..29 were called from line 13), not line for line.
        """
        debug = self.strata.get(KOTLIN_DEBUG)
        entry = debug.covering(output_line) if debug is not None else None
        return (debug.files[entry.file_id], entry.input_start) if debug is not None and entry is not None else None

    def own_line(self, output_line: int) -> int:
        """The line of the class's own file an output line shows: an inlined line's call site (``KotlinDebug``),
        else the line itself. A line that maps to another file with no call site is kept as it is."""
        site = self.call_site(output_line)
        return site[1] if site is not None else output_line

    @property
    def files(self) -> list[SmapFile]:
        """Every file every stratum names."""
        return [file for stratum in self.strata.values() for file in stratum.files.values()]

    def mentions(self, name: str) -> bool:
        """Whether any stratum names a file called ``name``."""
        return any(file.name == name for file in self.files)


def parse_smap(text: str) -> Smap:
    """Parse a resolved SMAP (JSR-45 §3).

    Raises:
        SmapError: not an SMAP, or a section this module cannot read.
    """
    lines = [line.strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    if len(lines) < 3 or lines[0] != "SMAP" or not lines[1] or not lines[2]:
        raise SmapError("it does not start with an SMAP header (SMAP, the output file, the default stratum)")
    output_file, default_stratum = lines[1], lines[2]
    strata: dict[str, Stratum] = {}
    current: _Building | None = None
    section = ""
    position = 3
    while position < len(lines):
        line = lines[position]
        position += 1
        if not line:
            continue
        if line.startswith("*"):
            section, argument = line[1:2], line[2:].strip()
            if section == "S":
                if current is not None:
                    strata[current.name] = current.build()
                if not argument:
                    raise SmapError("a stratum section without a name")
                current = _Building(argument)
            elif section == "E":
                # The end — but Kotlin ends each stratum so and puts KotlinDebug after the first end.
                following = next((text for text in lines[position:] if text), "")
                if not following.startswith("*S"):
                    break
            elif section == "O":
                raise SmapError("an unresolved (embedded) SMAP")
            elif section not in ("F", "L", "V"):
                raise SmapError(f"an unknown section *{section}")
            continue
        if section == "V":
            continue  # vendor information: not ours to read
        if current is None:
            raise SmapError("a file or line section outside a stratum")
        if section == "F":
            position = current.add_file(line, lines, position)
        elif section == "L":
            current.add_lines(line)
        else:
            raise SmapError(f"text outside any section: {line[:40]!r}")
    else:
        if section != "E":
            raise SmapError("no *E end section")
    if current is not None:
        strata[current.name] = current.build()
    return Smap(output_file, default_stratum, strata)


def read_smap(text: str | None, where: str) -> Smap | None:
    """:func:`parse_smap`, or ``None`` (with a log line naming ``where``) for a map it cannot read."""
    if not text:
        return None
    try:
        return parse_smap(text)
    except SmapError as exc:
        log.info("ignoring the source map of %s: %s", where, exc)
        return None


class _Building:
    def __init__(self, name: str) -> None:
        self.name = name
        self.files: dict[int, SmapFile] = {}
        self.lines: list[LineRange] = []
        self._file_id = 0

    def add_file(self, line: str, lines: list[str], position: int) -> int:
        has_path = line.startswith("+")
        if has_path:
            line = line[1:].strip()
        number, _, name = line.partition(" ")
        if not number.isdigit() or not name.strip():
            raise SmapError(f"a bad file entry: {line[:40]!r}")
        path = None
        if has_path:
            if position >= len(lines) or not lines[position] or lines[position].startswith("*"):
                raise SmapError(f"file {number} has no path line")
            path = lines[position]
            position += 1
        self.files[int(number)] = SmapFile(name.strip(), path)
        return position

    def add_lines(self, line: str) -> None:
        match = _LINE_INFO.fullmatch(line)
        if match is None:
            raise SmapError(f"a bad line entry: {line[:40]!r}")
        start, file_id, repeat, output, increment = match.groups()
        if file_id is not None:
            self._file_id = int(file_id)
        if len(self.lines) >= MAX_LINE_RANGES:
            raise SmapError(f"more than {MAX_LINE_RANGES} line entries")
        self.lines.append(LineRange(int(start), self._file_id, 1 if repeat is None else int(repeat), int(output),
                                    1 if increment is None else int(increment)))

    def build(self) -> Stratum:
        unknown = {entry.file_id for entry in self.lines} - set(self.files)
        if unknown:
            raise SmapError(f"stratum {self.name} maps lines to undeclared file {min(unknown)}")
        return Stratum(self.name, dict(self.files), tuple(self.lines))

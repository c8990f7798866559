"""What a breakpoint asks for — a class and its nested classes, or a source file — and which code that is.

Layer: ``jdwp.debugger`` (pure functions and records; no I/O). docs/design.md §3.1.

- :class:`ClassTarget` ``com.x.Foo``: the class and every class nested in it (``com.x.Foo$…``) compiled from
  the same source file, plus inline functions of those classes wherever Kotlin inlined them.
- :class:`FileTarget` ``Foo.kt`` or ``app/src/main/java/com/x/Foo.kt`` (``\\`` accepted): every class whose
  code was written in a file of that name — for a path, in a package whose directories end the path's
  directories (``com/x``, or ``x``, …; the default package always). A bare name is searched in every package
  (:meth:`Listing.sweep`): Kotlin names a file's classes freely (``@file:JvmName``), and an inline-only
  file's code runs only where it was inlined.

A line of a class's code is matched by where it was written (:class:`~.symbols.CodeLine`, read through the
class's source map): its file name, package directories and the class that holds the source.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable, Mapping, Sequence

from ...protocol.commands.events import ClassMatch, Modifier, SourceNameMatch
from ..classes.symbols import CodeLine
from ..classes.synthetic import is_nested_in, kotlin_facade, outermost, package_of
from ..errors import InvalidArgument
from ..names import binary_name_of, is_binary_name, signature_of

SOURCE_SUFFIXES = (".java", ".kt", ".kts", ".scala", ".groovy")
SOURCE_ROOTS = ("java", "kotlin")  # Gradle's and Maven's src/<set>/java|kotlin: the package starts below
MAX_HINTS = 3
#: The JDK's own packages (OpenJDK's modules; on Android, libcore's, with ``dalvik.`` and ``libcore.``): compiled
#: by javac from Java sources, so no class there holds a Kotlin file's code or a source map. A Kotlin file's sweep
#: skips them; a Java file's does not.
JDK_PACKAGES = ("java.", "javax.", "jdk.", "sun.", "com.sun.", "dalvik.", "libcore.")


@dataclasses.dataclass(frozen=True, slots=True)
class ClassTarget:
    class_name: str


@dataclasses.dataclass(frozen=True, slots=True)
class FileTarget:
    """``text`` as given; ``name`` the file name; ``directories`` the path's directories (none for a name)."""

    text: str
    name: str
    directories: tuple[str, ...] = ()

    @property
    def stem(self) -> str:
        return self.name.rsplit(".", 1)[0] if "." in self.name else self.name

    @property
    def kotlin(self) -> bool:
        return self.name.endswith((".kt", ".kts"))


Target = ClassTarget | FileTarget


def class_target(class_name: str) -> ClassTarget:
    """Raises: InvalidArgument: not a binary class name."""
    if not isinstance(class_name, str) or not is_binary_name(class_name):
        raise InvalidArgument(f"className {class_name!r} is not a binary class name like com.example.Foo$Bar")
    return ClassTarget(class_name)


def file_target(text: str) -> FileTarget:
    """A source file name or path; ``/`` and ``\\`` separate directories.

    Raises:
        InvalidArgument: empty, a NUL, a ``..`` directory, or a path that ends in a separator.
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument("file must be a source file name (MainActivity.kt) or a path ending in one")
    if "\x00" in text:
        raise InvalidArgument("file must not contain a NUL character")
    if len(text) > 512:
        raise InvalidArgument("file must be at most 512 characters")
    parts = text.replace("\\", "/").split("/")
    if ".." in parts:
        raise InvalidArgument(f"file {text!r} has a '..' directory: give the path as the project lays it out, "
                              "e.g. app/src/main/java/com/x/Foo.kt")
    if not parts[-1].strip():
        raise InvalidArgument(f"file {text!r} ends with a separator: it must end with the file's name")
    directories = tuple(p for p in parts[:-1] if p and p != "." and not p.endswith(":"))  # drive letters too
    return FileTarget(text, parts[-1], directories)


# --- which code a target covers ------------------------------------------------------------------------


def directories_match(package_directories: str, path_directories: Sequence[str]) -> bool:
    """Whether a package (``com/x``) is a suffix of a path's directories (``app/src/main/java/com/x``)."""
    package = [p for p in package_directories.split("/") if p]
    if len(package) > len(path_directories):
        return False
    return not package or list(path_directories[-len(package):]) == package


def covers(target: Target, code: CodeLine, line: int, expected_source: str | None = None) -> bool:
    """Whether a line of code is the target's ``line``.

    ``expected_source`` (a class target) is the source file of the named class when known: a class
    nested by name but compiled from another file is not the class's code.
    """
    return code.line == line and of_target(target, code, expected_source)


def of_target(target: Target, code: CodeLine, expected_source: str | None = None) -> bool:
    """Whether a line of code was written in the target's source (any line)."""
    return is_targets(target, code.owner, code.source, code.directories, expected_source)


def is_targets(target: Target, owner: str | None, source: str | None, directories: str | None,
               expected_source: str | None = None) -> bool:
    """Whether code (a class, or a line of one) is the target's own: of the named class or one nested in it
    (``owner``, a binary name) — compiled from ``expected_source`` when that is known (a class nested by name
    but compiled from another file is not the class's code) — or, for a file, written in that file, in a
    package (``directories``, ``com/x``; ``None``: not known) that the file's path ends with.
    """
    if isinstance(target, ClassTarget):
        if owner is None or not is_nested_in(owner, target.class_name):
            return False
        return expected_source is None or source == expected_source
    if source != target.name:
        return False
    return not target.directories or directories is None or directories_match(directories, target.directories)


def suffix_packages(directories: Sequence[str]) -> set[str]:
    """Every package a path's directories may end with: ``a/com/x`` → ``x``, ``com.x``, ``a.com.x`` and ``""``."""
    return {".".join(directories[i:]) for i in range(len(directories) + 1)}


class Listing:
    """A class listing (``VirtualMachine.AllClasses``: type ID and JNI signature of each prepared class).

    A real app's VM lists tens of thousands of classes: the filters work on the signatures as sent, and
    only the classes picked get their binary names made.
    """

    def __init__(self, classes: Iterable[tuple[int, str]]) -> None:
        self.classes = list(classes)
        self.signatures: Mapping[int, str] = dict(self.classes)

    def name(self, ref: int) -> str:
        return binary_name_of(self.signatures[ref])

    def names(self) -> list[str]:
        return [binary_name_of(signature) for _, signature in self.classes]

    def has(self, class_name: str) -> bool:
        wanted = signature_of(class_name)
        return any(signature == wanted for _, signature in self.classes)

    def in_packages(self, packages: Iterable[str]) -> list[int]:
        """The classes whose package is one of ``packages`` (``""``: the default package)."""
        wanted = {package.replace(".", "/") for package in packages}
        return [ref for ref, signature in self.classes if _package_path(signature) in wanted]

    def under(self, prefixes: Iterable[str]) -> list[int]:
        """The classes whose binary names start with one of ``prefixes`` (``com.x.Foo``, ``com.example.``)."""
        starts = tuple("L" + prefix.replace(".", "/") for prefix in prefixes if prefix)
        return [ref for ref, signature in self.classes if signature.startswith(starts)] if starts else []

    def outside(self, prefixes: Iterable[str]) -> list[int]:
        starts = tuple("L" + prefix.replace(".", "/") for prefix in prefixes)
        return [ref for ref, signature in self.classes if not signature.startswith(starts)]

    def named_after(self, stem: str) -> list[int]:
        facade = kotlin_facade(stem)
        # Every such name contains the stem or the facade: a substring test passes over the rest cheaply.
        return [ref for ref, signature in self.classes if (stem in signature or facade in signature)
                and _simple_named_after(_simple(signature), stem, facade)]

    def sweep(self, skip: Sequence[str] = (), nesting: dict[int, str] | None = None) -> Sweep:
        """Every class (not an array) outside the packages ``skip``, and the top-level class of each nested one
        that is listed too (they share a source file, so only top-level classes need to be asked theirs).

        ``nesting`` keeps, across listings, each class's top-level signature (``""``: it is one), which a type
        ID never changes.
        """
        starts = tuple("L" + prefix.replace(".", "/") for prefix in skip)
        nesting = {} if nesting is None else nesting
        refs: list[int] = []
        tops: dict[str, int] = {}
        nested: list[tuple[int, str]] = []
        for ref, signature in self.classes:
            outer = nesting.get(ref)
            if outer is None:
                outer = nesting[ref] = _top_signature(signature)
            if starts and signature.startswith(starts):
                continue
            if not outer:
                refs.append(ref)
                tops.setdefault(signature, ref)
            elif outer != "[":
                refs.append(ref)
                nested.append((ref, outer))
        return Sweep(refs, {ref: tops[outer] for ref, outer in nested if outer in tops})


@dataclasses.dataclass(frozen=True, slots=True)
class Sweep:
    """The classes a source file is searched in; ``outer`` maps a nested class to its listed top-level class."""

    refs: list[int]
    outer: dict[int, int]

    @property
    def top(self) -> list[int]:
        """The classes whose source file must be asked: top-level ones, and nested ones whose top is not listed."""
        return [ref for ref in self.refs if ref not in self.outer]


def _top_signature(signature: str) -> str:
    """The top-level class's signature of a nested class (``Lcom/x/Foo$1;`` → ``Lcom/x/Foo;``); ``""`` for a
    top-level class (a name that starts with ``$`` is its own top level); ``"["`` for an array or primitive."""
    if not signature.startswith("L"):
        return "["
    start = max(signature.rfind("/") + 1, 1)
    cut = signature.find("$", start)
    return signature[:cut] + ";" if cut > start else ""


def _package_path(signature: str) -> str:
    cut = signature.rfind("/")
    return signature[1:cut] if cut > 0 else ""


def _simple(signature: str) -> str:
    """The outermost class's simple name in a JNI signature: ``Lcom/x/Foo$1;`` → ``Foo``."""
    simple = signature[1:-1].rpartition("/")[2]
    return simple.split("$", 1)[0] or simple


def _simple_named_after(simple: str, stem: str, facade: str) -> bool:
    return simple in (stem, facade) or simple.endswith("__" + facade)


def listed_candidates(target: Target, listing: Listing) -> list[int]:
    """The classes of a listing whose source may be the target's: to be asked about.

    A class: the class and those nested in it. A path: every class in a package the path may end with.
    A bare file name: every class in the packages of classes named after the file (``Foo``, ``FooKt`` for
    ``foo.kt``, …): a file's classes share its package, whatever their names (the other packages are swept).
    """
    if isinstance(target, ClassTarget):
        exact = signature_of(target.class_name)
        nested = exact[:-1] + "$"
        return [ref for ref, signature in listing.classes if signature == exact or signature.startswith(nested)]
    if target.directories:
        return listing.in_packages(suffix_packages(target.directories))
    return listing.in_packages({package_of(listing.name(ref)) for ref in listing.named_after(target.stem)})


def package_root(package: str) -> str:
    """The first two parts of a package (``com.example``): where an app's classes that may inline from a
    file of ``package`` are looked for."""
    return ".".join(package.split(".")[:2])


# --- class-prepare requests ------------------------------------------------------------------------------


def watches(target: Target, source_name_filters: bool) -> list[tuple[Modifier, ...]]:
    """The class-prepare requests (their modifiers) that tell about classes of the target loaded later.

    A class: ``Foo`` and ``Foo$*``. A file: ``SourceNameMatch`` on its name where the VM has source-name
    filters (OpenJDK's back end also matches the names in a class's source map, so classes that inline the
    file's functions come too); else class patterns derived from the name and the path.
    """
    if isinstance(target, ClassTarget):
        return [(ClassMatch(target.class_name),), (ClassMatch(target.class_name + "$*"),)]
    if source_name_filters:
        return [(SourceNameMatch(target.name),)]
    facade = kotlin_facade(target.stem)
    patterns = [f"*.{target.stem}", f"*.{facade}", target.stem, facade]
    if target.directories:
        patterns += [f"{package}.*" for package in _rooted_packages(target.directories)]
    return [(ClassMatch(pattern),) for pattern in dict.fromkeys(patterns)]


def source_watch(source: str) -> tuple[Modifier, ...]:
    """Classes loaded later whose code (their own or inlined, through their map) was written in ``source``."""
    return (SourceNameMatch(source),)


def _rooted_packages(directories: Sequence[str]) -> list[str]:
    """The packages a path names below a source root (``src/main/java/com/x`` → ``com.x``); every suffix
    package when it has none."""
    for index in range(len(directories) - 1, -1, -1):
        if directories[index] in SOURCE_ROOTS:
            below = directories[index + 1:]
            return [".".join(below)] if below else []
    return sorted(p for p in suffix_packages(directories) if p)


# --- hints for a target nothing matches ------------------------------------------------------------------


def near_miss(target: Target, loaded: Sequence[str], alike: Iterable[str] = ()) -> str | None:
    """Why nothing of a pending target may ever load, when its name looks mistyped; ``None`` when it looks
    right (it may simply not be loaded yet).

    ``alike``: for a file, the source files of loaded code (classes' own, and those their maps name) whose
    names equal the target's but for case. A name is never called wrong because of how classes are named.
    """
    if isinstance(target, FileTarget):
        return _file_near_miss(target, set(alike))
    name = target.class_name
    package, _, simple = name.rpartition(".")
    if simple in ("java", "kt", "kts", "class") and package:
        path = package.replace(".", "/") + "." + simple
        return (f"{name} looks like a file name, not a class: set the breakpoint with file {path!r}, or with "
                f"className {package}")
    loaded_set = set(loaded)
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        outer = ".".join(parts[:cut])
        nested = outer + "$" + "$".join(parts[cut:])
        if outer in loaded_set or nested in loaded_set:
            return (f"{name} is not a loaded class, but {outer} is: a nested class is named with '$' "
                    f"({nested})")
    similar = _similar(name, loaded)
    if similar:
        return f"no loaded class is named {name}; similar loaded classes: {', '.join(similar)}"
    if len(parts) > 2 and parts[-2][:1].isupper():  # packages are lower case; Outer.Inner is source syntax
        nested = ".".join(parts[:-1]) + "$" + parts[-1]
        return f"{name} looks like a nested class written with '.': its binary name uses '$' ({nested})"
    return None


def _file_near_miss(target: FileTarget, alike: set[str]) -> str | None:
    name, stem = target.name, target.stem
    if name.endswith(".class"):
        return f"{name} is a compiled class file: give the source file's name ({stem}.java or {stem}.kt)"
    if not name.endswith(SOURCE_SUFFIXES):
        return f"{name} has no source file extension: give the file's name as written ({name}.java or {name}.kt)"
    if "." in stem:
        path = stem.replace(".", "/") + name[len(stem):]
        return f"{name} looks like a class name with an extension: give the file as a path ({path}) or a name"
    others = sorted(alike - {name})
    if name in alike or not others:
        return None
    return (f"no loaded code was compiled from {name}, but code from {', '.join(others[:MAX_HINTS])} is loaded: file "
            f"names are case-sensitive (set the breakpoint with file {others[0]!r} if that is the file)")


def _similar(name: str, loaded: Sequence[str]) -> list[str]:
    simple = name.rpartition(".")[2].lower()
    package = package_of(name)
    same_simple = [n for n in loaded if n.rpartition(".")[2].lower() == simple and "$" not in n]
    if same_simple:
        return sorted(same_simple)[:MAX_HINTS]
    neighbours = {outermost(n).rpartition(".")[2]: outermost(n) for n in loaded if package_of(n) == package}
    close = difflib.get_close_matches(name.rpartition(".")[2], sorted(neighbours), n=MAX_HINTS, cutoff=0.75)
    return [neighbours[simple] for simple in close]

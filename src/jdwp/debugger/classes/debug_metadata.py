"""Kotlin's ``@kotlin.coroutines.jvm.internal.DebugMetadata``: what a coroutine's state machine says of itself.

Layer: ``jdwp.debugger.classes`` (records and pure functions; reading files is :mod:`.class_path`'s).

kotlinc puts the annotation on every class it makes for a suspend function's continuation or a suspend
lambda. Its elements, by their JVM names (Kotlin's stdlib, ``libraries/stdlib/jvm/src/kotlin/coroutines/
jvm/internal/DebugMetadata.kt`` in JetBrains/kotlin):

- ``v`` version: 1 (Kotlin 1.3, the default, so kotlinc 1.3 leaves it out) or 2 (Kotlin 2.2, which adds ``nl``);
- ``f`` the source file, ``m`` the method and ``c`` the class (dotted) the suspend code was written in;
- ``l`` line numbers, one per suspension point: the line of point ``k`` is ``l[k]``;
- ``n``, ``s``, ``i`` three parallel arrays: at suspension point ``i[j]`` the local variable ``n[j]`` is
  spilled into the field ``s[j]`` (``L$0``, ``I$1``, …);
- ``nl`` (v2) the line after each suspension point, where a step over it should stop.

The continuation's ``label`` field says where it is: after suspending at point ``k`` it is ``k + 1`` (0 is not
started). The stdlib's readers (``getStackTraceElement``, ``getSpilledVariableFieldMapping``,
``getNextLineNumber`` in ``DebugMetadataKt``) use ``label - 1`` as the index; so do :meth:`DebugMetadata.line`
and :meth:`DebugMetadata.spilled_at`. ``label`` carries ``Integer.MIN_VALUE`` while a resumed suspend function
re-enters itself (the compiler's ``label |= MIN_VALUE`` / ``label -= MIN_VALUE``): the sign bit is masked.

R8: the annotation survives shrinking where ``RuntimeVisibleAnnotations`` are kept (most Android apps, by
libraries' consumer rules); obfuscation renames its type (``@nb1(c=…, f=…, l=…, m=…)``, Kotlin/kotlinx.coroutines
#2267) and the continuation classes, while ``c`` and ``m`` keep the names as written. An annotation of another
type name is taken for a renamed ``DebugMetadata`` when its shape is exactly that (:func:`debug_metadata_of`).
``-assumenosideeffects`` on ``getDebugMetadataAnnotation`` or a ``-checkdiscard`` rule removes it altogether:
then only the raw field names are left.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from .classfile import Annotation, ElementValue

__all__ = ["DEBUG_METADATA", "DebugMetadata", "debug_metadata_of", "masked_label"]

DEBUG_METADATA = "Lkotlin/coroutines/jvm/internal/DebugMetadata;"
KNOWN_VERSIONS = (1, 2)
_ELEMENTS = frozenset({"v", "f", "l", "n", "s", "i", "m", "c", "nl"})


def masked_label(raw: int) -> int:
    """A continuation's ``label`` without the sign bit its re-entry sets."""
    return raw & 0x7FFFFFFF


@dataclasses.dataclass(frozen=True, slots=True)
class DebugMetadata:
    """One class's ``@DebugMetadata``, with the annotation's defaults for elements not written."""

    version: int = 1
    source_file: str = ""
    line_numbers: tuple[int, ...] = ()
    local_names: tuple[str, ...] = ()
    spilled: tuple[str, ...] = ()
    index_to_label: tuple[int, ...] = ()
    method_name: str = ""
    class_name: str = ""
    next_line_numbers: tuple[int, ...] = ()

    def line(self, label: int) -> int | None:
        """The line of the suspension point a continuation with this (masked) ``label`` last passed."""
        return _at(self.line_numbers, label - 1)

    def next_line(self, label: int) -> int | None:
        """The line after that suspension point (v2's ``nl``); ``None`` for v1 or past its end."""
        return _at(self.next_line_numbers, label - 1) if self.version >= 2 else None

    def spilled_at(self, label: int) -> list[tuple[str, str]]:
        """``(field, variable name)`` of each variable spilled at that suspension point, in the table's order."""
        point = label - 1  # a hostile table's arrays may differ in length: the shortest decides
        rows = zip(self.spilled, self.local_names, self.index_to_label, strict=False)
        return [(field, name) for field, name, at in rows if at == point]


def _at(values: tuple[int, ...], index: int) -> int | None:
    if not 0 <= index < len(values) or values[index] < 0:
        return None
    return values[index]


def debug_metadata_of(annotations: Iterable[Annotation]) -> DebugMetadata | None:
    """The ``@DebugMetadata`` among a class's annotations (by its type, or by its shape after R8 renamed it);
    ``None`` when none is there or its version is not one this reader knows (below 1 the stdlib ignores it)."""
    found = None
    for annotation in annotations:
        if annotation.type == DEBUG_METADATA:
            found = annotation
            break
        if found is None and _looks_like(annotation.values):
            found = annotation
    if found is None:
        return None
    values = found.values
    version = values.get("v", 1)
    if not isinstance(version, int) or version < 1:
        return None
    return DebugMetadata(version, _text(values.get("f")), _ints(values.get("l")), _texts(values.get("n")),
                         _texts(values.get("s")), _ints(values.get("i")), _text(values.get("m")),
                         _text(values.get("c")), _ints(values.get("nl")))


def _looks_like(values: dict[str, ElementValue]) -> bool:
    """A renamed ``DebugMetadata``: only its element names, with ``c`` and ``m`` texts and ``l`` a list."""
    return (set(values) <= _ELEMENTS and isinstance(values.get("c"), str) and isinstance(values.get("m"), str)
            and isinstance(values.get("l"), list))


def _text(value: ElementValue) -> str:
    return value if isinstance(value, str) else ""


def _texts(value: ElementValue) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _ints(value: ElementValue) -> tuple[int, ...]:
    return tuple(v for v in value if isinstance(v, int)) if isinstance(value, list) else ()

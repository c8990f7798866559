"""Kotlin's inlined calls as frames, as IntelliJ shows them: the inline function's frame(s) above the real one.

Layer: ``jdwp.debugger`` (pure functions on cached facts; no I/O). docs/design.md §3.6.

kotlinc copies an inline function's body into its caller and marks the copy in the caller's variable table: an
``int`` named ``$i$f$<function>`` is live over the inlined body, ``$i$a$-<function>-<Lambda>`` over an inlined
lambda's body (a lambda passed to an inline function, copied too). Markers nest as the calls do. At a code index
inside them the JVM has one frame; we show one per live marker, innermost first, then the real frame:

- the innermost frame is where the code index is (its line through the class's source map: the inline
  function's file and line);
- every frame below shows its call of the frame above: the line of the code just before that marker's body
  starts (kotlinc writes the call's line there), read through the map — for the real frame a line of its own
  file, the call site (``findMainClass`` line 232 for an inlined ``singleOrNull``). Where that code is the
  inline function's own (the default arguments kotlinc inlines before the marker: ``withLock``'s ``owner``,
  Mutex.kt 107), the map's ``KotlinDebug`` stratum gives the real frame's call site (Pipeline.kt 22).

An inline function's frame is its source's class (the map's path: ``kotlin.sequences.SequencesKt___SequencesKt``)
and its name; an inlined lambda's is the class the lambda would have compiled to (``Foo$bar$1``, in the real
frame's package) and ``invoke``. Every one is ``inlined``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ...protocol.commands.reftypes import LineTableReply, VariableSlot, VariableTableReply
from ..classes.symbols import CodeLine, line_at
from ..classes.synthetic import is_inline_marker
from ..model import SourcePosition

#: A raw line of one class, through that class's map (:meth:`.Symbols.code_line` of the frame's class).
CodeLineOf = Callable[[int], CodeLine]
#: An inlined raw line of one class to the line that called it, in the class's own file (``None``: not known).
CallSiteOf = Callable[[int], CodeLine | None]
_FUNCTION = "$i$f$"
INLINE_LAMBDA = "$i$a$-"  # a lambda passed to an inline function, inlined with it


@dataclasses.dataclass(frozen=True, slots=True)
class InlineChain:
    """The frames of one JVM frame running inlined code: ``inlined`` innermost first, and the real frame."""

    inlined: tuple[SourcePosition, ...]
    real: SourcePosition


def live_markers(variables: VariableTableReply, index: int) -> list[VariableSlot]:
    """The inline markers live at ``index``, outermost first (a nested call's body starts later)."""
    live = [v for v in variables.slots
            if is_inline_marker(v.name) and v.code_index <= index < v.code_index + v.length]
    return sorted(live, key=lambda v: (v.code_index, -v.length))


def inline_chain(position: SourcePosition, lines: LineTableReply, variables: VariableTableReply,
                 code_line: CodeLineOf, call_site: CallSiteOf | None = None) -> InlineChain | None:
    """The frames of ``position`` (a JVM frame's, described through the map) when inlined code runs there, else
    ``None``. ``code_line`` maps a raw line of the frame's class through its map (:meth:`.Symbols.code_line`);
    ``call_site`` an inlined one to its call site through the map's ``KotlinDebug`` stratum
    (:meth:`.Symbols.call_site_line`)."""
    index = position.code_index
    if index < 0:
        return None
    markers = live_markers(variables, index)
    if not markers:
        return None
    package = position.class_name.rpartition(".")[0]
    # Where each frame is: the innermost at the index; each one below at its call of the one above.
    places: list[CodeLine | None] = []
    for marker in markers[1:]:
        places.append(_call_of(marker, lines, code_line))
    here = line_at(lines, index)
    places.append(code_line(here) if here is not None else None)
    inlined = []
    for marker, place in zip(markers, places, strict=True):
        class_name, method = _frame_name(marker.name, package, place)
        inlined.append(SourcePosition(class_name, method, place.source if place else position.source,
                                      place.line if place else None, index, inlined=True))
    call = _call_of(markers[0], lines, code_line)
    if call is not None and call.inlined and call_site is not None:
        # The code before the outermost body is the inline function's too (``withLock``'s ``owner`` argument,
        # Mutex.kt 107): its KotlinDebug range names the line that made the call (Pipeline.kt 22).
        before = line_at(lines, markers[0].code_index - 1)
        site = call_site(before) if before is not None else None
        call = site if site is not None else call
    real = dataclasses.replace(position, source=call.source if call else position.source,
                               line=call.line if call else None, inlined=False)
    return InlineChain(tuple(reversed(inlined)), real)


def _call_of(marker: VariableSlot, lines: LineTableReply, code_line: CodeLineOf) -> CodeLine | None:
    """The line of the call whose inlined body ``marker`` spans: the code just before the body begins."""
    before = line_at(lines, marker.code_index - 1) if marker.code_index > 0 else None
    return code_line(before) if before is not None else None


def _frame_name(marker: str, package: str, place: CodeLine | None) -> tuple[str, str]:
    """Class and method of an inlined frame (see the module's doc)."""
    if marker.startswith(INLINE_LAMBDA):
        _, _, lambda_class = marker[len(INLINE_LAMBDA):].partition("-")
        if lambda_class:
            return (f"{package}.{lambda_class}" if package else lambda_class), "invoke"
    name = marker[len(_FUNCTION):] if marker.startswith(_FUNCTION) else marker
    owner = place.owner if place is not None and place.owner else None
    return owner or package, name

"""Lines with lambdas: which of a line's locations run a lambda's code, which ones a breakpoint keeps, and
when a further hit of the line is the same pass through it.

Layer: ``jdwp.debugger``; pure (no trio, no wire): :mod:`.breakpoints` hands in the line's locations with
their methods' line and variable tables, and :mod:`.judge` asks :class:`Passes` at each hit. docs/design.md §3.10.

**Which code is a lambda's.** As IntelliJ's Kotlin debugger tells them:

- an inline function's lambda (``xs.sumBy { it.a }``, ``require(c) { "…" }``) is copied into the calling
  method; kotlinc marks the copy with an ``int`` variable ``$i$a$-<function>-<name>`` whose scope in the
  method's variable table is the lambda's code (kotlinc 1.3 writes ``$i$a$-sumBy-LambdasKt$work$s$1``;
  before 1.3, ``$i$a$1$sumBy``). The innermost such scope holding a code index is its lambda;
- a non-inline lambda runs in a method of its own: kotlinc's class ``Outer$method$1`` (method ``invoke``, or
  ``invokeSuspend`` for a suspend lambda), javac's ``lambda$method$0``, kotlinc's ``method$lambda$0`` and
  ``method$lambda-0`` (invokedynamic lambdas, Kotlin 1.5 and later), D8's ``Outer$$ExternalSyntheticLambda0``
  holders (they forward to the ``lambda$…`` method; a line of theirs is the lambda's).

A lambda is **a lambda of the line** only when the line also has code outside it: a line inside a lambda's
body spanning several lines is that line's own code (as IntelliJ offers no lambda for it).

**Ordinals.** ``lambda: n`` is IntelliJ's "λ n" choice: the line's lambdas in source order, from 0
(IntelliJ's ``JavaLineBreakpointProperties.lambdaOrdinal``; ``-1`` there is our ``"line"``, ``null`` our
``"all"``). Source order is read from the names kotlinc invents for lambdas, which count up in source order
in one counter for inline and non-inline lambdas alike (``LambdasKt$work$v$1`` is a class,
``$i$a$-sumBy-LambdasKt$work$v$2`` the inline lambda after it), nested ones after their parent; javac's
``lambda$m$N`` by ``N``.

**A pass** (:class:`Passes`): two locations of a line in one method and one lambda (or none) are *linked*
when no line-table entry between them belongs to another line of the line's own source (entries of inlined
functions' code, mapped to other files, do not count). A hit of a breakpoint is the same pass as the previous
stop (or log) of that breakpoint in that thread when it is in the same frame (same method, same depth),
linked to it and at a greater code index, and the thread made no other stop in between. The same pass
never stops twice.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from typing import Literal

from ...protocol.commands.reftypes import VariableSlot
from ..errors import InvalidArgument
from .synthetic import captured_name, is_inline_marker, lambda_holder_host, source_name

LambdaChoice = Literal["all", "line"] | int

_NEW_MARKER = re.compile(r"\$i\$a\$-[^-]*-(?P<name>.+)")  # kotlinc 1.3+: $i$a$-sumBy-LambdasKt$work$s$1
_JAVAC_LAMBDA = re.compile(r"lambda\$.*\$(?P<n>\d+)")  # javac: lambda$main$0
_KOTLIN_INDY = re.compile(r".+\$lambda[-$](?P<n>\d+)")  # kotlinc 1.5+: main$lambda-0, main$lambda$0
_LAMBDA_CLASS_METHODS = ("invoke", "invokeSuspend")
_PART = re.compile(r"\d+|\D+")


def parse_choice(value: object) -> LambdaChoice:
    """``"all"`` (default), ``"line"`` or a lambda's ordinal (``>= 0``).

    Raises:
        InvalidArgument: anything else.
    """
    if value in ("all", "line"):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 1000:
        return value
    raise InvalidArgument(f'lambda must be "all", "line" or a lambda\'s ordinal on the line (0, 1, …), got {value!r}')


@dataclasses.dataclass(frozen=True, slots=True)
class Scope:
    """A lambda a code index is in: its name and, for an inline lambda, its marker's code range."""

    name: str
    start: int = 0
    end: int = -1  # exclusive; -1: the whole method (a lambda of its own method)


@dataclasses.dataclass(slots=True)
class Candidate:
    """One code index of the line, as :mod:`.breakpoints` found it, and what this module makes of it."""

    key: object  # the caller's handle for the location
    class_id: int
    method_id: int
    class_name: str
    method_name: str
    index: int
    variables: Sequence[VariableSlot] | None  # the method's variable table (None: unknown or absent)
    fields: Sequence[str] = ()  # the class's field names (captured variables of a lambda class)
    scopes: tuple[Scope, ...] = ()  # the lambdas holding it, outermost first
    lambda_name: str | None = None  # the innermost lambda of the line holding it
    ordinal: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Skip:
    key: object
    reason: str


def scopes_of(class_name: str, method_name: str, index: int,
              variables: Sequence[VariableSlot] | None) -> tuple[Scope, ...]:
    """The lambdas that hold a code index, outermost first (its method's own lambda, then inline ones)."""
    found: list[Scope] = []
    own = method_lambda(class_name, method_name)
    if own is not None:
        found.append(Scope(own))
    inline = [slot for slot in variables or () if slot.name.startswith("$i$a$")
              and slot.code_index <= index < slot.code_index + slot.length]
    for slot in sorted(inline, key=lambda s: (s.code_index, -s.length)):
        match = _NEW_MARKER.fullmatch(slot.name)
        # Before kotlinc 1.3 the marker names no lambda: its place names it (counted in code order below).
        name = match.group("name") if match else f"{slot.name}@{slot.code_index:08d}"
        found.append(Scope(name, slot.code_index, slot.code_index + slot.length))
    return tuple(found)


def method_lambda(class_name: str, method_name: str) -> str | None:
    """The lambda a method is, by javac's and kotlinc's names, or ``None``."""
    simple = class_name.rpartition(".")[2]
    if _JAVAC_LAMBDA.fullmatch(method_name) or _KOTLIN_INDY.fullmatch(method_name):
        return f"{simple}.{method_name}"
    if lambda_holder_host(class_name) is not None:  # D8's holder of a desugared lambda (it forwards to lambda$…)
        return simple
    parts = simple.split("$")
    # kotlinc's lambda class: Outer$method$1 (nested in a method: a top-level anonymous class is Outer$1)
    if method_name in _LAMBDA_CLASS_METHODS and len(parts) >= 3 and parts[-1].isdigit():
        return simple
    return None


def order_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Source order of invented names: segment by segment, numbers as numbers (``$2`` before ``$10``)."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in _PART.findall(name))


def classify(candidates: Sequence[Candidate]) -> None:
    """Fill in each candidate's scopes, its lambda of the line and that lambda's ordinal."""
    for c in candidates:
        c.scopes = scopes_of(c.class_name, c.method_name, c.index, c.variables)
    # A lambda is the line's when some location of the line is outside it.
    line_lambdas = {s.name for c in candidates for s in c.scopes
                    if any(s.name not in {t.name for t in other.scopes} for other in candidates)}
    order = sorted(line_lambdas, key=order_key)
    for c in candidates:
        inner = [s.name for s in c.scopes if s.name in line_lambdas]
        c.lambda_name = inner[-1] if inner else None
        c.ordinal = order.index(c.lambda_name) if c.lambda_name is not None else None


def select(candidates: Sequence[Candidate], choice: LambdaChoice) -> list[Candidate]:
    """The candidates a breakpoint's ``lambda`` choice keeps (classified first)."""
    if choice == "all":
        return list(candidates)
    if choice == "line":
        return [c for c in candidates if c.lambda_name is None]
    return [c for c in candidates if c.ordinal == choice]


def names_in_scope(candidate: Candidate) -> set[str] | None:
    """The locals (by source name) live at the candidate's index, with a lambda class's captured variables;
    ``None`` without a variable table."""
    if candidate.variables is None:
        return None
    found = {source_name(slot.name) for slot in candidate.variables
             if not is_inline_marker(slot.name) and slot.code_index <= candidate.index < slot.code_index + slot.length}
    found |= {name for name in (captured_name(f) for f in candidate.fields) if name is not None}
    return found


def out_of_scope(candidates: Sequence[Candidate], names: Iterable[str]) -> list[tuple[Candidate, str]]:
    """The candidates where a name the condition or message reads is not a variable, while it is one at another
    location of the line (so it is a local there, not a field or static a hit could read anywhere).

    Returns each skipped candidate with the reason. A method without a variable table is never skipped.
    """
    wanted = sorted(set(names))
    scopes = [(c, names_in_scope(c)) for c in candidates]
    known = set().union(*(found for _, found in scopes if found is not None))
    skipped = []
    for candidate, found in scopes:
        if found is None:
            continue
        missing = [name for name in wanted if name not in found and name in known]
        if missing:
            where = f"lambda {candidate.ordinal}" if candidate.ordinal is not None else "the line outside its lambdas"
            listed = ", ".join(f"'{name}'" for name in missing)
            skipped.append((candidate, f"{listed} not in scope at this code index ({where}); "
                                       "the condition or logMessage names it"))
    return skipped


def link(candidates: Sequence[Candidate], entries_of: dict[tuple[int, int], list[tuple[int, bool]]],
         ) -> dict[object, PassSpot]:
    """Each candidate's run of linked locations (see the module's docstring). ``entries_of[(class, method)]``
    is the method's line-table entries, each code index with whether it is another line of the line's own
    source. A location alone in its run needs no pass rule (its spot's ``chain`` is ``None``)."""
    groups: dict[tuple[int, int, str | None], list[Candidate]] = {}
    for c in candidates:
        groups.setdefault((c.class_id, c.method_id, c.lambda_name), []).append(c)
    spots: dict[object, PassSpot] = {}
    for (class_id, method_id, name), members in groups.items():
        entries = entries_of.get((class_id, method_id), [])
        members.sort(key=lambda c: c.index)
        runs: list[list[Candidate]] = []
        for before, after in zip([None, *members], members, strict=False):
            if before is None or any(foreign and before.index <= at < after.index for at, foreign in entries):
                runs.append([])
            runs[-1].append(after)
        for run in runs:
            chain = (class_id, method_id, run[0].index, name) if len(run) > 1 else None
            for c in run:
                spots[c.key] = PassSpot(chain, c.index)
    return spots


@dataclasses.dataclass(frozen=True, slots=True)
class PassSpot:
    """What the pass rule needs of a bound location: its run of linked locations (``None``: alone in it)."""

    chain: tuple[int, int, int, str | None] | None  # (class, method, first index, lambda)
    index: int


class Passes:
    """The pass each thread is in, per breakpoint and run of linked locations: a hit in the same pass as the
    run's last stop does not stop. A stop in the line's lambda (another run) does not end the line's pass."""

    def __init__(self) -> None:
        self._last: dict[tuple[str, int, tuple[int, int, int, str | None]], tuple[int, int]] = {}

    def same_pass(self, breakpoint_id: str, thread: int, depth: int, spot: PassSpot) -> bool:
        """Whether a hit continues the pass of the breakpoint's last stop in this thread and run; a hit that
        does moves the pass on to its index."""
        if spot.chain is None:
            return False
        key = (breakpoint_id, thread, spot.chain)
        last = self._last.get(key)
        if last is None or last[0] != depth or spot.index <= last[1]:
            return False
        self._last[key] = (depth, spot.index)
        return True

    def stopped(self, breakpoint_id: str, thread: int, depth: int | None, spot: PassSpot | None) -> None:
        """A hit of the breakpoint stopped (or logged): a pass begins."""
        if spot is not None and spot.chain is not None and depth is not None:
            self._last[(breakpoint_id, thread, spot.chain)] = (depth, spot.index)

    def thread_stopped(self, thread: int, breakpoint_ids: Iterable[str]) -> None:
        """The thread stopped: the passes of the breakpoints that did not make the stop end."""
        keep = set(breakpoint_ids)
        for key in [k for k in self._last if k[1] == thread and k[0] not in keep]:
            del self._last[key]

    def forget(self, breakpoint_id: str) -> None:
        for key in [k for k in self._last if k[0] == breakpoint_id]:
            del self._last[key]

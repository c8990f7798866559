"""Which of a line's code indexes a breakpoint binds: the rules of :mod:`.lambdas` applied to the tables the
session has cached, for :mod:`.breakpoints` (called from one place, its ``_bind``).

Layer: ``jdwp.debugger`` (trio, via :class:`~.symbols.Symbols`). docs/design.md §3.10. The methods' variable tables
are read only where they decide something: Kotlin classes (inline lambdas are told by their markers), and
every class when the breakpoint's condition or message names variables (a location where one is out of scope
is skipped). They come in one round (``Method.VariableTable`` 6,2), and the fields of lambda classes (their
captured variables) in one more, only for such a breakpoint.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from functools import partial

from ...protocol.types import Location, ReferenceTypeId
from .._gather import gather
from ..classes.lambdas import (
    Candidate,
    LambdaChoice,
    PassSpot,
    classify,
    link,
    method_lambda,
    out_of_scope,
    select,
)
from ..classes.symbols import CodeLine, Symbols
from ..model import SkippedLocation
from .hits import HitPlan

_KOTLIN = (".kt", ".kts")


@dataclasses.dataclass
class LineChoice:
    """One breakpoint's locations as classified so far (every class bound adds to them)."""

    line: int = 0
    candidates: list[Candidate] = dataclasses.field(default_factory=list)
    bound: list[Candidate] = dataclasses.field(default_factory=list)
    skipped: list[SkippedLocation] = dataclasses.field(default_factory=list)
    spots: dict[Location, PassSpot] = dataclasses.field(default_factory=dict)
    sources: dict[tuple[int, int], str | None] = dataclasses.field(default_factory=dict)  # each method's line's

    async def choose(self, symbols: Symbols, found: Sequence[tuple[int, Location, str | None]], line: int,
                     choice: LambdaChoice, plan: HitPlan | None, name_of: Callable[[int], str | None],
                     ) -> dict[Location, int | None]:
        """Of the line's code indexes just found (class, location, source), those to bind, each with the
        ordinal of the lambda it runs (``None``: the line's own code)."""
        self.line = line
        if not found:
            return {}
        names = (plan.frame_names or frozenset()) if plan is not None else frozenset()
        keys = [(t, loc.method_id) for t, loc, source in found if names or (source or "").endswith(_KOTLIN)]
        await symbols.variables.fetch(keys)
        fresh = []
        for type_id, location, _ in found:
            method = symbols.members.known_methods(type_id).get(location.method_id)
            known = symbols.variables.known(type_id, location.method_id)
            table = known[0] if known is not None else None
            fresh.append(Candidate(location, type_id, location.method_id, name_of(type_id) or "",
                                   method.name if method is not None else "", location.index,
                                   table.slots if table is not None else None))
        lambda_classes = list(dict.fromkeys(c.class_id for c in fresh if names
                                            and method_lambda(c.class_name, c.method_name) is not None))
        if lambda_classes:
            await gather([partial(symbols.members.fields, ReferenceTypeId(t)) for t in lambda_classes])
            for c in fresh:
                c.fields = [f.name for f in symbols.members.known_fields(c.class_id) or ()]
        self.candidates += fresh
        classify(self.candidates)
        picked = select(fresh, choice)
        picked_ids = {id(c) for c in picked}
        out = {id(c): why for c, why in out_of_scope(self.candidates, names) if id(c) in picked_ids}
        chosen: dict[Location, int | None] = {}
        for c in picked:
            why = out.get(id(c))
            if why is None:
                self.bound.append(c)
                chosen[c.key] = c.ordinal  # type: ignore[index]
                continue
            position = symbols.position(c.key)  # type: ignore[arg-type]
            self.skipped.append(SkippedLocation(position.class_name, position.method, c.index, why,
                                                c.ordinal is not None, c.ordinal))
        entries: dict[tuple[int, int], list[tuple[int, bool]]] = {}
        self.sources.update({(t, loc.method_id): source for t, loc, source in found})
        for c in self.bound:
            method_key = (c.class_id, c.method_id)
            lines = symbols.lines.known(*method_key)
            own = self.sources.get(method_key)
            if lines is None or method_key in entries:
                continue
            name = name_of(c.class_id)
            entries[method_key] = [(e.line_code_index, _other_line(symbols.code_line(c.class_id, e.line_number, name),
                                                                   own, line)) for e in lines.lines]
        self.spots = link(self.bound, entries)  # type: ignore[assignment]
        return chosen

    def why_none(self, choice: LambdaChoice) -> str | None:
        """Why nothing of the line is bound although it has code, or ``None`` when it has none."""
        if not self.candidates:
            return None
        armed = "; it stays armed: a class loaded later with such code at the line binds it"
        if self.skipped:
            return (f"every code index of line {self.line} chosen was skipped: {self.skipped[0].reason} "
                    f"(see skipped){armed}")
        lambdas = len({c.lambda_name for c in self.candidates if c.lambda_name is not None})
        if choice == "line":
            return f"line {self.line} has code only inside its {lambdas} lambdas{armed}"
        return (f"line {self.line} has no lambda {choice}: it has {lambdas} lambdas with code loaded "
                f"(ordinals from 0){armed}")


def _other_line(code: CodeLine, source: str | None, line: int) -> bool:
    """Whether a line-table entry is another line of the line's own source (inlined code's lines are not)."""
    return code.source == source and code.line != line

"""What a stop reads for its caller when it is made: its stack, frame 0's locals and some expressions.

Layer: ``jdwp.debugger``; pure (no trio, no wire). docs/design.md §3.5 ("Capture on stop").

A request that can stop (a line or exception breakpoint, a step, a run-to; a watchpoint takes it the same way)
carries a :class:`Capture` in its options record: checked and parsed when the request is set, so a capture over
its bounds or an expression that does not parse is ``InvalidArgument`` and nothing changes. The stop reads it
(:mod:`..events.capture`) while it is made, pipelined with the stop's own first questions, and the stop carries
what it read; a capture that fails in part (an expression that cannot be evaluated) still delivers the stop,
with that item's error. Locals are read only when asked for (``locals: true``): values are private.

The hook, for a new kind of request that stops (a watchpoint): keep the :class:`CapturePlan` in its options
record, and answer it from :meth:`.manager.Requests.capture_of` for its breakpoint IDs (as exception
breakpoints do); :meth:`..events.eventsets.EventSets.capture_of` merges the captures of all a stop's requests.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from ..errors import InvalidArgument
from ..model import Capture
from ..reading.expressions import Expr, ExpressionSyntaxError, first_call, parse_expression

__all__ = ["MAX_CAPTURE_EXPRESSIONS", "MAX_CAPTURE_STACK", "Capture", "CapturePlan", "merge", "plan_capture"]

MAX_CAPTURE_STACK = 20
MAX_CAPTURE_EXPRESSIONS = 10


@dataclasses.dataclass(frozen=True, slots=True)
class CapturePlan:
    """A capture, checked, with each expression's tree."""

    capture: Capture
    trees: tuple[Expr, ...] = ()


def plan_capture(capture: Capture) -> CapturePlan:
    """Check and parse a capture.

    Raises:
        InvalidArgument: ``stack`` outside 0–20, more than 10 expressions, one that does not parse (an
            ``ExpressionSyntaxError`` with its column, naming which) or that calls a method.
    """
    stack = capture.stack
    if not isinstance(stack, int) or isinstance(stack, bool) or not 0 <= stack <= MAX_CAPTURE_STACK:
        raise InvalidArgument(f"capture.stack must be an integer from 0 to {MAX_CAPTURE_STACK}, got {stack!r}")
    if not isinstance(capture.locals, bool):
        raise InvalidArgument("capture.locals must be true or false")
    expressions = tuple(capture.expressions)
    if len(expressions) > MAX_CAPTURE_EXPRESSIONS:
        raise InvalidArgument(f"capture.expressions has {len(expressions)} entries; at most "
                              f"{MAX_CAPTURE_EXPRESSIONS} are accepted")
    trees = []
    for number, text in enumerate(expressions, 1):
        if not isinstance(text, str) or not text.strip():
            raise InvalidArgument(f"capture.expressions[{number - 1}] must be a non-empty expression")
        try:
            tree = parse_expression(text)
        except ExpressionSyntaxError as exc:
            raise ExpressionSyntaxError(f"in capture.expressions[{number - 1}]: {exc.reason}", exc.column) from None
        call = first_call(tree)
        if call is not None:  # a stop being made runs no app code, whatever the session allows
            raise InvalidArgument(f"column {call.column}: in capture.expressions[{number - 1}]: {call.name}() is a "
                                  "method call; a capture reads values only (evaluate it once stopped instead)")
        trees.append(tree)
    return CapturePlan(dataclasses.replace(capture, expressions=expressions), tuple(trees))


def merge(plans: Iterable[CapturePlan | None]) -> CapturePlan | None:
    """One capture for a stop that several requests make together (a breakpoint hit ending a step): the
    deepest stack, locals if any asks, every expression once in the order first given."""
    found = [plan for plan in plans if plan is not None]
    if len(found) <= 1:
        return found[0] if found else None
    trees: dict[str, Expr] = {}
    for plan in found:
        for text, tree in zip(plan.capture.expressions, plan.trees, strict=True):
            trees.setdefault(text, tree)
    capture = Capture(max(p.capture.stack for p in found), any(p.capture.locals for p in found), tuple(trees))
    return CapturePlan(capture, tuple(trees.values()))

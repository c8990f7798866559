"""What a line breakpoint does when it is hit: condition, hit count, stop or log, and how much it suspends.

Layer: ``jdwp.debugger``; pure (no trio, no wire). docs/design.md §3.5 (conditions, hit counts, logpoints) and
§3.5 (``suspend: "thread"``). Everything is checked and parsed when the breakpoint is set, so a bad
condition or template is ``InvalidArgument`` (with the column of a syntax error) and nothing changes;
:mod:`.judge` applies the plan at each hit.

A breakpoint with any of these options is requested with suspend policy ``EVENT_THREAD``: a hit holds only
the hitting thread while it is judged, and a hit that does not stop (a false condition, a hit before the
``hitCount``-th, every logpoint hit) releases exactly that thread. JDWP's ``Count`` modifier is not used for
``hitCount``: it expires the request once it fires (JDWP spec, EventRequest.Set modifier 1), while a hit
count keeps stopping on every later hit.

A condition or message part that calls a method is refused unless the session may run app code
(``--allow-invoke``, :func:`allowing_calls`); then each hit runs it (:attr:`HitPlan.invokes`, which the
breakpoint's ``note`` says).
"""

from __future__ import annotations

import dataclasses
import enum
from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import Protocol

from .._gather import scoped
from ..errors import InvalidArgument
from ..model import HitOptions
from ..reading.expressions import (
    MAX_EXPRESSION_CHARS,
    Expr,
    ExpressionSyntaxError,
    first_call,
    frame_names,
    parse_expression,
)
from .capture import CapturePlan, plan_capture

DEFAULT_MAX_HITS = 100
MAX_MAX_HITS = 10_000  # docs/design.md §6
MAX_TEMPLATE_CHARS = 512


@dataclasses.dataclass(frozen=True, slots=True)
class HitPlan:
    """The options, parsed: the condition's tree and the log template's parts (text or expressions)."""

    options: HitOptions
    condition: Expr | None = None
    template: tuple[str | Expr, ...] | None = None
    #: The names the condition and the message's parts look up in the frame; ``None`` when one of them needs
    #: the frame's ``this`` (:func:`.expressions.frame_names`). A hit skips ``this`` when all are locals.
    frame_names: frozenset[str] | None = None
    capture: CapturePlan | None = None
    #: The condition or a part of the message calls a method (allowed by :func:`allowing_calls`): each hit
    #: runs app code.
    invokes: bool = False


@dataclasses.dataclass(slots=True)
class HitCounts:
    """What a breakpoint's hits came to so far (the condition was true, or there was none)."""

    hits: int = 0  # hits that passed the condition
    logged: int = 0  # logpoint hits past the hit count (captured or dropped)
    dropped: int = 0  # logpoint hits counted but not captured (the rate limit)
    stopped: int = 0  # hits that made a stop (a stopping breakpoint's ``maxHits`` counts them)
    spent: bool = False


def spent(plan: HitPlan, counts: HitCounts) -> bool:
    """Whether a breakpoint is spent: its requests cleared, or its ``maxHits``-th hit logged or stopped already
    (hits judged at once with that one, or come before the clear, are let go uncounted)."""
    max_hits = plan.options.max_hits
    if counts.spent or max_hits is None:
        return counts.spent
    return (counts.logged if plan.options.action == "log" else counts.stopped) >= max_hits


def count_stop(plan: HitPlan, counts: HitCounts) -> bool:
    """Count a hit that stops; whether it is the last its ``maxHits`` allows (then the breakpoint is spent:
    removed, at the stop it makes)."""
    counts.stopped += 1
    return plan.options.max_hits is not None and counts.stopped >= plan.options.max_hits


class Keep(enum.Enum):
    """An option that an update leaves as it is (``None`` clears it): ``update_debugger_breakpoint``."""

    KEEP = "keep"


KEEP = Keep.KEEP


def updated_options(options: HitOptions, condition: str | Keep | None = KEEP, hit_count: int | Keep | None = KEEP,
                    log_message: str | Keep | None = KEEP) -> HitOptions:
    """``options`` with the given ones changed (``None`` clears one; :data:`KEEP` leaves it). Check the
    result with :func:`plan_hits` before anything is changed."""
    changes: dict[str, str | int | None] = {}
    if condition is not KEEP:
        changes["condition"] = condition
    if hit_count is not KEEP:
        changes["hit_count"] = hit_count
    if log_message is not KEEP:
        changes["log_message"] = log_message
    return dataclasses.replace(options, **changes)  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True, slots=True)
class Revision:
    """A breakpoint's options as an update leaves them: the new plan, whether the options changed, and whether
    its hits count from zero again (a new condition or hit count; a new message keeps the count)."""

    plan: HitPlan | None
    changed: bool
    recount: bool


def revise(plan: HitPlan | None, condition: str | Keep | None = KEEP, hit_count: int | Keep | None = KEEP,
           log_message: str | Keep | None = KEEP, *, always_judged: bool = False) -> Revision:
    """What ``update_debugger_breakpoint`` makes of a breakpoint's ``plan`` (``None`` clears an option,
    :data:`KEEP` leaves it), checked before anything is changed. ``always_judged``: the breakpoint keeps a plan
    with no option (a method exit's hits are all judged).

    Raises:
        ExpressionSyntaxError, InvalidArgument: as :func:`plan_hits`.
    """
    before = plan.options if plan is not None else HitOptions()
    after = updated_options(before, condition, hit_count, log_message)
    revised = plan_hits(after) if after != HitOptions() or always_judged else None
    return Revision(revised, after != before,
                    (after.condition, after.hit_count) != (before.condition, before.hit_count))


class Revisable(Protocol):
    """A breakpoint's entry as :func:`revise_entry` changes it (line, watchpoint and method entries)."""

    plan: HitPlan | None
    counts: HitCounts


def revise_entry(breakpoint_id: str, entry: Revisable, condition: str | Keep | None = KEEP,
                 hit_count: int | Keep | None = KEEP, log_message: str | Keep | None = KEEP, *,
                 always_judged: bool = False) -> bool:
    """Apply an update's options to ``entry`` (its plan, and its counts where they start again); whether the
    options changed. Every check comes first, so a refused update changes nothing.

    Raises:
        InvalidArgument: the entry is a spent logpoint (its ``maxHits`` reached), or as :func:`revise`.
        ExpressionSyntaxError: as :func:`revise`.
    """
    if entry.counts.spent:
        raise InvalidArgument(f"{breakpoint_id} is spent (its logpoint reached maxHits) and takes no change; "
                              "set a new logpoint")
    revision = revise(entry.plan, condition, hit_count, log_message, always_judged=always_judged)
    if revision.changed:
        entry.plan = revision.plan
        if revision.recount:
            entry.counts = HitCounts()
    return revision.changed


def plan_of(options: HitOptions) -> HitPlan | None:
    """The plan of a line breakpoint's options; ``None`` for a plain breakpoint (no option given).

    Raises:
        ExpressionSyntaxError, InvalidArgument: as :func:`plan_hits`.
    """
    return plan_hits(options) if options != HitOptions() else None


def plan_hits(options: HitOptions) -> HitPlan:
    """Check and parse the options of a line breakpoint.

    Raises:
        ExpressionSyntaxError: the condition or a ``{…}`` part of ``log_message`` does not parse (an
            ``InvalidArgument`` with the 1-based column in that text).
        InvalidArgument: any other bad option. Nothing is changed.
    """
    if options.action not in ("stop", "log"):
        raise InvalidArgument(f'action must be "stop" or "log", not {options.action!r}')
    if options.suspend not in ("all", "thread"):
        raise InvalidArgument(f'suspend must be "all" or "thread", not {options.suspend!r}')
    hit_count = options.hit_count
    if hit_count is not None and (not isinstance(hit_count, int) or isinstance(hit_count, bool) or hit_count < 1):
        raise InvalidArgument(f"hitCount must be an integer >= 1, got {hit_count!r}")
    # A logpoint's maxHits defaults to DEFAULT_MAX_HITS; a breakpoint that stops has none unless given (1: a
    # one-shot, removed at its stop).
    max_hits = DEFAULT_MAX_HITS if options.max_hits is None and options.action == "log" else options.max_hits
    if max_hits is not None and (not isinstance(max_hits, int) or isinstance(max_hits, bool)
                                 or not 1 <= max_hits <= MAX_MAX_HITS):
        raise InvalidArgument(f"maxHits must be an integer from 1 to {MAX_MAX_HITS}, got {max_hits!r}")
    if options.action == "stop":
        if options.log_message is not None:
            raise InvalidArgument('logMessage is for action "log" (a logpoint)')
    else:
        if options.suspend == "thread":
            raise InvalidArgument('suspend is for breakpoints that stop; a logpoint (action "log") never stops')
        if options.capture is not None:
            raise InvalidArgument('capture is for breakpoints that stop; a logpoint (action "log") never stops')
        options = dataclasses.replace(options, max_hits=max_hits)
    capture = plan_capture(options.capture) if options.capture is not None else None
    if capture is not None:
        options = dataclasses.replace(options, capture=capture.capture)
    condition = None
    if options.condition is not None:
        try:
            condition = parse_expression(options.condition)
        except ExpressionSyntaxError as exc:
            raise ExpressionSyntaxError(f"in the condition: {exc.reason}", exc.column) from None
        _refuse_calls(condition, "the condition", 0)
    template = parse_template(options.log_message) if options.log_message is not None else None
    invokes = any(first_call(e) is not None for e in (condition, *(template or ()))
                  if e is not None and not isinstance(e, str))
    return HitPlan(options, condition, template, _frame_names(condition, template), capture, invokes)


def _frame_names(condition: Expr | None, template: tuple[str | Expr, ...] | None) -> frozenset[str] | None:
    exprs = [condition] if condition is not None else []
    exprs += [part for part in template or () if not isinstance(part, str)]
    names: set[str] = set()
    for expr in exprs:
        found = frame_names(expr)
        if found is None:
            return None
        names |= found
    return frozenset(names)


def parse_template(text: str) -> tuple[str | Expr, ...]:
    """Split a log message into text and ``{expression}`` parts; ``{{`` and ``}}`` are literal braces.

    Raises:
        ExpressionSyntaxError: an unclosed or empty ``{}``, a lone ``}``, or a part that does not parse;
            the column counts from the start of the whole message.
    """
    if len(text) > MAX_TEMPLATE_CHARS:
        raise InvalidArgument(f"logMessage has {len(text)} characters; at most {MAX_TEMPLATE_CHARS} are accepted")
    parts: list[str | Expr] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char in "{}" and text.startswith(char * 2, i):
            literal.append(char)
            i += 2
            continue
        if char == "}":
            raise ExpressionSyntaxError("in logMessage: a lone '}' (write '}}' for a brace)", i + 1)
        if char != "{":
            literal.append(char)
            i += 1
            continue
        end = _closing_brace(text, i + 1)
        source = text[i + 1:end]
        if not source.strip():
            raise ExpressionSyntaxError("in logMessage: an empty {} (put an expression inside, or write '{{')", i + 1)
        try:
            expr = parse_expression(source)
        except ExpressionSyntaxError as exc:
            raise ExpressionSyntaxError(f"in logMessage: {exc.reason}", i + 1 + exc.column) from None
        _refuse_calls(expr, "logMessage", i + 1)
        if literal:
            parts.append("".join(literal))
            literal = []
        parts.append(expr)
        i = end + 1
    if literal:
        parts.append("".join(literal))
    return tuple(parts)


def _refuse_calls(expr: Expr, where: str, offset: int) -> None:
    """A condition or log part calls a method only where the session may run app code (``--allow-invoke``,
    :func:`allowing_calls`): then each hit runs it, on the hitting thread, as IntelliJ's conditions do.

    Raises:
        InvalidArgument: ``expr`` calls a method and calls are not allowed; the column counts as the syntax
            errors' do.
    """
    call = first_call(expr)
    if call is not None and not CALLS_ALLOWED.get():
        raise InvalidArgument(f"column {offset + call.column}: in {where}: {call.name}() is a method call; conditions "
                              "and log messages read values only and never call methods (unless the server was "
                              "started with --allow-invoke: then each hit runs app code)")


#: What a breakpoint whose plan :attr:`~HitPlan.invokes` says, once, in its answer.
INVOKES_NOTE = ("the condition or log message calls a method: each hit runs app code on the hitting thread (it may "
                "change the app's state, and a breakpoint the method hits holds it until the call's deadline)")

#: Whether the plans made in this context may call methods in their conditions and messages (the session's
#: ``allow_invoke``): set by the engine around the calls that plan a breakpoint's options.
CALLS_ALLOWED: ContextVar[bool] = ContextVar("calls_allowed", default=False)


def allowing_calls(allowed: bool) -> AbstractContextManager[bool]:
    """Plans made inside the block accept method calls when ``allowed``."""
    return scoped(CALLS_ALLOWED, allowed)


def _closing_brace(text: str, start: int) -> int:
    """The index of the ``}`` closing an expression that starts at ``start``; braces in literals do not count."""
    quote: str | None = None
    i = start
    while i < len(text) and i - start <= MAX_EXPRESSION_CHARS:
        char = text[i]
        if quote is not None:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "}":
            return i
        i += 1
    raise ExpressionSyntaxError("in logMessage: a '{' that is never closed by '}'", start)

"""Several expressions in one frame, in one pass: each its value or its own error, in the order given.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). docs/design.md §3.5 (``expressions: [...]`` and a stop's
capture).

The expressions share one :class:`~.expressions.evaluator.Evaluator` — the frame's locals (read once), the
class lookups, the declared types it asks ahead — and run at once, so their reads go out together: three
expressions over the same locals cost the round trips of the slowest, not of all three. An expression that
calls a method (only with ``--allow-invoke``) runs app code on the stop's thread, one call at a time: then
they run one after the other. Each has the evaluation deadline of :data:`EVALUATION_DEADLINE` seconds; one
that fails (or does not parse) is that item's error, and the others still answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import trio

from ...protocol.constants import ErrorCode
from ...protocol.errors import CommandError
from .._gather import gather
from ..errors import DebuggerError, EvaluationFailed, StaleReference
from ..model import ErrorInfo, Evaluated
from .expressions import Expr, first_call
from .expressions.context import FrameContext
from .expressions.evaluator import Evaluator
from .objects import Layouts
from .values import Values

__all__ = ["EVALUATION_DEADLINE", "MAX_EXPRESSIONS", "error_info", "evaluate_each"]

EVALUATION_DEADLINE = 2.0  # docs/design.md §6, per expression
MAX_EXPRESSIONS = 20  # one call's (docs/design.md §5.8)

_GONE = (ErrorCode.INVALID_THREAD, ErrorCode.INVALID_FRAMEID, ErrorCode.THREAD_NOT_SUSPENDED)


def error_info(exc: DebuggerError | CommandError) -> ErrorInfo:
    """An item's error as a value, with the code the server would give the same failure of a whole call."""
    if isinstance(exc, DebuggerError):
        return ErrorInfo(exc.code, str(exc))
    code = StaleReference.code if exc.code in _GONE else DebuggerError.code
    return ErrorInfo(code, str(exc))


async def evaluate_each(values: Values, layouts: Layouts, frame: FrameContext,
                        items: Sequence[tuple[str, Expr | DebuggerError]],
                        deadline: float = EVALUATION_DEADLINE) -> list[Evaluated]:
    """Each item's outcome, in order; an item given as an error (its text did not parse) is that error.

    Raises:
        JdwpError: the connection failed or timed out (not an item's fault: the whole answer is lost).
    """
    evaluator = Evaluator(values, layouts, frame)

    async def one(text: str, tree: Expr | DebuggerError) -> Evaluated:
        if isinstance(tree, DebuggerError):
            return Evaluated(text, error=error_info(tree))
        with trio.move_on_after(deadline):
            try:
                return Evaluated(text, await evaluator.summary(tree))
            except (DebuggerError, CommandError) as exc:
                return Evaluated(text, error=error_info(exc))
        return Evaluated(text, error=ErrorInfo(EvaluationFailed.code, f"the evaluation took longer than {deadline:g} "
                                               "s and was abandoned; nothing was changed (try a simpler expression)"))

    calls = frame.invocation is not None and any(
        not isinstance(tree, DebuggerError) and first_call(tree) is not None for _, tree in items)
    if calls:  # app code runs on the stop's one thread: one call at a time
        return [await one(text, tree) for text, tree in items]
    return list(await gather([partial(one, text, tree) for text, tree in items]))

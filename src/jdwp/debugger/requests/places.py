"""Where a breakpoint goes and what its options say, checked before any VM or session is asked.

Layer: ``jdwp.debugger.requests``; pure (no trio, no wire). These are the rules of a breakpoint's input that
need nothing but the input: one of a class or a source file, a line or a method (and a method's signature
and ``on`` only with a method), a file path without ``..``, the lambda choice, and the options' own
combinations and syntax (:mod:`.hits`). The engine applies them when a breakpoint is set; a caller that
wants bad input refused before it looks anything up (the MCP server, before it finds the session) asks the
same functions, so each rule is written once. Whether a condition may call a method is the session's to
say (``--allow-invoke``), so :func:`check_options` leaves that rule to the engine.
"""

from __future__ import annotations

import dataclasses

from ..classes.lambdas import LambdaChoice, parse_choice
from ..errors import InvalidArgument
from ..model import HitOptions
from .hits import allowing_calls, plan_of
from .targets import Target, class_target, file_target


@dataclasses.dataclass(frozen=True, slots=True)
class LinePlace:
    """A line of a class (and the classes nested in it) or of a source file; which of its lambdas."""

    target: Target
    line: int
    lambda_choice: LambdaChoice


def breakpoint_place(class_name: str | None = None, line: int | None = None, *, file: str | None = None,
                     method: str | None = None, signature: str | None = None, on: str | None = None,
                     lambda_choice: object = "all") -> LinePlace | MethodPlace:
    """Where a breakpoint goes: a line of ``class_name`` or ``file``, or ``method`` of ``class_name``.

    Raises:
        InvalidArgument: not exactly one of a class or a file, neither a line nor a method, a method with a
            line or a file, a signature or ``on`` without a method, a line's bad class name, file path or
            lambda choice. The message names the inputs as the tools do (``className``).
    """
    if method is None and (signature is not None or on is not None):
        raise InvalidArgument("signature and on are for a method breakpoint: give method too")
    if method is not None:
        if class_name is None or file is not None or line is not None:
            raise InvalidArgument("a method breakpoint takes className and method (and no line or file)")
        return MethodPlace(class_name, method, signature, on or "entry")  # its names: checked where it is made
    if (class_name is None) == (file is None):
        raise InvalidArgument("give exactly one of className (com.example.Foo) or file (Foo.kt or a path)")
    target = class_target(class_name) if class_name is not None else file_target(file)  # type: ignore[arg-type]
    if line is None:
        raise InvalidArgument("line is required (a 1-based source line), or method for a method breakpoint")
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        raise InvalidArgument(f"line must be a 1-based source line, got {line!r}")
    return LinePlace(target, line, parse_choice(lambda_choice))


def check_options(options: HitOptions) -> None:
    """Check a breakpoint's or watchpoint's options as far as they go without a session: their combinations
    (:func:`.hits.plan_hits`) and the syntax of the condition and the log message. Whether they may call a
    method is checked when the engine plans them.

    Raises:
        InvalidArgument, ExpressionSyntaxError: as :func:`.hits.plan_hits`.
    """
    with allowing_calls(True):
        plan_of(options)


@dataclasses.dataclass(frozen=True, slots=True)
class MethodPlace:
    """A method's entry or exit, every overload or the one of ``signature``; the names are checked where the
    breakpoint is made (:meth:`.method_breakpoints.MethodBreakpoints.add`)."""

    class_name: str
    method: str
    signature: str | None
    on: str

"""What an evaluation works with: the frame's context, its intermediate results, and the internal signals
of the evaluator (shared by :mod:`.evaluator` and :mod:`.calls`).

Layer: ``jdwp.debugger``; pure (no I/O).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

from ....protocol.types import ReferenceTypeId
from ....protocol.values import Value
from ...errors import EvaluationFailed
from ...model import Locals
from ..invoke import Invocation
from .parser import Expr, Field, Name

#: Supertypes every array has.
ARRAY_SUPERTYPES = frozenset({"java.lang.Object", "java.lang.Cloneable", "java.io.Serializable"})


@dataclasses.dataclass(frozen=True, slots=True)
class Text:
    """A string made by the expression (a literal or a concatenation): it has no object in the VM."""

    text: str


Result = Value | Text


class Unknown(EvaluationFailed):
    """A name that is not a local, a field or a class: a dotted prefix may still be a package."""


class Threw(Exception):  # an invoked method's exception: the expression's result, not an error
    def __init__(self, exception: Value) -> None:
        super().__init__("an invoked method threw")
        self.exception = exception


@dataclasses.dataclass(frozen=True, slots=True)
class FrameContext:
    """The frame an expression is evaluated in (``invocation`` ``None``: method calls are refused)."""

    declaring_type: ReferenceTypeId
    read_locals: Callable[[], Awaitable[Locals]]
    invocation: Invocation | None = None


def dotted_name(expr: Expr) -> str | None:
    if isinstance(expr, Name):
        return expr.name
    if isinstance(expr, Field):
        prefix = dotted_name(expr.target)
        return None if prefix is None else f"{prefix}.{expr.name}"
    return None

"""``evaluate_debugger_expression``: evaluate an expression."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from pydantic import Field, WithJsonSchema, model_validator

from jdwp.debugger import Evaluated, Summary

from ..models import SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "Evaluate a read-only Java expression (at most 512 characters) in a frame (frameId from "
    "get_debugger_stack) of the current stop, without running app code: locals, this, fields (a.b, private "
    "and inherited), statics (com.x.Foo.BAR, or Foo.BAR for a loaded class), a[i] and a.length of arrays, "
    "list[i], map[key] and .size of the containers get_debugger_object shows as list/set/map, literals, "
    "! and unary -, * / % + - with Java's numeric promotion (int overflow wraps), string + (strings and "
    "primitives only: toString() is not run), < <= > >= == != (two strings compare their text, objects "
    "their identity), && || (short-circuit), instanceof, parentheses. Returns one value as "
    "get_debugger_locals shows it: kind, value, object_id, runtime_type. A syntax error is INVALID_ARGUMENT "
    "with the column; an unknown name, a null dereference, an index out of range, a type mismatch, a method "
    "call (unless the server runs with --allow-invoke), an absent map key or more than 2 s of evaluation is "
    "DEBUGGER_EVALUATION_FAILED. With --allow-invoke (capabilities list method_invocation), x.m(args) and "
    "Foo.m(args) run app code on the stop's own thread, single-threaded, within 2 s; a thrown exception is "
    "the result (thrown: type, message). expressions (up to 20) instead of expression answers results: "
    "[{expression, value} | {expression, error}] in order; frameId defaults to the stop's frame_id.")


#: A text input as the model sees it (what it was when it was required): its bounds, and no null.
_STRING = {"type": "string", "minLength": 1, "maxLength": 512}


class EvaluateInput(SessionInput):
    """Exactly one of ``expression`` or ``expressions``."""

    stopId: Text
    frameId: Annotated[Text | None, WithJsonSchema(_STRING)] = Field(
        default=None, description="A frame_id of this stop (default: its frame 0).")
    expression: Annotated[Text | None, WithJsonSchema(_STRING)] = Field(
        default=None,
        description="A read-only Java expression, at most 512 characters: locals, this, fields (a.b), statics "
                    "(Foo.BAR), array elements (a[i]), a.length, literals, ! - * / % + - < <= > >= == != && || "
                    "instanceof, parentheses. No method calls.")
    expressions: Annotated[tuple[Text, ...] | None, Field(min_length=1, max_length=20),
                           WithJsonSchema({"type": "array", "items": {"type": "string"}, "maxItems": 20})] = None

    @model_validator(mode="after")
    def _one_kind(self) -> EvaluateInput:
        if (self.expression is None) == (self.expressions is None):
            raise ValueError("give exactly one of expression (one value) or expressions (a list of up to 20)")
        return self


@dataclasses.dataclass(frozen=True, slots=True)
class Evaluations:
    """The answer to ``expressions``: each one's value or error, in the order given."""

    results: tuple[Evaluated, ...]


async def evaluate(call: Call) -> Summary | Evaluations:
    inp: EvaluateInput = call.input
    _, engine = call.attached(inp.stopId)
    if inp.expressions is not None:
        return Evaluations(tuple(await engine.evaluate_each(inp.stopId, inp.frameId, inp.expressions)))
    assert inp.expression is not None  # one of the two, by the model
    return await engine.evaluate(inp.stopId, inp.frameId, inp.expression)


TOOL = Tool("evaluate_debugger_expression", "Evaluate an expression", DESCRIPTION,
            EvaluateInput, evaluate, Summary, read_only=True, idempotent=True, order=110)

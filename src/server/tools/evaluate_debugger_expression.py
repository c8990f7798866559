"""``evaluate_debugger_expression``: evaluate an expression."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from pydantic import Field, StrictInt, WithJsonSchema, model_validator

from jdwp.debugger import Computed, Evaluated, ObjectPage, Summary

from ..answers.tool_words import in_tool_words
from ..session.models import SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "Read-only expressions in frameId (default frame 0): locals, fields, statics, a[i], map[key], .size, "
    "operators, xs.map/filter/sumOf/count/first/any { it.f }.")


#: A text input as the model sees it (what it was when it was required): its bounds, and no null.
_STRING = {"type": "string", "minLength": 1, "maxLength": 512}


class EvaluateInput(SessionInput):
    """Exactly one of ``expression`` or ``expressions``."""

    stopId: Text
    frameId: Annotated[Text | None, WithJsonSchema(_STRING)] = None
    expression: Annotated[Text | None, WithJsonSchema(_STRING)] = None
    expressions: Annotated[tuple[Text, ...] | None, Field(min_length=1, max_length=20),
                           WithJsonSchema({"type": "array", "items": {"type": "string"}})] = None
    depth: Annotated[StrictInt | None, Field(ge=0, le=2), WithJsonSchema(
        {"type": "integer", "description": "1-2: contents"})] = None

    @model_validator(mode="after")
    def _one_kind(self) -> EvaluateInput:
        if (self.expression is None) == (self.expressions is None):
            raise ValueError("give exactly one of expression (one value) or expressions (a list of up to 20)")
        return self


@dataclasses.dataclass(frozen=True, slots=True)
class Evaluations:
    """The answer to ``expressions``: each one's value or error, in the order given."""

    results: tuple[Evaluated, ...]


async def evaluate(call: Call) -> Summary | Computed | ObjectPage | Evaluations:
    inp: EvaluateInput = call.input
    _, engine = call.attached(inp.stopId)
    if inp.expressions is not None:
        results = await engine.evaluate_each(inp.stopId, inp.frameId, inp.expressions, inp.depth or 0)
        return Evaluations(tuple(_in_tool_words(item) for item in results))
    assert inp.expression is not None  # one of the two, by the model
    return await engine.evaluate(inp.stopId, inp.frameId, inp.expression, inp.depth or 0)


def _in_tool_words(item: Evaluated) -> Evaluated:
    """An item's error in the tools' words, as :func:`..failures.failure_of` gives a whole call's."""
    if item.error is None:
        return item
    return dataclasses.replace(item, error=dataclasses.replace(item.error, message=in_tool_words(item.error.message)))


TOOL = Tool("evaluate_debugger_expression", "Evaluate an expression", DESCRIPTION,
            EvaluateInput, evaluate, Summary, read_only=True, idempotent=True, order=110)

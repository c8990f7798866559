"""``evaluate_debugger_expression``: evaluate an expression."""

from __future__ import annotations

from pydantic import Field

from jdwp.debugger import Summary

from ..models import SessionInput, Text
from ._tool import Call, Tool

DESCRIPTION = (
    "Evaluate a read-only Java expression in a frame: locals, fields, statics, a[i], list[i], map[key], .size, "
    "operators, instanceof. Calls need --allow-invoke.")


class EvaluateInput(SessionInput):
    stopId: Text
    frameId: Text
    expression: Text = Field(description="e.g. order.items[0].price * 2")


async def evaluate(call: Call) -> Summary:
    inp: EvaluateInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.evaluate(inp.stopId, inp.frameId, inp.expression)


TOOL = Tool("evaluate_debugger_expression", "Evaluate an expression", DESCRIPTION,
            EvaluateInput, evaluate, Summary, read_only=True, idempotent=True, order=110)

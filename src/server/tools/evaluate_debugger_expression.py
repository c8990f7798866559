"""``evaluate_debugger_expression``: evaluate an expression."""

from __future__ import annotations

from pydantic import Field

from jdwp.debugger import Summary

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
    "the result (thrown: type, message).")


class EvaluateInput(SessionInput):
    stopId: Text
    frameId: Text = Field(description="A frame_id from get_debugger_stack of this stop.")
    expression: Text = Field(
        description="A read-only Java expression, at most 512 characters: locals, this, fields (a.b), statics "
                    "(Foo.BAR), array elements (a[i]), a.length, literals, ! - * / % + - < <= > >= == != && || "
                    "instanceof, parentheses. No method calls.")


async def evaluate(call: Call) -> Summary:
    inp: EvaluateInput = call.input
    _, engine = call.attached(inp.stopId)
    return await engine.evaluate(inp.stopId, inp.frameId, inp.expression)


TOOL = Tool("evaluate_debugger_expression", "Evaluate an expression", DESCRIPTION,
            EvaluateInput, evaluate, Summary, read_only=True, idempotent=True, order=110)
